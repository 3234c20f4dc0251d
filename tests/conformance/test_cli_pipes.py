"""A reader that stops early (``teamai-conformance list | head``) is not an error: every command
that prints finishes its work quietly, as a real process writing into a pipe nobody reads."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conformance.running import protocol

ROOT = Path(__file__).resolve().parents[2]
CORPUS = Path(__file__).resolve().parent / "corpus"


def _closed_pipe_run(argv: list[str], stdin: bytes = b"", stderr_too: bool = False) -> tuple[int, str]:
    """Run ``python -m conformance ARGV`` with stdout (and maybe stderr) on a pipe whose reading end
    is already closed, so the first write meets EPIPE; returns the exit code and what stderr held."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        proc = subprocess.run([sys.executable, "-m", "conformance", *argv], input=stdin, stdout=write_end,
                              stderr=write_end if stderr_too else subprocess.PIPE, cwd=ROOT, timeout=300)
    finally:
        os.close(write_end)
    return proc.returncode, (proc.stderr or b"").decode("utf-8", "replace")


COMMANDS = [
    (["--corpus", str(CORPUS), "list"], 0),
    (["--corpus", str(CORPUS), "list", "--json"], 0),
    (["--corpus", str(CORPUS), "show", "fx-recall-prints-hit"], 0),
    (["--corpus", str(CORPUS), "lint"], 0),
    (["--corpus", str(CORPUS), "run", "--only", "fx-recall-prints-hit"], 0),
    (["--corpus", str(CORPUS), "run", "--only", "fx-designed-to-fail"], 1),
    (["--help"], 0),
    (["run", "--help"], 0),
    ([], 2),
]


@pytest.mark.parametrize("argv, code", COMMANDS, ids=lambda v: " ".join(v[2:] if "--corpus" in v else v)
                         if isinstance(v, list) else str(v))
def test_a_closed_stdout_gives_no_traceback_and_the_usual_exit(argv, code):
    got, err = _closed_pipe_run(argv)
    assert "Traceback" not in err and "BrokenPipe" not in err and "Exception ignored" not in err, err
    assert got == code, err


def test_the_whole_corpus_listing_into_a_closed_pipe():
    """The project's own corpus prints far more than one pipe buffer."""
    got, err = _closed_pipe_run(["list"])
    assert (got, err) == (0, "")


def test_stdout_and_stderr_both_closed_still_exit_normally():
    got, _ = _closed_pipe_run(["--corpus", str(CORPUS), "run", "--only", "fx-designed-to-fail"], stderr_too=True)
    assert got == 1


def test_a_run_whose_terminal_report_cannot_be_written_still_writes_its_files(tmp_path):
    report = tmp_path / "r.jsonl"
    got, err = _closed_pipe_run(["--corpus", str(CORPUS), "run", "--only", "fx-recall-prints-hit",
                                 "--report", str(report)])
    assert (got, err) == (0, "")
    assert report.read_text().splitlines()[-1].startswith('{"kind": "footer"')


def test_the_driver_command_ends_quietly_when_the_harness_stops_reading():
    start = protocol.encode({"cmd": "start", "seq": 1, "protocol": 1})
    got, err = _closed_pipe_run(["driver", "reference"], stdin=start + start)
    assert "Traceback" not in err and "BrokenPipe" not in err, err
    assert got == 0


def test_text_the_stream_cannot_encode_is_written_escaped_not_raised():
    """A case's message can quote a path that is not valid Unicode (a lone surrogate, as a log line
    escapes one); the report is still written, that character as its escape."""
    import io

    from conformance import pipes

    raw = io.BytesIO()
    stream = io.TextIOWrapper(raw, encoding="utf-8", newline="")
    sink = pipes.Sink(stream)
    assert sink.write("path /tmp/x\ud800y.md\n") == len("path /tmp/x\ud800y.md\n")
    sink.write("next line\n")
    sink.flush()
    assert raw.getvalue().decode("utf-8") == "path /tmp/x\\ud800y.md\nnext line\n"


FULL = "/dev/full"


def _full_device_run(argv: list[str]) -> tuple[int, str]:
    with open(FULL, "wb") as full:
        proc = subprocess.run([sys.executable, "-m", "conformance", *argv], stdout=full, stderr=subprocess.PIPE,
                              cwd=ROOT, timeout=300)
    return proc.returncode, proc.stderr.decode("utf-8", "replace")


@pytest.mark.skipif(not os.path.exists(FULL), reason="needs /dev/full (Linux)")
@pytest.mark.parametrize("argv, code", [(["--help"], 1), (["run", "--help"], 1), ([], 2),
                                        (["--corpus", str(CORPUS), "list"], 1),
                                        (["--corpus", str(CORPUS), "run", "--only", "fx-designed-to-fail"], 1)],
                         ids=["help", "run-help", "no-command", "list", "failing-run"])
def test_output_on_a_full_device_is_an_error_that_says_so(argv, code):
    """A full disk is not a reader that went away: the output is lost, and the exit says it.
    Before, help ended with exit 0 and nothing written, and the other commands in a traceback."""
    got, err = _full_device_run(argv)
    assert err.endswith("teamai-conformance: error: the output cannot be written: No space left on device\n"), err
    assert "Traceback" not in err
    assert got == code


@pytest.mark.skipif(not os.path.exists(FULL), reason="needs /dev/full (Linux)")
def test_a_run_on_a_full_device_still_writes_its_report(tmp_path):
    report = tmp_path / "r.jsonl"
    got, err = _full_device_run(["--corpus", str(CORPUS), "run", "--only", "fx-recall-prints-hit",
                                 "--report", str(report)])
    assert got == 1 and "the output cannot be written" in err
    assert report.read_text().splitlines()[-1].startswith('{"kind": "footer"')
