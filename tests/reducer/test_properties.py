"""Generated histories (``histories.py``) checked against the reducer's promises.

- A Stop that reads through the checkpoint decides exactly what a reduce of the whole log decides
  for the same sessions (a reduce with every line decoded, none of the shortcuts; and the way a
  reduce goes with many pending reads as well as with few): after every line, in a log that is only ever appended to (``stops``), in
  one that pulls prune hard at random moments (``pruned``), and in one where a write fails at
  random (``crashy``: the per-session ledger, the consumed lines or the checkpoint), with the
  next trigger retrying as it would.
- Running a Stop again at once changes nothing (no credit, no line, the same votes).
- A crash between writes costs nothing: ``crashy`` never gives a vote it must not give nor loses
  one (every credit in its log is one vote), and while lines arrive in time order it ends with
  exactly the decisions and votes of ``stops`` (and of one reduce at the end).
- The outcome of one reduce depends on the set of lines, not their order.
- Lines may arrive late (stamped up to 30 h before the newest), a run's first claim or a
  session's link may come after the lines they change: the checkpoint must notice each time.
- Never a vote it must not give: every consumed line is a counting read, in its run's window, of
  an eligible doc the run printed, not by the recall subagent from its run on; credits of one
  (root session, doc) are 24 h of read time apart, and every vote has a credit.

The test fails when the histories reach the reducer's branches, or the checkpoint's ways
(followed, compacted, read whole), in too small a share.
"""

from __future__ import annotations

import json
import random
import shutil
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any
from unittest import mock

from hypothesis import HealthCheck, event, settings
from hypothesis import strategies as st
from hypothesis.stateful import initialize, invariant, precondition, rule, run_state_machine_as_test

from reference import reducer
from reference.reducer import checkpoint, model
from reference.reducer.sessions import Roots
from reference.state import clock, retention, runlog, upvoted_file
from reference.state.clock import parse_instant
from tests.sessions.harness import profile  # derandomized in the suite, fresh in sessions_fresh

from . import logs
from .conftest import Lab
from .histories import DAY, DOCS, ROOTS, History, counts, short_shares

FAILURES = {"per-session ledger": (upvoted_file, "write_atomic"), "consumed lines": (runlog, "append_bytes"),
            "checkpoint": (checkpoint, "write_atomic")}
# The least share of histories that must reach each case (with late lines among the rules, turns
# are rarer than in test_schedules.py, which holds the reducer's branches to more). Repeated runs
# of 50 examples measured at least 0.63, 0.53, 0.23, 0.07, 0.19 for the branches and 0.98, 0.58,
# 0.64, 0.81, 0.86 for the rest; "covered" (a read consumed without a credit) is usually 0.5-0.8
# but once came to 12 in 59 histories (a fresh clone's CI run), so it asks for a tenth. "unsettled"
# is usually 0.18-0.36 but came to 1 in 51 histories once and to none in 56 in another CI run: too
# rare here for any floor, so it is not asked of this test; test_schedules.py's histories reach it
# in a tenth or more and ask for it, and test_checkpoint.py pins an unsettled run across a checkpoint.
# "outside window" and "maker's read" are usually reached in a third of the histories or more
# (0.18-0.63 in six runs of about 50) but both came to 3 in 53 in one fresh clone's CI run, when
# Hypothesis drew few late lines and subagents: here they are asked to be reached at all (2%, one
# history in 50), and test_schedules.py, whose histories reach them more evenly, holds them to more.
LEAST_SHARE = {"credit": 0.4, "covered": 0.1, "outside window": 0.02, "maker's read": 0.02,
               "stop followed the checkpoint": 0.6, "stop compacted the checkpoint": 0.25,
               "stop read the whole log for a line reaching back": 0.3, "a write failed": 0.3,
               "a prune dropped lines": 0.3}
LATE = (600, 2 * 3600, 20 * 3600, 30 * 3600)  # how long before the newest line a late line is stamped

TALLY: Counter[str] = Counter()


def _seconds(ts: str) -> float:
    return (parse_instant(ts) - logs.T0).total_seconds()


def _decided(decisions: list[Any]) -> list[tuple[Any, ...]]:
    return sorted((d.match.read.ident, d.match.key, d.match.run.run, d.credit) for d in decisions)


def _makers(log: list[dict[str, Any]]) -> list[tuple[tuple[str, str | None], float]]:
    """The recall subagent's actors (and their runs' times) that these lines name."""
    roots = Roots([c for c in log if c["kind"] == "link"])
    first: dict[str, tuple[Any, dict[str, Any]]] = {}
    for c in log:
        if c["kind"] == "claim":
            key = (c["ts"], c["session"], c["actor"].get("agent_id") or "")
            if c["run"] not in first or key < first[c["run"]][0]:
                first[c["run"]] = (key, c)
    out = []
    for run in (r for r in log if r["kind"] == "run"):
        claim = first[run["run"]][1] if run["run"] in first else None
        if run["caller"] != "teamai-recall" and not (claim and claim["actor"].get("agent_type") == "teamai-recall"):
            continue
        if claim is not None:
            out.append(((claim["session"], claim["actor"].get("agent_id")), _seconds(run["ts"])))
        elif run["via"] == "env" and run["unambiguous"]:
            # no claim: the agent id recall's environment named, else the anonymous actor of a child
            # session (in a root session that actor is the main agent, never presumed the maker)
            if run["actor"].get("agent_id"):
                out.append(((run["session"], run["actor"]["agent_id"]), _seconds(run["ts"])))
            elif roots.root(run["session"]) != run["session"]:
                out.append(((run["session"], None), _seconds(run["ts"])))
    return out


