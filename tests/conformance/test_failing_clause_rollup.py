"""The failing-clause roll-up blames the clause of each case's first difference from the reference
(the explanation's ``why``), not every clause a failing case names: an implementation broken in
one rule is summarised by that rule first, in the terminal report, the JSON lines and the page."""

from __future__ import annotations

import io
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from conformance import cli
from conformance.corpus import read as corpus
from conformance.drivers.reference import ReferenceBackend, in_process
from conformance.reports import explain_text as report_explain
from conformance.reports import jsonl as report_jsonl
from conformance.running import outcomes, pool
from conformance.running.driver import LocalDriver

ROOT = Path(__file__).resolve().parents[2]
CASES = ("ADOPT-READ-TOOL",)
AGENT = "claude"


class DropsEvidence(ReferenceBackend):
    """The reference, except that every read it records is dropped from its recall log once the
    hook call is over, at the protocol's edge: the reducer of a later Stop finds no evidence."""

    def __init__(self) -> None:
        super().__init__(in_process)

    def do_start(self, message: dict[str, Any]) -> dict[str, Any]:
        answer = super().do_start(message)
        answer["implementation"] = {"name": "drops evidence", "version": "1"}
        answer["capabilities"].pop("profile", None)  # another implementation: held to the spec alone
        return answer

    def do_hook(self, message: dict[str, Any]) -> dict[str, Any]:
        answer = super().do_hook(message)
        from reference.team import config

        for scope in config.load(self._env(message)).scopes:
            path = Path(scope.log_path)
            if path.is_file():
                lines = path.read_text(encoding="utf-8").splitlines(True)
                path.write_text("".join(x for x in lines if not _evidence(x)), encoding="utf-8")
        return answer


def _evidence(line: str) -> bool:
    try:
        return json.loads(line).get("kind") == "evidence"
    except (ValueError, AttributeError):
        return False


@pytest.fixture(scope="module")
def results() -> list[outcomes.CaseResult]:
    loaded = corpus.load(ROOT)
    chosen = [s for s in loaded.scenarios if any(c in s.clauses for c in CASES) and AGENT in s.agents]
    driver = LocalDriver(DropsEvidence, "drops-evidence")
    try:
        return pool.run_all("drops-evidence", loaded, chosen, {}, 1, 60.0, driver)
    finally:
        driver.stop()


def test_a_driver_that_only_drops_evidence_is_summarised_as_evidence_line_first(results):
    failing = [r for r in results if r.outcome == outcomes.FAIL]
    assert len(failing) >= 5
    # counting every clause a failing case names puts another clause first
    cited = Counter(c for r in failing for c in dict.fromkeys(r.clauses))
    assert cited.most_common(1)[0][0] != "EVIDENCE-LINE"
    groups = report_explain.rollup(results)
    assert groups[0]["clause"] == "EVIDENCE-LINE" and groups[0]["seen"] == "evidence not recorded"
    assert len(groups[0]["cases"]) >= len(failing) - 1
    lines = report_explain.failing_clauses(results)
    assert lines[0] == "failing clauses:" and lines[1].startswith("  EVIDENCE-LINE: ")
    assert lines[1].endswith(": evidence not recorded")


def test_the_json_lines_carry_each_case_s_blame_and_the_roll_up(results, tmp_path):
    path = tmp_path / "r.jsonl"
    rerun = {r.id: f"teamai-conformance run --only {r.id}" for r in results}
    report_jsonl.write(path, {"kind": "header"}, results, report_jsonl.footer(results, "now", 1), rerun)
    _head, cases, foot = report_jsonl.read(path)
    blamed = [c for c in cases if c.get("blame")]
    assert blamed and all(c["outcome"] == outcomes.FAIL for c in blamed)
    assert Counter(c["blame"]["clause"] for c in blamed).most_common(1)[0][0] == "EVIDENCE-LINE"
    assert foot["failing_clauses"][0]["clause"] == "EVIDENCE-LINE"
    # a report read back gives the same roll-up as the run did
    assert report_explain.rollup(cases) == foot["failing_clauses"]
    out, err = io.StringIO(), io.StringIO()
    assert cli.main(["report", str(path)], out, err) == cli.EXIT_UNEXPECTED, err.getvalue()
    assert "  EVIDENCE-LINE: " in out.getvalue().split("failing clauses:\n", 1)[1].splitlines()[0]


# -- JUnit ------------------------------------------------------------------------------------
def test_a_junit_failure_carries_the_why_and_the_rerun_command(results):
    from conformance.reports import junit as report_junit

    rerun = {r.id: f"teamai-conformance run --only {r.id} --impl x" for r in results}
    root = report_junit.build(results, "x", rerun)
    failures = [(case, case.find("failure")) for case in root.iter("testcase") if case.find("failure") is not None]
    assert failures
    for case, failure in failures:
        assert "why: step " in failure.get("message") and "evidence not recorded" in failure.text
        assert failure.text.rstrip().endswith(f"rerun: teamai-conformance run --only {case.get('name')} --impl x")
        assert "blamed on EVIDENCE-" in failure.text
    suite = root.find("testsuite")
    props = {p.get("name"): p.get("value") for p in suite.find("properties")}
    assert set(props) == {"spec", "decisions", "profile"} and props["profile"] == "not checked"


def test_a_case_that_only_differs_on_a_decision_or_the_profile_is_not_a_junit_failure():
    from conformance.reports import junit as report_junit

    differs = outcomes.CaseResult(
        "c-dec", "t", "reducer", [], ["REF-X"], outcomes.PASS, "differs on REF-X",
        mismatches=[{"path": "decide.REF-X.votes.a", "message": "differs", "level": "decision", "decision": "REF-X"},
                    {"path": "profile.log_lines", "message": "3 lines, not 4", "level": "profile"}],
        held=["spec"], levels={"spec": "pass", "decisions": {"REF-X": "differ"}, "profile": "unchecked"})
    held = outcomes.CaseResult(
        "c-ref", "t", "reducer", [], ["REF-X"], outcomes.FAIL, "decide.REF-X.votes.a: differs",
        mismatches=[{"path": "decide.REF-X.votes.a", "message": "differs", "level": "decision", "decision": "REF-X"}],
        held=["spec", "decision", "profile"], levels={"spec": "pass", "decisions": {"REF-X": "differ"},
                                                      "profile": "pass"})
    root = report_junit.build([differs, held], "x", {"c-dec": "rerun c-dec", "c-ref": "rerun c-ref"})
    cases = {c.get("name"): c for c in root.iter("testcase")}
    assert cases["c-dec"].find("failure") is None and cases["c-dec"].find("error") is None
    props = {p.get("name"): p.get("value") for p in cases["c-dec"].find("properties")}
    assert props == {"spec": "pass", "differs-on": "REF-X", "profile": "unchecked"}
    out = cases["c-dec"].find("system-out").text
    assert "differs on decision REF-X (not held to it): decide.REF-X.votes.a" in out and "profile level" in out
    assert cases["c-ref"].find("failure") is not None  # the reference is held to its own decisions
    assert root.find("testsuite").get("failures") == "1"
