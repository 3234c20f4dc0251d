"""Turn the recall log into upvotes, exactly once.

The reducer runs at Stop and SubagentStop (for the session the payload names, and every session
linked under its root) and at ``pull`` (every session: those whose Stop never came or found the
ledger busy). Its outcome depends only on the set of lines in the log and on the reads' own
times, never on the order of the lines or on when it runs; running it again changes nothing.

One rule, one module:

- ``logread``: reading the log cheaply (lines split by kind, decoded on demand; exact instants), and
  the pending reads it yields (whether a read's status counts, the spelling exact reads compare in);
- ``sessions``: links to root sessions;
- ``settle``: which session ran a run, and whether the recall subagent did;
- ``join``: which recalled docs a read adopts (same root, 24 h window, path, status, maker);
- ``credit``: once per doc per root session in any 24 h of read time (credit or covered);
- ``commit``: the write order (per-session ledger, votes ledger, consumed lines, checkpoint);
- ``checkpoint``: reading through the checkpoint, so that a Stop reads only the lines appended
  since, and noticing when it cannot;
- ``keep``: which lines the checkpoint keeps, and what it notes about the ones it drops;
- ``model``: the rules put together over a set of lines, decoding only what pending reads need.

Beside them: ``state/upvoted.py`` (the per-session ledger's rule) and ``state/upvoted_file.py`` (its
file), ``state/retention.py`` (pruning, at ``pull`` only), ``commands/pull.py`` and
``commands/stats.py`` (built from the model, read-only).

Read time, not reduce time. The spec's window is "same session, from the run to 24 h after it",
matching the votes ledger's TTL "so a resumed session can't credit the same evidence twice". Every
24 h here is measured on the reads' own ``ts``: the join (run to read), the cover (a credited read
to a later or earlier read of the same doc by the same root session), and the per-session ledger's
block (the read it remembers to a new read). Nothing compares with the time the reducer runs, so a
Stop after every event, one pull at the end, and any mix of the two credit the same reads
(``tests/reducer/test_schedules.py`` compares them on generated histories; the scenarios
``reduce-once-read-time-*`` pin the edges: 24 h - 1 s covered, 24 h and 24 h + 1 s credited again,
under both schedules). The per-session ledger only guards against a consumed line lost after the
ledgers were written; it expires 24 h after it was written, not after the read, so a pull that
credits a days-old read still guards the retry. For the same reason the recall subagent's reads
are kept out from its marked run on, not before: a marked run never takes back a credit given.

What that independence assumes, and what happens otherwise. Lines arrive in ``ts`` order (to
within the checkpoint's hour); the claim of a shell call is written with its run (another
session's later claim is later by ``ts`` and settles nothing); a child session's link is written
before the child works. A first claim or a link written after a Stop has credited reads it would
move does not take those credits back; reads still pending are judged by the new settlement.
OpenCode's bridge links a task's child session when the task has finished, after the child's Stops
credited its reads as a root of its own (the recall subagent's own reads never: ``settle`` knows
its session without the link); a credit covers the root its session has *now*, so the
parent's later reads of that doc within 24 h are covered and the root earns one upvote
(``tests/sessions/test_session_invariants.py``). What this cannot mend is a root and its child each
crediting a doc at Stops that came before the link between them: nothing tied the two credits when
they were given, and a credit is never taken back (scenario
``reduce-upvoted-counted-read-moved-by-link``). A failure between the two ledgers is finished by the
next writer from the intent it left; a failed append of consumed lines is caught by the per-session
ledger on the retry, which names the read and the root it counted under, so a link written between
the failure and the retry cannot move a counted read into a second vote or leave a vote with no
credited line (``tests/reducer/test_upvoted.py``); a checkpoint that is not written only makes the
next Stop read the whole log.

Why a Stop may pass over other families' lines. Everything a Stop decides concerns reads of its
own family, and a read joins only runs that settled in its root's family, is covered only by
credits of that root, and is kept out only by that family's recall subagent. In JSON with no
backslash each string is spelt as its own characters between quotes, so a line holding neither a
backslash nor one of the family's sessions quoted names none of them, whatever its key order or
spacing. A run can still settle in the family through a claim, so runs named by the family's claims
(any line holding the id quoted, however its key is spelt) are looked at too, and every claim of the
runs looked at is read. The lines are found with one ``bytes.find`` per needle over the joined
lines, so a Stop's own work grows with its family's lines, not with the other sessions'
(``tests/reducer/test_stop_family.py`` compares it with a reduce of every line, in every spelling a
log may hold, with few pending reads and with many).
"""

