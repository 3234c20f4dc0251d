"""Isolating pairs: the marks and the size of the difference are linted (``pairs.problems``), and
every pair of the project corpus flips on the reference: each twin passes on its own run, and
each twin's expectations fail on the other's run, so no pair passes for a reason other than its
clause."""

from __future__ import annotations

import io
from pathlib import Path

import project
import pytest

from conformance import cli
from conformance.corpus import clauses, lint, pairs
from conformance.corpus import read as corpus
from conformance.implementations import connect

ROOT = Path(__file__).resolve().parents[2]
PROJECT = project.load()
PAIRS = pairs.pairs(PROJECT)


@pytest.fixture(scope="module")
def reference():
    driver = connect("reference")
    yield driver
    driver.stop()


@pytest.mark.parametrize("pair", PAIRS, ids=[f"{p.clause}:{p.first.id}" for p in PAIRS])
def test_every_pair_flips_on_the_reference(pair, reference):
    assert pairs.flip(reference, pair, PROJECT.payloads) == []


def test_every_clause_a_scenario_can_observe_has_its_pair():
    code = cli.main(["lint", "--require-pairs"], io.StringIO(), err := io.StringIO())
    assert code == cli.EXIT_OK, err.getvalue()


def test_each_clause_has_one_pair_at_most_once_per_scenario():
    marked = [s for s in PROJECT.scenarios if "twin" in s.data]
    assert len(marked) == 2 * len(PAIRS)  # every mark belongs to a well-formed pair


# --- the linter, on a copy of the fixture corpus ---------------------------------------------

TWIN = """\
id: {id}
title: {title}
clauses: [{clauses}]
isolates: {isolates}
twin: {twin}
provenance: derived
agents: [claude]
team:
  learnings/redis-timeout.md: |
    ---
    title: Redis client times out under load
    ---
    redis
steps:
  - recall: redis
    as: r1
    env: {{CLAUDE_CODE_SESSION_ID: ses-alice}}
  - hook: claude/post-tool-use-read
    set: {{session_id: ses-alice, tool_input.file_path: "{path}"}}
expect:
  log_contains:
    - {{kind: evidence, session: ses-alice}}
"""


def _twins(root: Path, first: dict[str, str] | None = None, second: dict[str, str] | None = None) -> None:
    base = {"clauses": "FX-ADOPT-READ", "isolates": "FX-ADOPT-READ", "path": "${path:learnings/redis-timeout}"}
    a = {**base, "id": "fx-pair-read", "title": "A read of the doc", "twin": "fx-pair-other", **(first or {})}
    b = {**base, "id": "fx-pair-other", "title": "A read of another file", "twin": "fx-pair-read",
         "path": "${root:team}/notes.md", **(second or {})}
    for data in (a, b):
        (root / "scenarios" / "attribution" / f"{data['id']}.yaml").write_text(TWIN.format(**data))


def _problems(root: Path) -> list[str]:
    return lint.lint(corpus.load(root))


def test_a_well_formed_pair_is_clean_and_pairs_its_clause(corpus_copy):
    _twins(corpus_copy)
    assert _problems(corpus_copy) == []
    loaded = corpus.load(corpus_copy)
    (pair,) = pairs.pairs(loaded)
    assert (pair.clause, pair.first.id, pair.second.id) == ("FX-ADOPT-READ", "fx-pair-other", "fx-pair-read")
    assert "FX-ADOPT-READ" not in pairs.unpaired(loaded, clauses.load(loaded.clauses_path))


@pytest.mark.parametrize("first, second, expected", [
    ({"twin": "fx-nobody"}, {}, "twin 'fx-nobody' is not a case of the corpus"),
    ({}, {"twin": "fx-read-needs-hook"}, "its twin fx-pair-other does not point back"),
    ({"twin": "fx-pair-read"}, {}, "is its own twin"),
    ({}, {"isolates": "FX-RUN-RECORD", "clauses": "FX-ADOPT-READ, FX-RUN-RECORD"},
     "isolates 'FX-RUN-RECORD', not FX-ADOPT-READ"),
    ({"clauses": "FX-RUN-RECORD"}, {}, "isolates FX-ADOPT-READ but does not list it in clauses:"),
    ({"isolates": "FX-NOPE", "clauses": "FX-NOPE"}, {"isolates": "FX-NOPE", "clauses": "FX-NOPE"},
     "isolates 'FX-NOPE', which is not in the catalogue"),
    ({}, {"path": "${path:learnings/redis-timeout}"}, "has the same input"),
])
def test_each_fault_of_the_marks_is_reported(corpus_copy, first, second, expected):
    _twins(corpus_copy, first, second)
    problems = _problems(corpus_copy)
    assert any(expected in p for p in problems), problems


