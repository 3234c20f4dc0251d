"""Properties of the reference's state that no black-box scenario can observe: what the votes
ledger holds, that nothing reaches the team's git repository, where state lives and with which
permissions, and a team folder that cannot be used."""

from __future__ import annotations

import json
import re
import stat
import subprocess
from pathlib import Path

from reference.state import ledger

RUN_RE = re.compile(r" run=([0-9a-f-]{36})$", re.MULTILINE)
COUNTERS = {"recalled_count", "upvoted_count", "last_recalled_at", "last_upvoted_at"}
SESSION = "ses-privacy-1"


def _read_payload(team: Path) -> bytes:
    return json.dumps({"session_id": SESSION, "cwd": str(team), "hook_event_name": "PostToolUse",
                       "tool_name": "Read", "tool_input": {"file_path": str(team / "learnings" / "redis-timeout.md")},
                       "tool_response": {"type": "text"}}).encode()


def _recall_read_stop(cli, team: Path) -> str:  # type: ignore[no-untyped-def]
    env = {"CLAUDE_CODE_SESSION_ID": SESSION}
    res = cli("recall", "redis", "timeout", env=env)
    assert res.code == 0, res.err
    assert cli("hook-dispatch", "post-tool-use", "--tool", "claude", stdin=_read_payload(team)).code == 0
    stop = json.dumps({"session_id": SESSION, "cwd": str(team), "hook_event_name": "Stop"}).encode()
    assert cli("hook-dispatch", "stop", "--tool", "claude", stdin=stop).code == 0
    found = RUN_RE.search(res.out)
    assert found
    return found.group(1)


def test_votes_ledger_keeps_only_the_four_counters(cli, home, team) -> None:  # type: ignore[no-untyped-def]
    run_id = _recall_read_stop(cli, team)
    (path,) = home.glob("workspaces/*/votes.yaml")
    document = ledger.load(str(path))
    assert document["votes"]["redis-timeout"]["upvoted_count"] == 1  # the read did vote, so it was written
    assert set(document) == {"version", "votes", "deltas"}  # teamai's own sections, nothing per run
    assert all(set(entry) <= COUNTERS for entry in document["votes"].values()), document
    assert all(set(delta) == {"recalled_delta", "upvoted_delta"} for delta in document["deltas"].values())
    text = path.read_text(encoding="utf-8")
    assert run_id not in text and SESSION not in text


def test_attribution_leaves_the_team_repository_clean(cli, home, team) -> None:  # type: ignore[no-untyped-def]
    def git(*argv: str) -> str:
        return subprocess.run(["git", "-C", str(team), *argv], capture_output=True, text=True, check=True).stdout

    git("init", "-q", "-b", "main")
    git("-c", "user.name=t", "-c", "user.email=t@example.com", "add", "-A")
    git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "team")
    head = git("rev-parse", "HEAD")
    _recall_read_stop(cli, team)
    assert cli("pull").code == 0
    assert next(home.glob("workspaces/*/recall-log.jsonl")).stat().st_size > 0
    assert git("status", "--porcelain", "--ignored", "--untracked-files=all") == ""
    assert git("rev-parse", "HEAD") == head


def test_state_lives_under_the_state_home_per_scope(cli, home, team, tmp_path) -> None:  # type: ignore[no-untyped-def]
    user = tmp_path / "user-team"
    (user / "learnings").mkdir(parents=True)
    (user / "learnings" / "redis-pool.md").write_text("---\ntitle: Redis pool sizing\n---\nredis pool\n")
    trees = {root: sorted((p.relative_to(root), p.stat().st_mtime_ns) for p in root.rglob("*"))
             for root in (team, user)}
    assert cli("recall", "redis", env={"TEAMAI_USER_TEAM": str(user)}).code == 0
    for root, before in trees.items():
        assert sorted((p.relative_to(root), p.stat().st_mtime_ns) for p in root.rglob("*")) == before
    logs = list(home.glob("workspaces/*/recall-log.jsonl"))
    assert len(logs) == 1 and logs[0].stat().st_size > 0


def test_state_folders_are_private(cli, home) -> None:  # type: ignore[no-untyped-def]
    assert cli("recall", "redis").code == 0
    folders = [home, *(p for p in home.rglob("*") if p.is_dir())]
    assert len(folders) > 1
    for folder in folders:
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700, folder


def test_a_bad_team_folder_is_exit_3_and_writes_nothing(cli, home, tmp_path) -> None:  # type: ignore[no-untyped-def]
    not_a_folder = tmp_path / "team.md"
    not_a_folder.write_text("a file, not a team folder\n")
    for team in (tmp_path / "missing", not_a_folder):
        res = cli("recall", "redis", env={"TEAMAI_TEAM": str(team)})
        assert res.code == 3, (team, res.err)
        assert len(res.err.strip().splitlines()) == 1
        assert not home.exists() or not any(home.rglob("*"))
