"""A session captured from Claude, Codex and Cursor payload streams (each payload fed to a real
``teamai-ref capture`` process, as the agent would) imports into a scenario that passes against
the reference and replays to the same decisions and votes as the direct run."""

from __future__ import annotations

import datetime as dt
import io
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from conformance import cli
from conformance.corpus import lint, recorded_shapes
from conformance.corpus import read as corpus
from conformance.implementations import connect
from conformance.running import outcomes
from conformance.running.case_runner import run_case
from conformance.running.normalize import Normalizer
from conformance.running.substitute import where

from .conftest import ROOT, Machine, corpus_payload

START = dt.datetime(2026, 11, 30, 10, 0, tzinfo=dt.UTC)


class Stream:
    """One agent session: real recalls, and payloads fed through real capture processes."""

    def __init__(self, machine: Machine, agent: str, inner: bool = False) -> None:
        self.m = machine
        self.agent = agent
        self.inner = inner
        self.state = machine.state / agent
        self.clock = START

    def env(self) -> dict[str, str]:
        self.clock += dt.timedelta(seconds=2)
        return {**self.m.env, "TEAMAI_HOME": str(self.state),
                "TEAMAI_NOW": self.clock.strftime("%Y-%m-%dT%H:%M:%S.000Z")}

    def recall(self, query: str, caller: str | None = None) -> str:
        argv = [sys.executable, "-m", "reference", "recall", query] + (["--caller", caller] if caller else [])
        proc = subprocess.run(argv, capture_output=True, env=self.env(), cwd=ROOT, timeout=120)
        assert proc.returncode == 0, proc.stderr
        return proc.stdout.decode()

    def send(self, event: str, payload: dict[str, Any]) -> None:
        argv = [sys.executable, "-m", "reference", "capture", event, "--tool", self.agent, "--out", str(self.m.out)]
        if self.inner:
            argv += ["--", sys.executable, "-m", "reference", "hook-dispatch", event, "--tool", self.agent]
        proc = subprocess.run(argv, input=json.dumps(payload).encode(), capture_output=True, env=self.env(),
                              cwd=ROOT, timeout=120)
        assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")

    def log(self) -> list[dict[str, Any]]:
        [path] = self.state.rglob("recall-log.jsonl")
        return [json.loads(x) for x in path.read_text().splitlines()]

    def votes(self) -> dict[str, tuple[int, int]]:
        from reference.state import ledger

        [path] = self.state.rglob("votes.yaml")
        return {k: (v["recalled_count"], v["upvoted_count"]) for k, v in ledger.read(str(path)).items()}


def _set(payload: dict[str, Any], **values: Any) -> dict[str, Any]:
    for dotted, value in values.items():
        node = payload
        *parents, last = dotted.split("__")
        for part in parents:
            node = node[part]
        node[last] = value
    return payload


