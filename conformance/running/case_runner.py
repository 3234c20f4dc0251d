"""Running one scenario against one driver: open, each step at its instant, observe, close, judge.

Every case gets a fresh sandbox folder in the system's temp dir and a deadline; a driver that
crashes, hangs or answers garbage is restarted so the next case starts clean.
"""

from __future__ import annotations

import datetime as dt
import re
import shutil
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from ..corpus import levels, placement, vacuity
from ..corpus.capabilities import STATE_STEPS, action_of, target
from ..corpus.read import Payload, Scenario
from . import applicability, outcomes, timeline, tree_write, without_relations
from .driver import Driver, DriverCrashed, DriverError, DriverTimeout
from .expect import Mismatch, StepOutcome, evaluate, hooks_exit_zero, unprinted
from .normalize import Normalizer
from .protocol import ProtocolViolation
from .sandbox import expand_tree, file_text
from .substitute import Context, NotPrinted, SubstitutionError, set_paths, silent_step, unset_paths

DEFAULT_TIMEOUT = 60.0
# A run id is read where the clauses put it and nowhere else: at the end of the start line or of the
# no-hit line (its query quoted), never from a hit's title, tags or any other text a team file supplies.
RUN_ID = re.compile(r'^(?:--- \[teamai:recall:start\] --- \(\d+ results?\)|No matching learnings found for ".*"\.)'
                    r" run=(\S+?)\r?$", re.MULTILINE)


@dataclass(frozen=True)
class Observation:
    """Everything a case's expectations are judged on, so another scenario's ``expect`` can be
    judged on this run too (``pairs.flip``)."""

    observed: Mapping[str, Any]
    steps: list[StepOutcome]
    ctx: Context
    norm: Normalizer


# What explains a failed case (``explain.explain_failure``): the driver, the case, its payloads, its
# result and the timeout in; the explanation (a JSON object) out.
Explainer = Callable[[Driver, Scenario, Mapping[str, Payload], outcomes.CaseResult, float], dict[str, Any]]


class ScenarioError(ValueError):
    """The scenario cannot be turned into messages (a corpus fault, not the implementation's)."""


class _Unprinted(Exception):
    """A step needs what an earlier step should have printed and did not: the implementation
    failed there, and the steps after it cannot run."""

    def __init__(self, where: str, cause: NotPrinted) -> None:
        super().__init__(str(cause))
        self.where = where
        self.cause = cause


def run_case(driver: Driver, scenario: Scenario, payloads: Mapping[str, Payload],
             timeout: float = DEFAULT_TIMEOUT, trace: Tracer | None = None,
             explain: Explainer | None = None,
             observer: Callable[[Observation], None] | None = None,
             profile: bool | None = None) -> outcomes.CaseResult:
    """``trace``: observe after every step and hand each answer to it (``explain.py`` replays a
    failed case so). ``explain``, when given (``explain.explain_failure``), gives a case that
    fails its explanation (``result.explanation``); given where a person reads the failure
    (``run``, the pytest plugin), since it replays the case and runs the reference, which callers
    judging only the outcome (honesty, pairs, shrink, the mutation judge) would pay for on every
    failure. It is passed in, not imported: explaining runs cases itself. ``observer``, when
    given, gets what the run observed once every step has run. ``profile``: judge the reference's
    profile whatever the driver declares (None: only for a driver that declares it,
    ``levels.judged``)."""
    started = time.perf_counter()
    result = outcomes.CaseResult(scenario.id, scenario.title, scenario.area, scenario.agents, scenario.clauses,
                                 outcomes.PASS)
    plan = applicability.plan(scenario, payloads, driver.capabilities, profile)
    result.held = list(levels.held(driver.capabilities, profile))
    result.lacking = plan.lacking
    if not plan.applicable:
        declined = _declined_by_the_reference(driver, plan.lacking)
        if declined:
            result.outcome = outcomes.ERROR
            result.message = declined
            return result
        result.outcome = outcomes.NOT_APPLICABLE
        result.message = "the driver does not declare: " + ", ".join(plan.lacking)
        return result
    result.skipped = plan.skipped
    folder = tempfile.mkdtemp(prefix="tc-")
    session = _Session(driver, time.monotonic() + timeout, timeout, trace)
    try:
        asked = any(without_relations.wanted(block.expect) for block in plan.blocks)
        twin = _twin(session, scenario, payloads) if asked else None
        _drive(session, scenario, payloads, folder, result, plan.blocks, twin, observer)
        if result.outcome == outcomes.PASS:
            judged: dict[str, Any] = {}
            for block in plan.blocks:
                if _held(block, result.levels):
                    judged = placement.merge(judged, block.expect)
            result.vacuous = vacuity.vacuous(judged, scenario.steps, scenario.data.get("given"))
    except DriverTimeout as exc:
        _failed(result, outcomes.TIMEOUT, str(exc))
        driver.restart()
    except DriverCrashed as exc:
        _failed(result, outcomes.CRASH, str(exc))
        driver.restart()
    except ProtocolViolation as exc:
        _failed(result, outcomes.ERROR, f"protocol violation: {exc}")
        driver.restart()
    except DriverError as exc:
        _failed(result, outcomes.ERROR, f"{session.last}: {exc}", exc.detail)
        session.close_quietly()
    except (ScenarioError, SubstitutionError, timeline.TimeError) as exc:
        _failed(result, outcomes.ERROR, f"scenario: {exc}")
        session.close_quietly()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        result.duration = time.perf_counter() - started
    if explain is not None and result.outcome == outcomes.FAIL:
        result.explanation = explain(driver, scenario, payloads, result, timeout)
    return result


