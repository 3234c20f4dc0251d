"""The search rule: content shown counts, names and numbers do not."""

from __future__ import annotations

import pytest

from reference.hook import search

DOC = "/t/team/learnings/redis-timeout.md"


def shown(output: str, inputs: tuple[str, ...] = ("/t/team",), mode: str = "content") -> list[str]:
    return [p for p, _ in search.shown(output, inputs, mode)]


def test_a_line_starting_with_the_path_and_a_colon_counts() -> None:
    assert shown(f"{DOC}:5:raise the timeout\n") == [DOC]


def test_relative_and_windows_paths_in_lines() -> None:
    assert shown("learnings/redis-timeout.md:5:text") == ["learnings/redis-timeout.md"]
    assert shown("C:\\team\\learnings\\x.md:3:text") == ["C:\\team\\learnings\\x.md"]


def test_a_bare_path_line_is_a_listing() -> None:
    assert shown(f"{DOC}\n/t/team/docs/a.md\n") == []


def test_context_lines_alone_do_not_count() -> None:
    assert shown(f"{DOC}-4-before\n") == []


def test_a_single_file_search_with_output_counts_for_that_file() -> None:
    assert shown("5:raise the timeout", inputs=(DOC,)) == [DOC]


def test_a_single_file_search_without_output_does_not_count() -> None:
    assert shown("", inputs=(DOC,)) == []
    assert shown("\n  \n", inputs=(DOC,)) == []


def test_the_single_file_rule_needs_a_markdown_input() -> None:
    assert shown("5:text", inputs=("/t/team/learnings",)) == []


@pytest.mark.parametrize("mode", ["count", "files"])
def test_count_and_files_modes_never_count(mode: str) -> None:
    assert shown(f"{DOC}:3\n", inputs=(DOC,), mode=mode) == []


def test_text_after_a_line_number_is_not_taken_for_a_path() -> None:
    assert shown("12:see learnings/other.md: for details", inputs=("/t/team/a.txt",)) == []
    assert shown("note: see x.md: here") == []


def test_color_codes_are_ignored() -> None:
    assert shown(f"\x1b[35m{DOC}\x1b[0m:\x1b[32m5\x1b[0m:text") == [DOC]


def test_several_files() -> None:
    out = f"{DOC}:1:a\n/t/team/docs/b.md:2:b\n{DOC}:3:c\n"
    assert shown(out) == [DOC, "/t/team/docs/b.md", DOC]
