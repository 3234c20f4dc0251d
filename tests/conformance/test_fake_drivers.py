"""The runner against misbehaving drivers: each misbehaviour gets its own outcome, the driver is
restarted, and the cases after it still run."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from conformance import cli, implementations
from conformance.corpus import read as corpus
from conformance.corpus import selection
from conformance.running import driver, outcomes, pool

BOOM = """id: {id}
title: A recall the fake driver misbehaves on
clauses: [FX-RUN-RECORD]
provenance: derived
agents: []
team:
  learnings/boom.md: "---\\ntitle: boom\\n---\\nboom\\n"
steps:
  - recall: boom
    as: r1
expect:
  steps:
    r1: {{exit: 0}}
"""


def _with_boom(root: Path) -> corpus.Corpus:
    path = root / "scenarios" / "recall" / "aa-boom.yaml"
    path.write_text(BOOM.format(id="aa-boom"), encoding="utf-8")
    return corpus.load(root)


@pytest.mark.parametrize("directive, outcome", [("crash", outcomes.CRASH), ("hang", outcomes.TIMEOUT),
                                                ("chatter", outcomes.TIMEOUT),
                                                ("garbage", outcomes.ERROR), ("flood", outcomes.ERROR),
                                                ("deep", outcomes.ERROR)])
def test_misbehaviour_has_its_outcome_and_the_run_goes_on(corpus_copy, fake, directive, outcome):
    loaded = _with_boom(corpus_copy)
    chosen = selection.select(loaded, ["aa-boom", "fx-recall-prints-hit", "fx-designed-to-fail"])
    results = {r.id: r for r in pool.run_all(fake(directive), loaded, chosen, {}, timeout=3.0)}
    assert results["aa-boom"].outcome == outcome, results["aa-boom"].message
    assert results["fx-recall-prints-hit"].outcome == outcomes.PASS
    assert results["fx-designed-to-fail"].outcome == outcomes.FAIL


def test_crash_message_names_the_exit_and_the_last_words(corpus_copy, fake):
    loaded = _with_boom(corpus_copy)
    (result,) = pool.run_all(fake("crash"), loaded, selection.select(loaded, ["aa-boom"]), {}, timeout=5.0)
    assert "exit 3" in result.message
    assert result.message.endswith("stderr: fake driver: falling over on boom")


def test_a_driver_that_writes_to_stderr_without_end_costs_a_bounded_tail(corpus_copy, fake):
    """Before, its stderr went to a temporary file that kept every byte until the case timed out
    (gigabytes on the disk the harness's temporary files share)."""

    class Watched(driver.ProcessDriver):
        read = kept = 0

        def _keep_stderr(self) -> int:
            count = super()._keep_stderr()
            self.read += count
            self.kept = max(self.kept, len(self._stderr))
            return count

    loaded = _with_boom(corpus_copy)
    proc = Watched(fake("chatter").split())
    try:
        (result,) = pool.run_all(fake("chatter"), loaded, selection.select(loaded, ["aa-boom"]), {}, timeout=3.0,
                                 driver=proc)
    finally:
        proc.stop()
    assert result.outcome == outcomes.TIMEOUT
    assert "; stderr: " in result.message and "fake driver: still thinking\n" in result.message
    assert proc.read > 4 * driver.STDERR_KEPT  # it did write far more than is kept ...
    assert proc.kept == driver.STDERR_KEPT  # ... and only the last of it was kept


def test_an_answer_that_never_ends_its_line_is_cut_off_and_named(corpus_copy, fake):
    """Before, the harness kept every byte until the case's time ran out (gigabytes, then a
    timeout); now it stops at ``driver.MAX_ANSWER`` and says what the driver did."""
    loaded = _with_boom(corpus_copy)
    (result,) = pool.run_all(fake("flood"), loaded, selection.select(loaded, ["aa-boom"]), {}, timeout=60.0)
    assert result.outcome == outcomes.ERROR
    assert f"ran past {driver.MAX_ANSWER >> 20} MiB without ending its line" in result.message


def test_few_capabilities_make_cases_not_applicable_or_partly_applicable(corpus_copy, fake):
    loaded = corpus.load(corpus_copy)
    results = {r.id: r for r in pool.run_all(fake("few"), loaded, loaded.scenarios, {}, timeout=10.0)}
    needs_hook = results["fx-read-needs-hook"]
    assert needs_hook.outcome == outcomes.NOT_APPLICABLE
    assert "command hook" in needs_hook.message and "agent claude" in needs_hook.message
    # log expectations need a driver that records a log: without one they are left out, the rest judges
    hit = results["fx-recall-prints-hit"]
    assert hit.outcome == outcomes.PASS and hit.partly and hit.lacking == ["a recall log"]
    assert hit.skipped == ["expect.log_contains[0]", "expect.log_absent[0]"]
    assert results["fx-designed-to-fail"].outcome == outcomes.FAIL


def test_unknown_protocol_version_is_driver_unusable(corpus_copy, fake):
    with pytest.raises(driver.DriverUnusable, match="protocol 99"):
        implementations.connect(fake("bad-protocol"))
    err = io.StringIO()
    code = cli.main(["--corpus", str(corpus_copy), "run", "--impl", fake("bad-protocol")], io.StringIO(), err)
    assert code == cli.EXIT_DRIVER and "protocol 99" in err.getvalue()


def test_missing_program_is_driver_unusable(corpus_copy, fake, tmp_path):
    err = io.StringIO()
    code = cli.main(["--corpus", str(corpus_copy), "run", "--impl", str(tmp_path / "no-such-driver")],
                    io.StringIO(), err)
    assert code == cli.EXIT_DRIVER and "cannot start" in err.getvalue()


def test_report_of_a_crash_run_has_footer_and_rerun(corpus_copy, fake, tmp_path):
    _with_boom(corpus_copy)
    report = tmp_path / "r.jsonl"
    code = cli.main(["--corpus", str(corpus_copy), "run", "--impl", fake("crash"), "--only", "aa-boom",
                     "--report", str(report)], io.StringIO(), io.StringIO())
    assert code == cli.EXIT_UNEXPECTED
    lines = [json.loads(x) for x in report.read_text().splitlines()]
    assert lines[0]["kind"] == "header" and lines[-1]["kind"] == "footer"
    assert lines[1]["outcome"] == "crash" and "--only aa-boom" in lines[1]["rerun"]


ONLY_LOG = """id: aa-only-log
title: A recall writes a run line (only the log is checked)
clauses: [FX-RUN-RECORD]
provenance: derived
agents: []
team:
  learnings/x.md: "---\\ntitle: x\\n---\\nx\\n"
steps:
  - recall: x
    as: r1
expect:
  log_contains:
    - {kind: run, run: "${r1.run}"}
"""


def test_the_report_groups_not_applicable_cases_by_what_the_driver_lacked(corpus_copy, fake, tmp_path,
                                                                            scenario_writer):
    """PROTOCOL.md: the report says which need was missing; one line, grouped, counts adding up."""
    scenario_writer(corpus_copy, "recall", "aa-only-log", ONLY_LOG)
    report = tmp_path / "r.jsonl"
    out = io.StringIO()
    code = cli.main(["--corpus", str(corpus_copy), "run", "--impl", fake("few"), "--report", str(report)],
                    out, io.StringIO())
    assert code == cli.EXIT_UNEXPECTED  # fx-designed-to-fail still fails
    assert "not applicable: 2 (a recall log: 1; command hook + agent claude + a recall log: 1)" in out.getvalue()
    assert "partly applicable: 2 (without a recall log: 2), judged on the rest: pass 2" in out.getvalue()
    cases = {c["id"]: c for c in map(json.loads, report.read_text().splitlines()) if c["kind"] == "case"}
    assert cases["fx-read-needs-hook"]["lacking"] == ["command hook", "agent claude", "a recall log"]
    assert cases["fx-designed-to-fail"]["lacking"] == []


def test_no_not_applicable_line_when_every_case_applies():
    out = io.StringIO()
    cli.main(["--corpus", str(Path(__file__).resolve().parent / "corpus"), "run"], out, io.StringIO())
    assert "not applicable" not in out.getvalue()
