"""The recall log of one scope: JSON lines, appended under the log's lock in one write.

One line per event. The shapes (every field of every kind is listed in ARCHITECTURE.md):

- ``run``: a recall that searched: run id, ts, session, via, unambiguous, agent, actor, caller,
  docs[] (key, type, scope, path, score, eligible).
- ``claim``: a shell call that ran ``teamai recall`` printed this run id.
- ``evidence``: a tool call read (or showed content of) a file under the knowledge roots.
- ``link``: a child session belongs to a parent session.
- ``consumed``: evidence that credited an upvote (written by the reducer).

Never a query, a prompt, a command line or file content. Reading skips (and counts) lines that
are not JSON objects with a known ``kind``: a torn or hand-edited line must not stop a reducer.
"""

from __future__ import annotations

from . import jsontext
from .logspool import fold
from .storage import append_bytes, locked, utf8

TYPE_CHECKING = False  # typing is imported only by type checkers: it costs a fresh process ~4 ms
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping
    from typing import Any

KINDS = frozenset({"run", "claim", "evidence", "link", "consumed"})


def encode(record: Mapping[str, Any], strict: bool = False) -> bytes:
    """One line; ``strict`` refuses text with no UTF-8 form (``UnicodeEncodeError``) instead of
    writing it escaped as ``storage.utf8`` does."""
    text = jsontext.dumps(record) + "\n"
    return text.encode("utf-8") if strict else utf8(text)


def append(log_path: str, lock_path: str, records: Iterable[Mapping[str, Any]], wait: float,
           strict: bool = False) -> None:
    """Append ``records`` as one write under the log's lock. The hook appends ``strict``ly: a
    payload holding text that is not valid Unicode is not an agent's, and nothing of it is written;
    the reducer writes back what the log already holds, escaped."""
    data = b"".join(encode(r, strict) for r in records)
    if not data:
        return
    with locked(lock_path, "the recall log", wait):
        fold(log_path)  # lines a hook spooled while the lock was stuck (logspool.py)
        append_bytes(log_path, data)


def parse_lines(data: bytes) -> tuple[list[dict[str, Any]], int]:
    """(records, number of malformed lines skipped)."""
    records: list[dict[str, Any]] = []
    bad = 0
    for raw in data.split(b"\n"):
        if not raw.strip():
            continue
        try:
            rec = jsontext.loads(raw)
        except ValueError:
            bad += 1
            continue
        if isinstance(rec, dict) and rec.get("kind") in KINDS and isinstance(rec.get("ts"), str):
            records.append(rec)
        else:
            bad += 1
    return records, bad


def read(log_path: str) -> tuple[list[dict[str, Any]], int]:
    try:
        with open(log_path, "rb") as fh:
            data = fh.read()
    except FileNotFoundError:
        return [], 0
    return parse_lines(data)
