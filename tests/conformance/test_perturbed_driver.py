"""The spec level judges only what the proposals define: the reference with every open choice made
another way (``conformance/drivers/perturbed.py``) passes the whole corpus there, and each of
those choices is still seen by the profile."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import project
import pytest

from conformance.corpus.read import Scenario
from conformance.drivers import perturbed
from conformance.running import applicability, outcomes
from conformance.running.case_runner import run_case

CORPUS = project.load()
AREAS = sorted({s.area for s in CORPUS.scenarios})
CASES_PER_PERTURBATION = 12


@pytest.fixture(scope="module")
def driver():
    d = perturbed.connect()
    yield d
    d.stop()


@pytest.mark.parametrize("area", AREAS)
def test_every_case_holds_at_spec_level_on_the_perturbed_reference(driver, area):
    results = [run_case(driver, s, CORPUS.payloads) for s in CORPUS.scenarios if s.area == area]
    failing = [f"{r.id}: {r.outcome}: {r.message}" for r in results
               if r.outcome not in (outcomes.PASS, outcomes.NOT_APPLICABLE)]
    assert failing == []
    differing = [f"{r.id}: {r.message}" for r in results if "differ" in (r.levels.get("decisions") or {}).values()]
    assert differing == []  # the perturbations make no decision another way
    # a case is out of its reach only when all it checks is the reference's own formats
    assert {tuple(r.lacking) for r in results if r.outcome == outcomes.NOT_APPLICABLE} <= {
        (applicability.PROFILE_ONLY,)}
    assert sum(r.outcome == outcomes.PASS for r in results) > len(results) // 2


def _profile_text(scenario: Scenario) -> str:
    return json.dumps(scenario.data.get("profile") or {}, ensure_ascii=False)


def _profile_has(key: str, test: Callable[[Any], bool]) -> Callable[[Scenario], bool]:
    def chosen(scenario: Scenario) -> bool:
        found = []

        def walk(node: Any, name: str = "") -> None:
            if name == key:
                found.append(node)
            if isinstance(node, dict):
                for k, v in node.items():
                    walk(v, str(k))
            elif isinstance(node, list):
                for v in node:
                    walk(v, name)
        walk(scenario.data.get("profile") or {})
        return any(test(value) for value in found)
    return chosen


# Which cases can show each perturbation: chosen by what their profile checks, never by name.
SHOWN_BY: dict[str, Callable[[Scenario], bool]] = {
    "renamed-fields": _profile_has("log_contains", lambda line: isinstance(line, dict) and line.get("kind") in
                                   ("evidence", "run", "claim") and bool(set(line) & set(perturbed.RENAMED))),
    "instants": lambda s: ".000Z" in _profile_text(s),
    "credits-elsewhere": _profile_has("log_contains", lambda line: isinstance(line, dict)
                                      and line.get("kind") == "consumed"),
    "stats-table": lambda s: s.area == "stats" and bool(s.data.get("profile")),
    "findings": _profile_has("findings", lambda line: isinstance(line, str)),
    "ledger-spelling": _profile_has("ledger_file", lambda value: ".000Z" in json.dumps(value)),
}


def test_every_perturbation_has_cases_that_show_it():
    assert set(SHOWN_BY) == set(perturbed.PERTURBATIONS)
    for name, chosen in SHOWN_BY.items():
        assert any(chosen(s) for s in CORPUS.scenarios), name


@pytest.mark.parametrize("name", perturbed.PERTURBATIONS)
def test_each_perturbation_fails_a_profile_expectation_and_no_spec_one(name):
    driver = perturbed.connect([name])
    try:
        cases = [s for s in CORPUS.scenarios if SHOWN_BY[name](s)][:CASES_PER_PERTURBATION]
        results = [run_case(driver, s, CORPUS.payloads, profile=True) for s in cases]
    finally:
        driver.stop()
    levels_missed = {m.get("level") for r in results for m in r.mismatches}
    assert "profile" in levels_missed, f"{name}: no profile expectation of {len(cases)} cases saw it"
    assert "spec" not in levels_missed and "decision" not in levels_missed
