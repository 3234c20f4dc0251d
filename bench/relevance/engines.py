"""The two tools as a user runs them, each answering "which files did recall print, in order".

The reference is ``teamai-ref recall`` over the tree itself: in-process through its command-line
entry point (the same code path, without a process per question) or, with ``mode="process"``,
as a real ``teamai-ref`` process. teamai-cli 0.25.0 runs as ``node .../index.js recall`` in a
throwaway HOME laid out by :mod:`conformance.drivers.teamai_cli_home`, which switches learnings
namespaces on so it indexes the same assets. Printed paths are mapped back to the file's path in
the tree, so both answer in the same terms as the question files.
"""

from __future__ import annotations

import io
import os
import re
import shutil
import subprocess
import sys
from typing import NamedTuple

from conformance.drivers import teamai_cli_home

RECALL_TIMEOUT = 120.0
_HEADER = re.compile(r"^\[(\d+)/(\d+)\] \[(\w+)\] (.*?)(?: ★\d+)? \[(\w+)\]$")
_SCORE = re.compile(r"\| Score: (-?[0-9.]+)\s*$")


class Hit(NamedTuple):
    file: str  # the file's path inside the tree, or the printed path when it lies outside
    title: str
    score: str  # as printed
    type: str


def parse(stdout: str, to_file) -> list[Hit]:
    """The hits of one recall output, in printed order."""
    hits: list[Hit] = []
    title = kind = score = ""
    for line in stdout.splitlines():
        m = _HEADER.match(line)
        if m:
            kind, title, score = m.group(3), m.group(4), ""
            continue
        m = _SCORE.search(line)
        if m and line.startswith("Author:"):
            score = m.group(1)
        elif line.startswith("File: "):
            printed = line[len("File: "):].strip()
            hits.append(Hit(to_file(printed) or printed, title, score, kind))
    return hits


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith(teamai_cli_home.CALLER_PREFIXES)}
    env.update(extra)
    return env


class Reference:
    """``teamai-ref recall`` over ``team``, its state in ``state``; nothing is recorded
    (``TEAMAI_RECALL_DISABLED=1``: recording never changes hits, and questions stay independent)."""

    name = "reference"

    def __init__(self, team: str, state: str, mode: str = "inprocess") -> None:
        self.team = os.path.realpath(team)
        self.state = state
        self.mode = mode
        self.env = clean_env(TEAMAI_HOME=state, TEAMAI_RECALL_DISABLED="1")

    def to_file(self, printed: str) -> str | None:
        real = os.path.realpath(printed)
        if real.startswith(self.team + os.sep):
            return real[len(self.team) + 1:].replace(os.sep, "/")
        return None

    def _run(self, argv: list[str]) -> str:
        if self.mode == "process":
            exe = shutil.which("teamai-ref", path=os.path.dirname(sys.executable)) or shutil.which("teamai-ref")
            cmd = [exe] if exe else [sys.executable, "-m", "reference"]
            proc = subprocess.run([*cmd, *argv], env=self.env, capture_output=True, text=True,
                                  timeout=RECALL_TIMEOUT)
            if proc.returncode not in (0, 1):
                raise RuntimeError(f"teamai-ref {' '.join(argv[:1])} exited {proc.returncode}: {proc.stderr.strip()}")
            return proc.stdout
        from reference.cli import run
        from reference.streams import Io

        out, err = io.StringIO(), io.StringIO()
        code = run(argv, Io(self.env, io.BytesIO(), out, err))
        if code not in (0, 1):
            raise RuntimeError(f"teamai-ref {' '.join(argv[:1])} exited {code}: {err.getvalue().strip()}")
        return out.getvalue()

    def recall(self, query: str) -> list[Hit]:
        return parse(self._run(["recall", "--team", self.team, "--", query]), self.to_file)

    def assets(self) -> dict[str, set[str]]:
        """What the reference indexed, by kind and tree path (after ``teamai-ref index``)."""
        from reference.recall import index
        from reference.team import config

        self._run(["index", "--team", self.team])
        cfg = config.load(self.env, team=self.team)
        conn = index.open_index(cfg.active)
        found: dict[str, set[str]] = {}
        for entry in index.entries(conn):
            found.setdefault(entry.kind, set()).add(entry.tree_path)
        conn.close()
        return found


class TeamaiCli:
    """teamai-cli 0.25.0 over a copy of ``team`` in a throwaway HOME under ``workdir``; each recall
    runs with the global ``--dry-run`` so it leaves the votes ledger alone (0.25 reads votes only
    when it builds its index, so this changes no hit)."""

    name = f"teamai-cli {teamai_cli_home.VERSION}"

    def __init__(self, entry: str, team: str, workdir: str) -> None:
        self.entry = entry
        self.env = teamai_cli_home.set_up(entry, team, workdir)
        self.home = self.env["HOME"]
        state = os.path.join(self.home, ".teamai")
        self.synced = os.path.join(state, "learnings") + os.sep
        self.clone = os.path.join(state, "team-repo") + os.sep

    def to_file(self, printed: str) -> str | None:
        if printed.startswith(self.synced):
            return "learnings/" + printed[len(self.synced):].replace(os.sep, "/")
        if printed.startswith(self.clone):
            return printed[len(self.clone):].replace(os.sep, "/")
        return None

    def recall(self, query: str) -> list[Hit]:
        proc = subprocess.run(["node", self.entry, "--dry-run", "recall", query], env=self.env,
                              capture_output=True, text=True, timeout=RECALL_TIMEOUT)
        if proc.returncode != 0:
            raise RuntimeError(f"teamai-cli recall exited {proc.returncode}: {proc.stderr.strip()[:300]}")
        return parse(proc.stdout, self.to_file)

    def assets(self) -> dict[str, set[str]]:
        return {kind: paths for kind, paths in teamai_cli_home.indexed_assets(self.home).items() if paths}


def asset_mismatch(ours: dict[str, set[str]], peer: dict[str, set[str]]) -> list[str]:
    """One line per kind whose assets differ, naming a few of the differing paths."""
    lines = []
    for kind in sorted(set(ours) | set(peer)):
        a, b = ours.get(kind, set()), peer.get(kind, set())
        if a != b:
            only_a, only_b = sorted(a - b)[:3], sorted(b - a)[:3]
            lines.append(f"{kind}: reference {len(a)}, teamai-cli {len(b)}; only in the reference: {only_a}; "
                         f"only in teamai-cli: {only_b}")
    return lines
