"""A Stop or a pull killed (or failing with a full disk) at any write, fsync, truncate, rename or
unlink it makes, followed by the next Stop and pull, ends with exactly the ledgers of a run that was
never interrupted: no vote lost, none counted twice, one consumed mark per decided read, and no
temp file or intent left behind.

The faults are injected from inside real processes by the storage layer's own hook
(``TEAMAI_FAULT``, ``reference/state/storage.py``): each point is reached in a fresh ``teamai-ref``
process, which is killed there (``SIGKILL``, nothing runs after it) or sees ``ENOSPC`` (a write
lands half its bytes first). The points are counted by running until a process is no longer
reached by its fault, so a write added to a Stop is covered without touching this file.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from reference.state import ledger, upvoted_file
from reference.team import config

from .logs import claim, evidence, link, run, ts, write

ROOT = Path(__file__).resolve().parents[2]
HOUR = 3600.0
T_STOP = 10 * HOUR
T_PULL = 11 * HOUR


def _history(team: Path) -> list[dict[str, Any]]:
    """Three families: ses-a (with a child session) credits three docs at its Stop; ses-b and
    ses-c are left to the pull, ses-c with a read covered by an earlier one."""
    def doc(key: str) -> dict[str, Any]:
        return {"key": key, "type": "learning", "scope": "workspace",
                "path": str(team / "learnings" / f"{key}.md"), "score": 1.0, "eligible": True}

    def path(key: str) -> str:
        return str(team / "learnings" / f"{key}.md")

    return [
        run(0, "r-a1", "ses-a", [doc("d1"), doc("d2")]), claim(1, "r-a1", "ses-a"),
        link(2, "ses-a-child", "ses-a"),
        evidence(10, "ses-a", path("d1")), evidence(11, "ses-a-child", path("d2")),
        run(20, "r-a2", "ses-a", [doc("d3")]), evidence(30, "ses-a", path("d3")),
        run(40, "r-b1", "ses-b", [doc("d1"), doc("d4")]), claim(41, "r-b1", "ses-b"),
        evidence(50, "ses-b", path("d1")), evidence(51, "ses-b", path("d4")),
        run(60, "r-c1", "ses-c", [doc("d5")]), evidence(70, "ses-c", path("d5")),
        evidence(2 * HOUR, "ses-c", path("d5")),
    ]


class World:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.team = root / "team"
        (self.team / "learnings").mkdir(parents=True)
        self.home = root / "home"
        self.env = {k: v for k, v in os.environ.items() if not k.startswith(("TEAMAI_", "CLAUDE", "CODEX"))}
        self.env.update({"TEAMAI_HOME": str(self.home), "TEAMAI_TEAM": str(self.team), "TEAMAI_LOCK_WAIT": "5",
                         "PYTHONPATH": str(ROOT)})
        self.scope = config.load(self.env).active
        write(Path(self.scope.log_path), _history(self.team))

    def cmd(self, step: str, fault: str | None = None) -> tuple[int, str]:
        env = dict(self.env)
        if step == "stop":
            argv = ["hook-dispatch", "stop", "--tool", "claude"]
            env["TEAMAI_NOW"] = ts(T_STOP)
            stdin = json.dumps({"session_id": "ses-a", "hook_event_name": "Stop"}).encode()
        else:
            argv = ["pull"]
            env["TEAMAI_NOW"] = ts(T_PULL)
            stdin = b""
        if fault:
            env["TEAMAI_FAULT"] = fault
        proc = subprocess.run([sys.executable, "-m", "reference", *argv], input=stdin, env=env, cwd=ROOT,
                              capture_output=True, timeout=60)
        return proc.returncode, proc.stderr.decode()

    def outcome(self) -> dict[str, Any]:
        scope = self.scope
        votes = ledger.read(scope.ledger_path)
        credits = upvoted_file.load(scope.upvoted_path, "x", lambda m: None)
        marks: dict[tuple[str, str, str], list[tuple[Any, ...]]] = {}
        for raw in Path(scope.log_path).read_bytes().split(b"\n"):
            try:
                rec = json.loads(raw)
            except ValueError:
                continue
            if isinstance(rec, dict) and rec.get("kind") == "consumed":
                ev = rec["evidence"]
                marks.setdefault((ev["ts"], ev["session"], ev["path"]), []).append(
                    (rec["ts"], rec["session"], rec["key"], rec["run"], rec["credited"]))
        leftovers = sorted(n for n in os.listdir(scope.state_dir) if ".tmp-" in n or n.endswith(".intent"))
        return {"votes": votes, "guards": credits.sessions, "reads": credits.reads, "marks": marks,
                "leftovers": leftovers}


def _fresh(root: Path) -> World:
    """Every world at the same place, so that paths (and the state folder's name) compare."""
    if root.exists():
        shutil.rmtree(root)
    return World(root)


def _ok(result: tuple[int, str]) -> bool:
    return result[0] == 0 and "fault injected" not in result[1]


def _baseline(root: Path) -> dict[str, Any]:
    world = _fresh(root)
    assert _ok(world.cmd("stop")) and _ok(world.cmd("pull"))
    out = world.outcome()
    assert sum(v["upvoted_count"] for v in out["votes"].values()) == 6  # d1 d2 d3 (a), d1 d4 (b), d5 (c)
    assert all(len(m) == 1 for m in out["marks"].values()) and len(out["marks"]) == 7
    return out


def _sweep(tmp_path: Path, killed: str, action: str) -> int:
    """Every fault point of ``killed`` (the Stop or the pull), before and after each step, until
    a process no longer reaches its point; returns how many points were met."""
    root = tmp_path / "world"
    expected = _baseline(root)
    reached = 0
    for n in range(1, 200):
        met = 0
        for when in ("before", "after"):
            world = _fresh(root)
            if killed == "pull":
                assert _ok(world.cmd("stop"))
            code, err = world.cmd(killed, f"{n}:{when}:{action}")
            if "fault injected" in err:
                met += 1
                if action == "kill":
                    assert code == -signal.SIGKILL
            # what comes next: the next Stop, then the pull
            if killed == "stop":
                assert _ok(world.cmd("stop"))
            assert _ok(world.cmd("pull"))
            assert world.outcome() == expected, f"{killed} {action} {when} step {n}"
        reached += met
        if not met:
            return reached
    raise AssertionError("more than 200 steps")


@pytest.mark.parametrize("killed", ["stop", "pull"])
def test_a_kill_at_any_step_is_made_good_by_the_next_stop_and_pull(tmp_path, killed):
    reached = _sweep(tmp_path, killed, "kill")
    assert reached >= 20  # both sides of every step a Stop (or a pull) makes


@pytest.mark.parametrize("killed", ["stop", "pull"])
def test_a_full_disk_at_any_step_loses_nothing_once_there_is_room_again(tmp_path, killed):
    reached = _sweep(tmp_path, killed, "enospc")
    assert reached >= 20
