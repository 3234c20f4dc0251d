"""The scrubber: nothing private reaches a capture, the payload keeps its shape, and the reference
decides the same for the scrubbed payload as for the one the agent sent."""

from __future__ import annotations

import base64
import copy
import io
import json
import string
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conformance.corpus.recorded_shapes import key_paths
from reference.capture.scrub import EMAIL, HOME, LINE, SECRET, SHOWN, Scrubber
from reference.cli import run
from reference.streams import Io

from .conftest import ROOT, Machine, corpus_payload

ALNUM = string.ascii_letters + string.digits
RUN = "5f0c2e1a-9b7d-4c1e-8a54-2f6d0b3e9c71"


def _token(prefix: str, size: int, alphabet: str = ALNUM) -> st.SearchStrategy[str]:
    return st.text(alphabet=alphabet, min_size=size, max_size=size + 12).map(lambda s: prefix + s)


def _b64(urlsafe: bool) -> st.SearchStrategy[str]:
    encode = base64.urlsafe_b64encode if urlsafe else base64.b64encode
    return (st.binary(min_size=24, max_size=48).filter(lambda b: len(set(b)) >= 12)
            .map(lambda b: encode(b).decode().rstrip("=")))


# Secrets recognisable by their form wherever they stand, even as a bare word of a command line.
BARE_SECRETS = st.one_of(
    _token("sk-", 24), _token("sk-ant-api03-", 32, ALNUM + "-_"), _token("ghp_", 36), _token("github_pat_", 40),
    _token("AKIA", 16, string.ascii_uppercase + string.digits).map(lambda s: s[:20]), _token("AIza", 35, ALNUM + "-_"),
    _token("xoxb-", 24, string.digits + "-"), _token("glpat-", 20),
    st.tuples(_token("eyJ", 12), _token("", 16), _token("", 16)).map(".".join),
    st.text(alphabet="0123456789abcdef", min_size=32, max_size=64), _b64(urlsafe=True),
    st.tuples(st.from_regex(r"\A[a-z][a-z0-9.]{2,10}\Z"), st.from_regex(r"\A[a-z]{3,10}\.(com|io|dev)\Z"))
    .map("@".join),
)
# Secrets caught by their context: any value, even a short or slash-holding one.
ANY_SECRET = st.one_of(BARE_SECRETS, _b64(urlsafe=False), _token("", 10))
PRIVATE = st.from_regex(r"\Aprivate [a-z]{6,12} [a-z]{6,12} [0-9]{2,4}\Z")

SECRET_COMMANDS = [
    "export API_KEY={s} && cat learnings/redis-timeout.md",
    "curl -H 'Authorization: Bearer {s}' https://api.example.com/v1",
    "gh auth login --with-token --token {s}",
    "git clone https://bob:{s}@git.example.com/team.git",
    "GITHUB_TOKEN={s} npm publish",
    "mysql --password={s} -e 'select 1'",
]


def _contexted(secret: str, k: int) -> str:
    return SECRET_COMMANDS[k % len(SECRET_COMMANDS)].format(s=secret)


