"""``teamai-ref capture``: each payload is recorded in its session's file and then handled as the
hook would handle it; nothing about the capture can fail or hold up the agent."""

from __future__ import annotations

import io
import json
import os
import sys
import time
from pathlib import Path

from reference.capture import store
from reference.cli import run
from reference.state import storage
from reference.streams import Io

from .conftest import ROOT, Machine, corpus_payload

SESSION = "3f6c2a9e-8b41-4d2a-9a57-1c0e5b7d2f10"


def read_payload(machine: Machine) -> dict:
    payload = corpus_payload("claude/post-tool-use-read")
    payload.update({"cwd": str(machine.project), "transcript_path": str(machine.home / ".claude" / "t.jsonl")})
    payload["tool_input"]["file_path"] = machine.doc()
    payload["tool_response"]["file"]["filePath"] = machine.doc()
    return payload


def test_a_real_hook_process_records_the_payload_and_the_hook_still_runs(machine: Machine):
    code, out, err = machine.capture("post-tool-use", "--tool", "claude", "--out", str(machine.out),
                                     payload=read_payload(machine), subprocess_=True)
    assert (code, out) == (0, ""), err
    files = sorted(p.name for p in machine.out.glob("*.jsonl"))
    assert files == [f"claude-{SESSION}.jsonl"]
    [line] = machine.lines()
    assert line["ts"] == "2026-11-30T10:00:00.000Z"
    assert (line["agent"], line["event"], line["event_name"], line["session"]) == (
        "claude", "post-tool-use", "post-tool-use", SESSION)
    assert line["scrubbed"] is True
    assert line["roots"] == {"team": "/home/user/proj/team", "learnings": ["/home/user/proj/team/learnings"],
                             "user_team": None}
    assert line["payload"]["tool_input"]["file_path"] == "/home/user/proj/team/learnings/redis-timeout.md"
    assert line["payload"]["tool_response"]["file"]["content"].count("[scrubbed]") == 5
    [evidence] = [x for x in machine.log() if x["kind"] == "evidence"]
    assert (evidence["ts"], evidence["path"], evidence["session"]) == (line["ts"], machine.doc(), SESSION)
    assert oct(os.stat(machine.out / files[0]).st_mode & 0o777) == "0o600"


def test_the_default_folder_is_beside_the_state_home_never_in_it(machine: Machine):
    """The spec keeps the query out of local state. A captured recall call holds its command line,
    query and all, so by default captures go to ``teamai-ref-captures`` in the user's home folder,
    and nothing in the state home holds the query afterwards."""
    query = "zebra-quagga-invoice-retries"
    payload = corpus_payload("claude/post-tool-use-shell-recall")
    payload["tool_input"]["command"] = f'teamai recall "{query}"'
    assert machine.capture("post-tool-use", "--tool", "claude", payload=payload)[0] == 0
    assert machine.capture("post-tool-use", "--tool", "claude", payload=read_payload(machine))[0] == 0
    folder = machine.home / "teamai-ref-captures"
    assert [p.name for p in folder.glob("*.jsonl")] == [f"claude-{SESSION}.jsonl"]
    assert query in (folder / f"claude-{SESSION}.jsonl").read_text(encoding="utf-8")
    assert not (machine.state / "captures").exists()
    for path in machine.state.rglob("*"):
        if path.is_file():
            assert query.encode() not in path.read_bytes(), path


def test_one_file_per_session_and_a_dated_file_without_one(machine: Machine):
    stop = corpus_payload("claude/stop")
    odd = dict(stop, session_id="../../etc/passwd")
    nameless = {k: v for k, v in stop.items() if k != "session_id"}
    for payload in (stop, odd, nameless, read_payload(machine)):
        assert machine.capture("stop", "--tool", "claude", "--out", str(machine.out), payload=payload)[0] == 0
    names = sorted(p.name for p in machine.out.glob("*.jsonl"))
    hashed = store.file_name("claude", "../../etc/passwd", "x")
    assert hashed.startswith("claude-") and "/" not in hashed and len(hashed) == len("claude-") + 16 + len(".jsonl")
    assert names == sorted([f"claude-{SESSION}.jsonl", hashed, "claude-no-session-2026-11-30.jsonl"])
    assert len((machine.out / f"claude-{SESSION}.jsonl").read_text().splitlines()) == 2


