"""Where two implementations' observations of the same case differ, by kind, with the first
step at which each kind differs.

Kinds, and what of an observation each compares (both sides already normalized, see
:mod:`.observation`):

==============  ==============================================================================
exit status     each step's exit status
recall output   a recall's hit list: the start line's count (or that nothing was found), each
                hit's header (kind, title, scope) and ``File:`` line; a ``--check``'s whole text.
                Scores, authors and closing text are left out: they are ranking and decoration,
                and would make every case differ
Related lines   the ``Related:`` lines under each hit, by its ``File:`` line
findings        the finding lines (``✖``, ``!``, ``⚠``) of ``review`` and ``contribute``
votes           the ledger after each step (a missing key reads as zero counters)
log lines       the recall log after each step; only when both keep one
stats           the stats rows at the end; only when both report rows
steps run       one side stopped early (a step needed a run id it never printed)
==============  ==============================================================================

A hook's, a pull's and a stats step's own stdout are not compared: what they print is not part
of either feature, and the state after them is.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..running.expect import HIT_LINE, RELATED, findings
from .observation import Observation

KINDS = ("exit status", "recall output", "Related lines", "findings", "votes", "log lines", "stats", "steps run")
COUNTERS = ("recalled_count", "upvoted_count", "last_recalled_at", "last_upvoted_at")
_START = re.compile(r"^--- \[teamai:recall:start\] --- (\(\d+ results?\))")
_NO_HIT = re.compile(r"^.*No matching learnings found for ")


@dataclass(frozen=True)
class Difference:
    kind: str
    step: int | None          # the first step after which (or at which) this kind differs; None: the end
    path: str                 # where, inside that step's answer or the state
    a: Any
    b: Any
    count: int = 1            # how many places of this kind differ in all

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "step": self.step, "path": self.path, "a": self.a, "b": self.b,
                "count": self.count}


@dataclass
class CaseDiff:
    id: str
    title: str
    area: str
    clauses: list[str]
    status: str                                    # differ, agree, not compared
    differences: list[Difference] = field(default_factory=list)
    not_compared: dict[str, str] = field(default_factory=dict)   # kind or "case" -> why
    a: Observation | None = None
    b: Observation | None = None

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "title": self.title, "area": self.area, "clauses": self.clauses,
                "status": self.status, "differences": [d.to_json() for d in self.differences],
                "not_compared": self.not_compared}


def compare(a: Observation, b: Observation) -> tuple[list[Difference], dict[str, str]]:
    """(the differences, kind -> why it was not compared)."""
    skipped: dict[str, str] = {}
    out: list[Difference] = []
    steps = list(zip(a.steps, b.steps, strict=False))
    for kind, judge in (("exit status", _exit), ("recall output", _recall), ("Related lines", _related),
                        ("findings", _findings)):
        found = [(sa["index"], path, x, y) for sa, sb in steps for path, x, y in judge(sa, sb)]
        if found:
            out.append(Difference(kind, found[0][0], *found[0][1:], count=len(found)))
    out += _state_kind("votes", [s["votes"] for s in a.states], [s["votes"] for s in b.states],
                       a.final.get("votes") or {}, b.final.get("votes") or {}, _votes)
    if a.log_kept and b.log_kept:
        out += _state_kind("log lines", [s["log"] for s in a.states], [s["log"] for s in b.states],
                           a.final.get("log") or [], b.final.get("log") or [], _log)
    else:
        skipped["log lines"] = "keeps no recall log: " + " and ".join(
            o.implementation for o in (a, b) if not o.log_kept)
    sa, sb = a.final.get("stats"), b.final.get("stats")
    if sa is not None and sb is not None:
        diff = _first(sa, sb, "stats")
        if diff:
            out.append(Difference("stats", None, *diff))
    elif "stats" in a.final or "stats" in b.final:
        skipped["stats"] = "reports no stats rows: " + " and ".join(
            o.implementation for o, rows in ((a, sa), (b, sb)) if rows is None)
    if len(a.steps) != len(b.steps) or a.stopped != b.stopped:
        at = min(len(a.steps), len(b.steps))
        out.append(Difference("steps run", at, f"steps[{at}]", a.stopped or f"ran {len(a.steps)} steps",
                              b.stopped or f"ran {len(b.steps)} steps"))
    order = {k: i for i, k in enumerate(KINDS)}
    out.sort(key=lambda d: (d.step if d.step is not None else 10**9, order[d.kind]))
    return out, skipped


def hits(stdout: str) -> dict[str, Any]:
    """A recall's answer as its hit list: the count on the start line, or ``no hits``, and each
    hit's header and ``File:`` line."""
    lines = stdout.split("\n")
    start = next((m.group(1) for m in map(_START.match, lines) if m), None)
    if start is None:
        start = "no hits" if any(_NO_HIT.match(x) for x in lines) else "no start line"
    listed: list[dict[str, str]] = []
    for line in lines:
        if HIT_LINE.match(line):
            listed.append({"header": line, "file": ""})
        elif line.startswith("File: ") and listed and not listed[-1]["file"]:
            listed[-1]["file"] = line[len("File: "):]
    return {"start": start, "hits": listed}


