"""A failure says why: the first step where the implementation's decisions parted from the
reference's, the chain behind a wrong vote, a diff for a missed output, the clauses that fail
rolled up, and a rerun line that reproduces the run.

Each broken implementation is the fake driver wrapping the reference with one decision wrong
(``fakes/fake_driver.py``); the report must name that decision at the step it was taken.
"""

from __future__ import annotations

import io
import json
import shlex
from pathlib import Path

import project
import pytest

from conformance import cli
from conformance.comparison import decisions
from conformance.reports import explain_text as report_explain
from conformance.running import outcomes, text_region

ROOT = Path(__file__).resolve().parents[2]


def _run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


def _cases(report: Path) -> dict[str, dict]:
    lines = [json.loads(x) for x in report.read_text(encoding="utf-8").splitlines()]
    return {x["id"]: x for x in lines if x["kind"] == "case"}


# case, broken decision, the step (1-based) and label, the decision's name, words the chain must hold
BROKEN = [
    ("drop-claims", "attr-claude-shell-recall-claims", 2, "hook claude/post-tool-use-shell-recall", "claim rejected",
     "in the implementation unsettled: no claim names it"),
    ("ignore-subagent-reads", "attr-claude-subagent-read-counts", 3, "hook claude/post-tool-use-read-subagent",
     "evidence not recorded", "the read: the implementation recorded no evidence for it"),
    ("window-23h", "reduce-window-at-24h", 4, "hook claude/stop", "read not credited",
     "the read came 24 h after the run: inside the 24 h window"),
    ("no-env", "attr-claude-read-counts", 1, 'recall "redis timeout" as r1', "run recorded differently",
     "in the implementation unsettled: no claim names it and its run line names no unambiguous session"),
]


@pytest.mark.parametrize("directive, case, step, label, decision, chain", BROKEN, ids=[b[0] for b in BROKEN])
def test_a_broken_driver_s_failure_names_the_first_differing_decision(fake, tmp_path, directive, case, step, label,
                                                                       decision, chain):
    report = tmp_path / "r.jsonl"
    code, out, _ = _run("run", "--impl", fake(directive), "--only", case, "--report", str(report))
    assert code == cli.EXIT_UNEXPECTED
    assert f"  why: step {step} [{label}]: {decision}" in out
    assert chain in out
    explanation = _cases(report)[case]["explanation"]
    assert explanation["reference"] == outcomes.PASS and explanation["replay"] == outcomes.FAIL
    first = explanation["first"]
    assert first["index"] == step - 1 and first["label"] == label
    assert first["decisions"][0]["decision"] == decision
    (votes,) = explanation["chains"]
    assert votes["path"] == "expect.votes.redis-timeout.upvoted_count" and chain in "\n".join(votes["lines"])


def test_the_reference_s_reasons_for_the_step_are_the_ones_replay_prints(fake, tmp_path):
    report = tmp_path / "r.jsonl"
    _run("run", "--impl", fake("drop-claims"), "--only", "attr-claude-shell-recall-claims", "--report", str(report))
    first = _cases(report)["attr-claude-shell-recall-claims"]["explanation"]["first"]
    # in the scenario's own words: the run id as the step that printed it
    assert first["notes"][:3] == ["tool 'Bash' is in the shell category", "the command invokes teamai recall",
                                  "claim: run ${r1.run}"]
    claim = first["decisions"][0]
    assert claim["reference"]["run"] == "${r1.run}" and claim["implementation"] is None


def test_without_a_log_only_votes_are_compared_and_the_report_says_so(fake, tmp_path):
    report = tmp_path / "r.jsonl"
    code, out, _ = _run("run", "--impl", fake("no-log,window-23h"), "--only", "reduce-window-at-24h",
                        "--report", str(report))
    assert code == cli.EXIT_UNEXPECTED
    explanation = _cases(report)["reduce-window-at-24h"]["explanation"]
    assert explanation["log_compared"] is False
    assert [d["decision"] for d in explanation["first"]["decisions"]] == ["vote not counted"]
    assert "why: step 4 [hook claude/stop]: vote not counted" in out
    assert "only votes were compared" in out
    assert explanation["chains"][0]["lines"][0] == ("redis-timeout.upvoted_count: in the reference step 4 "
                                                   "[hook claude/stop] raises it to 1; in the implementation never "
                                                   "raises it")


