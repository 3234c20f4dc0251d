"""The per-session upvote ledger: which (root session, doc key) pairs have already been credited.

It is the guard that keeps one session from upvoting the same doc twice within a day, whatever
happens to the recall log (a consumed line that failed to be written, two reducers racing).

A guard holds two instants. ``read`` is the ``ts`` of the read that credited the pair, and a new
credit is blocked when its own read lies less than 24 h before or after it: the same rule on the
same instants as the log's own cover (``reducer.credit``), so the ledger never decides
differently from the log, and the votes never depend on when the reducer runs. ``credited`` is
when the reducer wrote the guard, and it expires 24 h after that (teamai's votes TTL): the guard
lasts a day from the moment a consumed line could have been lost, even when a pull credits a read
that is days old. An expired guard is ignored from that instant on, whether or not a later write
has dropped it from the file yet.

It also names each read it counted, with the root session it counted under, for as long: when
the consumed line of a counted read is lost and a link written meanwhile moves the read under
another root, the retry must not weigh the read again (a second vote, or a vote no credited
line accounts for) but mark it consumed as the credit it already was.

The file is JSON lines (version 4): a first line ``{"version":4,"compacted":<bytes>}`` (the bytes
of the lines below it when it was last written whole), then one
line per guard and per counted read; for the same pair or read a later line replaces an earlier::

    {"kind":"guard","session":"<root session>","key":"<vote key>","read":"<ts>","credited":"<ts>"}
    {"kind":"read","read":"<ts>","session":"<reader>","path":"<path>","root":"<root session>",
     "key":"<vote key>","credited":"<ts>"}

Why lines: a Stop credits a few reads of one family while the file holds a day of every
session's credits. It decodes only the lines that name the sessions it asks about (found by
their quoted names), and appends its new lines; a day's credits are decoded and written again
only when the file has doubled since it was last written whole (``compacted``), which drops
expired and replaced lines. Versions 1 to 3 (one JSON document; version 1 with one instant per
guard, read as both; versions 1 and 2 naming no reads) are read whole and written again as 4.

It shares the votes ledger's lock (the reducer edits both in one critical section). A whole
write goes through ``storage.write_atomic``; an append is fsynced. An append cut short leaves a
last line without its newline: it is ignored (the reduce that wrote it stopped before anything
else), and cut off before the next append. A file that does not parse is moved aside, never
overwritten, and the move is named in a warning.
"""

from __future__ import annotations

import os

from . import jsontext
from .clock import ClockError, micros
from .storage import utf8, write_after, write_atomic

TYPE_CHECKING = False  # collections.abc costs a fresh process (a hook) ~2 ms
if TYPE_CHECKING:
    from collections.abc import Callable

VERSION = 4
TTL = 24 * 3600 * 1_000_000  # microseconds
SLACK = 64 << 10  # bytes a file may grow past twice its last whole size before it is written whole

Entry = dict[str, str]  # {"read": ts, "credited": ts}
Sessions = dict[str, dict[str, Entry]]
Ident = tuple[str, str, str]  # a read's ts, session and path

_GUARD = b'{"kind":"guard",'
_READ = b'{"kind":"read",'


class Credits:
    """The file's content: the guard per (root session, key), and the reads counted; with
    ``whole`` False, only the entries of the sessions the load asked about."""

    __slots__ = ("sessions", "reads", "added", "whole", "rewrite", "end", "now")

    def __init__(self, sessions: Sessions | None = None, reads: dict[tuple[Ident, str], Entry] | None = None) -> None:
        self.sessions: Sessions = sessions if sessions is not None else {}
        # (read ident, key) -> {"root": ..., "credited": ...}
        self.reads: dict[tuple[Ident, str], Entry] = reads if reads is not None else {}
        self.added: list[bytes] = []  # lines remembered since the load, for the next write
        self.whole = True  # every entry of the file was read
        self.rewrite = False  # the next write writes the file whole (an older version, or it has doubled)
        self.end = 0  # bytes of whole lines the file held (0: no version 4 file)
        self.now: int | None = None  # expired entries are ignored from this instant on (None: none are)


class CorruptUpvoted(ValueError):
    pass


