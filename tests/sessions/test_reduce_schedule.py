"""The same credits whatever the reduce schedule: a generated session reduced by a Stop after every
event and by one ``pull`` at the end must earn the same upvotes, the ones the spec gives.

Where the reference departs from that today for a reason already known (``invariants.KNOWN``),
small fixed sessions (``_PROBES``) show it, and only then are examples that depart for that reason
alone excused, and the test ends as an expected failure that names the reasons. Any other
departure fails it. Once the reference is fixed, the probes stop showing the reason and the same
examples fail the test, so the excuse cannot outlive the bug.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings

from reference.tree import LEARNING

from . import agents, cases, harness, invariants, oracle
from .sessions import DAY, END, EVERY, Plan, Read, Recall, Session, plans
from .trees import Asset, Tree

TEST = "tests/sessions/test_reduce_schedule.py::test_the_same_credits_whatever_the_reduce_schedule"
REACHED = {"credit": 0.4, "covered read": 0.15, "credited again after 24 h": 0.05, "interleaved sessions": 0.15,
           "recall subagent's own read": 0.04, "linked child session": 0.06}


def _probe(flavor: str, caller_later: bool) -> Plan:
    doc = Asset("team", LEARNING, "learnings/redis-timeout.md", "quokka", ("timeout",))
    me = Session(f"{flavor}-ses-1", flavor)
    first = Recall(me, "r1", "quokka timeout", (doc,), "own", False, t=0)
    read = Read(me, doc, agents.READ, t=1)
    if caller_later:  # the same actor then runs the recall subagent's recall
        return Plan(Tree((doc,)), [me], [first, read, Recall(me, "r2", "quokka timeout", (doc,), "own", True, t=60)])
    again = Recall(me, "r2", "quokka timeout", (doc,), "own", False, again=True, t=DAY + 60)
    return Plan(Tree((doc,)), [me], [first, read, again, Read(me, doc, agents.READ, t=DAY + 61)])


_PROBES = {invariants.TTL: _probe("claude", False), invariants.MAKER: _probe("cursor", True)}


def known_departures() -> dict[str, str]:
    """The known reasons the reference still shows, each on its probe."""
    found = {}
    for reason, plan in _PROBES.items():
        every, end = (harness.run(cases.build(plan, schedule, what="probe"), "reducer") for schedule in (EVERY, END))
        if invariants.upvotes(every) != invariants.upvotes(end):
            found[reason] = invariants.KNOWN[reason]
    return found


def test_the_same_credits_whatever_the_reduce_schedule() -> None:
    known = known_departures()
    reach = harness.Reach()
    excused: Counter[str] = Counter()
    for lead in agents.AGENTS:
        _property(lead, reach, known, excused)()
    print(reach.report())
    reach.require(REACHED)
    if excused:
        pytest.xfail(f"{sum(excused.values())} of {reach.examples} examples earned less with one pull at the end, "
                     f"for reasons the reference still has (issue 10, the same credits whatever the reduce "
                     f"schedule): " + "; ".join(f"{known[k]} ({n} examples)" for k, n in excused.items()))


def _property(lead: str, reach: harness.Reach, known: dict[str, str], excused: Counter[str],
              **overrides: Any) -> Callable[[], None]:
    @settings(**{**harness.profile(40, share=len(agents.AGENTS)), **overrides})
    @given(plans(lead))
    def prop(plan: Plan) -> None:
        both = {schedule: cases.build(plan, schedule) for schedule in (EVERY, END)}
        every, end = (harness.run(both[s], "reducer") for s in (EVERY, END))
        for result, case in ((every, both[EVERY]), (end, both[END])):
            broken = invariants.ran(result)
            if broken:
                harness.fail(TEST, "the session runs to its end and every hook exits 0", broken, [(case, "reducer")])
        exp = oracle.expected(plan, cases.outputs(every))
        reach.saw(oracle.interesting(plan, exp))
        stated = {"expect": invariants.spec_expectations(plan, exp, cases.printed_keys(plan, exp))}
        problems = invariants.complete(plan, exp, every)
        if problems:
            harness.fail(f"{TEST} (lead agent {lead})", "reduced at every event, each session earns the spec's "
                         "credits", problems, [({**both[EVERY], **stated}, "reducer")], oracle.summary(plan, exp))
        if invariants.upvotes(end) == invariants.upvotes(every):
            return
        classes, unexplained = invariants.departures(plan, exp, every, end)
        unknown = sorted(classes - set(known))
        if unexplained or unknown:
            problems = unexplained + [f"{invariants.KNOWN[c]} (the probe no longer shows it)" for c in unknown]
            harness.fail(f"{TEST} (lead agent {lead})", "the same credits whatever the reduce schedule",
                         problems, [({**both[END], **stated}, "reducer")], oracle.summary(plan, exp))
        excused.update(classes)
        for c in classes:
            reach.saw_once(f"excused: {c}")

    return prop
