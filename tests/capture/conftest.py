"""A user's machine for capture tests: a home folder named after the user, a project with the
example team inside it, the reference's state elsewhere, and the agent's payloads from the corpus."""

from __future__ import annotations

import copy
import io
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]


def corpus_payload(name: str) -> dict[str, Any]:
    data = json.loads((ROOT / "payloads" / f"{name}.json").read_text(encoding="utf-8"))
    return copy.deepcopy(data["payload"])


@dataclass
class Machine:
    home: Path
    project: Path
    team: Path
    state: Path
    out: Path
    env: dict[str, str] = field(default_factory=dict)

    def doc(self, name: str = "redis-timeout") -> str:
        return str(self.team / "learnings" / f"{name}.md")

    def capture(self, *argv: str, payload: Any, env: dict[str, str] | None = None,
                subprocess_: bool = False) -> tuple[int, str, str]:
        """``teamai-ref capture ARGV`` with the payload on stdin (a real process when asked)."""
        stdin = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        full = {**self.env, **(env or {})}
        if subprocess_:
            proc = subprocess.run([sys.executable, "-m", "reference", "capture", *argv], input=stdin,
                                  capture_output=True, env=full, cwd=ROOT, timeout=120)
            return proc.returncode, proc.stdout.decode(), proc.stderr.decode()
        from reference.cli import run
        from reference.streams import Io

        out, err = io.StringIO(), io.StringIO()
        code = run(["capture", *argv], Io(full, io.BytesIO(stdin), out, err))
        return code, out.getvalue(), err.getvalue()

    def lines(self) -> list[dict[str, Any]]:
        found = []
        for path in sorted(self.out.glob("*.jsonl")):
            found += [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]
        return found

    def log(self) -> list[dict[str, Any]]:
        found = []
        for path in self.state.rglob("recall-log.jsonl"):
            found += [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]
        return found

    def debug(self) -> str:
        return "\n".join(p.read_text() for p in self.state.rglob("hook-debug.log"))


@pytest.fixture
def machine(tmp_path: Path) -> Machine:
    home = tmp_path / "home" / "alice"
    project = home / "proj"
    team = project / "team"
    shutil.copytree(ROOT / "examples" / "team", team)
    state = tmp_path / "state"
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "LC_ALL", "PYTHONPATH", "SYSTEMROOT")
           or k.startswith("COVERAGE_")}
    env.update({"HOME": str(home), "USER": "alice", "LOGNAME": "alice", "TEAMAI_HOME": str(state),
                "TEAMAI_TEAM": str(team), "TEAMAI_LOCK_WAIT": "2", "TEAMAI_NOW": "2026-11-30T10:00:00.000Z"})
    return Machine(home, project, team.resolve(), state, tmp_path / "captures", env)