def _entry(value: object) -> Entry | None:
    if isinstance(value, str):  # version 1
        return {"read": value, "credited": value}
    if (isinstance(value, dict) and isinstance(value.get("read"), str)
            and isinstance(value.get("credited"), str)):
        return {"read": value["read"], "credited": value["credited"]}
    return None


def _parse_document(text: str) -> Credits:
    """Versions 1 to 3: one JSON document."""
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
    for r in reads:
        fields = _read_fields(r)
        if fields is None:
            raise CorruptUpvoted("reads is not a list of counted reads")
        counted[fields[0]] = fields[1]
    credits = Credits(out, counted)
    credits.rewrite = True
    return credits


def _read_fields(r: object) -> tuple[tuple[Ident, str], Entry] | None:
    get = r.get if isinstance(r, dict) else None
    if get is None:
        return None
    read, session, path, root, key, credited = (get("read"), get("session"), get("path"), get("root"),
                                                get("key"), get("credited"))
    if not (isinstance(read, str) and isinstance(session, str) and isinstance(path, str)
            and isinstance(root, str) and isinstance(key, str) and isinstance(credited, str)):
        return None
    return ((read, session, path), key), {"root": root, "credited": credited}


def _parse(data: bytes, about: set[str] | None) -> Credits:
    """The file's entries: all of them (``about`` None), or those of the sessions in ``about``
    (guards of those roots, reads by those sessions)."""
    first, newline, rest = data.partition(b"\n")
    try:
        head = jsontext.loads(first) if newline and first.startswith(b'{"version":4') else None
    except ValueError:
        head = None
    if head is None:
        try:
            return _parse_document(data.decode("utf-8"))
        except UnicodeDecodeError as exc:
            raise CorruptUpvoted("not UTF-8") from exc
    if not isinstance(head, dict) or head.get("version") != VERSION or not isinstance(head.get("compacted"), int):
        raise CorruptUpvoted("its first line is not a version 4 header")
    whole = rest[:rest.rfind(b"\n") + 1]  # a last line without its newline is an append cut short
    lines = whole.count(b"\n")
    # Every line is a guard or a read, and a whole JSON object (a newline inside one is escaped):
    # checked at once over the bytes, so that lines decoded only when asked about are still checked.
    framed = b"\n" + whole
    if (framed.count(b"\n" + _GUARD) + framed.count(b"\n" + _READ) != lines
            or whole.count(b"}\n") != lines):
        raise CorruptUpvoted("a line is not a guard or a counted read")
    if about is None:
        chosen = whole.split(b"\n")[:-1]
    else:
        chosen = jsontext.lines_naming(whole, about)
    try:
        records = jsontext.loads(b"[" + b",".join(chosen) + b"]") if chosen else []
    except ValueError as exc:
        raise CorruptUpvoted("a line is not JSON") from exc
    credits = Credits()
    for rec in records:
        kind = rec.get("kind") if isinstance(rec, dict) else None
        if kind == "guard":
            session, key, entry = rec.get("session"), rec.get("key"), _entry(rec)
            if not isinstance(session, str) or not isinstance(key, str) or entry is None:
                raise CorruptUpvoted("a guard line lacks its session, key or instants")
            if about is None or session in about:
                credits.sessions.setdefault(session, {})[key] = entry
        else:
            fields = _read_fields(rec)
            if fields is None:
                raise CorruptUpvoted("a counted read lacks one of its fields")
            if about is None or fields[0][0][1] in about:
                credits.reads[fields[0]] = fields[1]
    credits.whole = about is None
    credits.end = len(first) + 1 + len(whole)
    credits.rewrite = len(data) > 2 * head["compacted"] + SLACK
    return credits


def _set_aside(path: str, stamp: str) -> str:
    base = f"{path}.corrupt-{stamp.replace(':', '')}"
    aside, n = base, 1
    while os.path.exists(aside):
        n += 1
        aside = f"{base}-{n}"
    os.replace(path, aside)
    return aside


def _read(path: str) -> bytes | None:
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except FileNotFoundError:
        return None


