"""Writing a driver in Python: what every driver needs, done once (PROTOCOL.md, "A driver in
Python").

A driver is an object that answers protocol messages, served on stdin and stdout::

    from conformance import driverkit

    class MyDriver(driverkit.Driver):
        implementation = {"name": "my-teamai", "version": "1.0"}
        capabilities = {"commands": ["recall", "hook"], "agents": ["claude"], "log": True, "hold": []}

        def do_open(self, message): ...      # write the trees, answer paths, user_paths and roots
        def do_recall(self, message): ...    # run the command at message["now"], answer exit/stdout/stderr
        def do_hook(self, message): ...
        def do_observe(self, message): ...   # the votes and the recall log

    driverkit.serve(MyDriver())

What is left to the driver is what only it knows: how its implementation is run and where it
keeps its state. ``conformance/drivers/examples/minimal_driver.py`` is a whole one, and
``conformance/examples/exchange.jsonl`` is the worked exchange PROTOCOL.md shows (a test replays
it). The rest of the protocol's side: ``running/protocol.py`` encodes and checks messages,
``running/driver.py`` is the one interface the harness talks to, ``implementations.py`` turns an
``--impl`` into a driver, and ``server.py`` is the implementation's side of the loop.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping
from typing import Any

from .running import protocol, sandbox
from .running.sandbox import Layout
from .running.substitute import with_index
from .server import serve

__all__ = ["Driver", "Layout", "asset_paths", "materialize", "repeated", "run", "serve"]

materialize = sandbox.materialize  # the scenario's trees, withheld list and repository, in the sandbox


class Driver:
    """Dispatches each message to ``do_<cmd>`` and answers ``seq``/``ok`` around what it returns.

    A ``do_`` method returns the answer's own fields (``{}`` for none); an exception becomes an
    ``ok: false`` answer with its traceback (``server.serve`` does that), and a command with no
    method is refused the same way, so a driver implements only what it declares.
    """

    implementation: dict[str, str] = {"name": "?", "version": "?"}
    capabilities: dict[str, Any] = {"commands": [], "agents": [], "log": False, "hold": []}

    def __call__(self, message: dict[str, Any]) -> dict[str, Any]:
        cmd = str(message.get("cmd"))
        method = getattr(self, f"do_{cmd}", None) if cmd in protocol.COMMANDS else None
        if method is None:
            raise NotImplementedError(f"this driver does not answer {cmd!r}")
        return {"seq": message.get("seq"), "ok": True, **method(message)}

    def do_start(self, message: dict[str, Any]) -> dict[str, Any]:
        return {"protocol": protocol.VERSION, "implementation": dict(self.implementation),
                "capabilities": dict(self.capabilities)}

    def do_close(self, message: dict[str, Any]) -> dict[str, Any]:
        return {}

    def do_stop(self, message: dict[str, Any]) -> dict[str, Any]:
        return self.do_close(message)


def asset_paths(team: str, learnings_roots: tuple[str, ...] | list[str] = ()) -> dict[str, str]:
    """Tree path -> absolute path of every asset of one scope whose files lie where the sandbox
    wrote them: the ``paths`` (or ``user_paths``) answer of ``open`` for an implementation that
    prints the files it reads in place. Learnings come from ``learnings_roots`` (default
    ``<team>/learnings``); the table of kinds and tree paths is ``reference/team/tree.py``'s."""
    from reference.team import tree

    roots = tuple(learnings_roots) or (os.path.join(team, "learnings"),)
    return {a.tree_path: a.path for a in tree.walk(team, roots)}


def repeated(message: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The runs a ``recall`` or ``hook`` message asks for: itself, or with ``repeat: N`` N copies
    with ``${i}`` replaced by 1 … N in every string (the answer is then the first run that exited
    non-zero, else the last)."""
    count = message.get("repeat")
    if count is None:
        return [dict(message)]
    return [with_index(dict(message), i) for i in range(1, int(count) + 1)]


def run(argv: list[str], env: Mapping[str, str], stdin: bytes = b"", cwd: str | None = None,
        timeout: float | None = None) -> dict[str, Any]:
    """Run one command of the implementation: the ``exit``, ``stdout`` and ``stderr`` a step answers."""
    proc = subprocess.run(argv, input=stdin, capture_output=True, env=dict(env), cwd=cwd, timeout=timeout)
    return {"exit": proc.returncode, "stdout": proc.stdout.decode("utf-8", "replace"),
            "stderr": proc.stderr.decode("utf-8", "replace")}
