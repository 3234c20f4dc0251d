"""``hook-dispatch`` end to end, in-process through the same entry point as the command line: what it
appends, what it ignores, and that nothing a payload does makes it fail."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reference.hook import dispatch
from reference.state import runlog, storage
from reference.team import config

from ._support import ROOT, Cli

AGENTS = dispatch.AGENTS


def scope(cli: Cli) -> config.Scope:
    return config.load(cli.env).active


def log_lines(cli: Cli) -> list[dict[str, Any]]:
    path = Path(scope(cli).log_path)
    if not path.exists():
        return []
    lines = path.read_bytes().split(b"\n")
    assert lines[-1] == b"", "the log must end with a newline"
    out = []
    for raw in lines[:-1]:
        rec = json.loads(raw)
        assert isinstance(rec, dict) and rec["kind"] in runlog.KINDS and isinstance(rec["ts"], str)
        out.append(rec)
    return out


def debug_text(path: str) -> str:
    p = Path(path)
    return p.read_text() if p.exists() else ""


def read_payload(cli: Cli, **extra: Any) -> bytes:
    doc = str(Path(cli.env["TEAMAI_TEAM"]).resolve() / "learnings" / "redis-timeout.md")
    return json.dumps({"session_id": "ses-1", "cwd": "/", "tool_name": "Read", "tool_input": {"file_path": doc},
                       "tool_response": {}, **extra}).encode()


def hook(cli: Cli, event: str, agent: str, payload: bytes, *extra: str, env: dict[str, str] | None = None) -> None:
    result = cli("hook-dispatch", event, "--tool", agent, *extra, stdin=payload, env=env)
    assert result.code == 0
    assert result.out == ""
    assert result.err == ""


def test_a_read_is_appended_to_the_active_scope_log(cli: Cli) -> None:
    hook(cli, "post-tool-use", "claude", read_payload(cli), "--matcher", "Read")
    (line,) = log_lines(cli)
    assert line["kind"] == "evidence" and line["session"] == "ses-1" and line["exact"] is True


@pytest.mark.parametrize("event", ["post-tool-use", "PostToolUse", "postToolUse", "post_tool_use"])
def test_event_spellings(cli: Cli, event: str) -> None:
    hook(cli, event, "claude", read_payload(cli))
    assert len(log_lines(cli)) == 1


@pytest.mark.parametrize("event", ["PostToolUseFailure", "postToolUseFailure", "post-tool-use-failure"])
def test_failure_events_record_nothing(cli: Cli, event: str) -> None:
    hook(cli, event, "claude", read_payload(cli))
    assert log_lines(cli) == []


@pytest.mark.parametrize("event", ["session-start", "SessionStart", "sessionStart", "prompt-submit", "pre-tool-use",
                                   "UserPromptSubmit", "", "session-end"])
def test_other_events_record_nothing(cli: Cli, event: str) -> None:
    hook(cli, event, "claude", read_payload(cli))
    assert log_lines(cli) == []


def test_tool_given_with_equals(cli: Cli) -> None:
    result = cli("hook-dispatch", "post-tool-use", "--tool=CLAUDE", stdin=read_payload(cli))
    assert result.code == 0 and len(log_lines(cli)) == 1


def test_the_timestamp_comes_from_the_one_clock(cli: Cli) -> None:
    hook(cli, "post-tool-use", "claude", read_payload(cli), env={"TEAMAI_NOW": "2026-11-30T10:00:00Z"})
    assert log_lines(cli)[0]["ts"] == "2026-11-30T10:00:00.000Z"


def test_disabled_records_nothing(cli: Cli) -> None:
    hook(cli, "post-tool-use", "claude", read_payload(cli), env={"TEAMAI_RECALL_DISABLED": "1"})
    assert not Path(scope(cli).log_path).exists()


def test_no_team_configured_is_noted_under_the_home(cli: Cli, home: Path) -> None:
    result = cli("hook-dispatch", "post-tool-use", "--tool", "claude", stdin=read_payload(cli),
                 env={"TEAMAI_TEAM": "", "TEAMAI_USER_TEAM": ""})
    assert result.code == 0 and result.out == ""
    text = debug_text(str(home / "hook-debug.log"))
    assert "agent=claude event=post-tool-use no team configured" in text


@pytest.mark.parametrize(("payload", "reason"), [
    (b"not json at all {", "payload is not JSON"),
    (b"[1, 2]", "payload is a JSON list, not an object"),
    (b"", "empty payload"),
    (b"\xff\xfe\x00garbage", "payload is not JSON"),
    (b"[" * 100000, "payload is not JSON"),
])
def test_bad_payloads_are_noted_without_their_content(cli: Cli, payload: bytes, reason: str) -> None:
    hook(cli, "post-tool-use", "codex", payload)
    text = debug_text(scope(cli).debug_log_path)
    assert reason in text
    assert "garbage" not in text and "at all" not in text
    assert log_lines(cli) == []


def test_a_huge_payload_is_ignored(cli: Cli) -> None:
    filler = "x" * (dispatch.MAX_PAYLOAD + 10)
    hook(cli, "post-tool-use", "claude", read_payload(cli, filler=filler))
    assert log_lines(cli) == []
    assert "larger than" in debug_text(scope(cli).debug_log_path)


def test_an_unknown_agent_is_noted(cli: Cli) -> None:
    hook(cli, "post-tool-use", "nonesuch", read_payload(cli))
    assert log_lines(cli) == []
    assert "agent=nonesuch event=post-tool-use unknown agent" in debug_text(scope(cli).debug_log_path)


def test_a_bad_clock_is_noted(cli: Cli) -> None:
    hook(cli, "post-tool-use", "claude", read_payload(cli), env={"TEAMAI_NOW": "yesterday"})
    assert log_lines(cli) == []
    assert "TEAMAI_NOW" in debug_text(scope(cli).debug_log_path)


def test_a_busy_log_loses_nothing_the_call_waits_in_the_spool(cli: Cli) -> None:
    """(It used to drop the call and say so; tests/hook/test_lock_spool.py has the whole rule.)"""
    hook(cli, "post-tool-use", "claude", read_payload(cli))
    s = scope(cli)
    with storage.locked(s.log_lock, "the recall log", 1.0):
        hook(cli, "post-tool-use", "claude", read_payload(cli), env={"TEAMAI_LOCK_WAIT": "0.05"})
    assert len(log_lines(cli)) == 1 and "stayed locked" not in debug_text(s.debug_log_path)
    hook(cli, "post-tool-use", "claude", read_payload(cli))  # the next writer folds the spool in
    assert len(log_lines(cli)) == 3


def test_invalid_unicode_in_a_payload_writes_nothing(cli: Cli) -> None:
    payload = read_payload(cli).replace(b'"ses-1"', b'"ses-\\ud800"')
    hook(cli, "post-tool-use", "claude", payload)
    assert log_lines(cli) == []
    assert "not valid Unicode" in debug_text(scope(cli).debug_log_path)


def test_an_absurdly_long_session_id_is_ignored(cli: Cli) -> None:
    hook(cli, "post-tool-use", "claude", read_payload(cli, session_id="s" * 10000))
    assert log_lines(cli) == []


# --- the reducer at Stop ------------------------------------------------------------------------

@pytest.mark.parametrize("event", ["stop", "Stop", "subagent-stop", "SubagentStop", "subagentStop"])
def test_stop_events_run_the_reducer(cli: Cli, monkeypatch: pytest.MonkeyPatch, event: str) -> None:
    from reference import reducer

    seen: list[tuple[str, str | None]] = []
    monkeypatch.setattr(reducer, "reduce", lambda cfg, warn, session: seen.append((cfg.active.name, session)))
    hook(cli, event, "claude", b'{"session_id": "s", "hook_event_name": "Stop"}')
    assert seen == [("workspace", "s")]


def test_a_stop_without_a_readable_session_reduces_every_session(cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    from reference import reducer

    seen: list[str | None] = []
    monkeypatch.setattr(reducer, "reduce", lambda cfg, warn, session: seen.append(session))
    hook(cli, "stop", "claude", b"not json")
    hook(cli, "stop", "claude", b'{"hook_event_name": "Stop"}')
    assert seen == [None, None]


def test_a_failing_reducer_is_only_noted(cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    from reference import reducer

    def boom(cfg: object, warn: object, session: object) -> None:
        raise RuntimeError("inside")

    monkeypatch.setattr(reducer, "reduce", boom)
    hook(cli, "stop", "claude", b"{}")
    assert "reducer failed: RuntimeError" in debug_text(scope(cli).debug_log_path)


def test_a_missing_reducer_is_only_noted(cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    import reference

    monkeypatch.delattr(reference, "reducer", raising=False)
    monkeypatch.setitem(sys.modules, "reference.reducer", None)  # type: ignore[arg-type]
    hook(cli, "stop", "claude", b"{}")
    assert "the reducer is not available" in debug_text(scope(cli).debug_log_path)


def test_recall_claim_read_and_stop_end_to_end(cli: Cli) -> None:
    env = {"TEAMAI_NOW": "2026-11-30T10:00:00Z"}
    out = cli("recall", "redis", "timeout", env=env).out
    run = next(r for r in log_lines(cli) if r["kind"] == "run")
    claim = {"session_id": "ses-1", "cwd": "/", "tool_name": "Bash",
             "tool_input": {"command": "teamai recall redis timeout"}, "tool_response": {"stdout": out}}
    hook(cli, "post-tool-use", "claude", json.dumps(claim).encode(), env={"TEAMAI_NOW": "2026-11-30T10:00:05Z"})
    hook(cli, "post-tool-use", "claude", read_payload(cli), env={"TEAMAI_NOW": "2026-11-30T10:00:10Z"})
    hook(cli, "stop", "claude", b'{"session_id": "ses-1"}', env={"TEAMAI_NOW": "2026-11-30T10:00:20Z"})
    kinds = [r["kind"] for r in log_lines(cli)]
    assert kinds[:3] == ["run", "claim", "evidence"]
    claim_line = log_lines(cli)[1]
    assert claim_line["run"] == run["run"] and claim_line["session"] == "ses-1"
    assert "consumed" in kinds


# --- nothing breaks it ----------------------------------------------------------------------------

_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=12,
)
_KEYS = ["session_id", "conversation_id", "sessionId", "cwd", "tool_name", "toolName", "tool_input", "toolArgs",
         "tool_response", "tool_output", "toolResult", "tool_status", "session_link", "agent_id", "agent_type",
         "agent", "hook_event_name", "hookEventName", "workspace_roots", "metadata", "error"]
_shaped = st.dictionaries(st.sampled_from(_KEYS), _json | st.sampled_from(
    ["Read", "Bash", "Grep", "read", "bash", "task", "Shell", "view", "PostToolUseFailure", "success", "failure",
     "/", "cat /x.md", '{"command": "cat a.md"}']), max_size=10)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sampled_from(AGENTS), st.sampled_from(["post-tool-use", "PostToolUseFailure", "stop", "session-start"]),
       _json | _shaped)
def test_arbitrary_json_never_breaks_the_hook(cli: Cli, agent: str, event: str, payload: object) -> None:
    hook(cli, event, agent, json.dumps(payload).encode())
    log_lines(cli)  # every line parses
    nothing_swallowed(cli)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sampled_from(AGENTS), st.binary(max_size=200))
def test_arbitrary_bytes_never_break_the_hook(cli: Cli, agent: str, payload: bytes) -> None:
    hook(cli, "post-tool-use", agent, payload)
    log_lines(cli)
    nothing_swallowed(cli)


def nothing_swallowed(cli: Cli) -> None:
    """Exit 0 and no output is what a hook that raised on every call gives too: the debug log must
    hold only decisions about the payload, no error the hook caught without expecting it."""
    text = debug_text(scope(cli).debug_log_path) + debug_text(str(Path(cli.env["TEAMAI_HOME"]) / "hook-debug.log"))
    assert "unexpected " not in text and "Traceback" not in text, text[-2000:]


def test_an_error_the_hook_did_not_expect_is_seen_by_the_checks(cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    """The check above catches a hook that raises on every call, wherever it raises."""
    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("broken")

    for where in ("_dispatch", "parse_args"):
        with monkeypatch.context() as m:
            m.setattr(dispatch, where, broken)
            hook(cli, "post-tool-use", "claude", read_payload(cli))
        with pytest.raises(AssertionError):
            nothing_swallowed(cli)
        Path(scope(cli).debug_log_path).unlink(missing_ok=True)
        (Path(cli.env["TEAMAI_HOME"]) / "hook-debug.log").unlink(missing_ok=True)


# --- what a person running it by hand meets -------------------------------------------------------

@pytest.mark.parametrize("event", ["prompt-submit", "UserPromptSubmit", "pre-tool-use", "session-end"])
def test_an_unknown_event_is_noted_without_payload_text(cli: Cli, event: str) -> None:
    hook(cli, event, "claude", read_payload(cli, secret="do-not-log-me"))
    text = debug_text(scope(cli).debug_log_path)
    assert f"agent=claude event={event} unknown event: ignored" in text
    assert "do-not-log-me" not in text and "redis" not in text


def test_a_missing_event_is_noted(cli: Cli) -> None:
    hook(cli, "", "claude", read_payload(cli))
    assert "no event given: ignored" in debug_text(scope(cli).debug_log_path)


@pytest.mark.parametrize("event", ["stop", "subagent-stop", "session-start"])
def test_an_unknown_agent_is_noted_at_every_event(cli: Cli, event: str) -> None:
    hook(cli, event, "nonesuch", b'{"session_id": "ses-1"}')
    assert f"agent=nonesuch event={event} unknown agent" in debug_text(scope(cli).debug_log_path)


def test_known_events_that_record_nothing_are_not_noted(cli: Cli) -> None:
    for event in ("session-start", "PostToolUseFailure"):
        hook(cli, event, "claude", read_payload(cli))
    assert debug_text(scope(cli).debug_log_path) == ""


@pytest.mark.parametrize("form", ["separate", "equals"])
def test_team_flags_choose_the_scope(cli: Cli, tmp_path: Path, form: str) -> None:
    team = cli.env["TEAMAI_TEAM"]
    env = {"TEAMAI_TEAM": "", "TEAMAI_USER_TEAM": ""}
    flags = ["--team", team] if form == "separate" else [f"--team={team}"]
    result = cli("hook-dispatch", "post-tool-use", "--tool", "claude", *flags, stdin=read_payload(cli), env=env)
    assert (result.code, result.out, result.err) == (0, "", "")
    assert [r["kind"] for r in log_lines(cli)] == ["evidence"]


def test_user_team_flag_makes_the_user_scope_active(cli: Cli) -> None:
    team = cli.env["TEAMAI_TEAM"]
    result = cli("hook-dispatch", "post-tool-use", "--tool", "claude", "--user-team", team,
                 stdin=read_payload(cli), env={"TEAMAI_TEAM": "", "TEAMAI_USER_TEAM": ""})
    assert result.code == 0
    user = config.load({**cli.env, "TEAMAI_TEAM": ""}, None, team).active
    assert user.name == config.USER
    assert Path(user.log_path).exists()


@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_help_says_how_to_call_it(cli: Cli, flag: str) -> None:
    result = cli("hook-dispatch", flag, stdin=read_payload(cli))
    assert result.code == 0 and result.err == ""
    assert result.out.startswith("usage: teamai-ref hook-dispatch EVENT --tool AGENT")
    for word in ("--team", "--user-team", "--payload-file", "hook-debug.log", "claude", "post-tool-use"):
        assert word in result.out, word
    assert log_lines(cli) == []


def _corpus_file(cli: Cli, tmp_path: Path, name: str = "post-tool-use-read") -> Path:
    from ._support import ROOT

    corpus = json.loads((ROOT / "payloads" / "claude" / f"{name}.json").read_text())
    corpus["payload"]["tool_input"]["file_path"] = str(Path(cli.env["TEAMAI_TEAM"]).resolve() / "learnings"
                                                       / "redis-timeout.md")
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(corpus))
    return path


def test_payload_file_in_the_corpus_form_takes_agent_and_event_from_the_file(cli: Cli, tmp_path: Path) -> None:
    path = _corpus_file(cli, tmp_path)
    result = cli("hook-dispatch", "--payload-file", str(path))
    (line,) = log_lines(cli)
    assert line["kind"] == "evidence" and line["agent"] == "claude"
    # a person ran it: it says what it recorded, on stderr (the exit code stays 0)
    assert (result.code, result.out) == (0, "") and result.err.startswith("teamai-ref hook-dispatch: recorded evidence in ")


def test_a_payload_file_that_records_nothing_says_why(cli: Cli) -> None:
    corpus = ROOT / "payloads" / "claude" / "post-tool-use-read.json"  # its doc is outside the test's team
    result = cli("hook-dispatch", "--payload-file", str(corpus))
    assert (result.code, result.out) == (0, "") and log_lines(cli) == []
    assert result.err.startswith("teamai-ref hook-dispatch: recorded nothing: ")
    assert f"teamai-ref replay {corpus} gives every decision" in result.err


def test_payload_file_raw_and_the_command_line_wins(cli: Cli, tmp_path: Path) -> None:
    raw = tmp_path / "raw.json"
    raw.write_bytes(read_payload(cli))
    assert cli("hook-dispatch", "post-tool-use", "--tool", "claude", "--payload-file", str(raw)).code == 0
    corpus = _corpus_file(cli, tmp_path)
    assert cli("hook-dispatch", "post-tool-use-failure", "--payload-file", str(corpus)).code == 0
    assert [r["kind"] for r in log_lines(cli)] == ["evidence"]  # the failure event records nothing


@pytest.mark.parametrize(("content", "reason"), [
    (None, "cannot be read"),
    (b"{not json", "payload is not JSON"),
    (b'{"provenance": {}, "payload": {"session_id": "s"}}', "names no agent: pass --tool"),
])
def test_payload_file_problems_are_said_once_and_exit_0(cli: Cli, tmp_path: Path, content: bytes | None,
                                                         reason: str) -> None:
    path = tmp_path / "payload.json"
    if content is not None:
        path.write_bytes(content)
    result = cli("hook-dispatch", "--payload-file", str(path))
    assert result.code == 0 and result.out == ""
    assert len(result.err.splitlines()) == 1 and reason in result.err, result.err
    assert reason in debug_text(scope(cli).debug_log_path) or content is None
    assert log_lines(cli) == []


def test_the_corpus_form_on_stdin_is_noted_not_recorded(cli: Cli, tmp_path: Path) -> None:
    path = _corpus_file(cli, tmp_path)
    hook(cli, "post-tool-use", "claude", path.read_bytes())
    assert log_lines(cli) == []
    assert "the corpus form" in debug_text(scope(cli).debug_log_path)
    assert "--payload-file" in debug_text(scope(cli).debug_log_path)