def test_a_vote_the_implementation_gives_wrongly_names_its_read_and_why_the_reference_leaves_it(fake, tmp_path):
    report = tmp_path / "r.jsonl"
    code, out, _ = _run("run", "--impl", fake("window-25h"), "--only", "reduce-window-past-24h", "--report",
                        str(report))
    assert code == cli.EXIT_UNEXPECTED
    explanation = _cases(report)["reduce-window-past-24h"]["explanation"]
    assert explanation["first"]["index"] == 3
    assert [d["decision"] for d in explanation["first"]["decisions"]] == [
        "read credited (the reference does not credit it)", "vote counted (the reference does not count it)"]
    (chain,) = explanation["chains"]
    assert chain["lines"][1:] == [
        "the implementation credits redis-timeout with the read of ${path:learnings/redis-timeout} by session ses-1 "
        "at 2026-12-01T10:00:01.000Z through run ${r1.run} (step 4 [hook claude/stop])",
        "  the reference records the read and leaves it pending: run ${r1.run} is settled by the claim of session "
        "ses-1 (step 2 [hook claude/post-tool-use-shell-recall]); the read came 24 h 1 s after the run: outside the "
        "24 h window"]
    assert "behind expect.votes.redis-timeout.upvoted_count:" in out


def test_when_the_reference_fails_too_the_explanation_says_so(tmp_path):
    corpus = Path(__file__).resolve().parent / "corpus"
    report = tmp_path / "r.jsonl"
    code, out, _ = _run("--corpus", str(corpus), "run", "--only", "fx-designed-to-fail", "--report", str(report))
    assert code == cli.EXIT_UNEXPECTED
    explanation = _cases(report)["fx-designed-to-fail"]["explanation"]
    assert "first" not in explanation and explanation["reference"] == outcomes.FAIL
    assert explanation["summary"] == ("every step left the same decisions and votes as the reference "
                                      "(the reference does not pass this case either: fail)")
    assert "why: every step left the same decisions" in out


def test_an_expected_failure_is_not_replayed(fake, tmp_path):
    expected = tmp_path / "exp.toml"
    expected.write_text('[reduce-window-at-24h]\nstatus = "fail"\nreason = "a 23 h window"\n', encoding="utf-8")
    report = tmp_path / "r.jsonl"
    code, _, _ = _run("run", "--impl", fake("window-23h"), "--only", "reduce-window-at-24h", "--expectations",
                      str(expected), "--report", str(report))
    assert code == cli.EXIT_OK
    case = _cases(report)["reduce-window-at-24h"]
    assert case["outcome"] == outcomes.XFAIL and "explanation" not in case


def test_failing_clauses_are_rolled_up_under_the_cases(fake):
    code, out, _ = _run("run", "--impl", fake("drop-claims"), "--only", "attr-claim-absolute-binary", "--only",
                        "attr-claim-after-cd", "--only", "attr-claim-npx", "--only", "attr-claude-read-counts")
    assert code == cli.EXIT_UNEXPECTED
    head, rollup = out.split("failing clauses:\n", 1)
    rollup_lines = rollup.split("\n\n", 1)[0].splitlines()
    # the broken rule is one line with every case under it, first; the case settled by its environment passes
    assert rollup_lines[0] == ("  CLAIM-PARSED-COMMAND: 3 cases (attr-claim-absolute-binary, attr-claim-after-cd, "
                               "attr-claim-npx): claim rejected")
    assert head.rindex("FAIL attr-claim-npx") < len(head)  # under the per-case list
    assert not any("ADOPT-READ-TOOL" in line for line in rollup_lines)


