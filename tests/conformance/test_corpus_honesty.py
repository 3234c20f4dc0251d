"""The corpus cannot be passed by doing nothing: every case fails against an implementation that
does nothing, and every case that feeds the hook a tool call fails on a log line against the
reference with its hook off. One test per case, so an offender is named by its id; the checks
themselves are tested on the fixture corpus below."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import project
import pytest

from conformance import cli
from conformance.corpus import honesty, lint
from conformance.corpus import read as corpus
from conformance.drivers import hollow
from conformance.running import outcomes
from conformance.running.case_runner import run_case
from conformance.running.driver import ProcessDriver

ROOT = Path(__file__).resolve().parents[2]
CORPUS = project.load()
CASES = [s for s in CORPUS.scenarios if not lint.blocking(s, CORPUS)]
HOOK_FED = [s for s in CASES if honesty.feeds_the_hook(s, CORPUS.payloads)]


@pytest.fixture(scope="module")
def do_nothing():
    driver = hollow.connect("do-nothing")
    yield driver
    driver.stop()


@pytest.fixture(scope="module")
def hooks_off():
    driver = hollow.connect("hooks-off")
    yield driver
    driver.stop()


@pytest.mark.parametrize("scenario", CASES, ids=[s.id for s in CASES])
def test_no_case_passes_against_an_implementation_that_does_nothing(scenario, do_nothing):
    result = run_case(do_nothing, scenario, CORPUS.payloads)
    assert result.outcome in (outcomes.FAIL, outcomes.NOT_APPLICABLE), (
        f"{scenario.rel}: {result.outcome} against an implementation that does nothing; give it an "
        f"expectation such an implementation breaks. {result.message}")


@pytest.mark.parametrize("scenario", HOOK_FED, ids=[s.id for s in HOOK_FED])
def test_every_case_feeding_the_hook_fails_on_a_log_line_when_the_hook_records_nothing(scenario, hooks_off):
    result = run_case(hooks_off, scenario, CORPUS.payloads)
    assert honesty._blind(result) is None, f"{scenario.rel}: {honesty._blind(result)}"


def test_most_of_the_corpus_feeds_the_hook():
    assert len(HOOK_FED) > len(CASES) // 2


def test_every_no_vote_case_names_the_evidence_line_written_or_not():
    no_vote = [s for s in HOOK_FED if honesty.expects_no_vote(s)]
    assert len(no_vote) > 300
    assert [str(o) for o in honesty.silent_on_evidence(CORPUS, CASES)] == []


def test_every_case_passes_only_on_what_the_implementation_produced_or_is_an_accepted_absence():
    assert [str(o) for o in honesty.says_nothing(CASES)] == []
    listed = honesty.accepted()
    assert set(listed) <= {s.id for s in CORPUS.scenarios}
    assert all(listed.values())  # each with its reason


# --- the checks themselves, on the fixture corpus --------------------------------------------

WEAK = """id: {id}
title: A recall checked only for its exit status
clauses: [FX-RUN-RECORD]
provenance: derived
agents: []
team:
  learnings/weak.md: "---\\ntitle: weak\\n---\\nweak\\n"
steps:
  - recall: weak
    as: r1
expect:
  steps:
    r1: {{exit: 0}}
"""

NEVER = """id: {id}
title: A read that never counts, judged by votes alone
clauses: [FX-ADOPT-READ]
provenance: derived
agents: [claude]
team:
  learnings/redis-timeout.md: "---\\ntitle: Redis client times out under load\\n---\\nredis\\n"
steps:
  - recall: redis
    as: r1
    env: {{CLAUDE_CODE_SESSION_ID: ses-alice}}
  - hook: claude/post-tool-use-read
    set: {{session_id: ses-bob, tool_input.file_path: "${{path:learnings/redis-timeout}}"}}
