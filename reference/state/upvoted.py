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

Its file (JSON lines, the older versions, a spoilt file set aside) is ``upvoted_file.py``: what
an implementation shows is what the ledger decides, never how it spells it on disk.
"""

from __future__ import annotations

from .clock import ClockError, micros

TTL = 24 * 3600 * 1_000_000  # microseconds

Entry = dict[str, str]  # {"read": ts, "credited": ts}
Sessions = dict[str, dict[str, Entry]]
Ident = tuple[str, str, str]  # a read's ts, session and path
Counted = tuple[Ident, str]  # a read, and the key it was counted for


class Credits:
    """What the ledger holds, as ``upvoted_file`` loaded it: the guard per (root session, key), and
    the reads counted; with ``whole`` False, only the entries of the sessions the load asked about."""

    __slots__ = ("sessions", "reads", "added", "whole", "rewrite", "end", "now")

    def __init__(self, sessions: Sessions | None = None, reads: dict[Counted, Entry] | None = None) -> None:
        self.sessions: Sessions = sessions if sessions is not None else {}
        # (read ident, key) -> {"root": ..., "credited": ...}
        self.reads: dict[Counted, Entry] = reads if reads is not None else {}
        self.added: list[tuple[str, str, Entry, Counted, Entry]] = []  # credits remembered since the load:
        # (root session, key, its guard, the read counted, its entry), for the next write
        self.whole = True  # every entry of the file was read
        self.rewrite = False  # the next write writes the file whole (an older version, or it has doubled)
        self.end = 0  # bytes of whole lines the file held (0: no version 4 file)
        self.now: int | None = None  # expired entries are ignored from this instant on (None: none are)


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
    credits.added.append((session, key, guard, (ident, key), read))


def _gone(credits: Credits, entry: Entry) -> bool:
    return credits.now is not None and expired(entry, credits.now)


def expired(entry: Entry, now: int) -> bool:
    at = _when(entry["credited"])
    return at is not None and at + TTL <= now
