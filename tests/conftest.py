"""Shared fixtures: a real team tree in a temporary folder, and the CLI run as a real subprocess
or in-process through the same entry point."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# The suite runs on shared two-core machines, two workers at a time: how long one example takes says
# nothing about a rule, so neither deadlines nor the "generation is slow" check may fail a test.
# Its examples are derandomized: they change only with the code, so a run of main (CI's) fails only
# when the code or a test did. New counterexamples are looked for on fresh seeds by ``nox -s fresh``
# (``--hypothesis-profile fresh``), where a failure is a finding to fix, not a red main.
settings.register_profile("fresh", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("suite", settings.get_profile("fresh"), derandomize=True)
settings.load_profile("suite")

ROOT = Path(__file__).resolve().parent.parent


def in_ci(env: dict[str, str] | None = None) -> bool:
    """Whether this run is CI's (``CI`` set to anything but empty, ``0`` or ``false``)."""
    value = (os.environ if env is None else env).get("CI", "").strip().lower()
    return value not in ("", "0", "false", "no")


def skip_unless_in_ci(reason: str) -> None:
    """Skip a test that needs what this machine lacks, and say why; in CI, which installs what every
    test needs (``.ci/run``), fail instead, so a test never stops running there unnoticed."""
    if in_ci():
        pytest.fail(f"CI must run this test, but: {reason}", pytrace=False)
    pytest.skip(reason)
EXAMPLE_TEAM = ROOT / "examples" / "team"
REAL_TEAM = ROOT.parent / "shared" / "corpora" / "real-team-a"


@dataclass
class Result:
    code: int
    out: str
    err: str


class Cli:
    """Runs ``teamai-ref`` with a controlled environment."""

    def __init__(self, home: Path, team: Path) -> None:
        self.env = {k: v for k, v in os.environ.items() if not k.startswith(("TEAMAI_", "CLAUDE", "CODEX",
                                                                                "CURSOR", "COPILOT", "CODEBUDDY",
                                                                                "PI_"))}
        self.env.update({"TEAMAI_HOME": str(home), "TEAMAI_TEAM": str(team), "TEAMAI_LOCK_WAIT": "2"})

    def __call__(self, *argv: str, stdin: bytes = b"", env: dict[str, str] | None = None) -> Result:
        from reference.cli import run
        from reference.streams import Io

        full = {**self.env, **(env or {})}
        out, err = io.StringIO(), io.StringIO()
        code = run(list(argv), Io(full, io.BytesIO(stdin), out, err))
        return Result(code, out.getvalue(), err.getvalue())

    def subprocess(self, *argv: str, stdin: bytes = b"", env: dict[str, str] | None = None) -> Result:
        full = {**self.env, **(env or {})}
        proc = subprocess.run([sys.executable, "-m", "reference", *argv], input=stdin, capture_output=True,
                              env=full, cwd=ROOT, timeout=120)
        return Result(proc.returncode, proc.stdout.decode(), proc.stderr.decode())


@pytest.fixture
def team(tmp_path: Path) -> Path:
    dest = tmp_path / "team"
    shutil.copytree(EXAMPLE_TEAM, dest)
    return dest


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


@pytest.fixture
def cli(home: Path, team: Path) -> Cli:
    return Cli(home, team)


@pytest.fixture(scope="session")
def teamai_cli() -> str:
    """The entry script of the published teamai-cli 0.25.0, installed from npm on first use.

    Every test that uses it, directly or through another fixture, is marked ``peer``: node's
    processes make those tests most of the suite's time, so ``nox -s tests`` leaves them to
    ``nox -s peer`` (and ``nox -s coverage`` runs both)."""
    from conformance.drivers import teamai_cli_home

    found = teamai_cli_home.install()
    if found is None:
        pytest.skip("teamai-cli 0.25.0 is not available (node, npm or the package missing)")
    return found


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "teamai_cli" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.peer)


def pytest_addoption(parser: pytest.Parser) -> None:
    try:  # the name a snapshot plugin, where one is installed, already gives the option
        parser.addoption("--snapshot-update", action="store_true", default=False,
                         help="write the reference's golden snapshots anew (tests/conformance/test_reference_snapshots.py)")
    except ValueError:
        pass
