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
not-applicable     nothing of the case applies: a step needs a command, an agent, ``hold``,
                   ``spoil`` or ``repeat`` the driver did not declare, or every expectation needs
                   something it did not declare (see ``applicability``)
xfail              did not pass, as the expectations file says
xpass              passed although the expectations file says it fails (reported)
=================  =====================================================================

Two marks qualify an outcome without changing it: *partly applicable* (``skipped`` names the
expectations left out because the driver lacks what they need, ``lacking`` says what) and
*vacuous* (a pass that an implementation doing nothing would also get; ``vacuous`` says why).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
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
    # The levels whose failure fails the case: spec always; decisions and profile too for a driver
    # that declares the reference's profile (``levels.judged``).
    held: list[str] = field(default_factory=lambda: ["spec"])
    # Each level's verdict: {"spec": pass|fail|none, "decisions": {id: agree|differ},
    # "profile": pass|fail|none|unchecked}; empty until the case was judged.
    levels: dict[str, Any] = field(default_factory=dict)

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
                **({"levels": self.levels, "held": self.held} if self.levels else {}),
                **({"observed": self.observed} if self.observed is not None else {}),
                **({"explanation": self.explanation} if self.explanation is not None else {})}


def from_json(line: Mapping[str, Any]) -> CaseResult:
    """A case's line of a JSON-lines report as the result it was written from (what a terminal
    report of it needs; a field an older report lacks takes its default)."""
    known = {f for f in CaseResult.__dataclass_fields__}
    fields = {k: v for k, v in line.items() if k in known and k != "partly"}
    fields.setdefault("held", ["spec"])
    for name in ("id", "title", "area", "outcome"):
        fields[name] = str(fields.get(name) or "")
    for name in ("agents", "clauses"):
        fields[name] = list(fields.get(name) or [])
    fields["duration"] = float(fields.get("duration") or 0.0)
    return CaseResult(**fields)


def settle(result: CaseResult, judged: list[tuple[Any, list[Any]]], hooks: list[Any]) -> None:
    """The case's verdict per level and its outcome from the levels it is held to.

    ``judged`` pairs each judged block (``levels.Block``) with its mismatches; ``hooks`` are the
    harness's own mismatches (a hook that exited non-zero), which count at spec level. Only a
    driver held to the profile (the reference) fails a case on a decision or the profile; any
    other driver that parts from a decision *differs on* it, which the reports show apart."""
    spec = list(hooks)
    decisions: dict[str, str] = {}
    profile = "none" if "profile" in result.held else "unchecked"
    rows: list[dict[str, Any]] = [{**m.to_json(), "level": "spec"} for m in hooks]
    spec_judged = bool(hooks)
    for block, missed in judged:
        rows += [{**m.to_json(), "level": block.level, **({"decision": block.decision} if block.decision else {})}
                 for m in missed]
        if block.level == "spec":
            spec_judged = True
            spec += missed
        elif block.level == "decision":
            decisions[str(block.decision)] = "differ" if missed else "agree"
        else:
            profile = "fail" if missed else "pass"
    result.levels = {"spec": ("fail" if spec else "pass") if spec_judged else "none",
                     "decisions": decisions, "profile": profile}
    failing = [r for r in rows if r["level"] in result.held]
    result.mismatches = rows
    if failing:
        result.outcome = FAIL
        result.message = f"{failing[0]['path']}: {failing[0]['message']}"
    elif rows:
        first = rows[0]
        differ = sorted(d for d, v in decisions.items() if v == "differ")
        result.message = (f"differs on {', '.join(differ)}" if differ else f"{first['path']}: {first['message']}")


def level_totals(results: Sequence[CaseResult | Mapping[str, Any]]) -> dict[str, Any]:
    """The three numbers a run reports apart (``levels``): conformance to the spec, agreement with
    the reference's decisions, and the reference's profile.

    ``spec``: cases judged at spec level and how many held (a case that errored, crashed or timed
    out counts as not holding). ``decisions``: each case's verdict on each decision it cites,
    agreed and differing, how many cases differ on at least one, and per decision how many cases
    differ (most first). ``profile``: cases judged on the
    profile and how many held, or ``None`` when no case was (the driver declares no profile)."""
    spec_total = spec_pass = profile_total = profile_pass = 0
    agree = cases_differ = 0
    differ: Counter[str] = Counter()
    for r in results:
        # a result, or its line in a JSON-lines report
        v = (r.levels if isinstance(r, CaseResult) else r.get("levels")) or {}
        outcome = r.outcome if isinstance(r, CaseResult) else r.get("outcome")
        broken = outcome in (ERROR, CRASH, TIMEOUT)
        if v.get("spec") in ("pass", "fail") or broken:
            spec_total += 1
            spec_pass += v.get("spec") == "pass" and not broken
        for name, verdict in (v.get("decisions") or {}).items():
            if verdict == "agree":
                agree += 1
            else:
                differ[name] += 1
        cases_differ += any(verdict != "agree" for verdict in (v.get("decisions") or {}).values())
        if v.get("profile") in ("pass", "fail"):
            profile_total += 1
            profile_pass += v.get("profile") == "pass"
    return {"spec": {"pass": spec_pass, "total": spec_total},
            "decisions": {"agree": agree, "differ": sum(differ.values()), "cases_differ": cases_differ,
                          "by_decision": dict(sorted(differ.items(), key=lambda item: (-item[1], item[0])))},
            "profile": {"pass": profile_pass, "total": profile_total} if profile_total else None}


def level_lines(results: Sequence[CaseResult | Mapping[str, Any]]) -> list[str]:
    """The three numbers in words, one line each."""
    t = level_totals(results)
    spec, dec, prof = t["spec"], t["decisions"], t["profile"]
    out = [f"spec (conformance to #884 and #1552): {spec['pass']}/{spec['total']} cases hold"]
    line = f"decisions (the reference's choices where the spec is silent): {dec['agree']} agree, {dec['differ']} differ"
    if dec["differ"]:
        cases = dec.get("cases_differ", 0)
        line += f" in {cases} case{'s' if cases != 1 else ''}"
    if dec["by_decision"]:
        line += " (" + ", ".join(f"{name} {n}" for name, n in dec["by_decision"].items()) + ")"
    out.append(line)
    held = any("profile" in (r.held if isinstance(r, CaseResult) else r.get("held") or ()) for r in results)
    out.append(f"profile (the reference's own formats): {prof['pass']}/{prof['total']} cases hold" if prof
               else "profile (the reference's own formats): no case here checks it" if held
               else "profile (the reference's own formats): not checked (the implementation declares no profile)")
    return out
