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