def test_the_roll_up_blames_each_failing_case_once_most_first():
    def result(case: str, outcome: str, *clauses: str, **extra) -> outcomes.CaseResult:
        return outcomes.CaseResult(case, "", "a", [], list(clauses), outcome, **extra)

    why = {"first": {"index": 1, "decisions": [{"kind": "evidence", "decision": "evidence not recorded"}]}}
    claim = {"first": {"index": 0, "decisions": [{"kind": "claim", "decision": "claim rejected"}]}}
    results = [result("a", outcomes.FAIL, "X", "Y", explanation=why), result("b", outcomes.CRASH, "Y"),
               result("c", outcomes.PASS, "Z"), result("d", outcomes.XFAIL, "Z"),
               result("e", outcomes.FAIL, "Y", "CLAIM-RUN-EXISTS", explanation=claim), result("f", outcomes.XPASS, "Z"),
               *(result(f"y{i}", outcomes.ERROR, "Y") for i in range(3)),
               result("g", outcomes.FAIL, "Y", mismatches=[{"path": "decide.D-1.votes", "message": "m",
                                                            "level": "decision", "decision": "D-1"}],
                      held=["spec", "decision", "profile"])]
    assert report_explain.failing_clauses(results) == [
        "failing clauses:", "  Y: 4 cases (b, y0, y1, y2): error", "  CLAIM-RUN-EXISTS: 1 case (e): claim rejected",
        "  D-1: 1 case (g): m", "  EVIDENCE-LINE: 1 case (a): evidence not recorded"]
    assert report_explain.failing_clauses(results[2:4]) == []


MISSED = """id: fx-output-missed
title: An output expectation that misses by one word
clauses: [FX-RUN-RECORD]
provenance: derived
agents: []
team:
  learnings/redis-timeout.md: |
    ---
    title: Redis client times out under load
    tags: [redis, timeout]
    ---
    The redis client's default socket timeout is 1s.
  learnings/unrelated.md: |
    ---
    title: Nothing to do with it
    ---
    redis unrelated words
steps:
  - recall: redis timeout
    as: r1
expect:
  steps:
    r1:
      output_contains: ["Title: Redis client times out under heavy load"]
"""


def test_a_missed_output_shows_a_diff_against_the_closest_lines_not_the_whole_output(corpus_copy, scenario_writer,
                                                                                     tmp_path):
    scenario_writer(corpus_copy, "recall", "fx-output-missed", MISSED)
    report = tmp_path / "r.jsonl"
    code, out, _ = _run("--corpus", str(corpus_copy), "run", "--only", "fx-output-missed", "--report", str(report))
    assert code == cli.EXIT_UNEXPECTED
    (mismatch,) = _cases(report)["fx-output-missed"]["mismatches"]
    stdout = _cases(report)["fx-output-missed"]["steps"][0]["stdout"]
    assert mismatch["actual"] in stdout.splitlines() and "times out under load" in mismatch["actual"]
    assert mismatch["message"].startswith("stdout does not contain it; the closest line ")
    assert "      -Title: Redis client times out under heavy load" in out
    assert f"      +{mismatch['actual']}" in out
    assert "Nothing to do with it" in stdout and "Nothing to do with it" not in out


@pytest.mark.parametrize("expected, text, region", [
    ("b2\nc3", "a1\nb2\nc3x\nd4", ("b2\nc3x", 2, 3)),
    ("zzz", "", ("", 0, 0)),
    ("one\ntwo\nthree", "two", ("two", 1, 1)),
    ("[1/2] Redis", "--- start\n[1/2] Redls\n[2/2] Other", ("[1/2] Redls", 2, 2)),
])
def test_the_closest_region(expected, text, region):
    assert text_region.closest(expected, text) == region


