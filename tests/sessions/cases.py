"""A plan under a schedule as a named case, and what its run printed."""

from __future__ import annotations

from typing import Any

from conformance.comparison import counterexample
from conformance.running.outcomes import CaseResult

from . import oracle, sessions
from .sessions import Plan


def build(plan: Plan, schedule: str, stops: list[bool] | None = None, relations: bool = True,
          what: str = "session") -> dict[str, Any]:
    """The scenario, with a title that says what it holds and an id from its content."""
    recalls, reads = len(plan.recalls()), len(plan.reads())
    reduced = {sessions.EVERY: "a Stop after every event", sessions.END: "one pull at the end",
               sessions.STOPS: "Stops here and there, then a pull"}[schedule]
    title = (f"Generated {what}: {len(plan.sessions)} session(s) of {', '.join(plan.flavors())}, "
             f"{recalls} recall(s), {reads} read(s), reduced by {reduced}")
    data = sessions.scenario(plan, schedule, stops, relations, title=title[:160])
    data["id"] = counterexample.ident(data, f"gen-{what}")
    return data


def outputs(result: CaseResult) -> dict[str, str]:
    """Each recall step's stdout (normalized: paths as ``${path:…}``, run ids as ``${rN.run}``)."""
    return {str(s["name"]): str(s["stdout"]) for s in result.steps if s["action"] == "recall" and s["name"]}


def printed_keys(plan: Plan, exp: oracle.Expected) -> set[str]:
    assets = plan.tree.by_token()
    return {assets[token].key for run in exp.runs for token in run.printed if token in assets}