def claude_session(m: Machine) -> Stream:
    s = Stream(m, "claude")
    ses, proj, team = "0b5d6c1e-2f3a-4b5c-8d9e-0f1a2b3c4d5e", str(m.project), str(m.team)
    common = {"session_id": ses, "cwd": proj, "transcript_path": f"{m.home}/.claude/projects/p/{ses}.jsonl"}
    payments = s.recall("payments")
    s.send("post-tool-use", _set(corpus_payload("claude/post-tool-use-shell-recall"), **common,
                                 tool_input__command='teamai recall "payments"', tool_response__stdout=payments))
    s.send("post-tool-use", _set(corpus_payload("claude/post-tool-use-read"), **common,
                                 tool_input__file_path=f"{team}/docs/payments-overview.md",
                                 tool_response__file__filePath=f"{team}/docs/payments-overview.md"))
    ledger = s.recall("ledger receipt", caller="teamai-recall")
    sub = {**common, "agent_id": "a0c1d2e3f4a5b6c7d", "agent_type": "teamai-recall"}
    s.send("post-tool-use", _set(corpus_payload("claude/post-tool-use-shell-recall-subagent"), **sub,
                                 tool_input__command='teamai recall --caller teamai-recall "ledger receipt"',
                                 tool_response__stdout=ledger))
    own = f"{team}/learnings/ledger-receipt-write-times-out-at-3s-2026-10-12-a1b2c3.md"
    s.send("post-tool-use", _set(corpus_payload("claude/post-tool-use-read-subagent"), **sub,
                                 tool_input__file_path=own))
    s.send("post-tool-use", _set(corpus_payload("claude/post-tool-use-shell-read"), **{**common, "cwd": team},
                                 tool_input__command="sed -n '1,40p' rules/payments.md"))
    s.send("post-tool-use", _set(corpus_payload("claude/post-tool-use-search-content"), **common,
                                 tool_input__path=team, tool_response__content=(
                                     f"{team}/teamwiki/evidence/code/pay/modules/ledger-receipts.md:3:receipts\n"
                                     f"{team}/docs/payments-overview.md-4-context")))
    s.send("post-tool-use", _set(corpus_payload("claude/post-tool-use-list"), **common, tool_input__path=team))
    s.send("post-tool-use-failure", _set(corpus_payload("claude/post-tool-use-failure"), **common,
                                         tool_input__file_path=f"{team}/rules/nope.md"))
    s.send("subagent-stop", _set(corpus_payload("claude/subagent-stop"), **sub))
    s.send("stop", _set(corpus_payload("claude/stop"), **common))
    return s


def codex_session(m: Machine) -> Stream:
    s = Stream(m, "codex", inner=True)
    common = {"session_id": "019d2c3d-4e5f-7a6b-8c9d-0e1f2a3b4c5d", "cwd": str(m.project)}
    freeze = s.recall("deploy freeze")
    s.send("post-tool-use", _set(corpus_payload("codex/post-tool-use-shell-recall"), **common,
                                 tool_input__command='teamai recall "deploy freeze"', tool_response=freeze))
    s.send("post-tool-use", _set(corpus_payload("codex/post-tool-use-shell-read"), **common,
                                 tool_input__command="cat team/learnings/ops/2026-10-20-deploy-freeze.md"))
    s.send("post-tool-use", _set(corpus_payload("codex/post-tool-use-search-content"), **common,
                                 tool_input__command="rg -n freeze team",
                                 tool_response="team/learnings/ops/2026-10-20-deploy-freeze.md:4:x\n"))
    s.send("stop", _set(corpus_payload("codex/stop"), **common))
    return s


def cursor_session(m: Machine) -> Stream:
    s = Stream(m, "cursor")
    conv, proj, team = "c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f", str(m.project), str(m.team)
    common = {"conversation_id": conv, "session_id": conv, "cwd": proj, "workspace_roots": [proj]}
    nothing = s.recall("zebra unicorn")
    ledger = s.recall("ledger receipt")
    s.send("post-tool-use", _set(corpus_payload("cursor/post-tool-use-shell-recall"), **common,
                                 tool_input__working_directory=proj,
                                 tool_input__command='teamai recall "zebra unicorn"',
                                 tool_output=json.dumps({"exitCode": 0, "stdout": nothing, "stderr": ""})))
    s.send("post-tool-use", _set(corpus_payload("cursor/post-tool-use-shell-recall"), **common,
                                 tool_input__working_directory=proj,
                                 tool_input__command='teamai recall "ledger receipt"',
                                 tool_output=json.dumps({"exitCode": 0, "stdout": ledger, "stderr": ""})))
    s.send("post-tool-use", _set(corpus_payload("cursor/post-tool-use-read"), **common, tool_input__file_path=(
        f"{team}/learnings/ledger-receipt-write-times-out-at-3s-2026-10-12-a1b2c3.md")))
    s.send("stop", _set(corpus_payload("cursor/stop"), **common))
    return s


@pytest.fixture
def target(tmp_path: Path) -> Path:
    """A corpus to import into: this project's clause catalogue, and nothing else yet."""
    dest = tmp_path / "corpus"
    (dest / "scenarios").mkdir(parents=True)
    (dest / "conformance").mkdir()
    shutil.copy(ROOT / "conformance" / "clauses.yaml", dest / "conformance" / "clauses.yaml")
    return dest


