"""A log the reducer's shortcuts decide wrongly is written out as a scenario that reproduces it.

A shortcut is broken on purpose (a reduce of a few reads finds none of their runs), the property of
``test_model_shortcuts`` runs until it fails, and the file it names is checked: a valid generated
scenario that ``teamai-conformance --corpus <folder> run`` fails with the broken shortcut and
passes once the shortcut is whole again.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, settings

from conformance import cli
from conformance.comparison import counterexample
from conformance.corpus import lint
from conformance.corpus import read as corpus
from reference.reducer import model

from . import test_model_shortcuts

FORCED = settings(database=None, max_examples=300, phases=[Phase.generate], suppress_health_check=list(HealthCheck),
                  deadline=None, derandomize=True)


def test_a_log_counterexample_reproduces_through_the_harness(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(counterexample.ENV, str(tmp_path))
    monkeypatch.setattr(model, "_runs_for_few", lambda *args, **kwargs: [])
    prop = given(test_model_shortcuts.LOGS, test_model_shortcuts.STOPPING)(FORCED(test_model_shortcuts.check))
    with pytest.raises(AssertionError) as failed:
        prop()
    found = re.search(r"counterexample written to (\S+\.yaml); run it with: (.+)", str(failed.value))
    assert found, str(failed.value)
    path = Path(found.group(1))
    assert found.group(2) == counterexample.rerun(path) and path.is_relative_to(tmp_path)
    text = path.read_text(encoding="utf-8")
    assert text.startswith("# Found by tests/reducer/test_model_shortcuts.py") and "@reproduce_failure(" in text.split("\nid:", 1)[0]
    loaded = corpus.load(tmp_path)
    assert loaded.problems == []
    (scenario,) = loaded.scenarios
    assert scenario.id.startswith("gen-log-") and scenario.data["provenance"] == "generated"
    assert lint.blocking(scenario, loaded) == []
    assert scenario.data["profile"]["log_lines"] >= len(scenario.data["given"]["log"].splitlines())

    def run() -> tuple[int, str]:
        out, err = io.StringIO(), io.StringIO()
        code = cli.main(["--corpus", str(tmp_path), "run", "--only", scenario.id], out, err)
        return code, out.getvalue() + err.getvalue()

    code, report = run()
    assert code == cli.EXIT_UNEXPECTED, report
    monkeypatch.undo()
    code, report = run()
    assert code == cli.EXIT_OK, report