@st.composite
def leaky_session(draw: st.DrawFn) -> tuple[list[tuple[str, str, dict[str, Any]]], list[str], list[str]]:
    """Payloads of three agents stuffed with secrets and private text, as (agent, event, payload)."""
    secrets: list[str] = []
    private: list[str] = []

    def secret(bare: bool = True) -> str:
        value = draw(BARE_SECRETS if bare else ANY_SECRET)
        secrets.append(value)
        return value

    def text(lines: int = 3) -> str:
        out = []
        for _ in range(lines):
            line = draw(PRIVATE)
            private.append(line)
            out.append(line if draw(st.booleans()) else f"{line} {secret(bare=False)}")
        return "\n".join(out) + "\n"

    k = draw(st.integers(0, 100))
    bash = corpus_payload("claude/post-tool-use-shell-read")
    bash["tool_input"]["command"] = _contexted(secret(bare=False), k)
    bash["tool_input"]["description"] = text(1).strip()
    bash["tool_response"]["stdout"] = text(4)
    bash["tool_response"]["stderr"] = f"warning: token {secret()}\n"
    bare = corpus_payload("claude/post-tool-use-shell-read")
    bare["tool_input"]["command"] = f"echo {secret()} | cat learnings/redis-timeout.md"
    read = corpus_payload("claude/post-tool-use-read")
    read["tool_response"]["file"]["content"] = text(5)
    grep = corpus_payload("claude/post-tool-use-search-content")
    grep["tool_input"]["pattern"] = secret(bare=False)
    grep["tool_response"]["content"] = "".join(f"/home/ana/proj/team/learnings/x.md:{i}:{line}"
                                               for i, line in enumerate(text(3).splitlines(True), 1))
    prompt = {"session_id": bash["session_id"], "transcript_path": bash["transcript_path"], "cwd": bash["cwd"],
              "permission_mode": "default", "hook_event_name": "UserPromptSubmit",
              "prompt": text(2) + f"my key is {secret(bare=False)}",
              "tool_input": {"env": {"OPENAI_API_KEY": secret(bare=False), "DB_PASSWORD": secret(bare=False)}}}
    stop = corpus_payload("claude/stop")
    stop["last_assistant_message"] = text(2)
    codex = corpus_payload("codex/post-tool-use-shell-read")
    codex["tool_input"]["command"] = _contexted(secret(bare=False), k + 1)
    codex["tool_response"] = text(3)
    cursor = corpus_payload("cursor/post-tool-use-shell-read")
    cursor["user_email"] = secret()
    cursor["tool_input"]["command"] = f"cat learnings/redis-timeout.md # {secret()}"
    cursor["tool_output"] = json.dumps({"exitCode": 0, "stdout": text(3), "stderr": secret()})
    payloads = [("claude", "post-tool-use", p) for p in (bash, bare, read, grep)]
    payloads += [("claude", "user-prompt-submit", prompt), ("claude", "stop", stop),
                 ("codex", "post-tool-use", codex), ("cursor", "post-tool-use", cursor)]
    return payloads, secrets, private


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                 HealthCheck.too_slow])
@given(session=leaky_session())
def test_no_secret_or_private_text_reaches_the_capture(machine: Machine, session):
    payloads, secrets, private = session
    for path in machine.out.glob("*.jsonl"):
        path.unlink()
    for agent, event, payload in payloads:
        assert machine.capture(event, "--tool", agent, "--out", str(machine.out), payload=payload)[0] == 0
    stored = "".join(p.read_text(encoding="utf-8") for p in machine.out.glob("*.jsonl"))
    assert stored.count("\n") == len(payloads)
    for value in secrets + private:
        assert value not in stored, value
        assert json.dumps(value)[1:-1] not in stored, value
    assert SECRET in stored and LINE in stored


def test_a_real_capture_process_keeps_secrets_out(machine: Machine):
    payload = corpus_payload("claude/post-tool-use-shell-read")
    key = "sk-ant-api03-Zq8vN2xLp4Rt6Yw9Bc1Df3Gh5Jk7Mn0Pq"
    payload["tool_input"]["command"] = f"ANTHROPIC_API_KEY={key} cat {machine.doc()}"
    payload["tool_response"]["stdout"] = "the customer list for Q3\nalice@example.org owes 4000\n"
    code, _out, err = machine.capture("post-tool-use", "--tool", "claude", "--out", str(machine.out),
                                      payload=payload, subprocess_=True)
    assert code == 0, err
    stored = "".join(p.read_text() for p in machine.out.glob("*.jsonl"))
    for leak in (key, "customer list", "alice@example.org", str(machine.home)):
        assert leak not in stored
    [line] = machine.lines()
    assert line["payload"]["tool_input"]["command"] == (f"ANTHROPIC_API_KEY={SECRET} cat "
                                                        f"{HOME}/proj/team/learnings/redis-timeout.md")
    assert line["payload"]["tool_response"]["stdout"] == f"{LINE}\n{LINE}\n"


