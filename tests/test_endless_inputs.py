"""Inputs that never end: ``/dev/zero`` as a payload, a file named on the command line or in the
environment. Each was read whole, so it took all the memory and ended in ``MemoryError`` (or held
a hook for ever); each is now read up to its reader's limit (``reference/bounded.py``)."""

from __future__ import annotations

import io
import os
import subprocess
import sys
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
