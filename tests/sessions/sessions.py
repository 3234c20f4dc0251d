"""Random agent sessions over a team tree, as scenario data in the corpus format.

A *session plan* is what happened, in order: recall runs (a query built from the topics of the
assets the session is after, its environment, ``--caller teamai-recall`` sometimes, and the shell
calls that claim it: the session's own, its recall subagent's, a nesting session's), reads of
assets in every form a host has (read tool, shell reader, content search with the doc's real text,
failed calls), reads by subagents, SubagentStops, and OpenCode task links to child sessions.
Several sessions are interleaved and time jumps from seconds to days, with reads placed exactly
on the 24 h edges of a run or of an earlier read.

:func:`scenario` turns a plan into a scenario dict under a *reduce schedule*: a Stop after every
event (``every``), one ``pull`` at the end (``end``), or Stops here and there and a pull at the end
(``stops``). The same plan under any schedule is the same session; only when the reducer runs
differs.

Two orders a real host guarantees are kept: a run's claims come with the run (the shell call that
ran recall reports before the agent can read what it printed), and an OpenCode child's events come
after the task call that links it (the generator's choice; see ``LATE_LINKS``).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

from conformance.running import timeline

from . import agents
from .agents import FLAVORS, SESSION_ENV, SUBAGENT_IDS, SUBAGENT_STOP
from .trees import SHARED, Asset, Tree, trees

DAY = 86400
START = timeline.parse_instant(timeline.DEFAULT_START)
EVERY, END, STOPS = "every", "end", "stops"
SCHEDULES = (EVERY, END, STOPS)


@dataclass(frozen=True)
class Session:
    sid: str
    flavor: str
    parent: str | None = None  # an OpenCode child: the session whose task started it

    @property
    def agent(self) -> str:
        return FLAVORS[self.flavor]


@dataclass
class Claim:
    session: Session
    actor: tuple[str, str] | None = None  # (agent_id, agent_type) of a subagent's shell call
    t: int = 0


@dataclass
class Recall:
    session: Session  # the session whose shell ran it
    name: str  # rN
    query: str
    targets: tuple[Asset, ...]
    env: str  # own | ambiguous | none
    caller: bool
    claims: list[Claim] = field(default_factory=list)
    again: bool = False  # the session's first question asked again (placed a day after it)
    t: int = 0


@dataclass
class Read:
    session: Session
    asset: Asset
    form: str
    verb: int = 0
    actor: tuple[str, str] | None = None
    edge: tuple[str, int] | None = None  # ("run" | "read" | LAST_RUN, delta): placed on a 24 h edge, if it can be
    t: int = 0


@dataclass
class SubagentStop:
    session: Session
    actor: tuple[str, str] | None
    t: int = 0


@dataclass
class Link:
    parent: Session
    child: Session
    t: int = 0


Act = Recall | Read | SubagentStop | Link


@dataclass
class Plan:
    tree: Tree
    sessions: list[Session]
    acts: list[Act]

    def recalls(self) -> list[Recall]:
        return [a for a in self.acts if isinstance(a, Recall)]

    def reads(self) -> list[Read]:
        return [a for a in self.acts if isinstance(a, Read)]

    def queries(self) -> list[str]:
        return list(dict.fromkeys(r.query for r in self.recalls()))

    def links(self) -> dict[str, str]:
        return {a.child.sid: a.parent.sid for a in self.acts if isinstance(a, Link)}

    def root(self, sid: str) -> str:
        links = self.links()
        seen = {sid}
        while sid in links and links[sid] not in seen:
            sid = links[sid]
            seen.add(sid)
        return sid

    def flavors(self) -> list[str]:
        return sorted({s.flavor for s in self.sessions})


# --- generation -----------------------------------------------------------------------------

SMALL_GAPS = (1, 2, 5, 30, 60, 300)
JUMPS = (3600, 6 * 3600, DAY - 1, DAY, DAY + 1, 2 * DAY)
RECALL_SUBAGENT_ID = "rec-{n}"
LAST_RUN = "last run"  # a read's 24 h edge measured from its session's latest recall
OTHER_SUBAGENT = {"claude": "Explore", "codex": "explorer", "qoder": "general-purpose", "omp": "task"}


def chance(draw: st.DrawFn, n: int) -> bool:
    """True about once in ``n`` draws. (Hypothesis leans towards a strategy's first choices, and
    towards 0 among integers, so the rare outcome is put last.)"""
    return bool(draw(st.sampled_from([False] * (n - 1) + [True])))


def _query(draw: st.DrawFn, targets: tuple[Asset, ...]) -> str:
    words = [a.topic for a in targets]
    if len(words) == 1 or draw(st.booleans()):
        words.append(draw(st.sampled_from(targets[0].words + SHARED)))
    return " ".join(dict.fromkeys(words)) if len(set(words)) > 1 else f"{words[0]} notes"


@st.composite
def _session_acts(draw: st.DrawFn, session: Session, tree: Tree, others: list[Session], counter: list[int],
                  kids: list[Session]) -> list[Act]:
    """One session's acts in its own order: recalls, then reads mostly of what they aimed at."""
    acts: list[Act] = []
    pool = tree.workspace() + [a for a in tree.assets if a.scope == "user"]
    aims: list[Asset] = []
    recall_sub: tuple[str, str] | None = None
    ids = session.agent in SUBAGENT_IDS
    first: Recall | None = None
    for _ in range(draw(st.sampled_from([2, 1, 3]))):
        again = first is not None and chance(draw, 2)
        targets = first.targets if first is not None and again else \
            tuple(draw(st.lists(st.sampled_from(pool), min_size=1, max_size=2, unique_by=lambda a: a.topic)))
        aims.extend(targets)
        counter[0] += 1
        env = "none"
        if session.agent in SESSION_ENV:
            env = draw(st.sampled_from(["own", "own", "own", "ambiguous", "none"]))
        claims: list[Claim] = []
        caller = chance(draw, 10)
        who = draw(st.sampled_from(["self"] * 3 + ["none", "subagent"] if ids else ["self", "self", "none"]))
        if who == "subagent":
            recall_sub = (RECALL_SUBAGENT_ID.format(n=counter[0]), agents.RECALL_SUBAGENT)
            claims.append(Claim(session, recall_sub))
            caller = caller or draw(st.booleans())
        elif who == "self":
            claims.append(Claim(session))
        if others and chance(draw, 6):  # a nesting session's shell shows the same output
            claims.append(Claim(draw(st.sampled_from(others))))
            if draw(st.booleans()):
                claims.reverse()  # ... and claims it first: the run is then that session's
        query = first.query if first is not None and again else _query(draw, targets)
        acts.append(Recall(session, f"r{counter[0]}", query, targets, env, caller, claims, again))
        first = first or acts[-1]  # type: ignore[assignment]
        if chance(draw, 5):  # the run's first read comes only on its 24 h edge
            acts.append(Read(session, targets[0], agents.READ, edge=(LAST_RUN, draw(st.sampled_from([-1, 0, 1])))))
        for _ in range(draw(st.sampled_from([2, 1, 3, 0]))):
            acts.append(draw(_read(session, aims, pool, recall_sub)))
    if kids and session.flavor == "opencode":
        for kid in kids:
            acts.insert(draw(st.integers(1, len(acts))), Link(session, kid))
    if session.flavor in SUBAGENT_STOP and chance(draw, 4):
        acts.append(SubagentStop(session, recall_sub))
    return acts


