"""The end-to-end promises of recall attribution, judged on what ``observe`` returned.

Each check returns the problems it found, in words a failure message can show:

- :func:`once_a_day`: at most one upvote per (root session, doc) in any 24 h of read time, in the
  ledger and in the reducer's own ``consumed`` lines;
- :func:`earned`: no upvote without a read the spec counts, and every read a ``consumed`` line says
  credited is one;
- :func:`complete`: every (root session, doc) earns exactly the credits the spec gives it (when
  every read has been reduced);
- :func:`query_never_stored`: no query anywhere in the log, the votes ledger or the raw state files.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from conformance.running import timeline
from conformance.running.outcomes import PASS, CaseResult

from .oracle import Expected
from .sessions import DAY, Plan


def ran(result: CaseResult) -> list[str]:
    """The case ran to its end (whatever its expectations said)."""
    if result.outcome == PASS or (result.outcome == "fail" and result.observed):
        return [f"{m['path']}: {m['message']}: {m.get('actual')!r}" for m in result.mismatches
                if m["path"].startswith("steps[")]
    return [f"the case did not run: {result.outcome}: {result.message}"]


def upvotes(result: CaseResult) -> dict[str, int]:
    votes = (result.observed or {}).get("votes") or {}
    return {str(k): int(v.get("upvoted_count", 0)) for k, v in votes.items() if isinstance(v, dict)}


def credited_lines(result: CaseResult) -> list[dict[str, Any]]:
    return [line for line in (result.observed or {}).get("log") or []
            if isinstance(line, dict) and line.get("kind") == "consumed" and line.get("credited") is True]


def _seconds(ts: str) -> float:
    return (timeline.parse_instant(ts) - timeline.parse_instant(timeline.DEFAULT_START)).total_seconds()


def once_a_day(plan: Plan, exp: Expected, result: CaseResult) -> list[str]:
    out = []
    bound = exp.votes()
    for key, n in sorted(upvotes(result).items()):
        if n > bound.get(key, 0):
            out.append(f"{key} has {n} upvotes; its counted reads allow at most {bound.get(key, 0)} "
                       "(one per root session per 24 h of read time)")
    by_pair: dict[tuple[str, str], list[float]] = defaultdict(list)
    for line in credited_lines(result):
        ev = line.get("evidence") or {}
        by_pair[(plan.root(str(line.get("session"))), str(line.get("key")))].append(_seconds(str(ev.get("ts"))))
    for (root, key), times in sorted(by_pair.items()):
        times.sort()
        close = [(a, b) for a, b in zip(times, times[1:], strict=False) if b - a < DAY]
        if close:
            out.append(f"{root} credited {key} for reads {close[0][1] - close[0][0]:g} s apart (less than 24 h)")
    return out


def earned(plan: Plan, exp: Expected, result: CaseResult) -> list[str]:
    out = []
    counted = {key for (_, key) in exp.counted}
    for key, n in sorted(upvotes(result).items()):
        if n and key not in counted:
            out.append(f"{key} has {n} upvote(s) but no read the spec counts")
    for line in credited_lines(result):
        ev = line.get("evidence") or {}
        if not exp.counted_read(str(ev.get("ts")), str(ev.get("session")), str(ev.get("path")), str(line.get("key"))):
            out.append(f"a consumed line credits {line.get('key')} for a read the spec does not count: {ev}")
    return out


def complete(plan: Plan, exp: Expected, result: CaseResult) -> list[str]:
    want = exp.votes()
    got = upvotes(result)
    return [f"{key}: {got.get(key, 0)} upvote(s), the spec gives {want.get(key, 0)}"
            for key in sorted(set(want) | set(got)) if got.get(key, 0) != want.get(key, 0)]


def query_never_stored(result: CaseResult) -> list[str]:
    return [f"{m['message']}: {m.get('actual')!r}" for m in result.mismatches
            if m["path"].startswith("expect.never_in_state")]


def spec_expectations(plan: Plan, exp: Expected, printed_keys: set[str]) -> dict[str, Any]:
    """The ``expect`` block that states what the spec says this session earns: exact upvotes for
    every key a read earns, none for the rest, and no query in the state."""
    votes = exp.votes()
    out: dict[str, Any] = {}
    earning = {k: {"upvoted_count": n} for k, n in sorted(votes.items()) if n}
    if earning:
        out["votes"] = earning
    nothing = sorted(printed_keys - set(earning))
    if nothing:
        out["no_votes"] = nothing
    out["never_in_state"] = plan.queries()
    return out


# --- one pull at the end against a Stop after every event ------------------------------------

def credited_reads(plan: Plan, result: CaseResult) -> set[tuple[str, str, str, str, str]]:
    """Each credit as (root session, key, read ts, read session, read path)."""
    out = set()
    for line in credited_lines(result):
        ev = line.get("evidence") or {}
        out.add((plan.root(str(line.get("session"))), str(line.get("key")), str(ev.get("ts")),
                 str(ev.get("session")), str(ev.get("path"))))
    return out


def same_credits(plan: Plan, every: CaseResult, end: CaseResult) -> list[str]:
    """How one pull at the end departs from a Stop after every event: other upvotes, or the same
    number of upvotes for other reads."""
    out = [f"{key}: {upvotes(end).get(key, 0)} upvote(s) after one pull, {upvotes(every).get(key, 0)} after a "
           "Stop at every event" for key in sorted(set(upvotes(every)) | set(upvotes(end)))
           if upvotes(end).get(key, 0) != upvotes(every).get(key, 0)]
    a, b = credited_reads(plan, every), credited_reads(plan, end)
    out += [f"only a Stop at every event credited {x}" for x in sorted(a - b)]
    out += [f"only one pull at the end credited {x}" for x in sorted(b - a)]
    return out


def late_link_departures(plan: Plan, exp: Expected, result: CaseResult) -> tuple[bool, list[str]]:
    """Whether the session earns more than the spec only where a child session credited a doc as a
    root of its own, before the link to its parent arrived, and the parent credited it again
    (``LATE_LINK``); the problems that reason does not explain."""
    unexplained = [p for p in earned(plan, exp, result)]
    crossed: set[str] = set()
    by_pair: dict[tuple[str, str], list[tuple[float, str]]] = defaultdict(list)
    for line in credited_lines(result):
        ev = line.get("evidence") or {}
        recorded = str(line.get("session"))
        by_pair[(plan.root(recorded), str(line.get("key")))].append((_seconds(str(ev.get("ts"))), recorded))
    for (root, key), credits in by_pair.items():
        credits.sort()
        for (a, who_a), (b, who_b) in zip(credits, credits[1:], strict=False):
            if b - a < DAY:
                if who_a == who_b:
                    unexplained.append(f"{root} credited {key} twice within 24 h in one session")
                crossed.add(key)
    want, got = exp.votes(), upvotes(result)
    for key in sorted(set(want) | set(got)):
        if got.get(key, 0) < want.get(key, 0) or (got.get(key, 0) > want.get(key, 0) and key not in crossed):
            unexplained.append(f"{key}: {got.get(key, 0)} upvote(s), the spec gives {want.get(key, 0)}")
    return bool(crossed), unexplained


def late_credits_not_before_link(plan: Plan, result: CaseResult) -> list[str]:
    """Pairs of credits of one (root, doc) less than 24 h apart other than the excused order: both
    given (their consumed lines written) before the link that put their sessions under one root."""
    log = [line for line in (result.observed or {}).get("log") or [] if isinstance(line, dict)]
    linked = {str(line.get("child")): _seconds(str(line.get("ts"))) for line in log if line.get("kind") == "link"}
    by_pair: dict[tuple[str, str], list[tuple[float, str, float]]] = defaultdict(list)
    for line in credited_lines(result):
        recorded = str(line.get("session"))
        by_pair[(plan.root(recorded), str(line.get("key")))].append(
            (_seconds(str((line.get("evidence") or {}).get("ts"))), recorded, _seconds(str(line.get("ts")))))
    out = []
    for (root, key), credits in by_pair.items():
        credits.sort()
        for (a, who_a, wrote_a), (b, who_b, wrote_b) in zip(credits, credits[1:], strict=False):
            if b - a >= DAY or who_a == who_b:
                continue
            child = who_b if who_a == root else who_a
            link = linked.get(child)
            if link is None or max(wrote_a, wrote_b) >= link:
                out.append(f"{root}: {key} credited by {who_a} then by {who_b}, {b - a:g} s apart, "
                           f"not both before the link")
    return out


LATE_LINK = ("a child session and its root each credited a doc at Stops that came before the link between them "
             "(OpenCode links a task when it has finished); nothing tied the two credits when they were given, and "
             "the reducer never takes a credit back (ARCHITECTURE.md, Reducer)")
