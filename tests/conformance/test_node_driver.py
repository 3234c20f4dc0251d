"""The Node example driver: a driver in another language, reading nothing but the protocol, passes
a slice of the corpus through ``teamai-conformance run --impl "node …"`` as the reference does."""

from __future__ import annotations

import io
import json
import shlex
import shutil
import sys
from pathlib import Path

import pytest
from project import every_clause_once

from conformance import cli
from conformance.running import applicability

ROOT = Path(__file__).resolve().parents[2]
DRIVER = ROOT / "conformance" / "drivers" / "examples" / "teamai-ref-driver.mjs"
# Recall cases citing every recall clause, and attribution, reducer, stats and contribute cases that
# need more of the driver: user scopes, learnings roots, repeat (not declared), held ledgers and a
# spoiled index (not declared).
SLICE = [*every_clause_once("recall"), "attr-claude-read-counts", "attr-codex-shell-read-counts", "attr-cursor-shell-recall-claims",
         "attr-claude-recall-subagent-own-read", "attr-opencode-task-link-child-read", "reduce-ineligible-user-doc",
         "rel-learnings-first-root", "stats-order-and-columns", "contrib-code-to-code",
         "retain-too-many-lines-backstop", "reduce-busy-ledger-then-pull", "review-example"]

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")


def _run(impl: str, report: Path) -> dict[str, dict]:
    argv = ["run", "--impl", impl, "--report", str(report)]
    for item in SLICE:
        argv += ["--only", item]
    cli.main(argv, io.StringIO(), io.StringIO())
    lines = [json.loads(x) for x in report.read_text().splitlines()]
    return {line["id"]: line for line in lines if "outcome" in line and "id" in line}


def test_the_node_driver_passes_what_the_reference_passes(tmp_path: Path):
    assert "python" not in DRIVER.read_text().lower().replace("python3 -m reference", "")  # no Python in it
    impl = shlex.join(["node", str(DRIVER), sys.executable, "-m", "reference"])
    node = _run(impl, tmp_path / "node.jsonl")
    reference = _run("reference", tmp_path / "reference.jsonl")
    assert set(node) == set(reference)
    for case, result in node.items():
        if result["outcome"] == "not-applicable":
            missing = result["message"]
            assert missing.startswith("the driver does not declare: ")
            # what its header says Node cannot do: a git repository, a file lock, the index's file
            assert set(missing.split(": ", 1)[1].split(", ")) <= {
                "repeat", "hold votes-ledger", "hold recall-log", "hold search-index", "command review",
                "spoil search-index", applicability.PROFILE_ONLY}, case
        else:
            assert (case, result["outcome"]) == (case, reference[case]["outcome"]), result.get("message")
    outcomes = [r["outcome"] for r in node.values()]
    # the recall cases about the reference's own output format are its profile's: n/a here
    assert set(outcomes) == {"pass", "not-applicable"} and outcomes.count("pass") >= 30


def test_a_step_the_driver_did_not_declare_is_refused_in_words(tmp_path: Path):
    import subprocess

    requests = [{"cmd": "start", "seq": 1, "protocol": 1}, {"cmd": "hold", "seq": 2, "now": "x", "what": "votes-ledger"},
                {"cmd": "stop", "seq": 3}]
    proc = subprocess.run(["node", str(DRIVER), sys.executable, "-m", "reference"], capture_output=True, timeout=60,
                          input="".join(json.dumps(r) + "\n" for r in requests).encode())
    answers = [json.loads(x) for x in proc.stdout.decode().splitlines()]
    assert [a["seq"] for a in answers] == [1, 2, 3] and proc.returncode == 0
    assert answers[0]["capabilities"]["hold"] == [] and answers[0]["implementation"]["version"] != "?"
    assert answers[1] == {"seq": 2, "ok": False, "error": answers[1]["error"]}
    assert "not declared: hold" in answers[1]["error"]["message"]
