"""The per-session upvote ledger: which (root session, doc key) pairs have already been credited.

It is the guard that keeps one session from upvoting the same doc twice within a day, whatever
happens to the recall log (a consumed line that failed to be written, two reducers racing).

Each entry holds two instants. ``read`` is the ``ts`` of the read that credited the pair, and a
new credit is blocked when its own read lies less than 24 h before or after it: the same rule on
the same instants as the log's own cover (``reducer.credit``), so the ledger never decides
differently from the log, and the votes never depend on when the reducer runs. ``credited`` is
when the reducer wrote the entry, and the entry expires 24 h after that (teamai's votes TTL):
the guard lasts a day from the moment a consumed line could have been lost, even when a pull
credits a read that is days old.

It also names each read it counted, with the root session it counted under, for as long: when
the consumed line of a counted read is lost and a link written meanwhile moves the read under
another root, the retry must not weigh the read again (a second vote, or a vote no credited
line accounts for) but mark it consumed as the credit it already was. The file is JSON::

    {"version": 3,
     "sessions": {"<root session>": {"<vote key>": {"read": "<ts>", "credited": "<ts>"}}},
     "reads": [{"read": "<ts>", "session": "<reader>", "path": "<path>", "root": "<root session>",
                "key": "<vote key>", "credited": "<ts>"}]}

Version 1 files (one instant per entry, when it was credited) are read with that instant as both;
versions 1 and 2 name no reads.
It shares the votes ledger's lock (the reducer edits both in one critical section) and is
written whole with ``storage.write_atomic``. A file that does not parse is moved aside, never
overwritten, and the move is named in a warning.
"""

from __future__ import annotations

import os

from . import jsontext
from .clock import ClockError, micros
from .storage import utf8, write_atomic

TYPE_CHECKING = False  # collections.abc costs a fresh process (a hook) ~2 ms
if TYPE_CHECKING:
    from collections.abc import Callable

VERSION = 3
TTL = 24 * 3600 * 1_000_000  # microseconds

Entry = dict[str, str]  # {"read": ts, "credited": ts}
Sessions = dict[str, dict[str, Entry]]
Ident = tuple[str, str, str]  # a read's ts, session and path


class Credits:
    """The file's content: the guard per (root session, key), and the reads counted."""

    __slots__ = ("sessions", "reads")

    def __init__(self, sessions: Sessions | None = None, reads: dict[tuple[Ident, str], Entry] | None = None) -> None:
        self.sessions: Sessions = sessions if sessions is not None else {}
        # (read ident, key) -> {"root": ..., "credited": ...}
        self.reads: dict[tuple[Ident, str], Entry] = reads if reads is not None else {}


class CorruptUpvoted(ValueError):
    pass


def _entry(value: object) -> Entry | None:
    if isinstance(value, str):  # version 1
        return {"read": value, "credited": value}
    if (isinstance(value, dict) and isinstance(value.get("read"), str)
            and isinstance(value.get("credited"), str)):
        return {"read": value["read"], "credited": value["credited"]}
    return None


def _parse(text: str) -> Credits:
    try:
        data = jsontext.loads(text)
    except ValueError as exc:
        raise CorruptUpvoted("not JSON") from exc
    if not isinstance(data, dict) or not isinstance(data.get("sessions"), dict):
        raise CorruptUpvoted("no sessions object")
    out: Sessions = {}
    for session, keys in data["sessions"].items():
        entries: dict[str, Entry] = {}
        for k, v in keys.items() if isinstance(keys, dict) else [("", None)]:
            entry = _entry(v)
            if entry is None:
                raise CorruptUpvoted(f"session {session!r} is not a mapping of keys to credits")
            entries[str(k)] = entry
        out[str(session)] = entries
    reads = data.get("reads", [])
    if not isinstance(reads, list):
        raise CorruptUpvoted("reads is not a list of counted reads")
    counted: dict[tuple[Ident, str], Entry] = {}
    for r in reads:  # written out: a Stop that credits reads every entry of the day
        get = r.get if isinstance(r, dict) else None
        if get is None:
            raise CorruptUpvoted("reads is not a list of counted reads")
        read, session, path, root, key, credited = (get("read"), get("session"), get("path"), get("root"),
                                                    get("key"), get("credited"))
        if not (isinstance(read, str) and isinstance(session, str) and isinstance(path, str)
                and isinstance(root, str) and isinstance(key, str) and isinstance(credited, str)):
            raise CorruptUpvoted("reads is not a list of counted reads")
        counted[((read, session, path), key)] = {"root": root, "credited": credited}
    return Credits(out, counted)


