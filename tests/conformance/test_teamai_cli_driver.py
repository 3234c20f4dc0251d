"""The teamai-cli 0.25.0 driver: a non-Python implementation through the real protocol.

Skipped where node or npm is missing or the package cannot be installed. The recall format that
0.25.0 already had passes; what #884 added (run ids) fails with a mismatch a reader can act on.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from conformance import capabilities, corpus, driver, expectations, outcomes, pool
from conformance.drivers import teamai_cli, teamai_cli_home

ROOT = Path(__file__).resolve().parents[2]
FORMAT_CASES = ["recall-end-and-footer", "recall-tags-line"]
RUN_ID_CASES = ["recall-start-line-plural", "recall-limit-five"]
EXPECTATIONS = ROOT / "conformance" / "expectations" / "teamai-cli-0.25.toml"


@pytest.fixture(scope="module")
def cli() -> Iterator[driver.Driver]:
    if teamai_cli_home.install() is None:
        pytest.skip("teamai-cli 0.25.0 is not available (node, npm or the package missing)")
    active = driver.connect("teamai-cli")
    yield active
    active.stop()


@pytest.fixture(scope="module")
def loaded() -> corpus.Corpus:
    return corpus.load(ROOT)


def test_handshake_declares_only_what_0_25_has(cli, loaded):
    assert cli.info["implementation"] == {"name": "teamai-cli", "version": "0.25.0"}
    declared = cli.capabilities
    assert "review" not in declared["commands"] and "recall" in declared["commands"]
    assert declared["log"] is False and declared["hold"] == []
    review = next(s for s in loaded.scenarios if s.area == "review")
    assert "command review" in capabilities.missing(capabilities.needs(review, loaded.payloads), declared)


def test_recall_format_0_25_already_has_passes(cli, loaded):
    results = pool.run_all("teamai-cli", loaded, loaded.select(FORMAT_CASES), {}, driver=cli)
    assert [(r.id, r.outcome) for r in results] == [(c, outcomes.PASS) for c in FORMAT_CASES], \
        [r.message for r in results]


def test_run_id_cases_fail_with_a_readable_mismatch(cli, loaded):
    results = pool.run_all("teamai-cli", loaded, loaded.select(RUN_ID_CASES), {}, driver=cli)
    for result in results:
        assert result.outcome == outcomes.FAIL, (result.id, result.message)
        miss = result.mismatches[0]
        assert "printed no run" in result.message and "run=" in miss["expected"], result.message
        assert miss["actual"].startswith("--- [teamai:recall:start] --- ("), miss["actual"]
        assert result.steps[0]["exit"] == 0  # 0.25 answered; it just prints no run id


def test_the_committed_expectations_hold_for_the_recall_area(cli, loaded):
    expected = expectations.load(EXPECTATIONS)
    assert all(e.reason and not e.reason.startswith(("fail:", "error:")) for e in expected.values())
    results = pool.run_all("teamai-cli", loaded, loaded.select(["recall"]), expected, driver=cli)
    unexpected = [(r.id, r.outcome, r.message) for r in results if r.outcome in outcomes.UNEXPECTED]
    assert unexpected == []
    assert {r.outcome for r in results} >= {outcomes.PASS, outcomes.XFAIL, outcomes.NOT_APPLICABLE}


def test_the_step_instant_reaches_the_ledger(cli):
    """The fixed-clock preload: 0.25's own ledger stamps the instant the harness sent."""
    team = {"learnings/redis-timeout.md": "---\ntitle: Redis times out\ntags: [redis]\n---\nRaise it.\n"}
    with tempfile.TemporaryDirectory() as sandbox:
        opened = cli.request({"cmd": "open", "now": "2026-11-30T10:00:00.000Z", "case": "clock",
                              "sandbox": sandbox, "team": team, "env": {}}, 60)
        assert opened["paths"]["learnings/redis-timeout"].endswith("/.teamai/learnings/redis-timeout.md")
        step = cli.request({"cmd": "recall", "now": "2031-02-03T04:05:06.789Z", "env": {}, "query": "redis",
                            "caller": None, "check": False}, 60)
        assert f"File: {opened['paths']['learnings/redis-timeout']}\n" in step["stdout"]
        seen = cli.request({"cmd": "observe", "now": "2031-02-03T04:05:07.789Z", "env": {}, "want": ["raw"]}, 60)
        cli.request({"cmd": "close"}, 60)
    assert seen["votes"]["redis-timeout"]["recalled_count"] == 1
    assert seen["votes"]["redis-timeout"]["last_recalled_at"] == "2031-02-03T04:05:06.789Z"
    assert seen["log"] == [] and seen["stats"] is None
    assert any(name.startswith("votes/") for name in seen["raw"])