def test_what_a_rule_reads_is_kept_and_everything_else_keeps_its_lines():
    s = Scrubber("/home/alice", ["alice"])
    output = (f"--- [teamai:recall:start] --- (2 results) run={RUN}\n\n"
              "[1/2] [learnings] Redis client times out under load [workspace]\n"
              "Author: alice | Date: 2026-09-28 | Score: 3.8\n"
              "File: /home/alice/proj/team/learnings/redis-timeout.md\n\n--- [teamai:recall:end] ---\n")
    assert s.lines(output) == (f"--- [teamai:recall:start] --- (2 results) run={RUN}\n\n{LINE}\n{LINE}\n"
                               f"File: {HOME}/proj/team/learnings/redis-timeout.md\n\n{LINE}\n")
    assert s.lines(f'No matching learnings found for "alice\'s salary". run={RUN}\n') == (
        f'No matching learnings found for "{LINE}". run={RUN}\n')
    # Gemini CLI's run_shell_command shows the output behind "Stdout: ": recall's line keeps its label
    gemini = (f"Command: teamai recall \"alice's salary\"\nDirectory: (root)\n"
              f"Stdout: --- [teamai:recall:start] --- (1 result) run={RUN}\nStderr: (empty)\n")
    assert s.lines(gemini) == f"{LINE}\n{LINE}\nStdout: --- [teamai:recall:start] --- (1 result) run={RUN}\n{LINE}\n"
    grep = ("/home/alice/proj/team/learnings/a.md:12:the secret plan\n"
            "learnings/b.md-13-context text\n"
            "rules/c.md:no line number here\n"
            "7:single file hit\n"
            "\x1b[35mdocs/d.md\x1b[0m:\x1b[32m3\x1b[0m:colored\n"
            "just prose: with a colon\n")
    assert s.lines(grep) == (f"{HOME}/proj/team/learnings/a.md:12:{SHOWN}\nlearnings/b.md-13-{SHOWN}\n"
                             f"rules/c.md:{SHOWN}\n7:{SHOWN}\ndocs/d.md:3:{SHOWN}\n{LINE}\n")


def test_strings_holding_json_are_scrubbed_inside():
    s = Scrubber("/home/alice", ["alice"])
    scrubbed = s.value(json.dumps({"exitCode": 1, "stdout": f"--- [teamai:recall:start] --- (1 result) run={RUN}\n"
                                   "title line\n", "stderr": "boom"}), "tool_output")
    assert json.loads(scrubbed) == {"exitCode": 1, "stdout": f"--- [teamai:recall:start] --- (1 result) run={RUN}"
                                    f"\n{LINE}\n", "stderr": LINE}
    args = s.value(json.dumps({"path": "/home/alice/x.md", "token": "abc"}), "toolArgs")
    assert json.loads(args) == {"path": f"{HOME}/x.md", "token": SECRET}


def test_ids_paths_enums_and_numbers_are_kept_and_names_become_placeholders():
    s = Scrubber("/home/alice", ["alice"])
    payload = {"session_id": "alice-0a1b2c3d4e5f60718293a4b5c6d7e8f9", "agent_id": "afe90099f7baf1974",
               "cwd": "/home/alice/proj", "workspace_roots": ["/home/alice/proj"], "tool_name": "Bash",
               "permission_mode": "default", "duration_ms": 12, "interrupted": False, "transcript_path": None,
               "agent_transcript_path": "/home/alice/.claude/x.jsonl", "user_email": "alice@corp.example",
               "tool_input": {"command": "git log --author=alice -- /home/alice/proj/team/rules/x.md"}}
    assert s.payload(payload) == {
        **payload, "cwd": f"{HOME}/proj", "workspace_roots": [f"{HOME}/proj"], "agent_transcript_path": LINE,
        "user_email": EMAIL, "tool_input": {"command": f"git log --author={SECRET} -- {HOME}/proj/team/rules/x.md"}}


def test_a_secret_options_value_is_the_next_word_that_is_not_an_option():
    s = Scrubber("/home/alice", ["alice"])
    assert s.text("gh auth login --with-token --token ab/cdefgh") == f"gh auth login --with-token --token {SECRET}"


