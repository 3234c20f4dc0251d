"""Real runs of the fixture corpus that give the results page every kind of outcome.

Five columns: the reference (pass, fail), the fake driver that crashes on ``boom`` with an
expectations file (crash, xfail, xpass, skip), one that declares no hooks (not-applicable),
one that answers ``boom`` with garbage (error) and one that never answers it (timeout).
"""

from __future__ import annotations

import io
import shutil
import sys
from pathlib import Path

from conformance import cli

HERE = Path(__file__).resolve().parent
CORPUS = HERE / "corpus"
FAKE = HERE / "fakes" / "fake_driver.py"

BOOM = """\
id: fx-boom
title: A recall whose query the fake drivers choke on
clauses: [FX-RUN-ID]
provenance: derived
agents: []
team:
  learnings/redis-timeout.md: |
    ---
    title: Redis client times out under load
    ---
    redis
steps:
  - recall: boom redis
    as: r1
expect:
  steps:
    r1: {exit: 0}
"""

STOP = """\
id: fx-read-then-stop
title: A Read and then the Stop of the same session upvote the recalled doc
clauses: [FX-ADOPT-READ]
provenance: spec-example
agents: [claude]
team:
  learnings/redis-timeout.md: |
    ---
    title: Redis client times out under load
    ---
    redis
steps:
  - recall: redis
    as: r1
    env: {CLAUDE_CODE_SESSION_ID: ses-bob}
  - hook: claude/post-tool-use-read
    set: {session_id: ses-bob, tool_input.file_path: "${path:learnings/redis-timeout}"}
  - hook: claude/stop
    set: {session_id: ses-bob}
expect:
  votes:
    redis-timeout: {recalled_count: 1, upvoted_count: 1}
"""

EXPECTATIONS = """\
[fx-designed-to-fail]
status = "fail"
reason = "counts one recall once, as it should"

[fx-recall-prints-hit]
status = "fail"
reason = "listed on purpose, so that its pass is an xpass"

[fx-recall-user-scope-shadowed]
status = "skip"
reason = "left out on purpose"
"""

REAL_STOP = HERE.parents[1] / "payloads" / "claude" / "stop.json"


def fake_impl(directive: str) -> str:
    return f"{sys.executable} {FAKE} {directive}"


def write_scenario(root: Path, area: str, name: str, text: str) -> None:
    path = root / "scenarios" / area / f"{name}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def corpus(root: Path) -> Path:
    """The fixture corpus with the two scenarios above and Claude's real Stop payload."""
    dest = root / "corpus"
    shutil.copytree(CORPUS, dest)
    write_scenario(dest, "recall", "fx-boom", BOOM)
    write_scenario(dest, "attribution", "fx-read-then-stop", STOP)
    shutil.copy(REAL_STOP, dest / "payloads" / "claude" / "stop.json")
    return dest


def run(corpus_root: Path, report: Path, *argv: str) -> int:
    out, err = io.StringIO(), io.StringIO()
    return cli.main(["--corpus", str(corpus_root), "run", "--report", str(report), *argv], out, err)


def five_runs(root: Path) -> list[Path]:
    """The five reports, in column order."""
    corpus_root = corpus(root)
    exp = root / "fake-crash.toml"
    exp.write_text(EXPECTATIONS, encoding="utf-8")
    plan = [("reference", ()), ("crash", ("--impl", fake_impl("crash"), "--expectations", str(exp))),
            ("few", ("--impl", fake_impl("few"))), ("garbage", ("--impl", fake_impl("garbage"))),
            ("hang", ("--impl", fake_impl("hang"), "--timeout", "3"))]
    reports = []
    for name, argv in plan:
        report = root / f"{name}.jsonl"
        run(corpus_root, report, *argv)
        reports.append(report)
    return reports


# -- three implementations over the whole corpus, without running it --------------------------
def _recall_text(case_id: str, query: str, n: int) -> str:
    hits = "".join(f"[{i}/{n}] learning: {query} note {i} for {case_id} [workspace]\nFile: ${{path:learnings/{case_id}-{i}}}\n"
                   f"Tags: redis, timeout\nRelated: → REFERENCES ${{path:docs/{case_id}-ref}}\n\n"
                   f"The client's default socket timeout is one second; raise it for {query}.\n\n"
                   for i in range(1, n + 1))
    return f"--- [teamai:recall:start] --- ({n} results) run=${{r1.run}}\n\n{hits}--- [teamai:recall:end] ---\n"


