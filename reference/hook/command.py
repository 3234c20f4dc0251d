"""``teamai-ref hook-command``: print the command line to put in an agent's hook settings.

The console script works, but goes through the interpreter's site set-up and the script
wrapper; the line printed here runs :mod:`reference.hook.fast` directly with ``-I -S``.
"""

from __future__ import annotations

import os
import shlex
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse

    from ..cli import Io


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("event", nargs="?", default="post-tool-use",
                        help="post-tool-use (default), stop, subagent-stop or session-start")
    parser.add_argument("--tool", default="claude", help="the agent the hook is for (default: claude)")
    parser.add_argument("--capture", action="store_true",
                        help="the line for teamai-ref capture instead (records each payload, then runs the hook)")


def command_line(event: str, tool: str) -> str:
    fast = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fast.py")
    return shlex.join([sys.executable, "-I", "-S", fast, event, "--tool", tool])


def capture_line(event: str, tool: str) -> str:
    """``teamai-ref capture`` by this interpreter's absolute path: agents run hooks with their own
    PATH, which need not hold the environment the reference is installed in."""
    return shlex.join([sys.executable, "-m", "reference", "capture", event, "--tool", tool])


def run(args: argparse.Namespace, io: Io) -> int:
    line = capture_line if getattr(args, "capture", False) else command_line
    io.stdout.write(line(args.event, args.tool) + "\n")
    return 0
