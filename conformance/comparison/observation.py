"""One case run against one driver with the state observed after every step, for comparing
two implementations (``teamai-conformance diff``).

A judged run (``case_runner``) observes once, at the end, because a scenario's ``expect`` is
about the end state. Comparing two implementations asks a different question: where do they
first part? So every step is followed by an ``observe`` at that step's instant (votes and log;
both read-only in every driver), and the end by one more that also asks for the stats rows.
Everything is normalized the way a judged run is (run ids as ``${name.run}``, sandbox paths as
``${path:…}``/``${root:…}``), and each implementation's scope words (``labels`` in ``open``)
are spelt as the reference's, so two sandboxes and two vocabularies compare equal where they
mean the same thing.
"""

from __future__ import annotations

import datetime as dt
import shutil
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..corpus import placement
from ..corpus.read import Payload, Scenario
from ..running import timeline
from ..running.applicability import steps_lacking
from ..running.case_runner import ScenarioError, _Session, _step, _strings, _Unprinted, open_case
from ..running.driver import Driver, DriverCrashed, DriverError, DriverTimeout
from ..running.expect import StepOutcome
from ..running.normalize import Normalizer
from ..running.protocol import ProtocolViolation
from ..running.substitute import DEFAULT_LABELS, SubstitutionError


@dataclass
class Observation:
    """What one implementation did in one case: each step's answer and the state after it."""

    implementation: str
    log_kept: bool                                               # the driver declared a recall log
    steps: list[dict[str, Any]] = field(default_factory=list)    # index, action, name, exit, stdout, check
    states: list[dict[str, Any]] = field(default_factory=list)   # after each step: votes, log
    final: dict[str, Any] = field(default_factory=dict)          # votes, log, stats
    lacking: list[str] = field(default_factory=list)             # the case's steps need what the driver lacks
    stopped: str = ""                                            # why the steps stopped early
    error: str = ""                                              # the driver or the scenario failed


def implementation(driver: Driver) -> str:
    info = driver.info.get("implementation") or {}
    return f"{info.get('name', '?')} {info.get('version', '?')}"


def observe(driver: Driver, scenario: Scenario, payloads: Mapping[str, Payload],
            timeout: float = 60.0) -> Observation:
    caps = driver.capabilities
    obs = Observation(implementation(driver), bool(caps.get("log")))
    obs.lacking = steps_lacking(scenario, payloads, caps)
    if obs.lacking:
        return obs
    folder = tempfile.mkdtemp(prefix="tc-")
    session = _Session(driver, time.monotonic() + timeout, timeout)
    try:
        _run(session, scenario, payloads, folder, obs)
    except (DriverTimeout, DriverCrashed, ProtocolViolation) as exc:
        obs.error = f"{type(exc).__name__}: {exc}"
        driver.restart()
    except DriverError as exc:
        obs.error = f"{session.last}: {exc}"
        session.close_quietly()
    except (ScenarioError, SubstitutionError, timeline.TimeError) as exc:
        obs.error = f"scenario: {exc}"
        session.close_quietly()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return obs


def _run(session: _Session, scenario: Scenario, payloads: Mapping[str, Payload], folder: str,
         obs: Observation) -> None:
    data = scenario.data
    times, first, ctx = open_case(session, scenario, folder)
    runs: dict[str, str] = {}
    done: list[StepOutcome] = []
    states: list[dict[str, Any]] = []
    env = _strings(data.get("env"), ctx)
    try:
        for index, (step, instant) in enumerate(zip(scenario.steps, times, strict=True)):
            done.append(_step(session, scenario, index, step, instant, ctx, payloads, runs))
            seen = session.send({"cmd": "observe", "now": timeline.spell(instant), "env": env, "want": ["votes", "log"]})
            states.append({"votes": seen.get("votes") or {}, "log": seen.get("log") or []})
    except _Unprinted as exc:
        obs.stopped = f"step {len(done) + 1} ({exc.where}) needs {exc.cause}"
    last = times[len(done) - 1] if done else first
    want = ["votes", "log"] + (["stats"] if "stats" in placement.every(scenario.data)
                               or any("stats" in s for s in scenario.steps)
                               else [])
    final = session.send({"cmd": "observe", "now": timeline.spell(last + dt.timedelta(seconds=1)), "env": env,
                          "want": want})
    session.send({"cmd": "close"})
    norm = Normalizer.build(runs, ctx.paths, ctx.user_paths, ctx.roots)
    words = _canonical_words(ctx.labels)
    for s in done:
        step = scenario.steps[s.index]
        obs.steps.append({"index": s.index, "action": s.action, "name": s.name or step.get("hook"), "exit": s.exit,
                          "check": bool(step.get("check")), "stdout": _words(norm.text(s.stdout), words),
                          "run_printed": bool(s.run) if s.action == "recall" else None})
    obs.states = [{"votes": norm(st["votes"]), "log": norm(st["log"])} for st in states]
    obs.final = {"votes": norm(final.get("votes") or {}), "log": norm(final.get("log") or [])}
    if "stats" in want:
        obs.final["stats"] = norm(final.get("stats"))


def _canonical_words(labels: Mapping[str, str]) -> list[tuple[str, str]]:
    return [(f"[{labels[scope]}]", f"[{word}]") for scope, word in DEFAULT_LABELS.items()
            if labels.get(scope, word) != word]


def _words(text: str, words: list[tuple[str, str]]) -> str:
    """Hit lines with the implementation's scope words spelt as the reference's."""
    if not words:
        return text
    out = []
    for line in text.split("\n"):
        for theirs, ours in words:
            if line.startswith("[") and line.endswith(theirs):
                line = line[: -len(theirs)] + ours
                break
        out.append(line)
    return "\n".join(out)


