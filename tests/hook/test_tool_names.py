"""Every tool name the research notes give for the ten agents, classified on purpose.

The rows come from the agents' documented tool sets and from payloads recorded in real runs (tool
names only): a name maps to a category (read, shell, search, list) or to none, and whether it can
count for that agent (``categories.adapted``: Cursor's Grep and OMP's grep have no adapter yet).
Names with no category are either known tools that never show a doc's text (writes, edits,
subagents, web, todo lists, MCP tools) or unknown; both never count.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reference.hook import categories, dispatch

R, SH, SE, L = categories.READ, categories.SHELL, categories.SEARCH, categories.LIST

# (agent, tool name, category or None, whether a call of it can count for that agent)
TABLE: list[tuple[str, str, str | None, bool]] = [
    # Claude Code: its tool set, the PowerShell tool, MCP tools; Task was renamed Agent.
    ("claude", "Read", R, True), ("claude", "NotebookRead", R, True), ("claude", "Bash", SH, True),
    ("claude", "PowerShell", SH, True), ("claude", "Grep", SE, True), ("claude", "Glob", L, False),
    ("claude", "Write", None, False), ("claude", "Edit", None, False), ("claude", "NotebookEdit", None, False),
    ("claude", "Task", None, False), ("claude", "Agent", None, False), ("claude", "WebFetch", None, False),
    ("claude", "WebSearch", None, False), ("claude", "TodoWrite", None, False), ("claude", "Skill", None, False),
    ("claude", "mcp__fs__read_file", None, False),
    # Codex: the shell tool is reported as Bash (internally shell, exec_command, local_shell).
    ("codex", "Bash", SH, True), ("codex", "shell", SH, True), ("codex", "exec_command", SH, True),
    ("codex", "local_shell", SH, True), ("codex", "apply_patch", None, False),
    ("codex", "mcp__server__tool", None, False), ("codex", "spawn_agent", None, False),
    ("codex", "multi_agent_v1wait_agent", None, False), ("codex", "multi_agent_v1close_agent", None, False),
    # Cursor: the documented matcher values. Grep has no adapter yet (the spec defers it).
    ("cursor", "Shell", SH, True), ("cursor", "Read", R, True), ("cursor", "Grep", SE, False),
    ("cursor", "Write", None, False), ("cursor", "Delete", None, False), ("cursor", "Task", None, False),
    ("cursor", "MCP:read_file", None, False),
    # Copilot: the CLI's tools, and VS Code's agent tools.
    ("copilot", "bash", SH, True), ("copilot", "powershell", SH, True), ("copilot", "view", R, True),
    ("copilot", "grep", SE, True), ("copilot", "glob", L, False), ("copilot", "edit", None, False),
    ("copilot", "create", None, False), ("copilot", "task", None, False),
    ("copilot", "run_in_terminal", SH, True), ("copilot", "read_file", R, True), ("copilot", "list_dir", L, False),
    ("copilot", "grep_search", SE, True), ("copilot", "editFiles", None, False),
    # CodeBuddy: Claude's names in the CLI, snake_case in the IDE (teamai's normalizer).
    ("codebuddy", "Bash", SH, True), ("codebuddy", "Read", R, True), ("codebuddy", "Grep", SE, True),
    ("codebuddy", "Glob", L, False), ("codebuddy", "execute_command", SH, True),
    ("codebuddy", "search_content", SE, True), ("codebuddy", "read_file", R, True), ("codebuddy", "list_dir", L, False),
    ("codebuddy", "write_to_file", None, False), ("codebuddy", "replace_in_file", None, False),
    ("codebuddy", "web_search", None, False), ("codebuddy", "web_fetch", None, False),
    ("codebuddy", "task", None, False), ("codebuddy", "skill", None, False),
    # Qoder: Claude's names.
    ("qoder", "Bash", SH, True), ("qoder", "Read", R, True), ("qoder", "Grep", SE, True), ("qoder", "Glob", L, False),
    ("qoder", "Write", None, False), ("qoder", "Edit", None, False), ("qoder", "mcp__srv__tool", None, False),
    # WorkBuddy: unverified; Claude's names or CodeBuddy's snake_case, both accepted.
    ("workbuddy", "Bash", SH, True), ("workbuddy", "Read", R, True), ("workbuddy", "Grep", SE, True),
    ("workbuddy", "read_file", R, True), ("workbuddy", "execute_command", SH, True),
    ("workbuddy", "search_content", SE, True), ("workbuddy", "list_dir", L, False),
    ("workbuddy", "write_to_file", None, False),
    # OpenCode: lower-case tool ids.
    ("opencode", "bash", SH, True), ("opencode", "read", R, True), ("opencode", "grep", SE, True),
    ("opencode", "glob", L, False), ("opencode", "edit", None, False), ("opencode", "write", None, False),
    ("opencode", "task", None, False), ("opencode", "todowrite", None, False), ("opencode", "skill", None, False),
    # Pi: the built-in tools.
    ("pi", "bash", SH, True), ("pi", "read", R, True), ("pi", "grep", SE, True), ("pi", "find", L, False),
    ("pi", "ls", L, False), ("pi", "edit", None, False), ("pi", "write", None, False),
    # OMP: Pi's tools; its markdown-tree grep has no adapter yet (the spec defers it).
    ("omp", "bash", SH, True), ("omp", "read", R, True), ("omp", "grep", SE, False), ("omp", "find", L, False),
    ("omp", "ls", L, False), ("omp", "edit", None, False), ("omp", "write", None, False),
]


@pytest.mark.parametrize(("agent", "name", "expected", "counts"), TABLE,
                         ids=[f"{a}-{n}" for a, n, _, _ in TABLE])
def test_every_tool_name_of_every_agent(agent: str, name: str, expected: str | None, counts: bool) -> None:
    assert categories.category(name) == expected
    can_count = expected in (R, SH, SE) and categories.adapted(agent, expected)
    assert can_count is counts
    if expected is None:
        assert categories.known(name), f"{name} should be listed as a known tool that never counts"


def test_the_table_covers_all_ten_agents() -> None:
    assert {agent for agent, *_ in TABLE} == set(dispatch.AGENTS)


def test_unknown_names_are_not_known() -> None:
    for name in ("Reader", "cat", "frobnicate", ""):
        assert categories.category(name) is None and not categories.known(name)


ROOT = Path(__file__).resolve().parents[2]


def test_every_tool_in_the_payload_corpus_is_in_the_table() -> None:
    rows = {(agent, name) for agent, name, *_ in TABLE}
    missing = []
    for path in sorted((ROOT / "payloads").glob("*/*.json")):
        data = json.loads(path.read_text())
        payload = data["payload"]
        name = payload.get("tool_name") or payload.get("toolName")
        if isinstance(name, str) and (data["agent"], name) not in rows:
            missing.append(f"{path.relative_to(ROOT)}: {data['agent']} {name}")
    assert missing == []


RECORDED = ROOT.parent / "shared" / "research" / "recorded-payload-shapes.json"


@pytest.mark.skipif(not RECORDED.exists(), reason="the recorded payload shapes are not next to the repository")
def test_every_tool_seen_in_recorded_payloads_is_in_the_table() -> None:
    rows = {(agent, name) for agent, name, *_ in TABLE}
    seen = {(s["agent"], s["tool"].replace("<server>", "server").replace("<tool>", "tool"))
            for s in json.loads(RECORDED.read_text())["shapes"] if s.get("tool")}
    assert seen - rows == set()