expect:
  votes:
    redis-timeout: {{recalled_count: 1, upvoted_count: 0}}
{extra}"""


def _load(root: Path) -> corpus.Corpus:
    return corpus.load(root)


def test_a_case_checked_only_by_exit_zero_passes_against_nothing(corpus_copy, scenario_writer):
    scenario_writer(corpus_copy, "recall", "fx-weak", WEAK.format(id="fx-weak"))
    loaded = _load(corpus_copy)
    offenders = honesty.passes_against_nothing(loaded, loaded.scenarios)
    assert [o.id for o in offenders] == ["fx-weak"]
    assert "pass against an implementation that does nothing" in offenders[0].reason


def test_a_never_counts_case_without_a_log_line_is_blind_to_the_hook(corpus_copy, scenario_writer):
    scenario_writer(corpus_copy, "attribution", "fx-never", NEVER.format(id="fx-never", extra=""))
    scenario_writer(corpus_copy, "attribution", "fx-never-absent", NEVER.format(
        id="fx-never-absent", extra="  log_absent:\n    - {kind: evidence, session: ses-alice}\n"))
    scenario_writer(corpus_copy, "attribution", "fx-never-fixed", NEVER.format(
        id="fx-never-fixed", extra="  log_contains:\n    - {kind: evidence, session: ses-bob}\n"))
    loaded = _load(corpus_copy)
    offenders = {o.id: o for o in honesty.blind_to_the_hook(loaded, loaded.scenarios)}
    # recall runs for real there, so recalled_count holds and nothing else is checked
    assert set(offenders) == {"fx-never", "fx-never-absent"}
    assert "pass against hooks that record nothing" in offenders["fx-never"].reason
    assert "fx-read-needs-hook" not in offenders  # it expects the evidence line itself


def test_a_no_vote_case_without_an_evidence_line_is_named(corpus_copy, scenario_writer):
    scenario_writer(corpus_copy, "attribution", "fx-never-claim", NEVER.format(
        id="fx-never-claim", extra="  log_contains:\n    - {kind: run, session: ses-alice}\n"))
    scenario_writer(corpus_copy, "attribution", "fx-never-written", NEVER.format(
        id="fx-never-written", extra="  log_contains:\n    - {kind: evidence, session: ses-bob}\n"))
    scenario_writer(corpus_copy, "attribution", "fx-never-absent", NEVER.format(
        id="fx-never-absent", extra="  log_absent:\n    - {kind: evidence, session: ses-alice}\n"))
    loaded = _load(corpus_copy)
    offenders = honesty.silent_on_evidence(loaded, loaded.scenarios)
    assert [o.id for o in offenders] == ["fx-never-claim"]
    assert offenders[0].check == "evidence" and "names no evidence line" in offenders[0].reason
    out, err = io.StringIO(), io.StringIO()
    assert cli.main(["--corpus", str(corpus_copy), "honesty", "--only", "fx-never-claim"], out, err) == 1
    assert "[fx-never-claim] expects no upvote but names no evidence line" in err.getvalue()


POSITIVE = """id: fx-votes-only
title: A read that counts, judged by votes alone
clauses: [FX-ADOPT-READ]
provenance: derived
agents: [claude]
team:
  learnings/redis-timeout.md: "---\\ntitle: Redis client times out under load\\n---\\nredis\\n"
steps:
  - recall: redis
    as: r1
    env: {CLAUDE_CODE_SESSION_ID: ses-alice}
  - hook: claude/post-tool-use-read
    set: {session_id: ses-alice, tool_input.file_path: "${path:learnings/redis-timeout}"}
  - pull: {}
expect:
  votes:
    redis-timeout: {recalled_count: 1, upvoted_count: 1}
"""


def test_a_case_failing_only_on_votes_is_named_with_its_paths(corpus_copy, scenario_writer):
    scenario_writer(corpus_copy, "attribution", "fx-votes-only", POSITIVE)
    loaded = _load(corpus_copy)
    assert run_case(hollow.connect("hooks-off"), loaded.by_id()["fx-votes-only"],
                    loaded.payloads).outcome == outcomes.FAIL
    (offender,) = [o for o in honesty.blind_to_the_hook(loaded, loaded.scenarios) if o.id == "fx-votes-only"]
    assert "fails only on expect.votes.redis-timeout.upvoted_count" in offender.reason


def test_the_honesty_command_lists_offenders_and_exits_1(corpus_copy, scenario_writer):
    scenario_writer(corpus_copy, "recall", "fx-weak", WEAK.format(id="fx-weak"))
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(["--corpus", str(corpus_copy), "honesty"], out, err)
    assert code == 1
    assert "scenarios/recall/fx-weak.yaml: [fx-weak]" in err.getvalue()
    out, err = io.StringIO(), io.StringIO()
    assert cli.main(["--corpus", str(corpus_copy), "honesty", "--only", "fx-read-needs-hook"], out, err) == 0, \
        err.getvalue()
    assert "all 1 cases fail" in out.getvalue()


def test_the_hollow_implementations_speak_the_protocol(corpus_copy):
    loaded = _load(corpus_copy)
    driver = ProcessDriver([sys.executable, "-m", "conformance.drivers.hollow", "do-nothing"], cwd=str(ROOT))
    try:
        caps = driver.capabilities
        assert set(caps["commands"]) == {"recall", "hook", "pull", "stats", "review", "contribute"}
        assert caps["log"] is True and caps["repeat"] is True and caps["hold"] == ["votes-ledger", "recall-log", "search-index"]
        assert caps["spoil"] == ["search-index"]
        assert len(caps["agents"]) == 10
        result = run_case(driver, loaded.by_id()["fx-recall-prints-hit"], loaded.payloads)
        assert result.outcome == outcomes.FAIL
        assert all(step["stdout"] == "" and step["exit"] == 0 for step in result.steps)
        assert result.observed == {"votes": {}, "log": [], "stats": []}
    finally:
        driver.stop()


def test_hooks_off_runs_recall_for_real_and_records_no_hook_line(corpus_copy):
    loaded = _load(corpus_copy)
    driver = hollow.connect("hooks-off")
    try:
        result = run_case(driver, loaded.by_id()["fx-read-needs-hook"], loaded.payloads)
    finally:
        driver.stop()
    assert result.outcome == outcomes.FAIL
    kinds = [line["kind"] for line in result.observed["log"]]
    assert kinds == ["run"]
    assert [m["path"] for m in result.mismatches] == ["expect.log_contains[0]"]


def test_an_unknown_hollow_kind_is_refused():
    with pytest.raises(ValueError):
        hollow.connect("does-everything")
    assert hollow.main(["does-everything"]) == 2


SEEDED = """id: {id}
title: A logged read that failed never counts
clauses: [FX-ADOPT-READ]
provenance: derived
agents: []
team:
  learnings/redis-timeout.md: "---\\ntitle: Redis client times out under load\\n---\\nredis\\n"
