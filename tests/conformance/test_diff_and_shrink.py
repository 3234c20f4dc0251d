"""``diff`` (two implementations, where they part, grouped by clause and kind, candidates written
out) and ``shrink`` (a failing case cut down to the smallest scenario that fails the same way and
still passes against the reference), against fake drivers that differ on purpose."""

from __future__ import annotations

import io
import json
import re
import shutil
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance import cli
from conformance.comparison import differential, shrink
from conformance.corpus import lint, placement, scenario_file, selection
from conformance.corpus import read as corpus
from conformance.implementations import connect
from conformance.running import outcomes, pool

RELATED = """\
id: fx-related-lines
title: A recalled learning prints the relation it declares
clauses: [FX-RUN-ID]
provenance: derived
agents: []
team:
  learnings/redis-timeout.md: |
    ---
    title: Redis client times out under load
    related:
      SUPERSEDES: docs/redis.md
    ---
    redis timeout
  docs/redis.md: "---\\ntitle: Redis guide\\n---\\nhow to run redis\\n"
steps:
  - recall: redis timeout
    as: r1
expect:
  steps:
    r1:
      related:
        learnings/redis-timeout: ["→ SUPERSEDES ${path:docs/redis.md}"]
"""

STOP = """\
id: fx-stop-credits
title: A Read and then the Stop of the same session upvote the recalled doc
clauses: [FX-ADOPT-READ]
provenance: derived
agents: [claude]
team:
  learnings/redis-timeout.md: |
    ---
    title: Redis client times out under load
    tags: [redis, timeout]
    ---
    The redis client's default socket timeout is 1s.
    Raise it to 5s under load.
    Watch the p99 latency after the change.
  learnings/kafka-lag.md: "---\\ntitle: Kafka consumer lag\\n---\\nkafka consumers fall behind on few partitions\\n"
  rules/payments.md: "Every payment goes through ledger receipts.\\n"
  docs/redis-guide.md: "---\\ntitle: Redis guide\\n---\\nhow to run redis\\n"
env: {TEAMAI_LOCK_WAIT: "5"}
steps:
  - recall: redis timeout under load
    as: r1
    env: {CLAUDE_CODE_SESSION_ID: ses-bob}
  - recall: kafka lag
    as: r2
  - hook: claude/post-tool-use-read
    set: {session_id: ses-bob, cwd: "${root:team}", tool_input.file_path: "${path:learnings/redis-timeout}"}
  - hook: claude/post-tool-use-read
    set: {session_id: ses-eve, tool_input.file_path: "${path:learnings/kafka-lag}"}
  - hook: claude/stop
    set: {session_id: ses-bob}
expect:
  votes:
    redis-timeout: {recalled_count: 1, upvoted_count: 1}
    kafka-lag: {recalled_count: 1}
  no_votes: [payments]
  steps:
    r1: {exit: 0}
    r2: {exit: 0}
"""


ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def loaded(corpus_copy: Path, scenario_writer) -> corpus.Corpus:
    shutil.copy(ROOT / "payloads" / "claude" / "stop.json", corpus_copy / "payloads" / "claude" / "stop.json")
    scenario_writer(corpus_copy, "recall", "related-lines", RELATED)
    scenario_writer(corpus_copy, "attribution", "stop-credits", STOP)
    return corpus.load(corpus_copy)


