"""The one Markdown link parser and where a link lands in the team tree."""

from __future__ import annotations

import posixpath
import re
from collections import Counter

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from reference.relations import extract, links


def test_inline_and_reference_links_in_file_order() -> None:
    text = ("See [the overview](../docs/a.md) and [rel][r].\n\n"
            "[r]: ../rules/b.md \"title\"\n"
            "Also [x](<../docs/with space.md> 'T') and [y](../docs/c.md#part?x=1).\n")
    assert links.local_targets(text) == ["../docs/a.md", "../rules/b.md", "../docs/with space.md", "../docs/c.md"]


@pytest.mark.parametrize("text", [
    "`[a](../docs/a.md)`",
    "``code [a](../docs/a.md) ``",
    "```\n[a](../docs/a.md)\n```",
    "~~~md\n[r]: ../docs/a.md\n~~~",
    "[a](https://example.com/docs/a.md)",
    "[a](mailto:someone@example.com)",
    "[a](/docs/a.md)",
    "[a](#only-an-anchor)",
    "![diagram](../docs/a.md)",
    "\\[a](../docs/a.md)",
    "`x` [r]: ../docs/a.md",  # a line that opens with a code span is a paragraph, not a definition
    "  ``x``[r]: ../docs/a.md\n",
])
def test_what_is_not_a_local_link(text: str) -> None:
    assert links.local_targets(text) == []


def test_a_fence_closed_on_the_last_line_hides_nothing_after_it_and_leaves_no_backtick() -> None:
    """The closing line without a newline ends the text; a stray backtick before the fence then
    pairs with nothing, so the link between them stays prose."""
    assert links.local_targets("Press the ` key. See [r](../docs/r.md).\n```\ncode\n```") == ["../docs/r.md"]


def test_a_code_span_keeps_the_links_around_it() -> None:
    assert links.local_targets("`x`[a](a.md) and !`y`[b](b.md)\n`z`\n[r]: r.md\n") == ["a.md", "b.md", "r.md"]


def test_text_after_a_closed_fence_is_read() -> None:
    assert links.local_targets("````\n```\n[a](x.md)\n````\n[b](y.md)\n") == ["y.md"]


# A code span as CommonMark puts it: a run of backticks, the fewest characters, a run as long.
CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`).*?(?<!`)\1(?!`)", re.DOTALL)


@settings(max_examples=1000, deadline=None)
@given(st.lists(st.sampled_from(["`", "``", "```", "a", " ", "\n", "[a](b.md)", "]", "_"]), max_size=24))
def test_code_spans_are_blanked_as_the_pattern_blanks_them(parts: list[str]) -> None:
    text = "".join(parts)
    assert links._CODE_SPAN.sub(links._SPAN_BLANK, text) == CODE_SPAN.sub(links._SPAN_BLANK, text)


def _prose_line_by_line(text: str) -> str:
    """The fence rule as written: each line in turn opens, stays inside, or closes a fence."""
    kept, fence = [], None
    for line in text.split("\n"):
        match = re.match(r" {0,3}(`{3,}|~{3,})", line)
        if fence is None and match:
            fence = match.group(1)
        elif fence is None:
            kept.append(line)
            continue
        elif match and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence) \
                and not line.strip().lstrip(fence[0]):
            fence = None
        kept.append("")
    return CODE_SPAN.sub(links._SPAN_BLANK, "\n".join(kept))


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(["```", "~~~", "````", "  ```", "    ```", "``` x", "~~~~", "[a](b.md)", "`c`",
                                 "text", " ", "\n", "\n", "```  ", "~~~ ~", "\t```"]), max_size=14))
def test_fences_found_in_one_scan_blank_what_the_line_rule_blanks(parts: list[str]) -> None:
    text = "".join(parts)
    assert links._prose(text) == _prose_line_by_line(text)


def test_percent_encoding_and_query_are_handled() -> None:
    assert links.local_targets("[a](../docs/my%20doc.md?raw=1)") == ["../docs/my doc.md"]