def _declined_by_the_reference(driver: Driver, lacking: list[str]) -> str:
    """The reference runs every case of its own corpus: an agent or a command it does not declare
    is a gap to fill (an adapter not registered, a corpus ahead of the code), never a quiet n/a."""
    info = getattr(driver, "info", None) or {}
    who = (info.get("implementation") or {}).get("name")
    if who != "teamai-ref" or (info.get("capabilities") or {}).get("profile") != levels.REFERENCE_PROFILE:
        return ""
    gaps = [need for need in lacking if need.startswith(("agent ", "command "))]
    if not gaps:
        return ""
    fixes = []
    for gap in gaps:
        kind, name = gap.split(" ", 1)
        if kind == "agent":
            fixes.append(f"agent {name}: the reference has no adapter for it; add reference/hook/agents/{name}.py "
                         "and its name to AGENTS in reference/hook/agents/__init__.py (payloads/README.md, "
                         "\"Adding an agent\")")
        else:
            fixes.append(f"command {name}: the reference's driver does not run it (conformance/drivers/reference.py)")
    return "the reference declines a case of its own corpus: " + "; ".join(fixes)


def _held(block: levels.Block, verdicts: Mapping[str, Any]) -> bool:
    """Whether a judged block held: a pass stands on the spec, on the decisions it agrees with and
    on a profile that held, never on a decision it differs on (those checks failed)."""
    if block.level == levels.DECISION:
        return (verdicts.get("decisions") or {}).get(str(block.decision), "agree") == "agree"
    if block.level == levels.PROFILE:
        return verdicts.get("profile", "pass") == "pass"
    return True


def _twin(session: _Session, scenario: Scenario, payloads: Mapping[str, Payload]) -> list[dict[str, Any]]:
    """The steps of the same case run with no relation in its trees (``without_relations``)."""
    folder = tempfile.mkdtemp(prefix="tc-")
    shadow = outcomes.CaseResult(scenario.id, scenario.title, scenario.area, scenario.agents, scenario.clauses,
                                 outcomes.PASS)
    try:
        _drive(session, without_relations.twin(scenario), payloads, folder, shadow, [])
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return shadow.steps


def _failed(result: outcomes.CaseResult, outcome: str, message: str, detail: str = "") -> None:
    result.outcome = outcome
    result.message = message + (f"\n{detail.strip()}" if detail.strip() else "")


class Tracer(Protocol):
    def observed(self, index: int, answer: dict[str, Any]) -> None: ...
    def finish(self, norm: Normalizer) -> None: ...


class _Session:
    def __init__(self, driver: Driver, deadline: float, timeout: float, trace: Tracer | None = None) -> None:
        self.driver = driver
        self.deadline = deadline
        self.timeout = timeout
        self.last = ""
        self.trace = trace

    def send(self, message: dict[str, Any]) -> dict[str, Any]:
        self.last = str(message["cmd"])
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise DriverTimeout(f"the case took longer than {self.timeout:g}s")
        return self.driver.request(message, left)

    def close_quietly(self) -> None:
        try:
            self.driver.request({"cmd": "close"}, 10.0)
        except (DriverError, ProtocolViolation):
            pass
        except (DriverCrashed, DriverTimeout):
            self.driver.restart()


def _strings(env: Any, ctx: Context, where: str = "env") -> dict[str, str]:
    return {str(k): str(_apply(ctx, v, where)) for k, v in (env or {}).items()}


def _apply(ctx: Context, value: Any, where: str) -> Any:
    """``ctx.apply``, with a value the implementation never printed blamed on it at ``where``."""
    try:
        return ctx.apply(value)
    except NotPrinted as exc:
        raise _Unprinted(where, exc) from exc