def test_a_secret_given_by_its_context_is_replaced_whatever_it_starts_with():
    s = Scrubber("/home/alice", ["alice"])
    blob = "/iG+u4WmHUjctTZDUT/dxAJCuS9r6Sk8f/lm6JevkWbaE+RwGb7tPVSS0/xskg1w"  # base64 may start with a slash
    assert s.text(f"gh auth login --token {blob}") == f"gh auth login --token {SECRET}"
    assert s.text(f"mysql --password={blob} -e 1") == f"mysql --password={SECRET} -e 1"
    header = s.text(f"curl -H 'Authorization: Bearer {blob}'")
    assert blob[1:9] not in header and header.endswith(f"{SECRET}'")
    url = s.text(f"git clone https://bob:{blob}@git.example.com/team.git")
    assert not any(piece in url for piece in blob.split("/") if piece), url
    for kept in ("tool --token-file /etc/team/token.txt", "tool --password-path ./secrets/db.txt"):
        assert s.text(kept) == kept  # an option naming a file keeps its path


def test_paths_that_look_busy_are_not_mistaken_for_secrets():
    s = Scrubber("/home/alice", ["alice"])
    assert s.text("sha " + "0" * 40) == f"sha {SECRET}"  # hex however plain it looks
    for kept in ("/srv/team/learnings/ledger-receipt-write-times-out-at-3s-2026-10-12-a1b2c3.md",
                 "/srv/ArchitectureDecisionRecords2024-Payments-Overview/ADR-0042-Ledger.md",
                 f"/srv/tc-{RUN}/team/rules/x.md", "grep -rn token learnings/auth.md",
                 "rg -n 'bearer docs/x.md' learnings", "sed -n '1,80p' learnings/api-keys.md"):
        assert s.text(kept) == kept


@pytest.mark.parametrize("name", sorted(p.stem and f"{p.parent.name}/{p.stem}"
                                        for p in (ROOT / "payloads").glob("*/*.json")))
def test_every_corpus_payload_keeps_its_keys_and_types(name):
    payload = corpus_payload(name)
    scrubbed = Scrubber("/home/ana", ["ana"]).payload(payload)
    assert key_paths(scrubbed) == key_paths(payload)
    for key in ("tool_output", "toolArgs"):
        if isinstance(payload.get(key), str) and payload[key].startswith("{"):
            assert key_paths(json.loads(scrubbed[key])) == key_paths(json.loads(payload[key]))


# -- the same decisions ------------------------------------------------------------------------

def _recall(machine: Machine) -> str:
    out = io.StringIO()
    assert run(["recall", "redis timeout"], Io(machine.env, io.BytesIO(), out, io.StringIO())) == 0
    return out.getvalue()


# A line of the example team's redis-timeout learning: a search line counts only when it shows the doc's text.
TEXT = "raise it to 5s and add a retry with backoff."