@pytest.mark.parametrize(("dest", "source", "expected"), [
    ("../docs/x.md", "learnings/id.md", "docs/x.md"),
    ("../../docs/x.md", "learnings/ops/id.md", "docs/x.md"),
    ("../docs/x.md", "learnings/ops/id.md", "learnings/docs/x"),  # a learning in the docs namespace
    ("other.md", "rules/a.md", "rules/other.md"),
    ("../skills/release/SKILL.md", "docs/x.md", "skills/release"),
    ("../skills/release/", "docs/x.md", "skills/release"),
    ("../learnings/ops/id.md", "rules/a.md", "learnings/ops/id"),
    ("../teamwiki/evidence/code/pay/m.md", "docs/x.md", "teamwiki/evidence/code/pay/m.md"),
    ("../../outside.md", "docs/x.md", None),
    ("../README.md", "docs/x.md", None),
    ("picture.png", "docs/x.md", None),
])
def test_resolved_against_the_place_in_the_tree(dest: str, source: str, expected: str | None) -> None:
    found = links.resolve(dest, source)
    assert (found.tree_path if found else None) == expected


def test_outgoing_stores_declared_then_links_without_self_or_repeats() -> None:
    meta = {"related": {"REFERENCES": "skills/release", "GOVERNS": "docs/a.md"}}
    body = "[me](payments.md) [o](../docs/a.md) [o again](../docs/a.md#x) [ext](https://x.y/docs/b.md)"
    assert extract.outgoing("rule", "rules/payments.md", meta, body) == {
        "declared": [["REFERENCES", "skills/release"]], "links": ["docs/a.md"]}


def test_learning_links_start_from_its_place_in_the_tree() -> None:
    body = "[o](../docs/payments-overview.md)"
    assert extract.outgoing("learning", "learnings/x", {}, body)["links"] == ["docs/payments-overview.md"]


@pytest.mark.parametrize("kind", ["skill", "wiki"])
def test_skills_and_pages_store_nothing(kind: str) -> None:
    assert extract.outgoing(kind, "skills/s", {"related": {"REFERENCES": "docs/a.md"}},
                            "[o](../../docs/a.md)") == {"declared": [], "links": []}


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("[]()<>`~#?:/.\\! \nabcdmr\"'*-_")), max_size=120))
def test_parser_never_fails_and_keeps_only_local_targets(text: str) -> None:
    for dest in links.local_targets(text):
        assert dest and not dest.startswith("/") and "#" not in dest and "?" not in dest


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("[]()ab./ ")), max_size=40))
def test_nothing_inside_a_fence_is_a_link(inner: str) -> None:
    assert links.local_targets("```\n" + inner.replace("`", "") + "\n```\n") == []


# --- Markdown in the domain's own terms -----------------------------------------------------
# Random characters almost never make a local link, so the two properties above say little about
# the links a team writes. Here a file at a real place in the tree gets lines of the links a team
# writes (inline, with a title, in angle brackets, reference definitions, with an anchor or a
# query, percent-encoded) to real assets, to files that are no asset and out of the tree, next to
# what is never a local link (images, escaped brackets, code spans, fenced blocks, the web, mail,
# absolute paths, a bare anchor). The generator knows which lines are local links and where each
# lands, and the parser must agree, in file order.

SOURCES = ("rules/payments.md", "rules/finance/refunds.md", "docs/payments-overview.md",
           "learnings/ops/redis-timeout.md", "learnings/deploy-freeze.md")
# tree path of an asset -> the file a link may point at
TARGETS = {"rules/payments.md": "rules/payments.md", "docs/payments-overview.md": "docs/payments-overview.md",
           "docs/my notes.md": "docs/my notes.md", "learnings/ops/redis-timeout": "learnings/ops/redis-timeout.md",
           "skills/release": "skills/release/SKILL.md",
           "teamwiki/evidence/code/pay/modules/ledger-receipts.md":
               "teamwiki/evidence/code/pay/modules/ledger-receipts.md"}
