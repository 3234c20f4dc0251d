"""Crediting: each (root session, doc key) counts at most once in any 24 h of read time.

Every pending read that adopts a doc (``join.matches``) is decided here, in the order of the
reads' own ``ts``: it is a new credit unless a read of the same pair that credited lies less than
24 h before or after it, in which case it is *covered*. Both the credits already in the log
(``consumed`` lines with ``credited: true``) and the ones decided earlier in the same batch
cover. A covered read never extends the cover. Reads at one instant are taken by ``ts`` as
written, then session, then path. A credit covers the pair under the root its session has *now*,
so a credit given before a late link covers the new root.

Everything is measured on read times, never on when the reducer runs, so a Stop after every
event and one pull at the end decide the same (``reducer/__init__.py``, "Read time, not reduce time"): a read exactly 24 h
after the credited one credits again, given a run in its own window. The per-session ledger
(``upvoted.py``) applies the same 24 h to the same read times when the credit is written.
"""

from __future__ import annotations

from .join import matches
from .logread import DAY

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .join import Match
    from .logread import Record
    from .model import Model


class Decision:
    __slots__ = ("match", "credit", "root")

    def __init__(self, match: Match, credit: bool, root: str | None = None) -> None:
        self.match = match
        self.credit = credit  # a new credit (False: covered by an earlier one)
        self.root = root if root is not None else match.read.root  # the root session it counts under


def decide(model: Model, family: set[str] | None = None) -> list[Decision]:
    """Every pending read that matched (of ``family``'s sessions only, when given), in a fixed
    order, marked as a new credit or as covered."""
    groups: dict[tuple[str, str], list[Match]] = {}
    for read in model.reads:
        if family is not None and read.session not in family:
            continue
        for m in matches(model, read):
            groups.setdefault((read.root, m.key), []).append(m)
    out: list[Decision] = []
    for pair in sorted(groups):
        credits = list(model.credits.get(pair, ()))
        for m in sorted(groups[pair], key=lambda m: (m.read.ts, m.read.ident, m.run.ts, m.run.run)):
            covered = any(abs(m.read.ts - t) < DAY for t in credits)
            if not covered:
                credits.append(m.read.ts)
            out.append(Decision(m, not covered))
    return out


def consumed_line(d: Decision, ts: str) -> Record:
    """The line that marks a decided read, so it is never weighed again."""
    read_ts, session, path = d.match.read.ident
    return {"kind": "consumed", "ts": ts, "session": d.root, "key": d.match.key,
            "run": d.match.run.run, "credited": d.credit,
            "evidence": {"ts": read_ts, "session": session, "path": path}}
