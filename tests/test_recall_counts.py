"""A recall that stops between its run line and the votes ledger (killed, a full disk, a busy
ledger) never leaves ``recalled_count`` short for good: its counts were left pending before the run
line was written, and the next recall, Stop or pull makes them, once.

Faults are injected by the storage layer's own hook (``TEAMAI_FAULT``) in real ``teamai-ref``
processes, at every write, fsync, truncate, rename and unlink a recall makes.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from reference.state import ledger, storage
from reference.team import config
from tests.conftest import ROOT


def _run(cli, *argv: str, fault: str | None = None) -> subprocess.CompletedProcess[bytes]:  # type: ignore[no-untyped-def]
    env = {**cli.env, "PYTHONPATH": str(ROOT), "TEAMAI_NOW": "2026-12-01T10:00:00Z"}
    if fault:
        env["TEAMAI_FAULT"] = fault
    return subprocess.run([sys.executable, "-m", "reference", *argv], env=env, cwd=ROOT, capture_output=True,
                          timeout=120)


def _runs(scope: config.Scope) -> int:
    path = Path(scope.log_path)
    if not path.exists():
        return 0
    count = 0
    for raw in path.read_bytes().split(b"\n"):
        try:
            count += json.loads(raw).get("kind") == "run"
        except (ValueError, AttributeError):
            pass
    return count


def _counts(scope: config.Scope) -> dict[str, int]:
    return {k: v["recalled_count"] for k, v in ledger.read(scope.ledger_path).items()}


@pytest.mark.parametrize("action", ["kill", "enospc"])
def test_a_recall_stopped_at_any_step_is_counted_by_the_next_pull(cli, team, home, action) -> None:  # type: ignore[no-untyped-def]
    scope = config.load(cli.env).active
    assert _run(cli, "index").returncode == 0  # the index is SQLite's own (not faulted): built first
    baseline = _run(cli, "recall", "redis timeout")
    assert baseline.returncode == 0
    want = _counts(scope)
    assert want and set(want.values()) == {1}
    reached = 0
    for n in range(1, 100):
        met = 0
        for when in ("before", "after"):
            for leftover in os.listdir(scope.state_dir):
                if storage.PENDING in leftover or leftover.endswith(".intent"):
                    os.unlink(os.path.join(scope.state_dir, leftover))
            for name in ("votes.yaml", "recall-log.jsonl"):
                if os.path.exists(os.path.join(scope.state_dir, name)):
                    os.unlink(os.path.join(scope.state_dir, name))
            done = _run(cli, "recall", "redis timeout", fault=f"{n}:{when}:{action}")
            met += b"fault injected" in done.stderr
            if action == "kill" and b"fault injected" in done.stderr:
                assert done.returncode == -signal.SIGKILL
            ran = _runs(scope)
            assert _run(cli, "pull").returncode == 0
            got = _counts(scope)
            if ran:  # its run line is in the log: its hits are counted, once
                assert got == want, f"{action} {when} step {n}"
            else:  # stopped before: counted once (it had its hits) or not at all, never twice
                assert got in ({}, want), f"{action} {when} step {n}"
            left = [f for f in os.listdir(scope.state_dir) if storage.PENDING in f or f.endswith(".intent")
                    or storage.TEMP in f]
            assert not left, f"{action} {when} step {n}: {left}"
        reached += met
        if not met:
            assert reached >= 6
            return
    raise AssertionError("more than 100 steps")


def test_a_recall_that_finds_the_ledger_busy_is_counted_by_the_next_pull(cli, team) -> None:  # type: ignore[no-untyped-def]
    scope = config.load(cli.env).active
    storage.ensure_dir(scope.state_dir)
    with storage.locked(scope.ledger_lock, "test"):
        out = cli("recall", "redis timeout", env={"TEAMAI_LOCK_WAIT": "0.1"})
    assert out.code == 0 and "the next recall, Stop or pull counts it" in out.err
    assert _counts(scope) == {}
    assert cli("pull").code == 0
    counted = _counts(scope)
    assert counted and set(counted.values()) == {1}
    assert cli("pull").code == 0 and _counts(scope) == counted  # once
    assert not storage.pending(scope.ledger_path)
