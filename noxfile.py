"""Maintainer sessions. ``nox -s tests`` is the README's test command and what CI runs."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import nox

nox.options.sessions = ["tests", "coverage", "lint", "typecheck", "corpus_lint", "conformance"]
nox.options.reuse_existing_virtualenvs = True

# Branch coverage a full run must reach, per package, a little under what one measures (reference/
# 94%, conformance/ 91%), so that a real loss fails the run and noise does not.
COVERAGE_GATES = {"reference": 90, "conformance": 88}
WORKERS = "2"
# A worker that runs out of tests takes queued ones from the other, so a run does not end with one
# worker finishing a long file (the corpus through the protocol, teamai-cli's node processes) alone.
SCHEDULE = ("--dist", "worksteal")
NO_TESTS_COLLECTED = 5
# Scratch space in memory, where the machine has it: every case writes a sandbox (a team tree, an
# index, ledgers written with fsync, often a git repository) and deletes it, and on a shared disk
# that waiting, not the work, was most of a corpus run. The files are as real as on a disk.
MEMORY_TMP, MEMORY_TMP_FREE = "/dev/shm", 2 << 30


@nox.session(name="tests")
def tests(session: nox.Session) -> None:
    """The tests (unit, property, scenario) on two worker processes, without coverage.

    Without arguments: every test but the ``peer`` ones (those run the published teamai-cli in
    node, and are ``nox -s peer``). With arguments (``-- -k X``, a file): just what they select,
    peer tests included.
    """
    _install(session)
    _pytest(session, *(session.posargs or ("-m", "not peer")))


@nox.session
def fresh(session: nox.Session) -> None:
    """The tests with every property on fresh examples, a new seed every run (``tests`` and CI keep
    them derandomized, so main fails only when the code does): run it to look for new
    counterexamples. Arguments select, as for ``tests``."""
    _install(session)
    _pytest(session, "--hypothesis-profile=fresh", *(session.posargs or ("-m", "not peer")))


@nox.session(name="sessions_fresh")
def sessions_fresh(session: nox.Session) -> None:
    """The generated-session properties and the reducer's two stateful ones (checkpointed Stops,
    schedules) on fresh examples, a new seed every run (``tests`` and CI keep them derandomized).
    ``-- N`` sets the examples per property (default 600); reach floors are then judged as a sample
    (``tests/sessions/harness.py``, ``Reach.require``)."""
    _install(session)
    count = session.posargs[0] if session.posargs and session.posargs[0].isdigit() else "600"
    session.env["TEAMAI_SESSION_EXAMPLES"] = count
    _pytest(session, "tests/sessions", "tests/reducer/test_properties.py", "tests/reducer/test_schedules.py",
            "--hypothesis-show-statistics", *session.posargs[1:])


@nox.session
def peer(session: nox.Session) -> None:
    """The tests that run teamai-cli 0.25.0 (installed from npm on first use; needs node and npm)."""
    _install(session)
    _pytest(session, "-m", "peer", *session.posargs)


@nox.session
def coverage(session: nox.Session) -> None:
    """Every test, peer ones included, measuring branch coverage across the workers and every
    Python process they start, gated per package (``COVERAGE_GATES``). What CI gates on."""
    _install(session)
    session.run("python", "-m", "coverage", "erase")
    _pytest(session, coverage=True)
    session.run("python", "-m", "coverage", "combine", "--quiet")
    failed = []
    for package, gate in COVERAGE_GATES.items():
        try:
            session.run("python", "-m", "coverage", "report", f"--include={package}/*", f"--fail-under={gate}")
        except nox.command.CommandFailed:
            failed.append(f"{package}/ under {gate}%")
    if failed:
        session.error("branch coverage: " + "; ".join(failed))


@contextmanager
def _scratch_in_memory(session: nox.Session) -> Iterator[None]:
    """Point ``TMPDIR`` (so pytest's ``tmp_path``, the harness's sandboxes and every child process)
    at a memory file system when there is one with room to spare, and remove it afterwards; else
    leave ``TMPDIR`` alone."""
    scratch = None
    if "TMPDIR" not in os.environ and os.path.isdir(MEMORY_TMP) and os.access(MEMORY_TMP, os.W_OK):
        try:
            if shutil.disk_usage(MEMORY_TMP).free >= MEMORY_TMP_FREE:
                scratch = tempfile.mkdtemp(prefix="teamai-conformance-", dir=MEMORY_TMP)
        except OSError:
            scratch = None
    if scratch is None:
        yield
        return
    session.env["TMPDIR"] = scratch
    session.log(f"scratch files in memory: {scratch}")
    try:
        yield
    finally:
        del session.env["TMPDIR"]
        shutil.rmtree(scratch, ignore_errors=True)


def _pytest(session: nox.Session, *args: str, coverage: bool = False) -> None:
    """pytest on two workers, with its exit 5 (nothing collected) said in plain words: a selection
    that matches no test is a mistake worth one line, not a coverage error."""
    runner = ["python", "-m", "coverage", "run", "-m", "pytest"] if coverage else ["python", "-m", "pytest"]
    # The suite starts hundreds of Python processes; where the environment forbids writing
    # bytecode, each of them would compile every module it imports from source again.
    session.env["PYTHONDONTWRITEBYTECODE"] = ""
    try:
        with _scratch_in_memory(session):
            session.run(*runner, "-n", WORKERS, *SCHEDULE, *args)
    except nox.command.CommandFailed as exc:
        code = getattr(exc, "return_code", None)
        if code == NO_TESTS_COLLECTED or (code is None and str(exc.reason).endswith(f" {NO_TESTS_COLLECTED}")):
            session.error(f"pytest collected no test (exit {NO_TESTS_COLLECTED}) for: {' '.join(args)}")
        raise


@nox.session
def lint(session: nox.Session) -> None:
    _install(session, "ruff")
    session.run("python", "-m", "ruff", "check", "reference", "conformance", "tests", "noxfile.py", "bench", "tools")


@nox.session
def typecheck(session: nox.Session) -> None:
    _install(session, "mypy", "types-PyYAML")
    session.run("python", "-m", "mypy", "reference", "conformance")


@nox.session(name="corpus_lint")
def corpus_lint(session: nox.Session) -> None:
    """Schema-valid scenarios and payloads, unique ids, known clauses, no duplicate meanings, and the
    generated scenarios as the spec's tables give them."""
    _install(session)
    session.run("teamai-conformance", "lint")
    session.run("teamai-conformance", "generate", "--check")


