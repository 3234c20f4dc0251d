"""Generated histories of agent sessions, in the domain's own words, for the reducer's stateful tests.

A history is what hooks and recall write while agents work: a turn runs a recall (its run line,
and the claim of the shell call that ran it, or a session named by the environment, or none) and
then reads what it printed, by the main agent, a subagent, the recall subagent itself or another
session, through a read tool or by a suffix, with every status; a reader comes back exactly 24 h
(or 24 h minus or plus one second, or 12 h, or 30 h) after an earlier read, with or without a new
recall; another session echoes a claimed run id later (Dan's case); child sessions start with a
link; time jumps around 24 h. The paths are real tree paths of every kind recall prints, plus an
inherited user-scope hit that is never eligible.

Two facts of the domain are kept, because no reducer could honour them otherwise: the claim of a
shell call is written in the same call as its run (a later claim is later by ``ts``, so it never
settles the run), and a child session's link is written before the child does anything. A late
first claim or a late link could move a read that a Stop has already credited, and credits are
never taken back (``reference/reducer/__init__.py``).

Subclasses say what happens to each line (``written``) and check what they promise; the base
class also judges, from what it generated, which of the reducer's branches a history reached.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from hypothesis import event
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, precondition, rule

from . import logs

DAY = 24 * 3600
# Real tree paths of the kinds recall prints: (vote key, path under the team folder).
DOCS = (("redis-timeout", "learnings/redis-timeout.md"),
        ("ops/deploy-freeze", "learnings/ops/deploy-freeze.md"),
        ("finance/payments", "rules/finance/payments.md"),
        ("runbook", "docs/runbook.md"),
        ("release", "skills/release/SKILL.md"))
USER_DOC = ("style", "user-team/learnings/style.md")  # an inherited user-scope hit: never eligible
ROOTS = ("ses-a", "ses-b")
SUBAGENTS = ("ag-1", "ag-2")
SETTLE = ("claim", "claim", "claim-recall-subagent", "env", "env-ambiguous", "none")
WAITS = (1, 60, 3600, 6 * 3600, 23 * 3600, DAY - 1, DAY, DAY + 1, 30 * 3600)
READERS = ("main", "main", "main", "subagent", "maker", "other session", "unrelated doc")
SPELLINGS = ("exact", "exact", "exact", "suffix")
STATUSES = (("success", True), ("success", True), ("success", True), ("success", False), ("unknown", True),
            ("unknown", False), ("failure", True))
AGAIN = (DAY - 1, DAY, DAY + 1, DAY // 2, 30 * 3600)

BRANCHES = ("credit", "covered", "outside window", "unsettled", "maker's read")


def counts(read: dict[str, Any]) -> bool:
    return read["status"] == "success" or (read["status"] == "unknown" and read["simple"])


class History(RuleBasedStateMachine):
    team: Any  # the team folder every copy of the log prints paths from

    def __init__(self) -> None:
        super().__init__()
        self.t = 0.0
        self.parent: dict[str, str] = {}
        self.sessions: list[str] = list(ROOTS)
        self.runs: list[dict[str, Any]] = []
        self.reads: list[dict[str, Any]] = []

    def written(self, rec: dict[str, Any], session: str | None) -> None:
        """A line was generated (``session``: whose event it is, None for a run nobody is named for)."""
        raise NotImplementedError

    # --- writing -------------------------------------------------------------------------------

    def _path(self, tree: str) -> str:
        return str(self.team.parent / tree) if tree == USER_DOC[1] else str(self.team / tree)

    def _write(self, rec: dict[str, Any], session: str | None, at: float | None = None) -> None:
        self.t = max(self.t + 1, at or 0.0)  # every line its own second, so a read is known by its ts
        rec["ts"] = logs.ts(self.t)
        self.written(rec, session)

    def _write_late(self, rec: dict[str, Any], session: str | None, ago: float) -> None:
        """A line stamped ``ago`` seconds before the newest one (a hook or recall that wrote late,
        or a clock that was wrong); every such line gets its own instant too."""
        self.t += 1
        self.late = getattr(self, "late", 0) + 1
        rec["ts"] = logs.ts(self.t - ago)[:-4] + f"{self.late % 1000:03d}Z"
        self.written(rec, session)

    def root(self, session: str) -> str:
        while session in self.parent:
            session = self.parent[session]
        return session

    def _recall(self, session: str, settle: str, caller: bool, actor: str | None,
                docs: list[tuple[str, str]], user_hit: bool = False, at: float | None = None) -> None:
        run_id = f"{len(self.runs):08d}-0000-4000-8000-{len(self.runs):012d}"
        printed = [logs.doc(key, self._path(tree)) for key, tree in docs]
        if user_hit:
            printed.append(logs.doc(USER_DOC[0], self._path(USER_DOC[1]), eligible=False, scope="user"))
        env_session = session if settle in ("env", "env-ambiguous") else None
        line = logs.run(0, run_id, env_session, printed, unambiguous=settle == "env",
                        caller="teamai-recall" if caller else None)
        self._write(line, env_session, at)
        info = {"run": run_id, "ts": self.t, "docs": {tree for _, tree in docs}, "settled": None, "maker": None,
                "claimed": False}
        if settle.startswith("claim"):
            marked = settle == "claim-recall-subagent"
            self._write(logs.claim(0, run_id, session, actor, "teamai-recall" if marked else None), session)
            info.update(settled=session, claimed=True, maker=(session, actor) if marked or caller else None)
        elif settle == "env":  # no agent id from the environment: the maker only in a child session
            info.update(settled=session, maker=(session, None) if caller and session in self.parent else None)
        self.runs.append(info)

    def _read(self, session: str, actor: str | None, tree: str, exact: bool, status: str, simple: bool,
              at: float | None = None) -> None:
        path = self._path(tree) if exact else f"team/{tree}"
        self._write(logs.evidence(0, session, path, actor, exact=exact, status=status, simple=simple), session, at)
        self.reads.append({"ts": self.t, "session": session, "actor": actor, "tree": tree, "status": status,
                           "simple": simple})

    # --- events --------------------------------------------------------------------------------

    @rule(data=st.data(), wait=st.sampled_from(WAITS), settle=st.sampled_from(SETTLE), caller=st.booleans(),
          actor=st.sampled_from((None, None, *SUBAGENTS)),
          picks=st.lists(st.sampled_from(range(len(DOCS))), min_size=1, max_size=3, unique=True),
          user_hit=st.booleans(), reads=st.lists(st.tuples(st.integers(0, 2), st.sampled_from(READERS),
                                                          st.sampled_from(SPELLINGS), st.sampled_from(STATUSES)),
                                                 min_size=1, max_size=4))
    def turn(self, data: st.DataObject, wait: int, settle: str, caller: bool, actor: str | None, picks: list[int],
             user_hit: bool, reads: list[tuple[int, str, str, tuple[str, bool]]]) -> None:
        """Some time passes; a recall run (and, from a shell call, its claim); then reads of what it
        printed (or of another doc)."""
        if self.t < 20 * DAY:
            self.t += wait
        session = data.draw(st.sampled_from(self.sessions))
        docs = [DOCS[i] for i in picks]
        self._recall(session, settle, caller, actor, docs, user_hit)
        run = self.runs[-1]
        for which, reader, spelling, (status, simple) in reads:
            tree = (docs + [USER_DOC] * user_hit)[which % (len(docs) + user_hit)][1]
            who, agent = session, None
            if reader == "subagent":
                agent = data.draw(st.sampled_from(SUBAGENTS))
            elif reader == "maker" and run["maker"] is not None:
                who, agent = run["maker"]
            elif reader == "other session":
                who = data.draw(st.sampled_from(self.sessions))
            elif reader == "unrelated doc":
                tree = data.draw(st.sampled_from([t for _, t in DOCS if t not in {d[1] for d in docs}] or [tree]))
            self._read(who, agent, tree, spelling == "exact", status, simple)

    @rule(data=st.data(), wait=st.sampled_from((1, 60, 3600, 6 * 3600)), settle=st.sampled_from(("claim", "env")),
          picks=st.lists(st.sampled_from(range(len(DOCS))), min_size=1, max_size=2, unique=True),
          reads=st.lists(st.integers(0, 1), min_size=1, max_size=3))
    def plain_turn(self, data: st.DataObject, wait: int, settle: str, picks: list[int], reads: list[int]) -> None:
        """The common case: the main agent recalls and reads what it found."""
        self.t += wait
        session = data.draw(st.sampled_from(self.sessions))
        docs = [DOCS[i] for i in picks]
        self._recall(session, settle, False, None, docs)
        for which in reads:
            self._read(session, None, docs[which % len(docs)][1], True, "success", True)

    @precondition(lambda self: bool(self.reads))
    @rule(data=st.data(), offset=st.sampled_from(AGAIN), new_recall=st.booleans())
    def read_again_later(self, data: st.DataObject, offset: int, new_recall: bool) -> None:
        """The same reader reads the same doc again exactly ``offset`` after an earlier read, after a
        new recall that printed it (so the read is inside a run's window) or without one."""
        earlier = data.draw(st.sampled_from(self.reads[-6:]))
        target = earlier["ts"] + offset
        if target <= self.t + 2:
            return
        if new_recall:
            doc = next(d for d in DOCS if d[1] == earlier["tree"]) if earlier["tree"] != USER_DOC[1] else DOCS[0]
            self._recall(earlier["session"], "claim", False, None, [doc],
                         at=target - 3600 if target - 3600 > self.t else None)
        if target <= self.t:
            return
        self._read(earlier["session"], earlier["actor"], earlier["tree"], True, "success", True, at=target)

    @precondition(lambda self: any(r["claimed"] for r in self.runs))
    @rule(data=st.data(), session=st.sampled_from(ROOTS))
    def later_claim_by_another_session(self, data: st.DataObject, session: str) -> None:
        """Dan's outer session echoes a run id the inner session already claimed."""
        run = data.draw(st.sampled_from([r for r in self.runs if r["claimed"]]))
        self._write(logs.claim(0, run["run"], session), session)

    @precondition(lambda self: len(self.sessions) < 6)
    @rule(data=st.data())
    def start_child_session(self, data: st.DataObject) -> None:
        parent = data.draw(st.sampled_from(self.sessions))
        child = f"kid-{len(self.sessions)}"
        self._write(logs.link(0, child, parent), child)
        self.parent[child] = parent
        self.sessions.append(child)

    # --- which branches a history reached --------------------------------------------------------

    def reached(self, consumed: list[dict[str, Any]]) -> set[str]:
        """Judged from what the history generated (and, for credits, from the consumed lines)."""
        out = set()
        if any(c["credited"] for c in consumed):
            out.add("credit")
        if any(not c["credited"] for c in consumed):
            out.add("covered")
        for read in self.reads:
            if not counts(read):
                continue
            root = self.root(read["session"])
            printed = [r for r in self.runs if read["tree"] in r["docs"] and r["ts"] <= read["ts"]]
            settled = [r for r in printed if r["settled"] is not None and self.root(r["settled"]) == root]
            inside = [r for r in settled if read["ts"] <= r["ts"] + DAY]
            if inside and any(r["maker"] == (read["session"], read["actor"]) and r["ts"] <= read["ts"]
                              for r in self.runs if r["maker"] is not None and self.root(r["maker"][0]) == root):
                out.add("maker's read")
            if settled and not inside:
                out.add("outside window")
            if not inside and any(r["settled"] is None and read["ts"] <= r["ts"] + DAY for r in printed):
                out.add("unsettled")
        for branch in sorted(out):
            event(f"reached: {branch}")
        return out


def short_shares(tally: Counter[str], least: dict[str, float]) -> dict[str, float]:
    """The branches reached in a smaller share of histories than ``least`` asks (empty: all fine)."""
    histories = tally["histories"]
    assert histories >= 20, f"only {histories} histories ran"
    shares = {branch: tally[branch] / histories for branch in least}
    return {branch: round(share, 2) for branch, share in shares.items() if share < least[branch]}
