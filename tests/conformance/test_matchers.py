"""Matchers: an expectation on a field's kind and form, judged inside the subset comparison."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance.running import matchers
from conformance.running.normalize import first_difference, matches

LINE = {"kind": "run", "docs": [{"key": "redis-timeout", "score": 3.722, "eligible": True}]}


def _doc(**want: Any) -> dict[str, Any]:
    return {"kind": "run", "docs": [{"key": "redis-timeout", **want}]}


def test_a_number_matcher_asks_for_the_field_and_its_kind():
    assert matches(_doc(score={"$type": "number"}), LINE)
    missing = {"kind": "run", "docs": [{"key": "redis-timeout", "eligible": True}]}
    assert first_difference(_doc(score={"$type": "number"}), missing) == ("docs[0].score", {"$type": "number"},
                                                                         "<missing>")
    as_text = {"kind": "run", "docs": [{"key": "redis-timeout", "score": "3.722"}]}
    assert first_difference(_doc(score={"$type": "number"}), as_text) == ("docs[0].score", {"$type": "number"},
                                                                         "3.722")


@pytest.mark.parametrize(("kind", "good", "bad"), [
    ("number", 2, True), ("number", 2.5, "2.5"), ("integer", 3, 3.5), ("integer", 0, False),
    ("string", "x", 1), ("boolean", False, 0), ("null", None, "null"), ("list", [], {}),
    ("mapping", {}, []),
])
def test_each_kind_and_its_look_alike(kind: str, good: Any, bad: Any):
    assert matchers.holds({"$type": kind}, good)
    assert not matchers.holds({"$type": kind}, bad)


def test_a_list_of_kinds_allows_any_one():
    either = {"$type": ["string", "null"]}
    assert matchers.holds(either, None) and matchers.holds(either, "ses-1")
    assert not matchers.holds(either, 1)


def test_form_matches_the_whole_json_spelling():
    three = {"$type": "number", "$form": r"-?[0-9]+(\.[0-9]{1,3})?"}
    assert matchers.holds(three, 3.722) and matchers.holds(three, 5) and matchers.holds(three, 7.2)
    assert not matchers.holds(three, 3.7221)
    assert not matchers.holds(three, "3.722")  # the form is right, the kind is not
    assert matchers.holds({"$form": "ses-[0-9]+"}, "ses-12")
    assert not matchers.holds({"$form": "ses-[0-9]+"}, "ses-12x")  # the whole text, not a part
    assert matchers.holds({"$form": "true"}, True)


def test_a_matcher_in_log_absent_and_stats_rows_works_the_same():
    assert matches([{"session": {"$type": "string"}, "runs": {"$type": "integer"}}], [{"session": "s", "runs": 2}])
    assert not matches([{"session": {"$type": "null"}}], [{"session": "s"}])


def test_a_mapping_with_ordinary_keys_is_still_a_subset():
    assert not matchers.is_matcher({})
    assert not matchers.is_matcher({"$type": "number", "score": 1})
    assert matches({"actor": {}}, {"actor": {"agent_id": "a"}})


def test_an_unusable_matcher_is_named_and_holds_for_nothing():
    assert matchers.problems({"$kind": "number"}) == ["$kind is not a matcher (known: $type, $form)"]
    assert matchers.problems({"$type": "float"})[0].startswith("$type 'float' is not a kind")
    assert matchers.problems({"$form": "("})[0].startswith("$form is not a regular expression")
    assert not matchers.holds({"$type": "float"}, 1.5)


def test_the_lint_finds_matchers_anywhere_in_expect():
    expect = {"log_contains": [{"docs": [{"score": {"$type": "nmber"}}]}], "stats": [{"runs": {"$type": "integer"}}]}
    found = matchers.found_in(expect)
    assert [where for where, _ in found] == ["expect.log_contains[0].docs[0].score", "expect.stats[0].runs"]


@given(st.one_of(st.integers(), st.floats(allow_nan=False, allow_infinity=False)))
def test_every_json_number_is_a_number_and_never_text(value: float):
    assert matchers.holds({"$type": "number"}, value)
    assert not matchers.holds({"$type": "number"}, str(value))
    assert not matchers.holds({"$type": "string"}, value)


def test_the_corpus_lint_names_an_unusable_matcher(corpus_copy):
    from conformance.corpus import lint
    from conformance.corpus import read as corpus

    path = corpus_copy / "scenarios" / "recall" / "fx-designed-to-fail.yaml"
    path.write_text(path.read_text() + "  log_contains:\n    - {kind: run, ts: {$type: count}}\n")
    problems = lint.lint(corpus.load(corpus_copy))
    assert any("fx-designed-to-fail" in p and "expect.log_contains[0].ts: $type 'count' is not a kind" in p
               for p in problems), problems
