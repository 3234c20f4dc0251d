"""Every cell of the vocabulary table, both ways: what may be declared and what may not."""

from __future__ import annotations

import itertools

import pytest

from reference.relations import declarations, vocabulary
from reference.team.tree import DOC, LEARNING, RULE, SKILL, WIKI

TARGET_OF = {RULE: "rules/other.md", DOC: "docs/other.md", LEARNING: "learnings/other", SKILL: "skills/other",
             WIKI: "teamwiki/evidence/code/pay/other.md"}
SOURCE = {RULE: "rules/me.md", DOC: "docs/me.md", LEARNING: "learnings/me"}

# The table as the specification states it, written out independently of the module under test.
EXPECTED = {
    (RULE, "MAPS_TO"): {WIKI}, (DOC, "MAPS_TO"): {WIKI}, (LEARNING, "MAPS_TO"): {WIKI},
    (RULE, "REFERENCES"): {RULE, DOC, LEARNING, SKILL, WIKI},
    (DOC, "REFERENCES"): {RULE, DOC, LEARNING, SKILL, WIKI},
    (LEARNING, "REFERENCES"): {RULE, DOC, LEARNING, SKILL, WIKI},
    (RULE, "SUPERSEDES"): {RULE, DOC, LEARNING}, (DOC, "SUPERSEDES"): {DOC, LEARNING},
    (LEARNING, "SUPERSEDES"): {DOC, LEARNING},
    (RULE, "CONFLICTS_WITH"): {RULE, DOC, LEARNING}, (DOC, "CONFLICTS_WITH"): {RULE, DOC, LEARNING},
    (LEARNING, "CONFLICTS_WITH"): {RULE, DOC, LEARNING},
}
CELLS = list(itertools.product((RULE, DOC, LEARNING), vocabulary.DECLARABLE, (RULE, DOC, LEARNING, SKILL, WIKI)))


@pytest.mark.parametrize(("source", "relation", "target"), CELLS)
def test_every_cell_of_the_table(source: str, relation: str, target: str) -> None:
    meta = {"related": {relation: TARGET_OF[target]}}
    result = declarations.parse(source, SOURCE[source], meta)
    if target in EXPECTED[(source, relation)]:
        assert [(d.relation, d.target) for d in result.declarations] == [(relation, TARGET_OF[target])]
        assert result.findings == []
    else:
        assert result.declarations == []
        assert [f.severity for f in result.findings] == ["fail"]
        assert result.findings[0].body.startswith(
            f"{vocabulary.NOUN[source]} cannot {relation} {vocabulary.NOUN[target]} ({TARGET_OF[target]}). Use ")


@pytest.mark.parametrize("relation", ["DEPENDS_ON", "CONTAINS", "IMPLEMENTS"])
@pytest.mark.parametrize("source", [RULE, DOC, LEARNING])
def test_code_to_code_is_never_declarable(source: str, relation: str) -> None:
    result = declarations.parse(source, SOURCE[source], {"related": {relation: "docs/x.md"}})
    assert result.declarations == []
    assert result.findings[0].review_text() == (
        f"{relation} relates code to code and cannot be declared on {vocabulary.NOUN[source]}. "
        "Use MAPS_TO, REFERENCES, SUPERSEDES or CONFLICTS_WITH.")


@pytest.mark.parametrize("source", [SKILL, WIKI])
def test_skills_and_pages_never_declare(source: str) -> None:
    result = declarations.parse(source, "skills/s" if source == SKILL else "teamwiki/evidence/code/a/b.md",
                                {"related": {"REFERENCES": "docs/x.md", "GOVERNS": "x"}})
    assert result.declarations == [] and result.findings == []


def test_learning_superseding_a_rule_is_told_to_use_conflicts_with() -> None:
    result = declarations.parse(LEARNING, "learnings/me", {"related": {"SUPERSEDES": "rules/payments.md"}})
    assert result.findings[0].contribute_text() == (
        "a learning cannot SUPERSEDES a rule (rules/payments.md). Use CONFLICTS_WITH; this relation is ignored.")


def test_suggestion_is_always_allowed_for_the_pair() -> None:
    for source, relation, target in CELLS:
        other = vocabulary.instead(source, relation, target)
        if other is not None:
            assert vocabulary.allowed(source, other, target)