def load(path: str, stamp: str, warn: Callable[[str], None], about: set[str] | None = None,
         now: int | None = None) -> Credits:
    """The entries on disk of the sessions in ``about`` (None: all); the caller holds the votes
    ledger's lock. Entries expired at ``now`` are ignored. A file due to be written whole is read
    whole."""
    data = _read(path)
    if data is None:
        credits = Credits()
    else:
        try:
            credits = _parse(data, about)
            if credits.rewrite and not credits.whole:
                credits = _parse(data, None)
                credits.rewrite = True
        except CorruptUpvoted as exc:
            aside = _set_aside(path, stamp)
            warn(f"per-session upvote ledger {path} is corrupt ({exc}); moved it to {aside} and started a new one")
            credits = Credits()
    credits.now = now
    return credits


def peek(path: str, about: set[str] | None = None, now: int | None = None) -> Credits:
    """The entries on disk, read without the lock, to learn whether the lock is needed; a missing or
    spoilt file reads as empty (``load``, under the lock, deals with a spoilt one)."""
    data = _read_quietly(path)
    try:
        credits = _parse(data, about) if data is not None else Credits()
    except CorruptUpvoted:
        credits = Credits()
    credits.now = now
    return credits


def _read_quietly(path: str) -> bytes | None:
    try:
        return _read(path)
    except OSError:
        return None


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
    """The root session the read ``ident`` was counted under for ``key``, if it was (and that has
    not expired)."""
    entry = credits.reads.get((ident, key))
    return entry["root"] if entry is not None and not _gone(credits, entry) else None


def blocks(credits: Credits, session: str, key: str, read_at: int) -> bool:
    """Whether ``session`` already credited ``key`` by a read less than 24 h from ``read_at``."""
    entry = credits.sessions.get(session, {}).get(key)
    if entry is None or _gone(credits, entry):
        return False
    at = _when(entry["read"])
    return at is None or abs(read_at - at) < TTL  # an unreadable instant is kept as a guard


def remember(credits: Credits, session: str, key: str, ident: Ident, now_ts: str) -> None:
    """Record a credit by the read ``ident`` (the guard keeps the later read, when the pair has
    one already that has not expired)."""
    credits.reads[(ident, key)] = read = {"root": session, "credited": now_ts}
    read_ts = ident[0]
    keys = credits.sessions.setdefault(session, {})
    old = keys.get(key)
    if old is not None and _gone(credits, old):
        old = None
    old_at = _when(old["read"]) if old is not None else None
    new_at = _when(read_ts)
    chosen = read_ts if old is None or old_at is None or (new_at is not None and new_at > old_at) else old["read"]
    keys[key] = guard = {"read": chosen, "credited": now_ts}
    credits.added += [_guard_line(session, key, guard), _read_line((ident, key), read)]


def _gone(credits: Credits, entry: Entry) -> bool:
    return credits.now is not None and expired(entry, credits.now)


def expired(entry: Entry, now: int) -> bool:
    at = _when(entry["credited"])
    return at is not None and at + TTL <= now


def _guard_line(session: str, key: str, entry: Entry) -> bytes:
    return utf8(jsontext.dumps({"kind": "guard", "session": session, "key": key, "read": entry["read"],
                                "credited": entry["credited"]}))


def _read_line(read: tuple[Ident, str], entry: Entry) -> bytes:
    (ts, session, path), key = read
    return utf8(jsontext.dumps({"kind": "read", "read": ts, "session": session, "path": path, "root": entry["root"],
                                "key": key, "credited": entry["credited"]}))


def save(path: str, credits: Credits, now: int) -> None:
    """Write what ``remember`` added: appended, or the whole file without the entries that have
    expired when it was read whole and is due (an older version, or doubled since last written
    whole)."""
    if credits.rewrite and credits.whole:
        lines = [_guard_line(session, key, e) for session in sorted(credits.sessions)
                 for key, e in sorted(credits.sessions[session].items()) if not expired(e, now)]
        lines += [_read_line(read, e) for read, e in sorted(credits.reads.items()) if not expired(e, now)]
        body = b"".join(line + b"\n" for line in lines)
        write_atomic(path, _header(len(body)) + body)
        return
    if not credits.added:
        return
    added = b"".join(line + b"\n" for line in credits.added)
    if credits.end == 0:  # no file, an empty one, or one set aside as corrupt
        write_after(path, 0, _header(0) + added)
    else:
        write_after(path, credits.end, added)  # a last line cut short is dropped first
    credits.added = []


def _header(compacted: int) -> bytes:
    return b'{"version":4,"compacted":' + str(compacted).encode() + b"}\n"
