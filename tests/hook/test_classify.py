"""From a ToolCall to log lines: shapes, the status rule, claims, links, and what never gets in."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from reference.hook import classify, dispatch
from reference.hook.toolcall import ToolCall

ROOT = "/srv/team"
DOC = f"{ROOT}/learnings/redis-timeout.md"
RUN = "5f0c2e1a-9b7d-4c1e-8a54-2f6d0b3e9c71"
RUN2 = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
TS = "2026-11-30T10:00:00.000Z"
START = f"--- [teamai:recall:start] --- (1 result) run={RUN}\n\n[1/1] [learnings] Redis [workspace]\nFile: {DOC}\n"


def records(agent: str, payload: dict[str, Any], event: str = "post-tool-use", root: str = ROOT
            ) -> list[dict[str, Any]]:
    call = dispatch.to_toolcall(agent, payload, event)
    return classify.classify(call, (root,), TS).records


def real_team(tmp_path: Path, text: str) -> tuple[str, str]:
    """A team folder on disk whose redis-timeout learning holds ``text`` (the search rule reads it)."""
    (tmp_path / "learnings").mkdir()
    (tmp_path / "learnings" / "redis-timeout.md").write_text(text)
    return str(tmp_path), str(tmp_path / "learnings" / "redis-timeout.md")


def claude(tool: str, tool_input: dict[str, Any], response: Any = None, **extra: Any) -> dict[str, Any]:
    return {"session_id": "ses-a", "cwd": ROOT, "tool_name": tool, "tool_input": tool_input,
            "tool_response": response if response is not None else {}, **extra}


def codex(command: str, output: str = "", **extra: Any) -> dict[str, Any]:
    return {"session_id": "ses-b", "cwd": ROOT, "tool_name": "Bash", "tool_input": {"command": command},
            "tool_response": output, **extra}


def test_evidence_line_shape() -> None:
    (line,) = records("claude", claude("Read", {"file_path": DOC}, agent_id="a-1", agent_type="Explore"))
    assert line == {"kind": "evidence", "ts": TS, "session": "ses-a", "agent": "claude",
                    "actor": {"agent_id": "a-1", "agent_type": "Explore"}, "path": DOC, "exact": True,
                    "via": "read", "simple": True, "status": "success"}


def test_claim_line_shape() -> None:
    (line,) = records("claude", claude("Bash", {"command": "teamai recall redis"}, {"stdout": START},
                                       agent_id="a-2", agent_type="teamai-recall"))
    assert line == {"kind": "claim", "ts": TS, "run": RUN, "session": "ses-a", "agent": "claude",
                    "actor": {"agent_id": "a-2", "agent_type": "teamai-recall"}}


def test_link_line_shape() -> None:
    (line,) = records("opencode", {"cwd": ROOT, "session_id": "ses_p", "tool_name": "task",
                                   "session_link": {"child": "ses_c", "parent": "ses_p"}, "tool_status": "unknown"})
    assert line == {"kind": "link", "ts": TS, "child": "ses_c", "parent": "ses_p", "agent": "opencode"}


def test_bob_sed_counts_with_unknown_status() -> None:
    (line,) = records("codex", codex("sed -n '1,80p' learnings/redis-timeout.md", "text"))
    assert (line["path"], line["exact"], line["via"], line["simple"], line["status"]) == (
        DOC, True, "shell", True, "unknown")


def test_bob_compound_command_gives_nothing() -> None:
    assert records("codex", codex("test -e x && cat learnings/redis-timeout.md || true", "text")) == []


def test_unknown_status_only_a_simple_read_counts() -> None:
    assert records("codex", codex("cat learnings/redis-timeout.md | head", "t")) == []
    assert records("codex", codex("grep -n redis learnings/redis-timeout.md", "5:redis")) == []
    assert records("codex", codex("rg -n redis .", f"{DOC}:5:redis")) == []
    assert len(records("codex", codex("head -n 5 learnings/redis-timeout.md"))) == 1


def test_a_pipeline_with_known_success_counts_but_is_not_simple() -> None:
    (line,) = records("claude", claude("Bash", {"command": "cat learnings/redis-timeout.md | head"}, {"stdout": "t"}))
    assert line["simple"] is False and line["via"] == "shell"


def test_shell_search_follows_the_search_rule(tmp_path: Path) -> None:
    (line,) = records("claude", claude("Bash", {"command": "rg -n timeout learnings"},
                                       {"stdout": "learnings/redis-timeout.md:5:timeout\n"}))
    assert (line["path"], line["via"], line["simple"]) == (DOC, "shell", False)
    assert records("claude", claude("Bash", {"command": "rg -l timeout learnings"},
                                    {"stdout": "learnings/redis-timeout.md\n"})) == []
    assert records("claude", claude("Bash", {"command": "grep -c timeout learnings/redis-timeout.md"},
                                    {"stdout": "3\n"})) == []
    root, doc = real_team(tmp_path, "---\ntitle: T\n---\nRaise the timeout to 5s.\n")
    grep = {"command": "grep -n timeout learnings/redis-timeout.md"}
    (single,) = records("claude", {**claude("Bash", grep, {"stdout": "4:Raise the timeout to 5s.\n"}), "cwd": root},
                        root=root)
    assert single["path"] == doc
    for output in ("", "grep: no match\n", "4:a line the doc does not hold\n"):
        assert records("claude", {**claude("Bash", grep, {"stdout": output}), "cwd": root}, root=root) == []


def test_git_dash_c_changes_the_base() -> None:
    payload = claude("Bash", {"command": "git -C team grep -n timeout"}, {"stdout": "learnings/redis-timeout.md:5:x"})
    payload["cwd"] = "/srv"
    (line,) = records("claude", payload)
    assert line["path"] == DOC


def test_claude_grep_on_a_single_file_counts_and_listings_do_not(tmp_path: Path) -> None:
    root, doc = real_team(tmp_path, "---\ntitle: T\n---\nthe timeout\n")
    (line,) = records("claude", {**claude("Grep", {"pattern": "t", "path": doc, "output_mode": "content"},
                                          {"mode": "content", "filenames": [], "content": "4:the timeout"}),
                                 "cwd": root}, root=root)
    assert (line["via"], line["simple"], line["path"]) == ("search", False, doc)
    assert records("claude", claude("Grep", {"pattern": "t", "path": ROOT},
                                    {"mode": "files_with_matches", "filenames": [DOC], "numFiles": 1})) == []
    assert records("claude", claude("Grep", {"pattern": "t", "path": ROOT, "output_mode": "count"},
                                    {"mode": "count", "content": f"{DOC}:3"})) == []
    assert records("claude", claude("Glob", {"pattern": "**/*.md"}, {"filenames": [DOC]})) == []


def test_cursor_and_omp_search_tools_do_not_count() -> None:
    assert records("cursor", {"conversation_id": "c", "cwd": ROOT, "tool_name": "Grep",
                              "tool_input": {"pattern": "t", "path": DOC}, "tool_output": "5:t"}) == []
    assert records("omp", {"session_id": "o", "cwd": ROOT, "tool_name": "grep", "tool_input": {"path": DOC},
                           "tool_response": f"{DOC}:5:t", "tool_status": "success"}) == []


def test_a_failed_call_gives_nothing() -> None:
    payload = claude("Read", {"file_path": DOC}, hook_event_name="PostToolUseFailure")
    assert records("claude", payload) == []
    assert records("claude", claude("Bash", {"command": "teamai recall x"}, {"stdout": START}),
                   "post-tool-use-failure") == []
    assert records("pi", {"session_id": "p", "cwd": ROOT, "tool_name": "read", "tool_input": {"path": DOC},
                          "tool_status": "failure"}) == []


def test_no_session_gives_nothing_but_a_link_still_records() -> None:
    assert records("claude", {"cwd": ROOT, "tool_name": "Read", "tool_input": {"file_path": DOC}}) == []
    lines = records("opencode", {"cwd": ROOT, "tool_name": "task", "session_link": {"child": "c", "parent": "p"}})
    assert [x["kind"] for x in lines] == ["link"]


def test_paths_outside_the_roots_or_not_markdown_give_nothing() -> None:
    assert records("claude", claude("Read", {"file_path": "/srv/other/x.md"})) == []
    assert records("claude", claude("Read", {"file_path": f"{ROOT}/learnings/x.txt"})) == []
    assert records("claude", claude("Bash", {"command": "cat $HOME/x.md"}, {"stdout": "t"})) == []


def test_a_relative_path_without_a_base_is_kept_for_the_suffix_match() -> None:
    payload = claude("Read", {"file_path": "team/learnings/redis-timeout.md"})
    del payload["cwd"]
    (line,) = records("claude", payload)
    assert (line["path"], line["exact"]) == ("team/learnings/redis-timeout.md", False)


def test_one_line_per_file_even_if_named_twice() -> None:
    lines = records("claude", claude("Bash", {"command": f"cat {DOC} learnings/redis-timeout.md docs/a.md"},
                                     {"stdout": "t"}))
    assert [x["path"] for x in lines] == [DOC, f"{ROOT}/docs/a.md"]


def test_every_run_id_printed_by_a_recall_is_claimed() -> None:
    out = START + f'No matching learnings found for "x". run={RUN2}\n'
    lines = records("codex", codex("teamai recall a; teamai recall x", out))
    assert [(x["kind"], x["run"], x["session"]) for x in lines] == [("claim", RUN, "ses-b"), ("claim", RUN2, "ses-b")]


def test_dans_outer_shell_quoting_recall_gets_no_claim() -> None:
    outer = claude("Bash", {"command": 'codex exec "run teamai recall redis timeout and return its stdout"'},
                   {"stdout": START})
    assert records("claude", outer) == []
    inner = codex("teamai recall redis timeout", START)
    assert [x["session"] for x in records("codex", inner)] == ["ses-b"]


def test_unknown_tools_never_count() -> None:
    assert records("claude", claude("Write", {"file_path": DOC})) == []
    assert records("claude", claude("mcp__fs__read_file", {"path": DOC})) == []


def test_lines_hold_no_command_no_output_and_no_content(tmp_path: Path) -> None:
    secret = "zebra-quartz-query"
    root, doc = real_team(tmp_path, f"---\ntitle: T\n---\n{secret}\n")
    cases = [
        ("claude", claude("Bash", {"command": f"teamai recall {secret}"}, {"stdout": START + secret})),
        ("claude", claude("Read", {"file_path": doc}, {"type": "text", "file": {"content": secret}})),
        ("claude", claude("Bash", {"command": f"grep -n {secret} {doc}"}, {"stdout": f"4:{secret}"})),
        ("codex", codex(f"sed -n 1p {doc} # {secret}", secret)),
    ]
    for agent, payload in cases:
        lines = records(agent, {**payload, "cwd": root}, root=root)
        assert lines, payload
        assert secret not in json.dumps(lines)


@pytest.mark.parametrize("agent", ["claude", "codex", "cursor", "copilot", "codebuddy", "qoder", "workbuddy",
                                   "opencode", "pi", "omp"])
def test_notes_explain_every_call(agent: str) -> None:
    call = ToolCall(agent=agent, event="post-tool-use", session="s", actor={}, tool="Bash", category="shell",
                    command="ls learnings", output="redis-timeout.md", status="success", cwd=ROOT)
    outcome = classify.classify(call, (ROOT,), TS)
    assert outcome.records == []
    assert any("lists file names" in n for n in outcome.notes)
    assert any("does not invoke teamai recall" in n for n in outcome.notes)
