"""An agent the corpus does not know, all the way in (payloads/README.md, "Adding an agent"): Gemini
CLI, whose hook event is ``AfterTool`` and whose file tool is ``read_file``. In a copy of the
project, a session is captured before the reference has an adapter; replay and import say what to
write; the adapter is the one file written by hand (and its name added to the one list of agents);
then capture -> replay -> import -> lint -> the case passes, its snapshot included. Along the way:
an adapter that misreads the output is caught by the import's warning, and an adapter left out of
the list makes the reference's run of the case fail loudly rather than be not-applicable."""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
SESSION = "6f1c2d3e-4a5b-4c6d-8e7f-901a2b3c4d5e"

# The adapter an author writes: Gemini's AfterTool payload, whose tool_response.llmContent holds
# what the model saw; for run_shell_command that is "Command: …\nDirectory: …\nStdout: <output>\n
# Stderr: …", so the command's output is what follows "Stdout: ".
ADAPTER = '''"""Gemini CLI: AfterTool with session_id, cwd, tool_name, tool_input and tool_response.llmContent."""

from __future__ import annotations

from typing import Any

from ..toolcall import SUCCESS, ToolCall
from ._fields import build, mapping, string

SHELL = ("run_shell_command",)  # a tool name categories.py does not know


def shown(response: Any) -> str:
    text = string(mapping(response).get("llmContent")) or ""
    if READS_STDOUT and "\\nStdout: " in "\\n" + text:
        text = ("\\n" + text).split("\\nStdout: ", 1)[1].split("\\nStderr: ", 1)[0]
    return text


def parse(payload: Any, event: str) -> ToolCall:
    call = build("gemini", event, payload, string(payload.get("session_id")), payload.get("tool_name"),
                 mapping(payload.get("tool_input")), {"output": shown(payload.get("tool_response"))}, SUCCESS,
                 string(payload.get("cwd")))
    return call._replace(category="shell") if call.tool in SHELL else call
'''


class Project:
    def __init__(self, tmp: Path) -> None:
        self.root = tmp / "project"
        for name in ("reference", "conformance", "payloads", "scenarios", "tests"):
            shutil.copytree(ROOT / name, self.root / name, ignore=shutil.ignore_patterns("__pycache__", ".*"))
        shutil.copy(ROOT / "pyproject.toml", self.root / "pyproject.toml")
        self.home = tmp / "home" / "alice"
        self.team = self.home / "proj" / "team"
        shutil.copytree(ROOT / "examples" / "team", self.team)
        self.captures = tmp / "captures"
        self.clock = dt.datetime(2026, 11, 30, 10, 0, tzinfo=dt.UTC)
        self.env = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "LC_ALL", "SYSTEMROOT", "TMPDIR")}
        self.env.update({"PYTHONPATH": str(self.root), "HOME": str(self.home), "USER": "alice",
                         "TEAMAI_HOME": str(tmp / "state"), "TEAMAI_TEAM": str(self.team), "TEAMAI_LOCK_WAIT": "2",
                         "PYTHONDONTWRITEBYTECODE": "1"})

    def run(self, *argv: str, stdin: bytes = b"", tick: bool = True) -> subprocess.CompletedProcess[str]:
        if tick:
            self.clock += dt.timedelta(seconds=2)
        env = {**self.env, "TEAMAI_NOW": self.clock.strftime("%Y-%m-%dT%H:%M:%S.000Z")}
        return subprocess.run([sys.executable, "-m", *argv], input=stdin.decode(), capture_output=True, text=True,
                              env=env, cwd=self.root, timeout=300)

    def capture(self, event: str, payload: dict[str, Any]) -> None:
        done = self.run("reference", "capture", event, "--tool", "gemini", "--out", str(self.captures),
                        stdin=json.dumps(payload).encode())
        assert (done.returncode, done.stdout, done.stderr) == (0, "", "")

    def adapter(self, reads_stdout: bool, registered: bool = True) -> None:
        agents = self.root / "reference" / "hook" / "agents"
        (agents / "gemini.py").write_text(ADAPTER.replace("READS_STDOUT", str(reads_stdout)), encoding="utf-8")
        init = (ROOT / "reference" / "hook" / "agents" / "__init__.py").read_text(encoding="utf-8")
        if registered:
            assert '"pi", "omp")' in init
            init = init.replace('"pi", "omp")', '"pi", "omp", "gemini")')
        (agents / "__init__.py").write_text(init, encoding="utf-8")


