"""The project corpus as the harness's tests read it: loaded once per test process.

Reading and parsing the corpus's YAML takes most of a second, and a dozen test modules read it
when they are collected, in every worker. None of them changes what it reads (a test that breaks
a scenario breaks a copy), so they share one load.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from conformance.corpus import read as corpus

ROOT = Path(__file__).resolve().parents[2]


@cache
def load() -> corpus.Corpus:
    return corpus.load(ROOT)


def every_clause_once(*areas: str) -> list[str]:
    """Ids of the first cases of ``areas`` (in corpus order) that cite a clause no earlier one cites.

    For tests that run every step as a real process (a driver in another language, a driver that
    starts ``teamai-ref`` per command), where each step costs an interpreter start: they take, from
    an area, the cases that between them cite every clause its cases cite, rather than all of
    them. What every case asserts is held by the in-process snapshots and the protocol parity test.
    """
    chosen: list[str] = []
    seen: set[str] = set()
    for scenario in load().scenarios:
        if scenario.area in areas and set(scenario.clauses) - seen:
            chosen.append(scenario.id)
            seen |= set(scenario.clauses)
    return chosen
