"""``teamai-ref doctor [--tool AGENT] [--team DIR]``: what a hook line would do here.

A hook never fails the agent and never prints, so a hook that records nothing is silent by
design; this command is where that silence is explained. Line by line: is recording on, which
team and scope, can the state folder be written, is the agent known, does the line
``hook-command`` prints start and reach the hook (a probe runs it against a scratch state
folder), can it read the votes ledger (and in which spelling), how big the logs are and what the
debug log said last. Each problem gets a one-line fix. Exit 0 when a hook line would record, 1
when something would make it record nothing. It writes none of the state it inspects.

Not on any hook's import path: only ``teamai-ref doctor`` imports it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile

from ..hook import command
from ..hook.agents import AGENTS
from ..state import ledger, ledger_read, runlog
from ..team import config

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse

    from ..streams import Io

PROBE_EVENT = "doctor-probe"  # an event no hook knows: the hook notes it and records nothing
PROBE_TIMEOUT = 60.0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--tool", metavar="AGENT", help=f"the agent the hook is for: {', '.join(AGENTS)}")


class Report:
    def __init__(self, io: Io) -> None:
        self.out = io.stdout
        self.problems = 0

    def line(self, label: str, status: str, text: str, fix: str | None = None) -> None:
        self.out.write(f"{label:<13}{status:<6}{text}\n")
        if status == "FAIL":
            self.problems += 1
        if fix:
            self.out.write(f"{'':<13}{'':<6}fix: {fix}\n")


def _size(nbytes: int) -> str:
    return f"{nbytes} B" if nbytes < 1024 else f"{nbytes / 1024:.0f} KiB" if nbytes < 1 << 20 \
        else f"{nbytes / (1 << 20):.1f} MiB"


def _writable_folder(path: str) -> tuple[bool, str]:
    """Whether ``path`` is (or could be made) a writable folder, and the folder that decides it."""
    here = os.path.abspath(path)
    while not os.path.exists(here):
        parent = os.path.dirname(here)
        if parent == here:
            break
        here = parent
    return os.path.isdir(here) and os.access(here, os.W_OK | os.X_OK), here


def _team(report: Report, args: argparse.Namespace, env: dict[str, str]) -> config.Config | None:
    try:
        cfg = config.load(env, args.team, args.user_team)
    except config.ConfigError as exc:
        report.line("team", "FAIL", str(exc),
                    "pass --team DIR here and in the hook line (teamai-ref hook-command --team DIR), "
                    "or set TEAMAI_TEAM where the agent runs")
        return None
    failed = False
    for scope in cfg.scopes:
        problem = config.team_problem(scope.team)
        if problem:
            report.line("team", "FAIL", problem, "pass --team DIR with the team tree's folder")
            failed = True
    if failed:
        return None
    if cfg.active.name == config.WORKSPACE:
        given = "--team" if args.team else "TEAMAI_TEAM"
    else:
        given = "--user-team" if args.user_team else "TEAMAI_USER_TEAM"
    if not given.startswith("--"):
        given += "; the agent's environment must set it too, or put --team into the line"
    report.line("team", "ok", f"{cfg.active.team} ({cfg.active.name} scope, from {given})")
    if cfg.user is not None and cfg.user is not cfg.active:
        report.line("", "ok", f"{cfg.user.team} (user scope, inherited: its hits never vote)")
    return cfg


def _state(report: Report, cfg: config.Config) -> None:
    scope = cfg.active
    ok, decider = _writable_folder(scope.state_dir)
    if not ok:
        report.line("state folder", "FAIL", f"{scope.state_dir} cannot be written ({decider} is not a writable "
                    "folder)", "set TEAMAI_HOME to a folder you can write, or fix the permissions of " + decider)
        return
    for path in (scope.log_path, scope.ledger_path):
        if os.path.exists(path) and not os.access(path, os.W_OK):
            report.line("state folder", "FAIL", f"{path} cannot be written", f"fix the permissions of {path}")
            return
    made = "" if os.path.isdir(scope.state_dir) else "; made at the first record"
    report.line("state folder", "ok", f"{scope.state_dir} (writable{made})")


def _files(report: Report, cfg: config.Config) -> None:
    """The team files indexing cannot take as written (recall says so in one line)."""
    from ..recall import asset_rows
    from ..team import tree

    assets = [a for scope in cfg.scopes for a in tree.walk(scope.team, scope.learnings_roots)]
    found = asset_rows.problems(assets)
    if not found:
        report.line("team files", "ok", f"{len(assets)} assets, each indexed as written")
        return
    report.line("team files", "note", f"{len(found)} of {len(assets)} assets cannot be indexed as written "
                f"(the first: {found[0][:200]})", "teamai-ref index --problems lists them; fix each file")


def _probe(report: Report, argv: list[str], env: dict[str, str]) -> None:
    """Run the printed line for an event no hook knows, against a scratch state home: the hook
    then notes the event in that home's debug log, which proves the line reached the hook."""
    with tempfile.TemporaryDirectory(prefix="teamai-doctor-") as scratch:
        probe_env = {k: v for k, v in env.items() if k != "TEAMAI_RECALL_DISABLED"}
        probe_env["TEAMAI_HOME"] = scratch
        try:
            proc = subprocess.run(argv, input=b"{}", capture_output=True, env=probe_env, timeout=PROBE_TIMEOUT)
        except (OSError, subprocess.TimeoutExpired) as exc:
            report.line("hook probe", "FAIL", f"the line did not run ({type(exc).__name__}: {exc})",
                        "print the line again with teamai-ref hook-command and put it into the agent's settings")
            return
        noted = ""
        for folder, _dirs, files in os.walk(scratch):
            if "hook-debug.log" in files:
                with open(os.path.join(folder, "hook-debug.log"), encoding="utf-8", errors="replace") as fh:
                    noted += fh.read()
    if proc.returncode == 0 and f"event={PROBE_EVENT}" in noted and "cannot import" not in noted:
        report.line("hook probe", "ok", "the line starts, imports the hook and writes its debug log "
                    "(run against a scratch state folder)")
        return
    said = " ".join((noted or proc.stderr.decode("utf-8", "replace") or f"exit {proc.returncode}").split())
    report.line("hook probe", "FAIL", f"the line does not reach the hook: {said[:200]}",
                "reinstall teamai-ref, then print the line again with teamai-ref hook-command")


