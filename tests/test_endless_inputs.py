"""Inputs that never end: ``/dev/zero`` as a payload, a file named on the command line or in the
environment. Each was read whole, so it took all the memory and ended in ``MemoryError`` (or held
a hook for ever); each is now read up to its reader's limit (``reference/bounded.py``). And a
payload whose pipe its writer keeps open: whole, but never ended, it held the hook for ever."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference import bounded

ROOT = Path(__file__).resolve().parent.parent
ZERO = "/dev/zero"
needs_zero = pytest.mark.skipif(not os.path.exists(ZERO), reason="needs /dev/zero")


@given(st.binary(max_size=64), st.integers(min_value=0, max_value=64))
def test_read_gives_what_fits_and_refuses_the_rest(data: bytes, limit: int) -> None:
    if len(data) <= limit:
        assert bounded.read(io.BytesIO(data), limit) == data
    else:
        with pytest.raises(bounded.TooLarge):
            bounded.read(io.BytesIO(data), limit)


@given(st.binary(max_size=64), st.integers(min_value=0, max_value=64))
def test_drain_reads_at_most_a_chunk_past_its_limit(data: bytes, limit: int) -> None:
    stream = io.BytesIO(data)
    bounded.drain(stream, limit)
    assert stream.tell() == len(data) if len(data) <= limit else limit <= stream.tell() <= limit + bounded.CHUNK


def capped() -> None:
    """In the child: 2 GiB of address space, so a reader that comes back unbounded fails at once
    with ``MemoryError`` instead of taking the machine's memory."""
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))


def _run(cli, *argv: str, env: dict[str, str] | None = None, stdin_zero: bool = False):  # type: ignore[no-untyped-def]
    with open(ZERO, "rb") if stdin_zero else open(os.devnull, "rb") as stdin:
        return subprocess.run([sys.executable, "-m", "reference", *argv], stdin=stdin, capture_output=True,
                              env={**cli.env, **(env or {})}, cwd=ROOT, timeout=300, preexec_fn=capped)


@needs_zero
def test_replay_of_an_endless_file_is_refused(cli) -> None:  # type: ignore[no-untyped-def]
    res = _run(cli, "replay", ZERO)
    assert res.returncode == 3
    assert res.stderr.decode() == f"teamai-ref: error: {ZERO}: cannot read a JSON payload: larger than 64 MiB\n"


@needs_zero
def test_contribute_of_an_endless_file_publishes_nothing(cli, team: Path) -> None:  # type: ignore[no-untyped-def]
    before = sorted(p for p in team.rglob("*"))
    res = _run(cli, "contribute", "--file", ZERO, "--title", "Zero")
    assert res.returncode == 3 and "too large for a learning; nothing was published" in res.stderr.decode()
    assert sorted(p for p in team.rglob("*")) == before


@needs_zero
def test_an_endless_withheld_list_counts_as_unreadable(cli) -> None:  # type: ignore[no-untyped-def]
    res = _run(cli, "recall", "redis", env={"TEAMAI_WITHHELD_FILE": ZERO})
    assert res.returncode == 0 and res.stdout.startswith(b"--- [teamai:recall:start] ---"), res.stderr