def _import(capture: Path, prefix: str, target: Path) -> str:
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(["import-capture", str(capture), "--id", prefix, "--out-dir", str(target)], out, err)
    assert code == 0, err.getvalue()
    return out.getvalue()


def _decisions(lines: list[dict[str, Any]], norm: Normalizer) -> list[dict[str, Any]]:
    return [norm(line) for line in lines if line["kind"] in ("claim", "evidence", "link", "consumed")]


@pytest.mark.parametrize("make", [claude_session, codex_session, cursor_session], ids=["claude", "codex", "cursor"])
def test_a_captured_session_replays_to_the_decisions_of_the_direct_run(machine: Machine, target: Path, make):
    stream = make(machine)
    [capture] = [p for p in machine.out.glob(f"{stream.agent}-*.jsonl")]
    report = _import(capture, f"cap-{stream.agent}", target)
    loaded = corpus.load(target)
    scenario = loaded.by_id()[f"cap-{stream.agent}"]
    assert scenario.rel == f"scenarios/attribution/cap-{stream.agent}.yaml"
    assert scenario.data["provenance"] == "live-capture"
    for impl in ("reference", "reference-cli"):
        driver = connect(impl)
        try:
            result = run_case(driver, scenario, loaded.payloads)
        finally:
            driver.stop()
        assert result.outcome == outcomes.PASS, (impl, result.message, result.mismatches)

    # The same decisions: the direct run's lines, spelled as the replay spells them.
    claims = [line["run"] for line in stream.log() if line["kind"] == "claim"]
    runs = {run: f"r{i}" for i, run in enumerate(dict.fromkeys(claims), 1)}
    team = str(machine.team)
    assets = {(rel[:-3] if rel.startswith("learnings/") else rel): f"{team}/{rel}" for rel in scenario.data["team"]}
    direct = Normalizer.build(runs, assets, {}, {"team": team, "learnings": [f"{team}/learnings"]})
    assert result.observed is not None
    replayed = [line for line in result.observed["log"] if line["kind"] in ("claim", "evidence", "link", "consumed")]
    assert replayed == _decisions(stream.log(), direct)
    assert {k: (v["recalled_count"], v["upvoted_count"]) for k, v in result.observed["votes"].items()} == stream.votes()
    assert any(v[1] for v in stream.votes().values()), "the session should have earned an upvote"
    assert "claim: run r1" in report and "Check before committing" in report


def test_what_the_import_writes(machine: Machine, target: Path):
    stream = cursor_session(machine)
    [capture] = machine.out.glob("cursor-*.jsonl")
    report = _import(capture, "cap-cursor", target)
    names = sorted(p.name for p in (target / "payloads" / "cursor").glob("cap-cursor-*.json"))
    assert names == [f"cap-cursor-{n}.json" for n in (1, 2, 3, 4)]
    first = json.loads((target / "payloads" / "cursor" / "cap-cursor-1.json").read_text())
    prov = first["provenance"]
    assert (prov["source"], prov["captured"], prov["agent_version"]) == ("live-capture", "2026-11-30", "3.1.10")
    assert prov["verified"] is False and "exemption" in prov  # nobody recorded a Cursor postToolUse
    assert recorded_shapes.lint_payload("cursor", first["event"], first["payload"], prov) == []
    data = yaml.safe_load((target / "scenarios" / "attribution" / "cap-cursor.yaml").read_text())
    recalls = [s for s in data["steps"] if "recall" in s]
    printed = [line[len("File: "):] for line in json.loads(json.loads(capture.read_text().splitlines()[1])["payload"]
                                                          ["tool_output"])["stdout"].splitlines()
               if line.startswith("File: ")]
    assert len(printed) >= 2
    assert [(s["as"], s["recall"]) for s in recalls] == [
        ("r1", "capturenohit"), ("r2", " ".join(f"capturedoc{i}" for i in range(1, len(printed) + 1)))]
    hooks = [s for s in data["steps"] if "hook" in s]
    assert hooks[0]["at"] == "2026-11-30T10:00:06.000Z" and recalls[0]["at"] == "2026-11-30T10:00:05.999Z"
    assert "${r1.run}" in hooks[0]["set"]["tool_output"] and "${root:team}/.." == hooks[0]["set"]["cwd"]
    assert {f"/home/user/proj/team/{rel}" for rel in data["team"]} == set(printed)
    assert all("\nscrubbed-text\n" in text for text in data["team"].values())  # what a scrubbed search shows
    assert "- Recorded shapes: 0 of 4 payloads match" in report
    assert "zebra" not in json.dumps(data) and "[scrubbed]" in hooks[0]["set"]["tool_output"]  # the no-hit query
    assert [p for p in lint.lint(corpus.load(target)) if "cap-cursor" in p] == []
    assert stream.agent == "cursor"


