"""Each agent's payload becomes the same ToolCall: session, actor, tool, paths, output, status."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from reference.hook import dispatch, shell_syntax
from reference.hook.toolcall import FAILURE, SUCCESS, UNKNOWN, ToolCall

DOC = "/home/ana/proj/team/learnings/redis-timeout.md"
SES = "3f6c2a9e-8b41-4d2a-9a57-1c0e5b7d2f10"


def parse(agent: str, payload: dict[str, Any], event: str = "post-tool-use") -> ToolCall:
    return dispatch.to_toolcall(agent, payload, event)


def claude_like(**extra: Any) -> dict[str, Any]:
    return {"session_id": SES, "cwd": "/home/ana/proj", "hook_event_name": "PostToolUse", **extra}


# --- Claude and the hosts that copy its protocol -----------------------------------------------

@pytest.mark.parametrize("agent", ["claude", "codebuddy", "qoder", "workbuddy"])
def test_claude_shaped_read(agent: str) -> None:
    call = parse(agent, claude_like(tool_name="Read", tool_input={"file_path": DOC},
                                    tool_response={"type": "text", "file": {"filePath": DOC, "content": "x"}}))
    assert (call.agent, call.session, call.category, call.paths, call.status, call.cwd) == (
        agent, SES, "read", (DOC,), SUCCESS, "/home/ana/proj")
    assert call.actor == {}


def test_claude_subagent_actor_and_bash_output() -> None:
    call = parse("claude", claude_like(agent_id="afe90099f7baf1974", agent_type="teamai-recall", tool_name="Bash",
                                       tool_input={"command": "teamai recall redis"},
                                       tool_response={"stdout": "out\n", "stderr": "err", "interrupted": False}))
    assert call.actor == {"agent_id": "afe90099f7baf1974", "agent_type": "teamai-recall"}
    assert call.command == "teamai recall redis" and call.output == "out\n" and call.status == SUCCESS


def test_claude_interrupted_bash_has_unknown_status() -> None:
    call = parse("claude", claude_like(tool_name="Bash", tool_input={"command": "cat x.md"},
                                       tool_response={"stdout": "", "stderr": "", "interrupted": True}))
    assert call.status == UNKNOWN


def test_claude_grep_modes() -> None:
    content = parse("claude", claude_like(tool_name="Grep", tool_input={"pattern": "r", "path": DOC,
                                                                         "output_mode": "content"},
                                          tool_response={"mode": "content", "numFiles": 0, "filenames": [],
                                                         "content": "5:text", "numLines": 1}))
    assert (content.category, content.paths, content.output, content.count_mode) == ("search", (DOC,), "5:text", False)
    files = parse("claude", claude_like(tool_name="Grep", tool_input={"pattern": "r"},
                                        tool_response={"mode": "files_with_matches", "filenames": [DOC], "numFiles": 1}))
    assert files.filenames == (DOC,) and files.output == ""
    count = parse("claude", claude_like(tool_name="Grep", tool_input={"pattern": "r", "output_mode": "count"},
                                        tool_response={"mode": "count", "content": f"{DOC}:3"}))
    assert count.count_mode


@pytest.mark.parametrize("agent", ["claude", "codebuddy", "qoder", "workbuddy"])
def test_post_tool_use_failure_is_a_failure(agent: str) -> None:
    payload = claude_like(hook_event_name="PostToolUseFailure", tool_name="Read", tool_input={"file_path": DOC},
                          error="File does not exist.", is_interrupt=False)
    assert parse(agent, payload, "post-tool-use").status == FAILURE
    assert parse(agent, payload, "post-tool-use-failure").status == FAILURE


def test_codebuddy_ide_names() -> None:
    call = parse("codebuddy", claude_like(tool_name="search_content", tool_input={"pattern": "r", "path": "src"},
                                          tool_response=f"{DOC}:5:text"))
    assert call.category == "search" and call.output == f"{DOC}:5:text" and call.status == SUCCESS


# --- Codex ------------------------------------------------------------------------------------

def test_codex_shell_output_is_a_plain_string_with_unknown_status() -> None:
    call = parse("codex", claude_like(turn_id="t", tool_name="Bash", tool_input={"command": "rg -n redis src"},
                                      tool_response="src/cache.ts:12:import Redis\n", tool_use_id="c"))
    assert call.category == "shell" and call.status == UNKNOWN
    assert call.output == "src/cache.ts:12:import Redis\n"


def test_codex_subagent_names_its_actor() -> None:
    call = parse("codex", claude_like(agent_id="019d1b01", agent_type="explorer", tool_name="Bash",
                                      tool_input={"command": "ls"}, tool_response=""))
    assert call.session == SES and call.actor == {"agent_id": "019d1b01", "agent_type": "explorer"}


def test_codex_argv_command_lists() -> None:
    call = parse("codex", claude_like(tool_name="Bash", tool_input={"command": ["bash", "-lc", "cat a.md"]},
                                      tool_response=""))
    assert call.command == "cat a.md"
    call = parse("codex", claude_like(tool_name="Bash", tool_input={"command": ["cat", "a b.md"]}, tool_response=""))
    assert call.command == "cat 'a b.md'"


# --- Cursor ------------------------------------------------------------------------------------

def cursor(**extra: Any) -> dict[str, Any]:
    return {"conversation_id": "c7a3e9f2", "generation_id": "g", "hook_event_name": "postToolUse",
            "workspace_roots": ["/home/ana/proj"], **extra}


def test_cursor_shell_output_is_a_json_string() -> None:
    out = json.dumps({"exitCode": 0, "stdout": "hello\n", "stderr": ""})
    call = parse("cursor", cursor(tool_name="Shell", tool_input={"command": "cat a.md",
                                                                  "working_directory": "/home/ana/proj/team"},
                                  tool_output=out, cwd="/home/ana/proj"))
    assert (call.session, call.category, call.output, call.status) == ("c7a3e9f2", "shell", "hello\n", SUCCESS)
    assert call.search_root == "/home/ana/proj/team" and call.base == "/home/ana/proj/team"


def test_cursor_nonzero_exit_is_a_failure_and_failure_events() -> None:
    out = json.dumps({"exitCode": 1, "stdout": "", "stderr": "no"})
    assert parse("cursor", cursor(tool_name="Shell", tool_input={"command": "cat a.md"}, tool_output=out)).status \
        == FAILURE
    failed = parse("cursor", cursor(hook_event_name="postToolUseFailure", tool_name="Read",
                                    tool_input={"target_file": DOC}, failure_type="error"))
    assert failed.status == FAILURE and failed.paths == (DOC,)


def test_cursor_empty_cwd_falls_back_to_the_single_workspace_root_and_session_id() -> None:
    call = parse("cursor", {"session_id": "s-only", "cwd": "", "workspace_roots": ["/w"], "tool_name": "Read",
                            "tool_input": {"file_path": "a.md"}, "tool_output": "{\"content_length\":4}"})
    assert call.cwd == "/w" and call.session == "s-only" and call.status == SUCCESS


def test_cursor_plain_string_output_is_kept() -> None:
    call = parse("cursor", cursor(tool_name="Shell", tool_input={"command": "x"}, tool_output="not json"))
    assert call.output == "not json"


# --- Copilot -----------------------------------------------------------------------------------

def test_copilot_cli_shape() -> None:
    call = parse("copilot", {"timestamp": 1, "cwd": "/home/ana/proj", "sessionId": "cp-1", "toolName": "view",
                             "toolArgs": json.dumps({"path": DOC}),
                             "toolResult": {"resultType": "success", "textResultForLlm": "text"}})
    assert (call.session, call.category, call.paths, call.status, call.output) == (
        "cp-1", "read", (DOC,), SUCCESS, "text")


@pytest.mark.parametrize(("result", "status"), [("failure", FAILURE), ("denied", FAILURE), ("", UNKNOWN)])
def test_copilot_cli_result_types(result: str, status: str) -> None:
    call = parse("copilot", {"cwd": "/p", "toolName": "bash", "toolArgs": {"command": "cat a.md"},
                             "toolResult": {"resultType": result}})
    assert call.status == status and call.command == "cat a.md"


def test_copilot_sdk_failure_variant() -> None:
    call = parse("copilot", {"sessionId": "s", "toolName": "view", "toolArgs": {"path": DOC}, "error": "boom",
                             "workingDirectory": "/p"})
    assert call.status == FAILURE and call.cwd == "/p"


def test_copilot_vscode_shape() -> None:
    call = parse("copilot", {"timestamp": "2026-11-30T10:00:00Z", "hookEventName": "PostToolUse", "sessionId": "vs-1",
                             "cwd": "/home/ana/proj", "tool_name": "run_in_terminal",
                             "tool_input": {"command": "cat a.md"}, "tool_response": "text"})
    assert (call.session, call.category, call.command, call.output, call.status) == (
        "vs-1", "shell", "cat a.md", "text", SUCCESS)


# --- The bridges: OpenCode, Pi, OMP ----------------------------------------------------------

def bridge(**extra: Any) -> dict[str, Any]:
    return {"cwd": "/home/ana/proj", "session_id": "ses_1", **extra}


@pytest.mark.parametrize("agent", ["opencode", "pi", "omp"])
@pytest.mark.parametrize(("given", "status"), [("success", SUCCESS), ("failure", FAILURE), ("unknown", UNKNOWN),
                                              ("weird", UNKNOWN), (None, UNKNOWN)])
def test_bridge_status(agent: str, given: str | None, status: str) -> None:
    call = parse(agent, bridge(tool_name="read", tool_input={"filePath": DOC}, tool_response="x", tool_status=given))
    assert call.status == status and call.paths == (DOC,) and call.session == "ses_1"


def test_opencode_task_link_from_session_link_or_metadata() -> None:
    call = parse("opencode", bridge(tool_name="task", tool_input={}, tool_response="done",
                                    session_link={"child": "ses_c", "parent": "ses_1"}))
    assert call.link == ("ses_c", "ses_1")
    call = parse("opencode", bridge(tool_name="task", tool_response={"output": "x", "metadata": {"sessionId": "ses_d"}}))
    assert call.link == ("ses_d", "ses_1")
    call = parse("opencode", bridge(tool_name="task", metadata={"sessionId": "ses_e", "parentSessionId": "ses_p"}))
    assert call.link == ("ses_e", "ses_p")
    assert parse("opencode", bridge(tool_name="bash", metadata={"sessionId": "ses_e"})).link is None
    assert parse("opencode", bridge(tool_name="task", session_link={"child": "ses_1", "parent": "ses_1"})).link is None


def test_pi_text_parts() -> None:
    call = parse("pi", bridge(tool_name="bash", tool_input={"command": "cat a.md"},
                              tool_response=[{"type": "text", "text": "one"}, {"type": "image"}, {"type": "text",
                                                                                                  "text": "two"}]))
    assert call.output == "one\ntwo"


def test_omp_actor_from_fields_or_ctx_agent() -> None:
    assert parse("omp", bridge(tool_name="read", agent_id="Worker", agent_type="task")).actor == {
        "agent_id": "Worker", "agent_type": "task"}
    assert parse("omp", bridge(tool_name="read", agent={"kind": "sub", "id": "W", "name": "teamai-recall"})).actor == {
        "agent_id": "W", "agent_type": "teamai-recall"}
    assert parse("omp", bridge(tool_name="read", agent={"kind": "main", "id": "M", "name": "main"})).actor == {}


# --- wrong types never raise -----------------------------------------------------------------

@pytest.mark.parametrize("agent", dispatch.AGENTS)
def test_wrong_types_read_as_absent(agent: str) -> None:
    payload = {"session_id": 5, "conversation_id": [], "sessionId": {}, "tool_name": 7, "toolName": None,
               "tool_input": "str", "toolArgs": 3, "tool_response": 4.5, "toolResult": "x", "tool_output": 9,
               "cwd": False, "agent_id": 1, "agent_type": None, "session_link": "x", "tool_status": [],
               "hook_event_name": {}, "agent": 3}
    call = parse(agent, payload)
    assert call.session is None and call.tool is None and call.category is None
    assert call.actor == {} and call.paths == () and call.link is None


# --- the session: one order for every agent ------------------------------------------------------

@pytest.mark.parametrize("agent", dispatch.AGENTS)
@pytest.mark.parametrize(("fields", "expected"), [
    ({"session_id": "A", "sessionId": "B", "conversation_id": "C"}, "A"),
    ({"sessionId": "B", "conversation_id": "C"}, "B"),
    ({"session_id": "A", "conversation_id": "C"}, "A"),
    ({"conversation_id": "C"}, "C"),
    ({"session_id": "", "sessionId": 7, "conversation_id": "C"}, "C"),  # empty or not a string: absent
])
def test_the_session_is_session_id_then_sessionId_then_conversation_id(
        agent: str, fields: dict[str, Any], expected: str) -> None:
    shapes: list[dict[str, Any]] = [
        {"cwd": "/w", "tool_name": "Read", "tool_input": {"file_path": "a.md"}, "tool_response": {}},
        {"cwd": "/w", "toolName": "view", "toolArgs": "{}", "toolResult": {"resultType": "success"}},
    ]
    for shape in shapes:
        assert parse(agent, {**shape, **fields}).session == expected
        assert parse(agent, {**fields}, "stop").session == expected


_ARGV_WORDS = st.lists(st.one_of(
    st.sampled_from(["A=b", "cat", "x.md", "--file=x.md", "a b.md", "it's", "~/notes.md", "$HOME", "*.md", "-n",
                     "", "=", "PATH=/bin", "é.md", "a;b", "a|b", "(x)"]),
    st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")), max_size=12)), min_size=1, max_size=5)


@given(_ARGV_WORDS)
def test_an_argv_list_reads_back_as_exactly_its_words(argv: list[str]) -> None:
    """exec runs an argv as it is: no word of it is an assignment, an operator or an expansion, so
    the line it is joined into must read back as the same words and nothing else."""
    assume(not (len(argv) >= 3 and argv[-2] in ("-c", "-lc", "-Command", "/c")))
    call = parse("codex", claude_like(tool_name="Bash", tool_input={"command": argv}, tool_response=""))
    parsed = shell_syntax.parse(call.command or "")
    assert not parsed.compound and not parsed.broken, call.command
    (cmd,) = parsed.commands()
    assert cmd.assignments == () and cmd.redirects == (), call.command
    assert [w.text for w in cmd.words] == argv and all(w.literal and not w.home for w in cmd.words), call.command
