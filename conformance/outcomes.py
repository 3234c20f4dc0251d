"""What can happen to a case, and the record of one case's run.

=================  =====================================================================
pass               every expectation held
fail               the implementation answered, and an expectation did not hold, or a
                   step or expectation needs a run id the implementation never printed
error              the driver caught a failure and answered ``ok: false``, or the
                   scenario itself is faulty (a substitution with nothing to refer to)
crash              the driver process died; it is restarted and the run goes on
timeout            no answer within the case's time; the driver is restarted
skip               the expectations file says not to run it
not-applicable     nothing of the case applies: a step needs a command, an agent, ``hold``
                   or ``repeat`` the driver did not declare, or every expectation needs
                   something it did not declare (see ``applicability``)
xfail              did not pass, as the expectations file says
xpass              passed although the expectations file says it fails (reported)
=================  =====================================================================

Two marks qualify an outcome without changing it: *partly applicable* (``skipped`` names the
expectations left out because the driver lacks what they need, ``lacking`` says what) and
*vacuous* (a pass that an implementation doing nothing would also get; ``vacuous`` says why).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

PASS, FAIL, ERROR, CRASH, TIMEOUT = "pass", "fail", "error", "crash", "timeout"
SKIP, NOT_APPLICABLE, XFAIL, XPASS = "skip", "not-applicable", "xfail", "xpass"
ALL = (PASS, FAIL, ERROR, CRASH, TIMEOUT, SKIP, NOT_APPLICABLE, XFAIL, XPASS)
NOT_PASSING = frozenset({FAIL, ERROR, CRASH, TIMEOUT})
UNEXPECTED = frozenset({FAIL, ERROR, CRASH, TIMEOUT, XPASS})


@dataclass
class CaseResult:
    id: str
    title: str
    area: str
    agents: list[str]
    clauses: list[str]
    outcome: str
    message: str = ""
    mismatches: list[dict[str, Any]] = field(default_factory=list)
    steps: list[dict[str, Any]] = field(default_factory=list)
    observed: dict[str, Any] | None = None
    duration: float = 0.0
    reason: str = ""  # from the expectations file, for xfail / xpass / skip
    lacking: list[str] = field(default_factory=list)  # the needs the driver did not declare (not applicable, or partly)
    explanation: dict[str, Any] | None = None  # a fail: where and why it parted from the reference (explain.py)
    skipped: list[str] = field(default_factory=list)  # partly applicable: the expectations left out
    vacuous: str = ""  # a pass that says nothing: why

    @property
    def partly(self) -> bool:
        return bool(self.skipped) and self.outcome != NOT_APPLICABLE

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "title": self.title, "area": self.area, "agents": self.agents,
                "clauses": self.clauses, "outcome": self.outcome, "message": self.message,
                "mismatches": self.mismatches, "steps": self.steps, "duration": round(self.duration, 4),
                "reason": self.reason, "lacking": self.lacking,
                **({"partly": True, "skipped": self.skipped} if self.partly else {}),
                **({"vacuous": self.vacuous} if self.vacuous else {}),
                **({"observed": self.observed} if self.observed is not None else {}),
                **({"explanation": self.explanation} if self.explanation is not None else {})}
