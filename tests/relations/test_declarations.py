"""The malformed-input matrix, row by row, with the texts review and contribute print."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference.relations import declarations
from reference.relations.paths import Target
from reference.tree import DOC, LEARNING, RULE

USE = "Use MAPS_TO, REFERENCES, SUPERSEDES or CONFLICTS_WITH"
EXISTING = {"docs/payments-overview.md", "rules/payments.md", "skills/release",
            "teamwiki/evidence/code/pay/modules/ledger-receipts.md"}


def exists(target: Target) -> bool:
    return target.tree_path in EXISTING


def parse(related: Any, kind: str = RULE, me: str = "rules/payments.md",
          check: bool = True, missing: str = "names no team asset on this branch") -> declarations.Result:
    return declarations.parse(kind, me, {"related": related}, exists if check else None, missing)


def pairs(result: declarations.Result) -> list[tuple[str, str]]:
    return [(d.relation, d.target) for d in result.declarations]


def review(result: declarations.Result) -> list[tuple[str, str]]:
    return [(f.severity, f.review_text()) for f in result.findings]


def test_spec_review_example_in_order() -> None:
    result = parse({"GOVERNS": "teamwiki/evidence/code/pay/modules/ledger-receipts.md",
                    "IMPLEMENTS": "docs/payments-overview.md", "REFERENCES": "docs/payment-overview.md"})
    assert pairs(result) == []
    assert review(result) == [
        ("fail", f'"GOVERNS" is not a relation. {USE}.'),
        ("fail", f"IMPLEMENTS relates code to code and cannot be declared on a rule. {USE}."),
        ("warn", "REFERENCES docs/payment-overview.md names no team asset on this branch."),
    ]


def test_spec_contribute_example() -> None:
    result = parse({"SUPERSEDES": "rules/payments.md", "REFERENCES": "docs/payment-overview.md"},
                   kind=LEARNING, me="learnings/x", missing="names no team asset")
    assert [f.contribute_text() for f in result.findings] == [
        "a learning cannot SUPERSEDES a rule (rules/payments.md). Use CONFLICTS_WITH; this relation is ignored.",
        "REFERENCES docs/payment-overview.md names no team asset; this relation is ignored.",
    ]


@pytest.mark.parametrize(("block", "word"), [(["docs/x.md"], "a list"), ("docs/x.md", "a str"), (3, "a number")])
def test_related_not_a_mapping_ignores_all(block: Any, word: str) -> None:
    result = parse(block)
    assert pairs(result) == []
    assert review(result) == [("fail", f"related: is {word}, not a mapping of relation to path or paths.")]
    assert result.findings[0].contribute_text().endswith("; all of it is ignored.")


def test_empty_related_is_nothing() -> None:
    assert parse(None) == declarations.Result([], [])


@pytest.mark.parametrize(("value", "word"), [({"a": "b"}, "a mapping"), (7, "a number"), (True, "true/false"),
                                             (None, "empty"), (dt.date(2026, 1, 1), "a date")])
def test_value_of_the_wrong_type_ignores_that_key(value: Any, word: str) -> None:
    result = parse({"MAPS_TO": value, "REFERENCES": "docs/payments-overview.md"})
    assert pairs(result) == [("REFERENCES", "docs/payments-overview.md")]
    assert review(result) == [("fail", f"MAPS_TO is {word}, not a path or a list of paths.")]
    assert result.findings[0].contribute_text().endswith("; this key is ignored.")


def test_mixed_list_keeps_the_strings() -> None:
    result = parse({"REFERENCES": ["docs/payments-overview.md", 3, {"a": 1}, "skills/release"]})
    assert pairs(result) == [("REFERENCES", "docs/payments-overview.md"), ("REFERENCES", "skills/release")]
    assert review(result) == [("fail", "REFERENCES lists 2 values that are not paths (a number, a mapping).")]


@pytest.mark.parametrize(("path", "why"), [
    ("/docs/x.md", "is an absolute path"),
    ("docs/../../x.md", "leaves the team tree"),
    ("../rules/payments.md", "leaves the team tree"),
    ("notes/x.md", "is not a path to a team asset"),
    ("rules/x.txt", "is not a path to a team asset"),
    ("teamwiki/evidence/code/page.md", "is not a path to a team asset"),
    ("", "is not a path to a team asset"),
])
def test_path_shape_is_a_fail(path: str, why: str) -> None:
    result = parse({"REFERENCES": path})
    assert pairs(result) == []
    assert [f.severity for f in result.findings] == ["fail"]
    assert result.findings[0].body.startswith(f"REFERENCES {path or chr(34) * 2} {why}. Use the asset's path")


def test_dotdot_that_stays_inside_is_normalised() -> None:
    assert pairs(parse({"REFERENCES": "docs/../skills/release/"})) == [("REFERENCES", "skills/release")]


def test_spellings_of_the_same_asset() -> None:
    result = parse({"REFERENCES": ["skills/release/SKILL.md", "learnings/ops/x.md", "./docs/payments-overview.md"]},
                   check=False)
    assert pairs(result) == [("REFERENCES", "skills/release"), ("REFERENCES", "learnings/ops/x"),
                             ("REFERENCES", "docs/payments-overview.md")]


def test_missing_target_and_self_are_warnings() -> None:
    result = parse({"REFERENCES": ["docs/nope.md", "rules/payments.md"]})
    assert pairs(result) == []
    assert review(result) == [("warn", "REFERENCES docs/nope.md names no team asset on this branch."),
                              ("warn", "REFERENCES rules/payments.md is this asset itself.")]


def test_self_is_dropped_even_without_an_existence_check() -> None:
    assert pairs(parse({"REFERENCES": "rules/payments.md"}, check=False)) == []


def test_duplicates_once_and_two_relations_both() -> None:
    result = parse({"SUPERSEDES": ["docs/payments-overview.md", "docs/payments-overview.md"],
                    "CONFLICTS_WITH": "docs/payments-overview.md"}, kind=DOC, me="docs/other.md")
    assert pairs(result) == [("SUPERSEDES", "docs/payments-overview.md"),
                             ("CONFLICTS_WITH", "docs/payments-overview.md")]
    assert result.findings == []


def test_file_order_is_kept() -> None:
    result = parse({"REFERENCES": ["skills/release", "docs/payments-overview.md"],
                    "MAPS_TO": "teamwiki/evidence/code/pay/modules/ledger-receipts.md"})
    assert [t for _, t in pairs(result)] == ["skills/release", "docs/payments-overview.md",
                                             "teamwiki/evidence/code/pay/modules/ledger-receipts.md"]


_values = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=30),
                       lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner,
                                                                                   max_size=4), max_leaves=12)


@settings(max_examples=150, deadline=None)
@given(_values, st.sampled_from([RULE, DOC, LEARNING]))
def test_anything_parses_and_every_declaration_is_in_the_table(related: Any, kind: str) -> None:
    from reference.relations import vocabulary

    me = {RULE: "rules/me.md", DOC: "docs/me.md", LEARNING: "learnings/me"}[kind]
    result = declarations.parse(kind, me, {"related": related})
    for d in result.declarations:
        assert vocabulary.allowed(kind, d.relation, d.target_kind) and d.target != me
    assert len(set(pairs(result))) == len(result.declarations)
    for f in result.findings:
        assert f.severity in ("fail", "warn") and "\n" not in f.review_text()


def test_unreadable_frontmatter_is_reported_only_when_it_holds_related() -> None:
    from reference.relations import check

    broken = "---\ntitle: [x\nrelated:\n  REFERENCES: docs/a.md\n---\nbody\n"
    found = check.findings(RULE, "rules/r.md", broken, exists, "names no team asset")
    assert [f.severity for f in found] == ["warn"] and "so related: is not read" in found[0].review_text()
    assert check.findings(RULE, "rules/r.md", "---\ntitle: [x\n---\nrelated: in the body\n", exists, "x") == []
    assert check.findings(RULE, "rules/r.md", "no frontmatter\n", exists, "x") == []


def test_learning_naming_itself_warns_in_contribute_words() -> None:
    result = parse({"REFERENCES": ["learnings/me.md"]}, kind=LEARNING, me="learnings/me", missing="names no team asset")
    assert pairs(result) == []
    assert [f.contribute_text() for f in result.findings] == [
        "REFERENCES learnings/me is this asset itself; this relation is ignored."]
