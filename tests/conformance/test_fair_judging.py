"""Judging an implementation fairly: expectations it lacks a need of are left out and named
(partly applicable), passes that an implementation doing nothing would also get are marked
vacuous, scope words are the driver's to name, and "unchanged by relations" is measured
against the same implementation without relations."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance import cli
from conformance.corpus import read as corpus
from conformance.corpus import selection, vacuity
from conformance.reports import jsonl as report_jsonl
from conformance.reports import terminal as report_terminal
from conformance.running import applicability, outcomes, pool
from conformance.running import without_relations as wr
from conformance.running.substitute import Context, SubstitutionError, is_known_form

LOG_AND_VOTES = """\
id: fx-log-and-votes
title: A recall counts its hit and writes a run line
clauses: [FX-RUN-RECORD]
provenance: derived
agents: []
team:
  learnings/redis-timeout.md: "---\\ntitle: Redis client times out under load\\n---\\nredis\\n"
steps:
  - recall: redis
    as: r1
expect:
  votes:
    redis-timeout: {recalled_count: 1}
  log_contains:
    - {kind: run, run: "${r1.run}"}
  log_absent:
    - {kind: claim}
"""

ONLY_LOG = """\
id: fx-only-log
title: A recall writes a run line (nothing but the log is checked)
clauses: [FX-RUN-RECORD]
provenance: derived
agents: []
team:
  learnings/redis-timeout.md: "---\\ntitle: Redis client times out under load\\n---\\nredis\\n"
steps:
  - recall: redis
    as: r1
expect:
  log_contains:
    - {kind: run, run: "${r1.run}"}
"""

ONLY_ZEROES = """\
id: fx-only-zeroes
title: A recall of nothing upvotes nothing
clauses: [FX-RUN-RECORD]
provenance: derived
agents: []
team:
  learnings/redis-timeout.md: "---\\ntitle: Redis client times out under load\\n---\\nredis\\n"
steps:
  - recall: kubernetes
    as: r1
expect:
  no_votes: [redis-timeout]
  log_contains:
    - {kind: run, run: "${r1.run}"}
  steps:
    r1: {exit: 0, output_matches: ['\\A(?![\\s\\S]*^Related:)']}
"""

WORDS = """\
id: fx-scope-words
title: A workspace hit is printed with the workspace's word
clauses: [FX-SHADOW]
provenance: derived
agents: []
team:
  learnings/redis-timeout.md: "---\\ntitle: Redis client times out under load\\n---\\nredis\\n"
steps:
  - recall: redis
    as: r1
expect:
  steps:
    r1:
      output_contains: ["[1/1] [learnings] Redis client times out under load [${label:workspace}]\\n"]
"""

CHECK = """\
id: fx-check-unchanged
title: recall --check answers the same with and without relations
clauses: [FX-RUN-RECORD]
provenance: derived
agents: []
team:
  learnings/redis-timeout.md: |
    ---
    title: Redis client times out under load
    related:
      SUPERSEDES: docs/redis.md
    ---
    redis, see [the doc](../docs/redis.md).
  docs/redis.md: "---\\ntitle: Redis\\n---\\nredis\\n"
steps:
  - recall: redis
    check: true
    as: k1
expect:
  steps:
    k1: {unchanged_without_relations: true}
