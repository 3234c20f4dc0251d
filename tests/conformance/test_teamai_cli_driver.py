"""The teamai-cli 0.25.0 driver: a non-Python implementation through the real protocol.

Skipped where node or npm is missing or the package cannot be installed. The recall format that
0.25.0 already had passes; what #884 added (run ids) fails with a mismatch a reader can act on.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

import project
import pytest
import yaml

from conformance import implementations
from conformance.corpus import capabilities, selection
from conformance.corpus import read as corpus
from conformance.drivers import teamai_cli
from conformance.running import driver, expectations, outcomes, pool

ROOT = Path(__file__).resolve().parents[2]
FORMAT_CASES = ["recall-end-and-footer", "recall-tags-line", "recall-start-line-plural", "recall-start-line-singular"]
RUN_ID_CASES = ["recall-start-line-run-id"]
# Scopes and shadowing: 0.25 has them in project scope with inheritUserScope, the driver's layout.
SCOPE_CASES = ["recall-workspace-shadows-user", "recall-user-hit-not-counted",
               "recall-nested-same-base-name-not-shadowed"]
EXPECTATIONS = ROOT / "conformance" / "expectations" / "teamai-cli-0.25.toml"


@pytest.fixture(scope="module")
def cli(teamai_cli: str) -> Iterator[driver.Driver]:
    active = implementations.connect("teamai-cli")
    yield active
    active.stop()


@pytest.fixture(scope="module")
def loaded() -> corpus.Corpus:
    return project.load()


def test_handshake_declares_only_what_0_25_has(cli, loaded):
    assert cli.info["implementation"] == {"name": "teamai-cli", "version": "0.25.0"}
    declared = cli.capabilities
    assert "review" not in declared["commands"] and "recall" in declared["commands"]
    assert declared["log"] is False and declared["hold"] == []
    review = next(s for s in loaded.scenarios if s.area == "review")
    assert "command review" in capabilities.missing(capabilities.needs(review, loaded.payloads), declared)


def test_recall_format_cases_are_the_reference_s_profile_and_not_held_against_0_25(cli, loaded):
    """The start line, tags line and footer are how the reference prints (its profile): 0.25, which
    declares no profile, is not judged on them at all."""
    results = pool.run_all("teamai-cli", loaded, selection.select(loaded, FORMAT_CASES), {}, driver=cli)
    assert sorted((r.id, r.outcome) for r in results) == sorted((c, outcomes.NOT_APPLICABLE) for c in FORMAT_CASES), \
        [r.message for r in results]
    assert all("the reference's profile" in r.message for r in results)


def test_scopes_and_shadowing_0_25_has_pass_in_its_own_words(cli, loaded):
    results = pool.run_all("teamai-cli", loaded, selection.select(loaded, SCOPE_CASES), {}, driver=cli)
    assert sorted((r.id, r.outcome) for r in results) == sorted((c, outcomes.PASS) for c in SCOPE_CASES), \
        [r.message for r in results]
    assert all(r.partly and r.lacking == ["a recall log"] for r in results)  # each also checks the log
    shadowed = next(r for r in results if r.id == "recall-workspace-shadows-user")
    assert "Redis client times out under load [project]\n" in shadowed.steps[0]["stdout"]


def test_run_id_cases_fail_with_a_readable_mismatch(cli, loaded):
    results = pool.run_all("teamai-cli", loaded, selection.select(loaded, RUN_ID_CASES), {}, driver=cli)
    for result in results:
        assert result.outcome == outcomes.FAIL, (result.id, result.message)
        miss = result.mismatches[0]
        assert "printed no run" in result.message and "run=" in miss["expected"], result.message
        assert miss["actual"].startswith("--- [teamai:recall:start] --- ("), miss["actual"]
        assert result.steps[0]["exit"] == 0  # 0.25 answered; it just prints no run id


def test_the_committed_expectations_give_a_reason_for_each_case():
    expected = expectations.load(EXPECTATIONS)
    assert expected and all(e.reason and not e.reason.startswith(("fail:", "error:")) for e in expected.values())


RECALL_PARTS = 4  # the recall area in parts, so that test workers share its slow node processes


@pytest.mark.parametrize("part", range(RECALL_PARTS))
def test_the_committed_expectations_hold_for_the_recall_area(cli, loaded, part):
    """Every recall case ends as the file expects, and each part meets a pass, an expected
    failure and a case of which nothing applies."""
    expected = expectations.load(EXPECTATIONS)
    cases = selection.select(loaded, ["recall"])
    results = pool.run_all("teamai-cli", loaded, cases[part::RECALL_PARTS], expected, driver=cli)
    unexpected = [(r.id, r.outcome, r.message) for r in results if r.outcome in outcomes.UNEXPECTED]
    assert unexpected == []
    assert {outcomes.PASS, outcomes.XFAIL, outcomes.NOT_APPLICABLE} <= {r.outcome for r in results}


def test_the_step_instant_reaches_the_ledger(cli):
    """The fixed-clock preload: 0.25's own ledger stamps the instant the harness sent."""
    team = {"learnings/redis-timeout.md": "---\ntitle: Redis times out\ntags: [redis]\n---\nRaise it.\n"}
    with tempfile.TemporaryDirectory() as sandbox:
        opened = cli.request({"cmd": "open", "now": "2026-11-30T10:00:00.000Z", "case": "clock",
                              "sandbox": sandbox, "team": team, "env": {}}, 60)
        assert opened["paths"]["learnings/redis-timeout"].endswith(
            "/project/.teamai/team-repo/learnings/redis-timeout.md")
        assert opened["labels"] == {"workspace": "project", "user": "user"}
        step = cli.request({"cmd": "recall", "now": "2031-02-03T04:05:06.789Z", "env": {}, "query": "redis",
                            "caller": None, "check": False}, 60)
        assert f"File: {opened['paths']['learnings/redis-timeout']}\n" in step["stdout"]
        seen = cli.request({"cmd": "observe", "now": "2031-02-03T04:05:07.789Z", "env": {},
                            "want": ["raw", "stats"]}, 60)
        cli.request({"cmd": "close"}, 60)
    assert seen["votes"]["redis-timeout"]["recalled_count"] == 1
    assert seen["votes"]["redis-timeout"]["last_recalled_at"] == "2031-02-03T04:05:06.789Z"
    assert seen["log"] == [] and seen["stats"] == []  # "No usage data yet": no session, so no row
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


