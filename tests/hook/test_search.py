"""The search rule: content shown counts, names, numbers and messages do not.

A line counts for a doc only when it is text from the doc once its ``path:`` and line-number
prefixes are taken off; when the doc cannot be read, a ``path:`` line with text after it still
counts, and output that does not name the path does not.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference.hook import search

LINE = "The redis client's default socket timeout is 1s; raise it to 5s under load."
BODY = f"---\ntitle: Redis client times out under load\n---\n\n{LINE}\nKeep retries at 3.\n"


@pytest.fixture
def team(tmp_path: Path) -> Path:
    (tmp_path / "learnings").mkdir()
    (tmp_path / "learnings" / "redis-timeout.md").write_text(BODY)
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "b.md").write_text("b line\n")
    return tmp_path


def shown(output: str, inputs: tuple[str, ...], mode: str = "content", base: Path | None = None) -> list[str]:
    def locate(raw: str) -> str | None:
        p = Path(raw)
        if not p.is_absolute():
            if base is None:
                return None
            p = base / p
        return str(p)

    return [p for p, _ in search.shown(output, inputs, mode, locate)]


# --- the doc can be read: its text must be in the output ---------------------------------------

def test_a_path_line_with_text_from_the_doc_counts(team: Path) -> None:
    doc = str(team / "learnings" / "redis-timeout.md")
    assert shown(f"{doc}:5:{LINE}\n", (str(team),)) == [doc]
    assert shown(f"{doc}:{LINE}\n", (str(team),)) == [doc]  # without -n
    assert shown(f"{doc}:5:7:socket timeout\n", (str(team),)) == [doc]  # --column, and a part of the line


def test_a_path_line_whose_text_is_not_in_the_doc_does_not_count(team: Path) -> None:
    doc = str(team / "learnings" / "redis-timeout.md")
    assert shown(f"{doc}:5:a line someone made up\n", (str(team),)) == []
    assert shown(f"{doc}:\n", (str(team),)) == []  # nothing after the path


@pytest.mark.parametrize("message", ["No matches found", "No matches found.", "No files found", "0 matches",
                                     "No results found for 'pool'", "(no output)", "Found 0 matches"])
def test_a_single_file_search_that_prints_a_message_does_not_count(team: Path, message: str) -> None:
    doc = str(team / "learnings" / "redis-timeout.md")
    assert shown(message + "\n", (doc,)) == []


def test_a_single_file_search_with_text_from_the_doc_counts(team: Path) -> None:
    doc = str(team / "learnings" / "redis-timeout.md")
    assert shown(f"5:{LINE}", (doc,)) == [doc]
    assert shown(f"{LINE}\n", (doc,)) == [doc]
    assert shown(f"Found 1 matches\n  Line 5: {LINE}\n", (doc,)) == [doc]  # a tool's own header line is ignored
    assert shown("learnings/redis-timeout.md", ("learnings/redis-timeout.md",), base=team) == []


def test_a_relative_input_is_read_against_the_base(team: Path) -> None:
    assert shown(f"5:{LINE}", ("learnings/redis-timeout.md",), base=team) == ["learnings/redis-timeout.md"]


def test_a_truncated_line_still_counts(team: Path) -> None:
    doc = str(team / "learnings" / "redis-timeout.md")
    assert shown(f"{doc}:5:{LINE[:30]}... [truncated]\n", (str(team),)) == [doc]
    assert shown(f"{doc}:5:{LINE[:30]} [... omitted end of long line]\n", (str(team),)) == [doc]
    assert shown(f"{doc}:5:[Omitted long line with 2 matches]\n", (str(team),)) == []


def test_a_file_heading_followed_by_its_indented_lines(team: Path) -> None:
    doc = str(team / "learnings" / "redis-timeout.md")
    out = f"Found 1 matches\n{doc}:\n  Line 5: {LINE}\n"
    assert shown(out, (str(team),)) == [doc]
    assert shown(f"Found 1 matches\n{doc}:\n  Line 5: not from the doc\n", (str(team),)) == []


def test_crlf_output_and_a_crlf_doc(team: Path) -> None:
    doc = team / "learnings" / "crlf.md"
    doc.write_bytes(b"first\r\nthe second line\r\n")
    assert shown(f"{doc}:2:the second line\r\n", (str(team),)) == [str(doc)]


@pytest.mark.parametrize("special", ["fifo", "folder", "huge"])
def test_what_is_not_a_small_regular_file_is_never_opened_as_a_doc(tmp_path: Path, special: str) -> None:
    import os

    target = tmp_path / "x.md"
    if special == "fifo":
        os.mkfifo(target)
    elif special == "folder":
        target.mkdir()
    else:
        target.write_text("y" * (search.MAX_DOC_BYTES + 1))
    # Unreadable: the single-file form does not count, a path line with text does (see below).
    assert shown("yyy", (str(target),)) == []


# --- the doc cannot be read: the form of the line decides ----------------------------------------

DOC = "/t/team/learnings/redis-timeout.md"


def test_unreadable_a_line_starting_with_the_path_and_text_counts() -> None:
    assert shown(f"{DOC}:5:raise the timeout\n", ("/t/team",)) == [DOC]
    assert shown("learnings/redis-timeout.md:5:text", ("/t/team",)) == ["learnings/redis-timeout.md"]
    assert shown("C:\\team\\learnings\\x.md:3:text", ("/t/team",)) == ["C:\\team\\learnings\\x.md"]


def test_unreadable_a_path_line_without_text_does_not_count() -> None:
    assert shown(f"{DOC}:\n{DOC}:5:\n", ("/t/team",)) == []


def test_unreadable_single_file_output_cannot_be_told_from_a_message() -> None:
    assert shown("5:raise the timeout", (DOC,)) == []
    assert shown("No matches found", (DOC,)) == []


def test_a_bare_path_line_is_a_listing() -> None:
    assert shown(f"{DOC}\n/t/team/docs/a.md\n", ("/t/team",)) == []


def test_context_lines_alone_do_not_count() -> None:
    assert shown(f"{DOC}-4-before\n", ("/t/team",)) == []


def test_a_single_file_search_without_output_does_not_count(team: Path) -> None:
    doc = str(team / "learnings" / "redis-timeout.md")
    assert shown("", (doc,)) == []
    assert shown("\n  \n", (doc,)) == []


def test_the_single_file_rule_needs_a_markdown_input(team: Path) -> None:
    assert shown(f"5:{LINE}", (str(team / "learnings"),)) == []


@pytest.mark.parametrize("mode", ["count", "files"])
def test_count_and_files_modes_never_count(team: Path, mode: str) -> None:
    doc = str(team / "learnings" / "redis-timeout.md")
    assert shown(f"{doc}:3\n", (doc,), mode=mode) == []
    assert shown(f"{doc}:5:{LINE}\n", (str(team),), mode=mode) == []


def test_text_after_a_line_number_is_not_taken_for_a_path() -> None:
    assert shown("12:see learnings/other.md: for details", ("/t/team/a.txt",)) == []
    assert shown("note: see x.md: here", ("/t/team",)) == []


def test_color_codes_are_ignored(team: Path) -> None:
    doc = str(team / "learnings" / "redis-timeout.md")
    assert shown(f"\x1b[35m{doc}\x1b[0m:\x1b[32m5\x1b[0m:{LINE}", (str(team),)) == [doc]


def test_several_files_each_once(team: Path) -> None:
    doc = str(team / "learnings" / "redis-timeout.md")
    other = str(team / "docs" / "b.md")
    out = f"{doc}:5:{LINE}\n{other}:1:b line\n{doc}:6:Keep retries at 3.\n{other}:2:not b\n"
    assert shown(out, (str(team),)) == [doc, other]


@settings(max_examples=150, deadline=None)
@given(st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="ZQ"), max_size=60))
def test_output_that_is_not_from_the_doc_never_counts_for_it(tmp_path_factory, message: str) -> None:  # type: ignore[no-untyped-def]
    folder = tmp_path_factory.mktemp("team")
    doc = folder / "x.md"
    doc.write_text("ZZZZ QQQQ\n")  # no line of the message can hold text from it
    lines = message.splitlines()
    assert shown(message, (str(doc),)) == []
    assert shown("\n".join(f"{doc}:{i}:{line}" for i, line in enumerate(lines, 1)), (str(folder),)) == []
