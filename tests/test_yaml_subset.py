"""The frontmatter subset read without PyYAML gives exactly what PyYAML gives, or steps aside."""

from __future__ import annotations

import datetime
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference.team import frontmatter, yaml_subset

ROOT = Path(__file__).resolve().parent.parent
REAL_TEAM = ROOT.parent / "shared" / "corpora" / "real-team-a"


def _same(a: Any, b: Any) -> bool:
    """Equal, and of the same types all the way down (True == 1 and a date is not its text)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def _pyyaml(block: str) -> tuple[bool, Any]:
    try:
        return True, frontmatter._load_yaml(block)
    except Exception as exc:  # what frontmatter.split turns into a problem line
        return False, exc


def _check(block: str) -> bool:
    """Whether the subset read this block (it must then agree with PyYAML)."""
    fast = yaml_subset.load(block)
    ok, slow = _pyyaml(block)
    if fast is None:
        return False
    assert ok, f"PyYAML refuses {block!r} ({slow!r}) but the subset read {fast!r}"
    assert _same(fast, slow if slow is not None else {}), f"{block!r}: subset {fast!r}, PyYAML {slow!r}"
    return True


SCALARS = st.one_of(
    st.sampled_from([
        "yes", "No", "ON", "off", "true", "FALSE", "null", "Null", "~", "y", "n", "0", "-1", "+3", "007",
        "1_000", "0x1F", "1.5", ".5", ".inf", "12:30", "2026-01-02", "2026-13-01", "2026-02-30", "2026-1-2",
        "2026-01-02 10:00:00", "<<", "=", "a: b", "a:b", "ends:", "C# tips", "x #y", "-x", "- x", "?x", "[x]",
        "{x}", "&a x", "*a", "!x", "|", ">", "%x", "@x", "`x`", "中文 标题", "café", "a  b", "a\u00a0b", "a\u2028b",
        "a\\b", "tab\there", "", " ", "'q'", '"q"', "it's", 'say "hi"', "a, b", "a [b]", "#x",
    ]),
    st.text(alphabet=st.sampled_from(list("abcXYZ019 -_:#,[]{}'\"&*!|>%@`?~<=.\\/中é")), min_size=1, max_size=12),
)
# Mostly what the subset reads, so the comparison is made often.
FRIENDLY = st.one_of(
    st.text(alphabet=st.sampled_from(list("abcXYZ019 -_.,/:#'\"()中é")), min_size=1, max_size=12),
    st.sampled_from(["yes", "off", "null", "~", "0", "+3", "2026-01-02", "2026-02-30", "a:b", "C# x"]),
)
KEYS = st.sampled_from(["title", "tags", "date", "author", "a-b", "_x", "Key2", "related", "REFERENCES",
                        "yes", "on", "null", "Null", "1", "ké", "a b", "x.y", "<<"])


@st.composite
def values(draw: st.DrawFn, scalars: st.SearchStrategy[str] = SCALARS) -> list[str]:
    """The text after ``key:`` on its line, and the lines that follow it."""
    form = draw(st.sampled_from(["plain", "double", "single", "flow", "empty", "seq", "seq0", "map",
                                 "block", "anchor", "comment"]))
    SCALARS = scalars  # noqa: N806 - the same name below, narrowed or not
    s = draw(SCALARS)
    if form == "plain":
        return [f" {s}"]
    if form == "double":
        return [f' "{s}"']
    if form == "single":
        return [f" '{s}'"]
    if form == "flow":
        items = draw(st.lists(st.tuples(SCALARS, st.sampled_from(["", '"', "'"])), max_size=4))
        joined = draw(st.sampled_from([", ", ",", " , "])).join(f"{q}{i}{q}" for i, q in items)
        return [" [" + joined + draw(st.sampled_from(["", " ", ",", ", "])) + "]" + draw(st.sampled_from(["", " ", " x"]))]
    if form == "empty":
        return [draw(st.sampled_from(["", " ", "  # note"]))]
    if form in ("seq", "seq0"):
        pad = "" if form == "seq0" else draw(st.sampled_from(["  ", "    ", " "]))
        items = draw(st.lists(SCALARS, min_size=1, max_size=3))
        lines = [""] + [f"{pad}- {i}" for i in items]
        if draw(st.booleans()):
            lines.insert(2, pad + draw(st.sampled_from(["", "# c", "  - deeper", "-", "x: y"])))
        return lines
    if form == "map":
        pad = draw(st.sampled_from(["  ", "    "]))
        inner = draw(st.lists(st.tuples(KEYS, SCALARS), min_size=1, max_size=3))
        lines = [""] + [f"{pad}{k}: {v}" for k, v in inner]
        if draw(st.booleans()):
            lines.insert(2, draw(st.sampled_from(["", " " + pad + "deeper: x", pad[1:] + "odd: x", pad + "e:"])))
        return lines
    if form == "block":
        return [" |", f"  {s}", f"  {s}"]
    if form == "anchor":
        return [f" &a {s}"]
    return [f" {s} # trailing"]


@st.composite
def blocks(draw: st.DrawFn, scalars: st.SearchStrategy[str] = SCALARS, keys: st.SearchStrategy[str] = KEYS) -> str:
    lines: list[str] = []
    for key, value in draw(st.lists(st.tuples(keys, values(scalars)), min_size=1, max_size=5)):
        first, *rest = value
        lines.append(f"{key}:{first}")
        lines += rest
        if draw(st.integers(0, 5)) == 0:
            lines.append(draw(st.sampled_from(["", "# comment", "   ", "  indented: x", "\tx: y", "---x"])))
    return "\n".join(lines)


@settings(max_examples=1500, deadline=None)
@given(blocks())
def test_the_subset_agrees_with_pyyaml_or_steps_aside(block: str) -> None:
    _check(block)


@settings(max_examples=1500, deadline=None)
@given(blocks(FRIENDLY, st.sampled_from(["title", "tags", "date", "a-b", "_x", "related", "REFERENCES", "yes"])))
def test_the_subset_agrees_with_pyyaml_on_frontmatter_like_blocks(block: str) -> None:
    _check(block)


@pytest.mark.parametrize("block", [
    "title: Ledger receipt\nauthor: ana\ndate: 2026-10-12\ntags: [payments, ledger]",
    'title: "Quoted: with a colon"\ndescription: \'single\'\nalwaysApply: true\nweight: 3',
    'globs: ["**/*.py", \'a, b\', plain]\ntags: [ "x" ,y ]',
    "related:\n  REFERENCES: [docs/a.md, rules/b.md]\n  SUPERSEDES: learnings/x\ntitle: t",
    "tags:\n- a\n- b\ntitle: t",
    "tags:\n  - a\n  - 2026-01-02\n# a comment\nempty:\nlast: ~",
    "metadata:\n    skill-author: K-Dense Inc.\nname: x",
])
def test_common_frontmatter_is_read_without_pyyaml(block: str) -> None:
    assert _check(block)


@pytest.mark.parametrize("block", [
    "description: |\n  a block scalar",
    "title: &anchor x\nother: *anchor",
    "title: a long title\n  that goes on",
    "date: 2026-02-30",
    "title: x # a comment",
    "weight: 1.5",
    'title: "escaped \\" quote"',
    "related:\n  REFERENCES:\n    - a",
    "yes: x",
    "title: a\u00a0b",
])
def test_everything_else_is_left_to_pyyaml(block: str) -> None:
    assert yaml_subset.load(block) is None
    assert frontmatter.split(f"---\n{block}\n---\nbody\n") == _split_with_pyyaml_only(f"---\n{block}\n---\nbody\n")


def _split_with_pyyaml_only(text: str) -> frontmatter.Parsed:
    original = yaml_subset.load
    yaml_subset.load = lambda block: None  # type: ignore[assignment]
    try:
        return frontmatter.split(text)
    finally:
        yaml_subset.load = original  # type: ignore[assignment]


def _tree_blocks(root: Path) -> list[tuple[Path, str]]:
    found = []
    for folder, _, files in os.walk(root):
        for name in sorted(files):
            if name.endswith(".md"):
                path = Path(folder) / name
                text = frontmatter.decode(path.read_bytes())
                if text.startswith("---\n"):
                    end = text.find("\n---", 3)
                    if end != -1:
                        found.append((path, text[4:end]))
    return found


def test_real_frontmatter_reads_the_same_both_ways() -> None:
    """Every block of the example team and of a real team tree, when it is present: the subset
    agrees with PyYAML wherever it reads one, and it reads most of them (the point of it)."""
    for root in (ROOT / "examples", REAL_TEAM):
        if not root.is_dir():
            continue
        blocks = _tree_blocks(root)
        read = sum(_check(block) for _, block in blocks)
        assert read >= 0.8 * len(blocks), f"{root.name}: only {read} of {len(blocks)} blocks read without PyYAML"


def test_dates_are_dates_and_booleans_are_booleans() -> None:
    meta = yaml_subset.load("date: 2026-01-02\nflag: off\ncount: +3\nnothing: null")
    assert meta == {"date": datetime.date(2026, 1, 2), "flag": False, "count": 3, "nothing": None}


# --- where the block ends -----------------------------------------------------------------------

_LINES = st.sampled_from(["---", "...", "--- ", "...\r", "---\x85", "-- -", " ---", "...x", "", "a: b", "title: x",
                          "\u2028", "é", "- c"])
_TEXTS = st.one_of(
    st.tuples(st.sampled_from(["---", "--- ", "---\r", "--", "x---"]), st.lists(_LINES, max_size=8),
              st.booleans()).map(lambda t: t[0] + "\n" + "\n".join(t[1]) + ("\n" if t[2] else "")),
    st.lists(_LINES, max_size=4).map("\n".join),
)


@settings(max_examples=1500, deadline=None)
@given(_TEXTS)
def test_the_block_ends_at_the_first_closing_line(text: str) -> None:
    """``split`` finds the closing line without cutting the body into lines; the oracle cuts the
    whole text into lines and joins them back, as the rule reads."""
    got = frontmatter.split(text)
    first, sep, rest = text.partition("\n")
    if not text.startswith("---") or not sep or first.strip() != "---":
        assert got == frontmatter.Parsed({}, text)
        return
    lines = rest.split("\n")
    closing = next((i for i, line in enumerate(lines) if line.rstrip() in ("---", "...")), None)
    if closing is None:
        assert got.problem == "frontmatter has no closing '---' line" and got.body == text
        return
    assert got.body == "\n".join(lines[closing + 1:])
    assert got.body_line == closing + 3
    block = "\n".join(lines[:closing])
    if got.problem is None and block.strip():
        assert got.meta == (yaml_subset.load(block) or frontmatter._load_yaml(block) or {})
