"""The clause catalogue (``clauses.yaml``) and how much of it the corpus tests.

A clause is tested by scenarios (any implementation can be judged on it) or, when no black-box
scenario can observe it (a property of the reference itself, a Windows path on a POSIX host),
only by the reference's unit tests, named in its optional ``unit_tests:`` list as pytest node
ids (``tests/file.py::test_name``). Reports keep the two apart, so "untested" means neither.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .read import Scenario, load_yaml

# ``spec`` of a clause: the proposal it comes from, or the level of a reference behaviour the
# proposals leave open (``levels``): a *decision* names the alternatives an implementation may take
# instead, the *profile* is the reference's own format or mechanism.
SPEC_LEVEL = ("884", "1552")
KINDS = (*SPEC_LEVEL, "decision", "profile")


@dataclass(frozen=True)
class Clause:
    id: str
    spec: str
    section: str
    text: str
    unit_tests: tuple[str, ...] = ()
    alternatives: tuple[str, ...] = ()  # a decision's: what else an implementation may do


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
        tests = item.get("unit_tests") or []
        if not isinstance(tests, list) or not all(isinstance(t, str) and "::" in t for t in tests):
            raise CatalogueError(f"{path.name}: {item['id']}: unit_tests must be a list of pytest node ids "
                                 "(tests/file.py::test_name)")
        if str(item.get("spec", "")) not in KINDS:
            raise CatalogueError(f"{path.name}: {item['id']}: spec must be one of {', '.join(KINDS)}")
        others = item.get("alternatives") or []
        if not isinstance(others, list) or not all(isinstance(a, str) and a.strip() for a in others):
            raise CatalogueError(f"{path.name}: {item['id']}: alternatives must be a list of sentences")
        if (item.get("spec") == "decision") != bool(others):
            raise CatalogueError(f"{path.name}: {item['id']}: a decision, and only a decision, names its "
                                 "alternatives")
        out.append(Clause(str(item["id"]), str(item.get("spec", "")), str(item.get("section", "")),
                          " ".join(str(item.get("text", "")).split()), tuple(tests),
                          tuple(" ".join(a.split()) for a in others)))
    return out


def coverage(catalogue: list[Clause], scenarios: Iterable[Scenario]) -> dict[str, int]:
    """Clause id -> number of scenarios that name it (every catalogue clause is present)."""
    counts = {c.id: 0 for c in catalogue}
    for scenario in scenarios:
        for clause_id in set(scenario.clauses):
            counts[clause_id] = counts.get(clause_id, 0) + 1
    return counts


def unit_only(catalogue: list[Clause], counts: Mapping[str, int]) -> list[str]:
    """Ids no scenario names but the reference's unit tests cover, in catalogue order."""
    return [c.id for c in catalogue if c.unit_tests and not counts.get(c.id)]


def untested(counts: Mapping[str, int], covered_by_units: Iterable[str] = ()) -> list[str]:
    """Ids neither a scenario nor a named unit test covers."""
    units = set(covered_by_units)
    return [clause_id for clause_id, n in counts.items() if n == 0 and clause_id not in units]


def summary(catalogue: list[Clause], counts: Mapping[str, int]) -> dict[str, Any]:
    """The coverage numbers every report shows, in one place so the reports agree."""
    units = unit_only(catalogue, counts)
    return {"total": len(counts), "by_scenarios": sum(1 for n in counts.values() if n),
            "unit_tests_only": units, "untested": untested(counts, units)}


def missing_unit_tests(catalogue: list[Clause], root: Path) -> list[str]:
    """One problem per named unit test that does not exist (its file, or the function in it)."""
    problems = []
    defined: dict[str, set[str] | None] = {}
    for clause in catalogue:
        for node in clause.unit_tests:
            file, _, rest = node.partition("::")
            if file not in defined:
                defined[file] = _test_names(root / file)
            names = defined[file]
            if names is None:
                problems.append(f"{clause.id}: unit test {node}: there is no file {file}")
            elif rest not in names:
                problems.append(f"{clause.id}: unit test {node}: {file} defines no {rest}")
    return problems


def _test_names(path: Path) -> set[str] | None:
    """``name`` and ``Class::name`` for every test function a test file defines (None: no such file)."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, SyntaxError):
        return None
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test"):
            names.add(node.name)
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            names.update(f"{node.name}::{item.name}" for item in node.body
                         if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef)
                         and item.name.startswith("test"))
    return names
