"""The example driver in Python (``conformance/drivers/examples/minimal_driver.py``), written
with ``driverkit`` alone, runs a slice of the corpus as a real child process: every case it can
run passes as it does against the reference, and every other case is not-applicable for what
the driver did not declare."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

from project import every_clause_once

from conformance import cli
from conformance.running import outcomes

ROOT = Path(__file__).resolve().parents[2]
DRIVER = ROOT / "conformance" / "drivers" / "examples" / "minimal_driver.py"
SLICE = [arg for case in every_clause_once("reducer", "stats") for arg in ("--only", case)]
UNDECLARED = {"command review", "command contribute", "hold votes-ledger", "hold recall-log", "repeat",
              "seed votes", "seed upvoted", "seed log", "seed checkpoint"}
SEEDS = {x for x in UNDECLARED if x.startswith("seed ")}


def _run(impl: str, report: Path) -> dict[str, dict]:
    code = cli.main(["run", "--impl", impl, *SLICE, "--report", str(report)], io.StringIO(), io.StringIO())
    assert code == cli.EXIT_OK
    lines = [json.loads(x) for x in report.read_text(encoding="utf-8").splitlines()]
    return {x["id"]: x for x in lines if x["kind"] == "case"}


def test_the_minimal_driver_passes_its_slice_as_the_reference_does(tmp_path):
    mine = _run(f"{sys.executable} {DRIVER}", tmp_path / "minimal.jsonl")
    reference = _run("reference", tmp_path / "reference.jsonl")
    assert mine.keys() == reference.keys() and len(mine) >= 15
    ran = [case for case, line in mine.items() if line["outcome"] != outcomes.NOT_APPLICABLE]
    # Cases that start from existing state are left out of the share: a driver that runs the
    # implementation as any program cannot know where it keeps its state before it has run.
    stateless = [case for case, line in mine.items() if not set(line.get("lacking") or ()) & SEEDS]
    assert len(ran) >= 0.8 * len(stateless)  # the slice is chosen so that most of it needs only what the driver declares
    assert {case: mine[case]["outcome"] for case in ran} == {case: reference[case]["outcome"] for case in ran}
    for case, line in mine.items():
        if line["outcome"] == outcomes.NOT_APPLICABLE:
            assert line["lacking"] and set(line["lacking"]) <= UNDECLARED, (case, line["lacking"])
    # What the driver was asked to observe, it observed as the reference did; what a case checks only
    # in its profile (stats rows, say) is asked of a driver that declares the profile alone.
    for case in ran:
        seen = {k: v for k, v in mine[case]["observed"].items() if v is not None}
        assert seen == {k: reference[case]["observed"][k] for k in seen}, case
        assert set(mine[case]["observed"]) == set(reference[case]["observed"]), case