@nox.session
def conformance(session: nox.Session) -> None:
    """The main job: the whole corpus against the reference, with its report."""
    _install(session)
    with _scratch_in_memory(session):
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


@nox.session
def report(session: nox.Session) -> None:
    """The results page: the corpus against the reference and, where node is present, teamai-cli
    0.25.0, side by side in reports/index.html (with a screenshot where Chromium is installed).
    Arguments narrow both runs (``nox -s report -- --only recall``)."""
    _install(session)
    out = Path("reports")
    out.mkdir(exist_ok=True)
    runs = [out / "reference.jsonl", out / "teamai-cli-0.25.jsonl"]
    for stale in [*runs, out / "index.html", out / "index.png"]:
        stale.unlink(missing_ok=True)
    session.run("teamai-conformance", "run", "--jobs", "2", "--report", str(runs[0]), *session.posargs,
                success_codes=[0, 1])
    if shutil.which("node") and shutil.which("npm"):
        session.run("teamai-conformance", "run", "--impl", "teamai-cli", "--jobs", "2",
                    "--expectations", "conformance/expectations/teamai-cli-0.25.toml",
                    "--report", str(runs[1]), *session.posargs, success_codes=[0, 1, 4])
    else:
        session.log("node and npm are not installed: the page has the reference's column only")
    page = out / "index.html"
    session.run("teamai-conformance", "report", *(str(r) for r in runs if r.is_file()), "--html", str(page))
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser:
        profile = session.create_tmp()
        session.run(browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                    "--disable-background-networking", "--disable-component-update", "--disable-sync",
                    f"--user-data-dir={profile}/chromium", "--hide-scrollbars", "--window-size=1280,900",
                    f"--screenshot={(out / 'index.png').resolve()}", page.resolve().as_uri(),
                    external=True, silent=True, success_codes=[0, 1])
    session.log(f"results page: {page.resolve()}")


def _install(session: nox.Session, *extra: str) -> None:
    session.install("--quiet", "--disable-pip-version-check", "-e", ".[test]", *extra)


@nox.session
def mutation(session: nox.Session) -> None:
    """The corpus's mutation score (see README.md, "Mutation score"). Not in the default list: the
    whole set takes half an hour on two cores. ``-- --sample 30 --seed 1`` is a quick look."""
    _install(session)
    session.run("python", "-m", "conformance.mutation", *session.posargs)
