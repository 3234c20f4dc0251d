"""What the spec says a generated session must earn, worked out from the plan alone.

The only thing taken from the implementation is what each recall printed (its ``File:`` lines):
ranking is not under test here. Everything else comes from the plan: which session a run belongs
to (its first claim, else an unambiguous environment), whose reads are the recall subagent's,
which reads count (same root session, a settled run printed the doc within [run, run + 24 h], the
doc eligible, the call's form and status count) and, per (root session, doc key), the credits:
the first counted read credits, and a counted read credits again only 24 h or more after the
last credit.

One reading of the spec is taken where it is silent, the reference's too (``reference/reducer/__init__.py``,
"Read time, not reduce time"): an actor's reads stop counting from the moment it runs a recall
marked as the recall subagent's, not before (a read the main agent made before its recall
subagent ever ran is the main agent's; and only this reading lets a reduce at each Stop and one
at the end agree).
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from . import agents
from .sessions import DAY, Plan, Read, Recall, instant

_FILE = re.compile(r"^File: (\$\{(?:user:)?path:[^}]+\})\s*$", re.MULTILINE)


@dataclass
class Run:
    recall: Recall
    settled: str | None  # the session it belongs to
    maker: tuple[str, str | None] | None  # the recall subagent's actor, when marked
    printed: list[str]  # tokens of the assets it printed
    eligible: dict[str, str]  # token -> vote key, for the eligible ones


@dataclass
class Verdict:
    read: Read
    root: str
    keys: list[str]  # vote keys it adopts
    why: str  # when it adopts nothing: the first rule that says no


@dataclass
class Expected:
    runs: list[Run]
    verdicts: list[Verdict]
    credits: dict[tuple[str, str], list[int]]  # (root, key) -> instants of crediting reads
    covered: dict[tuple[str, str], list[int]]  # (root, key) -> instants of covered reads
    counted: dict[tuple[str, str], list[int]] = field(default_factory=dict)

    def votes(self) -> dict[str, int]:
        out: dict[str, int] = defaultdict(int)
        for (_, key), times in self.credits.items():
            out[key] += len(times)
        return dict(out)

    def counted_read(self, ts: str, session: str, token: str, key: str) -> bool:
        """Whether the read known by (ts, session, printed path) counts for ``key``."""
        return any(instant(v.read.t) == ts and v.read.session.sid == session and v.read.asset.token == token
                   and key in v.keys for v in self.verdicts)


def printed_tokens(stdout: str) -> list[str]:
    return _FILE.findall(stdout)


def expected(plan: Plan, outputs: dict[str, str]) -> Expected:
    """``outputs``: each recall step's normalized stdout, by step name."""
    assets = plan.tree.by_token()
    runs: list[Run] = []
    for recall in plan.recalls():
        claims = sorted(recall.claims, key=lambda c: (c.t, c.session.sid, c.actor[0] if c.actor else ""))
        first = claims[0] if claims else None
        settled = first.session.sid if first else (recall.session.sid if recall.env == "own" else None)
        marked = recall.caller or bool(first and first.actor and first.actor[1] == agents.RECALL_SUBAGENT)
        # claimed: the claim's actor; never claimed (these recalls name no agent id): the anonymous
        # actor of a child session or of any session of a host that runs subagents in sessions of
        # their own, and nobody in another root session, whose anonymous actor is the main agent
        own_session = settled is not None and (plan.root(settled) != settled
                                               or recall.session.agent in agents.OWN_SESSION_SUBAGENTS)
        maker = ((settled, first.actor[0] if first.actor else None) if first
                 else (settled, None) if own_session else None) if marked and settled else None
        printed = printed_tokens(outputs.get(recall.name, ""))
        eligible = {tok: assets[tok].key for tok in printed if assets[tok].eligible}
        runs.append(Run(recall, settled, maker, printed, eligible))
    verdicts = [_verdict(plan, runs, read) for read in plan.reads()]
    counted: dict[tuple[str, str], list[int]] = defaultdict(list)
    for v in verdicts:
        for key in v.keys:
            counted[(v.root, key)].append(v.read.t)
    credits: dict[tuple[str, str], list[int]] = {}
    covered: dict[tuple[str, str], list[int]] = {}
    for pair, times in counted.items():
        done: list[int] = []
        over: list[int] = []
        for t in sorted(times):
            (over if done and t - done[-1] < DAY else done).append(t)
        credits[pair], covered[pair] = done, over
    return Expected(runs, verdicts, credits, covered, dict(counted))


