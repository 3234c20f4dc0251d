"""Where a capture goes: one JSON-lines file per agent session in the capture folder.

A session's file is named ``<agent>-<session>.jsonl`` when the session id is a safe file name,
else ``<agent>-<sha256 of the id, 16 hex>.jsonl``; payloads that name no session go to
``<agent>-no-session-<day>.jsonl``. Every line is appended in one write under the folder's lock
(``storage.py``) with a short bounded wait: a hook must not hold the agent up, so a capture that
cannot be written is dropped and the caller notes it in the debug log.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping

from ..state.storage import append_bytes, ensure_dir, locked

TYPE_CHECKING = False  # typing is imported only by type checkers: it costs a fresh process ~4 ms
if TYPE_CHECKING:
    from typing import Any

MAX_WAIT = 1.0  # seconds, at most, that a capture waits for another one to finish writing
_SAFE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,79}")
LOCK = ".capture.lock"


def file_name(agent: str, session: str | None, day: str) -> str:
    who = re.sub(r"[^a-z0-9_-]", "-", agent.lower())[:32] or "agent"
    if not session:
        return f"{who}-no-session-{day}.jsonl"
    if _SAFE.fullmatch(session):
        return f"{who}-{session}.jsonl"
    try:
        from _sha256 import sha256  # type: ignore[import-not-found]
    except ImportError:  # pragma: no cover - other Python builds
        from hashlib import sha256
    return f"{who}-{sha256(session.encode('utf-8', 'surrogateescape')).hexdigest()[:16]}.jsonl"


def append(folder: str, name: str, line: Mapping[str, Any], wait: float) -> str:
    """Append ``line`` to ``folder/name``; returns the file's path. Raises ``storage.Busy`` or
    ``OSError`` when it cannot (the caller drops the capture)."""
    data = (json.dumps(line, ensure_ascii=False) + "\n").encode("utf-8", "surrogateescape")
    ensure_dir(folder)
    path = os.path.join(folder, name)
    with locked(os.path.join(folder, LOCK), "the capture folder", min(wait, MAX_WAIT)):
        append_bytes(path, data)
    return path
