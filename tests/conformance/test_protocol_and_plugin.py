"""The wire format, the server loop, the sandbox, and the pytest plugin on a corpus of its own."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from conformance.drivers.reference import stats_rows
from conformance.running import protocol, sandbox
from conformance.server import serve

HERE = Path(__file__).resolve().parent
pytest_plugins = ["pytester"]


def test_messages_are_checked_against_their_schemas():
    protocol.check({"cmd": "recall", "seq": 1, "now": "t", "env": {}, "query": "q", "caller": None, "check": False},
                   "recall", "request")
    with pytest.raises(protocol.ProtocolViolation, match="query"):
        protocol.check({"cmd": "recall", "seq": 1, "now": "t", "env": {}, "caller": None, "check": False},
                       "recall", "request")
    with pytest.raises(protocol.ProtocolViolation, match="exit"):
        protocol.check({"seq": 1, "ok": True, "stdout": "", "stderr": ""}, "hook", "response")
    protocol.check({"seq": 1, "ok": False, "error": {"message": "boom"}}, "hook", "response")
    with pytest.raises(protocol.ProtocolViolation):
        protocol.decode(b"[1, 2]")


def test_server_answers_every_line_and_stops_at_stop():
    def handler(message):
        if message["cmd"] == "recall":
            raise RuntimeError("nope")
        return {"seq": message["seq"], "ok": True}

    lines = b"not json\n" + protocol.encode({"cmd": "recall", "seq": 2}) + protocol.encode({"cmd": "stop", "seq": 3}) \
        + protocol.encode({"cmd": "close", "seq": 4})
    out = io.BytesIO()
    assert serve(handler, io.BytesIO(lines), out) == 0
    answers = [json.loads(x) for x in out.getvalue().splitlines()]
    assert [a["ok"] for a in answers] == [False, False, True]
    assert answers[1]["seq"] == 2 and "RuntimeError: nope" in answers[1]["error"]["message"]


def test_sandbox_layout_and_git_repo(tmp_path):
    layout = sandbox.materialize(str(tmp_path), {
        "team": {"rules/payments.md": "rule\n", "docs/a.md": "doc\n"}, "user_team": {},
        "learnings_roots": [{"x.md": "one"}, {"ops/y.md": "two"}], "withheld": ["pay", "ops"],
        "repo": {"branches": {"fix/payments": {"rules/payments.md": "changed\n", "docs/a.md": None}}}})
    assert Path(layout.team, "rules", "payments.md").read_text() == "rule\n"
    assert layout.user_team and Path(layout.user_team).is_dir()
    assert Path(layout.learnings[1], "ops", "y.md").read_text() == "two"
    assert Path(layout.withheld_file).read_text() == "pay\nops\n"
    show = subprocess.run(["git", "show", "fix/payments:rules/payments.md"], cwd=layout.repo, capture_output=True,
                          text=True, check=True)
    assert show.stdout == "changed\n"
    listed = subprocess.run(["git", "ls-tree", "-r", "--name-only", "fix/payments"], cwd=layout.repo,
                            capture_output=True, text=True, check=True).stdout.split()
    assert listed == ["rules/payments.md"]
    (tmp_path / "u").mkdir()
    unreadable = sandbox.materialize(str(tmp_path / "u"), {"team": {}, "withheld": "unreadable"})
    assert unreadable.withheld_file
    with pytest.raises(OSError):
        Path(unreadable.withheld_file).read_text()


def test_stats_rows_from_known_shapes():
    assert stats_rows([{"session": "s"}]) == [{"session": "s"}]
    assert stats_rows({"sessions": [1]}) == [1] and stats_rows({"recall": {"sessions": [2]}}) == [2]
    assert stats_rows({"other": 1}) is None


def test_plugin_collects_scenarios_as_items_named_by_case_id(pytester):
    for name in ("scenarios", "payloads"):
        shutil.copytree(HERE / "corpus" / name, pytester.path / name)
    pytester.makeini("[pytest]\n")
    result = pytester.runpytest_subprocess("scenarios", "-q", "-p", "no:cacheprovider", "-p", "no:randomly")
    result.assert_outcomes(passed=3, failed=1)
    result.stdout.fnmatch_lines(["*FAIL fx-designed-to-fail*", "*first difference at expect.votes*"])
    only = pytester.runpytest_subprocess("scenarios", "-q", "-k", "fx-recall-prints-hit", "-p", "no:cacheprovider")
    only.assert_outcomes(passed=1)


def test_plugin_warns_about_unknown_ids_in_the_reference_expectations(pytester):
    # the project sits below the working folder, so its conformance/ folder cannot shadow the package
    project = pytester.path / "project"
    for name in ("scenarios", "payloads"):
        shutil.copytree(HERE / "corpus" / name, project / name)
    tracked = project / "conformance" / "expectations" / "reference.toml"
    tracked.parent.mkdir(parents=True)
    tracked.write_text('[fx-designed-to-fail]\nstatus = "fail"\nreason = "on purpose"\n'
                       '\n[fx-gone]\nstatus = "fail"\nreason = "renamed"\n')
    (project / "pytest.ini").write_text("[pytest]\n")
    result = pytester.runpytest_subprocess("project/scenarios", "--rootdir", "project", "-q", "-p",
                                           "no:cacheprovider")
    result.assert_outcomes(passed=3, xfailed=1, warnings=1)
    result.stdout.fnmatch_lines(["*reference.toml names 1 case the corpus does not have: fx-gone*"])
