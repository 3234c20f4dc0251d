"""Writing what was decided, in an order that never counts a read twice.

1. Under the votes ledger's lock: the per-session ledger (``upvoted.py``, in its file
   ``upvoted_file.py``), then the votes ledger (``ledger.raising``: ``upvoted_count`` and
   ``last_upvoted_at`` of each new credit). A read the per-session ledger names as counted (its
   consumed line was lost) is not weighed again: it is marked as the credit it was, under the
   root it was counted under, even when a link written since moved it elsewhere; a credit the
   ledger blocks is not counted again.
2. One append of a ``consumed`` line for every decided read, credited or covered.
3. The checkpoint (``checkpoint.py``), last: it describes the log up to where it was read, so a
   checkpoint that is not written, or written before the consumed lines land, is only slower.

A busy votes ledger writes nothing and leaves every read pending, so the next trigger retries. A
failed append after the ledgers were written is caught by the per-session ledger on the retry. A
failure between the two ledgers loses that reduce's new votes rather than ever doubling one.
"""

from __future__ import annotations

from .. import upvoted, upvoted_file
from ..storage import Busy, lock_wait
from .credit import Decision, consumed_line

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from ..config import Config


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
          result: ReduceResult) -> None:
    """Count the new credits and mark every decided read consumed."""
    scope = cfg.active
    wait = lock_wait(cfg.env)
    credits = [d for d in decisions if d.credit]
    try:
        if credits or _any_counted(scope.upvoted_path, decisions):
            from .. import ledger

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
                upvoted_file.save(scope.upvoted_path, guard, now)
    except Busy as exc:
        warn(f"{exc.what} stayed locked for {wait:g}s; the reads stay pending and the next Stop or pull "
             "credits them")
        result.busy = True
        return
    lines = [consumed_line(d, ts) for d in decisions]
    from .. import runlog

    try:
        runlog.append(scope.log_path, scope.log_lock, lines, wait)
    except (Busy, OSError) as exc:
        warn(f"could not mark reads as consumed ({exc}); the per-session ledger keeps them from counting twice")
        return
    result.consumed = len(lines)
    result.pending -= len({d.match.read.ident for d in decisions})


def _sessions(decisions: list[Decision]) -> set[str]:
    """The sessions whose entries in the per-session ledger decide these reads: the readers (their
    counted reads) and the roots (their guards)."""
    return {s for d in decisions for s in (d.match.read.session, d.match.read.root)}


def _any_counted(path: str, decisions: list[Decision]) -> bool:
    """Whether the per-session ledger names one of these (covered) reads as counted: its consumed
    line was lost, and a link written since moved it under a root that had the doc already."""
    guard = upvoted_file.peek(path, _sessions(decisions))
    return any(upvoted.counted(guard, d.match.read.ident, d.match.key) is not None for d in decisions)

