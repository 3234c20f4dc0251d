"""The one Markdown link parser and where a link lands in the team tree."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
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
])
def test_what_is_not_a_local_link(text: str) -> None:
    assert links.local_targets(text) == []


def test_text_after_a_closed_fence_is_read() -> None:
    assert links.local_targets("````\n```\n[a](x.md)\n````\n[b](y.md)\n") == ["y.md"]


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
    return links._CODE_SPAN.sub(" ", "\n".join(kept))


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
