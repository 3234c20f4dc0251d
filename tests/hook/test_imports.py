"""The hook path stays light: a fresh process running hook-dispatch never imports YAML, SQLite, the
index or recall. Checked by what ``-X importtime`` lists, not by timing."""

from __future__ import annotations

import json
import subprocess
import sys

from ._support import ROOT, Cli


def imported(cli: Cli, event: str) -> set[str]:
    payload = {"session_id": "s", "cwd": "/", "tool_name": "Bash", "tool_input": {"command": "cat a.md | head"},
               "tool_response": {"stdout": "x"}}
    # Without coverage's start-up hook: measuring would itself import sqlite3 and dataclasses.
    env = {k: v for k, v in cli.env.items() if not k.startswith("COVERAGE")}
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "reference", "hook-dispatch", event, "--tool",
                           "claude"], input=json.dumps(payload).encode(), capture_output=True, env=env, cwd=ROOT,
                          timeout=120)
    assert proc.returncode == 0 and proc.stdout == b""
    names = set()
    for line in proc.stderr.decode().splitlines():
        if line.startswith("import time:") and "|" in line:
            names.add(line.rsplit("|", 1)[1].strip())
    assert "reference.hook.dispatch" in names
    return names


def test_post_tool_use_imports_no_heavy_module(cli: Cli) -> None:
    names = imported(cli, "post-tool-use")
    assert "reference.hook.classify" in names
    for heavy in ("yaml", "sqlite3", "_sqlite3", "reference.recall.index", "reference.recall.index_build", "reference.recall.run",
                  "reference.state.ledger", "reference.state.ledger_read", "reference.state.ledger_write", "shlex"):
        assert heavy not in names, heavy


def test_post_tool_use_does_not_import_argparse(cli: Cli) -> None:
    assert "argparse" not in imported(cli, "post-tool-use")


def test_post_tool_use_does_not_import_dataclasses(cli: Cli) -> None:
    assert "dataclasses" not in imported(cli, "post-tool-use")


def _stop_imports(cli: Cli, lines: list[dict]) -> set[str]:
    """What a Stop run as agents run it (``hook-command``'s line) imports, after ``lines`` were
    appended to a log that an earlier Stop left a checkpoint for."""
    from reference.state import runlog
    from reference.team import config

    scope = config.load(cli.env).active
    runlog.append(scope.log_path, scope.log_lock, lines, 2.0)
    env = {k: v for k, v in cli.env.items() if not k.startswith("COVERAGE")}
    fast = str(ROOT / "reference" / "hook" / "fast.py")
    proc = subprocess.run([sys.executable, "-X", "importtime", "-I", "-S", fast, "stop", "--tool", "claude"],
                          input=json.dumps({"session_id": "ses-s"}).encode(), capture_output=True, env=env,
                          timeout=120)
    assert proc.returncode == 0 and proc.stdout == b""
    return {line.rsplit("|", 1)[1].strip() for line in proc.stderr.decode().splitlines()
            if line.startswith("import time:") and "|" in line}


def _turn(t: int, doc: str, read: str) -> list[dict]:
    stamp = f"2026-11-30T10:00:{t:02d}.000Z"
    run = f"0000000{t % 10}-0000-4000-8000-0000000000{t:02d}"
    return [{"kind": "run", "ts": stamp, "run": run, "session": "ses-s", "via": "env", "unambiguous": True,
             "agent": "claude", "actor": {}, "caller": None,
             "docs": [{"key": "k", "type": "learning", "scope": "workspace", "path": doc, "score": 1.0,
                       "eligible": True}]},
            {"kind": "evidence", "ts": stamp, "session": "ses-s", "agent": "claude", "actor": {}, "path": read,
             "exact": True, "via": "read", "simple": True, "status": "success"}]


def test_a_stop_reads_through_its_checkpoint_with_no_heavy_module(cli: Cli, team) -> None:
    doc, other = str(team / "learnings" / "a.md"), str(team / "learnings" / "b.md")
    _stop_imports(cli, _turn(1, doc, other))  # the first Stop reads the whole log and leaves a checkpoint
    names = _stop_imports(cli, _turn(2, doc, other))
    assert "reference.reducer.checkpoint" in names and "reference.reducer.model" in names
    for heavy in ("typing", "dataclasses", "datetime", "argparse", "yaml", "sqlite3", "reference.state.retention",
                  "reference.recall.index", "reference.recall.index_build", "reference.state.ledger", "reference.state.ledger_read",
                  "reference.state.ledger_write", "shlex"):
        assert heavy not in names, heavy


def test_a_stop_that_credits_imports_only_the_ledgers_besides(cli: Cli, team) -> None:
    doc = str(team / "learnings" / "a.md")
    _stop_imports(cli, _turn(1, doc, str(team / "learnings" / "b.md")))
    names = _stop_imports(cli, _turn(2, doc, doc))
    assert "reference.state.ledger" in names and "reference.state.upvoted" in names
    for heavy in ("typing", "dataclasses", "argparse", "yaml", "sqlite3", "reference.state.retention", "reference.recall.index",
                  "reference.recall.index_build"):
        assert heavy not in names, heavy


def test_an_event_that_weighs_no_path_does_not_import_pathmatch(cli: Cli) -> None:
    # config asks pathmatch only about a team folder that could be a Windows path
    for event in ("session-start", "user-prompt-submit"):
        assert "reference.pathmatch" not in imported(cli, event), event
