"""Which kind of tool an agent called, decided by category rather than by name.

Every agent spells its tools differently (``Read``, ``view``, ``read_file``, ``ReadFile`` ...). One
table maps all of them to four categories, so a rule is written once per category:

======  =========================================================================================
read    the tool opens one file; its input path is what it read
shell   the tool runs a command line; ``shell.py`` decides what the command did
search  the tool greps; ``search.py`` decides whether a file's content was shown
list    the tool lists or globs file names; never evidence
======  =========================================================================================

A name the table does not know gets no category and never counts: guessing would credit a vote
for a tool whose output nobody has looked at. Tools that are known but never show a doc's text
(writes and edits, subagents, the web, todo lists, skills, MCP tools) get no category either, on
purpose: :func:`known` tells them from names nobody has seen, so the hook can say which it was.
``tests/hook/test_tool_names.py`` holds every tool name the research notes give for the ten agents
with the category it gets.
"""

from __future__ import annotations

READ, SHELL, SEARCH, LIST = "read", "shell", "search", "list"


def _fold(name: str) -> str:
    return name.lower().replace("_", "").replace("-", "").replace(" ", "")


# Keys are folded by :func:`_fold` (lower case, no ``_`` / ``-`` / space), so ``read_file`` and
# ``ReadFile`` share a row.
_TABLE: dict[str, str] = {}
for _cat, _names in (
    (READ, ("Read", "view", "read_file", "read", "ReadFile", "NotebookRead")),
    # shell, exec_command and local_shell: Codex's internal names for the tool it reports as Bash.
    (SHELL, ("Bash", "Shell", "PowerShell", "execute_command", "run_in_terminal", "bash", "shell",
             "exec_command", "local_shell")),
    (SEARCH, ("Grep", "grep_code", "search_content", "grep", "grep_search")),
    (LIST, ("Glob", "glob", "list_dir", "search_file", "list_files", "find", "ls", "list")),
):
    for _name in _names:
        _TABLE[_fold(_name)] = _cat

# Known tools that never show a doc's text, folded like the table's keys.
_NEVER = frozenset(_fold(n) for n in (
    "Write", "Edit", "MultiEdit", "NotebookEdit", "Delete", "create", "editFiles", "write_to_file",
    "replace_in_file", "apply_patch",  # they change files
    "Task", "Agent", "spawn_agent", "multi_agent_v1wait_agent", "multi_agent_v1close_agent",  # subagents
    "WebFetch", "WebSearch", "web_fetch", "web_search", "TodoWrite", "Skill",  # the web, todos, skills
))
_MCP_PREFIXES = ("mcp__", "MCP:")

# Search tools whose output format nobody has captured yet: a guess about their lines would turn
# listings into votes, so they count only once an adapter exists (the spec names these two).
_UNADAPTED_SEARCH = frozenset({"cursor", "omp"})


def category(tool_name: object) -> str | None:
    """The category of a tool name, or None when the name is unknown (or not a string)."""
    if not isinstance(tool_name, str) or not tool_name or tool_name.startswith("mcp__"):
        return None
    return _TABLE.get(_fold(tool_name))


def known(tool_name: object) -> bool:
    """True for a name with a category, and for a known tool that never counts (see the docstring)."""
    if not isinstance(tool_name, str) or not tool_name:
        return False
    return (tool_name.startswith(_MCP_PREFIXES) or _fold(tool_name) in _NEVER
            or _fold(tool_name) in _TABLE)


def adapted(agent: str, cat: str | None) -> bool:
    """False for a category whose output this agent's hook cannot be trusted to describe yet."""
    return not (cat == SEARCH and agent in _UNADAPTED_SEARCH)