def _line(scenario_facts: dict, case: dict, column: int, index: int) -> dict:
    """One synthetic case line: column 0 passes everything, column 1 fails four cases in five
    (each with mismatches, an explanation and its observed state), column 2 passes but differs
    on a decision in one case in ten and cannot run one in twenty."""
    plan = scenario_facts.get("plan") or []
    steps = []
    for i, step in enumerate(plan):
        action = next((a for a in ("recall", "hook", "pull", "stats", "review", "contribute") if a in step), "write")
        out = _recall_text(case["id"], str(step.get("recall")), 2 + i % 2) if action == "recall" else ""
        steps.append({"index": i, "action": action, "name": step.get("as"), "now": f"2026-12-01T10:00:0{i % 10}.000Z",
                      "exit": 0, "stdout": out, "stderr": ""})
    log = [{"kind": "run", "ts": "2026-12-01T10:00:00.000Z", "run": "${r1.run}", "session": f"ses-{index}",
            "docs": [{"key": f"{case['id']}-1", "scope": "workspace", "eligible": True}]}] + [
        {"kind": "evidence", "ts": f"2026-12-01T10:00:0{k}.000Z", "session": f"ses-{index}",
         "path": f"${{path:learnings/{case['id']}-{k}}}"} for k in range(1, 4)]
    votes = {f"{case['id']}-1": {"recalled_count": 1, "upvoted_count": 1, "last_recalled_at": "2026-12-01T10:00:00.000Z"}}
    line = {"kind": "case", **case, "outcome": "pass", "message": "", "mismatches": [], "steps": steps,
            "duration": 0.05, "reason": "", "lacking": [], "held": ["spec"],
            "levels": {"spec": "pass", "decisions": {}, "profile": "unchecked"},
            "rerun": f"teamai-conformance run --only {case['id']} --impl impl{column}",
            "observed": {"votes": votes, "log": log, "stats": None}, **scenario_facts}
    if column == 0:
        line["levels"]["profile"] = "pass"
        line["held"] = ["spec", "decision", "profile"]
    elif column == 1 and index % 5:
        key = f"{case['id']}-1"
        mismatches = [{"path": f"expect.votes.{key}.upvoted_count", "message": "vote counter differs", "expected": 1,
                       "actual": 0, "level": "spec"},
                      {"path": "expect.log_contains[0]", "message": "no log line matches it; the closest is shown",
                       "expected": log[1], "actual": log[2], "level": "spec"}]
        words = [f"reference: read of ${{path:learnings/{key}}} by session ses-{index} (read, exact path, status ok)",
                 "implementation: no such line"]
        line.update(outcome="fail", message=f"{mismatches[0]['path']}: vote counter differs", mismatches=mismatches,
                    levels={"spec": "fail", "decisions": {}, "profile": "unchecked"},
                    explanation={"replay": "fail", "reference": "pass", "log_compared": True,
                                 "summary": "step 2 [hook claude/post-tool-use-read]: evidence not recorded",
                                 "first": {"index": 1, "label": "hook claude/post-tool-use-read", "now": "2026-12-01T10:00:01.000Z",
                                           "decisions": [{"kind": "evidence", "decision": "evidence not recorded",
                                                          "words": words, "reference": log[1], "implementation": None}],
                                           "notes": ["tool 'Read' is in the read category",
                                                     f"evidence: ${{path:learnings/{key}}} (under the knowledge roots)"]},
                                 "chains": [{"path": mismatches[0]["path"], "key": key, "counter": "upvoted_count",
                                             "lines": [f"{key}.upvoted_count: in the reference step 3 [hook claude/stop] "
                                                       "raises it to 1; in the implementation never raises it",
                                                       f"the reference credits {key} with the read of ${{path:learnings/{key}}} "
                                                       f"by session ses-{index} at 2026-12-01T10:00:01.000Z (step 2)",
                                                       "  the read: the implementation recorded no evidence for it",
                                                       "  run ${r1.run} (step 1) printed it; implementation: recorded, printing it"]}]},
                    blame={"clause": "EVIDENCE-LINE", "why": "step 2: evidence not recorded"})
        line["observed"] = {"votes": {key: {**votes[key], "upvoted_count": 0}}, "log": log[:1], "stats": None}
    elif column == 2 and index % 20 == 0:
        line.update(outcome="not-applicable", lacking=["hooks"], steps=[], levels={}, message="needs hooks")
        line.pop("observed")
    elif column == 2 and index % 10 == 0:
        line["levels"]["decisions"] = {"SHELL-QUOTING": "differ"}
        line["mismatches"] = [{"path": "decide.SHELL-QUOTING.votes.x.upvoted_count", "message": "vote counter differs",
                               "expected": 1, "actual": 0, "level": "decision", "decision": "SHELL-QUOTING"}]
        line["message"] = "differs on SHELL-QUOTING"
    return line


def three_implementations(out_dir: Path) -> list[Path]:
    """Reports of three implementations over the whole project corpus, written without running it."""
    import json

    from conformance.corpus import clauses as clause_catalogue
    from conformance.corpus import read as corpus_mod
    from conformance.reports import jsonl as report_jsonl

    loaded = corpus_mod.load(HERE.parents[1])
    facts = report_jsonl.facts(loaded.scenarios, loaded.payloads)
    texts = report_jsonl.clause_texts(clause_catalogue.load(loaded.clauses_path))
    paths = []
    for column, name in enumerate(("reference", "broken", "another")):
        lines = []
        for index, s in enumerate(loaded.scenarios):
            case = {"id": s.id, "title": s.title, "area": s.area, "agents": s.agents, "clauses": s.clauses}
            lines.append(_line(facts[s.id], case, column, index))
        head = {"kind": "header", "report": 1, "implementation": {"name": name, "version": "1", "impl": f"impl{column}"},
                "corpus": {"scenarios": len(lines)}, "started": "2026-12-01T10:00:00Z", "clauses": texts}
        from collections import Counter

        foot = {"kind": "footer", "totals": dict(Counter(x["outcome"] for x in lines)), "finished": "2026-12-01T10:02:00Z",
                "exit": 1 if column == 1 else 0}
        path = out_dir / f"{name}.jsonl"
        path.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in (head, *lines, foot)), encoding="utf-8")
        paths.append(path)
    return paths
