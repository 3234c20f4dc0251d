"""The per-session upvote ledger: which (root session, doc key) pairs have already been credited.

It is the guard that keeps one session from upvoting the same doc twice within a day, whatever
happens to the recall log (a consumed line that failed to be written, a resumed session reading
the doc again, two reducers racing). Entries expire 24 h after they were credited, as teamai's
votes TTL does. The file is JSON::

    {"version": 1, "sessions": {"<root session>": {"<vote key>": "<credited at>"}}}

It shares the votes ledger's lock (the reducer edits both in one critical section) and is
written whole with ``storage.write_atomic``. A file that does not parse is moved aside, never
overwritten, and the move is named in a warning.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable

from .clock import ClockError, parse_instant
from .storage import write_atomic

VERSION = 1
TTL_SECONDS = 24 * 3600

Sessions = dict[str, dict[str, str]]


class CorruptUpvoted(ValueError):
    pass


def _parse(text: str) -> Sessions:
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise CorruptUpvoted("not JSON") from exc
    if not isinstance(data, dict) or not isinstance(data.get("sessions"), dict):
        raise CorruptUpvoted("no sessions object")
    out: Sessions = {}
    for session, keys in data["sessions"].items():
        if not isinstance(keys, dict) or not all(isinstance(v, str) for v in keys.values()):
            raise CorruptUpvoted(f"session {session!r} is not a mapping of keys to instants")
        out[str(session)] = {str(k): v for k, v in keys.items()}
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


def active(sessions: Sessions, session: str, key: str, now_epoch: float) -> bool:
    """Whether ``session`` credited ``key`` less than 24 h before ``now_epoch``."""
    when = sessions.get(session, {}).get(key)
    if when is None:
        return False
    try:
        return parse_instant(when).timestamp() + TTL_SECONDS > now_epoch
    except ClockError:
        return True  # an unreadable instant is kept as a guard rather than risking a second vote


def save(path: str, sessions: Sessions, now_epoch: float) -> None:
    """Write the ledger without the entries that have expired."""
    kept: Sessions = {}
    for session in sorted(sessions):
        keys = {k: v for k, v in sorted(sessions[session].items()) if active(sessions, session, k, now_epoch)}
        if keys:
            kept[session] = keys
    data = json.dumps({"version": VERSION, "sessions": kept}, ensure_ascii=False, indent=1) + "\n"
    write_atomic(path, data.encode("utf-8"))
