"""The reach floors of the generated-session properties, on fresh examples, are stable: a generator
that reaches a case in exactly the floor's share passes on nearly every seed, and one that reaches
it in half that share fails once enough examples ran. (Simulated draws; no session is run.)"""

from __future__ import annotations

import random

import pytest

from . import harness


def _reach(share: float, examples: int, seed: int) -> harness.Reach:
    draw = random.Random(seed)
    reach = harness.Reach()
    reach.examples = examples
    reach.cases["case"] = sum(draw.random() < share for _ in range(examples))
    return reach


def _fails(reach: harness.Reach, floor: float) -> bool:
    try:
        reach.require({"case": floor})
    except AssertionError:
        return True
    return False


@pytest.mark.parametrize("floor", [0.02, 0.05, 0.15, 0.4])
def test_a_generator_on_its_floor_passes_fresh_seeds(monkeypatch, floor):
    monkeypatch.setenv(harness.EXAMPLES_ENV, "60")
    failed = sum(_fails(_reach(floor, 60, seed), floor) for seed in range(400))
    assert failed <= 4, f"{failed} of 400 fresh seeds failed a generator that meets its floor"


@pytest.mark.parametrize("floor", [0.02, 0.05, 0.15, 0.4])
def test_a_generator_below_its_floor_fails_given_enough_examples(monkeypatch, floor):
    monkeypatch.setenv(harness.EXAMPLES_ENV, "4000")
    assert all(_fails(_reach(floor / 2, 4000, seed), floor) for seed in range(20))


def test_derandomized_examples_are_held_to_the_floor_exactly(monkeypatch):
    monkeypatch.delenv(harness.EXAMPLES_ENV, raising=False)
    reach = harness.Reach()
    reach.examples, reach.cases["case"] = 60, 2
    assert _fails(reach, 0.05) and not _fails(reach, 0.03)
