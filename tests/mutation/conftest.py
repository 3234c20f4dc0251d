"""The mutation tool forgets the reference's modules to import a mutant's code afresh (tracing.
purge_reference, judge's serving). Inside the test process that would leave every later test in
the same worker holding module objects the reference no longer uses (two ``storage.Busy`` classes,
a patched module nobody imports): each test here puts the original modules back.

Tracing also creates a ``coverage.Coverage`` of its own, which coverage.py takes to mean that the
process measures itself, so the measurement it started for the process (a pytest worker under
``nox -s tests``) stops saving: a whole worker's coverage was lost. Each test puts that back too."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest


def _ours(name: str) -> bool:
    return name == "reference" or name.startswith("reference.")


@pytest.fixture(autouse=True)
def _process_coverage_kept() -> Iterator[None]:
    try:
        import coverage
    except ImportError:
        yield
        return
    measuring = getattr(coverage.process_startup, "coverage", None)
    saving = getattr(measuring, "_auto_save", None)
    yield
    if measuring is not None and saving is not None:
        measuring._auto_save = saving


@pytest.fixture(autouse=True)
def _reference_modules_restored() -> Iterator[None]:
    saved = {name: module for name, module in sys.modules.items() if _ours(name)}
    yield
    for name in [name for name in sys.modules if _ours(name)]:
        del sys.modules[name]
    sys.modules.update(saved)
