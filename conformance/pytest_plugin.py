"""pytest plugin: every scenario of the corpus (``<area>/*.yaml`` and ``<area>/generated/*.yaml``)
is a test item named by its case id, so ``-k``, ``--lf`` and ``-x`` work on case ids (and ``-k``
on the agents a case concerns and its area's folder), against any implementation.

Options (all optional; without them the corpus under ``<rootdir>/scenarios/`` runs against the
in-process reference, as it always did):

``--teamai-impl NAME|COMMAND``
    the driver, as ``teamai-conformance run --impl`` takes it (``reference``,
    ``reference-subprocess``, ``reference-cli``, ``teamai-cli`` or a command line);
``--teamai-expectations FILE``
    the implementation's expected failures (the reference's own file by default for the
    reference's drivers, none for any other);
``--teamai-corpus DIR``
    the corpus to run (the folder holding ``scenarios/`` and ``payloads/``). Default: the rootdir
    when it has ``scenarios/``; otherwise, with ``--teamai-impl``, this project's corpus. A corpus
    outside the rootdir is added to what pytest collects, so an implementation's own test suite
    runs it beside its own tests with one option.

A case the expectations file lists as failing is marked ``xfail(strict=True)``: it is reported
xfailed while it fails and fails the run as XPASS(strict) once it passes, as ``teamai-conformance
run`` counts an xpass unexpected. ``status = "skip"`` skips it, a case the driver lacks the
capabilities for is skipped with what it lacks, and a case id the file names but the corpus lacks
is a warning.
"""

from __future__ import annotations

import shlex
import warnings
from pathlib import Path
from typing import Any

import pytest

from .corpus import read as corpus_mod
from .reports.terminal import failure_block
from .running import expectations, outcomes
from .running.case_runner import run_case

PROJECT = Path(__file__).resolve().parent.parent  # this project's own corpus
REFERENCE_IMPLS = ("reference", "reference-subprocess", "reference-cli")
_STATE: dict[str, Any] = {}


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("teamai", "the TeamAI conformance corpus")
    group.addoption("--teamai-impl", default=None, metavar="NAME|COMMAND",
                    help="run the scenarios against this driver (default: the reference, in-process)")
    group.addoption("--teamai-expectations", default=None, metavar="FILE",
                    help="expected failures (TOML): they become xfail, and one that passes fails the run")
    group.addoption("--teamai-corpus", default=None, metavar="DIR",
                    help="the corpus to run (default: the rootdir's, or with --teamai-impl this project's)")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "clause(id): the scenario tests this clause of the catalogue")
    root = _corpus_root(config)
    scenarios = root / "scenarios"
    if root != Path(str(config.rootpath)) and scenarios.is_dir() and not _covered(config, scenarios):
        config.args.append(str(scenarios))


def _corpus_root(config: pytest.Config) -> Path:
    given = config.getoption("teamai_corpus", None)
    if given:
        return Path(given).resolve()
    root = Path(str(config.rootpath))
    if (root / "scenarios").is_dir() or not config.getoption("teamai_impl", None):
        return root
    return PROJECT


def _covered(config: pytest.Config, folder: Path) -> bool:
    """Whether one of the paths pytest will collect already holds ``folder``."""
    for arg in config.args:
        path = Path(str(arg).split("::", 1)[0])
        path = (path if path.is_absolute() else Path(str(config.invocation_params.dir)) / path).resolve()
        if folder == path or path in folder.parents or folder in path.parents:
            return True
    return False


def _impl(config: pytest.Config) -> str:
    return str(config.getoption("teamai_impl", None) or "reference")


def _shared(config: pytest.Config) -> tuple[corpus_mod.Corpus, dict[str, expectations.Expected]]:
    if "corpus" not in _STATE:
        root = _corpus_root(config)
        _STATE["corpus"] = corpus_mod.load(root)
        given = config.getoption("teamai_expectations", None)
        path = Path(given) if given else (
            root / "conformance" / "expectations" / "reference.toml" if _impl(config) in REFERENCE_IMPLS else None)
        try:
            _STATE["expected"] = expectations.load(path) if path else {}
        except expectations.ExpectationsError as exc:
            raise pytest.UsageError(str(exc)) from exc
        strangers = expectations.unknown(_STATE["expected"], _STATE["corpus"].by_id())
        if strangers and path is not None:
            warnings.warn(pytest.PytestWarning(expectations.unknown_warning(path, strangers)), stacklevel=1)
    return _STATE["corpus"], _STATE["expected"]