def test_the_inner_command_gets_the_payload_and_its_answer_is_the_agents(machine: Machine, tmp_path: Path):
    seen = tmp_path / "seen.json"
    script = ("import sys; data = sys.stdin.buffer.read(); open(sys.argv[1], 'wb').write(data); "
              "sys.stdout.write('{\"decision\": \"block\"}'); sys.stderr.write('inner says no'); sys.exit(2)")
    payload = read_payload(machine)
    raw = json.dumps(payload, indent=1).encode()
    code, out, err = machine.capture("PostToolUse", "--tool", "claude", "--out", str(machine.out), "--",
                                     sys.executable, "-c", script, str(seen), payload=raw, subprocess_=True)
    assert (code, out, err) == (2, '{"decision": "block"}', "inner says no")
    assert seen.read_bytes() == raw
    [line] = machine.lines()
    assert (line["event"], line["event_name"]) == ("post-tool-use", "PostToolUse")
    assert not [x for x in machine.log() if x["kind"] == "evidence"], "the inner command replaced hook-dispatch"


def test_an_inner_command_that_cannot_start_still_leaves_the_agent_alone(machine: Machine):
    code, _out, err = machine.capture("stop", "--tool", "codex", "--out", str(machine.out), "--",
                                      str(machine.home / "no-such-hook"), payload=corpus_payload("codex/stop"))
    assert code == 0 and "cannot run" in err
    assert len(machine.lines()) == 1
    assert "the inner command could not be run" in machine.debug()


def test_a_busy_folder_drops_the_capture_quickly_with_a_debug_line(machine: Machine):
    machine.out.mkdir()
    with storage.locked(str(machine.out / store.LOCK), "test", 0):
        started = time.monotonic()
        code, _out, err = machine.capture("post-tool-use", "--tool", "claude", "--out", str(machine.out),
                                          payload=read_payload(machine), env={"TEAMAI_LOCK_WAIT": "0.3"},
                                          subprocess_=True)
        waited = time.monotonic() - started
    assert code == 0 and err == ""
    assert waited < 30  # a bound, not a timing: the wait itself is capped at store.MAX_WAIT
    assert machine.lines() == []
    assert "capture dropped: the capture folder stayed locked" in machine.debug()
    assert [x["kind"] for x in machine.log()] == ["evidence"], "the hook still ran"


def test_the_lock_wait_is_capped_for_a_capture(machine: Machine, monkeypatch):
    waits: list[float] = []
    real = storage.locked

    def spy(path, what, wait=storage.DEFAULT_LOCK_WAIT):
        waits.append(wait)
        return real(path, what, wait)

    monkeypatch.setattr(store, "locked", spy)
    machine.capture("post-tool-use", "--tool", "claude", "--out", str(machine.out), payload=read_payload(machine),
                    env={"TEAMAI_LOCK_WAIT": "30"})
    assert waits == [store.MAX_WAIT]


def test_an_unwritable_folder_drops_the_capture(machine: Machine):
    machine.out.parent.mkdir(parents=True, exist_ok=True)
    machine.out.write_text("a file, not a folder")
    code, _out, err = machine.capture("post-tool-use", "--tool", "claude", "--out", str(machine.out),
                                      payload=read_payload(machine))
    assert (code, err) == (0, "")
    assert "capture dropped: the capture folder cannot be written" in machine.debug()
    assert [x["kind"] for x in machine.log()] == ["evidence"]


def test_a_payload_that_is_not_json_is_noted_without_its_text(machine: Machine):
    code, _out, _err = machine.capture("post-tool-use", "--tool", "claude", "--out", str(machine.out),
                                       payload=b"password=hunter2 {not json")
    assert code == 0
    [line] = machine.lines()
    assert line["payload"] is None and line["problem"] == "not a JSON object"
    assert "hunter2" not in (machine.out / "claude-no-session-2026-11-30.jsonl").read_text()
    assert "payload is not JSON" in machine.debug()


def test_a_bad_command_line_records_nothing_and_still_passes_the_payload_on(machine: Machine, tmp_path: Path):
    seen = tmp_path / "seen"
    code, _out, err = machine.capture("post-tool-use", "--out", str(machine.out), "--", sys.executable, "-c",
                                      f"import sys; open({str(seen)!r}, 'wb').write(sys.stdin.buffer.read())",
                                      payload=read_payload(machine))
    assert code == 0 and "--tool" in err
    assert seen.read_bytes() == json.dumps(read_payload(machine)).encode()
    assert machine.lines() == [] and "capture: bad command line" in machine.debug()
    assert machine.capture("post-tool-use", "--bogus", payload=read_payload(machine))[0] == 0