def test_the_rerun_line_reproduces_the_run_with_its_timeout_and_expectations(fake, tmp_path):
    expected = tmp_path / "exp.toml"
    expected.write_text('[attr-claude-read-counts]\nstatus = "fail"\nreason = "listed on purpose"\n', encoding="utf-8")
    report = tmp_path / "r.jsonl"
    code, _, _ = _run("run", "--impl", fake("window-23h"), "--only", "reduce-window-at-24h", "--only",
                      "attr-claude-read-counts", "--expectations", str(expected), "--timeout", "37", "--jobs", "2",
                      "--report", str(report))
    assert code == cli.EXIT_UNEXPECTED
    cases = _cases(report)
    rerun = cases["reduce-window-at-24h"]["rerun"]
    argv = shlex.split(rerun)
    assert argv[0] == "teamai-conformance" and "--jobs" not in argv
    assert argv[argv.index("--timeout") + 1] == "37" and argv[argv.index("--expectations") + 1] == str(expected)
    again = tmp_path / "again.jsonl"
    code2, _, _ = _run(*argv[1:], "--report", str(again))
    assert code2 == code and _cases(again)["reduce-window-at-24h"]["outcome"] == outcomes.FAIL
    code3, _, _ = _run(*shlex.split(cases["attr-claude-read-counts"]["rerun"])[1:], "--report", str(again))
    assert _cases(again)["attr-claude-read-counts"]["outcome"] == outcomes.XPASS and code3 == cli.EXIT_UNEXPECTED
    assert "--timeout" not in shlex.split(_rerun_default(tmp_path))


def _rerun_default(tmp_path: Path) -> str:
    report = tmp_path / "d.jsonl"
    _run("run", "--only", "attr-claude-read-counts", "--report", str(report))
    return _cases(report)["attr-claude-read-counts"]["rerun"]


def test_decisions_compare_what_a_line_decides_not_its_spelling():
    ref = {"kind": "evidence", "ts": "t", "session": "s", "agent": "claude", "actor": {}, "path": "p", "exact": True,
           "via": "read", "simple": True, "status": "success"}
    spelled = {**ref, "ts": "other", "extra": 1}
    assert decisions.compare_lines([ref], [dict(reversed(list(spelled.items())))], [], []) == []
    (changed,) = decisions.compare_lines([ref], [{**ref, "exact": False}], [], [])
    assert changed["decision"] == "evidence recorded differently" and changed["fields"] == ["exact"]
    (extra,) = decisions.compare_lines([], [{"kind": "claim", "run": "r", "session": "s"}], [], [])
    assert extra["decision"] == "claim accepted (the reference rejects it)"
    covered = {"kind": "consumed", "key": "k", "run": "r", "credited": False, "session": "s",
               "evidence": {"ts": "2026-11-30T10:00:00Z", "session": "s", "path": "p"}}
    (flip,) = decisions.compare_lines([{**covered, "credited": True}], [covered], [], [])
    assert flip["decision"] == "read covered, not credited"
    run = {"kind": "run", "run": "r", "ts": "2026-11-30T10:00:00Z"}
    assert decisions.window(run, "2026-12-01T10:00:01Z") == "the read came 24 h 1 s after the run: outside the 24 h window"
    assert decisions.window(run, "2026-11-30T09:59:00Z") == "the read came 1 min before the run: outside the 24 h window"
    assert decisions.window(None, "x") == "" and decisions.window(run, "not an instant") == ""
    assert decisions.delta([{"a": 1}, {"a": 1}], [{"a": 1}, {"a": 2}]) == ([{"a": 2}], [{"a": 1}])