def _by_path(config: pytest.Config) -> dict[Path, list[corpus_mod.Scenario]]:
    """The scenarios of each file, found once rather than by a scan of the corpus per file."""
    if "by_path" not in _STATE:
        index: dict[Path, list[corpus_mod.Scenario]] = {}
        for scenario in _shared(config)[0].scenarios:
            index.setdefault(scenario.path, []).append(scenario)
        _STATE["by_path"] = index
    return _STATE["by_path"]  # type: ignore[no-any-return]


def _driver(config: pytest.Config) -> Any:
    """One driver for the session (per xdist worker), started at the first case that runs."""
    if "driver" not in _STATE:
        from .implementations import connect
        from .running.driver import DriverUnusable

        try:
            _STATE["driver"] = connect(_impl(config))
        except DriverUnusable as exc:
            pytest.exit(f"--teamai-impl: {exc}", returncode=pytest.ExitCode.USAGE_ERROR)
    return _STATE["driver"]


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    try:
        rel = file_path.relative_to(_corpus_root(parent.config) / "scenarios")
    except ValueError:
        return None
    if file_path.suffix == ".yaml" and (len(rel.parts) == 2 or (len(rel.parts) == 3 and rel.parts[1] == corpus_mod.GENERATED)):
        return ScenarioFile.from_parent(parent, path=file_path)
    return None


def pytest_sessionfinish(session: pytest.Session) -> None:
    driver = _STATE.pop("driver", None)
    if driver is not None:
        driver.stop()
    _STATE.clear()


class ScenarioFile(pytest.File):
    def collect(self) -> Any:
        corpus, expected = _shared(self.config)
        for scenario in _by_path(self.config).get(self.path, ()):
            yield ScenarioItem.from_parent(self, name=scenario.id, scenario=scenario,
                                           expected=expected.get(scenario.id))


class ScenarioFailed(Exception):
    pass


class ScenarioItem(pytest.Item):
    def __init__(self, *, scenario: corpus_mod.Scenario, expected: expectations.Expected | None = None,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.scenario = scenario
        self.expected = expected
        for clause in scenario.clauses:
            self.add_marker(pytest.mark.clause(clause))
        self.extra_keyword_matches.update(scenario.agents)  # -k "reducer and codex"
        if expected is not None and expected.status == "skip":
            self.add_marker(pytest.mark.skip(reason=expected.reason or "skipped by the expectations file"))
        elif expected is not None and expected.status == "fail":
            self.add_marker(pytest.mark.xfail(reason=expected.reason, strict=True))

    def runtest(self) -> None:
        corpus, _ = _shared(self.config)
        explain = None
        if self.expected is None or self.expected.status != "fail":  # an unexpected failure is explained
            from .reports.explain import explain_failure

            explain = explain_failure
        result = run_case(_driver(self.config), self.scenario, corpus.payloads, explain=explain)
        if result.outcome == outcomes.NOT_APPLICABLE:
            pytest.skip(result.message)
        if result.outcome != outcomes.PASS:
            raise ScenarioFailed("\n".join(failure_block(result, self.rerun())))

    def rerun(self) -> str:
        """The command that runs this case again, the same way: by its node id, which names this one
        case (``-k`` matches every id that holds it, ``accept-alice`` its longer siblings too)."""
        parts = ["pytest", self.nodeid]
        for option in ("teamai_impl", "teamai_expectations", "teamai_corpus"):
            value = self.config.getoption(option, None)
            if value:
                parts += ["--" + option.replace("_", "-"), str(value)]
        return shlex.join(parts)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, ScenarioFailed):
            return str(excinfo.value)
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, 0, f"scenario {self.scenario.id}"
