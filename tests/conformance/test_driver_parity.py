"""The reference in-process and the reference behind the real protocol give the same results.

``reference-subprocess`` (the protocol to ``teamai-conformance driver reference``) is checked on
the whole corpus, in chunks of cases, against the golden snapshots that the in-process reference
is held to (``test_reference_snapshots.py``), so the in-process side is not run twice. ``reference-cli`` (the protocol, and every command a real ``teamai-ref``
process) on the fixture corpus plus the first two scenarios of every area, since every one of its
steps costs an interpreter start.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import project
import pytest
import snapshots

from conformance import implementations
from conformance.corpus import read as corpus
from conformance.running import driver, pool

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


def _slice(loaded: corpus.Corpus, per_area: int = 2) -> list[corpus.Scenario]:
    taken: dict[str, int] = defaultdict(int)
    chosen = []
    for scenario in loaded.scenarios:
        if taken[scenario.area] < per_area:
            taken[scenario.area] += 1
            chosen.append(scenario)
    return chosen


def _view(result):
    steps = [(s["action"], s["exit"], s["stdout"]) for s in result.steps]
    return result.outcome, result.mismatches, steps, result.observed


def _compare(loaded: corpus.Corpus, chosen: list[corpus.Scenario]) -> None:
    """The same results in-process and through ``reference-cli``."""
    local = pool.run_all("reference", loaded, chosen, {})
    remote = pool.run_all("reference-cli", loaded, chosen, {}, jobs=2)
    assert [r.id for r in local] == [r.id for r in remote]
    for a, b in zip(local, remote, strict=True):
        assert _view(a) == _view(b), a.id


def test_fixture_corpus_same_both_ways():
    loaded = corpus.load(HERE / "corpus")
    _compare(loaded, loaded.scenarios)


PROJECT = project.load()
CHUNK = 40  # cases per test, so parallel workers share the corpus


@pytest.fixture(scope="module")
def protocol() -> Iterator[driver.Driver]:
    """One driver process for every chunk a worker runs, as ``teamai-conformance run`` keeps one per
    job for a whole run: the cases meet a driver that has served others before them, and the suite
    does not pay an interpreter start per chunk. The fixture corpus and the slice above start their
    own, two at a time."""
    active = implementations.connect("reference-subprocess")
    yield active
    active.stop()


@pytest.mark.parametrize("first", range(0, len(PROJECT.scenarios), CHUNK),
                         ids=lambda first: f"cases-{first + 1}-{min(first + CHUNK, len(PROJECT.scenarios))}")
def test_whole_corpus_same_through_the_protocol(first, protocol):
    chosen = PROJECT.scenarios[first:first + CHUNK]
    assert [s.id for s in chosen if corpus_problems(PROJECT, s)] == []
    remote = pool.run_all("reference-subprocess", PROJECT, chosen, {}, driver=protocol)
    assert [r.id for r in remote] == [s.id for s in chosen]
    for scenario, result in zip(chosen, remote, strict=True):
        difference = snapshots.difference(scenario, snapshots.pinned_text(scenario, result))
        assert not difference, f"{scenario.id} through the protocol:\n{difference}"


def test_project_corpus_slice_same_both_ways():
    loaded = project.load()
    chosen = [s for s in _slice(loaded) if not corpus_problems(loaded, s)]
    assert chosen
    _compare(loaded, chosen)


def corpus_problems(loaded: corpus.Corpus, scenario: corpus.Scenario) -> list[str]:
    from conformance.corpus import lint

    return lint.blocking(scenario, loaded)
