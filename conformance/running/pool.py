"""Running many cases: in this process, or spread over worker processes with a driver each.

Workers are forked with the corpus already loaded, so starting one costs a fork and a
handshake. Results come back as they finish (for the progress line) and are put back in
corpus order at the end.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from ..corpus.read import Corpus, Scenario
from ..implementations import connect
from . import outcomes
from .case_runner import Explainer, run_case
from .driver import Driver
from .expectations import Expected, apply

_worker: dict[str, Any] = {}


def _init(impl: str, corpus: Corpus, timeout: float) -> None:
    _worker["driver"] = connect(impl)
    _worker["corpus"] = corpus
    _worker["timeout"] = timeout


def _run_one(case_id: str, explain: bool = True) -> outcomes.CaseResult:
    corpus: Corpus = _worker["corpus"]
    scenario = corpus.by_id()[case_id]
    return run_case(_worker["driver"], scenario, corpus.payloads, _worker["timeout"],
                    explain=_explainer(explain))


def _unexpected_if_failed(expected: dict[str, Expected], case_id: str) -> bool:
    """Whether a failure of the case would be unexpected, and so worth explaining (a replay)."""
    entry = expected.get(case_id)
    return entry is None or entry.status != "fail"


def _explainer(wanted: bool) -> Explainer | None:
    """What explains a failed case when that is wanted (``explain.explain_failure``), else None."""
    if not wanted:
        return None
    from ..reports.explain import explain_failure

    return explain_failure


def run_all(impl: str, corpus: Corpus, chosen: list[Scenario], expected: dict[str, Expected],
            jobs: int = 1, timeout: float = 60.0, driver: Driver | None = None,
            on_result: Callable[[outcomes.CaseResult], None] | None = None) -> list[outcomes.CaseResult]:
    """Every chosen case's result, in corpus order. ``driver`` (jobs == 1 only) reuses an open one."""
    results: dict[str, outcomes.CaseResult] = {}
    todo: list[Scenario] = []
    for scenario in chosen:
        entry = expected.get(scenario.id)
        if entry is not None and entry.status == "skip":
            results[scenario.id] = outcomes.CaseResult(
                scenario.id, scenario.title, scenario.area, scenario.agents, scenario.clauses, outcomes.SKIP,
                f"skipped: {entry.reason}", reason=entry.reason)
            _emit(on_result, results[scenario.id])
        else:
            todo.append(scenario)
    for result in _execute(impl, corpus, todo, jobs, timeout, driver, expected):
        results[result.id] = apply(result, expected.get(result.id))
        _emit(on_result, results[result.id])
    return [results[s.id] for s in chosen]


def _emit(callback: Callable[[outcomes.CaseResult], None] | None, result: outcomes.CaseResult) -> None:
    if callback is not None:
        callback(result)


def _execute(impl: str, corpus: Corpus, todo: list[Scenario], jobs: int, timeout: float,
             driver: Driver | None, expected: dict[str, Expected]) -> Iterator[outcomes.CaseResult]:
    if jobs <= 1 or len(todo) <= 1:
        own = driver is None
        active = driver or connect(impl)
        try:
            for scenario in todo:
                yield run_case(active, scenario, corpus.payloads, timeout,
                               explain=_explainer(_unexpected_if_failed(expected, scenario.id)))
        finally:
            if own:
                active.stop()
        return
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(max_workers=jobs, mp_context=context, initializer=_init,
                             initargs=(impl, corpus, timeout)) as pool:
        futures = {pool.submit(_run_one, s.id, _unexpected_if_failed(expected, s.id)): s for s in todo}
        for future in as_completed(futures):
            scenario = futures[future]
            try:
                yield future.result()
            except BrokenProcessPool as exc:
                yield outcomes.CaseResult(scenario.id, scenario.title, scenario.area, scenario.agents,
                                          scenario.clauses, outcomes.CRASH, f"the worker process died: {exc}")
