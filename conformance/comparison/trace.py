"""The observable state after every step of a case, for the implementation and for the reference.

A case that failed is run again with an ``observe`` (log only: the cheap one) after each step;
:class:`Trace` keeps those answers and, once the case is over, spells them in the scenario's
own words (run ids as ``${r1.run}``, paths as ``${path:…}``) with the case's normalizer, so two
implementations' traces of one scenario can be compared line by line.

The reference's trace is made the same way, in this process, by a backend that also asks
``teamai-ref replay`` about every hook payload it runs: those notes are the reference's
decisions in words, the ones a person reading a failure needs beside the lines.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..corpus.read import Payload, Scenario
from ..drivers.reference import ReferenceBackend, in_process
from ..running.normalize import Normalizer
from ..running.outcomes import CaseResult
from ..running.substitute import with_index


@dataclass
class StepState:
    index: int
    log: list[Any]
    votes: dict[str, Any]


@dataclass
class Trace:
    """Filled by ``case_runner.run_case(trace=…)``: one :class:`StepState` per step that ran."""

    steps: list[StepState] = field(default_factory=list)
    notes: dict[int, list[str]] = field(default_factory=dict)  # step index -> the reference's reasons
    norm: Normalizer | None = None
    _raw: list[tuple[int, dict[str, Any]]] = field(default_factory=list)

    def observed(self, index: int, answer: dict[str, Any]) -> None:
        self._raw.append((index, answer))

    def finish(self, norm: Normalizer) -> None:
        self.steps = [StepState(i, [norm(line) for line in a.get("log") or []], norm(a.get("votes") or {}))
                      for i, a in self._raw]
        self._raw = []
        self.norm = norm

    def at(self, index: int) -> StepState | None:
        return next((s for s in self.steps if s.index == index), None)


class NotingBackend(ReferenceBackend):
    """The in-process reference, noting for each hook call what ``teamai-ref replay`` says of it."""

    def __init__(self) -> None:
        super().__init__(in_process)
        self.hook_notes: list[list[str]] = []

    def do_open(self, message: dict[str, Any]) -> dict[str, Any]:
        self.hook_notes = []
        return super().do_open(message)

    def do_hook(self, message: dict[str, Any]) -> dict[str, Any]:
        answer = super().do_hook(message)
        self.hook_notes.append(self._replay(with_index(message, 1) if message.get("repeat") else message))
        return answer

    def _replay(self, message: Mapping[str, Any]) -> list[str]:
        folder = self._sandbox().root
        path = os.path.join(folder, f"replay-{len(self.hook_notes) + 1}.json")
        with open(path, "w", encoding="utf-8") as fh:
            json.dump(message["payload"], fh, ensure_ascii=False)
        code, out, err = self.run(["replay", "--tool", str(message["agent"]), "--event", str(message["event"]), path],
                                  self._env(message), b"", folder)
        os.remove(path)
        return replay_notes(out) if code == 0 else [f"replay could not explain it: {err.strip()[:300]}"]


def replay_notes(stdout: str) -> list[str]:
    """The decisions ``teamai-ref replay`` printed (its ``decisions:`` list, or its one-line verdict
    for an event that records nothing)."""
    notes: list[str] = []
    inside = False
    for line in stdout.splitlines():
        if line == "decisions:":
            inside = True
        elif inside and line.startswith("  - "):
            notes.append(line[4:])
        elif inside:
            inside = False
        elif line.startswith("event "):
            notes.append(line)
    return notes


_REFERENCE: dict[str, Any] = {}


def reference_trace(scenario: Scenario, payloads: Mapping[str, Payload], timeout: float
                    ) -> tuple[Trace, CaseResult]:
    """The reference's trace of ``scenario`` (run in this process) and its result."""
    from ..running.case_runner import run_case
    from ..running.driver import LocalDriver

    if "driver" not in _REFERENCE:
        _REFERENCE["backend"] = backend = NotingBackend()
        _REFERENCE["driver"] = LocalDriver(lambda: backend, "reference")
    trace = Trace()
    result = run_case(_REFERENCE["driver"], scenario, payloads, timeout, trace=trace)
    backend = _REFERENCE["backend"]
    hooks = [i for i, step in enumerate(scenario.steps) if "hook" in step]
    norm = trace.norm or Normalizer()
    for index, notes in zip(hooks, backend.hook_notes, strict=False):
        trace.notes[index] = [norm.text(n) for n in notes]
    return trace, result