NOT_LOCAL = ("![diagram]({d})", "\\[escaped]({d})", "`[in code]({d})`", "```\n[fenced]({d})\n```",
             "~~~md\n[fenced]: {d}\n~~~", "[web](https://example.com/{d})", "[mail](mailto:team@example.com)",
             "[absolute](/{d})", "[anchor](#usage)")


@st.composite
def _markdown(draw: st.DrawFn) -> tuple[str, str, list[tuple[str, str | None]]]:
    """A source file, its text, and each local link's destination with the asset it lands on."""
    source = draw(st.sampled_from(SOURCES))
    base = posixpath.dirname(source)
    lines: list[str] = []
    want: list[tuple[str, str | None]] = []
    for n in range(draw(st.integers(1, 6))):
        what = draw(st.sampled_from(["asset"] * 4 + ["no asset", "outside", "not local", "not local"]))
        if what == "asset":
            path = draw(st.sampled_from(sorted(TARGETS)))
            dest = posixpath.relpath(TARGETS[path], base)
            if path == "skills/release" and draw(st.booleans()):
                dest = posixpath.dirname(dest) + "/"
            landed: str | None = path
        elif what == "no asset":
            dest, landed = posixpath.relpath(draw(st.sampled_from(["README.md", "rules/x.txt", "notes/a.md"])),
                                             base), None
        elif what == "outside":
            dest, landed = "../" * (base.count("/") + 2) + "outside.md", None
        else:
            dest = posixpath.relpath(draw(st.sampled_from(sorted(TARGETS.values()))), base)
            lines.append(draw(st.sampled_from(NOT_LOCAL)).format(d=dest.replace(" ", "%20")))
            continue
        written = dest.replace(" ", "%20") + draw(st.sampled_from(["", "", "#usage", "?plain=1"]))
        style = draw(st.sampled_from(["inline", "title", "angle", "definition"]))
        if style == "definition":
            lines.append(f"[ref{n}]: {written}")
        elif style == "angle":
            lines.append(f"See [this](<{written}>) for more.")
        elif style == "title":
            lines.append(f'See [this]({written} "the {what}") for more.')
        else:
            lines.append(f"See [this]({written}) for more.")
        want.append((dest, landed))
    return source, "\n".join(lines) + "\n", want


# The least share of examples that must reach each case, or the property tests too little.
LEAST_SHARE = {"a local link": 0.7, "a link to an asset": 0.6, "two or more local links": 0.4,
               "a link that lands on no asset": 0.2, "a link that is never local": 0.2,
               "a link to a skill's folder": 0.02, "a percent-encoded link": 0.1}


def test_links_a_team_writes_are_found_in_order_and_land_where_they_point() -> None:
    reached: Counter[str] = Counter()

    @settings(max_examples=400, deadline=None, database=None)
    @given(_markdown())
    def prop(case: tuple[str, str, list[tuple[str, str | None]]]) -> None:
        source, text, want = case
        cases = {"examples"}
        if want:
            cases.add("a local link")
        if len(want) > 1:
            cases.add("two or more local links")
        if any(landed for _, landed in want):
            cases.add("a link to an asset")
        if any(landed is None for _, landed in want):
            cases.add("a link that lands on no asset")
        if len(want) < len(text.splitlines()):
            cases.add("a link that is never local")
        if any(dest.endswith("/") for dest, _ in want):
            cases.add("a link to a skill's folder")
        if "%20" in text:
            cases.add("a percent-encoded link")
        for case_name in sorted(cases - {"examples"}):
            event(case_name)
        reached.update(cases)
        found = links.local_targets(text)
        assert found == [dest for dest, _ in want]
        for dest, landed in want:
            target = links.resolve(dest, source)
            assert (target.tree_path if target else None) == landed, dest

    prop()
    shares = {case: reached[case] / reached["examples"] for case in LEAST_SHARE}
    short = {case: round(share, 2) for case, share in shares.items() if share < LEAST_SHARE[case]}
    assert not short, f"cases reached in too small a share of examples: {short} ({dict(reached)})"