def related_by_file(stdout: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    current: str | None = None
    for line in stdout.split("\n"):
        if HIT_LINE.match(line):
            current = None
        elif line.startswith("File: "):
            current = line[len("File: "):]
            out.setdefault(current, [])
        elif line.startswith(RELATED) and current is not None:
            out[current].append(line[len(RELATED):])
    return out


# -- per step ---------------------------------------------------------------------------------
Found = list[tuple[str, Any, Any]]


def _exit(a: Mapping[str, Any], b: Mapping[str, Any]) -> Found:
    return [] if a["exit"] == b["exit"] else [(f"steps[{a['index']}].exit", a["exit"], b["exit"])]


def _recall(a: Mapping[str, Any], b: Mapping[str, Any]) -> Found:
    if a["action"] != "recall":
        return []
    where = f"steps[{a['index']}]"
    if a["check"]:
        x, y = a["stdout"].strip(), b["stdout"].strip()
        return [] if x == y else [(f"{where}.stdout", x, y)]
    diff = _first(hits(a["stdout"]), hits(b["stdout"]), where)
    return [diff] if diff else []


def _related(a: Mapping[str, Any], b: Mapping[str, Any]) -> Found:
    if a["action"] != "recall" or a["check"]:
        return []
    x, y = related_by_file(a["stdout"]), related_by_file(b["stdout"])
    out: Found = []
    for file in [f for f in x if f in y]:
        if x[file] != y[file]:
            out.append((f"steps[{a['index']}].related[{file}]", x[file], y[file]))
    return out


def _findings(a: Mapping[str, Any], b: Mapping[str, Any]) -> Found:
    if a["action"] not in ("review", "contribute"):
        return []
    x, y = findings(a["stdout"], ""), findings(b["stdout"], "")
    return [] if x == y else [(f"steps[{a['index']}].findings", x, y)]


# -- states -----------------------------------------------------------------------------------
def _state_kind(kind: str, a_states: list[Any], b_states: list[Any], a_final: Any, b_final: Any,
                judge: Callable[[Any, Any], Found]) -> list[Difference]:
    for index, (x, y) in enumerate(zip(a_states, b_states, strict=False)):
        found = judge(x, y)
        if found:
            path, a, b = found[0]
            return [Difference(kind, index, path, a, b, len(judge(a_final, b_final)) or len(found))]
    found = judge(a_final, b_final)
    if not found:
        return []
    path, a, b = found[0]
    return [Difference(kind, None, path, a, b, len(found))]


def _votes(a: Mapping[str, Any], b: Mapping[str, Any]) -> Found:
    out: Found = []
    for key in sorted(set(a) | set(b)):
        x, y = _entry(a.get(key)), _entry(b.get(key))
        for name in COUNTERS:
            if x[name] != y[name]:
                out.append((f"votes.{key}.{name}", x[name], y[name]))
    return out


def _entry(entry: Any) -> dict[str, Any]:
    entry = entry if isinstance(entry, Mapping) else {}
    return {name: entry.get(name) or (0 if name.endswith("_count") else "") for name in COUNTERS}


def _log(a: list[Any], b: list[Any]) -> Found:
    diff = _first(a, b, "log")
    return [diff] if diff else []


def _first(a: Any, b: Any, path: str) -> tuple[str, Any, Any] | None:
    """The first place two values differ (both ways: a missing item differs too)."""
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        for key in list(a) + [k for k in b if k not in a]:
            if key not in a or key not in b:
                return f"{path}.{key}", a.get(key, "<absent>"), b.get(key, "<absent>")
            diff = _first(a[key], b[key], f"{path}.{key}")
            if diff:
                return diff
        return None
    if isinstance(a, list) and isinstance(b, list):
        for i in range(max(len(a), len(b))):
            if i >= len(a) or i >= len(b):
                return f"{path}[{i}]", a[i] if i < len(a) else "<absent>", b[i] if i < len(b) else "<absent>"
            diff = _first(a[i], b[i], f"{path}[{i}]")
            if diff:
                return diff
        return None
    return None if a == b else (path, a, b)


def short(value: Any, width: int = 160) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True)
    text = text.replace("\n", "\\n")
    return text if len(text) <= width else text[: width - 1] + "…"
