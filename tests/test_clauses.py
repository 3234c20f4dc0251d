"""The clause catalogue is the shared vocabulary of the corpus: scenarios cite its ids, so a
duplicate, a malformed id or a dangling reference would silently weaken what a scenario claims."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
CATALOGUE = ROOT / "conformance" / "clauses.yaml"
ID_PATTERN = re.compile(r"^[A-Z0-9]+(-[A-Z0-9]+)*$")
SPECS = {"884", "1552", "decision", "profile"}


@pytest.fixture(scope="module")
def catalogue() -> dict[str, Any]:
    with CATALOGUE.open(encoding="utf-8") as fh:
        data = yaml.safe_load(fh)
    assert isinstance(data, dict)
    return data


@pytest.fixture(scope="module")
def clauses(catalogue: dict[str, Any]) -> list[dict[str, Any]]:
    items = catalogue["clauses"]
    assert isinstance(items, list) and items
    return items


def test_version_is_one(catalogue: dict[str, Any]) -> None:
    assert catalogue["version"] == 1
    assert set(catalogue) == {"version", "clauses"}


def test_every_clause_has_exactly_the_known_keys(clauses: list[dict[str, Any]]) -> None:
    required, optional = {"id", "spec", "section", "text"}, {"unit_tests"}
    wrong = [c.get("id") for c in clauses if not isinstance(c, dict) or not required <= set(c) <= required | optional
             | ({"alternatives"} if c.get("spec") == "decision" else set())]
    assert wrong == []


def test_every_decision_names_its_alternatives(clauses: list[dict[str, Any]]) -> None:
    """The decisions register: each decision says what else an implementation may do, and only a
    decision does."""
    for c in clauses:
        others = c.get("alternatives")
        if c["spec"] == "decision":
            assert isinstance(others, list) and others and all(isinstance(a, str) and a.strip() for a in others), c["id"]
        else:
            assert others is None, c["id"]


def test_ids_are_unique(clauses: list[dict[str, Any]]) -> None:
    counts = Counter(c["id"] for c in clauses)
    assert [i for i, n in counts.items() if n > 1] == []


def test_ids_match_the_pattern(clauses: list[dict[str, Any]]) -> None:
    bad = [c["id"] for c in clauses if not isinstance(c["id"], str) or not ID_PATTERN.match(c["id"])]
    assert bad == []


def test_spec_is_known(clauses: list[dict[str, Any]]) -> None:
    bad = [(c["id"], c["spec"]) for c in clauses if c["spec"] not in SPECS]
    assert bad == []


def test_text_and_section_are_non_empty_strings(clauses: list[dict[str, Any]]) -> None:
    bad = [c["id"] for c in clauses
           if not (isinstance(c["text"], str) and c["text"].strip()
                   and isinstance(c["section"], str) and c["section"].strip())]
    assert bad == []


def test_both_specs_are_covered(clauses: list[dict[str, Any]]) -> None:
    per_spec = Counter(c["spec"] for c in clauses)
    assert per_spec["884"] >= 60 and per_spec["1552"] >= 50 and per_spec["decision"] >= 1 and per_spec["profile"] >= 1


def test_every_scenario_cites_known_clauses(clauses: list[dict[str, Any]]) -> None:
    known = {c["id"] for c in clauses}
    dangling: list[tuple[str, str]] = []
    for path in sorted((ROOT / "scenarios").rglob("*.yaml")):
        try:
            scenario = yaml.safe_load(path.read_text(encoding="utf-8"))
        except yaml.YAMLError:
            continue  # unreadable YAML is the corpus linter's finding, not this test's
        cited = scenario.get("clauses", []) if isinstance(scenario, dict) else []
        dangling.extend((path.relative_to(ROOT).as_posix(), str(c)) for c in cited if c not in known)
    assert dangling == []