def _set_aside(path: str, stamp: str) -> str:
    base = f"{path}.corrupt-{stamp.replace(':', '')}"
    aside, n = base, 1
    while os.path.exists(aside):
        n += 1
        aside = f"{base}-{n}"
    os.replace(path, aside)
    return aside


def load(path: str, stamp: str, warn: Callable[[str], None]) -> Credits:
    """The entries on disk (expired ones included); the caller holds the votes ledger's lock."""
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except FileNotFoundError:
        return Credits()
    except UnicodeDecodeError:
        text = "\0"
    try:
        return _parse(text)
    except CorruptUpvoted as exc:
        aside = _set_aside(path, stamp)
        warn(f"per-session upvote ledger {path} is corrupt ({exc}); moved it to {aside} and started a new one")
        return Credits()


def peek(path: str) -> Credits:
    """The entries on disk, read without the lock, to learn whether the lock is needed; a missing or
    spoilt file reads as empty (``load``, under the lock, deals with a spoilt one)."""
    try:
        with open(path, encoding="utf-8") as fh:
            return _parse(fh.read())
    except (OSError, UnicodeDecodeError, CorruptUpvoted):
        return Credits()


_INSTANTS: dict[str, int | None] = {}  # most entries share the few instants the reducer wrote them at


def _when(value: str) -> int | None:
    if value in _INSTANTS:
        return _INSTANTS[value]
    try:
        at: int | None = micros(value)
    except ClockError:
        at = None
    _INSTANTS[value] = at
    return at


def counted(credits: Credits, ident: Ident, key: str) -> str | None:
    """The root session the read ``ident`` was counted under for ``key``, if it was."""
    entry = credits.reads.get((ident, key))
    return entry["root"] if entry is not None else None


def blocks(credits: Credits, session: str, key: str, read_at: int) -> bool:
    """Whether ``session`` already credited ``key`` by a read less than 24 h from ``read_at``."""
    entry = credits.sessions.get(session, {}).get(key)
    if entry is None:
        return False
    at = _when(entry["read"])
    return at is None or abs(read_at - at) < TTL  # an unreadable instant is kept as a guard


def remember(credits: Credits, session: str, key: str, ident: Ident, now_ts: str) -> None:
    """Record a credit by the read ``ident`` (the guard keeps the later read, when the pair has
    one already)."""
    credits.reads[(ident, key)] = {"root": session, "credited": now_ts}
    read_ts = ident[0]
    keys = credits.sessions.setdefault(session, {})
    old = keys.get(key)
    old_at = _when(old["read"]) if old is not None else None
    new_at = _when(read_ts)
    read = read_ts if old is None or old_at is None or (new_at is not None and new_at > old_at) else old["read"]
    keys[key] = {"read": read, "credited": now_ts}


def expired(entry: Entry, now: int) -> bool:
    at = _when(entry["credited"])
    return at is not None and at + TTL <= now


def save(path: str, credits: Credits, now: int) -> None:
    """Write the ledger without the entries and reads that have expired."""
    kept: Sessions = {}
    for session in sorted(credits.sessions):
        keys = {k: e for k, e in sorted(credits.sessions[session].items()) if not expired(e, now)}
        if keys:
            kept[session] = keys
    reads = [{"read": ident[0], "session": ident[1], "path": ident[2], "root": e["root"], "key": key,
              "credited": e["credited"]} for (ident, key), e in sorted(credits.reads.items()) if not expired(e, now)]
    # One line: an indented dump takes json's slow path, and a Stop that credits writes this file.
    data = jsontext.dumps({"version": VERSION, "sessions": kept, "reads": reads}) + "\n"
    write_atomic(path, utf8(data))