def _consumed(lab: Lab) -> Counter[tuple[Any, ...]]:
    return Counter((c["evidence"]["ts"], c["evidence"]["session"], c["evidence"]["path"], c["key"], c["run"],
                    c["credited"]) for c in lab.consumed())


class Checkpoints(History):
    def __init__(self) -> None:
        super().__init__()
        self.tmp = Path(tempfile.mkdtemp(prefix="checkpoints-"))
        self.labs = {name: Lab(self.tmp / name) for name in ("stops", "pruned", "crashy", "end")}
        self.team = self.labs["stops"].team
        for lab in self.labs.values():
            lab.team = self.team
        self.lines: list[dict[str, Any]] = []
        self.seen: set[str] = set()

    @initialize(chance=st.randoms(use_true_random=False))
    def choose_the_accidents(self, chance: Any) -> None:
        self.chance = chance  # when pulls prune and which writes fail

    def written(self, rec: dict[str, Any], session: str | None) -> None:
        self.lines.append(rec)
        for lab in self.labs.values():
            lab.append([rec])
        self._stop("stops", session)
        again = self.labs["stops"]
        log = again.log_path.read_bytes()
        votes = again.votes()
        second = reducer.reduce(again.cfg(self.t), again.warnings.append, session)
        assert second.credited == [] and second.consumed == 0
        assert again.log_path.read_bytes() == log and again.votes() == votes
        if self.chance.random() < 0.15:
            pruned = self.labs["pruned"]
            reducer.reduce(pruned.cfg(self.t), pruned.warnings.append)
            dropped = retention.prune(pruned.cfg(self.t), pruned.warnings.append, max_lines=self.chance.randint(4, 20))
            if dropped.after < dropped.before:
                self.seen.add("a prune dropped lines")
        self._stop("pruned", session)
        self._stop("crashy", session, self.chance.choice([None, None, None, *FAILURES]))

    def _stop(self, name: str, session: str | None, failure: str | None = None) -> None:
        """A Stop of ``session`` in copy ``name``, checked against a reduce of the whole log first."""
        lab = self.labs[name]
        cfg = lab.cfg(self.t)
        now = clock.micros(logs.ts(self.t))
        # The reference: every line decoded and judged (none of the shortcuts of a reduce).
        whole = reducer.build(reducer.Lines(lab.log_path.read_bytes() if lab.log_path.exists() else b""))
        if session is not None:
            via = reducer.plan(cfg, session, now)
            family = whole.roots.family({whole.roots.root(session)})
            assert _decided(via.decisions) == _decided(reducer.decide(whole, family))
            with mock.patch.object(model, "FEW", 0):  # the way a reduce with many pending reads goes
                assert _decided(reducer.plan(cfg, session, now).decisions) == _decided(via.decisions)
            if via.used:
                self.seen.add("stop compacted the checkpoint" if via.compact else "stop followed the checkpoint")
            elif via.matched:
                self.seen.add("stop read the whole log for a line reaching back")
        else:  # what a pull (or a Stop that cannot name its session) would decide
            assert _decided(reducer.plan(cfg, None, now).decisions) == _decided(reducer.decide(whole))
            with mock.patch.object(model, "FEW", 0):
                assert _decided(reducer.plan(cfg, None, now).decisions) == _decided(reducer.decide(whole))
        if failure is None:
            reducer.reduce(cfg, lab.warnings.append, session)
            return
        self.seen.add("a write failed")
        event(f"a write failed: {failure}")
        module, name_ = FAILURES[failure]
        with mock.patch.object(module, name_, side_effect=OSError("injected")):
            try:
                reducer.reduce(cfg, lab.warnings.append, session)
            except OSError:
                pass  # the hook notes it and exits 0; nothing was written
        if failure == "consumed lines":  # the next trigger, at once
            reducer.reduce(cfg, lab.warnings.append)
            retention.prune(cfg, lab.warnings.append)

    # --- lines that arrive late, or that change what older lines mean: the checkpoint must notice ---

    @precondition(lambda self: bool(self.runs))
    @rule(data=st.data(), ago=st.sampled_from(LATE), actor=st.sampled_from((None, "ag-1")))
    def a_read_written_late(self, data: st.DataObject, ago: int, actor: str | None) -> None:
        run = data.draw(st.sampled_from(self.runs[-4:]))
        session = run["settled"] or data.draw(st.sampled_from(self.sessions))
        tree = data.draw(st.sampled_from(sorted(run["docs"])))
        self._write_late(logs.evidence(0, session, self._path(tree), actor), session, ago)

    @rule(data=st.data(), ago=st.sampled_from(LATE), claimed=st.booleans(),
          picks=st.lists(st.sampled_from(range(len(DOCS))), min_size=1, max_size=2, unique=True))
    def a_run_written_late(self, data: st.DataObject, ago: int, claimed: bool, picks: list[int]) -> None:
        session = data.draw(st.sampled_from(self.sessions))
        run_id = f"late-{len(self.runs):04d}-4000-8000-{len(self.runs):012d}"
        docs = [DOCS[i] for i in picks]
        self._write_late(logs.run(0, run_id, None if claimed else session, [logs.doc(k, self._path(t)) for k, t in docs]),
                         None, ago)
        if claimed:
            self._write_late(logs.claim(0, run_id, session), session, ago - 1)
        self.runs.append({"run": run_id, "ts": self.t - ago, "docs": {t for _, t in docs},
                          "settled": session, "maker": None, "claimed": claimed})

    @precondition(lambda self: any(not r["claimed"] for r in self.runs))
    @rule(data=st.data(), ago=st.sampled_from((0, *LATE)))
    def a_first_claim_written_late(self, data: st.DataObject, ago: int) -> None:
        """A run nobody claimed yet (named by the environment, or by no one) gets its first claim."""
        run = data.draw(st.sampled_from([r for r in self.runs if not r["claimed"]]))
        session = data.draw(st.sampled_from(self.sessions))
        self._write_late(logs.claim(0, run["run"], session), session, ago)  # (late even when ago is 0)
        run.update(claimed=True, settled=session)

    @precondition(lambda self: len(self.sessions) > 2)
    @rule(data=st.data())
    def a_session_linked_after_it_worked(self, data: st.DataObject) -> None:
        child = data.draw(st.sampled_from(self.sessions[2:] + list(ROOTS)))
        parent = data.draw(st.sampled_from([s for s in self.sessions if s != child]))
        self.late = getattr(self, "late", 0) + 1
        self._write(logs.link(0, child, parent), child)

    @invariant()
    def never_a_vote_it_must_not_give(self) -> None:
        self.no_vote_it_must_not_give("stops")

    def no_vote_it_must_not_give(self, name: str) -> None:
        lab = self.labs[name]
        log = lab.log()
        votes = lab.votes()
        assert "style" not in votes
        reads = {(r["ts"], r["session"], r["path"]): r for r in log if r["kind"] == "evidence"}
        runs = {r["run"]: r for r in log if r["kind"] == "run"}
        credits: dict[tuple[str, str], list[float]] = {}
        for at, c in enumerate(log):
            if c["kind"] != "consumed":
                continue
            ev = c["evidence"]
            read = reads[(ev["ts"], ev["session"], ev["path"])]
            run = runs[c["run"]]
            assert counts(read)
            assert 0 <= _seconds(read["ts"]) - _seconds(run["ts"]) <= DAY
            assert any(d["key"] == c["key"] and d["eligible"] for d in run["docs"])
            # Not the recall subagent's own read, from its run on, as far as the log knew when the read
            # was consumed (a first claim or a link written later may mark a run after a credit was given).
            reader = (read["session"], read["actor"].get("agent_id"))
            assert not any(maker == reader and since <= _seconds(read["ts"]) for maker, since in _makers(log[:at]))
            if c["credited"]:
                credits.setdefault((c["session"], c["key"]), []).append(_seconds(ev["ts"]))
        for times in credits.values():  # at most once per doc per session in any 24 h of reads
            times.sort()
            assert all(b - a >= DAY for a, b in zip(times, times[1:], strict=False))
        assert sum(votes.values()) == sum(len(t) for t in credits.values())
        assert json.dumps(votes)

    def teardown(self) -> None:
        try:
            if not self.lines:
                return
            end = self.labs["end"]
            shuffled = Lab(self.tmp / "shuffled")
            shuffled.team = self.team
            order = list(self.lines)
            random.Random(len(order)).shuffle(order)
            shuffled.write(order)
            for lab in (*self.labs.values(), shuffled):
                reducer.reduce(lab.cfg(self.t + 1), lab.warnings.append)
            assert shuffled.votes() == end.votes()  # one reduce: the order of the lines does not matter
            crashy, stops = self.labs["crashy"], self.labs["stops"]
            self.no_vote_it_must_not_give("crashy")  # a failed write never doubles a vote nor loses one
            if not getattr(self, "late", 0):  # in time order, with claims and links in time, a crash changes nothing
                assert _consumed(crashy) == _consumed(stops), crashy.warnings
                assert crashy.votes() == stops.votes() == end.votes()
            TALLY.update(self.reached(end.consumed()) | self.seen)
            TALLY["histories"] += 1
        finally:
            shutil.rmtree(self.tmp, ignore_errors=True)


def test_checkpointed_stops_decide_what_a_full_reduce_decides() -> None:
    TALLY.clear()
    run_state_machine_as_test(Checkpoints, settings=settings(
        **profile(50), stateful_step_count=25, database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much]))
    short = short_shares(TALLY, LEAST_SHARE)
    assert not short, f"reached in too few histories: {short} ({dict(TALLY)})"
