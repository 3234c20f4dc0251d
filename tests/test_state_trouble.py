"""When the state folder is busy, locked or unwritable: the index is never deleted for being busy,
recall always prints its hits, ``--check`` writes nothing, and the other commands fail in one line.

Every test uses real files, real SQLite locks and real flock locks. An unwritable state folder is
made by putting a file where a folder is expected, which stops root as well as anyone else.
"""

from __future__ import annotations

import hashlib
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from reference.state import storage
from reference.team import config
from tests.conftest import ROOT

START_WITH_RUN = re.compile(r"^--- \[teamai:recall:start\] --- \(\d+ results?\) run=[0-9a-f-]{36}$", re.M)
START_WITHOUT_RUN = re.compile(r"^--- \[teamai:recall:start\] --- \(\d+ results?\)$", re.M)


def _scope(cli) -> config.Scope:  # type: ignore[no-untyped-def]
    return config.load(cli.env).active


def _files(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` with the SHA-256 of its bytes."""
    if not folder.exists():
        return {}
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def _log_runs(scope: config.Scope) -> list[str]:
    path = Path(scope.log_path)
    return path.read_text().splitlines() if path.exists() else []


# --- the index: busy is not corrupt -------------------------------------------------------------

def test_an_index_locked_against_readers_is_never_deleted(cli, team) -> None:  # type: ignore[no-untyped-def]
    assert cli("recall", "redis").code == 0
    scope = _scope(cli)
    holder = sqlite3.connect(scope.index_path, isolation_level=None)
    holder.execute("PRAGMA locking_mode=EXCLUSIVE")
    holder.execute("BEGIN EXCLUSIVE")
    holder.execute("INSERT INTO meta(name, value) VALUES('marker', 'still here')")
    try:
        res = cli("recall", "redis", env={"TEAMAI_LOCK_WAIT": "0.3"})
    finally:
        holder.execute("COMMIT")
        holder.close()
    assert res.code == 0, res.err
    assert "Redis client times out under load" in res.out
    assert "busy" in res.err and len(res.err.splitlines()) == 1
    with sqlite3.connect(scope.index_path) as conn:  # the same file, with what its holder wrote
        assert conn.execute("SELECT value FROM meta WHERE name = 'marker'").fetchone() == ("still here",)


def test_an_index_busy_with_a_writer_is_searched_as_it_is(cli, team) -> None:  # type: ignore[no-untyped-def]
    assert cli("recall", "redis").code == 0
    scope = _scope(cli)
    (team / "learnings" / "zebra.md").write_text("---\ntitle: Redis zebra crossing\n---\nredis\n")
    holder = sqlite3.connect(scope.index_path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    holder.execute("INSERT INTO meta(name, value) VALUES('marker', 'writer')")
    try:
        res = cli("recall", "redis", env={"TEAMAI_LOCK_WAIT": "0.3"})
    finally:
        holder.execute("COMMIT")
        holder.close()
    assert res.code == 0, res.err
    assert "Redis client times out under load" in res.out and "zebra" not in res.out  # as it was
    assert "busy" in res.err and len(res.err.splitlines()) == 1
    assert START_WITH_RUN.search(res.out)  # the log was free: the run is recorded
    after = cli("recall", "redis")
    assert "Redis zebra crossing" in after.out and after.err == ""


def test_only_a_corrupt_index_is_rebuilt_and_it_says_so(cli, team) -> None:  # type: ignore[no-untyped-def]
    scope = _scope(cli)
    Path(scope.state_dir).mkdir(parents=True)
    Path(scope.index_path).write_bytes(b"not a database at all " * 300)
    res = cli("recall", "redis")
    assert res.code == 0 and "Redis client times out under load" in res.out
    assert "rebuil" in res.err and len(res.err.splitlines()) == 1


def test_first_recalls_racing_each_other_all_answer(tmp_path, team) -> None:  # type: ignore[no-untyped-def]
    env = {"PATH": "/usr/bin:/bin", "TEAMAI_HOME": str(tmp_path / "home"), "TEAMAI_TEAM": str(team)}
    procs = [subprocess.Popen([sys.executable, "-m", "reference", "recall", "redis"], cwd=ROOT, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in range(6)]
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err.decode()
        assert b"Redis client times out under load" in out
    scope = config.load(env).active
    with sqlite3.connect(scope.index_path) as conn:
        assert conn.execute("SELECT count(*) FROM assets").fetchone()[0] > 0
    assert len(_log_runs(scope)) == 6


# --- the recall log: busy or unwritable, the agent still gets its hits --------------------------

def test_a_busy_recall_log_still_prints_the_hits_without_a_run_id(cli, team) -> None:  # type: ignore[no-untyped-def]
    assert cli("index").code == 0
    scope = _scope(cli)
    with storage.locked(scope.log_lock, "the recall log", 0):
        res = cli("recall", "redis", env={"TEAMAI_LOCK_WAIT": "0.2"})
        nothing = cli("recall", "zebra", "quokka", env={"TEAMAI_LOCK_WAIT": "0.2"})
    assert res.code == 0, res.err
    assert "Redis client times out under load" in res.out
    assert START_WITHOUT_RUN.search(res.out) and "run=" not in res.out
    assert len(res.err.splitlines()) == 1 and "recall log" in res.err and "not recorded" in res.err
    assert nothing.code == 0 and nothing.out == 'No matching learnings found for "zebra quokka".\n'
    assert _log_runs(scope) == []
    votes = Path(scope.ledger_path).read_text()
    assert "redis-timeout" in votes and "recalled_count: 1" in votes  # the hits were shown


def _unwritable_home(tmp_path: Path) -> Path:
    blocker = tmp_path / "blocker"
    blocker.write_text("a file where the state folder should be\n")
    return blocker / "home"


def test_an_unwritable_state_folder_still_answers_recall(cli, team, tmp_path) -> None:  # type: ignore[no-untyped-def]
    env = {"TEAMAI_HOME": str(_unwritable_home(tmp_path))}
    res = cli("recall", "redis", "timeout", env=env)
    assert res.code == 0, res.err
    assert re.search(r"^\[1/\d\] \[learnings\] Redis client times out under load \[workspace\]$", res.out, re.M)
    assert START_WITHOUT_RUN.search(res.out)
    assert len(res.err.splitlines()) == 1 and "Traceback" not in res.err, res.err  # one cause, one line
    assert all(line.startswith("teamai-ref: warning: ") for line in res.err.splitlines())
    check = cli("recall", "redis", "client", "--check", env=env)
    assert (check.code, check.err) == (0, "") and check.out.startswith("RELEVANT score=")
    low = cli("recall", "zebra", "--check", env=env)
    assert (low.code, low.out) == (0, "NOT_RELEVANT score=0.0 threshold=0.0\n")


def test_a_state_folder_that_fails_each_write_is_said_once(cli, team, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A full (or read-only) state folder fails the index, the run line and the ledger alike: recall
    prints its hits and one warning for the folder, not one per file it could not write."""
    import errno

    from reference.recall import index, index_build
    from reference.state import runlog

    assert cli("recall", "redis").code == 0  # a stored index, a log, a ledger

    def full(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise OSError(errno.ENOSPC, "No space left on device")

    stored_refresh = index_build.refresh

    def index_full(conn, *args, **kwargs):  # type: ignore[no-untyped-def]
        if conn.execute("PRAGMA database_list").fetchone()[2]:  # the stored file, not a copy in memory
            raise index.IndexUnwritable("the index cannot be written (No space left on device)")
        return stored_refresh(conn, *args, **kwargs)

    monkeypatch.setattr(index_build, "refresh", index_full)
    monkeypatch.setattr(runlog, "append_bytes", full)
    (team / "learnings" / "new.md").write_text("# Redis pool sizing\nredis\n", encoding="utf-8")
    res = cli("recall", "redis")
    assert res.code == 0 and START_WITHOUT_RUN.search(res.out), res.err
    assert len(res.err.splitlines()) == 1 and "No space left on device" in res.err, res.err


@pytest.mark.parametrize("argv", [("index",), ("pull",)])
def test_an_unwritable_state_folder_is_one_line_and_exit_3(cli, tmp_path, argv) -> None:  # type: ignore[no-untyped-def]
    res = cli(*argv, env={"TEAMAI_HOME": str(_unwritable_home(tmp_path))})
    assert res.code == 3, res.err
    assert len(res.err.splitlines()) == 1 and res.err.startswith("teamai-ref: error: ")
    assert "TEAMAI_HOME" in res.err


def test_an_unwritable_state_folder_as_a_real_process(cli, tmp_path) -> None:  # type: ignore[no-untyped-def]
    env = {"TEAMAI_HOME": str(_unwritable_home(tmp_path))}
    assert cli.subprocess("recall", "redis", env=env).code == 0
    res = cli.subprocess("index", env=env)
    assert res.code == 3 and "Traceback" not in res.err


def test_check_writes_nothing_at_all(cli, team, home) -> None:  # type: ignore[no-untyped-def]
    res = cli("recall", "redis", "--check")
    assert res.code == 0 and res.out.startswith("RELEVANT score=")
    assert not home.exists()  # no index, no log, no ledger, not even the folder
    assert cli("recall", "redis").code == 0
    state = Path(_scope(cli).state_dir)
    before = _files(state)
    (team / "learnings" / "quokka.md").write_text("---\ntitle: Quokka habits\n---\nquokka\n")
    assert 'title="Quokka habits"' in cli("recall", "quokka", "--check").out  # sees the new file
    assert _files(state) == before  # not a byte, not even SQLite's -wal or -shm
