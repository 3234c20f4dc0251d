"""Generated histories of runs, claims, reads, links and Stops, checked against the reducer's
promises: idempotent, independent of line order, and never a vote it must not give."""

from __future__ import annotations

import json
import random
import shutil
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, event, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from reference import reducer
from reference.clock import parse_instant

from . import logs
from .conftest import Lab

SESSIONS = ("s1", "s2", "k1", "k2")
AGENT_IDS = (None, "a1", "a2")
DOCS = ("d1", "d2", "u1")  # u1 comes from the user scope: never eligible
DAY = 24 * 3600


def _seconds(ts: str) -> float:
    return (parse_instant(ts) - logs.T0).total_seconds()


class History(RuleBasedStateMachine):
    @initialize()
    def setup(self) -> None:
        self.tmp = Path(tempfile.mkdtemp(prefix="reducer-"))
        self.lab = Lab(self.tmp / "main")
        self.t = 0.0
        self.runs: list[str] = []
        self.lines: list[dict[str, Any]] = []
        self.checks = 0

    def teardown(self) -> None:
        if hasattr(self, "tmp"):
            shutil.rmtree(self.tmp, ignore_errors=True)

    def _add(self, rec: dict[str, Any]) -> None:
        self.t += 1  # every line gets its own second, so a read is known by its ts
        rec["ts"] = logs.ts(self.t)
        self.lines.append(rec)
        self.lab.append([rec])

    @rule(wait=st.sampled_from([60, 3600, 6 * 3600, 23 * 3600, DAY - 1, DAY + 1]))
    def tick(self, wait: int) -> None:
        self.t += wait

    @rule(session=st.sampled_from((None, *SESSIONS)), unambiguous=st.booleans(), caller=st.booleans(),
          docs=st.lists(st.sampled_from(DOCS), unique=True, max_size=3))
    def recall(self, session: str | None, unambiguous: bool, caller: bool, docs: list[str]) -> None:
        run_id = f"run-{len(self.runs)}"
        self.runs.append(run_id)
        self._add(logs.run(0, run_id, session, [self.lab.doc(d, eligible=d != "u1") for d in docs],
                           unambiguous=unambiguous, caller="teamai-recall" if caller else None))

    @precondition(lambda self: bool(self.runs))
    @rule(data=st.data(), session=st.sampled_from(SESSIONS), agent_id=st.sampled_from(AGENT_IDS),
          recall_subagent=st.booleans())
    def claim(self, data: st.DataObject, session: str, agent_id: str | None, recall_subagent: bool) -> None:
        run_id = data.draw(st.sampled_from(self.runs))
        self._add(logs.claim(0, run_id, session, agent_id, "teamai-recall" if recall_subagent else None))

    @rule(session=st.sampled_from(SESSIONS), agent_id=st.sampled_from(AGENT_IDS), doc=st.sampled_from(DOCS),
          status=st.sampled_from(["success", "success", "unknown", "failure"]), simple=st.booleans(),
          exact=st.booleans())
    def read(self, session: str, agent_id: str | None, doc: str, status: str, simple: bool, exact: bool) -> None:
        path = self.lab.path(doc) if exact else f"team/learnings/{doc}.md"
        self._add(logs.evidence(0, session, path, agent_id, exact=exact, status=status, simple=simple))

    @rule(child=st.sampled_from(("k1", "k2")), parent=st.sampled_from(SESSIONS))
    def link(self, child: str, parent: str) -> None:
        self._add(logs.link(0, child, parent))

    @rule()
    def stop(self) -> None:
        # The Stop path decodes only what pending reads need; it must decide what a full read does.
        data = self.lab.log_path.read_bytes() if self.lab.log_path.exists() else b""
        decided = [[(d.match.read.ident, d.match.key, d.match.run.run, d.credit)
                    for d in reducer.decide(reducer.build(reducer._Lines(data), only_pending=fast))]
                   for fast in (False, True)]
        assert decided[0] == decided[1]
        # A Stop that names its session decides, for that session's family, what a full reduce does.
        full = reducer.build(reducer._Lines(data))
        every = [(d.match.read.root, (d.match.read.ident, d.match.key, d.match.run.run, d.credit))
                 for d in reducer.decide(full)]
        for session in SESSIONS:
            sliced = reducer.build(reducer._Lines(reducer.family_slice(data, session)), only_pending=True,
                                   stopping=session)
            mine = [(d.match.read.ident, d.match.key, d.match.run.run, d.credit) for d in reducer.decide(sliced)]
            assert mine == [item for root, item in every if root == full.roots.root(session)]
        before = self.lab.votes()
        first = self.lab.reduce(at=self.t)
        after_once = self.lab.votes()
        log_once = self.lab.log_path.read_bytes() if self.lab.log_path.exists() else b""
        again = self.lab.reduce(at=self.t)
        assert again.credited == [] and again.consumed == 0
        assert self.lab.votes() == after_once
        assert (self.lab.log_path.read_bytes() if self.lab.log_path.exists() else b"") == log_once
        assert sum(after_once.values()) - sum(before.values()) == len(first.credited)
        event(f"stop credited {min(len(first.credited), 2)}")
        if first.consumed > len(first.credited):
            event("stop consumed a covered read")

    @rule(seed=st.integers(0, 2**16))
    def order_does_not_matter(self, seed: int) -> None:
        self.checks += 1
        plain = [r for r in self.lines]
        shuffled = list(plain)
        random.Random(seed).shuffle(shuffled)
        outcomes = []
        for n, order in enumerate((plain, shuffled)):
            other = Lab(self.tmp / f"order-{self.checks}-{n}")
            other.team = self.lab.team  # the same printed paths
            other.write(order)
            other.reduce(at=self.t)
            outcomes.append(other.votes())
        assert outcomes[0] == outcomes[1]

    @invariant()
    def never_a_vote_it_must_not_give(self) -> None:
        if not hasattr(self, "lab"):
            return
        log = self.lab.log()
        votes = self.lab.votes()
        assert "u1" not in votes
        reads = {(r["ts"], r["session"], r["path"]): r for r in log if r["kind"] == "evidence"}
        runs = {r["run"]: r for r in log if r["kind"] == "run"}
        credits: dict[tuple[str, str], list[float]] = {}
        for at, c in enumerate(log):
            if c["kind"] != "consumed":
                continue
            ev = c["evidence"]
            read = reads[(ev["ts"], ev["session"], ev["path"])]
            run = runs[c["run"]]
            assert read["status"] == "success" or (read["status"] == "unknown" and read["simple"])
            assert 0 <= _seconds(read["ts"]) - _seconds(run["ts"]) <= DAY
            assert any(d["key"] == c["key"] and d["eligible"] for d in run["docs"])
            # Not the recall subagent's own read: no run marked as the subagent's, known when the
            # read was consumed, was made by the reader (session + agent id).
            known = log[:at]
            claims: dict[str, list[dict[str, Any]]] = {}
            for x in known:
                if x["kind"] == "claim":
                    claims.setdefault(x["run"], []).append(x)
            reader = (read["session"], read["actor"].get("agent_id"))
            for other in (x for x in known if x["kind"] == "run"):
                first = min(claims.get(other["run"], []), default=None,
                            key=lambda x: (x["ts"], x["session"], x["actor"].get("agent_id") or ""))
                marked = other["caller"] == "teamai-recall" or (
                    first is not None and first["actor"].get("agent_type") == "teamai-recall")
                if not marked:
                    continue
                if first is not None:
                    maker = (first["session"], first["actor"].get("agent_id"))
                elif other["unambiguous"]:
                    maker = (other["session"], None)
                else:
                    continue
                assert reader != maker
            if c["credited"]:
                credits.setdefault((c["session"], c["key"]), []).append(_seconds(ev["ts"]))
        for times in credits.values():  # at most once per doc per session in any 24 h of reads
            times.sort()
            assert all(b - a >= DAY for a, b in zip(times, times[1:], strict=False))
        assert sum(votes.values()) <= sum(len(t) for t in credits.values())
        for key, count in votes.items():
            assert count >= 1 and any(k == key for (_, k) in credits)
        assert json.dumps(votes)  # the ledger stays readable


History.TestCase.settings = settings(max_examples=40, stateful_step_count=25, deadline=None,
                                     suppress_health_check=[HealthCheck.too_slow])
TestHistory = History.TestCase