def test_ledger_instants_are_spelled_back_with_milliseconds(tmp_path):
    ledger = tmp_path / "ledger.yaml"
    ledger.write_text("version: 2\nvotes:\n  sub/redis-doc:\n    recalled_count: 2\n    upvoted_count: 1\n"
                      "    last_recalled_at: 2026-11-30T12:00:00.050Z\n"
                      "    last_upvoted_at: 2026-11-30T12:00:01Z\n  2026:\n    recalled_count: 1\n"
                      "deltas: {}\n", encoding="utf-8")
    assert yaml.safe_load(ledger.read_text())  # the file is YAML as 0.25 writes it
    assert teamai_cli.read_votes(str(ledger)) == {
        "sub/redis-doc": {"recalled_count": 2, "upvoted_count": 1, "last_recalled_at": "2026-11-30T12:00:00.050Z",
                          "last_upvoted_at": "2026-11-30T12:00:01.000Z"},
        "2026": {"recalled_count": 1, "upvoted_count": 0, "last_recalled_at": None, "last_upvoted_at": None}}
    assert teamai_cli.read_votes(str(tmp_path / "absent.yaml")) == {}


def test_learnings_roots_fold_into_one_folder_first_root_wins():
    message = {"team": {"learnings/old.md": "gone", "rules/r.md": "rule"},
               "learnings_roots": [{"a.md": "first"}, {"a.md": "second", "b.md": "only"}]}
    assert teamai_cli.team_tree(message) == {"rules/r.md": "rule", "learnings/a.md": "first",
                                             "learnings/b.md": "only"}


NO_RUN_ID = """id: fx-needs-run-id
title: The start line carries a run id
clauses: [RUN-ID-START-LINE]
provenance: derived
agents: []
team: {}
steps:
  - recall: redis
    as: r1
expect:
  steps:
    r1:
      output_contains: ["run=${r1.run}"]
"""


def test_a_run_id_never_printed_is_a_failure_of_the_implementation(tmp_path):
    """Needs no node: any implementation without #884 prints no run id, and that is a fail, not an
    error of the scenario."""
    (tmp_path / "scenarios" / "recall").mkdir(parents=True)
    (tmp_path / "payloads").mkdir()
    (tmp_path / "scenarios" / "recall" / "needs-run-id.yaml").write_text(NO_RUN_ID, encoding="utf-8")
    loaded = corpus.load(tmp_path)

    def legacy(message: dict) -> dict:
        extra: dict = {}
        if message["cmd"] == "start":
            extra = {"protocol": 1, "implementation": {"name": "legacy", "version": "0"},
                     "capabilities": {"commands": ["recall"], "agents": [], "log": False, "hold": []}}
        elif message["cmd"] == "open":
            extra = {"paths": {}, "user_paths": {}, "roots": {"team": "/nowhere", "learnings": []}}
        elif message["cmd"] == "recall":
            extra = {"exit": 0, "stdout": "--- [teamai:recall:start] --- (0 results)\n", "stderr": ""}
        elif message["cmd"] == "observe":
            extra = {"votes": {}, "log": [], "stats": None, "raw": {}}
        return {"seq": message["seq"], "ok": True, **extra}

    (result,) = pool.run_all("legacy", loaded, loaded.scenarios, {},
                             driver=driver.LocalDriver(lambda: legacy, "legacy"))
    assert result.outcome == outcomes.FAIL, result.message
    assert result.mismatches[0]["path"] == "expect.steps.r1"
    assert result.mismatches[0]["actual"] == "--- [teamai:recall:start] --- (0 results)\n"
