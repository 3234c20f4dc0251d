"""The fast hook entry behaves exactly like ``teamai-ref hook-dispatch``."""

from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path

import reference
from reference.team import config

from ._support import Cli


def test_hook_command_prints_a_line_that_records_like_the_console_script(cli: Cli, team: Path) -> None:
    res = cli("hook-command", "post-tool-use", "--tool", "claude")
    assert res.code == 0
    argv = shlex.split(res.out.strip())
    assert argv[1:3] == ["-I", "-S"] and argv[3].endswith("fast.py")
    assert argv[4:] == ["post-tool-use", "--tool", "claude"]
    doc = team / "learnings" / "redis-timeout.md"
    payload = {"session_id": "s1", "cwd": str(team), "hook_event_name": "PostToolUse", "tool_name": "Read",
               "tool_input": {"file_path": str(doc)}, "tool_response": {"type": "text"}}
    env = {k: v for k, v in cli.env.items() if not k.startswith("COVERAGE")}
    proc = subprocess.run(argv, input=json.dumps(payload).encode(), capture_output=True, env=env, timeout=60)
    assert proc.returncode == 0 and proc.stdout == b"" and proc.stderr == b""
    log = Path(config.load(cli.env).active.log_path)
    lines = [json.loads(x) for x in log.read_text().splitlines()]
    assert [(r["kind"], r["session"], r["path"]) for r in lines] == [("evidence", "s1", str(doc))]


def test_a_fast_line_that_cannot_import_the_reference_exits_0_and_says_so(tmp_path: Path) -> None:
    """A broken installation (the package half removed, say) must not fail every tool call of the
    agent; it leaves one line in the debug log under the state home."""
    import sys

    lonely = tmp_path / "nowhere" / "hook" / "fast.py"
    lonely.parent.mkdir(parents=True)
    lonely.write_bytes((Path(reference.__file__).parent / "hook" / "fast.py").read_bytes())
    home = tmp_path / "home"
    proc = subprocess.run([sys.executable, "-I", "-S", str(lonely), "stop", "--tool", "claude"], input=b"{}",
                          capture_output=True, env={"TEAMAI_HOME": str(home), "PATH": "/usr/bin:/bin"}, timeout=60)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")
    (line,) = (home / "hook-debug.log").read_text().splitlines()
    assert "agent=claude event=stop the hook cannot import the reference (ModuleNotFoundError)" in line


def test_a_fast_line_is_measured_when_a_test_run_measures_coverage(cli: Cli, team: Path, tmp_path: Path) -> None:
    """``-I -S`` skips the site set-up that starts coverage in a child process, so the hook as
    agents run it was never measured; a run that measures coverage (``COVERAGE_PROCESS_START``)
    now measures it too."""

    try:
        import coverage
    except ImportError:
        from tests.conftest import skip_unless_in_ci

        skip_unless_in_ci("coverage is not installed")
    rc = tmp_path / "coveragerc"
    rc.write_text(f"[run]\ndata_file = {tmp_path / 'data'}\nparallel = true\nbranch = true\n"
                  f"source = {Path(reference.__file__).parent}\n", encoding="utf-8")
    env = {**{k: v for k, v in cli.env.items() if not k.startswith("COVERAGE")}, "COVERAGE_PROCESS_START": str(rc)}
    argv = shlex.split(cli("hook-command", "post-tool-use", "--tool", "claude").out.strip())
    payload = {"session_id": "s1", "cwd": str(team), "tool_name": "Read",
               "tool_input": {"file_path": str(team / "learnings" / "redis-timeout.md")}, "tool_response": {}}
    proc = subprocess.run(argv, input=json.dumps(payload).encode(), capture_output=True, env=env, timeout=60)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")
    files = list(tmp_path.glob("data.*"))
    assert files, "the hook process wrote no coverage data"
    measured: dict[str, set[int]] = {}
    for path in files:
        part = coverage.CoverageData(basename=str(path))
        part.read()
        for name in part.measured_files():
            measured.setdefault(Path(name).name, set()).update(part.lines(name) or ())
    # (fast.py itself ran before coverage could start: what it calls is what is measured)
    assert measured.get("dispatch.py") and measured.get("classify.py") and measured.get("pathmatch.py"), sorted(measured)
    assert Path(config.load(cli.env).active.log_path).read_text().count('"evidence"') == 1
