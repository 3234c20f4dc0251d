"""A scope with a real team folder and a real recall log in a temporary folder."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from reference import reducer
from reference.state import ledger
from reference.team import config

from . import logs


class Lab:
    def __init__(self, root: Path) -> None:
        self.team = root / "team"
        (self.team / "learnings").mkdir(parents=True)
        self.home = root / "home"
        self.warnings: list[str] = []

    def env(self, at: float = 0.0) -> dict[str, str]:
        return {"TEAMAI_HOME": str(self.home), "TEAMAI_TEAM": str(self.team), "TEAMAI_NOW": logs.ts(at),
                "TEAMAI_LOCK_WAIT": "0.2"}

    def cfg(self, at: float = 0.0) -> config.Config:
        return config.load(self.env(at))

    @property
    def log_path(self) -> Path:
        return Path(self.cfg().active.log_path)

    def path(self, key: str) -> str:
        return str(self.team / "learnings" / f"{key}.md")

    def doc(self, key: str, eligible: bool = True) -> dict[str, Any]:
        return logs.doc(key, self.path(key), eligible, "workspace" if eligible else "user")

    def write(self, records: list[dict[str, Any]]) -> None:
        logs.write(self.log_path, records)

    def append(self, records: list[dict[str, Any]]) -> None:
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.log_path, "ab") as fh:
            fh.write(logs.encode(records))

    def reduce(self, at: float = 90_000.0) -> reducer.ReduceResult:
        return reducer.reduce(self.cfg(at), self.warnings.append)

    def votes(self) -> dict[str, int]:
        return {k: v["upvoted_count"] for k, v in ledger.read(self.cfg().active.ledger_path).items()
                if v["upvoted_count"]}

    def log(self) -> list[dict[str, Any]]:
        if not self.log_path.exists():
            return []
        return [json.loads(line) for line in self.log_path.read_text().splitlines() if line.strip()]

    def consumed(self) -> list[dict[str, Any]]:
        return [r for r in self.log() if r["kind"] == "consumed"]


@pytest.fixture
def lab(tmp_path: Path) -> Lab:
    return Lab(tmp_path)


def run_cli(lab: Lab, *argv: str, at: float = 90_000.0) -> tuple[int, str, str]:
    """``teamai-ref`` in-process, through the same entry point as the console script."""
    import io

    from reference.cli import run
    from reference.streams import Io

    out, err = io.StringIO(), io.StringIO()
    code = run(list(argv), Io(lab.env(at), io.BytesIO(b""), out, err))
    return code, out.getvalue(), err.getvalue()