def open_case(session: _Session, scenario: Scenario, folder: str) -> tuple[list[Any], Any, Context]:
    """Open the case's sandbox (at its first instant) and learn the paths, roots and scope words
    the implementation declares: the step instants, the case's first instant and the substitution context."""
    data = scenario.data
    times = timeline.instants(data)
    first = times[0] if times else timeline.parse_instant(str(data.get("start") or timeline.DEFAULT_START))
    ctx = Context(sandbox=folder)
    opened = session.send({
        "cmd": "open", "now": timeline.spell(first), "case": scenario.id, "sandbox": folder,
        "team": expand_tree(data.get("team") or {}), "user_team": expand_tree(data.get("user_team")),
        "learnings_roots": [expand_tree(t) for t in data["learnings_roots"]] if isinstance(
            data.get("learnings_roots"), list) else data.get("learnings_roots"),
        "withheld": data.get("withheld"),
        "repo": data.get("repo"), "env": _strings(data.get("env"), ctx),
        **({"windows_team": data["windows_team"]} if data.get("windows_team") else {})})
    ctx.paths = dict(opened.get("paths") or {})
    ctx.user_paths = dict(opened.get("user_paths") or {})
    ctx.roots = dict(opened.get("roots") or {})
    ctx.labels.update({str(k): str(v) for k, v in (opened.get("labels") or {}).items()})
    given = data.get("given")
    if given:
        session.send(seed_message(given, timeline.spell(first), ctx))
    return times, first, ctx


def seed_message(given: Mapping[str, Any], now: str, ctx: Context) -> dict[str, Any]:
    """The ``seed`` request for a scenario's ``given:`` block, with paths and roots substituted
    (the state a user's machine already holds names the files by their absolute paths)."""
    try:
        state = ctx.apply(dict(given))
    except (NotPrinted, SubstitutionError) as exc:
        raise ScenarioError(f"in given: {exc}") from exc
    checkpoint = state.get("checkpoint")
    if checkpoint is not None:
        checkpoint = {"read": str(checkpoint.get("read", "")), "replaced": bool(checkpoint.get("replaced", False))}
    upvoted = state.get("upvoted")
    return {"cmd": "seed", "now": now, "votes": state.get("votes"), "log": file_text(state.get("log")),
            "upvoted": None if upvoted is None else [{k: str(v) for k, v in dict(e).items()} for e in upvoted],
            "checkpoint": checkpoint}


def _drive(session: _Session, scenario: Scenario, payloads: Mapping[str, Payload], folder: str,
           result: outcomes.CaseResult, blocks: list[levels.Block],
           twin: list[dict[str, Any]] | None = None,
           observer: Callable[[Observation], None] | None = None) -> None:
    data = scenario.data
    times, first, ctx = open_case(session, scenario, folder)
    runs: dict[str, str] = {}
    done: list[StepOutcome] = []
    try:
        for index, (step, instant) in enumerate(zip(scenario.steps, times, strict=True)):
            done.append(_step(session, scenario, index, step, instant, ctx, payloads, runs))
            if session.trace is not None:
                session.trace.observed(index, session.send({"cmd": "observe", "now": timeline.spell(instant),
                                                            "env": _strings(data.get("env"), ctx), "want": ["log"]}))
    except _Unprinted as exc:
        session.send({"cmd": "close"})
        norm = Normalizer.build(runs, ctx.paths, ctx.user_paths, ctx.roots)
        if session.trace is not None:
            session.trace.finish(norm)
        result.steps = _reported(done, norm)
        miss = unprinted(exc.where, exc.cause, ctx, norm.text)
        result.outcome = outcomes.FAIL
        result.mismatches = [m.to_json() for m in [miss, *hooks_exit_zero(done)]]
        result.message = f"{miss.path}: {miss.message}"
        return
    every = [block.expect for block in blocks]
    want = ["votes", "log", "raw"] + (["stats"] if any("stats" in e for e in every) else []) + (
        ["ledger"] if any("ledger_file" in e for e in every) else []) + (
        ["credited"] if any(k in e for e in every for k in applicability.CREDIT_KEYS) else [])
    last = times[-1] if times else first
    observed = session.send({"cmd": "observe", "now": timeline.spell(last + dt.timedelta(seconds=1)),
                             "env": _strings(data.get("env"), ctx), "want": want})
    session.send({"cmd": "close"})
    norm = Normalizer.build(runs, ctx.paths, ctx.user_paths, ctx.roots)
    if session.trace is not None:
        session.trace.finish(norm)
    result.steps = _reported(done, norm)
    result.observed = {"votes": norm(observed.get("votes") or {}), "log": norm(observed.get("log") or []),
                       "stats": norm(observed.get("stats"))}
    if observed.get("credited") is not None:
        result.observed["credited"] = norm(observed.get("credited"))
    if observer is not None:
        observer(Observation(observed, done, ctx, norm))
    try:
        judged = judge_blocks(blocks, observed, done, ctx, norm, result.steps, twin)
    except SubstitutionError as exc:
        raise ScenarioError(f"in expect: {exc}") from exc
    outcomes.settle(result, judged, hooks_exit_zero(done))


