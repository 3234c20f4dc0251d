"""The storage layer's own rules, on real files: an append starts on a fresh line whatever a write
cut short left, a crashed write's temp files are removed by the next writer of the same file (and
only those no live writer holds), and an intent that is not whole reads as none."""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference.state import storage
from tests.conftest import ROOT


@given(st.binary(max_size=40).filter(lambda b: not b.endswith(b"\n")), st.binary(min_size=1, max_size=20).filter(lambda b: b"\n" not in b))
def test_an_append_after_a_torn_line_starts_on_a_line_of_its_own(tmp_path_factory, torn, line):
    path = tmp_path_factory.mktemp("append") / "log"
    path.write_bytes(b"whole\n" + torn)
    storage.append_bytes(str(path), line + b"\n")
    assert path.read_bytes().split(b"\n")[-2] == line  # whole, not glued to the torn bytes
    assert path.read_bytes().startswith(b"whole\n" + torn)  # nothing that was there is lost


def test_a_hook_after_a_torn_log_line_records_a_whole_line(cli, team) -> None:  # type: ignore[no-untyped-def]
    from reference.team import config

    scope = config.load(cli.env).active
    storage.ensure_dir(scope.state_dir)
    Path(scope.log_path).write_bytes(b'{"kind":"evidence","ts":"2026-')  # a write a full disk cut short
    payload = {"session_id": "s1", "tool_name": "Read", "cwd": str(team),
               "tool_input": {"file_path": str(team / "learnings" / "redis-timeout.md")}}
    subprocess.run([sys.executable, "-m", "reference", "hook-dispatch", "post-tool-use", "--tool", "claude"],
                   input=json.dumps(payload).encode(), env={**cli.env, "PYTHONPATH": str(ROOT)}, cwd=ROOT,
                   check=True, timeout=60)
    last = Path(scope.log_path).read_bytes().split(b"\n")[-2]
    assert json.loads(last)["kind"] == "evidence"


def test_a_crashed_writes_temp_is_removed_by_the_next_writer_and_a_live_one_is_kept(tmp_path) -> None:
    target = tmp_path / "votes.yaml"
    dead = tmp_path / f"votes.yaml{storage.TEMP}{'a' * 16}"
    dead.write_bytes(b"half")
    live = tmp_path / f"votes.yaml{storage.TEMP}{'b' * 16}"
    live.write_bytes(b"being written")
    other = tmp_path / f"other.yaml{storage.TEMP}{'c' * 16}"
    other.write_bytes(b"not this file's")
    fd = os.open(live, os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_EX)  # a writer that is still at it
    try:
        storage.write_atomic(str(target), b"new\n")
    finally:
        os.close(fd)
    assert target.read_bytes() == b"new\n"
    assert not dead.exists() and live.exists() and other.exists()
    storage.write_after(str(tmp_path / "other.yaml"), 0, b"x\n")  # an in-place writer sweeps too
    assert not other.exists()


def test_an_intent_that_is_not_whole_reads_as_none(tmp_path) -> None:
    path = str(tmp_path / "votes.yaml.intent")
    storage.write_intent(path, [b"meta", b"", b"data\n"])
    assert storage.read_intent(path) == [b"meta", b"", b"data\n"]
    whole = Path(path).read_bytes()
    for cut in range(len(whole)):
        Path(path).write_bytes(whole[:cut])
        assert storage.read_intent(path) is None
    Path(path).write_bytes(whole.replace(b"data", b"dada"))
    assert storage.read_intent(path) is None


@given(st.one_of(st.text(max_size=30), st.floats().map(repr), st.sampled_from(["inf", "-inf", "nan", "1e309", "1e300"])))
def test_the_lock_wait_is_always_a_bounded_number_of_seconds(raw: str) -> None:
    """``inf`` (or ``1e309``) made every recall fail with ``OverflowError`` when SQLite's busy
    timeout was set from it; ``nan`` and words fall back to the default."""
    wait = storage.lock_wait({"TEAMAI_LOCK_WAIT": raw})
    assert 0.0 <= wait <= storage.MAX_LOCK_WAIT


@pytest.mark.parametrize("raw", ["inf", "1e309", "1e300"])
def test_recall_answers_under_an_endless_lock_wait(cli, raw: str) -> None:  # type: ignore[no-untyped-def]
    res = cli("recall", "redis", env={"TEAMAI_LOCK_WAIT": raw})
    assert res.code == 0 and res.out.startswith("--- [teamai:recall:start] ---"), res.err
