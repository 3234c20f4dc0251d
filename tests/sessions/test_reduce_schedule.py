"""The same credits whatever the reduce schedule: a generated session reduced by a Stop after every
event and by one ``pull`` at the end must earn the upvotes the spec gives, for the same reads.

The reducer measures every 24 h on the reads' own times (``reference/reducer/__init__.py``, "Read
time, not reduce time"), so when it runs must change nothing. A session whose schedules disagree is written out as
a counterexample under the pull-at-the-end schedule, with the spec's credits as its expectations.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hypothesis import given, settings

from . import agents, cases, harness, invariants, oracle
from .sessions import END, EVERY, Plan, plans

TEST = "tests/sessions/test_reduce_schedule.py::test_the_same_credits_whatever_the_reduce_schedule"
REACHED = {"credit": 0.4, "covered read": 0.15, "credited again after 24 h": 0.05, "interleaved sessions": 0.15,
           "recall subagent's own read": 0.04, "linked child session": 0.06, "read on a 24 h edge": 0.1,
           "credit on a run's last second": 0.05}


def test_the_same_credits_whatever_the_reduce_schedule() -> None:
    harness.each_lead(_property, REACHED)


def _property(lead: str, reach: harness.Reach, **overrides: Any) -> Callable[[], None]:
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
        problems = invariants.same_credits(plan, every, end)
        if problems:
            harness.fail(f"{TEST} (lead agent {lead})", "the same credits whatever the reduce schedule",
                         problems, [({**both[END], **stated}, "reducer")], oracle.summary(plan, exp))

    return prop
