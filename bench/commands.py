"""The command lines the bench times: the interpreter floors and the reference as a user runs it."""

from __future__ import annotations

import os
import shutil
import sys

PY = sys.executable
FLOOR = [PY, "-I", "-S", "-c", "pass"]
JSON_FLOOR = [PY, "-I", "-S", "-c", "import json"]
# Variables through which the calling agent's session would leak into what is measured.
CALLER_PREFIXES = ("CLAUDE", "CODEX", "CURSOR", "COPILOT", "CODEBUDDY", "PI_", "TEAMAI_")


def ref_cmd() -> list[str]:
    script = shutil.which("teamai-ref", path=os.path.dirname(PY)) or shutil.which("teamai-ref")
    return [script] if script else [PY, "-m", "reference"]


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(CALLER_PREFIXES)}
    env.update(extra)
    return env
