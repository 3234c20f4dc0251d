"""Sixteen processes reducing one log at once, Stops of many sessions and pulls interleaved: every
decided read gets one consumed mark, every credit one vote, and the votes equal those of one
reduce of the same log from scratch.

Real processes (each runs a few reduces in a row, so they overlap at every stage: planning, the
ledger's lock, the log's lock), bounded in time by the subprocesses' timeout, not measured.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

from reference.state import ledger
from reference.team import config

from .logs import claim, doc, evidence, run, ts, write

ROOT = Path(__file__).resolve().parents[2]
WORKERS = 16
SESSIONS = 24

_WORKER = """
import os, random, sys
from reference import reducer
from reference.state import retention
from reference.team import config
cfg = config.load(os.environ)
rnd = random.Random(int(sys.argv[1]))
for _ in range(int(sys.argv[2])):
    if rnd.random() < 0.3:
        reducer.reduce(cfg, print)
        retention.prune(cfg, print)
    else:
        reducer.reduce(cfg, print, "ses-%02d" % rnd.randrange(int(sys.argv[3])))
"""


def _history(team: Path) -> list[dict]:
    rnd = random.Random(5)
    out = []
    for s in range(SESSIONS):
        session = f"ses-{s:02d}"
        base = s * 60.0
        for r in range(3):
            keys = rnd.sample([f"d{i}" for i in range(12)], 3)
            rid = f"r-{s:02d}-{r}"
            out.append(run(base + r * 10, rid, session, [doc(k, str(team / "learnings" / f"{k}.md")) for k in keys]))
            out.append(claim(base + r * 10 + 1, rid, session))
            for k in keys[:2]:
                out.append(evidence(base + r * 10 + 2 + keys.index(k), session, str(team / "learnings" / f"{k}.md")))
    return out


def _env(home: Path, team: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TEAMAI_")}
    env.update({"TEAMAI_HOME": str(home), "TEAMAI_TEAM": str(team), "TEAMAI_NOW": ts(6 * 3600),
                "TEAMAI_LOCK_WAIT": "60", "PYTHONPATH": str(ROOT)})
    return env


def _consumed(log: Path) -> list[dict]:
    out = []
    for raw in log.read_bytes().split(b"\n"):
        try:
            rec = json.loads(raw)
        except ValueError:
            continue
        if isinstance(rec, dict) and rec.get("kind") == "consumed":
            out.append(rec)
    return out


def test_sixteen_reducers_at_once_mark_each_read_once(tmp_path):
    team = tmp_path / "team"
    (team / "learnings").mkdir(parents=True)
    home = tmp_path / "home"
    env = _env(home, team)
    scope = config.load(env).active
    history = _history(team)
    write(Path(scope.log_path), history)
    procs = [subprocess.Popen([sys.executable, "-c", _WORKER, str(seed), "4", str(SESSIONS)], env=env, cwd=ROOT,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE) for seed in range(WORKERS)]
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err.decode()
    # one last pull settles whatever the random Stops left
    subprocess.run([sys.executable, "-m", "reference", "pull"], env=env, cwd=ROOT, check=True, capture_output=True,
                   timeout=120)
    marks = Counter((c["evidence"]["ts"], c["evidence"]["session"], c["evidence"]["path"])
                    for c in _consumed(Path(scope.log_path)))
    twice = {ident: n for ident, n in marks.items() if n > 1}
    assert not twice, f"{len(twice)} reads marked more than once"
    reads = [r for r in history if r["kind"] == "evidence"]
    assert len(marks) == len(reads)  # every read was decided
    credited = sum(1 for c in _consumed(Path(scope.log_path)) if c["credited"])
    votes = ledger.read(scope.ledger_path)
    assert sum(v["upvoted_count"] for v in votes.values()) == credited
    # the same log reduced once, from scratch, gives the same votes
    fresh_home = tmp_path / "fresh"
    fresh_env = _env(fresh_home, team)
    write(Path(config.load(fresh_env).active.log_path), history)
    subprocess.run([sys.executable, "-m", "reference", "pull"], env=fresh_env, cwd=ROOT, check=True,
                   capture_output=True, timeout=120)
    assert ledger.read(config.load(fresh_env).active.ledger_path) == votes
    shutil.rmtree(fresh_home)