def judge_blocks(blocks: list[levels.Block], observed: Mapping[str, Any], done: list[StepOutcome], ctx: Context,
                 norm: Normalizer, reported: list[dict[str, Any]] | None = None,
                 twin: list[dict[str, Any]] | None = None) -> list[tuple[levels.Block, list[Mismatch]]]:
    """Each block's mismatches, the spec and decision blocks read on meaning (``levels``)."""
    out = []
    for block in blocks:
        missed = evaluate(without_relations.without_key(block.expect), observed, done, ctx, norm,
                          lenient=block.level != levels.PROFILE, where=block.where, hooks=False)
        if twin is not None and reported is not None:
            missed += without_relations.judge(block.expect, reported, twin, block.where)
        # in the scenario's words: ``${path:…}`` and ``${r1.run}``, never one sandbox's paths
        out.append((block, [Mismatch(m.path, norm.text(m.message), norm(m.expected), norm(m.actual))
                            for m in missed]))
    return out


def _step(session: _Session, scenario: Scenario, index: int, step: Mapping[str, Any], instant: dt.datetime,
          ctx: Context, payloads: Mapping[str, Payload], runs: dict[str, str]) -> StepOutcome:
    """Run one step and remember what it printed for the steps and expectations after it."""
    action = action_of(step)
    if action is None:
        raise ScenarioError(f"step {index + 1} has no single action")
    now = timeline.spell(instant)
    if action == "write":  # the harness's own step: the tree is the sandbox's, not the implementation's
        try:
            tree_write.apply(ctx.roots.get("team"), _apply(ctx, dict(step["write"]), f"steps[{index}].write"),
                             instant)
        except tree_write.WriteError as exc:
            raise ScenarioError(f"step {index + 1}: {exc}") from exc
        return StepOutcome(index, action, None, now, 0, "", "")
    env = {**_strings(scenario.data.get("env"), ctx), **_strings(step.get("env"), ctx, f"steps[{index}].env")}
    answer = session.send(_message(action, step, now, env, ctx, payloads, f"steps[{index}]"))
    name = str(step["as"]) if step.get("as") else None
    outcome = StepOutcome(index, action, name, now, answer.get("exit"), str(answer.get("stdout", "")),
                          str(answer.get("stderr", "")))
    if action == "recall":
        found = RUN_ID.search(outcome.stdout)
        outcome.run = found.group(1) if found else None
        if outcome.run:
            runs[outcome.run] = name or f"step{index + 1}"
    if name:
        ctx.steps[name] = {"run": outcome.run, "output": outcome.stdout,
                           "silent": silent_step(action, step.get("check"))}
    return outcome


def _reported(done: list[StepOutcome], norm: Normalizer) -> list[dict[str, Any]]:
    return [{"index": s.index, "action": s.action, "name": s.name, "now": s.now, "exit": s.exit,
             "stdout": norm.text(s.stdout), "stderr": norm.text(s.stderr)} for s in done]


def _message(action: str, step: Mapping[str, Any], now: str, env: dict[str, str], ctx: Context,
             payloads: Mapping[str, Payload], where: str) -> dict[str, Any]:
    base: dict[str, Any] = {"cmd": action, "now": now}
    if action in STATE_STEPS:  # hold, release, spoil: what (and how) the driver acts on
        return {**base, **target(step, action)}
    base["env"] = env
    if step.get("repeat") is not None:
        base["repeat"] = int(step["repeat"])
    value = step[action]
    if action == "recall":
        return {**base, "query": str(_apply(ctx, str(value), f"{where}.recall")),
                "caller": _apply(ctx, step.get("caller"), f"{where}.caller"),
                "check": bool(step.get("check", False))}
    if action == "hook":
        payload = payloads.get(str(value))
        if payload is None:
            raise ScenarioError(f"hook {value}: no such payload")
        body = set_paths(payload.payload, _apply(ctx, dict(step.get("set") or {}), f"{where}.set"))
        body = unset_paths(body, [str(p) for p in step.get("unset") or []])
        return {**base, "agent": payload.agent, "event": str(step.get("event") or payload.event),
                "payload": body}
    options = _apply(ctx, dict(value or {}), f"{where}.{action}") if isinstance(value, Mapping) else {}
    if action == "stats":
        return {**base, "json": bool(options.get("json", False))}
    if action == "review":
        return {**base, "branch": str(options.get("branch", ""))}
    if action == "contribute":
        return {**base, "title": str(options.get("title", "")), "text": str(options.get("text", ""))}
    return base
