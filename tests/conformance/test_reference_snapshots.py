"""Golden snapshots of the reference: for every case of the project corpus, the exact text each
step printed and the observed state, with run ids, sandbox paths and stray instants redacted.

One JSON file per case under ``__snapshots__/test_reference_snapshots/``. Accept a deliberate
change with ``pytest tests/conformance/test_reference_snapshots.py --snapshot-update`` (the whole
file, so the snapshot of a case that is gone is removed too).

The files are compared here rather than by a snapshot plugin: with one file per case, the plugin
we used matched every file against every test at the end of a run, which took minutes.
"""

from __future__ import annotations

import datetime as dt
import difflib
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from conformance import corpus, lint, redact, timeline
from conformance.case_runner import run_case
from conformance.driver import connect

ROOT = Path(__file__).resolve().parents[2]
CORPUS = corpus.load(ROOT)
CASES = [s for s in CORPUS.scenarios if not lint.blocking(s, CORPUS)]
LOG_PINNED_WHOLE = 500
LOG_ENDS = 10
SNAPSHOTS = Path(__file__).resolve().parent / "__snapshots__" / "test_reference_snapshots"
NAME = "test_reference_output_and_state[{}].json"


@pytest.fixture(scope="module")
def reference():
    driver = connect("reference")
    yield driver
    driver.stop()


@pytest.fixture
def updating(request) -> bool:
    return bool(request.config.getoption("--snapshot-update"))


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


def _text(value: Any, allowed: frozenset[str]) -> str:
    """A lone surrogate (a log line may escape one, for a file name that is not UTF-8) has no
    UTF-8 form: it is pinned as its JSON escape, so the snapshot file can be written and read."""
    text = json.dumps(_spelled(value, allowed), indent=2, ensure_ascii=False) + "\n"
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


@pytest.mark.parametrize("scenario", CASES, ids=[s.id for s in CASES])
def test_reference_output_and_state(scenario, reference, updating):
    result = run_case(reference, scenario, CORPUS.payloads)
    pinned = {"outcome": result.outcome,
              "steps": [{k: s[k] for k in ("action", "name", "now", "exit", "stdout", "stderr")} for s in result.steps],
              "observed": {**result.observed, "log": _bounded(result.observed.get("log") or [])}}
    got = _text(pinned, frozenset(_instants(scenario)))
    path = SNAPSHOTS / NAME.format(scenario.id)
    if updating:
        if not path.is_file() or path.read_text(encoding="utf-8") != got:
            SNAPSHOTS.mkdir(parents=True, exist_ok=True)
            path.write_text(got, encoding="utf-8")
        return
    assert path.is_file(), f"no snapshot for {scenario.id}: run this file with --snapshot-update"
    want = path.read_text(encoding="utf-8")
    assert got == want, "".join(difflib.unified_diff(want.splitlines(True), got.splitlines(True),
                                                     "snapshot", "this run", n=2))


def test_every_snapshot_belongs_to_a_case(updating):
    names = {NAME.format(s.id) for s in CASES}
    stale = sorted(p.name for p in SNAPSHOTS.glob("*.json") if p.name not in names)
    if updating:
        for name in stale:
            (SNAPSHOTS / name).unlink()
        return
    assert stale == [], "snapshots of cases that are gone (run this file with --snapshot-update)"