def test_a_new_agent_goes_from_capture_to_a_passing_case_with_only_its_adapter_written(tmp_path: Path):
    p = Project(tmp_path)
    doc = p.team / "learnings" / "redis-timeout.md"
    assert doc.is_file()
    printed = p.run("reference", "recall", "redis timeout")
    assert printed.returncode == 0 and str(doc) in printed.stdout, printed.stderr
    common = {"session_id": SESSION, "transcript_path": f"{p.home}/.gemini/tmp/chats/{SESSION}.json",
              "cwd": str(p.team.parent), "timestamp": "2026-11-30T10:00:04.000Z"}
    p.capture("post-tool-use", {**common, "hook_event_name": "AfterTool", "tool_name": "run_shell_command",
                                "tool_input": {"command": 'teamai recall "redis timeout"'},
                                "tool_response": {"llmContent": f'Command: teamai recall "redis timeout"\n'
                                                                f"Directory: (root)\nStdout: {printed.stdout}"
                                                                "Stderr: (empty)\nExit Code: 0",
                                                  "returnDisplay": printed.stdout}})
    p.capture("post-tool-use", {**common, "hook_event_name": "AfterTool", "tool_name": "read_file",
                                "tool_input": {"absolute_path": str(doc)},
                                "tool_response": {"llmContent": doc.read_text(), "returnDisplay": ""}})
    p.capture("stop", {**common, "hook_event_name": "AfterAgent", "prompt": "why redis", "prompt_response": "…"})
    [capture] = p.captures.glob("gemini-*.jsonl")
    assert len(capture.read_text().splitlines()) == 3

    # No adapter yet: replay and import say what to write, and where.
    done = p.run("reference", "replay", str(capture))
    assert done.returncode == 3 and "no adapter for the agent gemini" in done.stderr
    done = p.run("conformance", "import-capture", str(capture), "--id", "cap-gemini")
    assert done.returncode == 3 and "reference/hook/agents/gemini.py" in done.stderr, done.stderr

    # An adapter that reads llmContent whole ("Stdout: " before recall's line): the import says
    # the recall was not claimed, rather than writing a case that quietly expects no claim.
    p.adapter(reads_stdout=False)
    done = p.run("conformance", "import-capture", str(capture), "--id", "cap-gemini", "--no-snapshot")
    assert done.returncode == 0, done.stderr
    assert "ran recall, and the reference recorded no claim" in done.stderr

    # The adapter as it should be: one block per payload, the claim and the read.
    p.adapter(reads_stdout=True)
    done = p.run("reference", "replay", str(capture))
    assert done.returncode == 0, done.stderr
    assert [x for x in done.stdout.splitlines() if x.startswith("== ")] == [f"== {capture}:{n}" for n in (1, 2, 3)]
    assert "claim: run " in done.stdout and "evidence: " in done.stdout
    done = p.run("conformance", "import-capture", str(capture), "--id", "cap-gemini", "--canonical-names", "--force")
    assert done.returncode == 0, done.stderr
    assert "no claim" not in done.stderr and "wrote its snapshot" in done.stdout
    assert sorted(x.stem for x in (p.root / "payloads" / "gemini").glob("*.json")) == [
        "cap-gemini-1", "cap-gemini-2", "cap-gemini-3",  # the first import's, kept by name
        "post-tool-use-read", "post-tool-use-shell-recall", "stop"]
    for stale in (p.root / "payloads" / "gemini").glob("cap-gemini-*.json"):
        stale.unlink()
    written = (p.root / "scenarios" / "attribution" / "cap-gemini.yaml").read_text()
    assert "id: cap-gemini\n" in written and "upvoted_count: 1" in written
    assert str(p.home) not in (p.root / "payloads" / "gemini" / "post-tool-use-read.json").read_text()

    done = p.run("conformance", "lint")
    assert done.returncode == 0, done.stdout + done.stderr
    done = p.run("conformance", "run", "--only", "cap-gemini")
    assert done.returncode == 0 and "totals: pass 1" in done.stdout, done.stdout + done.stderr
    snapshot = p.root / "tests/conformance/__snapshots__/test_reference_snapshots"
    assert (snapshot / "test_reference_output_and_state[cap-gemini].json").is_file()  # the suite has it

    # The module without its name in the one list: the reference declining its own case is an error.
    p.adapter(reads_stdout=True, registered=False)
    done = p.run("conformance", "run", "--only", "cap-gemini")
    assert done.returncode != 0 and "not applicable" not in done.stdout.split("totals:")[-1]
    assert "the reference declines a case of its own corpus" in done.stdout + done.stderr