"""


def _corpus(root: Path, scenario_writer, **files: str) -> corpus.Corpus:
    for name, text in files.items():
        scenario_writer(root, "recall", name, text)
    return corpus.load(root)


def _run(impl: str, loaded: corpus.Corpus, ids: list[str]) -> dict[str, outcomes.CaseResult]:
    return {r.id: r for r in pool.run_all(impl, loaded, selection.select(loaded, ids), {}, timeout=20.0)}


# -- partly applicable ------------------------------------------------------------------------
def test_a_driver_without_a_log_is_judged_on_the_rest_and_told_what_was_left_out(corpus_copy, fake,
                                                                                 scenario_writer):
    loaded = _corpus(corpus_copy, scenario_writer, a=LOG_AND_VOTES, b=ONLY_LOG)
    results = _run(fake("few"), loaded, ["fx-log-and-votes", "fx-only-log", "fx-designed-to-fail"])
    partly = results["fx-log-and-votes"]
    assert partly.outcome == outcomes.PASS and partly.partly
    assert partly.lacking == ["a recall log"]
    assert partly.skipped == ["expect.log_contains[0]", "expect.log_absent[0]"]
    line = partly.to_json()
    assert line["partly"] is True and line["skipped"] == partly.skipped
    nothing_left = results["fx-only-log"]
    assert nothing_left.outcome == outcomes.NOT_APPLICABLE and nothing_left.lacking == ["a recall log"]
    assert not nothing_left.partly
    # the rest still judges: a wrong count fails whatever the log
    assert results["fx-designed-to-fail"].outcome == outcomes.FAIL


def test_a_partly_applicable_case_still_fails_on_what_it_can_judge(corpus_copy, fake, scenario_writer):
    wrong = LOG_AND_VOTES.replace("fx-log-and-votes", "fx-log-and-wrong-votes").replace("recalled_count: 1",
                                                                                      "recalled_count: 3")
    loaded = _corpus(corpus_copy, scenario_writer, a=wrong)
    (result,) = _run(fake("few"), loaded, ["fx-log-and-wrong-votes"]).values()
    assert result.outcome == outcomes.FAIL and result.partly
    assert [m["path"] for m in result.mismatches] == ["expect.votes.redis-timeout.recalled_count"]
    block = "\n".join(report_terminal.failure_block(result, "rerun"))
    assert "partly applicable (no a recall log): left out expect.log_contains[0], expect.log_absent[0]" in block


def test_a_case_whose_steps_need_what_the_driver_lacks_is_not_applicable_as_a_whole(corpus_copy):
    loaded = corpus.load(corpus_copy)
    case = loaded.by_id()["fx-read-needs-hook"]
    plan = applicability.plan(case, loaded.payloads, {"commands": ["recall"], "agents": [], "log": True, "hold": []})
    assert not plan.applicable and plan.lacking == ["command hook", "agent claude"]


def test_stats_rows_are_an_expectation_need_unless_a_step_runs_stats(corpus_copy, scenario_writer):
    text = LOG_AND_VOTES.replace("fx-log-and-votes", "fx-stats-rows").replace(
        "  log_absent:\n    - {kind: claim}\n", "  stats: []\n")
    loaded = _corpus(corpus_copy, scenario_writer, a=text)
    case = loaded.by_id()["fx-stats-rows"]
    plan = applicability.plan(case, loaded.payloads, {"commands": ["recall"], "agents": [], "log": True, "hold": []})
    assert plan.applicable and plan.skipped == ["expect.stats"] and plan.lacking == ["command stats"]
    with_step = {**case.data, "steps": [*case.steps, {"stats": {}}]}
    ran = applicability.plan(corpus.Scenario(case.path, case.rel, case.area, with_step), loaded.payloads,
                             {"commands": ["recall"], "agents": [], "log": True, "hold": []})
    assert not ran.applicable and ran.lacking == ["command stats"]


def test_the_terminal_report_counts_partly_applicable_cases_by_need_and_outcome(corpus_copy, fake,
                                                                                 scenario_writer, tmp_path):
    _corpus(corpus_copy, scenario_writer, a=LOG_AND_VOTES, b=ONLY_LOG)
    out, err = io.StringIO(), io.StringIO()
    report = tmp_path / "few.jsonl"
    code = cli.main(["--corpus", str(corpus_copy), "run", "--impl", fake("few"), "--report", str(report)], out, err)
    assert code == cli.EXIT_UNEXPECTED, err.getvalue()  # fx-designed-to-fail fails
    text = out.getvalue()
    assert "partly applicable: 3 (without a recall log: 3), judged on the rest: pass 3" in text
    cases = {c["id"]: c for c in report_jsonl.read(report)[1]}
    assert cases["fx-log-and-votes"]["partly"] is True
    assert "partly" not in cases["fx-only-log"] and cases["fx-only-log"]["outcome"] == outcomes.NOT_APPLICABLE


# -- vacuous passes ---------------------------------------------------------------------------
def test_a_pass_on_zero_counters_absent_lines_and_no_related_lines_is_vacuous(corpus_copy, fake, scenario_writer):
    loaded = _corpus(corpus_copy, scenario_writer, z=ONLY_ZEROES, a=LOG_AND_VOTES)
    few = _run(fake("few"), loaded, ["fx-only-zeroes", "fx-log-and-votes"])
    assert few["fx-only-zeroes"].outcome == outcomes.PASS
    assert few["fx-only-zeroes"].vacuous.startswith("an implementation lacking the feature passes every check made")
    assert "expect.no_votes" in few["fx-only-zeroes"].vacuous
    assert few["fx-log-and-votes"].vacuous == ""  # recalled_count 1 would fail against nothing
    # the same case against a driver with a log: the run line is a positive check
    full = _run("reference", loaded, ["fx-only-zeroes"])
    assert full["fx-only-zeroes"].outcome == outcomes.PASS and full["fx-only-zeroes"].vacuous == ""


@pytest.mark.parametrize("expect, positive", [
    ({"votes": {"k": {"recalled_count": 0, "upvoted_count": 0}}}, []),
    ({"votes": {"k": {"upvoted_count": 1}}}, ["expect.votes.k"]),
    ({"votes": {"k": {"last_upvoted_at": ""}}}, []),
    ({"votes": {"k": {"last_recalled_at": "2026-11-30T10:00:00.000Z"}}}, ["expect.votes.k"]),
    ({"no_votes": ["k"], "log_absent": [{"kind": "claim"}], "never_in_state": ["q"]}, []),
    ({"log_lines": 0, "stats": []}, []),
    ({"log_lines": 2, "stats": [{"session": "s"}]}, ["expect.log_lines", "expect.stats"]),
    ({"steps": {"r1": {"exit": 0, "related": {"learnings/x": []}, "findings": []}}}, []),
    ({"steps": {"r1": {"exit": 1}}}, ["expect.steps.r1.exit"]),
    ({"steps": {"r1": {"related": {"learnings/x": ["→ SUPERSEDES y"]}}}}, ["expect.steps.r1.related.learnings/x"]),
    ({"steps": {"r1": {"output_matches": [r"\A(?![\s\S]*${r1.run})", "^Related:"]}}},
     ["expect.steps.r1.output_matches[1]"]),
    ({"steps": {"r1": {"output_contains": ["", "HIGH"]}}}, ["expect.steps.r1.output_contains[1]"]),
    ({"steps": {"k1": {"unchanged_without_relations": True}}}, []),
])
def test_a_check_is_positive_when_an_implementation_doing_nothing_fails_it(expect, positive):
    assert vacuity.positive(expect) == positive
    assert bool(vacuity.vacuous(expect)) == (not positive)


def test_the_recalls_that_set_an_attribution_case_up_are_not_its_feature():
    steps = [{"recall": "redis", "as": "r1"}, {"hook": "claude/post-tool-use-read"}, {"hook": "claude/stop"},
             {"recall": "redis", "as": "r2"}]
    expect = {"votes": {"k": {"recalled_count": 1, "upvoted_count": 0}},
              "steps": {"r1": {"output_contains": ["[1/1] "]}}}
    assert vacuity.positive(expect, steps) == []
    assert "recalls r1 only set the case up" in vacuity.vacuous(expect, steps)
    assert vacuity.positive(expect, steps[:1]) == ["expect.votes.k", "expect.steps.r1.output_contains[0]"]
    # a recall after the hooks can show what they did
    assert vacuity.positive({"steps": {"r2": {"output_contains": ["Related: "]}}}, steps) == [
        "expect.steps.r2.output_contains[0]"]
    assert vacuity.positive({"votes": {"k": {"upvoted_count": 1}}}, steps) == ["expect.votes.k"]


def test_the_recalls_beside_a_contribute_or_a_review_are_the_case_s_feature():
    # a contribute reads the tree, never what a recall left: the recalls' Related: lines are checked
    steps = [{"recall": "zebra", "as": "out"}, {"recall": "quokka", "as": "in"},
             {"contribute": {"title": "Zebra source", "text": "x"}, "as": "c1"}]
    expect = {"steps": {"out": {"exit": 0, "related": {"learnings/source": ["→ REFERENCES d"]}},
                        "c1": {"exit": 0, "findings": []}}}
    assert vacuity.set_up(steps) == set()
    assert vacuity.positive(expect, steps) == ["expect.steps.out.related.learnings/source"]
    assert vacuity.set_up([*steps, {"hook": "claude/stop"}]) == {"out", "in"}
    assert vacuity.positive({"votes": {"k": {"recalled_count": 1}}}, steps) == ["expect.votes.k"]


SEEDED = {"log": '{"kind":"run","ts":"2026-11-30T09:00:00.000Z","run":"r-1","session":"ses-1","docs":[]}\n'
                 '{"kind":"evidence","ts":"2026-11-30T09:01:00.000Z","session":"ses-1",'
                 '"path":"${path:learnings/k}","status":"failure"}\n'
                 'not json, a torn line ses-secret\n'}


def test_a_seeded_line_is_what_an_implementation_doing_nothing_keeps():
    steps = [{"pull": {}}]
    seeded_evidence = {"kind": "evidence", "session": "ses-1", "path": "${path:learnings/k}"}
    expect = {"no_votes": ["k"], "log_contains": [seeded_evidence], "not_credited": [{"key": "k"}]}
    assert vacuity.positive(expect, steps, SEEDED) == []
    assert "seeded" in vacuity.vacuous(expect, steps, SEEDED)
    # the same line with no given log was the implementation's own
    assert vacuity.positive(expect, steps) == ["expect.log_contains[0]"]
    # a line no seeded line matches, a seeded line that must go, a seeded text that must go
    new_line = {"kind": "evidence", "session": "ses-2"}
    assert vacuity.positive({"log_contains": [seeded_evidence, new_line]}, steps, SEEDED) == [
        "expect.log_contains[1]"]
    assert vacuity.positive({"log_absent": [new_line, {"kind": "run", "run": "r-1"}]}, steps, SEEDED) == [
        "expect.log_absent[1]"]
    assert vacuity.positive({"never_in_state": ["ses-nowhere", "ses-secret"]}, steps, SEEDED) == [
        "expect.never_in_state[1]"]
    assert vacuity.positive({"never_in_state": ["ses-secret"]}, steps) == []


@given(st.lists(st.sampled_from(["no_votes", "log_absent", "never_in_state"]), unique=True),
       st.integers(min_value=1, max_value=5))
def test_any_positive_counter_makes_a_case_say_something(negatives, count):
    expect = {key: ["x"] for key in negatives}
    assert vacuity.vacuous(expect)
    expect["votes"] = {"k": {"upvoted_count": count}}
    assert vacuity.vacuous(expect) == ""


# -- scope words ------------------------------------------------------------------------------
def test_a_driver_names_its_scope_words_in_open(corpus_copy, fake, scenario_writer):
    loaded = _corpus(corpus_copy, scenario_writer, w=WORDS)
    assert _run(fake("project-words"), loaded, ["fx-scope-words"])["fx-scope-words"].outcome == outcomes.PASS
    assert _run("reference", loaded, ["fx-scope-words"])["fx-scope-words"].outcome == outcomes.PASS
    # the same words hard-coded fail the driver that prints another one
    hard = WORDS.replace("fx-scope-words", "fx-scope-words-hard").replace("${label:workspace}", "workspace")
    loaded = _corpus(corpus_copy, scenario_writer, h=hard)
    assert _run(fake("project-words"), loaded, ["fx-scope-words-hard"])["fx-scope-words-hard"].outcome == outcomes.FAIL


def test_scope_words_default_to_the_scopes_own_names():
    ctx = Context()
    assert ctx.apply("[${label:workspace}] [${label:user}]") == "[workspace] [user]"
    ctx.labels.update({"workspace": "project"})
    assert ctx.apply("[${label:workspace}]") == "[project]"
    with pytest.raises(SubstitutionError, match="no such scope"):
        ctx.apply("${label:team}")
    assert is_known_form("label:workspace") and not is_known_form("label:team")


# -- unchanged without relations --------------------------------------------------------------
def test_unchanged_without_relations_compares_the_implementation_with_itself(corpus_copy, fake, scenario_writer):
    loaded = _corpus(corpus_copy, scenario_writer, c=CHECK)
    assert _run("reference", loaded, ["fx-check-unchanged"])["fx-check-unchanged"].outcome == outcomes.PASS
    leaky = _run(fake("check-related"), loaded, ["fx-check-unchanged"])["fx-check-unchanged"]
    assert leaky.outcome == outcomes.FAIL
    (miss,) = leaky.mismatches
    assert miss["path"] == "expect.steps.k1.unchanged_without_relations"
    assert "related: learnings/redis-timeout.md" in miss["actual"] and "related:" not in miss["expected"]


def test_taking_relations_out_keeps_everything_else():
    text = ("---\ntitle: A\nrelated:\n  SUPERSEDES: docs/b.md\n  REFERENCES:\n    - rules/c.md\ntags: [x]\n---\n"
            "See [b](../docs/b.md) and [the web](https://example.com/b).\n\n[c]: ../rules/c.md\n")
    assert wr.strip_text(text) == ("---\ntitle: A\ntags: [x]\n---\nSee b ../docs/b.md and [the web](https://example.com/b).\n\n")
    assert wr.strip_text("no frontmatter, [a link](x.md)") == "no frontmatter, a link x.md"


def test_the_scenario_schema_knows_the_new_keys(corpus_copy, scenario_writer):
    loaded = _corpus(corpus_copy, scenario_writer, c=CHECK)
    from conformance.corpus import lint

    assert [p for p in lint.lint(loaded) if "fx-check-unchanged" in p or "check" in p.lower()] == []
    data = json.loads((Path(cli.__file__).parent / "schemas" / "scenario.schema.json").read_text())
    assert "differential" in data["properties"]["provenance"]["enum"]


def test_a_pass_stands_only_on_the_blocks_that_held():
    from conformance.corpus import levels
    from conformance.running.case_runner import _held

    verdicts = {"spec": "pass", "decisions": {"D-A": "agree", "D-B": "differ"}, "profile": "unchecked"}
    assert _held(levels.Block(levels.SPEC, {"votes": {}}), verdicts)
    assert _held(levels.Block(levels.DECISION, {"votes": {}}, "D-A"), verdicts)
    assert not _held(levels.Block(levels.DECISION, {"votes": {}}, "D-B"), verdicts)  # its checks failed
    assert not _held(levels.Block(levels.PROFILE, {"log_lines": 2}), verdicts)
    assert _held(levels.Block(levels.PROFILE, {"log_lines": 2}), {**verdicts, "profile": "pass"})
