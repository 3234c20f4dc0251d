"""The clause catalogue (``clauses.yaml``) and how much of it the corpus tests."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .corpus import Scenario, load_yaml


@dataclass(frozen=True)
class Clause:
    id: str
    spec: str
    section: str
    text: str


class CatalogueError(ValueError):
    pass


def load(path: Path | None) -> list[Clause]:
    if path is None:
        return []
    try:
        data: Any = load_yaml(path.read_text(encoding="utf-8"))
    except Exception as exc:  # any unreadable catalogue is one clear error
        raise CatalogueError(f"{path.name}: {' '.join(str(exc).split())}") from exc
    if not isinstance(data, dict) or not isinstance(data.get("clauses"), list):
        raise CatalogueError(f"{path.name}: expected {{version: 1, clauses: [...]}}")
    out = []
    for item in data["clauses"]:
        if not isinstance(item, dict) or not item.get("id"):
            raise CatalogueError(f"{path.name}: every clause needs an id")
        out.append(Clause(str(item["id"]), str(item.get("spec", "")), str(item.get("section", "")),
                          " ".join(str(item.get("text", "")).split())))
    return out


def coverage(catalogue: list[Clause], scenarios: Iterable[Scenario]) -> dict[str, int]:
    """Clause id -> number of scenarios that name it (every catalogue clause is present)."""
    counts = {c.id: 0 for c in catalogue}
    for scenario in scenarios:
        for clause_id in set(scenario.clauses):
            counts[clause_id] = counts.get(clause_id, 0) + 1
    return counts


def untested(counts: dict[str, int]) -> list[str]:
    return [clause_id for clause_id, n in counts.items() if n == 0]