@st.composite
def _read(draw: st.DrawFn, session: Session, aims: list[Asset], pool: list[Asset],
          recall_sub: tuple[str, str] | None) -> Read:
    asset = draw(st.sampled_from(pool)) if chance(draw, 5) else draw(st.sampled_from(aims))
    forms = [agents.READ] * 3 + [agents.SHELL] * 2 + [agents.SEARCH] * 2 + [agents.FAILURE]
    if asset.scope == "team":
        forms.append(agents.RELATIVE)
    actor = None
    if session.agent in SUBAGENT_IDS and chance(draw, 3):
        own = recall_sub is not None and draw(st.booleans())
        actor = recall_sub if own else (f"sub-{draw(st.integers(1, 2))}", OTHER_SUBAGENT[session.agent])
    edge = None
    if chance(draw, 3):
        edge = (draw(st.sampled_from(["run", "run", "read"])), draw(st.sampled_from([-1, 0, 0, 1])))
    form = agents.READ if actor else draw(st.sampled_from(forms))  # a subagent's read: its read tool
    return Read(session, asset, form, draw(st.integers(0, 4)), actor, edge)


@st.composite
def plans(draw: st.DrawFn, lead: str | None = None, tree: Tree | None = None, max_sessions: int = 3,
          late_links: bool = False) -> Plan:
    """A plan whose first session is of agent ``lead`` (any agent when None); the others are any."""
    count = draw(st.sampled_from([2, 1, 3][:max_sessions]))
    flavors = [draw(st.sampled_from(sorted(FLAVORS))) for _ in range(count)]
    if lead is not None:
        flavors[0] = draw(st.sampled_from([f for f, agent in FLAVORS.items() if agent == lead]))
    tree = tree if tree is not None else draw(trees())
    roots = [Session(f"{flavor}-ses-{i + 1}", flavor) for i, flavor in enumerate(flavors)]
    # An OpenCode session may start a task in a child session (always when it leads the plan).
    kids = {s.sid: [Session(f"opencode-child-{i + 1}", "opencode", s.sid)]
            for i, s in enumerate(roots) if s.flavor == "opencode" and (i == 0 and lead or chance(draw, 2))}
    sessions = roots + [k for ks in kids.values() for k in ks]
    counter = [0]
    lists = [draw(_session_acts(s, tree, [o for o in roots if o.sid != s.sid and not s.parent], counter,
                                kids.get(s.sid, []))) for s in sessions]
    acts = draw(_interleave(lists, late_links))
    _times(draw, acts)
    return Plan(tree, sessions, acts)


