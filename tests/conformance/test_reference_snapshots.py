"""Golden snapshots of the reference: for every case of the project corpus, the exact text each
step printed and the observed state, with run ids, sandbox paths and stray instants redacted
(how a result is pinned: ``snapshots.py``), and the case's outcome as the reference's
expectations file says it (every case passes today).

This is the suite's one in-process run of the corpus: the scenarios are pytest items too
(``pytest scenarios``, the plugin), but the suite does not collect them, since this test asserts
what each of them asserts, and more.

One JSON file per case under ``__snapshots__/test_reference_snapshots/``. Accept a deliberate
change with ``pytest tests/conformance/test_reference_snapshots.py --snapshot-update`` (the whole
file, so the snapshot of a case that is gone is removed too).

The files are compared here rather than by a snapshot plugin: with one file per case, the plugin
we used matched every file against every test at the end of a run, which took minutes.
"""

from __future__ import annotations

from pathlib import Path

import project
import pytest
import snapshots

from conformance.corpus import lint
from conformance.implementations import connect
from conformance.reports.explain import explain_failure
from conformance.reports.terminal import failure_block
from conformance.running import expectations, outcomes
from conformance.running.case_runner import run_case

ROOT = Path(__file__).resolve().parents[2]
CORPUS = project.load()
CASES = [s for s in CORPUS.scenarios if not lint.blocking(s, CORPUS)]
EXPECTED = expectations.load(ROOT / "conformance" / "expectations" / "reference.toml")


@pytest.fixture(scope="module")
def reference():
    driver = connect("reference")
    yield driver
    driver.stop()


@pytest.fixture
def updating(request) -> bool:
    return bool(request.config.getoption("--snapshot-update"))


@pytest.mark.parametrize("scenario", CASES, ids=[s.id for s in CASES])
def test_reference_output_and_state(scenario, reference, updating):
    expected = EXPECTED.get(scenario.id)
    if expected is not None and expected.status == "skip":
        pytest.skip(expected.reason or "skipped by the expectations file")
    failing = expected is not None and expected.status == "fail"
    result = run_case(reference, scenario, CORPUS.payloads, explain=None if failing else explain_failure)
    got = snapshots.pinned_text(scenario, result)
    path = snapshots.path_of(scenario)
    if updating:
        if not path.is_file() or path.read_text(encoding="utf-8") != got:
            snapshots.SNAPSHOTS.mkdir(parents=True, exist_ok=True)
            path.write_text(got, encoding="utf-8")
    else:
        difference = snapshots.difference(scenario, got)
        assert not difference, difference
    if failing:
        assert result.outcome != outcomes.PASS, f"{scenario.id} passes; the expectations file says it fails"
    else:
        assert result.outcome == outcomes.PASS, "\n".join(failure_block(result, f"pytest scenarios -k {scenario.id}"))


def test_every_snapshot_belongs_to_a_case(updating):
    names = {snapshots.path_of(s).name for s in CASES}
    stale = sorted(p.name for p in snapshots.SNAPSHOTS.glob("*.json") if p.name not in names)
    if updating:
        for name in stale:
            (snapshots.SNAPSHOTS / name).unlink()
        return
    assert stale == [], "snapshots of cases that are gone (run this file with --snapshot-update)"