def test_a_mark_without_its_partner_is_a_schema_error(corpus_copy):
    path = corpus_copy / "scenarios" / "recall" / "fx-recall-prints-hit.yaml"
    path.write_text(path.read_text().replace("provenance:", "isolates: FX-RUN-RECORD\nprovenance:", 1))
    assert any("fx-recall-prints-hit" in p and "'twin' is a dependency of 'isolates'" in p
               for p in _problems(corpus_copy))


def test_twins_that_run_other_steps_or_differ_in_many_places_are_refused(corpus_copy):
    _twins(corpus_copy)
    other = corpus_copy / "scenarios" / "attribution" / "fx-pair-other.yaml"
    text = other.read_text()
    other.write_text(text.replace("  - hook: claude/post-tool-use-read", "  - pull: {}\n  - hook: claude/post-tool-use-read"))
    assert any("runs recall, pull, hook and its twin fx-pair-read runs recall, hook" in p for p in _problems(corpus_copy))
    other.write_text(text.replace("    redis\n", "    one\n    two\n    three\n"))
    assert any(f"differs in 4 places (at most {pairs.MAX_CHANGES})" in p for p in _problems(corpus_copy))


def test_differences_count_leaves_lines_and_renames():
    base = {"team": {"a.md": "one\ntwo\nthree\n"}, "steps": [{"recall": "x", "at": "+1s"}]}
    assert pairs.differences(base, base) == []
    assert pairs.differences(base, {**base, "steps": [{"recall": "x", "at": "+2s"}]}) == ["steps[0].at"]
    assert pairs.differences(base, {**base, "team": {"a.md": "one\n2\nthree\n"}}) == ["team.a.md line 2"]
    assert pairs.differences(base, {**base, "team": {"b.md": "one\ntwo\nthree\n"}}) == ["team.a.md is b.md in the other"]
    assert pairs.differences(base, {**base, "team": {"a.md": "one\ntwo\nthree\n", "c.md": "x"}}) == [
        "team.c.md only in one"]
    assert pairs.differences(base, {**base, "env": {"X": "1"}}) == ["env.X only in one"]
    steps = [{"recall": "x"}, {"hook": "a/b"}, {"pull": {}}]
    moved = [{"recall": "x"}, {"pull": {}}, {"hook": "a/b"}]
    assert pairs.differences({"steps": steps}, {"steps": moved}) in (
        ["steps[1] moved to steps[2]"], ["steps[2] moved to steps[1]"])


def test_lint_lists_clauses_without_a_pair_and_fails_on_them_only_when_asked(corpus_copy):
    args = ["--corpus", str(corpus_copy), "lint"]
    out = io.StringIO()
    assert cli.main(args, out, io.StringIO()) == cli.EXIT_OK
    assert "clause(s) without an isolating pair:\n  FX-RUN-RECORD\n" in out.getvalue()
    assert "  FX-UNTESTED\n" in out.getvalue()
    err = io.StringIO()
    assert cli.main([*args, "--require-pairs"], io.StringIO(), err) == cli.EXIT_CORPUS
    assert "FX-RUN-RECORD: no isolating pair (isolates:/twin:)" in err.getvalue()


def test_a_clause_only_unit_tests_can_observe_is_exempt(corpus_copy):
    catalogue = corpus_copy / "clauses.yaml"
    catalogue.write_text(catalogue.read_text().replace(
        'text: "No fixture scenario tests this clause."}',
        'text: "No fixture scenario tests this clause.", unit_tests: ["tests/test_clauses.py::test_x"]}'))
    loaded = corpus.load(corpus_copy)
    listed = clauses.load(loaded.clauses_path)
    assert pairs.exempt(listed, loaded.scenarios) == {"FX-UNTESTED"}
    assert "FX-UNTESTED" not in pairs.unpaired(loaded, listed)
    assert "FX-RUN-RECORD" in pairs.unpaired(loaded, listed)


def test_a_listed_clause_needs_a_reason_and_leaves_the_list_once_paired(corpus_copy):
    listing = corpus_copy / "conformance" / "clauses-without-pair.txt"
    listing.parent.mkdir()
    listing.write_text("# why these have no pair\nFX-RUN-RECORD its result never changes\nFX-NOPE gone\nFX-SHADOW\n")
    args = ["--corpus", str(corpus_copy), "lint", "--require-pairs"]
    err = io.StringIO()
    assert cli.main(args, io.StringIO(), err) == cli.EXIT_CORPUS
    text = err.getvalue()
    assert "FX-NOPE is not in the catalogue" in text
    assert "FX-SHADOW needs a reason" in text
    assert "FX-RUN-RECORD: no isolating pair" not in text  # listed, with a reason
    assert "FX-ADOPT-READ: no isolating pair" in text  # not listed
    listing.write_text("FX-ADOPT-READ a reason that no longer holds\n")
    _twins(corpus_copy)
    problems = _problems(corpus_copy)
    assert any("FX-ADOPT-READ has an isolating pair now" in p for p in problems), problems