@st.composite
def _interleave(draw: st.DrawFn, lists: list[list[Act]], late_links: bool = False) -> list[Act]:
    """The sessions' acts merged in a random order that keeps each session's own order and puts an
    OpenCode child's acts after the task call that links it (``late_links``: before it, as the
    bridge reports a task when it has finished)."""
    queues = [list(q) for q in lists]
    linked: set[str] = set()
    out: list[Act] = []
    owners = [_owner(q[0]).sid if q else "" for q in queues]

    def ready(q: list[Act]) -> bool:
        head = q[0]
        if late_links:
            return not isinstance(head, Link) or not any(queues[owners.index(head.child.sid)])
        return _owner(head).parent is None or _owner(head).sid in linked

    while any(queues):
        choices = [i for i, q in enumerate(queues) if q and ready(q)]
        i = choices[draw(st.integers(0, len(choices) - 1))]
        act = queues[i].pop(0)
        if isinstance(act, Link):
            linked.add(act.child.sid)
        out.append(act)
    return out


def _owner(act: Act) -> Session:
    return act.parent if isinstance(act, Link) else act.session


def _times(draw: st.DrawFn, acts: list[Act]) -> None:
    """Seconds from the start for every act: small gaps, jumps of hours and days, and reads set on
    a 24 h edge (a run's, or an earlier read's of the same asset) when that lies ahead."""
    t = 0
    for index, act in enumerate(acts):
        if index:
            t += draw(st.sampled_from(JUMPS)) if chance(draw, 6) else draw(st.sampled_from(SMALL_GAPS))
        if isinstance(act, Recall) and act.again:
            # the same question a day later (a resumed session): just past the first run's window
            earlier = [a.t for a in acts[:index] if isinstance(a, Recall) and a.session == act.session]
            if earlier:
                t = max(t, earlier[0] + DAY + draw(st.sampled_from([1, 30, 300])))
        if isinstance(act, Read) and act.edge is not None:
            anchors = _anchors(acts[:index], act)
            if anchors:
                wanted = draw(st.sampled_from(anchors)) + DAY + act.edge[1]
                if wanted > _last(acts[:index]):
                    t = wanted
        act.t = t
        if isinstance(act, Recall):
            for i, c in enumerate(act.claims):
                c.t = t + i
            t += len(act.claims[1:])