from __future__ import annotations

from ..state.clock import now_micros, stamp_micros
from . import checkpoint, commit, keep
from .commit import ReduceResult
from .credit import decide
from .logread import DAY, KINDS, Lines
from .model import Model, build, load

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from ..team.config import Config
    from .credit import Decision

__all__ = ["DAY", "KINDS", "Lines", "Model", "ReduceResult", "build", "load", "plan", "reduce"]


class Plan:
    """What a reduce reads and decides, before it writes anything."""

    __slots__ = ("view", "lines", "model", "decisions", "pending", "compact", "used", "matched")

    def __init__(self, view: checkpoint.View, lines: Lines, model: Model, decisions: list[Decision],
                 pending: int, compact: bool, used: bool, matched: bool) -> None:
        self.view, self.lines, self.model, self.decisions = view, lines, model, decisions
        self.pending = pending  # reads of the reduced sessions that stay pending unless decided
        self.compact = compact  # the model covers every session, so the checkpoint can be worked out
        self.used = used  # the checkpoint was used (else the whole log was read)
        self.matched = matched  # the checkpoint matched the log (used, unless a new line reached back)


def plan(cfg: Config, session: str | None, now: int) -> Plan:
    """Read the log (through the checkpoint when it matches) and decide, for ``session``'s family
    or, with None, for every session."""
    scope = cfg.active
    view = checkpoint.open_view(scope)
    matched = view.header is not None
    lines = checkpoint.follow(view) if matched else None
    used = lines is not None
    if lines is None:
        if matched:  # a new line reaches back past the checkpoint
            view = checkpoint.open_view(scope, whole=True)
        lines = Lines(view.data)
    makers = view.makers if used else None
    compact = session is not None and (not used or checkpoint.due(view, now))
    if session is not None and not compact:
        model = build(lines, only_pending=True, stopping=session, makers=makers)
        return Plan(view, lines, model, decide(model), len(model.reads) + len(model.idle), False, True, True)
    model = build(lines, only_pending=True, makers=makers)  # every session's reads
    family = model.roots.family({model.roots.root(session)}) if session is not None else None
    decisions = decide(model, family)
    pending = sum(1 for read in model.reads if family is None or read.session in family)
    return Plan(view, lines, model, decisions, pending + len(model.idle), compact, used, matched)


def reduce(cfg: Config, warn: Callable[[str], None], session: str | None = None) -> ReduceResult:
    """Credit every pending read that adopts a recalled doc (of ``session``'s family only, when a
    Stop names its session); safe to run any number of times."""
    now = now_micros(cfg.env)
    made = plan(cfg, session, now)
    if made.view.rejected is not None:
        warn(f"the reducer's checkpoint does not describe the recall log ({made.view.rejected}); "
             "read the whole log instead")
    base = made.view if made.used else None
    result = ReduceResult(made.pending, "" if session is None else "used" if made.used else "full")
    if made.decisions or commit.unfinished(cfg.active):
        commit.write(cfg, warn, made.decisions, stamp_micros(now), now, result, made.view)
    if session is not None:
        _keep_checkpoint(cfg, warn, made, now, base)
    return result


def _keep_checkpoint(cfg: Config, warn: Callable[[str], None], made: Plan, now: int,
                     base: checkpoint.View | None) -> None:
    """Write the checkpoint for the log as this reduce read it (``pull`` writes its own, after
    pruning). A checkpoint that cannot be written only makes the next Stop read the whole log."""
    view = made.view
    if made.used and not made.compact and not view.delta:
        return  # nothing new was read
    try:
        if made.compact:
            fields, body = keep.compact(made.lines, made.model, now, base)
            checkpoint.save(cfg.active, view, fields, body)
        else:
            checkpoint.add(cfg.active, view, *keep.grown(view))
    except OSError as exc:
        warn(f"could not write the reducer's checkpoint ({exc}); the next Stop reads the whole log")
