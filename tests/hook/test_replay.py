"""``teamai-ref replay``: explains the decisions for saved payloads and writes nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ._support import ROOT, Cli

RUN = "5f0c2e1a-9b7d-4c1e-8a54-2f6d0b3e9c71"


def write(tmp_path: Path, name: str, data: object) -> str:
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return str(path)


def test_replay_explains_a_claim_and_writes_nothing(cli: Cli, tmp_path: Path, home: Path) -> None:
    raw = write(tmp_path, "raw.json", {
        "session_id": "ses-1", "cwd": "/p", "tool_name": "Bash", "tool_input": {"command": "teamai recall redis"},
        "tool_response": {"stdout": f"--- [teamai:recall:start] --- (1 result) run={RUN}\n"}})
    result = cli("replay", "--tool", "claude", raw)
    assert result.code == 0, result.err
    assert "category: 'shell'" in result.out
    assert "the command invokes teamai recall" in result.out
    assert f"claim: run {RUN}" in result.out
    assert '"kind": "claim"' in result.out
    assert not home.exists() or not list(home.rglob("recall-log.jsonl"))


def test_replay_reads_the_corpus_form_and_says_why_a_read_does_not_count(cli: Cli, tmp_path: Path,
                                                                          team: Path) -> None:
    corpus = write(tmp_path, "corpus.json", {
        "provenance": {"source": "test", "verified": False}, "agent": "codex", "event": "post-tool-use",
        "payload": {"session_id": "s", "cwd": str(team), "tool_name": "Bash",
                    "tool_input": {"command": "test -e x && cat learnings/redis-timeout.md || true"},
                    "tool_response": "text"}})
    result = cli("replay", corpus)
    assert result.code == 0, result.err
    assert "agent: 'codex'" in result.out and "status: 'unknown'" in result.out
    assert "a compound command (&&, ||) never counts" in result.out
    assert "would append nothing" in result.out


def test_replay_of_a_read_under_the_team(cli: Cli, tmp_path: Path, team: Path) -> None:
    doc = team.resolve() / "learnings" / "redis-timeout.md"
    raw = write(tmp_path, "r.json", {"session_id": "s", "tool_name": "Read", "tool_input": {"file_path": str(doc)}})
    result = cli("replay", "--tool", "claude", raw)
    assert f"evidence: {doc} (resolved exactly)" in result.out


def test_replay_of_a_stop_event(cli: Cli, tmp_path: Path) -> None:
    raw = write(tmp_path, "stop.json", {"session_id": "s", "hook_event_name": "Stop"})
    result = cli("replay", "--tool", "claude", raw)
    assert result.code == 0 and "records nothing for it (it runs the reducer)" in result.out


def test_replay_reports_bad_files_and_goes_on(cli: Cli, tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{nope")
    good = write(tmp_path, "good.json", {"session_id": "s", "tool_name": "Glob", "tool_input": {}})
    result = cli("replay", "--tool", "claude", str(bad), str(tmp_path / "missing.json"), good)
    assert result.code == 3
    assert "bad.json: cannot read a JSON payload" in result.err
    assert "missing.json: cannot read a JSON payload" in result.err
    assert "it never counts" in result.out


def test_replay_needs_a_known_agent(cli: Cli, tmp_path: Path) -> None:
    raw = write(tmp_path, "raw.json", {"session_id": "s"})
    result = cli("replay", raw)
    assert result.code == 3 and "no adapter for the agent (none)" in result.err
    assert "Adding an agent" in result.err


def test_replay_reads_what_capture_writes_one_block_per_payload(cli: Cli, tmp_path: Path, team: Path) -> None:
    """A capture file is JSON lines; replay explains each of its payloads, with the team the capture saw."""
    out = tmp_path / "captures"
    doc = team.resolve() / "learnings" / "redis-timeout.md"
    calls = [("post-tool-use", {"session_id": "s-1", "tool_name": "Bash", "tool_input": {"command": "teamai recall redis"},
                                "tool_response": {"stdout": f"--- [teamai:recall:start] --- (1 result) run={RUN}\n"}}),
             ("post-tool-use", {"session_id": "s-1", "tool_name": "Read", "tool_input": {"file_path": str(doc)}}),
             ("stop", {"session_id": "s-1", "hook_event_name": "Stop"})]
    for event, payload in calls:
        done = cli("capture", event, "--tool", "claude", "--keep", "--out", str(out), "--", "true",
                   stdin=json.dumps(payload).encode())
        assert done.code == 0, done.err
    [capture] = out.glob("claude-s-1.jsonl")
    assert len(capture.read_text().splitlines()) == 3
    result = cli("replay", str(capture), env={"TEAMAI_TEAM": ""})
    assert result.code == 0, result.err
    assert [line for line in result.out.splitlines() if line.startswith("== ")] == [
        f"== {capture}:1", f"== {capture}:2", f"== {capture}:3"]
    assert f"claim: run {RUN}" in result.out
    assert f"evidence: {doc} (resolved exactly)" in result.out  # the team folder the capture recorded
    assert "records nothing for it (it runs the reducer)" in result.out


CORPUS = sorted((ROOT / "payloads").glob("*/*.json"))


@pytest.mark.skipif(not CORPUS, reason="no payload corpus yet")
def test_replay_explains_every_payload_of_the_corpus(cli: Cli) -> None:
    result = cli("replay", *map(str, CORPUS))
    assert result.code == 0, result.err
    assert result.out.count("\n== ") + result.out.startswith("== ") >= len(CORPUS) - 1
