"""The runner and its command line against the reference, on the fixture corpus."""

from __future__ import annotations

import io
import json
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from conformance import cli
from conformance.corpus import read as corpus
from conformance.implementations import connect
from conformance.reports import terminal as report_terminal
from conformance.running import expectations, outcomes, pool, timeline
from conformance.running.case_runner import run_case

CORPUS = Path(__file__).resolve().parent / "corpus"


def _main(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(["--corpus", str(CORPUS), *argv], out, err)
    return code, out.getvalue(), err.getvalue()


def test_run_reports_outcomes_tables_coverage_and_rerun():
    code, out, _ = _main("run")
    assert code == cli.EXIT_UNEXPECTED
    assert "totals: pass 3, fail 1" in out
    assert "untested clauses: FX-UNTESTED" in out and "clauses: 5/6 tested" in out
    assert "FAIL fx-designed-to-fail" in out and "clauses: FX-RUN-RECORD" in out
    assert "first difference at expect.votes.redis-timeout.recalled_count" in out
    assert "- expected: 2" in out and "+ actual:   1" in out
    assert f"rerun: teamai-conformance --corpus {CORPUS} run --only fx-designed-to-fail" in out
    assert "area " in out and "agent " in out and "claude" in out


def test_only_agent_and_usage_errors():
    assert _main("run", "--only", "fx-recall-prints-hit")[0] == cli.EXIT_OK
    assert _main("run", "--only", "FX-SHADOW")[0] == cli.EXIT_OK  # by clause
    assert _main("run", "--agent", "claude")[0] == cli.EXIT_OK
    assert _main("run", "--only", "no-such-case")[0] == cli.EXIT_USAGE
    assert _main("run", "--jobs", "0")[0] == cli.EXIT_USAGE
    assert _main("bogus")[0] == cli.EXIT_USAGE


def test_expectations_turn_failures_into_xfail_and_flag_xpass(tmp_path):
    exp = tmp_path / "exp.toml"
    code, out, _ = _main("run", "--expectations", str(exp), "--update-expectations")
    assert code == cli.EXIT_OK
    written = tomllib.loads(exp.read_text())
    assert list(written) == ["fx-designed-to-fail"] and written["fx-designed-to-fail"]["status"] == "fail"
    code, out, _ = _main("run", "--expectations", str(exp))
    assert code == cli.EXIT_OK and "xfail 1" in out
    exp.write_text(exp.read_text() + '\n[fx-recall-prints-hit]\nstatus = "fail"\nreason = "stale"\n'
                   '\n[fx-recall-user-scope-shadowed]\nstatus = "skip"\nreason = "slow"\n')
    code, out, _ = _main("run", "--expectations", str(exp))
    assert code == cli.EXIT_UNEXPECTED and "XPASS fx-recall-prints-hit" in out and "skip 1" in out
    _main("run", "--expectations", str(exp), "--update-expectations")
    assert "fx-recall-prints-hit" not in tomllib.loads(exp.read_text())


def test_bad_expectations_file_is_exit_3(tmp_path):
    exp = tmp_path / "exp.toml"
    exp.write_text('[fx-designed-to-fail]\nstatus = "maybe"\n')
    assert _main("run", "--expectations", str(exp))[0] == cli.EXIT_CORPUS


def test_json_lines_and_junit_reports(tmp_path):
    report, junit = tmp_path / "r.jsonl", tmp_path / "j.xml"
    _main("run", "--report", str(report), "--junit", str(junit))
    lines = [json.loads(x) for x in report.read_text().splitlines()]
    head, cases, foot = lines[0], lines[1:-1], lines[-1]
    assert head["kind"] == "header" and head["protocol"] == 1 and head["implementation"]["name"] == "teamai-ref"
    assert {c["id"]: c["outcome"] for c in cases}["fx-designed-to-fail"] == "fail"
    assert foot == {"kind": "footer", "totals": {"pass": 3, "fail": 1}, "finished": foot["finished"], "exit": 1,
                    "clauses": {"total": 6, "by_scenarios": 5, "unit_tests_only": [], "untested": ["FX-UNTESTED"]},
                    "levels": foot["levels"],
                    "failing_clauses": [{"clause": "FX-RUN-RECORD", "cases": ["fx-designed-to-fail"],
                                         "seen": "vote counter differs"}]}
    assert foot["levels"]["spec"] == {"pass": 3, "total": 4}
    assert {c["id"]: c.get("blame") for c in cases}["fx-designed-to-fail"] == {
        "clause": "FX-RUN-RECORD", "why": "expect.votes.redis-timeout.recalled_count: vote counter differs"}
    suites = ET.parse(junit).getroot()
    names = {tc.get("name"): tc for tc in suites.iter("testcase")}
    failure = names["fx-designed-to-fail"].find("failure")
    assert failure is not None and "why: every step left the same decisions" in failure.get("message")
    assert failure.text.rstrip().endswith(f"rerun: teamai-conformance --corpus {CORPUS} run --only fx-designed-to-fail")
    assert names["fx-recall-prints-hit"].find("failure") is None


def test_list_show_and_driver_listing():
    code, out, _ = _main("list", "--json")
    ids = [json.loads(x)["id"] for x in out.splitlines()]
    assert code == 0 and "fx-recall-prints-hit" in ids and len(ids) == 4
    code, out, _ = _main("show", "fx-read-needs-hook")
    assert code == 0 and "FX-ADOPT-READ: A read of a recalled doc adopts it." in out and "agents=['claude']" in out
    assert _main("show", "nope")[0] == cli.EXIT_USAGE


def test_two_jobs_give_the_same_outcomes_as_one():
    loaded = corpus.load(CORPUS)
    one = [(r.id, r.outcome) for r in pool.run_all("reference", loaded, loaded.scenarios, {}, jobs=1)]
    two = [(r.id, r.outcome) for r in pool.run_all("reference", loaded, loaded.scenarios, {}, jobs=2)]
    assert one == two


def _run_fixture(corpus_copy, impl, case_id, text):
    """Play one fixture case, written into a copy of the corpus, through ``impl``'s driver."""
    (corpus_copy / "scenarios" / "recall" / f"{case_id}.yaml").write_text(text)
    loaded = corpus.load(corpus_copy)
    driver = connect(impl)
    try:
        return run_case(driver, loaded.by_id()[case_id], loaded.payloads)
    finally:
        driver.stop()


HOLD = """id: fx-hold
title: A held ledger leaves the recall's count to the next writer and the run is still recorded
clauses: [FX-RUN-RECORD]
provenance: derived
agents: []
team:
  learnings/redis-timeout.md: "---\\ntitle: Redis timeout\\n---\\nredis\\n"
steps:
  - hold: votes-ledger
  - recall: redis
    as: r1
  - release: votes-ledger
  - recall: redis
    as: r2
expect:
  votes:
    redis-timeout: {recalled_count: 2, last_recalled_at: "2026-11-30T10:00:03.000Z"}
  log_contains:
    - {kind: run, run: "${r1.run}"}
  steps:
    r1: {exit: 0}
"""


@pytest.mark.parametrize("impl", ["reference", "reference-subprocess", "reference-cli"])
def test_hold_makes_the_ledger_busy_until_release(corpus_copy, impl):
    result = _run_fixture(corpus_copy, impl, "fx-hold", HOLD)
    assert result.outcome == outcomes.PASS, (result.message, result.mismatches)
    assert "busy" in result.steps[1]["stderr"]


SPOIL = """id: fx-spoil
title: A search index spoiled each way is rebuilt by the next recall, which says so once
clauses: [FX-RUN-RECORD]
provenance: derived
agents: []
team:
  learnings/redis-timeout.md: "---\\ntitle: Redis timeout\\n---\\nredis\\n"
steps:
  - recall: redis
  - spoil: {what: search-index, how: garbage}
  - recall: redis
    as: g
  - spoil: {what: search-index, how: truncated}
  - recall: redis
    as: t
  - spoil: {what: search-index, how: other-version}
  - recall: redis
    as: v
  - recall: redis
    as: r
expect:
  votes:
    redis-timeout: {recalled_count: 5}
profile:
  log_lines: 5
  steps:
    g: {stderr_matches: ['\\Ateamai-ref: warning: index .+ is corrupt \\(file is not a database\\); .+\\n\\Z']}
    t: {stderr_matches: ['\\Ateamai-ref: warning: index .+ is corrupt \\(database disk image is malformed\\); .+\\n\\Z']}
    v: {stderr_matches: ['\\Ateamai-ref: warning: index .+ was written by another version of teamai-ref; .+\\n\\Z']}
    r: {stderr_matches: ['\\A\\Z']}
"""


@pytest.mark.parametrize("impl", ["reference", "reference-subprocess", "reference-cli"])
def test_spoil_damages_the_index_and_the_reference_rebuilds_it(corpus_copy, impl):
    result = _run_fixture(corpus_copy, impl, "fx-spoil", SPOIL)
    assert result.outcome == outcomes.PASS, (result.message, result.mismatches)
    assert [s["action"] for s in result.steps].count("spoil") == 3


def test_times_reach_the_implementation():
    loaded = corpus.load(CORPUS)
    driver = connect("reference")
    result = run_case(driver, loaded.by_id()["fx-recall-user-scope-shadowed"], loaded.payloads)
    assert [s["now"] for s in result.steps] == ["2026-12-01T08:00:00.000Z", "2026-12-01T08:05:00.000Z"]
    assert result.observed and result.observed["log"][1]["ts"] == "2026-12-01T08:05:00.000Z"
    assert timeline.spell(timeline.parse_instant("2026-12-01T09:00:00+01:00")) == "2026-12-01T08:00:00.000Z"


def test_expectations_round_trip(tmp_path):
    path = tmp_path / "e.toml"
    entries = {"b": expectations.Expected("skip", "hangs"), "a": expectations.Expected("fail", 'has "quotes"')}
    expectations.save(path, entries)
    assert expectations.load(path) == entries
    assert expectations.load(tmp_path / "missing.toml") == {}


def _result(case_id: str, outcome: str) -> outcomes.CaseResult:
    return outcomes.CaseResult(case_id, "t", "recall", [], [], outcome)


def test_progress_off_a_terminal_is_a_line_every_few_seconds():
    now = [0.0]
    stream = io.StringIO()
    progress = report_terminal.Progress(stream, 5, every=5.0, clock=lambda: now[0])
    for t, outcome in [(1, "pass"), (2, "fail"), (6, "pass"), (7, "xfail"), (12.5, "crash")]:
        now[0] = t
        progress(_result(f"c{t}", outcome))
    progress.finish()
    assert stream.getvalue().splitlines() == [
        "teamai-conformance: 3/5 cases done, 1 unexpected so far (6 s)",
        "teamai-conformance: 5/5 cases done, 2 unexpected so far (12 s)",
    ]


def test_progress_on_a_terminal_rewrites_one_line():
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    stream = Tty()
    progress = report_terminal.Progress(stream, 2, every=5.0, clock=lambda: 0.0)
    progress(_result("a", "pass"))
    progress.finish()
    assert stream.getvalue() == "\r[1/2] pass 1 (a)\033[K\r\033[K"


def test_a_run_off_a_terminal_prints_progress_lines_to_stderr(monkeypatch):
    monkeypatch.setattr(report_terminal, "PROGRESS_EVERY", 0.0)
    code, out, err = _main("run")
    lines = err.splitlines()
    assert [line.split(" (")[0] for line in lines] == [
        f"teamai-conformance: {n}/4 cases done, {int(n >= 2)} unexpected so far" for n in (1, 2, 3, 4)]
    assert "cases done" not in out
