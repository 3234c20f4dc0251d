"""The category table: every agent's spelling lands in one of four categories, unknown names in none."""

from __future__ import annotations

import pytest

from reference.hook import categories

ROWS = [
    # read
    ("Read", "read"), ("view", "read"), ("read_file", "read"), ("read", "read"), ("ReadFile", "read"),
    ("NotebookRead", "read"),
    # shell
    ("Bash", "shell"), ("Shell", "shell"), ("PowerShell", "shell"), ("execute_command", "shell"),
    ("run_in_terminal", "shell"), ("bash", "shell"), ("shell", "shell"), ("exec_command", "shell"),
    ("local_shell", "shell"),
    # search
    ("Grep", "search"), ("grep_code", "search"), ("search_content", "search"), ("grep", "search"),
    ("grep_search", "search"),
    # list
    ("Glob", "list"), ("glob", "list"), ("list_dir", "list"), ("search_file", "list"), ("list_files", "list"),
    ("find", "list"), ("ls", "list"), ("list", "list"),
]


@pytest.mark.parametrize(("name", "expected"), ROWS)
def test_every_row_of_the_table(name: str, expected: str) -> None:
    assert categories.category(name) == expected


@pytest.mark.parametrize("name", ["Write", "Edit", "apply_patch", "Task", "Agent", "task", "WebFetch",
                                  "mcp__fs__read_file", "TodoWrite", "", "Reader", "cat"])
def test_unknown_names_never_count(name: str) -> None:
    assert categories.category(name) is None


@pytest.mark.parametrize("value", [None, 3, ["Read"], {"name": "Read"}, True])
def test_a_name_that_is_not_a_string_has_no_category(value: object) -> None:
    assert categories.category(value) is None


def test_spelling_variants_share_a_row() -> None:
    assert categories.category("READ_FILE") == categories.category("readFile") == "read"
    assert categories.category("Run-In-Terminal") == "shell"


@pytest.mark.parametrize("agent", ["cursor", "omp"])
def test_search_tools_without_an_adapter_do_not_count(agent: str) -> None:
    assert not categories.adapted(agent, "search")
    assert categories.adapted(agent, "read")
    assert categories.adapted(agent, "shell")


def test_other_agents_search_tools_count() -> None:
    for agent in ("claude", "codex", "copilot", "codebuddy", "qoder", "workbuddy", "opencode", "pi"):
        assert categories.adapted(agent, "search")
