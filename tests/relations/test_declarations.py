"""The malformed-input matrix, row by row, with the texts review and contribute print."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from typing import Any

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from reference.relations import declarations, vocabulary
from reference.relations.paths import Target
from reference.team.tree import DOC, LEARNING, RULE, SKILL, WIKI

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


@pytest.mark.parametrize(("block", "word"), [(["docs/x.md"], "a list"), ("docs/x.md", "a string"), (3, "a number")])
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


# --- related: blocks in the vocabulary of #1552 ----------------------------------------------
# Random YAML values almost never spell a relation name or a tree path, so the property above
# never reaches the table. These blocks are built from real relation names and real tree paths
# in every spelling the parser accepts, and a model worked out from the spec's table (written
# again here, not imported) says what each block declares and how many findings it has.

ME = {RULE: "rules/payments.md", DOC: "docs/payments-overview.md", LEARNING: "learnings/ops/redis-timeout"}
# (tree path, kind, spellings that name it)
ASSETS = (
    ("rules/payments.md", RULE, ("rules/payments.md", "./rules/payments.md", "docs/../rules/payments.md")),
    ("rules/finance/refunds.md", RULE, ("rules/finance/refunds.md", " rules/finance/refunds.md ")),
    ("docs/payments-overview.md", DOC, ("docs/payments-overview.md", "./docs/payments-overview.md")),
    ("docs/payment-overview.md", DOC, ("docs/payment-overview.md",)),  # no such asset on the branch
    ("learnings/ops/redis-timeout", LEARNING, ("learnings/ops/redis-timeout", "learnings/ops/redis-timeout.md")),
    ("learnings/deploy-freeze", LEARNING, ("learnings/deploy-freeze.md", "learnings//deploy-freeze")),
    ("skills/release", SKILL, ("skills/release", "skills/release/", "skills/release/SKILL.md")),
    ("teamwiki/evidence/code/pay/modules/ledger-receipts.md", WIKI,
     ("teamwiki/evidence/code/pay/modules/ledger-receipts.md",)),
)
ON_BRANCH = {path for path, _, _ in ASSETS} - {"docs/payment-overview.md"}
BAD_PATHS = ("/docs/payments-overview.md", "../rules/payments.md", "docs/../../x.md", "notes/x.md",
             "rules/x.txt", "teamwiki/evidence/code/page.md", "")
NOT_RELATIONS = ("GOVERNS", "maps_to", "References", "RELATES")
JUNK = (None, 7, True, {"a": "b"}, dt.date(2026, 1, 1))

# The table of #1552 (source kind -> relation -> target kinds it may point to).
_ALL = {RULE, DOC, LEARNING, SKILL, WIKI}
TABLE = {source: {"MAPS_TO": {WIKI}, "REFERENCES": _ALL, "CONFLICTS_WITH": {RULE, DOC, LEARNING},
                  "SUPERSEDES": {RULE, DOC, LEARNING} if source == RULE else {DOC, LEARNING}}
         for source in (RULE, DOC, LEARNING)}

# What a value item stands for: ("asset", index into ASSETS, spelling), ("bad", path) or ("junk", index).
_asset = st.tuples(st.just("asset"), st.integers(0, len(ASSETS) - 1), st.integers(0, 2))
_path = st.one_of(_asset, _asset, _asset, st.tuples(st.just("bad"), st.sampled_from(BAD_PATHS)))
_junk = st.tuples(st.just("junk"), st.sampled_from(range(len(JUNK))))


def _raw(item: tuple[Any, ...]) -> Any:
    if item[0] == "asset":
        spellings = ASSETS[item[1]][2]
        return spellings[item[2] % len(spellings)]
    return item[1] if item[0] == "bad" else JUNK[item[1]]


# A value: one path, a list of paths, the same asset twice, a list with other values in it, or
# a value that is no path at all.
_value = st.one_of(
    st.lists(_path, min_size=1, max_size=1),
    st.lists(_path, min_size=1, max_size=1),
    st.lists(_path, min_size=1, max_size=3).map(lambda items: ["list", *items]),
    st.tuples(_asset, st.integers(0, 2)).map(lambda a: ["list", a[0], (*a[0][:2], a[1])]),
    st.lists(st.one_of(_path, _junk), min_size=2, max_size=3).map(lambda items: ["list", *items]),
    _junk.map(lambda i: ["value", i]),
)
_name = st.sampled_from(vocabulary.DECLARABLE * 4 + vocabulary.CODE_TO_CODE + NOT_RELATIONS)
_blocks = st.lists(st.tuples(_name, _value), max_size=5, unique_by=lambda kv: kv[0])


def _materialise(block: list[tuple[str, list[Any]]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, value in block:
        if value[0] == "list":
            out[name] = [_raw(i) for i in value[1:]]
        elif value[0] == "value":
            out[name] = JUNK[value[1][1]]
        else:
            out[name] = _raw(value[0])
    return out


def _model(kind: str, block: list[tuple[str, list[Any]]]) -> tuple[list[tuple[str, str]], int, set[str]]:
    """What the spec says the block declares, in file order, how many findings it has, and which
    branches of the matrix it reaches."""
    kept: list[tuple[str, str]] = []
    findings = 0
    reached: set[str] = set()
    seen: set[tuple[str, str]] = set()
    for name, value in block:
        if name in vocabulary.CODE_TO_CODE:
            findings += 1
            reached.add("code-to-code relation")
            continue
        if name not in TABLE[kind]:
            findings += 1
            reached.add("not a relation")
            continue
        reached.add("a real relation name")
        if value[0] == "value":
            findings += 1
            reached.add("value of the wrong type")
            continue
        items = value[1:] if value[0] == "list" else value
        if any(i[0] == "junk" for i in items):
            findings += 1
            reached.add("list mixing paths and other values")
        for item in items:
            if item[0] == "junk":
                continue
            if item[0] == "bad":
                findings += 1
                reached.add("bad path")
                continue
            path, target_kind, _ = ASSETS[item[1]]
            if (name, path) in seen:
                reached.add("repeated declaration")
                continue
            seen.add((name, path))
            if target_kind not in TABLE[kind][name]:
                findings += 1
                reached.add("pair outside the table")
            elif path == ME[kind]:
                findings += 1
                reached.add("the asset itself")
            elif path not in ON_BRANCH:
                findings += 1
                reached.add("target not on the branch")
            else:
                kept.append((name, path))
                reached.add("a declaration kept")
    return kept, findings, reached


# The least share of examples that must reach each branch, or the property tests too little.
LEAST_SHARE = {"a real relation name": 0.6, "a declaration kept": 0.2, "pair outside the table": 0.2,
               "code-to-code relation": 0.15, "not a relation": 0.2, "bad path": 0.25, "the asset itself": 0.03,
               "target not on the branch": 0.02, "repeated declaration": 0.1, "value of the wrong type": 0.1,
               "list mixing paths and other values": 0.08}


def test_declarations_in_the_domain_vocabulary_follow_the_table() -> None:
    reached: Counter[str] = Counter()

    @settings(max_examples=400, deadline=None, database=None)
    @given(_blocks, st.sampled_from([RULE, DOC, LEARNING]))
    def prop(block: list[tuple[str, list[Any]]], kind: str) -> None:
        want, findings, branches = _model(kind, block)
        for branch in sorted(branches):
            event(branch)
        reached.update(branches | {"examples"})
        result = declarations.parse(kind, ME[kind], {"related": _materialise(block)},
                                    lambda t: t.tree_path in ON_BRANCH, "names no team asset on this branch")
        assert pairs(result) == want
        assert len(result.findings) == findings, [f.review_text() for f in result.findings]

    prop()
    shares = {branch: reached[branch] / reached["examples"] for branch in LEAST_SHARE}
    short = {branch: round(share, 2) for branch, share in shares.items() if share < LEAST_SHARE[branch]}
    assert not short, f"branches reached in too small a share of examples: {short} ({dict(reached)})"