def test_a_claude_capture_passes_the_recorded_shapes(machine: Machine, target: Path):
    claude_session(machine)
    [capture] = machine.out.glob("claude-*.jsonl")
    report = _import(capture, "cap-claude", target)
    assert "- Recorded shapes: 9 of 10 payloads match" in report
    data = yaml.safe_load((target / "scenarios" / "attribution" / "cap-claude.yaml").read_text())
    assert [s.get("caller") for s in data["steps"] if "recall" in s] == [None, "teamai-recall"]
    hooks = [s for s in data["steps"] if "hook" in s]
    assert hooks[0]["set"]["tool_response.stdout"] == "${r1.output}"
    assert hooks[4]["set"] == {"cwd": "${root:team}"}  # sed -n … rules/payments.md relative to the team


def test_the_import_refuses_to_overwrite_and_says_what_is_wrong(machine: Machine, target: Path, tmp_path: Path):
    codex_session(machine)
    [capture] = machine.out.glob("codex-*.jsonl")
    _import(capture, "cap-codex", target)
    out, err = io.StringIO(), io.StringIO()
    assert cli.main(["import-capture", str(capture), "--id", "cap-codex", "--out-dir", str(target)], out, err) == 2
    assert "exists" in err.getvalue()
    assert cli.main(["import-capture", str(capture), "--id", "Bad_Id", "--out-dir", str(target)], out, err) == 2
    empty = tmp_path / "empty.jsonl"
    empty.write_text('{"ts": "2026-11-30T10:00:00.000Z", "agent": "codex", "event": "session-start", '
                     '"payload": {}}\nnot json\n' + "[" * 100_000 + "]" * 100_000 + "\n")  # and one nested too deep
    err = io.StringIO()
    assert cli.main(["import-capture", str(empty), "--out-dir", str(target)], out, err) == 3
    assert "no hook call to replay" in err.getvalue() and "not a JSON line" in err.getvalue()


def test_a_capture_made_with_keep_is_scrubbed_on_import(machine: Machine, target: Path, monkeypatch):
    monkeypatch.setenv("HOME", str(machine.home))  # the import scrubs with its own machine's home and user
    monkeypatch.setenv("USER", "alice")
    payload = _set(corpus_payload("claude/post-tool-use-read"), session_id="ses-keep", cwd=str(machine.project),
                   tool_input__file_path=machine.doc())
    payload["tool_response"]["file"]["content"] = "the private plan\n"
    machine.capture("post-tool-use", "--tool", "claude", "--out", str(machine.out), "--keep", payload=payload)
    [capture] = machine.out.glob("claude-ses-keep.jsonl")
    assert "the private plan" in capture.read_text()
    report = _import(capture, "cap-keep", target)
    written = (target / "payloads" / "claude" / "cap-keep-1.json").read_text()
    assert "the private plan" not in written and "/home/ana/proj/team/learnings/redis-timeout.md" in written
    assert "captured with --keep" in report