def _cases(machine: Machine) -> list[tuple[str, str, dict[str, Any]]]:
    doc, team, project = machine.doc(), str(machine.team), str(machine.project)
    recall = _recall(machine)
    cases: list[tuple[str, str, dict[str, Any]]] = []

    def add(agent: str, name: str, sets: dict[str, Any]) -> None:
        payload = corpus_payload(f"{agent}/{name}")
        for dotted, value in sets.items():
            node = payload
            *parents, last = dotted.split(".")
            for part in parents:
                node = node[part]
            node[last] = value
        cases.append((agent, "post-tool-use", payload))

    add("claude", "post-tool-use-read", {"cwd": project, "tool_input.file_path": doc})
    add("claude", "post-tool-use-read", {"cwd": team, "tool_input.file_path": "learnings/redis-timeout.md"})
    add("claude", "post-tool-use-shell-read", {"cwd": project, "tool_input.command": f"cat {doc}"})
    add("claude", "post-tool-use-shell-read", {"cwd": team, "tool_input.command": "sed -n '1,80p' learnings/redis-timeout.md"})
    add("claude", "post-tool-use-shell-recall", {"cwd": project, "tool_response.stdout": recall})
    add("claude", "post-tool-use-search-content", {"cwd": project, "tool_input.path": team,
                                                   "tool_response.content": f"{doc}:5:raise it to 5s\n"
                                                   f"{team}/rules/payments.md-2-context\n"})
    add("claude", "post-tool-use-search-content", {"cwd": team, "tool_input.path": "learnings",
                                                   "tool_response.content": f"learnings/redis-timeout.md:8:{TEXT}"})
    add("claude", "post-tool-use-shell-read", {"cwd": team, "tool_input.command": "rg -n --color=always timeout learnings",
                                               "tool_response.stdout": f"\x1b[35mlearnings/redis-timeout.md\x1b[0m:8:{TEXT}\n"})
    add("claude", "post-tool-use-grep-files", {"cwd": project, "tool_input.path": team,
                                               "tool_response.filenames": [doc]})
    add("codex", "post-tool-use-shell-read", {"cwd": team, "tool_input.command": "cat learnings/redis-timeout.md"})
    add("codex", "post-tool-use-shell-recall", {"cwd": project, "tool_response": recall})
    add("codex", "post-tool-use-search-content", {"cwd": project, "tool_input.command": f"rg -n timeout {team}",
                                                  "tool_response": f"{doc}:8:{TEXT}\n"})
    add("cursor", "post-tool-use-read", {"cwd": project, "workspace_roots": [project], "tool_input.file_path": doc})
    add("cursor", "post-tool-use-shell-read", {"cwd": "", "workspace_roots": [team],
                                               "tool_input.working_directory": team,
                                               "tool_input.command": "cat learnings/redis-timeout.md"})
    add("cursor", "post-tool-use-shell-recall", {"cwd": project, "workspace_roots": [project],
                                                 "tool_output": json.dumps({"exitCode": 0, "stdout": recall})})
    add("cursor", "post-tool-use-search-content", {"cwd": project, "workspace_roots": [project],
                                                   "tool_input.command": f"rg -n timeout {team}",
                                                   "tool_output": json.dumps({"exitCode": 0, "stdout": f"{doc}:8:{TEXT}\n"})})
    return cases


def _hook(machine: Machine, state: Path, team: str, agent: str, event: str, payload: Any) -> list[dict[str, Any]]:
    env = {**machine.env, "TEAMAI_HOME": str(state), "TEAMAI_TEAM": team}
    run(["hook-dispatch", event, "--tool", agent], Io(env, io.BytesIO(json.dumps(payload).encode()),
                                                      io.StringIO(), io.StringIO()))
    lines = []
    for path in state.rglob("recall-log.jsonl"):
        lines = [json.loads(x) for x in path.read_text().splitlines()]
        path.unlink()
    return lines


def test_the_scrubbed_payload_leads_to_the_same_decisions(machine: Machine, tmp_path: Path):
    scrubber = Scrubber.from_env(machine.env)
    kinds = []
    for agent, event, payload in _cases(machine):
        raw_lines = _hook(machine, tmp_path / "raw", str(machine.team), agent, event, payload)
        scrubbed = scrubber.payload(copy.deepcopy(payload))
        assert json.dumps(scrubbed) != json.dumps(payload)
        scrubbed_lines = _hook(machine, tmp_path / "scrubbed", scrubber.text(str(machine.team)), agent, event,
                               scrubbed)
        assert scrubbed_lines == scrubber.value(raw_lines), (agent, payload)
        kinds += [line["kind"] for line in raw_lines]
    assert kinds.count("claim") == 3 and kinds.count("evidence") >= 10


def test_a_scrubbed_single_file_search_loses_its_decision(machine: Machine, tmp_path: Path):
    """The one known loss: a search of one file prints ``line:text`` without a path, so only the text
    ties it to the doc; scrubbing replaces the text, and the scrubbed path names no file to read.
    (``--keep`` keeps it; an import recreates the docs with the scrubbed text, so replays agree.)"""
    scrubber = Scrubber.from_env(machine.env)
    payload = corpus_payload("claude/post-tool-use-search-content")
    payload.update(cwd=str(machine.project))
    payload["tool_input"]["path"] = machine.doc()
    payload["tool_response"]["content"] = f"8:{TEXT}"
    raw_lines = _hook(machine, tmp_path / "raw", str(machine.team), "claude", "post-tool-use", payload)
    assert [line["kind"] for line in raw_lines] == ["evidence"]
    scrubbed = scrubber.payload(copy.deepcopy(payload))
    assert _hook(machine, tmp_path / "scrubbed", scrubber.text(str(machine.team)), "claude", "post-tool-use",
                 scrubbed) == []
