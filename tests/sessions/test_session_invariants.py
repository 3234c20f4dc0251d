"""Generated sessions of the ten agents, run end to end through the in-process driver (the way
``teamai-conformance run`` runs a scenario) and judged on what ``observe`` returns.

For every example: at most one upvote per (root session, doc) per 24 h of read time; no upvote
without a read the spec counts; the query nowhere in the state; and, when the reducer ran at every
event, exactly the credits the spec gives. A failing example is written out as a scenario (see
``harness.fail``). ``TEAMAI_SESSION_EXAMPLES=2000`` runs a long local search.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hypothesis import given, settings, target
from hypothesis import strategies as st

from reference.team.tree import LEARNING

from . import agents, cases, harness, invariants, oracle
from .sessions import EVERY, SCHEDULES, STOPS, Act, Claim, Link, Plan, Read, Recall, Session, plans
from .trees import Asset, Tree

TEST = "tests/sessions/test_session_invariants.py::test_upvotes_are_earned_once_a_day_and_no_query_is_stored"
TEST_LATE = "tests/sessions/test_session_invariants.py::test_a_child_linked_after_its_work_credits_once_per_root"

# Each interesting case, and the share of examples that must reach it for the test to mean anything.
REACHED = {
    "credit": 0.4, "covered read": 0.15, "read on a 24 h edge": 0.1, "credited again after 24 h": 0.05,
    "unsettled run": 0.08, "read of an unsettled run's doc": 0.04, "recall subagent's own read": 0.04,
    "other subagent's read counts": 0.02, "interleaved sessions": 0.15, "linked child session": 0.08,
    "child session's read counts for its root": 0.04, "failed call or uncounted form": 0.08,
    "read after the 24 h window": 0.1, "credit on a run's last second": 0.05,
    # Hypothesis does not draw the schedules evenly (its targeting favours the Stop after every
    # event): on 600 fresh examples one run gave 72%, 17% and 10%, and with the rarest near 10% a
    # floor of 15% fails about half the fresh runs for no change (it failed one of the first two).
    # A floor under the rarest share still says when a schedule stops being reached.
    **{f"reduced by {s}": 0.08 for s in SCHEDULES},
}


def test_upvotes_are_earned_once_a_day_and_no_query_is_stored() -> None:
    """Each agent leads an equal share of the examples; the other sessions of a plan are any agent."""
    harness.each_lead(_property, REACHED)


def _property(lead: str, reach: harness.Reach, **overrides: Any) -> Callable[[], None]:
    @settings(**{**harness.profile(60, share=len(agents.AGENTS)), **overrides})
    @given(plans(lead), st.sampled_from(SCHEDULES), st.data())
    def prop(plan: Plan, schedule: str, data: st.DataObject) -> None:
        stops = data.draw(st.lists(st.booleans(), min_size=len(plan.acts), max_size=len(plan.acts)),
                          label="stops") if schedule == STOPS else None
        case = cases.build(plan, schedule, stops)
        result = harness.run(case, "reducer")
        broken = invariants.ran(result)
        if broken:
            harness.fail(TEST, "the session runs to its end and every hook exits 0", broken, [(case, "reducer")])
        exp = oracle.expected(plan, cases.outputs(result))
        reach.saw(oracle.interesting(plan, exp) | {f"reduced by {schedule}"})
        target(float(sum(len(times) for times in exp.counted.values())), label="counted reads")
        checks = [("at most one upvote per (root session, doc) per 24 h of read time",
                   invariants.once_a_day(plan, exp, result)),
                  ("no upvote without a read the spec counts", invariants.earned(plan, exp, result)),
                  ("the query is never stored", invariants.query_never_stored(result))]
        if schedule == EVERY:
            checks.append(("reduced at every event, each (root session, doc) earns the spec's credits",
                           invariants.complete(plan, exp, result)))
        for invariant, problems in checks:
            if problems:
                stated = {**case, "expect": invariants.spec_expectations(plan, exp, cases.printed_keys(plan, exp))}
                harness.fail(f"{TEST} (lead agent {lead})", invariant, problems, [(stated, "reducer")],
                             oracle.summary(plan, exp))

    return prop


def _late_link_probe() -> Plan:
    doc = Asset("team", LEARNING, "learnings/redis-timeout.md", "quokka", ("timeout",))
    parent, child = Session("opencode-ses-1", "opencode"), Session("opencode-child-1", "opencode", "opencode-ses-1")
    acts: list[Act] = [Recall(parent, "r1", "quokka timeout", (doc,), "own", False, [Claim(parent, t=0)], t=0),
                       Recall(child, "r2", "quokka timeout", (doc,), "own", False, [Claim(child, t=1)], t=1),
                       Read(child, doc, agents.READ, t=2), Link(parent, child, t=3), Read(parent, doc, agents.READ, t=4)]
    return Plan(Tree((doc,)), [parent, child], acts)


def test_a_child_linked_after_its_work_credits_once_per_root() -> None:
    """OpenCode's bridge links a task's child session to its parent when the task has finished,
    after the child's own reads were reduced at its Stops. The child's credit, given while it was a
    root of its own, covers its new root's later reads of that doc: one upvote (a fixed probe
    session shows the case, then generated ones). The one case excused (``invariants.LATE_LINK``)
    is both crediting at Stops before their link: nothing tied the two credits when they were
    given, and a credit is never taken back."""
    probe = _late_link_probe()
    shown = harness.run(cases.build(probe, EVERY, what="probe"), "reducer")
    assert sum(invariants.upvotes(shown).values()) == 1, invariants.upvotes(shown)
    reach = harness.Reach()

    @settings(**harness.profile(30))
    @given(plans("opencode", late_links=True))
    def prop(plan: Plan) -> None:
        case = cases.build(plan, EVERY, what="late-link")
        result = harness.run(case, "reducer")
        broken = invariants.ran(result)
        if broken:
            harness.fail(TEST_LATE, "the session runs to its end and every hook exits 0", broken, [(case, "reducer")])
        exp = oracle.expected(plan, cases.outputs(result))
        reach.saw(oracle.interesting(plan, exp))
        crossed, unexplained = invariants.late_link_departures(plan, exp, result)
        wrong_order = invariants.late_credits_not_before_link(plan, result) if crossed else []
        if crossed and not wrong_order:
            reach.saw_once("excused: both credited before their link")
        if unexplained or wrong_order:
            problems = unexplained or invariants.once_a_day(plan, exp, result) + invariants.complete(plan, exp, result)
            stated = {**case, "expect": invariants.spec_expectations(plan, exp, cases.printed_keys(plan, exp))}
            harness.fail(TEST_LATE, "at most one upvote per (root session, doc) per 24 h of read time", problems,
                         [(stated, "reducer")], oracle.summary(plan, exp))

    prop()
    print(reach.report())
    reach.require({"linked child session": 0.5, "child session's read counts for its root": 0.2, "credit": 0.5})
