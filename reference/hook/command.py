"""``teamai-ref hook-command``: print the command line to put in an agent's hook settings.

The console script works, but goes through the interpreter's site set-up and the script
wrapper; the line printed here runs :mod:`reference.hook.fast` directly with ``-I -S``. What the
line will be asked to do is checked now, while a person reads the answer: an agent or event no
hook knows is a usage error, and ``--team`` / ``--user-team`` go into the line as absolute paths
(the hook runs from whatever folder the agent is in).
"""

from __future__ import annotations

import os
import shlex
import sys

from ..realpath import realpath
from ..team import config
from .agents import AGENTS
from .dispatch import EVENTS, normalize_event

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse

    from ..streams import Io


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("event", nargs="?", default="post-tool-use",
                        help="post-tool-use (default), post-tool-use-failure, stop, subagent-stop or session-start")
    parser.add_argument("--tool", default="claude", metavar="AGENT",
                        help=f"the agent the hook is for: {', '.join(AGENTS)} (default: claude)")
    parser.add_argument("--capture", action="store_true",
                        help="the line for teamai-ref capture instead (records each payload, then runs the hook)")


def fast_path() -> str:
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "fast.py")


def command_argv(event: str, tool: str, team: str | None = None, user_team: str | None = None) -> list[str]:
    argv = [sys.executable, "-I", "-S", fast_path(), event, "--tool", tool]
    for flag, folder in (("--team", team), ("--user-team", user_team)):
        if folder:
            argv += [flag, folder]
    return argv


def command_line(event: str, tool: str, team: str | None = None, user_team: str | None = None) -> str:
    return shlex.join(command_argv(event, tool, team, user_team))


def team_folder(raw: str | None) -> str | None:
    """A ``--team`` value as the hook must get it: absolute and usable, else ConfigError."""
    if not raw:
        return None
    path = realpath(os.path.abspath(os.path.expanduser(raw)))
    problem = config.team_problem(path)
    if problem:
        raise config.ConfigError(problem)
    return path


def capture_line(event: str, tool: str, team: str | None = None, user_team: str | None = None) -> str:
    """``teamai-ref capture`` by this interpreter's absolute path: agents run hooks with their own
    PATH, which need not hold the environment the reference is installed in."""
    argv = [sys.executable, "-m", "reference", "capture", event, "--tool", tool]
    argv += ["--team", team] if team else []
    argv += ["--user-team", user_team] if user_team else []
    return shlex.join(argv)


def run(args: argparse.Namespace, io: Io) -> int:
    from ..cli import EXIT_OK, EXIT_USAGE

    tool = args.tool.strip().lower()
    if tool not in AGENTS:
        io.error(f"no hook knows the agent {args.tool!r}; pass --tool with one of {', '.join(AGENTS)}")
        return EXIT_USAGE
    event = normalize_event(args.event)
    if event is None:
        io.error(f"no hook knows the event {args.event!r}; use one of {', '.join(EVENTS)}")
        return EXIT_USAGE
    team, user_team = team_folder(args.team), team_folder(args.user_team)
    line = capture_line(event, tool, team, user_team) if args.capture else command_line(event, tool, team, user_team)
    io.stdout.write(line + "\n")
    return EXIT_OK