given:
  log: |
    {{"kind":"run","ts":"2026-11-30T09:00:00.000Z","run":"r-1","session":"ses-1","docs":[{{"key":"redis-timeout","path":"${{path:learnings/redis-timeout}}"}}]}}
    {{"kind":"evidence","ts":"2026-11-30T09:01:00.000Z","session":"ses-1","path":"${{path:learnings/redis-timeout}}","status":"failure"}}
steps:
  - pull: {{}}
expect:
  no_votes: [redis-timeout]
  log_contains:
    - {{kind: evidence, session: ses-1, path: "${{path:learnings/redis-timeout}}"}}
{extra}"""


def test_a_no_vote_case_that_names_only_its_seeded_line_says_nothing(corpus_copy, scenario_writer):
    scenario_writer(corpus_copy, "reducer", "fx-seeded", SEEDED.format(id="fx-seeded", extra=""))
    scenario_writer(corpus_copy, "reducer", "fx-seeded-control", SEEDED.format(
        id="fx-seeded-control", extra="  votes:\n    kafka-lag: {upvoted_count: 1}\n"))
    scenario_writer(corpus_copy, "reducer", "fx-seeded-dropped", SEEDED.format(
        id="fx-seeded-dropped", extra="  log_absent:\n    - {kind: run, run: r-1}\n"))
    loaded = _load(corpus_copy)
    chosen = [s for s in loaded.scenarios if s.id.startswith("fx-seeded")]
    offenders = honesty.says_nothing(chosen, {})
    assert [o.id for o in offenders] == ["fx-seeded"]
    assert "seeded" in offenders[0].reason
    # listed with a reason, it is accepted; a listed case with a positive check is named
    assert honesty.says_nothing(chosen, {"fx-seeded": "an absence"}) == []
    stale = honesty.says_nothing(chosen, {"fx-seeded": "an absence", "fx-seeded-control": "an absence"})
    assert [(o.id, "drop the entry" in o.reason) for o in stale] == [("fx-seeded-control", True)]


def test_a_hook_blind_case_is_told_by_its_log_lines_in_any_block():
    def failed(*paths: str, profile_only: bool = False) -> outcomes.CaseResult:
        result = outcomes.CaseResult("fx", "t", "a", [], [], outcomes.FAIL)
        result.mismatches = [{"path": p} for p in paths]
        result.levels = {"spec": "none" if profile_only else "fail", "decisions": {}}
        return result

    assert honesty._blind(failed("decide.REF-X.log_contains[0]", "expect.votes.k.upvoted_count")) is None
    # the profile's log lines speak for a case only when it has nothing else: others are judged on more
    assert honesty._blind(failed("profile.log_contains[1]", profile_only=True)) is None
    assert "fails only on profile.log_contains[1]" in honesty._blind(failed("profile.log_contains[1]"))
    assert honesty._blind(failed("expect.log_contains[0]")) is None
    assert "fails only on expect.votes.k.upvoted_count" in honesty._blind(failed("expect.votes.k.upvoted_count"))
    assert honesty._blind(failed("decide.REF-X.log_absent[0]"))
