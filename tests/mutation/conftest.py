"""The mutation tool forgets the reference's modules to import a mutant's code afresh (tracing.
purge_reference, judge's serving). Inside the test process that would leave every later test in
the same worker holding module objects the reference no longer uses (two ``storage.Busy`` classes,
a patched module nobody imports): each test here puts the original modules back."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest


def _ours(name: str) -> bool:
    return name == "reference" or name.startswith("reference.")


@pytest.fixture(autouse=True)
def _reference_modules_restored() -> Iterator[None]:
    saved = {name: module for name, module in sys.modules.items() if _ours(name)}
    yield
    for name in [name for name in sys.modules if _ours(name)]:
        del sys.modules[name]
    sys.modules.update(saved)