def _fast_line_has_yaml() -> bool:
    """Whether the hook line's interpreter, started as the line starts it, can import PyYAML
    through ``ledger_read.yaml_module`` (the late site set-up)."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(ledger_read.__file__))))
    code = f"import sys; sys.path.insert(0, {root!r}); from reference.state import ledger_read; ledger_read.yaml_module()"
    try:
        proc = subprocess.run([sys.executable, "-I", "-S", "-c", code], capture_output=True, timeout=PROBE_TIMEOUT)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return proc.returncode == 0


def _ledger(report: Report, cfg: config.Config) -> None:
    path = cfg.active.ledger_path
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except FileNotFoundError:
        report.line("votes ledger", "ok", f"{path}: none yet (the first recall makes it)")
        return
    except UnicodeDecodeError:
        report.line("votes ledger", "note", f"{path}: not a ledger (not UTF-8): the next write moves it aside "
                    "and starts a new one")
        return
    except OSError as exc:
        report.line("votes ledger", "FAIL", f"{path} cannot be read ({exc.strerror})", f"fix the permissions of {path}")
        return
    spelled = ledger_read.spelling(text)
    if spelled == "teamai":
        how = "teamai's spelling, read without PyYAML"
    elif _fast_line_has_yaml():
        how = "another YAML spelling, read through PyYAML (the hook line finds it)"
    else:
        report.line("votes ledger", "FAIL", f"{path}: another YAML spelling, and the hook line's interpreter "
                    "cannot import PyYAML: a Stop would credit nothing",
                    f"install PyYAML for {sys.executable} ({sys.executable} -m pip install pyyaml)")
        return
    try:
        document = ledger.parse(text)
    except ledger_read.CorruptLedger as exc:
        report.line("votes ledger", "note", f"{path}: not a ledger ({exc}): the next write moves it aside and "
                    "starts a new one")
        return
    except ledger_read.YamlUnavailable as exc:
        report.line("votes ledger", "FAIL", f"{path}: {exc}", "install PyYAML for this interpreter")
        return
    report.line("votes ledger", "ok", f"{path}: {how} ({len(document['votes'])} entries, "
                f"{len(document['deltas'])} deltas)")


def _logs(report: Report, cfg: config.Config) -> None:
    path = cfg.active.log_path
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except FileNotFoundError:
        report.line("recall log", "ok", f"{path}: none yet")
    except OSError as exc:
        report.line("recall log", "FAIL", f"{path} cannot be read ({exc.strerror})", f"fix the permissions of {path}")
    else:
        records, bad = runlog.parse_lines(data)
        lines = len(records) + bad
        report.line("recall log", "ok", f"{path}: {lines} lines, {_size(len(data))}, {bad} malformed"
                    + (" (skipped when read, dropped at the next pull)" if bad else ""))
    debug = cfg.active.debug_log_path
    try:
        with open(debug, encoding="utf-8", errors="replace") as fh:
            notes = fh.read().splitlines()
    except FileNotFoundError:
        report.line("debug log", "ok", f"{debug}: empty (no hook has met a problem here)")
        return
    except OSError as exc:
        report.line("debug log", "note", f"{debug} cannot be read ({exc.strerror})")
        return
    last = notes[-1][:200] if notes else ""
    report.line("debug log", "ok", f"{debug}: {len(notes)} lines" + (f"; the last: {last}" if last else ""))


def _module(tool: str) -> str:
    import re

    return re.sub(r"[^a-z0-9_]", "_", tool) or "agent"


def run(args: argparse.Namespace, io: Io) -> int:
    env = dict(io.env)
    report = Report(io)
    if config.recording_disabled(env):
        report.line("recording", "FAIL", "TEAMAI_RECALL_DISABLED is set: hooks and recall record nothing",
                    "unset TEAMAI_RECALL_DISABLED (in the agent's environment too)")
    else:
        report.line("recording", "ok", "on (TEAMAI_RECALL_DISABLED is not set)")
    cfg = _team(report, args, env)
    if cfg is not None:
        _state(report, cfg)
        _files(report, cfg)
    tool = (args.tool or "").strip().lower()
    if not args.tool:
        tool = "claude"
        report.line("tool", "ok", "none given: the line below is checked for claude (pass --tool AGENT)")
    elif tool in AGENTS:
        report.line("tool", "ok", tool)
    else:
        report.line("tool", "FAIL", f"{args.tool!r} is no agent the reference has an adapter for",
                    f"pass --tool with one of {', '.join(AGENTS)}, or add reference/hook/agents/{_module(tool)}.py "
                    "and its name to AGENTS in reference/hook/agents/__init__.py (payloads/README.md, "
                    "\"Adding an agent\")")
        report.line("hook line", "FAIL", f"none: no hook line can be written for {args.tool!r} until it has an "
                    "adapter, so it was not probed")
        tool = ""
    team = command.team_folder(args.team) if cfg is not None and args.team else None
    user_team = command.team_folder(args.user_team) if cfg is not None and args.user_team else None
    if tool:
        report.line("hook line", "ok", command.command_line("post-tool-use", tool, team, user_team))
        _probe(report, command.command_argv(PROBE_EVENT, tool, team, user_team), env)
    if cfg is not None:
        _ledger(report, cfg)
        _logs(report, cfg)
    if report.problems:
        io.stdout.write(f"a hook line here would record nothing: {report.problems} "
                        f"problem{'s' if report.problems > 1 else ''} above.\n")
        return 1
    io.stdout.write("a hook line here would record.\n")
    return 0
