"""A counterexample is written out as a scenario that reproduces the failure.

The reference is broken on purpose (a rule monkeypatched), a property is run until it fails, and
the file it names is checked: a valid scenario with provenance ``generated`` and the Hypothesis
example in a comment, in a folder of its own that ``teamai-conformance --corpus <folder> run``
runs, failing with the broken rule and passing once the rule is whole again.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase

from conformance import cli
from conformance.comparison import counterexample
from conformance.corpus import lint
from conformance.corpus import read as corpus
from reference.recall import relations_view
from reference.reducer import settle

from . import harness, test_relations_unchanged, test_session_invariants

# The first failing example is written as it was found: shrinking it would cost minutes here, and
# what is under test is the file, not how small Hypothesis can make the example.
FORCED = {"database": None, "max_examples": 300, "phases": [Phase.generate],
          "suppress_health_check": list(HealthCheck)}
SESSION_INVARIANTS = ("at most one upvote per (root session, doc) per 24 h of read time",
                      "no upvote without a read the spec counts")


def _written(message: str) -> Path:
    found = re.search(r"counterexample written to (\S+\.yaml); run it with: (.+)", message)
    assert found, message
    path = Path(found.group(1))
    assert found.group(2) == counterexample.rerun(path)
    return path


def _run(folder: Path, case_id: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(["--corpus", str(folder), "run", "--only", case_id], out, err)
    return code, out.getvalue() + err.getvalue()


def _check_file(path: Path, folder: Path, invariant: str) -> corpus.Scenario:
    assert path.is_relative_to(folder) and path.parent.parent.name == "scenarios"
    text = path.read_text(encoding="utf-8")
    head = text.split("\n", 8)
    assert head[0].startswith("# Found by tests/sessions/")
    assert "@reproduce_failure(" in text.split("\nid:", 1)[0]
    assert f"# Invariant broken: {invariant}." in text
    loaded = corpus.load(folder)
    assert loaded.problems == []
    (scenario,) = loaded.scenarios
    assert scenario.data["provenance"] == "generated" and scenario.id == path.stem
    assert lint.schema_errors(scenario.data, "scenario.schema.json") == []
    assert lint.blocking(scenario, loaded) == []
    assert {s["hook"] for s in scenario.steps if "hook" in s} <= set(loaded.payloads)
    return scenario


def test_a_session_counterexample_reproduces_through_the_harness(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """With no run ever marked as the recall subagent's, its own reads earn upvotes."""
    monkeypatch.setenv(counterexample.ENV, str(tmp_path))
    monkeypatch.setattr(settle, "RECALL_SUBAGENT", "no-such-subagent")
    prop = test_session_invariants._property("claude", harness.Reach(), **FORCED)
    with pytest.raises(AssertionError) as failed:
        prop()
    message = str(failed.value)
    invariant = message.split(":\n", 1)[0]
    assert invariant in SESSION_INVARIANTS, message
    path = _written(message)
    scenario = _check_file(path, tmp_path, invariant)
    assert scenario.area == "reducer" and ("no_votes" in scenario.expect or "votes" in scenario.expect)
    code, report = _run(tmp_path, scenario.id)
    assert code == cli.EXIT_UNEXPECTED, report
    monkeypatch.undo()
    code, report = _run(tmp_path, scenario.id)
    assert code == cli.EXIT_OK, report


def test_a_relations_counterexample_reproduces_through_the_harness(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Hits that show Related lines moved first: the order changes with relations."""
    monkeypatch.setenv(counterexample.ENV, str(tmp_path))
    real = relations_view.attach
    monkeypatch.setattr(relations_view, "attach",
                        lambda cfg, searched: sorted(real(cfg, searched), key=lambda hit: not hit.related))
    prop = test_relations_unchanged._property("codex", harness.Reach(), **FORCED)
    with pytest.raises(AssertionError) as failed:
        prop()
    path = _written(str(failed.value))
    scenario = _check_file(path, tmp_path, "relations never change hits, their order or scores")
    assert scenario.area == "recall" and scenario.clauses == ["OUT-RESULTS-UNCHANGED"]
    assert scenario.expect["steps"] and all("output_matches" in v for v in scenario.expect["steps"].values())
    code, report = _run(tmp_path, scenario.id)
    assert code == cli.EXIT_UNEXPECTED and "stdout does not match it" in report, report
    monkeypatch.undo()
    code, report = _run(tmp_path, scenario.id)
    assert code == cli.EXIT_OK, report


def test_the_writer_refuses_what_nobody_could_run(tmp_path: Path) -> None:
    payloads = harness.payloads()
    good = {"id": "gen-x", "title": "t", "clauses": ["REDUCE-JOIN"], "provenance": "derived", "agents": [],
            "team": {}, "steps": [{"hook": "claude/stop", "set": {"session_id": "s"}}]}
    with pytest.raises(ValueError, match="is not in the corpus"):
        counterexample.write({**good, "steps": [{"hook": "claude/nope"}]}, "reducer", payloads, where=tmp_path)
    with pytest.raises(ValueError, match="not a valid scenario"):
        counterexample.write({**good, "clauses": []}, "reducer", payloads, where=tmp_path)
    (tmp_path / "conformance").mkdir()
    (tmp_path / "conformance" / "clauses.yaml").write_text("clauses: []\n")
    with pytest.raises(ValueError, match="a folder of its own"):
        counterexample.write(good, "reducer", payloads, where=tmp_path)
    assert not (tmp_path / "scenarios").exists()


def test_the_writer_keeps_text_as_blocks_and_the_id_stable(tmp_path: Path) -> None:
    data = {"title": "t", "clauses": ["REDUCE-JOIN"], "provenance": "derived", "agents": ["claude"],
            "start": "2026-11-30T10:00:00Z", "team": {"docs/a.md": "---\ntitle: A\n---\nBody.\n"},
            "steps": [{"hook": "claude/stop", "set": {"session_id": "s"}}]}
    path = counterexample.write(data, "reducer", harness.payloads(), ["line one", "line two\nand three"],
                                where=tmp_path)
    text = path.read_text(encoding="utf-8")
    assert text.startswith("# line one\n# line two\n# and three\nid: gen-")
    assert "docs/a.md: |\n" in text and "start: '2026-11-30T10:00:00Z'" in text
    assert path.stem == counterexample.ident(data) == counterexample.ident({**data, "title": "other"})
    assert corpus.load_yaml(text)["provenance"] == "generated"
    assert (tmp_path / "payloads" / "claude" / "stop.json").is_file()
    assert counterexample.folder({counterexample.ENV: str(tmp_path)}) == tmp_path
    assert counterexample.folder({}) == counterexample.DEFAULT_FOLDER
