"""Many hook processes at once against one log: every line arrives, whole, and the lines of one call
stay together (one write under the log's lock)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from reference.hook import command as hook_command
from reference.state import logspool
from reference.team import config

from ._support import ROOT, Cli

CALLS = 240
WORKERS = 8
# Under ``nox -s coverage`` every Python process a test starts measures coverage (the variables
# below tell it to). Hundreds of identical hook processes measure nothing the first few did not,
# yet their tracing and their data files were a tenth of a full run's CPU: one call in MEASURED is
# the console script, measured, while the others run beside it as the line ``hook-command`` prints
# for agents (``-I -S``, no site: nothing can measure it, and it starts in half the time), so the
# lock's waiting branches are still seen and both ways in write the one log at once.
MEASURED = 10
COVERAGE_VARIABLES = ("COVERAGE_PROCESS_CONFIG", "COVERAGE_PROCESS_START")


def test_concurrent_hook_processes_append_whole_lines(cli: Cli, team: Path) -> None:
    env = dict(cli.env)
    unmeasured = {k: v for k, v in env.items() if k not in COVERAGE_VARIABLES}
    learnings = team.resolve() / "learnings"

    def call(i: int) -> int:
        names = [f"c{i}-a.md"] + ([f"c{i}-b.md"] if i % 2 == 0 else [])
        payload = {"session_id": f"ses-{i % 7}", "cwd": str(learnings), "tool_name": "Bash",
                   "tool_input": {"command": "cat " + " ".join(names)}, "tool_response": {"stdout": "x" * (i % 50)}}
        measured = i % MEASURED == 0
        argv = [sys.executable, "-m", "reference", "hook-dispatch", "post-tool-use", "--tool", "claude"] \
            if measured else hook_command.command_argv("post-tool-use", "claude")
        proc = subprocess.run(argv, input=json.dumps(payload).encode(), capture_output=True,
                              env=env if measured else unmeasured, cwd=ROOT, timeout=120)
        assert proc.stdout == b"" and proc.stderr == b""
        return proc.returncode

    with ThreadPoolExecutor(max_workers=WORKERS) as pool:
        codes = list(pool.map(call, range(CALLS)))
    assert codes == [0] * CALLS

    scope = config.load(env).active
    # a call that found the log locked past its wait is in the spool, whole, until the next writer
    logspool.fold_waiting(scope.log_path, scope.log_lock, 10)
    raw = Path(scope.log_path).read_bytes()
    assert raw.endswith(b"\n")
    lines = [json.loads(line) for line in raw.split(b"\n")[:-1]]
    expected = {str(learnings / f"c{i}-a.md") for i in range(CALLS)}
    expected |= {str(learnings / f"c{i}-b.md") for i in range(0, CALLS, 2)}
    paths = [rec["path"] for rec in lines]
    assert len(paths) == len(expected) and set(paths) == expected
    for i in range(0, CALLS, 2):  # both lines of a two-file call are adjacent, in order
        at = paths.index(str(learnings / f"c{i}-a.md"))
        assert paths[at + 1] == str(learnings / f"c{i}-b.md")
    assert not os.path.exists(scope.debug_log_path)
