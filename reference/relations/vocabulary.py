"""The relation vocabulary of the first slice: who may declare what, towards which kinds.

An edge reads "source RELATION target", the direction the code graph already uses. Only rules,
docs and learnings declare; skills and teamwiki pages are targets only (a skill's frontmatter has
no room for custom keys, and a page is generated and may belong to a withheld codebase). The
three code-to-code relations exist in the vocabulary but can never be declared on an asset.

=================  =====================  ======================  ======================
relation           rule may point to      doc may point to        learning may point to
=================  =====================  ======================  ======================
MAPS_TO            wiki                   wiki                    wiki
REFERENCES         any asset              any asset               any asset
SUPERSEDES         rule, doc, learning    doc, learning           doc, learning
CONFLICTS_WITH     rule, doc, learning    rule, doc, learning     rule, doc, learning
=================  =====================  ======================  ======================

A learning cannot supersede a rule: learnings are published without review, so one that
disagrees with a rule says CONFLICTS_WITH instead.
"""

from __future__ import annotations

from ..team.tree import DOC, LEARNING, RULE, SKILL, WIKI

MAPS_TO, REFERENCES, SUPERSEDES, CONFLICTS_WITH = "MAPS_TO", "REFERENCES", "SUPERSEDES", "CONFLICTS_WITH"
DECLARABLE = (MAPS_TO, REFERENCES, SUPERSEDES, CONFLICTS_WITH)
CODE_TO_CODE = ("DEPENDS_ON", "CONTAINS", "IMPLEMENTS")
DECLARERS = (RULE, DOC, LEARNING)
ANY_ASSET = frozenset((RULE, DOC, LEARNING, SKILL, WIKI))

_TABLE: dict[tuple[str, str], frozenset[str]] = {}
for _source in DECLARERS:
    _TABLE[(_source, MAPS_TO)] = frozenset((WIKI,))
    _TABLE[(_source, REFERENCES)] = ANY_ASSET
    _TABLE[(_source, CONFLICTS_WITH)] = frozenset((RULE, DOC, LEARNING))
    _TABLE[(_source, SUPERSEDES)] = frozenset((RULE, DOC, LEARNING) if _source == RULE else (DOC, LEARNING))

# What to suggest instead of a relation the table does not allow for that pair of kinds.
_INSTEAD = {SUPERSEDES: (CONFLICTS_WITH, REFERENCES), MAPS_TO: (REFERENCES,), CONFLICTS_WITH: (REFERENCES,)}

# How a message names a kind ("a learning cannot SUPERSEDES a rule").
NOUN = {RULE: "a rule", DOC: "a doc", LEARNING: "a learning", SKILL: "a skill", WIKI: "a teamwiki page"}

USE_DECLARABLE = "Use MAPS_TO, REFERENCES, SUPERSEDES or CONFLICTS_WITH"


def declares(kind: str) -> bool:
    """Whether assets of ``kind`` may declare relations at all."""
    return kind in DECLARERS


def allowed(source_kind: str, relation: str, target_kind: str) -> bool:
    return target_kind in _TABLE.get((source_kind, relation), frozenset())


def instead(source_kind: str, relation: str, target_kind: str) -> str | None:
    """The relation to suggest when ``relation`` is outside the table for this pair of kinds."""
    for other in _INSTEAD.get(relation, ()):
        if allowed(source_kind, other, target_kind):
            return other
    return None
