"""The per-session upvote ledger's file: what ``upvoted.py`` remembers, on disk.

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

It shares the votes ledger's lock (the reducer edits both in one critical section), and its write
is made with the votes ledger's, all or nothing (``ledger.raising.together``, under an intent). A
whole write goes through ``storage.write_atomic``; an append is fsynced. An append cut short leaves a
last line without its newline: it is ignored (the reduce that wrote it stopped before anything
else), and cut off before the next append. A file that does not parse is moved aside, never
overwritten, and the move is named in a warning.
"""

from __future__ import annotations

import os

from . import jsontext, storage
from .storage import utf8, write_after, write_atomic
from .upvoted import Counted, Credits, Entry, Sessions, expired

TYPE_CHECKING = False  # collections.abc costs a fresh process (a hook) ~2 ms
if TYPE_CHECKING:
    from collections.abc import Callable

VERSION = 4
SLACK = 64 << 10  # bytes a file may grow past twice its last whole size before it is written whole

_GUARD = b'{"kind":"guard",'
_READ = b'{"kind":"read",'


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
    counted: dict[Counted, Entry] = {}
    for r in reads:
        fields = _read_fields(r)
        if fields is None:
            raise CorruptUpvoted("reads is not a list of counted reads")
        counted[fields[0]] = fields[1]
    credits = Credits(out, counted)
    credits.rewrite = True
    return credits


def _read_fields(r: object) -> tuple[Counted, Entry] | None:
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
    storage.rename(path, aside)
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
    storage.refuse_link(path)  # a link is neither read as the ledger nor set aside
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


def _guard_line(session: str, key: str, entry: Entry) -> bytes:
    return utf8(jsontext.dumps({"kind": "guard", "session": session, "key": key, "read": entry["read"],
                                "credited": entry["credited"]}))


def _read_line(read: Counted, entry: Entry) -> bytes:
    (ts, session, path), key = read
    return utf8(jsontext.dumps({"kind": "read", "read": ts, "session": session, "path": path, "root": entry["root"],
                                "key": key, "credited": entry["credited"]}))


def planned(path: str, credits: Credits, now: int) -> tuple[object, ...] | None:
    """The write that keeps what ``remember`` added, as an operation for ``ledger.raising.together``
    (None: nothing to write): an append (the file cut at its last whole line, then the new lines),
    or the whole file without the entries that have expired, when it was read whole and is due (an
    older version, or doubled since last written whole)."""
    if credits.rewrite and credits.whole:
        lines = [_guard_line(session, key, e) for session in sorted(credits.sessions)
                 for key, e in sorted(credits.sessions[session].items()) if not expired(e, now)]
        lines += [_read_line(read, e) for read, e in sorted(credits.reads.items()) if not expired(e, now)]
        body = b"".join(line + b"\n" for line in lines)
        return ("whole", path, _header(len(body)) + body)
    if not credits.added:
        return None
    added = b"".join(_guard_line(session, key, guard) + b"\n" + _read_line(read, entry) + b"\n"
                     for session, key, guard, read, entry in credits.added)
    credits.added = []
    if credits.end == 0:  # no file, an empty one, or one set aside as corrupt
        return ("at", path, 0, _header(0) + added)
    return ("at", path, credits.end, added)  # a last line cut short is dropped first


def save(path: str, credits: Credits, now: int) -> None:
    """Make the :func:`planned` write on its own (the reducer makes it with the votes ledger's)."""
    op = planned(path, credits, now)
    if op is None:
        return
    if op[0] == "whole":
        write_atomic(path, op[2])  # type: ignore[arg-type]
    else:
        write_after(path, op[2], op[3])  # type: ignore[arg-type]


def _header(compacted: int) -> bytes:
    return b'{"version":4,"compacted":' + str(compacted).encode() + b"}\n"