def test_keep_stores_the_payload_as_sent_and_says_so(machine: Machine):
    payload = read_payload(machine)
    code, _out, err = machine.capture("post-tool-use", "--tool", "claude", "--out", str(machine.out), "--keep",
                                      payload=payload)
    assert code == 0
    assert "--keep" in err and "file contents" in err and "secrets" in err and str(machine.out) in err
    [line] = machine.lines()
    assert line["scrubbed"] is False and line["payload"] == payload
    assert line["roots"]["team"] == str(machine.team)


def test_the_agent_version_comes_from_the_payload_the_environment_or_the_flag(machine: Machine):
    cursor = corpus_payload("cursor/stop")
    machine.capture("stop", "--tool", "cursor", "--out", str(machine.out), payload=cursor)
    machine.capture("stop", "--tool", "cursor", "--out", str(machine.out),
                    payload={k: v for k, v in cursor.items() if k != "cursor_version"}, env={"CURSOR_VERSION": "3.2.0"})
    machine.capture("stop", "--tool", "claude", "--out", str(machine.out), "--agent-version", "2.1.160",
                    payload=corpus_payload("claude/stop"))
    machine.capture("stop", "--tool", "codex", "--out", str(machine.out), payload=corpus_payload("codex/stop"))
    versions = sorted((x["agent"], x["agent_version"] or "") for x in machine.lines())
    assert versions == [("claude", "2.1.160"), ("codex", ""), ("cursor", "3.1.10"), ("cursor", "3.2.0")]


def test_the_hook_sees_the_capture_instant_without_teamai_now(machine: Machine):
    env = {k: v for k, v in machine.env.items() if k != "TEAMAI_NOW"}
    out, err = io.StringIO(), io.StringIO()
    payload = json.dumps(read_payload(machine)).encode()
    assert run(["capture", "post-tool-use", "--tool", "claude", "--out", str(machine.out)],
               Io(env, io.BytesIO(payload), out, err)) == 0
    [line] = machine.lines()
    [evidence] = machine.log()
    assert evidence["ts"] == line["ts"]


def test_hook_command_prints_a_capture_line_that_works(machine: Machine):
    import shlex
    import subprocess

    out = io.StringIO()
    assert run(["hook-command", "stop", "--tool", "codex", "--capture"], Io(machine.env, io.BytesIO(), out,
                                                                              io.StringIO())) == 0
    argv = shlex.split(out.getvalue())
    assert argv[0] == sys.executable and argv[-4:] == ["capture", "stop", "--tool", "codex"]
    proc = subprocess.run(argv + ["--out", str(machine.out)], input=json.dumps(corpus_payload("codex/stop")).encode(),
                          capture_output=True, env=machine.env, cwd=machine.home, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert [x["agent"] for x in machine.lines()] == ["codex"]


def test_help_names_the_command(capsys):
    out = io.StringIO()
    assert run(["--help"], Io({}, io.BytesIO(), out, io.StringIO())) == 0
    assert "capture" in out.getvalue()
    assert capsys.readouterr().out == ""  # help is the command's output, not the process's
    assert ROOT.joinpath("docs", "adapter-authors.md").read_text().count("teamai-ref capture") >= 3


def test_team_flag_and_oversized_payloads(machine: Machine, tmp_path: Path):
    other = tmp_path / "home" / "alice" / "other-team"
    other.mkdir()
    env = {"TEAMAI_TEAM": ""}
    assert machine.capture("stop", "--tool", "claude", "--out", str(machine.out), "--team", str(other),
                           payload=corpus_payload("claude/stop"), env=env)[0] == 0
    big = read_payload(machine)
    big["tool_response"]["file"]["content"] = "x" * (9 * 1024 * 1024)
    assert machine.capture("post-tool-use", "--tool", "claude", "--out", str(machine.out), payload=big)[0] == 0
    first, second = machine.lines()
    assert first["roots"]["team"] == "/home/user/other-team"
    assert second["payload"] is None and second["problem"].startswith("larger than")
    [debug] = machine.state.rglob("hook-debug.log")  # the capture's line and the hook's, in one debug log
    assert "capture: the payload is larger than" in debug.read_text()
    assert "payload larger than" in debug.read_text()
