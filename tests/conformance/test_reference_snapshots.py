"""Golden snapshots of the reference: for every case of the project corpus, the exact text each
step printed and the observed state, with run ids, sandbox paths and stray instants redacted.

One JSON file per case under ``__snapshots__/``. Accept a deliberate change with
``pytest tests/conformance/test_reference_snapshots.py --snapshot-update`` (on a full run, so
snapshots of removed cases are cleaned up).
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from pathlib import Path

import pytest
from syrupy.extensions.json import JSONSnapshotExtension

from conformance import corpus, lint, redact, timeline
from conformance.case_runner import run_case
from conformance.driver import connect

ROOT = Path(__file__).resolve().parents[2]
CORPUS = corpus.load(ROOT)
CASES = [s for s in CORPUS.scenarios if not lint.blocking(s, CORPUS)]
LOG_PINNED_WHOLE = 500
LOG_ENDS = 10


@pytest.fixture(scope="module")
def reference():
    driver = connect("reference")
    yield driver
    driver.stop()


@pytest.fixture
def snapshot_json(snapshot):
    return snapshot.use_extension(JSONSnapshotExtension)


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


@pytest.mark.parametrize("scenario", CASES, ids=[s.id for s in CASES])
def test_reference_output_and_state(scenario, reference, snapshot_json):
    result = run_case(reference, scenario, CORPUS.payloads)
    pinned = {"outcome": result.outcome,
              "steps": [{k: s[k] for k in ("action", "name", "now", "exit", "stdout", "stderr")} for s in result.steps],
              "observed": {**result.observed, "log": _bounded(result.observed.get("log") or [])}}
    assert snapshot_json(matcher=redact.matcher(_instants(scenario))) == pinned
