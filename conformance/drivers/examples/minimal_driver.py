"""A whole driver in Python: ``teamai-ref`` behind the protocol, every step one real process.

It knows nothing of the reference's insides: it writes the trees (``driverkit.materialize``),
names where each asset lies (``driverkit.asset_paths``), runs the implementation's commands with
the step's instant and environment, and reads the implementation's log and ledger back for
``observe``. It declares what it does, so the cases that need more (review, contribute, hold,
spoil, repeat, and ``seed``: it cannot know where the implementation keeps its state before it has
run) are not-applicable::

    teamai-conformance run --impl "python3 conformance/drivers/examples/minimal_driver.py"

Arguments, when given, are the implementation's command (default: this interpreter running
``teamai-ref``). A driver for another implementation changes ``command``, the environment it
configures the implementation with (``do_open``) and where ``observe`` finds the state.
"""

from __future__ import annotations

import glob
import json
import os
import sys
from typing import Any

import yaml

from conformance import driverkit

AGENTS = ["claude", "codex", "cursor", "copilot", "codebuddy", "workbuddy", "qoder", "opencode", "pi", "omp"]
COUNTS = ("recalled_count", "upvoted_count")
INSTANTS = ("last_recalled_at", "last_upvoted_at")


class MinimalDriver(driverkit.Driver):
    implementation = {"name": "teamai-ref", "version": "through minimal_driver.py"}
    capabilities = {"commands": ["recall", "hook", "pull", "stats"], "agents": AGENTS, "log": True, "hold": [],
                    "credited": True}

    def __init__(self, command: list[str]) -> None:
        self.command = command
        self.layout: driverkit.Layout | None = None
        self.env: dict[str, str] = {}

    def do_open(self, message: dict[str, Any]) -> dict[str, Any]:
        layout = self.layout = driverkit.materialize(message["sandbox"], message)
        learnings = layout.learnings or [os.path.join(layout.team, "learnings")]
        self.env = {"PATH": os.environ.get("PATH", ""), "HOME": layout.home, "TEAMAI_HOME": layout.state,
                    "TEAMAI_TEAM": layout.team, "TEAMAI_LEARNINGS": os.pathsep.join(learnings)}
        if layout.user_team:
            self.env["TEAMAI_USER_TEAM"] = layout.user_team
        if layout.withheld_file:
            self.env["TEAMAI_WITHHELD_FILE"] = layout.withheld_file
        user = driverkit.asset_paths(layout.user_team) if layout.user_team else {}
        return {"paths": driverkit.asset_paths(layout.team, learnings), "user_paths": user,
                "roots": {"team": layout.team, "user_team": layout.user_team, "learnings": learnings}}

    def teamai(self, message: dict[str, Any], args: list[str], stdin: bytes = b"") -> dict[str, Any]:
        assert self.layout is not None, "no scenario is open"
        env = {**self.env, "TEAMAI_NOW": message["now"], **message.get("env", {})}  # the step's env wins
        return driverkit.run(self.command + args, env, stdin, cwd=self.layout.root)

    def do_recall(self, message: dict[str, Any]) -> dict[str, Any]:
        args = ["recall", message["query"]] + (["--caller", message["caller"]] if message.get("caller") else [])
        return self.teamai(message, args + (["--check"] if message.get("check") else []))

    def do_hook(self, message: dict[str, Any]) -> dict[str, Any]:
        payload = json.dumps(message["payload"]).encode("utf-8")
        return self.teamai(message, ["hook-dispatch", message["event"], "--tool", message["agent"]], payload)

    def do_pull(self, message: dict[str, Any]) -> dict[str, Any]:
        return self.teamai(message, ["pull"])

    def do_stats(self, message: dict[str, Any]) -> dict[str, Any]:
        return self.teamai(message, ["stats", "--json"] if message.get("json") else ["stats"])

    def do_observe(self, message: dict[str, Any]) -> dict[str, Any]:
        assert self.layout is not None, "no scenario is open"
        # The workspace is the active scope; teamai-ref keeps its state in a folder of its own.
        folders = glob.glob(os.path.join(self.layout.state, "workspaces", "*"))
        state = folders[0] if folders else os.path.join(self.layout.state, "none")
        answer: dict[str, Any] = {"votes": read_votes(os.path.join(state, "votes.yaml")),
                                  "log": read_log(os.path.join(state, "recall-log.jsonl")), "stats": None}
        if "stats" in message.get("want", []):
            shown = self.teamai(message, ["stats", "--json"])
            answer["stats"] = json.loads(shown["stdout"]) if shown["exit"] == 0 else None
        if "credited" in message.get("want", []):
            answer["credited"] = credits(answer["log"])
        return answer

    def do_close(self, message: dict[str, Any]) -> dict[str, Any]:
        self.layout = None
        return {}


def credits(log: list[Any]) -> list[dict[str, str]]:
    """Which reads were credited, as teamai-ref marks them: a ``consumed`` line with
    ``credited: true`` (another implementation answers from wherever it keeps its marks)."""
    return [{"session": str(line.get("session", "")), "key": str(line.get("key", "")),
             "path": str((line.get("evidence") or {}).get("path", ""))}
            for line in log if isinstance(line, dict) and line.get("kind") == "consumed" and line.get("credited") is True]


def read_log(path: str) -> list[Any]:
    try:
        with open(path, encoding="utf-8") as fh:
            return [json.loads(line) for line in fh if line.strip()]
    except FileNotFoundError:
        return []


def read_votes(path: str) -> dict[str, Any]:
    """The ledger's counters per key; read with every scalar a string, as teamai's YAML reader would."""
    try:
        with open(path, encoding="utf-8") as fh:
            data = yaml.load(fh, Loader=yaml.BaseLoader) or {}
    except FileNotFoundError:
        return {}
    votes = data.get("votes")
    return {key: {**{c: int(entry.get(c) or 0) for c in COUNTS}, **{t: entry.get(t) or None for t in INSTANTS}}
            for key, entry in (votes if isinstance(votes, dict) else {}).items()}


def main(argv: list[str]) -> int:
    command = argv or [sys.executable, "-m", "reference"]
    return driverkit.serve(MinimalDriver(command))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
