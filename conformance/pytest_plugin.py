"""pytest plugin: every scenario under ``<rootdir>/scenarios/`` (``<area>/*.yaml`` and
``<area>/generated/*.yaml``) is a test item named by its case id, run against the in-process reference, so ``-k``, ``--lf`` and ``-x`` work on case ids.

The reference's expected failures (``conformance/expectations/reference.toml``) become xfail;
a case that passes although listed fails the run, as in ``teamai-conformance run``, and a case
id the file names but the corpus lacks is a warning.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import pytest

from . import corpus as corpus_mod
from . import expectations, outcomes
from .case_runner import run_case
from .report_terminal import failure_block

_STATE: dict[str, Any] = {}


def _shared(root: Path) -> tuple[corpus_mod.Corpus, Any, dict[str, expectations.Expected]]:
    if "corpus" not in _STATE:
        from .driver import connect

        _STATE["corpus"] = corpus_mod.load(root)
        _STATE["driver"] = connect("reference")
        path = root / "conformance" / "expectations" / "reference.toml"
        _STATE["expected"] = expectations.load(path)
        strangers = expectations.unknown(_STATE["expected"], _STATE["corpus"].by_id())
        if strangers:
            warnings.warn(pytest.PytestWarning(expectations.unknown_warning(path, strangers)), stacklevel=1)
    return _STATE["corpus"], _STATE["driver"], _STATE["expected"]


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    root = Path(str(parent.config.rootpath))
    try:
        rel = file_path.relative_to(root / "scenarios")
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
        corpus, _, _ = _shared(Path(str(self.config.rootpath)))
        for scenario in corpus.scenarios:
            if scenario.path == self.path:
                yield ScenarioItem.from_parent(self, name=scenario.id, scenario=scenario)


class ScenarioFailed(Exception):
    pass


class ScenarioItem(pytest.Item):
    def __init__(self, *, scenario: corpus_mod.Scenario, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.scenario = scenario
        for clause in scenario.clauses:
            self.add_marker(pytest.mark.clause(clause))

    def runtest(self) -> None:
        corpus, driver, expected = _shared(Path(str(self.config.rootpath)))
        entry = expected.get(self.scenario.id)
        if entry is not None and entry.status == "skip":
            pytest.skip(entry.reason)
        result = expectations.apply(run_case(driver, self.scenario, corpus.payloads), entry)
        if result.outcome == outcomes.NOT_APPLICABLE:
            pytest.skip(result.message)
        if result.outcome == outcomes.XFAIL:
            pytest.xfail(result.reason or result.message)
        if result.outcome != outcomes.PASS:
            raise ScenarioFailed("\n".join(failure_block(result, f"pytest -k {self.scenario.id}")))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, ScenarioFailed):
            return str(excinfo.value)
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, 0, f"scenario {self.scenario.id}"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "clause(id): the scenario tests this clause of the catalogue")