def _main(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return cli.main(list(argv), out, err), out.getvalue(), err.getvalue()


def _diff(root: Path, b: str, *only: str, extra: tuple[str, ...] = ()) -> tuple[int, list[dict], str]:
    args = ["--corpus", str(root), "diff", "--impl", "reference", "--impl", b, "--json", *extra]
    for case in only:
        args += ["--only", case]
    code, out, err = _main(*args)
    return code, [json.loads(line) for line in out.splitlines()], err


# -- diff -------------------------------------------------------------------------------------
def test_diff_finds_the_votes_and_log_lines_a_broken_stop_never_writes(loaded, fake):
    code, cases, err = _diff(loaded.root, fake("no-stop"), "fx-stop-credits", "fx-recall-prints-hit")
    assert code == 1, err
    by_id = {c["id"]: c for c in cases}
    assert by_id["fx-recall-prints-hit"]["status"] == "agree"
    stop = by_id["fx-stop-credits"]
    assert stop["status"] == "differ" and stop["clauses"] == ["FX-ADOPT-READ"]
    kinds = {d["kind"]: d for d in stop["differences"]}
    assert set(kinds) == {"votes", "log lines"}
    votes = kinds["votes"]
    assert votes["step"] == 4  # the Stop, the fifth step: the state is the same up to it
    assert (votes["path"], votes["a"], votes["b"]) == ("votes.redis-timeout.upvoted_count", 1, 0)
    assert kinds["log lines"]["step"] == 4


def test_diff_groups_by_clause_and_kind_in_words(loaded, fake):
    code, out, err = _main("--corpus", str(loaded.root), "diff", "--impl", "reference", "--impl", fake("no-related"),
                           "--only", "fx-related-lines", "--only", "fx-stop-credits")
    assert code == 1, err
    assert "differ: 1, agree: 1, not compared: 0" in out
    assert "by kind:\n  Related lines (1): fx-related-lines" in out
    assert "by clause:\n  FX-RUN-ID (1): fx-related-lines [Related lines]" in out
    assert "    Related lines, from step 1 (recall r1): steps[0].related[${path:learnings/redis-timeout}]" in out
    assert '      A: ["→ SUPERSEDES ${path:docs/redis.md}"]' in out and "      B: []" in out


def test_diff_of_one_implementation_through_two_drivers_agrees(loaded):
    code, cases, err = _diff(loaded.root, "reference-subprocess", "fx-stop-credits", "fx-related-lines")
    assert code == 0, err
    assert [c["status"] for c in cases] == ["agree", "agree"]


def test_diff_says_what_it_could_not_compare(loaded, fake):
    code, cases, _ = _diff(loaded.root, fake("few"), "fx-stop-credits", "fx-related-lines")
    by_id = {c["id"]: c for c in cases}
    assert by_id["fx-stop-credits"]["status"] == "not compared"
    assert by_id["fx-stop-credits"]["not_compared"]["case"] == "B lacks command hook, agent claude"
    assert by_id["fx-related-lines"]["not_compared"]["log lines"].startswith("keeps no recall log")
    _, out, _ = _main("--corpus", str(loaded.root), "diff", "--impl", "reference", "--impl", fake("few"),
                      "--only", "fx-stop-credits")
    assert "not compared:\n  fx-stop-credits: B lacks command hook, agent claude" in out


def test_diff_needs_two_implementations(loaded):
    code, _, err = _main("--corpus", str(loaded.root), "diff", "--impl", "reference")
    assert code == 2 and "--impl twice" in err


def test_a_disagreement_is_written_as_a_candidate_that_pins_the_first_side(loaded, fake, tmp_path):
    out_dir = tmp_path / "candidates"
    code, _, err = _diff(loaded.root, fake("no-stop"), "fx-stop-credits", extra=("--write-candidates", str(out_dir)))
    assert code == 1 and "1 candidate scenario(s) written" in err
    (path,) = out_dir.glob("*.yaml")
    data = corpus.load_yaml(path.read_text(encoding="utf-8"))
    assert data["id"] == "fx-stop-credits-differential" and data["provenance"] == "differential"
    # the credit the first side made is pinned at spec level; its own mark of it is its profile
    assert data["expect"] == {"votes": {"redis-timeout": {"recalled_count": 1, "upvoted_count": 1}},
                              "credited": [{"session": "ses-bob", "key": "redis-timeout",
                                            "path": "${path:learnings/redis-timeout}"}]}
    assert [line["kind"] for line in data["profile"]["log_contains"]] == ["consumed"]
    assert data["observations"]["case"] == "fx-stop-credits"
    assert data["observations"]["a"]["final"]["votes"]["redis-timeout"]["upvoted_count"] == 1
    assert data["observations"]["b"]["final"]["votes"]["redis-timeout"]["upvoted_count"] == 0
    assert {d["kind"] for d in data["observations"]["differences"]} == {"votes", "log lines"}
    # a valid scenario: moved into the corpus it lints, passes against A and fails against B
    dest = loaded.root / "scenarios" / "attribution" / path.name
    dest.write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    again = corpus.load(loaded.root)
    assert [p for p in lint.lint(again) if path.name in p] == []
    chosen = selection.select(again, [data["id"]])
    assert pool.run_all("reference", again, chosen, {})[0].outcome == outcomes.PASS
    assert pool.run_all(fake("no-stop"), again, chosen, {}, timeout=20.0)[0].outcome == outcomes.FAIL


def test_hit_lists_leave_out_scores_and_decoration():
    one = "--- [teamai:recall:start] --- (1 result) run=${r1.run}\n\n[1/1] [learnings] A [workspace]\n" \
          "Author: ana | Date: 2026-10-12 | Score: 5.7\nFile: ${path:learnings/a}\n"
    two = "--- [teamai:recall:start] --- (1 result)\n\n[1/1] [learnings] A [workspace]\n" \
          "Author: unknown | Date: unknown | Score: 9.9\nTags: x\nFile: ${path:learnings/a}\n\n--- end ---\n"
    assert differential.hits(one) == differential.hits(two)
    assert differential.hits('No matching learnings found for "x". run=1')["start"] == "no hits"


# -- shrink -----------------------------------------------------------------------------------
def test_shrink_cuts_a_case_down_to_what_still_fails_the_same_way(loaded, fake, tmp_path):
    case = loaded.by_id()["fx-stop-credits"]
    before = pool.run_all(fake("no-stop"), loaded, [case], {}, timeout=20.0)[0]
    assert before.outcome == outcomes.FAIL
    out = tmp_path / "shrunk.yaml"
    code, text, err = _main("--corpus", str(loaded.root), "shrink", "fx-stop-credits", "--impl", fake("no-stop"),
                            "--out", str(out), "--timeout", "20")
    assert code == 0, err
    assert "still fails as: fail at expect.votes.redis-timeout.upvoted_count: vote counter differs, " \
           "and still passes against reference" in text
    sizes = re.search(r"steps (\d+) -> (\d+) \(-\d+%\), files (\d+) -> (\d+) \(-\d+%\), "
                      r"bytes (\d+) -> (\d+) \(-\d+%\)", text)
    assert sizes, text
    steps_before, steps_after, files_before, files_after, bytes_before, bytes_after = map(int, sizes.groups())
    assert (steps_before, steps_after, files_before, files_after) == (5, 3, 4, 1)
    assert bytes_after < bytes_before
    data = corpus.load_yaml(out.read_text(encoding="utf-8"))
    assert (data["id"], data["provenance"], data["shrunk_from"]) == ("fx-stop-credits-shrunk", "regression",
                                                                      "fx-stop-credits")
    assert (data["title"], data["clauses"]) == (case.data["title"], case.data["clauses"])
    assert all(text.strip() for text in data["team"].values()), "a shrunk team file is never left empty"
    assert [next(iter(s)) for s in data["steps"]] == ["recall", "hook", "hook"]  # recall, read, stop
    assert list(data["team"]) == ["learnings/redis-timeout.md"]
    judged = {k: data.get(k) for k in ("expect", "decide", "profile")}  # each expectation at its level
    assert "kafka-lag" not in json.dumps(judged) and "no_votes" not in json.dumps(judged)
    # back in the corpus: valid, fails against the broken driver the same way, passes against the reference
    dest = loaded.root / "scenarios" / "attribution" / "stop-credits-shrunk.yaml"
    dest.write_text(out.read_text(encoding="utf-8"), encoding="utf-8")
    again = corpus.load(loaded.root)
    assert [p for p in lint.lint(again) if "shrunk" in p] == []
    chosen = selection.select(again, ["fx-stop-credits-shrunk"])
    assert pool.run_all("reference", again, chosen, {})[0].outcome == outcomes.PASS
    failed = pool.run_all(fake("no-stop"), again, chosen, {}, timeout=20.0)[0]
    assert failed.outcome == outcomes.FAIL
    first = before.mismatches[0]
    # the same expectation, written at its level (expect, decide or profile: placement.place)
    same = (failed.mismatches[0]["path"].split(".", 1)[1], failed.mismatches[0]["message"])
    assert same == (first["path"].split(".", 1)[1], first["message"])


def test_without_an_oracle_a_cut_may_make_the_case_wrong(loaded, fake):
    case = loaded.by_id()["fx-stop-credits"]
    broken = connect(fake("no-stop"))
    try:
        result = shrink.shrink(broken, case, loaded.payloads, timeout=20.0, max_trials=12)
    finally:
        broken.stop()
    # the Stop and the Read go too: "one upvote" now fails against any implementation
    assert [next(iter(s)) for s in result.data["steps"]] == ["recall"]
    assert result.trials <= 12


def test_shrink_refuses_what_it_cannot_hold_on_to(loaded, fake, tmp_path):
    code, _, err = _main("--corpus", str(loaded.root), "shrink", "fx-related-lines", "--impl", "reference",
                         "--out", str(tmp_path / "x.yaml"))
    assert code == 2 and "only a fail with a mismatch can be shrunk" in err
    code, _, err = _main("--corpus", str(loaded.root), "shrink", "fx-designed-to-fail", "--impl", fake("no-stop"),
                         "--out", str(tmp_path / "y.yaml"))
    assert code == 2 and "against the oracle too" in err
    code, _, err = _main("--corpus", str(loaded.root), "shrink", "no-such-case", "--impl", "reference")
    assert code == 2 and "no case has the id" in err
    taken = tmp_path / "taken.yaml"
    taken.write_text("x", encoding="utf-8")
    code, _, err = _main("--corpus", str(loaded.root), "shrink", "fx-stop-credits", "--impl", fake("no-stop"),
                         "--out", str(taken))
    assert code == 2 and "never overwrites" in err and taken.read_text(encoding="utf-8") == "x"


def test_a_signature_names_steps_and_items_by_what_they_hold():
    data = {"steps": [{"recall": "a"}, {"hook": "claude/stop"}],
            "expect": {"log_contains": [{"kind": "run"}, {"kind": "claim"}]}}
    assert shrink.stable_path("steps[1].hook", data) == "steps[hook claude/stop].hook"
    assert shrink.stable_path("expect.log_contains[1]", data) == 'expect.log_contains[{"kind": "claim"}]'
    assert shrink.stable_path("expect.votes.k.upvoted_count", data) == "expect.votes.k.upvoted_count"


@given(st.dictionaries(st.from_regex(r"learnings/[a-z]{1,8}\.md", fullmatch=True),
                       st.text(st.characters(blacklist_categories=("Cs",)), max_size=80), max_size=4),
       st.sampled_from(["2026-11-30T10:00:00Z", "yes", "0123", "null", "a: b"]))
def test_a_scenario_written_back_reads_as_it_was(team, start):
    data = {"id": "x", "title": "t", "clauses": ["C"], "provenance": "regression", "shrunk_from": "y",
            "agents": [], "start": start, "team": team, "steps": [{"recall": "q", "as": "r1"}],
            "expect": {"steps": {"r1": {"exit": 0}}}}
    text = scenario_file.dump(data)
    assert corpus.load_yaml(text) == placement.place(data)  # as written, each expectation at its level
    assert corpus.load_yaml(scenario_file.dump(placement.place(data))) == placement.place(data)
    assert text.startswith("id: x\ntitle: t\n")


def test_a_candidate_says_what_it_could_not_pin_and_keeps_the_case_checking(loaded):
    from conformance.comparison import candidates
    from conformance.comparison.observation import Observation

    case = loaded.by_id()["fx-recall-prints-hit"]
    step = {"index": 0, "action": "recall", "name": "r1", "exit": 0, "check": False, "stdout": "", "run_printed": True}
    a = Observation("A 1", True, [step], [{"votes": {}, "log": []}], {"votes": {}, "log": []})
    b = Observation("B 2", False, [step], [{"votes": {"k": {"recalled_count": 1}}, "log": []}],
                    {"votes": {"k": {"recalled_count": 1}}, "log": []})
    found, _ = differential.compare(a, b)
    diff = differential.CaseDiff(case.id, case.title, case.area, case.clauses, "differ", found, a=a, b=b)
    data = candidates.candidate(case, diff)
    assert data["expect"] == case.expect  # nothing of A's could be written, so the case's own checks stay
    assert data["observations"]["not_pinned"] == [
        "votes: A's ledger has no entry k, B's counts recalled_count 1 (a scenario cannot say that an entry is absent)"]
    assert (found[0].kind, found[0].step, found[0].path) == ("votes", 0, "votes.k.recalled_count")


def test_a_shrunk_case_drops_a_pair_whose_twin_points_to_the_original():
    from conformance.comparison.shrink import _as_regression

    data = {"id": "attr-x", "title": "A read counts", "clauses": ["A", "B"], "provenance": "derived",
            "agents": ["claude"], "team": {}, "user_team": {}, "env": {}, "isolates": "A", "twin": "attr-y",
            "steps": [{"recall": "q", "env": {}, "set": {}}], "expect": {"votes": {}}}
    out = _as_regression(data, "attr-x")
    assert "isolates" not in out and "twin" not in out and "user_team" not in out and "env" not in out
    assert (out["id"], out["title"], out["clauses"], out["shrunk_from"]) == ("attr-x-shrunk", "A read counts",
                                                                             ["A", "B"], "attr-x")
    assert out["steps"] == [{"recall": "q"}]
