"""What each recall-log line decides, said in words, and how one step of two traces differs.

Every line kind is a decision (``reference/state/runlog.py``): ``run`` a recall recorded
(and, with ``via: env`` and ``unambiguous``, settled by its environment), ``claim`` a claim
accepted, ``evidence`` a read recorded, ``link`` a subagent's session tied to its parent,
``consumed`` a read credited (or covered by an earlier credit). A line one side wrote and the
other did not is a decision taken on one side only. Lines are compared on the fields that
carry the decision, never on a score or on key order, so an implementation that spells its
lines its own way is judged on what it decided.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..running.timeline import TimeError, parse_instant

FIELDS = {
    "run": ("run", "session", "via", "unambiguous", "caller", "docs"),
    "claim": ("run", "session", "agent", "actor"),
    "evidence": ("session", "actor", "path", "exact", "via", "simple", "status"),
    "link": ("child", "parent"),
    "consumed": ("session", "key", "run", "credited", "evidence"),
}
DOC_FIELDS = ("key", "scope", "path", "eligible")
WINDOW_HOURS = 24
COUNTERS = ("recalled_count", "upvoted_count")

# (line only the reference wrote, line only the implementation wrote, both, differently)
NAMES = {
    "run": ("run not recorded", "run recorded (the reference records none)", "run recorded differently"),
    "claim": ("claim rejected", "claim accepted (the reference rejects it)", "claim recorded differently"),
    "evidence": ("evidence not recorded", "evidence recorded (the reference records none)",
                 "evidence recorded differently"),
    "link": ("subagent link not recorded", "subagent link recorded (the reference records none)",
             "subagent link recorded differently"),
}


def kind(line: Any) -> str:
    return str(line.get("kind")) if isinstance(line, Mapping) else "?"


def decision_part(line: Any) -> Any:
    """The fields of a line that carry its decision (a line of an unknown kind: all but ``ts``)."""
    if not isinstance(line, Mapping):
        return line
    names = FIELDS.get(kind(line))
    if names is None:
        return {k: v for k, v in line.items() if k != "ts"}
    part: dict[str, Any] = {"kind": kind(line)}
    for name in names:
        value = line.get(name)
        if name == "docs" and isinstance(value, list):
            value = [{k: d.get(k) for k in DOC_FIELDS} if isinstance(d, Mapping) else d for d in value]
        if name == "evidence" and isinstance(value, Mapping):
            value = {k: value.get(k) for k in ("ts", "session", "path")}
        part[name] = value
    return part


def _sig(line: Any) -> str:
    return json.dumps(decision_part(line), sort_keys=True, ensure_ascii=False, default=str)


def _full(line: Any) -> str:
    return json.dumps(line, sort_keys=True, ensure_ascii=False, default=str)


def delta(before: Sequence[Any], after: Sequence[Any]) -> tuple[list[Any], list[Any]]:
    """(lines added, lines removed) between two observations of a log, as multisets."""
    return _unmatched(after, before, _full), _unmatched(before, after, _full)


def _only(mine: Sequence[Any], theirs: Sequence[Any]) -> list[Any]:
    return _unmatched(mine, theirs, _sig)


def _unmatched(lines: Sequence[Any], others: Sequence[Any], key: Callable[[Any], str]) -> list[Any]:
    """The lines, in order, left once each is matched (by ``key``) with one of ``others``."""
    left = Counter(map(key, others))
    out = []
    for line in lines:
        k = key(line)
        if left[k]:
            left[k] -= 1
        else:
            out.append(line)
    return out


def compare_lines(ref: Sequence[Any], impl: Sequence[Any], ref_log: Sequence[Any], impl_log: Sequence[Any],
                  removed: bool = False) -> list[dict[str, Any]]:
    """The decisions that differ between the lines one step added on each side. ``ref_log`` and
    ``impl_log`` are each side's whole log after the step (to find a read's run). Lines of one
    kind that only one side wrote are paired in order, as one decision taken two ways."""
    ref_only, impl_only = _only(ref, impl), _only(impl, ref)
    out: list[dict[str, Any]] = []
    kinds = list(dict.fromkeys([kind(x) for x in ref_only] + [kind(x) for x in impl_only]))
    for k in kinds:
        mine = [x for x in ref_only if kind(x) == k]
        theirs = [x for x in impl_only if kind(x) == k]
        for i in range(max(len(mine), len(theirs))):
            r = mine[i] if i < len(mine) else None
            m = theirs[i] if i < len(theirs) else None
            out.append(_decision(k, r, m, ref_log, impl_log, removed))
    return out


def _decision(k: str, ref: Any, impl: Any, ref_log: Sequence[Any], impl_log: Sequence[Any],
              removed: bool) -> dict[str, Any]:
    if removed:
        name = "line kept (the reference prunes it)" if impl is None else (
            "line pruned (the reference keeps it)" if ref is None else "another line pruned")
    elif k == "consumed":
        name = _consumed_name(ref, impl)
    else:
        names = NAMES.get(k, (f"{k} line not written", f"{k} line written (the reference writes none)",
                              f"{k} line written differently"))
        name = names[0] if impl is None else names[1] if ref is None else names[2]
    out: dict[str, Any] = {"kind": k, "decision": name, "reference": ref, "implementation": impl}
    if ref is not None and impl is not None:
        a, b = decision_part(ref), decision_part(impl)
        out["fields"] = [f for f in sorted(set(a) | set(b)) if a.get(f) != b.get(f)]
    words = [f"reference: {describe(ref, ref_log)}" if ref is not None else "reference: no such line",
             f"implementation: {describe(impl, impl_log)}" if impl is not None else "implementation: no such line"]
    if out.get("fields"):
        words.append("differing: " + ", ".join(out["fields"]))
    out["words"] = words
    return out


def _consumed_name(ref: Any, impl: Any) -> str:
    if impl is None:
        return "read not credited" if ref.get("credited") is True else "read not covered"
    if ref is None:
        return ("read credited (the reference does not credit it)" if impl.get("credited") is True
                else "read covered (the reference does not cover it)")
    if ref.get("credited") is not impl.get("credited"):
        return "read covered, not credited" if ref.get("credited") is True else "read credited, not covered"
    if ref.get("run") != impl.get("run"):
        return "read joined another run"
    return "read consumed differently"


def describe(line: Any, log: Sequence[Any] = ()) -> str:
    """One line of the log in words (``log``: the rest of that side's log, to place a read)."""
    if not isinstance(line, Mapping):
        return json.dumps(line, ensure_ascii=False, default=str)
    k = kind(line)
    if k == "run":
        docs = _list(line.get("docs"))
        printed = ", ".join(f"{d.get('key')}{'' if d.get('eligible') else ' (not eligible)'}"
                            for d in docs if isinstance(d, Mapping)) or "nothing"
        how = "settled by its environment" if settles_by_env(line) else "not settled by its environment"
        return (f"run {line.get('run')} of session {line.get('session') or 'none'} (via {line.get('via')}, "
                f"{how}) printing {printed}")
    if k == "claim":
        return f"claim of {line.get('run')} by session {line.get('session')}{_actor(line.get('actor'))}"
    if k == "evidence":
        how = "exact path" if line.get("exact") else "path as given, for the suffix match"
        return (f"read of {line.get('path')} by session {line.get('session')}{_actor(line.get('actor'))} "
                f"({line.get('via')}, {how}, status {line.get('status')}"
                f"{'' if line.get('simple') else ', not a simple read'})")
    if k == "link":
        return f"session {line.get('child')} linked under {line.get('parent')}"
    if k == "consumed":
        ev = _mapping(line.get("evidence"))
        what = "credits" if line.get("credited") is True else "covers (an earlier read credited it)"
        text = (f"the read of {ev.get('path')} at {ev.get('ts')} {what} {line.get('key')} for session "
                f"{line.get('session')} through run {line.get('run')}")
        gap = window(run_line(log, line.get("run")), ev.get("ts"))
        return text + (f"; {gap}" if gap else "")
    return json.dumps(line, ensure_ascii=False, default=str)


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _actor(actor: Any) -> str:
    if isinstance(actor, Mapping) and actor.get("agent_id"):
        kind_ = f", {actor.get('agent_type')}" if actor.get("agent_type") else ""
        return f" (subagent {actor.get('agent_id')}{kind_})"
    return ""


def settles_by_env(run: Mapping[str, Any]) -> bool:
    return run.get("via") == "env" and run.get("unambiguous") is True and bool(run.get("session"))


def run_line(log: Sequence[Any], run: Any) -> Mapping[str, Any] | None:
    return next((x for x in log if kind(x) == "run" and x.get("run") == run), None)


def window(run: Mapping[str, Any] | None, read_ts: Any) -> str:
    """Where a read falls against a run's 24 h window, in words ("" when either instant is unknown)."""
    if run is None:
        return ""
    try:
        seconds = (parse_instant(str(read_ts)) - parse_instant(str(run.get("ts")))).total_seconds()
    except (TimeError, ValueError):
        return ""
    inside = 0 <= seconds <= WINDOW_HOURS * 3600
    side = "inside" if inside else "outside"
    when = f"{span(seconds)} after the run" if seconds >= 0 else f"{span(-seconds)} before the run"
    return f"the read came {when}: {side} the {WINDOW_HOURS} h window"


def span(seconds: float) -> str:
    whole = int(round(seconds))
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    parts = [f"{hours} h" if hours else "", f"{minutes} min" if minutes else "", f"{secs} s" if secs else ""]
    return " ".join(p for p in parts if p) or "0 s"


def compare_votes(ref: Mapping[str, Any], impl: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The counters that differ after a step, key by key."""
    out = []
    for key in sorted(set(ref) | set(impl)):
        for counter in COUNTERS:
            a, b = _count(ref.get(key), counter), _count(impl.get(key), counter)
            if a == b:
                continue
            what = "vote" if counter == "upvoted_count" else "recall"
            name = f"{what} not counted" if a > b else f"{what} counted (the reference does not count it)"
            out.append({"kind": "votes", "decision": name, "key": key, "counter": counter, "reference": a,
                        "implementation": b, "words": [f"{key}.{counter}: reference {a}, implementation {b}"]})
    return out


def _count(entry: Any, counter: str) -> int:
    value = entry.get(counter, 0) if isinstance(entry, Mapping) else 0
    return value if isinstance(value, int) else 0
