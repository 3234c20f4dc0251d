"""``nox -s tests`` (the README's test command): a selection runs without the coverage gates, and
one that matches no test says so. nox runs for real, on this interpreter (``--no-venv
--no-install``), on a small file of the suite."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SMALL = "tests/conformance/test_selection.py"

pytestmark = pytest.mark.skipif(importlib.util.find_spec("nox") is None, reason="nox is not installed here")


def _nox(*posargs: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    return subprocess.run([sys.executable, "-m", "nox", "--no-venv", "--no-install", "-s", "tests", "--", *posargs],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)


def test_a_selection_passes_without_the_coverage_gates():
    proc = _nox(SMALL, "-k", "agent_narrows", "-p", "no:cacheprovider", "-n", "0")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "1 passed" in proc.stdout + proc.stderr
    assert "coverage" not in proc.stderr.split("Running session tests", 1)[-1]


def test_a_selection_that_matches_no_test_says_so_in_one_line():
    proc = _nox(SMALL, "-k", "no_such_test_anywhere", "-p", "no:cacheprovider", "-n", "0")
    assert proc.returncode != 0
    assert "pytest collected no test (exit 5)" in proc.stderr, proc.stderr


def test_tests_that_run_teamai_cli_are_marked_peer_and_only_they():
    """``nox -s tests`` leaves out ``-m peer``: the mark must follow the ``teamai_cli`` fixture,
    through the fixtures that use it, and nothing else."""
    files = ["tests/conformance/test_teamai_cli_home.py", "tests/test_ledger_spelling.py"]
    proc = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-m", "peer", "-p", "no:cacheprovider",
                           *files], cwd=ROOT, capture_output=True, text=True, timeout=300)
    chosen = {line.split("[")[0] for line in proc.stdout.splitlines() if "::" in line}
    assert chosen == {"tests/conformance/test_teamai_cli_home.py::test_0_25_indexes_the_assets_the_reference_indexes",
                      "tests/conformance/test_teamai_cli_home.py::test_0_25_keys_and_titles_a_nested_rule_by_its_path_under_rules",
                      "tests/test_ledger_spelling.py::test_teamai_reads_what_we_write_and_we_read_what_it_writes"}, proc.stdout
