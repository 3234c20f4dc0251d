"""corpus-lint: the fixture corpus is clean, each kind of fault is found, and the project's own
corpus passes (this is the test that runs corpus-lint in the suite)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from conformance import cli
from conformance.corpus import lint
from conformance.corpus import read as corpus

ROOT = Path(__file__).resolve().parents[2]


def _problems(root: Path) -> list[str]:
    return lint.lint(corpus.load(root))


def test_fixture_corpus_is_clean(corpus_copy):
    assert _problems(corpus_copy) == []


def test_project_corpus_is_clean():
    code = cli.main(["lint"], io.StringIO(), err := io.StringIO())
    assert code == cli.EXIT_OK, err.getvalue()


def _edit(root: Path, name: str, old: str, new: str) -> None:
    path = root / "scenarios" / "recall" / f"{name}.yaml"
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))


@pytest.mark.parametrize("old, new, expected", [
    ("clauses: [FX-RUN-RECORD]", "clauses: [NO-SUCH-CLAUSE]", "clause 'NO-SUCH-CLAUSE' is not in the catalogue"),
    ("provenance: derived", "provenance: folklore", "provenance: 'folklore' is not one of"),
    ("  - recall: redis\n", "  - recall: redis\n    hook: claude/x\n", "steps.0"),
    ("expect:\n", "  - recall: again ${r2.run}\nexpect:\n", "refers to no earlier step named 'r2'"),
    ("expect:\n", "  - recall: again ${bogus:x}\nexpect:\n", "${bogus:x} is not a known substitution"),
    ("expect:\n", "  - recall: again\n    as: r1\nexpect:\n", "the name 'r1' is already used"),
    ("expect:\n", "  - recall: again\n    at: tomorrow\nexpect:\n", "steps.1"),
    ("redis-timeout: {recalled_count: 2}", "redis-timeout: {recalled_count: 2}\n  steps: {r7: {exit: 0}}",
     "no step is named 'r7'"),
    ("provenance: derived", "provenance: regression\nshrunk_from: no-such-case",
     "shrunk_from names 'no-such-case', a case the corpus does not have"),
    ("provenance: derived", "provenance: derived\nshrunk_from: fx-recall-prints-hit",
     "a case shrunk from another is provenance regression"),
    ("  - recall: redis\n", "  - recall: redis\n    unset: [cwd]\n", "steps.0"),  # unset: is for hook steps only
])
def test_each_fault_is_reported(corpus_copy, old, new, expected):
    _edit(corpus_copy, "fx-designed-to-fail", old, new)
    problems = _problems(corpus_copy)
    assert any(expected in p and "fx-designed-to-fail" in p for p in problems), problems


def test_missing_payload_duplicate_id_and_duplicate_meaning(corpus_copy):
    scenario = corpus_copy / "scenarios" / "attribution" / "fx-read-needs-hook.yaml"
    scenario.write_text(scenario.read_text().replace("claude/post-tool-use-read", "claude/nope"))
    source = (corpus_copy / "scenarios" / "recall" / "fx-designed-to-fail.yaml").read_text()
    (corpus_copy / "scenarios" / "recall" / "zz-same-id.yaml").write_text(source.replace("title: One", "title: Two"))
    (corpus_copy / "scenarios" / "recall" / "zz-same-meaning.yaml").write_text(
        source.replace("id: fx-designed-to-fail", "id: zz-other").replace("provenance: derived", "provenance: generated"))
    problems = "\n".join(_problems(corpus_copy))
    assert "payload 'claude/nope' does not exist" in problems
    assert "id 'fx-designed-to-fail' is also used by" in problems
    assert "zz-same-meaning.yaml: means the same as" in problems


def test_bad_payload_and_unreadable_files(corpus_copy):
    payload = corpus_copy / "payloads" / "claude" / "post-tool-use-read.json"
    data = json.loads(payload.read_text())
    data["agent"] = "codex"
    del data["provenance"]["verified"]
    payload.write_text(json.dumps(data))
    (corpus_copy / "payloads" / "claude" / "broken.json").write_text("{")
    (corpus_copy / "scenarios" / "recall" / "broken.yaml").write_text("id: [")
    problems = "\n".join(_problems(corpus_copy))
    assert "'verified' is a required property" in problems
    assert "agent 'codex' is not its folder's name" in problems
    assert "broken.json: cannot be read as JSON" in problems
    assert "broken.yaml: cannot be read as YAML" in problems


def test_a_key_written_twice_is_refused_not_silently_overwritten(corpus_copy):
    # YAML loaders keep the last of two equal keys, so a second log_contains (as a merge of two
    # edits can leave) would drop every line of the first without a word.
    (corpus_copy / "scenarios" / "recall" / "twice.yaml").write_text(
        "id: fx-twice\nexpect:\n  log_contains:\n    - {kind: run}\n  votes: {}\n  log_contains:\n    - {kind: claim}\n")
    problems = [p for p in _problems(corpus_copy) if "twice.yaml" in p]
    assert len(problems) == 1
    assert "cannot be read as YAML" in problems[0] and "'log_contains' appears twice" in problems[0]
    assert "\n" not in problems[0]


def test_lint_and_run_exit_3_on_an_invalid_corpus(corpus_copy):
    _edit(corpus_copy, "fx-designed-to-fail", "provenance: derived", "provenance: folklore")
    assert cli.main(["--corpus", str(corpus_copy), "lint"], io.StringIO(), io.StringIO()) == cli.EXIT_CORPUS
    err = io.StringIO()
    assert cli.main(["--corpus", str(corpus_copy), "run"], io.StringIO(), err) == cli.EXIT_CORPUS
    assert "fx-designed-to-fail" in err.getvalue()
    # a selection without the broken case still runs
    assert cli.main(["--corpus", str(corpus_copy), "run", "--only", "fx-recall-prints-hit"],
                    io.StringIO(), io.StringIO()) == cli.EXIT_OK


def test_scenario_schema_examples_from_the_format_document_parse():
    """The example in SCENARIOS.md is valid YAML and valid against the scenario schema."""
    text = (ROOT / "conformance" / "SCENARIOS.md").read_text()
    block = text.split("```yaml\n", 1)[1].split("```", 1)[0]
    data = corpus.load_yaml(block)
    assert lint.schema_errors(data, "scenario.schema.json") == []
