"""The process as callers really start it: its streams closed (``<&-``, ``>&-``), on a full disk or
in an encoding that cannot spell a Chinese title, its working folder deleted. Each case runs the
real command line (and the hook's own entry file) as a process, since only a process has these."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FAST = str(ROOT / "reference" / "hook" / "fast.py")


def _shell(cli, line: str, *argv: str) -> subprocess.CompletedProcess[bytes]:  # type: ignore[no-untyped-def]
    """``python -m reference ARGV`` with the shell redirections of ``line`` (``$@`` is the command)."""
    return subprocess.run(["sh", "-c", line, "sh", sys.executable, "-m", "reference", *argv], capture_output=True,
                          env=cli.env, cwd=ROOT, timeout=120)


def _runs(home: Path) -> list[dict]:
    log = next(home.rglob("recall-log.jsonl"), None)
    assert log is not None, sorted(p.name for p in home.rglob("*"))
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines() if '"run"' in line]


def test_recall_with_its_input_closed_answers(cli) -> None:  # type: ignore[no-untyped-def]
    res = _shell(cli, '"$@" <&-', "recall", "redis")
    assert res.returncode == 0, res.stderr
    assert res.stdout.startswith(b"--- [teamai:recall:start] ---") and res.stderr == b""


def test_recall_with_its_output_closed_still_records_the_run(cli, home: Path) -> None:  # type: ignore[no-untyped-def]
    res = _shell(cli, '"$@" >&-', "recall", "redis")
    assert res.returncode == 0 and res.stderr == b"", res.stderr
    assert len(_runs(home)) == 1  # the work was done; only the printing went nowhere


def test_warnings_with_stderr_closed_do_not_fail_the_command(cli, team: Path) -> None:  # type: ignore[no-untyped-def]
    (team / "docs" / "broken.md").write_text("---\ntitle: [redis\n---\nredis notes\n", encoding="utf-8")
    res = _shell(cli, '"$@" 2>&-', "recall", "redis")
    assert res.returncode == 0 and b"--- [teamai:recall:start] ---" in res.stdout


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")
def test_output_on_a_full_device_is_named_as_the_output(cli) -> None:  # type: ignore[no-untyped-def]
    """Before, the error blamed the state folder and told the user to change ``TEAMAI_HOME``."""
    res = _shell(cli, '"$@" >/dev/full', "recall", "redis")
    err = res.stderr.decode()
    assert res.returncode == 3, err
    assert err == "teamai-ref: error: the output cannot be written: No space left on device\n"


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")
@pytest.mark.parametrize("argv", [("--help",), ("recall", "--help"), ("stats", "-h"), ("capture", "--help"), ()])
def test_help_on_a_full_device_is_an_error_too(cli, argv: tuple[str, ...]) -> None:  # type: ignore[no-untyped-def]
    """argparse drops a failure to write help: it ended with exit 0 and nothing written."""
    res = _shell(cli, '"$@" >/dev/full', *argv)
    err = res.stderr.decode()
    assert res.returncode == 3, err
    assert err == "teamai-ref: error: the output cannot be written: No space left on device\n"


@pytest.mark.parametrize("closed", ["<&-", ">&- 2>&-", "<&- >&- 2>&-"])
def test_the_hook_exits_0_with_its_streams_closed(cli, closed: str) -> None:  # type: ignore[no-untyped-def]
    line = f'"$0" -I -S "$1" post-tool-use --tool claude {closed}'
    res = subprocess.run(["sh", "-c", line, sys.executable, FAST], capture_output=True, env=cli.env, timeout=120)
    assert res.returncode == 0 and res.stdout == b"" and b"Traceback" not in res.stderr, res.stderr


@pytest.mark.parametrize("encoding", ["ascii", "latin-1", "cp1252"])
def test_output_a_stream_cannot_encode_arrives_escaped(cli, team: Path, encoding: str) -> None:  # type: ignore[no-untyped-def]
    """A locale or ``PYTHONIOENCODING`` that cannot spell a Chinese title (an ASCII or Latin-1
    terminal, a Windows pipe) gets its characters as escapes; before, the command did its work,
    then failed with ``UnicodeEncodeError`` and printed no hit."""
    (team / "docs" / "顺序消息.md").write_text("---\ntitle: 顺序消息 ordering\n---\n全局顺序 ordering guarantees\n",
                                             encoding="utf-8")
    (team / "docs" / "损坏.md").write_text("---\ntitle: [broken\n---\nordering\n", encoding="utf-8")
    env = {"PYTHONIOENCODING": encoding}
    recalled = cli.subprocess("recall", "顺序 ordering", env=env)
    assert recalled.code == 0 and "Traceback" not in recalled.err, recalled.err
    assert "[docs] \\u987a\\u5e8f\\u6d88\\u606f ordering" in recalled.out
    assert "docs/\\u987a\\u5e8f\\u6d88\\u606f.md" in recalled.out
    listed = cli.subprocess("index", "--problems", env=env)
    assert listed.code == 0 and "Traceback" not in listed.err, listed.err
    assert "\\u635f\\u574f.md" in listed.out
    plain = cli.subprocess("recall", "顺序 ordering", env={"PYTHONIOENCODING": "utf-8"})  # the usual case is untouched
    assert "[docs] 顺序消息 ordering" in plain.out


def test_a_deleted_working_folder_is_named_when_a_relative_path_needs_it(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Before, the error blamed the state folder and told the user to change ``TEAMAI_HOME``."""
    gone = tmp_path / "gone"
    gone.mkdir()
    env = {**cli.env, "PYTHONPATH": str(ROOT)}
    line = 'cd "$1" && rmdir "$1" && shift && exec "$0" -m reference "$@"'
    relative = subprocess.run(["sh", "-c", line, sys.executable, str(gone), "recall", "redis", "--team", "team"],
                              capture_output=True, env=env, timeout=120)
    err = relative.stderr.decode()
    assert relative.returncode == 3 and "the current folder no longer exists" in err and "TEAMAI_HOME" not in err, err
    gone.mkdir()
    absolute = subprocess.run(["sh", "-c", line, sys.executable, str(gone), "recall", "redis"], capture_output=True,
                              env=env, timeout=120)  # the team from TEAMAI_TEAM, absolute: the folder is not needed
    assert absolute.returncode == 0 and absolute.stdout.startswith(b"--- [teamai:recall:start] ---"), absolute.stderr


@pytest.mark.parametrize("encoding", ["ascii", "utf-8"])
def test_stats_json_is_json_whatever_the_output_can_spell(cli, encoding: str) -> None:  # type: ignore[no-untyped-def]
    """An ASCII stream took a character past U+FFFF as ``\\U0001f600``, which no JSON reader takes."""
    session = "ses-😀-顺序"
    assert cli("recall", "redis", env={"CLAUDE_CODE_SESSION_ID": session}).code == 0
    res = cli.subprocess("stats", "--json", env={"PYTHONIOENCODING": encoding})
    assert res.code == 0, res.err
    assert [row["session"] for row in json.loads(res.out)] == [session]
    assert res.out.isascii() == (encoding == "ascii")