def _anchors(before: list[Act], read: Read) -> list[int]:
    kind = read.edge[0] if read.edge else "run"
    if kind == LAST_RUN:
        mine = [a.t for a in before if isinstance(a, Recall) and a.session == read.session]
        return mine[-1:]
    if kind == "run":
        return [a.t for a in before if isinstance(a, Recall) and read.asset in a.targets]
    return [a.t for a in before if isinstance(a, Read) and a.asset == read.asset]


def _last(acts: list[Act]) -> int:
    if not acts:
        return -1
    last = acts[-1]
    return last.t + (len(last.claims[1:]) if isinstance(last, Recall) else 0)


# --- as a scenario ----------------------------------------------------------------------------

def _spell_gap(seconds: int) -> str:
    for unit, size in (("d", DAY), ("h", 3600), ("m", 60)):
        if seconds and seconds % size == 0:
            return f"+{seconds // size}{unit}"
    return f"+{seconds}s"


def instant(seconds: int) -> str:
    return timeline.spell(START + dt.timedelta(seconds=seconds))


def _recall_env(recall: Recall) -> dict[str, str]:
    var = SESSION_ENV.get(recall.session.agent)
    if recall.env == "none" or var is None:
        return {}
    env = {var: recall.session.sid}
    if recall.env == "ambiguous":
        other = next(v for v in SESSION_ENV.values() if v != var)
        env[other] = "outer-" + recall.session.sid
    return env


def _steps(plan: Plan, act: Act) -> list[tuple[int, dict[str, Any]]]:
    cwd = "${root:team}"
    if isinstance(act, Recall):
        step: dict[str, Any] = {"recall": act.query, "as": act.name}
        env = _recall_env(act)
        if env:
            step["env"] = env
        if act.caller:
            step["caller"] = agents.RECALL_SUBAGENT
        out = [(act.t, step)]
        for c in act.claims:
            flag = act.caller or c.actor is not None
            out.append((c.t, agents.claim(c.session.flavor, c.session.sid, cwd, act.name, act.query, flag, c.actor)))
        return out
    if isinstance(act, Read):
        return [(act.t, agents.read(act.session.flavor, act.session.sid, cwd, act.asset.doc(), act.form, act.verb,
                                    act.actor))]
    if isinstance(act, SubagentStop):
        return [(act.t, agents.subagent_stop(act.session.flavor, act.session.sid, act.actor))]
    return [(act.t, agents.link(act.parent.sid, act.child.sid, cwd))]


def _stop_for(act: Act) -> Session | None:
    if isinstance(act, Link):
        return act.parent
    if isinstance(act, SubagentStop):
        return None  # itself a reduce trigger
    return act.session


def scenario(plan: Plan, schedule: str, stops: list[bool] | None = None, relations: bool = True,
             ident: str = "gen-session", title: str = "A generated session") -> dict[str, Any]:
    """The plan as a scenario dict; ``stops`` (one flag per act) places the Stops of ``stops``."""
    timed: list[tuple[int, dict[str, Any]]] = []
    for i, act in enumerate(plan.acts):
        steps = _steps(plan, act)
        timed += steps
        who = _stop_for(act)
        if who is not None and (schedule == EVERY or (schedule == STOPS and stops and stops[i])):
            timed.append((steps[-1][0], agents.stop(who.flavor, who.sid)))
    end = timed[-1][0] if timed else 0
    if schedule in (END, STOPS):
        timed.append((end + 1, {"pull": {}}))
    steps_out: list[dict[str, Any]] = []
    previous = 0
    for i, (t, step) in enumerate(timed):
        if i and t < previous:
            raise ValueError(f"step {i + 1} would run before the step ahead of it")
        if i and t - previous != 1:
            step = {**step, "at": _spell_gap(t - previous)}
        steps_out.append(step)
        previous = t
    data: dict[str, Any] = {
        "id": ident, "title": title, "clauses": ["REDUCE-JOIN", "REDUCE-ONCE-PER-DOC", "ADOPT-WINDOW",
                                                 "PRIVACY-NO-QUERY"],
        "provenance": "generated", "agents": sorted({s.agent for s in plan.sessions}),
    }
    data.update(plan.tree.scenario_part(relations))
    data["steps"] = steps_out
    data["expect"] = {"never_in_state": plan.queries()}
    return data