def test_a_hook_with_the_recorded_payload_folders_runs_in_the_workspace(cli, loaded):
    """The recorded payloads' cwd (/home/ana/proj) does not exist here: 0.25 would stop before
    doing anything. The driver gives it the workspace, and the hook does its work there."""
    payload = loaded.payloads["claude/post-tool-use-read"].payload
    assert not Path(payload["cwd"]).exists()
    with tempfile.TemporaryDirectory() as sandbox:
        cli.request({"cmd": "open", "now": "2026-11-30T10:00:00.000Z", "case": "folders", "sandbox": sandbox,
                     "team": {"rules/r.md": "rule\n"}, "env": {}}, 60)
        step = cli.request({"cmd": "hook", "now": "2026-11-30T10:00:01.000Z", "env": {}, "agent": "claude",
                            "event": "post-tool-use", "payload": payload}, 60)
        seen = cli.request({"cmd": "observe", "now": "2026-11-30T10:00:02.000Z", "env": {}, "want": ["raw"]}, 60)
        cli.request({"cmd": "close"}, 60)
    assert step["exit"] == 0
    events = seen["raw"].get("dashboard/events.jsonl", "")
    assert '"tool_use"' in events and '"Read"' in events, sorted(seen["raw"])


def test_payload_folders_are_created_in_the_sandbox_or_stand_for_the_workspace(tmp_path):
    sandbox, workspace = tmp_path / "sb", tmp_path / "sb" / "project"
    workspace.mkdir(parents=True)
    inside = sandbox / "team" / "sub"
    payload = {"cwd": "/home/ana/proj", "workspace_roots": [str(inside), "C:\\Users\\ana\\proj", ""],
               "tool_input": {"file_path": "/home/ana/proj/x.md"}}
    out = teamai_cli.agent_folders(payload, str(sandbox), str(workspace))
    assert out["cwd"] == str(workspace)
    assert out["workspace_roots"] == [str(inside), str(workspace), ""] and inside.is_dir()
    assert out["tool_input"] == payload["tool_input"] and payload["cwd"] == "/home/ana/proj"
    assert teamai_cli.agent_folders({"session_id": "s"}, str(sandbox), str(workspace)) == {"session_id": "s"}
    assert teamai_cli.agent_folders({"cwd": "tests"}, str(sandbox), str(workspace)) == {"cwd": str(workspace)}


def test_a_payload_folder_that_is_a_link_to_nothing_yet_stands_for_the_workspace(tmp_path):
    # ${link:learnings} points at the folder 0.25 publishes learnings into, made only by a contribute
    sandbox, workspace = tmp_path / "sb", tmp_path / "sb" / "project"
    workspace.mkdir(parents=True)
    (sandbox / "links").mkdir()
    link = sandbox / "links" / "learnings"
    link.symlink_to(sandbox / "project" / "learnings-wt" / "learnings", target_is_directory=True)
    assert teamai_cli.agent_folders({"cwd": str(link)}, str(sandbox), str(workspace)) == {"cwd": str(workspace)}
    assert not (sandbox / "project" / "learnings-wt").exists()  # 0.25's own folder is left to it
    (sandbox / "project" / "learnings-wt" / "learnings").mkdir(parents=True)
    assert teamai_cli.agent_folders({"cwd": str(link)}, str(sandbox), str(workspace)) == {"cwd": str(link)}


def test_0_25_stats_text_becomes_rows_only_where_it_can():
    assert teamai_cli.stats_rows("No usage data yet.\nUsage tracking starts automatically via hooks.\n") == ([], "")
    shown = ("\nSession & Usage Statistics:\n\n  Sessions:           2\n  Conversation turns: 0\n")
    rows, note = teamai_cli.stats_rows(shown)
    assert rows is None
    assert note == ("teamai-cli 0.25 stats prints totals (Sessions 2, Conversation turns 0), "
                    "no row per session with its recalls")
    assert "skill uses" in teamai_cli.stats_rows("Skill Usage Statistics:\n  x  1 uses\n")[1]