@needs_zero
def test_capture_of_an_endless_payload_exits_0_and_says_why(cli, home: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    res = _run(cli, "capture", "post-tool-use", "--tool", "claude", "--out", str(tmp_path / "caps"), stdin_zero=True)
    assert res.returncode == 0 and res.stdout == b""
    assert not (tmp_path / "caps").exists() or not any((tmp_path / "caps").iterdir())
    notes = "".join(p.read_text(encoding="utf-8") for p in home.rglob("hook-debug.log"))
    assert "agent=claude event=post-tool-use capture: the payload did not end" in notes


@needs_zero
@pytest.mark.parametrize("through", ["stdin", "--payload-file"])
def test_the_hook_drops_an_endless_payload_and_returns(cli, home: Path, through: str) -> None:  # type: ignore[no-untyped-def]
    """Before, the hook drained such input for ever and held the agent's tool call; it now drops at
    most ``dispatch.MAX_DRAIN`` bytes past the limit. The timeout only guards the run from a hang."""
    argv = [sys.executable, "-I", "-S", str(ROOT / "reference" / "hook" / "fast.py"), "post-tool-use", "--tool", "claude"]
    if through == "--payload-file":
        argv += ["--payload-file", ZERO]
    with open(ZERO if through == "stdin" else os.devnull, "rb") as stdin:
        res = subprocess.run(argv, stdin=stdin, capture_output=True, env=cli.env, timeout=300, preexec_fn=capped)
    assert res.returncode == 0 and res.stdout == b""
    assert not list(home.rglob("recall-log.jsonl"))  # nothing recorded
    notes = "".join(p.read_text(encoding="utf-8") for p in home.rglob("hook-debug.log")) + res.stderr.decode()
    assert "payload larger than" in notes


@needs_zero
@pytest.mark.parametrize("argv, code, said", [
    (["import-capture", ZERO, "--id", "cap-zero", "--no-snapshot"], 3, f"{ZERO}: cannot be read: larger than 64 MiB"),
    (["report", ZERO], 2, f"{ZERO}: cannot be read: larger than 256 MiB"),
    (["run", "--expectations", ZERO, "--only", "accept-bob-both-sed"], 3, f"{ZERO}: larger than 16 MiB"),
])
def test_the_harness_refuses_an_endless_file(tmp_path: Path, argv: list[str], code: int, said: str) -> None:
    res = subprocess.run([sys.executable, "-m", "conformance", *argv], capture_output=True, cwd=tmp_path,
                         env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=300, preexec_fn=capped)
    assert res.returncode == code, res.stderr
    assert res.stderr.decode() == f"teamai-conformance: error: {said}\n"


# A pipe its writer keeps open: the payload is whole, but its end never comes.


def _open_pipe(*pieces: bytes, pause: float = 0.0) -> tuple[int, threading.Thread, list[int]]:
    """A pipe's reading end; a thread writes ``pieces`` into it (``pause`` seconds apart) and keeps
    the writing end open until the test closes it (the returned list's descriptor)."""
    read_end, write_end = os.pipe()

    def write() -> None:
        for n, piece in enumerate(pieces):
            if n:
                time.sleep(pause)
            os.write(write_end, piece)

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    return read_end, writer, [write_end]


def _close(fds: list[int]) -> None:
    for fd in fds:
        os.close(fd)


def test_a_whole_object_is_the_payload_though_its_pipe_stays_open() -> None:
    read_end, writer, keep = _open_pipe(b'{"tool_name": "Read",', b' "n": 1}\n', pause=3 * bounded.SETTLE)
    try:
        with os.fdopen(read_end, "rb", buffering=0) as stream:
            # the first piece ends with a pause longer than SETTLE, but it is no whole object yet
            assert bounded.payload(stream, 1 << 20) == b'{"tool_name": "Read", "n": 1}\n'
        writer.join()
    finally:
        _close(keep)


@pytest.mark.parametrize("pieces", [(b'{"a": 1}', b" trailing words"), (b"[1, 2]", b""), (b"{}", b"{}")])
def test_what_follows_soon_is_read_too_and_a_closed_pipe_ends_the_read(pieces: tuple[bytes, ...]) -> None:
    """Only a whole object followed by silence ends the read early: bytes after it (the payload is
    then malformed, as before) and a JSON text that is no object are read to the pipe's end."""
    read_end, writer, keep = _open_pipe(*pieces)
    writer.join()
    _close(keep)
    with os.fdopen(read_end, "rb", buffering=0) as stream:
        assert bounded.payload(stream, 1 << 20) == b"".join(pieces)


@given(st.binary(max_size=4096), st.integers(min_value=0, max_value=4096))
def test_payload_of_a_closed_pipe_is_read_of_it(data: bytes, limit: int) -> None:
    read_end, write_end = os.pipe()
    os.write(write_end, data)
    os.close(write_end)
    with os.fdopen(read_end, "rb", buffering=0) as stream:
        if len(data) <= limit:
            assert bounded.payload(stream, limit) == data
        else:
            with pytest.raises(bounded.TooLarge):
                bounded.payload(stream, limit)


def test_drain_stops_when_a_writer_falls_silent_with_its_pipe_open() -> None:
    read_end, writer, keep = _open_pipe(b"x" * 5000)
    writer.join()
    with os.fdopen(read_end, "rb", buffering=0) as stream:
        draining = threading.Thread(target=bounded.drain, args=(stream, 1 << 20), daemon=True)
        draining.start()
        draining.join(timeout=30)  # before, the read blocked for ever
        stuck = draining.is_alive()
        _close(keep)  # the pipe's end frees a reader still waiting on it
        draining.join()
    assert not stuck, "drain waited for the end of a pipe its writer kept open"


def _left_open(argv: list[str], env: dict[str, str], payload: bytes) -> tuple[int, bytes]:
    """Run ``argv`` with ``payload`` on a stdin that stays open; its exit code and stdout."""
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                            cwd=ROOT)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(payload)
    proc.stdin.flush()
    try:
        code = proc.wait(timeout=60)  # only guards the suite: before, the wait never ended
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        pytest.fail("the process waited for the end of a pipe its writer kept open")
    finally:
        proc.stdin.close()
    out = proc.stdout.read()
    proc.stdout.close()
    assert proc.stderr is not None
    proc.stderr.close()
    return code, out


def _read_payload(team: Path) -> bytes:
    doc = team / "learnings" / "redis-timeout.md"
    return json.dumps({"session_id": "ses-open-pipe", "hook_event_name": "PostToolUse", "tool_name": "Read",
                       "tool_input": {"file_path": str(doc)}, "tool_response": {"type": "text"},
                       "cwd": str(team)}).encode()


def test_the_hook_records_a_payload_whose_pipe_its_agent_keeps_open(cli, home: Path, team: Path) -> None:  # type: ignore[no-untyped-def]
    argv = [sys.executable, "-I", "-S", str(ROOT / "reference" / "hook" / "fast.py"), "post-tool-use", "--tool", "claude"]
    code, out = _left_open(argv, cli.env, _read_payload(team))
    assert (code, out) == (0, b"")
    lines = [json.loads(line) for p in home.rglob("recall-log.jsonl") for line in p.read_text().splitlines()]
    assert [(x["kind"], x["session"]) for x in lines] == [("evidence", "ses-open-pipe")]


def test_capture_passes_on_a_payload_whose_pipe_its_agent_keeps_open(cli, team: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    payload = _read_payload(team)
    argv = [sys.executable, "-m", "reference", "capture", "post-tool-use", "--tool", "claude", "--out",
            str(tmp_path / "caps"), "--", "cat"]
    code, out = _left_open(argv, cli.env, payload)
    assert (code, out) == (0, payload)  # the inner hook got the payload, and its end
    assert [p.name for p in (tmp_path / "caps").iterdir()]
