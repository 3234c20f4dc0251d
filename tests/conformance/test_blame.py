"""Blaming the right side. When a step or an expectation needs a run id that the implementation
never printed, the implementation failed (``fail``, pointing at the place that needed it), not
the scenario (``error``). A reference to something no step of that kind ever prints is the
scenario's fault, caught by corpus-lint and, if run anyway, an ``error``."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from conformance import implementations
from conformance.corpus import lint
from conformance.corpus import read as corpus
from conformance.running import driver, outcomes
from conformance.running.case_runner import run_case

FIXTURE = Path(__file__).resolve().parent / "corpus"

HEAD = """id: fx-blame
title: Something later needs the run id of r1
clauses: [FX-RUN-ID]
provenance: derived
agents: [claude]
team:
  learnings/redis-timeout.md: "---\\ntitle: Redis timeout\\n---\\nredis\\n"
steps:
  - recall: redis
    as: r1
"""


def _legacy(hook_exit: int = 0, recall_out: str = "--- [teamai:recall:start] --- (1 result)\n") -> Any:
    """An implementation from before run ids: every command works, no recall prints a run id."""
    def handle(message: dict[str, Any]) -> dict[str, Any]:
        cmd, extra = message["cmd"], {}
        if cmd == "start":
            extra = {"protocol": 1, "implementation": {"name": "legacy", "version": "0"},
                     "capabilities": {"commands": ["recall", "hook", "pull", "stats", "review", "contribute"],
                                      "agents": ["claude"], "log": True, "hold": []}}
        elif cmd == "open":
            team = str(Path(message["sandbox"], "team"))
            extra = {"paths": {"learnings/redis-timeout": f"{team}/learnings/redis-timeout.md"},
                     "user_paths": {}, "roots": {"team": team, "learnings": [f"{team}/learnings"]}}
        elif cmd == "recall":
            extra = {"exit": 0, "stdout": recall_out, "stderr": ""}
        elif cmd in ("hook", "pull", "stats", "review", "contribute"):
            extra = {"exit": hook_exit if cmd == "hook" else 0, "stdout": "", "stderr": ""}
        elif cmd == "observe":
            extra = {"votes": {"redis-timeout": {"recalled_count": 1, "upvoted_count": 0}}, "log": [],
                     "stats": [], "raw": {}}
        return {"seq": message["seq"], "ok": True, **extra}

    return handle


def _run(tmp_path: Path, tail: str, impl: Any = None) -> outcomes.CaseResult:
    root = tmp_path / "corpus"
    shutil.copytree(FIXTURE / "payloads", root / "payloads")
    (root / "scenarios" / "attribution").mkdir(parents=True)
    (root / "scenarios" / "attribution" / "fx-blame.yaml").write_text(HEAD + tail, encoding="utf-8")
    loaded = corpus.load(root)
    active = impl or driver.LocalDriver(_legacy, "legacy")
    try:
        return run_case(active, loaded.by_id()["fx-blame"], loaded.payloads)
    finally:
        active.stop()


STEP = '''  - {action}
expect:
  votes: {{redis-timeout: {{recalled_count: 1}}}}
'''

# every place a step can carry a substitution, with where the failure must point
IN_STEPS = [
    ("recall: again ${r1.run}", "steps[1].recall"),
    ("recall: again\n    caller: ${r1.run}", "steps[1].caller"),
    ("recall: again\n    env: {TEAMAI_RUN: '${r1.run}'}", "steps[1].env"),
    ("hook: claude/post-tool-use-read\n    set: {session_id: s, tool_response.stdout: 'run=${r1.run}'}",
     "steps[1].set"),
    ("hook: claude/post-tool-use-read\n    env: {X: '${r1.run}'}", "steps[1].env"),
    ("stats: {json: false}\n    env: {X: '${r1.run}'}", "steps[1].env"),
    ("review: {branch: 'fix/${r1.run}'}", "steps[1].review"),
    ("contribute: {title: 'Run ${r1.run}', text: body}", "steps[1].contribute"),
    ("pull: {}\n    env: {X: '${r1.run}'}", "steps[1].env"),
]


@pytest.mark.parametrize("action, where", IN_STEPS, ids=[w + ":" + a.split(":")[0] for a, w in IN_STEPS])
def test_a_step_that_needs_a_run_id_never_printed_fails_the_implementation(tmp_path, action, where):
    result = _run(tmp_path, STEP.format(action=action))
    assert result.outcome == outcomes.FAIL, result.message
    miss = result.mismatches[0]
    assert miss["path"] == where and "step 'r1' printed no run" in miss["message"], miss
    assert miss["actual"] == "--- [teamai:recall:start] --- (1 result)\n"
    assert [s["name"] for s in result.steps] == ["r1"]  # the steps that ran are still reported


EXPECT = '''expect:
  votes: {{redis-timeout: {{recalled_count: 1}}}}
  {block}
'''

IN_EXPECT = [
    ("log_contains: [{kind: run, run: '${r1.run}'}]", ["expect.log_contains[0]"]),
    ("log_absent: [{kind: claim, run: '${r1.run}'}]", ["expect.log_absent[0]"]),
    ("votes: {redis-timeout: {last_run: '${r1.run}'}}", ["expect.votes"]),
    ("no_votes: ['${r1.run}']", ["expect.no_votes"]),
    ("stats: [{session: '${r1.run}'}]", ["expect.stats"]),
    ("never_in_state: ['${r1.run}']", ["expect.never_in_state"]),
    ("steps: {r1: {output_contains: ['run=${r1.run}']}}", ["expect.steps.r1"]),
    ("steps: {r1: {output_matches: ['run=${r1.run}$']}}", ["expect.steps.r1"]),
    ("log_contains: [{kind: run}, {kind: run, run: '${r1.run}'}]",
     ["expect.log_contains[0]", "expect.log_contains[1]"]),
]


@pytest.mark.parametrize("block, paths", IN_EXPECT, ids=[p[-1] + ":" + b.split(":")[0] for b, p in IN_EXPECT])
def test_an_expectation_that_needs_a_run_id_never_printed_fails_on_its_own(tmp_path, block, paths):
    text = EXPECT.format(block=block)
    if block.startswith("votes:"):  # only one votes block
        text = f"expect:\n  {block}\n"
    result = _run(tmp_path, text)
    assert result.outcome == outcomes.FAIL, result.message
    assert [m["path"] for m in result.mismatches] == paths, result.mismatches
    needed = result.mismatches[-1]
    assert "step 'r1' printed no run" in needed["message"]
    assert needed["actual"] == "--- [teamai:recall:start] --- (1 result)\n"


def test_other_expectations_are_still_judged_next_to_the_one_that_cannot_hold(tmp_path):
    result = _run(tmp_path, "expect:\n  votes: {redis-timeout: {recalled_count: 2}}\n"
                            "  log_contains: [{kind: run, run: '${r1.run}'}]\n")
    assert [m["path"] for m in result.mismatches] == ["expect.votes.redis-timeout.recalled_count",
                                                      "expect.log_contains[0]"]


def test_a_hook_that_exited_non_zero_before_is_still_reported(tmp_path):
    tail = STEP.format(action="hook: claude/post-tool-use-read\n  - recall: again ${r1.run}")
    result = _run(tmp_path, tail, driver.LocalDriver(lambda: _legacy(hook_exit=2), "legacy"))
    assert [m["path"] for m in result.mismatches] == ["steps[2].recall", "steps[1].hook"]


NOT_A_RUN = [
    ("  - hook: claude/post-tool-use-read\n    as: h1\n  - recall: again ${h1.run}\n", "step 'h1' is a hook"),
    ("  - recall: redis\n    check: true\n    as: c1\n  - recall: again ${c1.run}\n", "step 'c1' is a --check"),
]


@pytest.mark.parametrize("steps, why", NOT_A_RUN)
def test_a_run_id_of_a_step_that_never_prints_one_is_the_scenarios_fault(tmp_path, steps, why):
    result = _run(tmp_path, steps + "expect:\n  votes: {redis-timeout: {recalled_count: 1}}\n")
    assert result.outcome == outcomes.ERROR and why in result.message, result.message
    problems = lint.lint(corpus.load(tmp_path / "corpus"))
    assert any(why in p and "prints no run id" in p for p in problems), problems


def test_the_reference_prints_what_the_same_scenarios_need(tmp_path):
    """The same substitutions against an implementation that prints run ids: nothing to blame."""
    tail = STEP.format(action="hook: claude/post-tool-use-read\n    set: {session_id: s, "
                              "tool_response.stdout: 'run=${r1.run}'}")
    result = _run(tmp_path, tail, implementations.connect("reference"))
    assert result.outcome == outcomes.PASS, (result.message, result.mismatches)


FORGED = "0badc0de-0000-4000-8000-000000000001"
# Outputs whose only " run=" is on a line other than the start or no-hit line: none prints a run id.
ELSEWHERE = [
    f"--- [teamai:recall:start] --- (1 result)\n[1/1] [learnings] Notes on run={FORGED}\n",
    f"--- [teamai:recall:start] --- (1 result)\nTags: a run={FORGED}\n",
    f"Something else entirely run={FORGED}\n",
    f"No matching learnings found for redis run={FORGED}\n",
]


@pytest.mark.parametrize("out", ELSEWHERE, ids=["title", "tags", "other-line", "unquoted-no-hit"])
def test_a_run_id_is_read_only_from_the_start_or_no_hit_line(tmp_path, out):
    result = _run(tmp_path, STEP.format(action="recall: again ${r1.run}"),
                  driver.LocalDriver(lambda: _legacy(recall_out=out), "legacy"))
    assert result.outcome == outcomes.FAIL, result.message
    assert "step 'r1' printed no run" in result.mismatches[0]["message"]


@pytest.mark.parametrize("out", [
    f"--- [teamai:recall:start] --- (1 result) run={FORGED}\n",
    f"--- [teamai:recall:start] --- (2 results) run={FORGED}\r\n",
    f'No matching learnings found for "redis \\"x\\"". run={FORGED}\n',
], ids=["start", "start-crlf", "no-hit"])
def test_the_start_and_no_hit_lines_give_the_run_id(tmp_path, out):
    result = _run(tmp_path, STEP.format(action="recall: again ${r1.run}"),
                  driver.LocalDriver(lambda: _legacy(recall_out=out), "legacy"))
    assert result.outcome == outcomes.PASS, (result.message, result.mismatches)
