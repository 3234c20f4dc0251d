"""What earlier runs found, so a rerun judges only what changed.

Two stores in one folder (``.mutation-cache/`` at the repository root, ignored by git):

- traces, per text of the code (the reference and the harness, :func:`.tracing.code_hash` with
  ``layout``, since traces name lines): for each scenario, keyed by its own text and payloads, the
  lines it ran, its outcome and duration;
- verdicts, one JSON line each, keyed by the mutated module's syntax tree and the mutant's id, and
  stamped with the code version (syntax trees too, so a comment or a rewrapped line keeps them)
  and with the scenarios that judged it (id and hash).

A verdict holds while the code version is the same and its scenarios are unchanged: a killed
mutant while the scenario that killed it is; a survivor for the scenarios it passed, so a new or
edited scenario that reaches it is the only one run.
"""

from __future__ import annotations

import functools
import hashlib
import json
from pathlib import Path
from typing import Any

from .operators import Mutant
from .tracing import meaning


def mutant_key(mutant: Mutant, source: str) -> str:
    """The mutated module's syntax tree and the mutant's id: a comment edit keeps the verdict."""
    return _digest(source) + ":" + mutant.id


@functools.lru_cache(maxsize=64)
def _digest(source: str) -> str:
    """Parsed once per module, not once per mutant (a module has hundreds)."""
    return hashlib.sha256(meaning(source)).hexdigest()[:16]


class Cache:
    def __init__(self, folder: Path | None, code: str, layout: str | None = None) -> None:
        self.folder = folder
        self.code = code
        self.layout = layout or code  # traces name lines, so they follow the text, not only the tree
        self._verdicts: dict[str, dict[str, Any]] = {}
        if folder is None:
            return
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / "verdicts.jsonl"
        if path.is_file():
            for line in path.read_text(encoding="utf-8").splitlines():
                try:
                    rec = json.loads(line)
                except ValueError:
                    continue
                if isinstance(rec, dict) and isinstance(rec.get("key"), str):
                    self._verdicts[rec["key"]] = rec

    # traces ------------------------------------------------------------------------------------
    def _traces_path(self) -> Path | None:
        return self.folder / f"traces-{self.layout}.json" if self.folder else None

    def traces(self) -> dict[str, dict[str, Any]]:
        """Traced scenarios of this code version, by scenario hash."""
        path = self._traces_path()
        if path is None or not path.is_file():
            return {}
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except ValueError:
            return {}
        return data if isinstance(data, dict) else {}

    def save_traces(self, traces: dict[str, dict[str, Any]]) -> None:
        path = self._traces_path()
        if path is None:
            return
        for old in path.parent.glob("traces-*.json"):
            if old != path:
                old.unlink()
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(traces, sort_keys=True, separators=(",", ":")), encoding="utf-8")
        tmp.replace(path)

    # verdicts ----------------------------------------------------------------------------------
    def verdict(self, key: str) -> dict[str, Any] | None:
        rec = self._verdicts.get(key)
        return rec if rec is not None and rec.get("code") == self.code else None

    def store(self, key: str, record: dict[str, Any]) -> None:
        rec = {"key": key, "code": self.code, **record}
        self._verdicts[key] = rec
        if self.folder is None:
            return
        with (self.folder / "verdicts.jsonl").open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(rec, sort_keys=True) + "\n")

    def compact(self) -> None:
        """Rewrite the verdicts file with the latest line per key of this code version."""
        if self.folder is None:
            return
        path = self.folder / "verdicts.jsonl"
        keep = [r for r in self._verdicts.values() if r.get("code") == self.code]
        tmp = path.with_suffix(".tmp")
        tmp.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in keep), encoding="utf-8")
        tmp.replace(path)
