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
not-applicable     the case needs a capability the driver did not declare
xfail              did not pass, as the expectations file says
xpass              passed although the expectations file says it fails (reported)
=================  =====================================================================
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
    lacking: list[str] = field(default_factory=list)  # not-applicable: the needs the driver did not declare
    explanation: dict[str, Any] | None = None  # a fail: where and why it parted from the reference (explain.py)

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "title": self.title, "area": self.area, "agents": self.agents,
                "clauses": self.clauses, "outcome": self.outcome, "message": self.message,
                "mismatches": self.mismatches, "steps": self.steps, "duration": round(self.duration, 4),
                "reason": self.reason, "lacking": self.lacking,
                **({"observed": self.observed} if self.observed is not None else {}),
                **({"explanation": self.explanation} if self.explanation is not None else {})}
