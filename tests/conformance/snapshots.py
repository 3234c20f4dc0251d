"""How a case's result is pinned as a golden snapshot of the reference: the exact text each step
printed and the observed state, with run ids, sandbox paths and stray instants redacted.

Shared by the snapshot test (the reference in-process against the files) and the protocol parity
test (the reference behind the protocol against the same files), so one file states what both
ways of running the reference must print.
"""

from __future__ import annotations

import datetime as dt
import difflib
import json
from collections import Counter
from pathlib import Path
from typing import Any

from conformance import redact
from conformance.corpus import read as corpus
from conformance.running import timeline

LOG_PINNED_WHOLE = 500
LOG_ENDS = 10
SNAPSHOTS = Path(__file__).resolve().parent / "__snapshots__" / "test_reference_snapshots"
NAME = "test_reference_output_and_state[{}].json"


def path_of(scenario: corpus.Scenario) -> Path:
    return SNAPSHOTS / NAME.format(scenario.id)


def _instants(scenario: corpus.Scenario) -> set[str]:
    times = timeline.instants(scenario.data)
    spelled = {timeline.spell(t) for t in times}
    if times:
        spelled.add(timeline.spell(times[-1] + dt.timedelta(seconds=1)))
    return spelled


def _bounded(log: list) -> list | dict:
    """A log of thousands of generated lines (``repeat``) is pinned by its size, its kinds and its
    two ends, so a snapshot file stays readable; shorter logs are pinned whole."""
    if len(log) <= LOG_PINNED_WHOLE:
        return log
    kinds = Counter(line.get("kind") if isinstance(line, dict) else None for line in log)
    return {"lines": len(log), "kinds": {str(k): n for k, n in sorted(kinds.items(), key=str)},
            "first": log[:LOG_ENDS], "last": log[-LOG_ENDS:]}


def _spelled(value: Any, allowed: frozenset[str]) -> Any:
    """The value as it is pinned: every string redacted, mappings in key order."""
    if isinstance(value, str):
        return redact.redact_text(value, allowed)
    if isinstance(value, dict):
        return {k: _spelled(value[k], allowed) for k in sorted(value) if isinstance(k, str)}
    if isinstance(value, list | tuple):
        return [_spelled(v, allowed) for v in value]
    return value


def pinned_text(scenario: corpus.Scenario, result: Any) -> str:
    """The snapshot file's text for this result. A lone surrogate (a log line may escape one, for a
    file name that is not UTF-8) has no UTF-8 form: it is pinned as its JSON escape, so the file
    can be written and read. A case that ended before it could observe (a timeout, an error) has
    no observed state: its text says so, and the difference shows its outcome and reason."""
    observed = result.observed
    pinned = {"outcome": result.outcome,
              "steps": [{k: s[k] for k in ("action", "name", "now", "exit", "stdout", "stderr")} for s in result.steps],
              "observed": {**observed, "log": _bounded(observed.get("log") or [])} if observed is not None
              else {"nothing observed": result.reason}}
    text = json.dumps(_spelled(pinned, frozenset(_instants(scenario))), indent=2, ensure_ascii=False) + "\n"
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def difference(scenario: corpus.Scenario, got: str) -> str:
    """Empty when ``got`` is the committed snapshot, else what differs, as a unified diff."""
    path = path_of(scenario)
    if not path.is_file():
        return f"no snapshot for {scenario.id}: run tests/conformance/test_reference_snapshots.py with --snapshot-update"
    want = path.read_text(encoding="utf-8")
    if got == want:
        return ""
    return "".join(difflib.unified_diff(want.splitlines(True), got.splitlines(True), "snapshot", "this run", n=2))
