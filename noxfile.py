"""Maintainer sessions. ``nox -s tests`` is the README's test command and what CI runs."""

from __future__ import annotations

import nox

nox.options.sessions = ["tests", "lint", "typecheck", "corpus_lint", "conformance"]
nox.options.reuse_existing_virtualenvs = True



@nox.session(name="tests")
def tests(session: nox.Session) -> None:
    """Unit, property and scenario tests with coverage of reference/ (fails under 90%)."""
    _install(session)
    session.run("python", "-m", "coverage", "erase")
    session.run("python", "-m", "coverage", "run", "-m", "pytest", *session.posargs)
    session.run("python", "-m", "coverage", "combine", success_codes=[0, 1])
    session.run("python", "-m", "coverage", "report")


@nox.session
def lint(session: nox.Session) -> None:
    _install(session, "ruff")
    session.run("python", "-m", "ruff", "check", "reference", "conformance", "tests", "noxfile.py", "bench")


@nox.session
def typecheck(session: nox.Session) -> None:
    _install(session, "mypy", "types-PyYAML")
    session.run("python", "-m", "mypy", "reference", "conformance")


@nox.session(name="corpus_lint")
def corpus_lint(session: nox.Session) -> None:
    """Schema-valid scenarios and payloads, unique ids, known clauses, no duplicate meanings."""
    _install(session)
    session.run("teamai-conformance", "lint")


@nox.session
def conformance(session: nox.Session) -> None:
    """The main job: the whole corpus against the reference, with its report."""
    _install(session)
    session.run("teamai-conformance", "run", "--jobs", "2", *session.posargs)


@nox.session
def bench(session: nox.Session) -> None:
    """Speed, as ratios measured in one run (see README.md, "Benchmarks")."""
    # A regular (not editable) install, compiled, as a user would have it: an editable install's
    # import hook costs every fresh process more than the hook's whole budget.
    session.install("--quiet", "--disable-pip-version-check", "--force-reinstall", "--no-deps", ".")
    session.install("--quiet", "--disable-pip-version-check", ".")
    session.run("python", "bench/run.py", *session.posargs, env={"PYTHONDONTWRITEBYTECODE": ""})


@nox.session
def relevance(session: nox.Session) -> None:
    """Known-item relevance per slice, the reference and teamai-cli 0.25.0 (bench/relevance/README.md)."""
    _install(session)
    session.run("python", "bench/relevance/run.py", "--heldout", *session.posargs)


@nox.session(name="conformance_teamai_cli")
def conformance_teamai_cli(session: nox.Session) -> None:
    """The corpus against the published teamai-cli 0.25.0 (needs node and npm; not run by default)."""
    _install(session)
    session.run("teamai-conformance", "run", "--impl", "teamai-cli", "--jobs", "2",
                 "--expectations", "conformance/expectations/teamai-cli-0.25.toml", *session.posargs)


def _install(session: nox.Session, *extra: str) -> None:
    session.install("--quiet", "--disable-pip-version-check", "-e", ".[test]", *extra)
