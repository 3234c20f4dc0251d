"""An imported capture, replayed by the reference: what it decides becomes what the scenario
expects, and why it decided is said in the words ``teamai-ref replay`` uses (``classify``'s notes).

The expectations are the decisions themselves: every claim, evidence and link line the reference
writes (as the harness normalizes them: ``${rN.run}``, ``${path:…}``, ``${root:…}``) and every
vote key's ``recalled_count`` and ``upvoted_count`` once all steps, Stops included, have run.
The scenario is then run once more with them, and must pass.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..corpus.read import Payload, Scenario
from ..implementations import connect
from ..running import outcomes
from ..running.case_runner import run_case
from .scenario import BuildError, Built

DECISIONS = ("claim", "evidence", "link")
_CLAUSES = {("claim", None): "CLAIM-PARSED-COMMAND", ("evidence", "read"): "ADOPT-READ-TOOL",
            ("evidence", "shell"): "ADOPT-SHELL-TOOLS", ("evidence", "search"): "ADOPT-SEARCH-CONTENT-LINE",
            ("link", None): "LINK-OPENCODE-TASK"}


def replay(built: Built, root: Path, rel: str) -> outcomes.CaseResult:
    scenario = Scenario(root / rel, rel, "attribution", built.scenario)
    payloads = {name: Payload(name, root / "payloads" / f"{name}.json", f"payloads/{name}.json", data)
                for name, data in built.payloads.items()}
    driver = connect("reference")
    try:
        return run_case(driver, scenario, payloads)
    finally:
        driver.stop()


def expectations(built: Built, root: Path, rel: str) -> dict[str, Any]:
    """Fill in the scenario's ``expect`` and ``clauses`` from the reference's decisions, and check them."""
    # The first run only observes: an expectation that holds whatever happens (no vote key named)
    # keeps the case applicable, since a case with nothing to judge is not run at all.
    built.scenario["expect"] = {"votes": {}}
    first = replay(built, root, rel)
    if first.outcome != outcomes.PASS or first.observed is None:
        raise BuildError(f"the reference could not replay the capture: {first.message}")
    log = [line for line in first.observed.get("log") or [] if line.get("kind") in DECISIONS]
    votes = {key: {"recalled_count": int(v.get("recalled_count") or 0), "upvoted_count": int(v.get("upvoted_count") or 0)}
             for key, v in sorted((first.observed.get("votes") or {}).items())}
    expect: dict[str, Any] = {}
    if votes:
        expect["votes"] = votes
    if log:
        expect["log_contains"] = log
    if not expect:
        expect["log_lines"] = len(first.observed.get("log") or [])
    built.scenario["clauses"] = clauses(log, votes, built)
    built.scenario["expect"] = expect
    second = replay(built, root, rel)
    if second.outcome != outcomes.PASS:
        raise BuildError(f"the scenario does not pass against the reference it was made from: {second.message}")
    return expect


def unclaimed_recalls(built: Built) -> list[str]:
    """The replayed calls whose command runs recall and for which the reference claims no run: the
    adapter does not read the output where this agent puts it (a capture that says nothing)."""
    from reference.hook import claims, dispatch

    roots = built.knowledge_roots
    found = []
    for name, call in built.steps:
        if call.event not in ("post-tool-use", "post-tool-use-failure"):
            continue
        try:
            tool = dispatch.to_toolcall(call.agent, call.payload, call.event)
        except Exception:  # noqa: BLE001 - an unreadable payload is reported elsewhere
            continue
        if tool.category != "shell" or not tool.command or not claims.invokes_recall(tool.command):
            continue
        from reference.hook import classify

        records = classify.classify(tool, roots, call.ts).records
        if not any(r.get("kind") == "claim" for r in records):
            found.append(f"{name} ({call.where})")
    return found


def clauses(log: list[dict[str, Any]], votes: dict[str, dict[str, int]], built: Built) -> list[str]:
    found: list[str] = []
    for line in log:
        clause = _CLAUSES.get((line["kind"], line.get("via") if line["kind"] == "evidence" else None))
        if clause and clause not in found:
            found.append(clause)
    events = {call.event for _name, call in built.steps}
    if "stop" in events:
        found.append("REDUCE-TRIGGER-STOP")
    if "subagent-stop" in events:
        found.append("REDUCE-TRIGGER-SUBAGENT-STOP")
    if any(v["upvoted_count"] for v in votes.values()):
        found.append("REDUCE-JOIN")
    return found or ["ADOPT-DEFINITION"]


def reasons(built: Built) -> list[tuple[str, list[str]]]:
    """Per replayed hook step: the decisions the reference takes for the captured payload, in words."""
    from reference.hook import classify, dispatch

    roots = built.knowledge_roots
    names = {r.run: r.name for r in built.recalls}
    out: list[tuple[str, list[str]]] = []
    for name, call in built.steps:
        head = f"{name} ({call.event} at {call.ts})"
        if call.event in ("stop", "subagent-stop"):
            session = _session(dispatch, call)
            out.append((head, [f"the reducer settles the runs and reads of session {session} and its subagents"
                               if session else "the reducer settles every session (the payload names none)"]))
            continue
        try:
            tool_call = dispatch.to_toolcall(call.agent, call.payload, call.event)
        except ImportError:
            out.append((head, [f"the reference has no adapter for {call.agent}: it records nothing"]))
            continue
        notes = classify.classify(tool_call, roots, call.ts).notes
        for run, rname in names.items():
            notes = [n.replace(run, rname) for n in notes]
        out.append((head, notes))
    return out


def _session(dispatch: Any, call: Any) -> str | None:
    try:
        return str(dispatch.to_toolcall(call.agent, call.payload, call.event).session or "") or None
    except Exception:  # noqa: BLE001 - an unknown agent's stop names no session we can read
        return None
