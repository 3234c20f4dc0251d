"""The hook path stays light: a fresh process running hook-dispatch never imports YAML, SQLite, the
index or recall. Checked by what ``-X importtime`` lists, not by timing."""

from __future__ import annotations

import json
import subprocess
import sys

from ._support import ROOT, Cli


def imported(cli: Cli, event: str) -> set[str]:
    payload = {"session_id": "s", "cwd": "/", "tool_name": "Bash", "tool_input": {"command": "cat a.md | head"},
               "tool_response": {"stdout": "x"}}
    # Without coverage's start-up hook: measuring would itself import sqlite3 and dataclasses.
    env = {k: v for k, v in cli.env.items() if not k.startswith("COVERAGE")}
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "reference", "hook-dispatch", event, "--tool",
                           "claude"], input=json.dumps(payload).encode(), capture_output=True, env=env, cwd=ROOT,
                          timeout=120)
    assert proc.returncode == 0 and proc.stdout == b""
    names = set()
    for line in proc.stderr.decode().splitlines():
        if line.startswith("import time:") and "|" in line:
            names.add(line.rsplit("|", 1)[1].strip())
    assert "reference.hook.dispatch" in names
    return names


def test_post_tool_use_imports_no_heavy_module(cli: Cli) -> None:
    names = imported(cli, "post-tool-use")
    assert "reference.hook.classify" in names
    for heavy in ("yaml", "sqlite3", "_sqlite3", "reference.index", "reference.recall", "reference.ledger", "shlex"):
        assert heavy not in names, heavy


def test_post_tool_use_does_not_import_argparse(cli: Cli) -> None:
    assert "argparse" not in imported(cli, "post-tool-use")


def test_post_tool_use_does_not_import_dataclasses(cli: Cli) -> None:
    assert "dataclasses" not in imported(cli, "post-tool-use")
