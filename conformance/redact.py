"""Redaction for golden snapshots: what still varies between two runs of the same case.

The case runner already writes run ids of named steps as ``${name.run}`` and sandbox paths
as ``${path:…}`` / ``${root:…}``. What is left to hide: a UUID it could not name, a temp path
outside the known roots, a workspace's state folder (named by a digest of the sandbox's team
path), and an instant the scenario did not set (a clock leak would otherwise make every
snapshot differ on every run).

The golden snapshots of the reference live in ``tests/conformance/test_reference_snapshots.py``;
how a result is pinned is ``tests/conformance/snapshots.py``, which the protocol's parity test
also holds the reference behind the protocol to, so the in-process side runs once.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Iterable
from typing import Any

UUID = re.compile(r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b")
_TEMP = tempfile.gettempdir()
# A case's sandbox (``tc-…``) under the usual temp folders, or under this process's (``TMPDIR``).
TEMP_PATH = re.compile("(?:" + "|".join(sorted({re.escape(_TEMP), re.escape(os.path.realpath(_TEMP))}, key=len,
                                               reverse=True))
                       + r"|(?:/private)?(?:/tmp|/var/folders/[^/\s\"']+/[^/\s\"']+/T))/tc-[^/\s\"']+")
# A workspace's state folder is named by a digest of the team's path, which lies in the sandbox.
WORKSPACE = re.compile(r"(?<=[/\\]workspaces[/\\])[0-9a-f]{16}\b")
INSTANT = re.compile(r"\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)")


def redact_text(text: str, allowed_instants: Iterable[str] = ()) -> str:
    allowed = set(allowed_instants)
    text = UUID.sub("<uuid>", text)
    text = TEMP_PATH.sub("<sandbox>", text)
    text = WORKSPACE.sub("<workspace>", text)
    return INSTANT.sub(lambda m: m.group(0) if m.group(0) in allowed else "<time>", text)


def redact(value: Any, allowed_instants: Iterable[str] = ()) -> Any:
    allowed = frozenset(allowed_instants)
    if isinstance(value, str):
        return redact_text(value, allowed)
    if isinstance(value, list):
        return [redact(v, allowed) for v in value]
    if isinstance(value, dict):
        return {redact_text(k, allowed) if isinstance(k, str) else k: redact(v, allowed) for k, v in value.items()}
    return value