def test_the_import_keeps_the_id_puts_paths_at_the_corpus_places_and_names_the_snapshot(machine: Machine,
                                                                                         target: Path):
    claude_session(machine)
    [capture] = machine.out.glob("claude-*.jsonl")
    report = _import(capture, "cap-claude-grep", target)
    assert yaml.safe_load((target / "scenarios/attribution/cap-claude-grep.yaml").read_text())["id"] == \
        "cap-claude-grep"
    assert "teamai-conformance run --only cap-claude-grep" in report
    # no machine's path in a payload file: the team is the corpus's /home/ana/proj/team, read responses too
    files = sorted((target / "payloads" / "claude").glob("cap-claude-grep-*.json"))
    text = "".join(p.read_text() for p in files)
    assert str(machine.home) not in text and "/home/user/proj" not in text
    read = json.loads((target / "payloads/claude/cap-claude-grep-2.json").read_text())["payload"]
    assert read["tool_input"]["file_path"] == "/home/ana/proj/team/docs/payments-overview.md"
    assert read["tool_response"]["file"]["filePath"] == "/home/ana/proj/team/docs/payments-overview.md"
    # a folder without the snapshot test: the exact command, by node id, that writes the snapshot
    assert ("python3 -m pytest 'tests/conformance/test_reference_snapshots.py::test_reference_output_and_state"
            "[cap-claude-grep]' --snapshot-update -q") in report


def test_canonical_names_where_the_agents_folder_lacks_them(machine: Machine, target: Path):
    codex_session(machine)
    [capture] = machine.out.glob("codex-*.jsonl")
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(["import-capture", str(capture), "--id", "cap-codex", "--canonical-names", "--out-dir",
                     str(target)], out, err)
    assert code == 0, err.getvalue()
    names = sorted(p.stem for p in (target / "payloads" / "codex").glob("*.json"))
    # the shell read and the rg search are both shell calls: the second is numbered
    assert names == ["cap-codex-3", "post-tool-use-shell-read", "post-tool-use-shell-recall", "stop"]
    steps = yaml.safe_load((target / "scenarios/attribution/cap-codex.yaml").read_text())["steps"]
    assert [s["hook"] for s in steps if "hook" in s] == [
        "codex/post-tool-use-shell-recall", "codex/post-tool-use-shell-read", "codex/cap-codex-3", "codex/stop"]


def test_an_agent_without_an_adapter_is_told_what_to_write(machine: Machine, target: Path, tmp_path: Path):
    capture = tmp_path / "gemini-s1.jsonl"
    capture.write_text(json.dumps({"ts": "2026-11-30T10:00:00.000Z", "agent": "gemini", "event": "post-tool-use",
                                   "session": "s1", "payload": {"session_id": "s1"}}) + "\n")
    out, err = io.StringIO(), io.StringIO()
    assert cli.main(["import-capture", str(capture), "--out-dir", str(target)], out, err) == 3
    said = err.getvalue()
    assert "does not declare" not in said and "no adapter for the agent 'gemini'" in said
    assert "reference/hook/agents/gemini.py" in said and "AGENTS in reference/hook/agents/__init__.py" in said
    assert not (target / "payloads").exists()


def test_paths_are_rerooted_relative_to_the_team():
    from conformance.capture.scenario import Rerooter

    rer = Rerooter("/home/user/proj/team", ["/home/user/notes"], None)
    assert rer.text("/home/user/proj/team/rules/x.md") == "${root:team}/rules/x.md"
    assert rer.text("cat /home/user/proj/src/a.md /home/user/notes/n.md") == (
        "cat ${root:team}/../src/a.md ${root:learnings}/n.md")
    assert rer.text("/home/user/.bashrc and /home/userx and /usr/bin/rg") == (
        "${root:team}/../../.bashrc and /home/userx and /usr/bin/rg")
    assert rer.text("/home/user/proj/teamwork/x.md") == "${root:team}/../teamwork/x.md"
    assert rer.place("/home/user/notes/ops/a.md") == ("learnings", 0, "ops/a.md")
    assert where("learnings/ops/a", "/s/team", ["/s/l1"]) == "/s/l1/ops/a.md"
