"""Writing what was decided, in an order that never counts a read twice.

1. Under the votes ledger's lock: the per-session ledger (``upvoted.py``, in its file
   ``upvoted_file.py``) and the votes ledger (``ledger.raising``: ``upvoted_count`` and
   ``last_upvoted_at`` of each new credit), written together under one intent
   (``ledger.raising.together``), so that a crash between the two files is finished by the next
   writer and never loses or doubles a vote. A read the per-session ledger names as counted (its
   consumed line was lost) is not weighed again: it is marked as the credit it was, under the
   root it was counted under, even when a link written since moved it elsewhere; a credit the
   ledger blocks is not counted again.
2. One append of a ``consumed`` line for every decided read, credited or covered, under the log's
   lock, leaving out the reads a ``consumed`` line appended since this reduce read the log already
   marks (another Stop or pull decided them meanwhile): one mark per read.
3. The checkpoint (``checkpoint.py``), last: it describes the log up to where it was read, so a
   checkpoint that is not written, or written before the consumed lines land, is only slower.

A busy votes ledger writes nothing and leaves every read pending, so the next trigger retries. A
failed append after the ledgers were written is caught by the per-session ledger on the retry. An
intent a crashed reduce left is finished by the next one, even one with nothing of its own to
credit (``tests/reducer/test_crash_points.py``, ``tests/reducer/test_concurrent_reducers.py``).
"""

from __future__ import annotations

import os

from ..state import upvoted, upvoted_file
from ..state.storage import Busy, lock_wait, locked
from ..state.storage import unfinished as storage_unfinished
from .credit import Decision, consumed_line

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from ..team.config import Config, Scope
    from .checkpoint import View


class ReduceResult:
    """What one reduce did."""

    __slots__ = ("credited", "consumed", "pending", "busy", "checkpoint")

    def __init__(self, pending: int, checkpoint: str) -> None:
        self.credited: list[tuple[str, str]] = []  # (root session, key) newly counted
        self.consumed = 0  # consumed lines appended
        self.pending = pending  # reads it looked at that are still pending after it
        self.busy = False
        self.checkpoint = checkpoint  # how the Stop read the log: "used", "full" (none or not matching), "" (pull)


def write(cfg: Config, warn: Callable[[str], None], decisions: list[Decision], ts: str, now: int,
          result: ReduceResult, view: View | None = None) -> None:
    """Count the new credits and mark every decided read consumed (``view``: the log as the reduce
    read it, so that marks appended since are seen)."""
    scope = cfg.active
    wait = lock_wait(cfg.env)
    credits = [d for d in decisions if d.credit]
    try:
        if credits or unfinished(scope) or _any_counted(scope.upvoted_path, decisions):
            from ..state import ledger

            with ledger.raising(scope.ledger_path, scope.ledger_lock, wait, ts, warn) as tally:
                guard = upvoted_file.load(scope.upvoted_path, ts, warn, _sessions(decisions), now)
                decisions = list(decisions)
                for i, d in enumerate(decisions):
                    read, key = d.match.read, d.match.key
                    root = upvoted.counted(guard, read.ident, key)
                    if root is not None:  # counted already: the credit it was, under that root
                        decisions[i] = Decision(d.match, True, root)
                        continue
                    if not d.credit:
                        continue
                    if not upvoted.blocks(guard, read.root, key, read.ts):
                        upvoted.remember(guard, read.root, key, read.ident, ts)
                        tally.add(key, "upvoted_count", "last_upvoted_at", ts)
                        result.credited.append((read.root, key))
                op = upvoted_file.planned(scope.upvoted_path, guard, now)
                if op is not None:
                    tally.together(op)
    except Busy as exc:
        warn(f"{exc.what} stayed locked for {wait:g}s; the reads stay pending and the next Stop or pull "
             "credits them")
        result.busy = True
        return
    if not decisions:
        return
    lines = [consumed_line(d, ts) for d in decisions]
    try:
        result.consumed = _mark(scope, lines, wait, view)
    except (Busy, OSError) as exc:
        warn(f"could not mark reads as consumed ({exc}); the per-session ledger keeps them from counting twice")
        return
    result.pending -= len({d.match.read.ident for d in decisions})


def unfinished(scope: Scope) -> bool:
    """Whether the votes ledger has a write to finish: an intent a crashed reduce left, or the
    recalled counts a recall left pending."""
    return storage_unfinished(scope.ledger_path)


def _mark(scope: Scope, lines: list[dict[str, object]], wait: float, view: View | None) -> int:
    """Append the consumed lines whose read no consumed line marks yet; how many were appended."""
    from ..state import runlog

    with locked(scope.log_lock, "the recall log", wait):
        marked = _marked_since(scope.log_path, view)
        fresh = [line for line in lines if _ident(line) not in marked]
        data = b"".join(runlog.encode(line) for line in fresh)
        if data:
            runlog.append_bytes(scope.log_path, data)  # the log's own append (one write)
    return len(fresh)


def _ident(line: dict[str, object]) -> tuple[object, ...]:
    ev = line["evidence"]
    assert isinstance(ev, dict)
    return (ev["ts"], ev["session"], ev["path"])


def _marked_since(path: str, view: View | None) -> set[tuple[str, str, str]]:
    """The reads that consumed lines appended since ``view`` read the log settle (the whole log's,
    when it was replaced or cut since)."""
    from .logread import Lines, consumed_identity

    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return set()
    try:
        st = os.fstat(fd)
        start = 0
        if view is not None and view.identity == (st.st_dev, st.st_ino) and view.offset <= st.st_size:
            start = view.offset
        data = os.pread(fd, st.st_size - start, start) if st.st_size > start else b""
    finally:
        os.close(fd)
    if b'"consumed"' not in data:
        return set()
    return {ident for rec in Lines(data).get("consumed") if (ident := consumed_identity(rec)) is not None}


def _sessions(decisions: list[Decision]) -> set[str]:
    """The sessions whose entries in the per-session ledger decide these reads: the readers (their
    counted reads) and the roots (their guards)."""
    return {s for d in decisions for s in (d.match.read.session, d.match.read.root)}


def _any_counted(path: str, decisions: list[Decision]) -> bool:
    """Whether the per-session ledger names one of these (covered) reads as counted: its consumed
    line was lost, and a link written since moved it under a root that had the doc already."""
    guard = upvoted_file.peek(path, _sessions(decisions))
    return any(upvoted.counted(guard, d.match.read.ident, d.match.key) is not None for d in decisions)

