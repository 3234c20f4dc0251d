"""Links planted in the state folder are never written through, temp files have names nobody can
guess and are created exclusively, and everything the reference creates there is private to the
user (files 0600, folders 0700).

A planted link points at a "victim" file outside the state folder; after recall, a tool call's hook,
a Stop and a pull, the victim holds the bytes it held, and each refusal is said in one line.
Real files, real SQLite, the CLI in-process and the hook as a real process.
"""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from reference.state import storage
from reference.team import config
from tests.conftest import ROOT

VICTIM = b"precious bytes\n"


def _scope(cli) -> config.Scope:  # type: ignore[no-untyped-def]
    return config.load(cli.env).active


def _victim(tmp_path: Path) -> Path:
    victim = tmp_path / "victim.txt"
    victim.write_bytes(VICTIM)
    return victim


def _hook(cli, event: str, payload: dict) -> None:  # type: ignore[no-untyped-def]
    env = {**cli.env, "PYTHONPATH": str(ROOT)}
    subprocess.run([sys.executable, "-I", "-S", str(ROOT / "reference" / "hook" / "fast.py"), event, "--tool", "claude"],
                   input=json.dumps(payload).encode(), env=env, check=True, timeout=60, capture_output=True)


def _session(cli, team: Path) -> None:  # type: ignore[no-untyped-def]
    """A recall, a read of its first hit, a Stop and a pull."""
    out = cli("recall", "redis timeout", env={"TEAMAI_AGENT_SESSION_ID": "ses-1", "CLAUDECODE": "1"})
    assert out.code == 0 and "redis-timeout.md" in out.out
    _hook(cli, "post-tool-use", {"session_id": "ses-1", "tool_name": "Read", "cwd": str(team),
                                 "tool_input": {"file_path": str(team / "learnings" / "redis-timeout.md")},
                                 "tool_response": {"type": "text"}})
    _hook(cli, "stop", {"session_id": "ses-1"})
    cli("pull")


@pytest.mark.parametrize("name", ["votes.yaml", "recall-log.checkpoint", "recall-log.jsonl", "upvoted-sessions.json"])
def test_a_link_planted_at_a_temp_name_is_removed_not_followed(cli, team, tmp_path, name) -> None:  # type: ignore[no-untyped-def]
    scope = _scope(cli)
    storage.ensure_dir(scope.state_dir)
    victim = _victim(tmp_path)
    planted = [Path(scope.state_dir) / f"{name}.tmp-{n}" for n in (os.getpid(), os.getpid() + 1, "0" * 16)]
    for link in planted:
        link.symlink_to(victim)
    _session(cli, team)
    cli("recall", "redis timeout")
    assert victim.read_bytes() == VICTIM
    assert Path(scope.ledger_path).exists()


@pytest.mark.parametrize("name", ["votes.lock", "recall-log.lock", "votes.yaml", "recall-log.jsonl",
                                  "hook-debug.log", "upvoted-sessions.json", "recall-log.checkpoint"])
def test_a_state_file_that_is_a_link_is_never_written_through(cli, team, tmp_path, name) -> None:  # type: ignore[no-untyped-def]
    scope = _scope(cli)
    storage.ensure_dir(scope.state_dir)
    victim = _victim(tmp_path)
    (Path(scope.state_dir) / name).symlink_to(victim)
    out = cli("recall", "redis timeout", env={"TEAMAI_AGENT_SESSION_ID": "ses-1", "CLAUDECODE": "1"})
    assert out.code == 0 and "redis-timeout.md" in out.out  # recall always answers
    _session(cli, team)
    assert victim.read_bytes() == VICTIM
    assert (Path(scope.state_dir) / name).is_symlink()  # left where it was, for the user to look at
    said = [line for line in out.err.splitlines() if "symbolic link" in line]
    if name in ("votes.lock", "votes.yaml", "recall-log.lock", "recall-log.jsonl"):
        assert len(said) == 1, out.err  # recall's own refusal, in one line
    if name in ("votes.lock", "votes.yaml", "upvoted-sessions.json", "recall-log.lock", "recall-log.jsonl"):
        debug = Path(scope.debug_log_path).read_text() if Path(scope.debug_log_path).is_file() else ""
        pulled = cli("pull")
        assert "symbolic link" in debug + pulled.err


def test_an_index_that_links_to_another_database_is_left_alone(cli, team, tmp_path) -> None:  # type: ignore[no-untyped-def]
    scope = _scope(cli)
    storage.ensure_dir(scope.state_dir)
    other = tmp_path / "other.db"
    conn = sqlite3.connect(other)
    conn.execute("CREATE TABLE mine (x)")
    conn.execute("INSERT INTO mine VALUES (42)")
    conn.commit()
    conn.close()
    before = other.read_bytes()
    Path(scope.index_path).symlink_to(other)
    out = cli("recall", "redis timeout")
    assert out.code == 0 and "redis-timeout.md" in out.out
    assert "symbolic link" in out.err and len(out.err.splitlines()) == 1
    assert other.read_bytes() == before
    assert not Path(str(other) + "-wal").exists() and not Path(str(other) + "-journal").exists()


def test_a_wal_file_that_is_a_link_is_not_followed(cli, team, tmp_path) -> None:  # type: ignore[no-untyped-def]
    scope = _scope(cli)
    storage.ensure_dir(scope.state_dir)
    victim = _victim(tmp_path)
    Path(scope.index_path + "-wal").symlink_to(victim)
    out = cli("recall", "redis timeout")
    assert out.code == 0 and "redis-timeout.md" in out.out
    assert victim.read_bytes() == VICTIM


def test_everything_created_in_the_state_home_is_private(cli, team, home) -> None:  # type: ignore[no-untyped-def]
    old = os.umask(0o022)  # what most users run with: nothing may rely on a stricter one
    try:
        _session(cli, team)
        cli("index")
    finally:
        os.umask(old)
    seen = 0
    for path in [home, *home.rglob("*")]:
        mode = stat.S_IMODE(os.lstat(path).st_mode)
        want = 0o700 if path.is_dir() else 0o600
        assert mode == want, f"{path.relative_to(home)}: {oct(mode)}"
        seen += 1
    names = {p.name for p in home.rglob("*")}
    assert {"votes.yaml", "recall-log.jsonl", "index.db", "upvoted-sessions.json", "votes.lock"} <= names
    assert seen > 8


def test_a_write_through_a_temp_name_is_exclusive(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Even a temp name guessed right (the random part fixed here) is never opened when a link or a
    file is there: the sweep removes what no live writer holds, and the open is ``O_EXCL``."""
    target = tmp_path / "state" / "votes.yaml"
    target.parent.mkdir()
    victim = _victim(tmp_path)
    monkeypatch.setattr(os, "urandom", lambda n: b"\x00" * n)
    guessed = Path(f"{target}{storage.TEMP}{'00' * 8}")
    guessed.symlink_to(victim)
    storage.write_atomic(str(target), b"version: 2\n")
    assert target.read_bytes() == b"version: 2\n" and victim.read_bytes() == VICTIM
    assert not guessed.exists() and not guessed.is_symlink()
