"""The per-session upvote ledger: which (root session, doc key) pairs have already been credited.

It is the guard that keeps one session from upvoting the same doc twice within a day, whatever
happens to the recall log (a consumed line that failed to be written, two reducers racing).

Each entry holds two instants. ``read`` is the ``ts`` of the read that credited the pair, and a
new credit is blocked when its own read lies less than 24 h before or after it: the same rule on
the same instants as the log's own cover (``reducer.credit``), so the ledger never decides
differently from the log, and the votes never depend on when the reducer runs. ``credited`` is
when the reducer wrote the entry, and the entry expires 24 h after that (teamai's votes TTL):
the guard lasts a day from the moment a consumed line could have been lost, even when a pull
credits a read that is days old. The file is JSON::

    {"version": 2, "sessions": {"<root session>": {"<vote key>": {"read": "<ts>", "credited": "<ts>"}}}}

Version 1 files (one instant per entry, when it was credited) are read with that instant as both.
It shares the votes ledger's lock (the reducer edits both in one critical section) and is
written whole with ``storage.write_atomic``. A file that does not parse is moved aside, never
overwritten, and the move is named in a warning.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable

from .clock import ClockError, micros
from .storage import utf8, write_atomic

VERSION = 2
TTL = 24 * 3600 * 1_000_000  # microseconds

Entry = dict[str, str]  # {"read": ts, "credited": ts}
Sessions = dict[str, dict[str, Entry]]


class CorruptUpvoted(ValueError):
    pass


def _entry(value: object) -> Entry | None:
    if isinstance(value, str):  # version 1
        return {"read": value, "credited": value}
    if (isinstance(value, dict) and isinstance(value.get("read"), str)
            and isinstance(value.get("credited"), str)):
        return {"read": value["read"], "credited": value["credited"]}
    return None


def _parse(text: str) -> Sessions:
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise CorruptUpvoted("not JSON") from exc
    if not isinstance(data, dict) or not isinstance(data.get("sessions"), dict):
        raise CorruptUpvoted("no sessions object")
    out: Sessions = {}
    for session, keys in data["sessions"].items():
        entries = {str(k): _entry(v) for k, v in keys.items()} if isinstance(keys, dict) else None
        if entries is None or any(e is None for e in entries.values()):
            raise CorruptUpvoted(f"session {session!r} is not a mapping of keys to credits")
        out[str(session)] = {k: e for k, e in entries.items() if e is not None}
    return out


def _set_aside(path: str, stamp: str) -> str:
    base = f"{path}.corrupt-{stamp.replace(':', '')}"
    aside, n = base, 1
    while os.path.exists(aside):
        n += 1
        aside = f"{base}-{n}"
    os.replace(path, aside)
    return aside


def load(path: str, stamp: str, warn: Callable[[str], None]) -> Sessions:
    """The entries on disk (expired ones included); the caller holds the votes ledger's lock."""
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except FileNotFoundError:
        return {}
    except UnicodeDecodeError:
        text = "\0"
    try:
        return _parse(text)
    except CorruptUpvoted as exc:
        aside = _set_aside(path, stamp)
        warn(f"per-session upvote ledger {path} is corrupt ({exc}); moved it to {aside} and started a new one")
        return {}


def _when(value: str) -> int | None:
    try:
        return micros(value)
    except ClockError:
        return None


def blocks(sessions: Sessions, session: str, key: str, read_at: int) -> bool:
    """Whether ``session`` already credited ``key`` by a read less than 24 h from ``read_at``."""
    entry = sessions.get(session, {}).get(key)
    if entry is None:
        return False
    at = _when(entry["read"])
    return at is None or abs(read_at - at) < TTL  # an unreadable instant is kept as a guard


def remember(sessions: Sessions, session: str, key: str, read_ts: str, now_ts: str) -> None:
    """Record a credit by the read at ``read_ts`` (the later read, when the pair has one already)."""
    keys = sessions.setdefault(session, {})
    old = keys.get(key)
    old_at = _when(old["read"]) if old is not None else None
    new_at = _when(read_ts)
    read = read_ts if old is None or old_at is None or (new_at is not None and new_at > old_at) else old["read"]
    keys[key] = {"read": read, "credited": now_ts}


def expired(entry: Entry, now: int) -> bool:
    at = _when(entry["credited"])
    return at is not None and at + TTL <= now


def save(path: str, sessions: Sessions, now: int) -> None:
    """Write the ledger without the entries that have expired."""
    kept: Sessions = {}
    for session in sorted(sessions):
        keys = {k: e for k, e in sorted(sessions[session].items()) if not expired(e, now)}
        if keys:
            kept[session] = keys
    # One line: an indented dump takes json's slow path, and a Stop that credits writes this file.
    data = json.dumps({"version": VERSION, "sessions": kept}, ensure_ascii=False, separators=(",", ":")) + "\n"
    write_atomic(path, utf8(data))