def test_the_results_page_shows_the_explanation_in_the_drill_down(fake, tmp_path):
    import headless_chromium

    path, why = headless_chromium.find()
    if path is None:
        pytest.skip(f"the page's browser test needs headless Chromium: {why}")
    page = tmp_path / "page.html"
    code, _, _ = _run("run", "--impl", fake("drop-claims"), "--only", "attr-claude-shell-recall-claims", "--html",
                      str(page))
    assert code == cli.EXIT_UNEXPECTED
    with headless_chromium.Browser(path) as browser:
        browser.open(page)
        browser.js("document.querySelector('tr.case[data-case=\"attr-claude-shell-recall-claims\"]').click()")
        browser.js("window.caseShown")  # the drill-down is inflated the first time a case opens
        why = browser.js("document.querySelector('#case-dialog .why').innerText")
    assert "step 2 [hook claude/post-tool-use-shell-recall]: claim rejected" in why
    assert "reference: claim of ${r1.run} by session claude-ses-1" in why
    assert "the command invokes teamai recall" in why  # the reference's reasons
    assert "behind expect.votes.redis-timeout.upvoted_count" in why
    assert "in the implementation unsettled" in why


def test_a_run_id_never_printed_is_named_at_the_recall_that_did_not_print_it(tmp_path):
    """An implementation from before run ids: its recall prints none and records no run line."""
    from typing import Any

    from conformance.reports.explain import explain_failure
    from conformance.running import driver
    from conformance.running.case_runner import run_case

    def legacy(message: dict[str, Any]) -> dict[str, Any]:
        cmd, extra = message["cmd"], {}
        if cmd == "start":
            extra = {"protocol": 1, "implementation": {"name": "legacy", "version": "0"},
                     "capabilities": {"commands": ["recall", "hook"], "agents": ["claude"], "log": True, "hold": []}}
        elif cmd == "open":
            team = str(Path(message["sandbox"], "team"))
            extra = {"paths": {"learnings/redis-timeout": f"{team}/learnings/redis-timeout.md"}, "user_paths": {},
                     "roots": {"team": team, "learnings": [f"{team}/learnings"]}}
        elif cmd == "recall":
            extra = {"exit": 0, "stdout": "--- [teamai:recall:start] --- (1 result)\n", "stderr": ""}
        elif cmd == "hook":
            extra = {"exit": 0, "stdout": "", "stderr": ""}
        elif cmd == "observe":
            extra = {"votes": {}, "log": []}
        return {"seq": message["seq"], "ok": True, **extra}

    loaded = project.load()
    active = driver.LocalDriver(lambda: legacy, "legacy")
    result = run_case(active, loaded.by_id()["attr-claude-shell-recall-claims"], loaded.payloads,
                      explain=explain_failure)
    assert result.outcome == outcomes.FAIL
    first = result.explanation["first"]
    assert first["index"] == 0 and [d["decision"] for d in first["decisions"]] == [
        "run id not printed", "run not recorded", "recall not counted"]
    assert result.explanation["summary"].startswith('step 1 [recall "redis timeout" as r1]: run id not printed')


def test_an_output_failure_says_which_related_line_differs_in_the_scenario_s_words(fake, tmp_path):
    report = tmp_path / "r.jsonl"
    code, out, _ = _run("run", "--impl", fake("no-related"), "--only", "rel-arrow-out-learning-declares",
                        "--report", str(report))
    assert code == cli.EXIT_UNEXPECTED
    case = _cases(report)["rel-arrow-out-learning-declares"]
    explanation = case["explanation"]
    assert explanation["summary"] == 'step 1 [recall "zebra" as out]: Related: lines differ'
    assert explanation["first"]["decisions"][0]["words"] == [
        "under File: ${path:rules/zebra.md}", "reference only: Related: ← CONFLICTS_WITH ${path:learnings/quokka}"]
    (mismatch,) = case["mismatches"]
    assert mismatch["expected"] == ["← CONFLICTS_WITH ${path:learnings/quokka}"] and mismatch["actual"] == []
    block = out[out.index("FAIL rel-arrow-out-learning-declares"):]
    assert "every step left the same decisions" not in block and str(tmp_path) not in block
    assert "/tc-" not in block.split("  rerun:")[0]  # no sandbox path
