"""``stats`` and ``pull`` through the command line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from reference.state import storage

from .conftest import run_cli
from .logs import claim, evidence, link, run

ROOT = Path(__file__).resolve().parents[2]


def _snapshot(lab) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for p in lab.home.rglob("*") if p.is_file()}


def test_stats_rows_newest_first_with_their_columns(lab):
    lab.write([
        run(0, "r-a", "ses-a", [lab.doc("d1"), lab.doc("d2")]),
        run(10, "r-a2", "ses-a", [lab.doc("d1"), lab.doc("u1", eligible=False)]),
        run(20, "r-b", None, [lab.doc("d1")]), claim(21, "r-b", "ses-b", agent="codex"),
        run(30, "r-k", "kid", [lab.doc("d3")], agent="opencode"), link(31, "kid", "ses-c"),
        run(40, "r-x", "ses-x", [lab.doc("d1")], unambiguous=False),  # unsettled: no row
        evidence(50, "ses-a", lab.path("d1")), evidence(51, "ses-a", lab.path("d2"), agent_id="sub"),
        evidence(52, "ses-c", lab.path("d3")),
    ])
    lab.reduce(at=100)
    lab.append([evidence(60, "ses-b", lab.path("d1"))])  # pending: not adopted yet
    code, out, err = run_cli(lab, "stats", "--json", at=200)
    assert code == 0, err
    assert json.loads(out) == [
        {"session": "ses-c", "agent": "opencode", "runs": 1, "recalled": 1, "adopted": 1},
        {"session": "ses-b", "agent": "codex", "runs": 1, "recalled": 1, "adopted": 0},
        {"session": "ses-a", "agent": "claude", "runs": 2, "recalled": 3, "adopted": 2},
    ]
    code, out, _ = run_cli(lab, "stats", at=200)
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "Recall (last 10 sessions)"
    assert lines[1].split() == ["session", "agent", "runs", "recalled", "adopted"]
    assert [line.split() for line in lines[2:]] == [["ses-c", "opencode", "1", "1", "1"],
                                                   ["ses-b", "codex", "1", "1", "0"],
                                                   ["ses-a", "claude", "2", "3", "2"]]


def test_stats_counts_a_credit_under_the_root_its_session_has_now(lab):
    # The child credits the doc as a root of its own; its link arrives after that Stop, so the
    # credit's consumed line names the child. The run and the credit both count for the parent now.
    lab.write([run(0, "r-k", "kid", [lab.doc("d1")], agent="opencode"), evidence(5, "kid", lab.path("d1"))])
    lab.reduce(at=10)
    lab.append([link(20, "kid", "ses-p"), evidence(30, "ses-p", lab.path("d1"))])
    lab.reduce(at=40)  # the parent's read is covered by the child's credit
    code, out, err = run_cli(lab, "stats", "--json", at=50)
    assert code == 0, err
    assert json.loads(out) == [{"session": "ses-p", "agent": "opencode", "runs": 1, "recalled": 1, "adopted": 1}]


def test_stats_shows_only_the_last_ten_sessions(lab):
    lab.write([run(i * 60, f"r-{i}", f"ses-{i:02d}", [lab.doc("d1")]) for i in range(12)])
    code, out, _ = run_cli(lab, "stats", "--json")
    assert code == 0
    assert [row["session"] for row in json.loads(out)] == [f"ses-{i:02d}" for i in range(11, 1, -1)]


def test_stats_without_runs_says_so_and_writes_nothing(lab):
    code, out, _ = run_cli(lab, "stats")
    assert code == 0 and out == "Recall: no recall data yet.\n"
    lab.write([evidence(5, "ses-a", lab.path("d1"))])
    before = _snapshot(lab)
    code, out, _ = run_cli(lab, "stats")
    assert out == "Recall: no recall data yet.\n"
    assert run_cli(lab, "stats", "--json")[1] == "[]\n"
    assert _snapshot(lab) == before


def test_stats_is_read_only_even_with_pending_reads(lab):
    lab.write([run(0, "r1", "ses-a", [lab.doc("d1")]), evidence(5, "ses-a", lab.path("d1"))])
    before = _snapshot(lab)
    code, out, _ = run_cli(lab, "stats", "--json")
    assert json.loads(out)[0]["adopted"] == 0
    assert _snapshot(lab) == before


def test_pull_drains_sessions_without_stop_and_prunes(lab):
    lab.write([run(0, "r1", "ses-a", [lab.doc("d1")]), evidence(5, "ses-a", lab.path("d1")),
               run(0, "r2", "ses-b", [lab.doc("d1")]), evidence(6, "ses-b", lab.path("d1"))])
    with open(lab.log_path, "ab") as fh:
        fh.write(b"{broken\n")
    code, out, err = run_cli(lab, "pull")
    assert code == 0, err
    assert out.splitlines()[0] == "pull: 2 upvote(s) credited, 2 read(s) consumed, 0 read(s) pending"
    assert "1 malformed" in out and "malformed line" in err
    assert lab.votes() == {"d1": 2}
    assert b"broken" not in lab.log_path.read_bytes()
    assert run_cli(lab, "pull")[1].startswith("pull: 0 upvote(s) credited, 0 read(s) consumed")


def test_pull_with_busy_ledger_exits_4_then_credits(lab):
    lab.write([run(0, "r1", "ses-a", [lab.doc("d1")]), evidence(5, "ses-a", lab.path("d1"))])
    with storage.locked(lab.cfg().active.ledger_lock, "test"):
        code, _, err = run_cli(lab, "pull")
    assert code == 4 and "votes ledger stayed locked" in err
    assert lab.consumed() == []
    assert run_cli(lab, "pull")[0] == 0
    assert lab.votes() == {"d1": 1}


def test_stats_json_as_a_real_process(lab):
    lab.write([run(0, "r1", "ses-a", [lab.doc("d1")])])
    env = {k: v for k, v in os.environ.items() if not k.startswith("TEAMAI_")}
    env.update(lab.env(10))
    proc = subprocess.run([sys.executable, "-m", "reference", "stats", "--json"], capture_output=True,
                          env=env, cwd=ROOT, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == [{"session": "ses-a", "agent": "claude", "runs": 1, "recalled": 1,
                                        "adopted": 0}]
