"""Fixtures for the harness's own tests: the fixture corpus, copies of it to break, fake drivers."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
CORPUS = HERE / "corpus"
FAKE = HERE / "fakes" / "fake_driver.py"


def fake_impl(directive: str) -> str:
    return f"{sys.executable} {FAKE} {directive}"


@pytest.fixture
def fake():
    """``fake("crash")`` is the --impl command line of the fake driver with that directive."""
    return fake_impl


@pytest.fixture
def scenario_writer():
    return write_scenario


@pytest.fixture
def corpus_copy(tmp_path: Path) -> Path:
    dest = tmp_path / "corpus"
    shutil.copytree(CORPUS, dest)
    return dest


def write_scenario(root: Path, area: str, name: str, text: str) -> Path:
    path = root / "scenarios" / area / f"{name}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path