def _verdict(plan: Plan, runs: list[Run], read: Read) -> Verdict:
    root = plan.root(read.session.sid)
    v = Verdict(read, root, [], "")
    mine = [r for r in runs if r.settled is not None and plan.root(r.settled) == root]
    if not agents.counts(read.session.flavor, read.form):
        v.why = "form"
        return v
    actor = (read.session.sid, read.actor[0] if read.actor else None)
    if any(r.maker == actor and r.recall.t <= read.t for r in mine):
        v.why = "recall-subagent"
        return v
    window = [r for r in mine if r.recall.t <= read.t <= r.recall.t + DAY]
    printed = [r for r in window if read.asset.token in r.printed]
    if not printed:
        v.why = _miss(plan, runs, read, root, mine)
        return v
    keys = list(dict.fromkeys(r.eligible[read.asset.token] for r in printed if read.asset.token in r.eligible))
    if not keys:
        v.why = "ineligible"
    v.keys = keys
    return v


def _miss(plan: Plan, runs: list[Run], read: Read, root: str, mine: list[Run]) -> str:
    """Why no run of the read's root printed the doc in its window: the nearest miss."""
    token = read.asset.token
    if any(token in r.printed and r.recall.t + DAY < read.t for r in mine):
        return "after-window"
    if any(token in r.printed and r.recall.t > read.t for r in mine):
        return "before-run"
    if any(token in r.printed and r.settled is None for r in runs):
        return "unsettled"
    if any(token in r.printed for r in runs):
        return "other-session"
    return "not-printed"


def interesting(plan: Plan, exp: Expected) -> set[str]:
    """The cases this example reaches, for the statistics and the coverage check."""
    cases: set[str] = set()
    if any(exp.credits.values()):
        cases.add("credit")
    if any(exp.covered.values()):
        cases.add("covered read")
    if any(len(times) > 1 for times in exp.credits.values()):
        cases.add("credited again after 24 h")
    for v in exp.verdicts:
        if v.keys:
            cases.add("counted read")
            if v.read.actor is not None:
                cases.add("other subagent's read counts")
            if v.root != v.read.session.sid:
                cases.add("child session's read counts for its root")
        elif v.why:
            cases.add({"unsettled": "read of an unsettled run's doc", "recall-subagent": "recall subagent's own read",
                       "form": "failed call or uncounted form", "after-window": "read after the 24 h window",
                       "before-run": "read before the run", "ineligible": "read of an inherited (user) doc",
                       "other-session": "read of another session's run", "not-printed": "read of a doc never printed",
                       }[v.why])
        for r in exp.runs:
            if r.settled is not None and v.read.asset.token in r.printed and plan.root(r.settled) == v.root:
                gap = v.read.t - r.recall.t
                if gap in (DAY - 1, DAY, DAY + 1):
                    cases.update(["read on a run's 24 h edge", "read on a 24 h edge"])
    for (root, key), done in exp.credits.items():
        runs = [r.recall.t for r in exp.runs if r.settled is not None and plan.root(r.settled) == root
                and key in r.eligible.values()]
        if any(t - r == DAY for t in done for r in runs):
            cases.add("credit on a run's last second")
    for pair, done in exp.credits.items():
        for t in exp.covered.get(pair, []) + done:
            if any(abs(t - c) in (DAY - 1, DAY) for c in done if c != t):
                cases.update(["read on a credit's 24 h edge", "read on a 24 h edge"])
    if any(r.settled is None for r in exp.runs):
        cases.add("unsettled run")
    if any(r.maker is not None for r in exp.runs):
        cases.add("recall subagent's run")
    roots = [plan.root(a.session.sid) if hasattr(a, "session") else plan.root(a.parent.sid) for a in plan.acts]
    if len(set(roots)) > 1 and any(roots[i] != roots[i + 1] and roots[i] in roots[i + 2:] for i in range(len(roots) - 1)):
        cases.add("interleaved sessions")
    if plan.links():
        cases.add("linked child session")
    return cases


def summary(plan: Plan, exp: Expected) -> dict[str, Any]:
    """A compact account of the plan and the spec's verdicts, for a failure message."""
    return {
        "runs": [{"name": r.recall.name, "t": r.recall.t, "session": r.recall.session.sid, "settled": r.settled,
                  "maker": r.maker, "printed": r.printed} for r in exp.runs],
        "reads": [{"t": v.read.t, "session": v.read.session.sid, "actor": v.read.actor, "doc": v.read.asset.token,
                   "form": v.read.form, "keys": v.keys, "why": v.why} for v in exp.verdicts],
        "credits": {f"{root} {key}": times for (root, key), times in exp.credits.items()},
    }
