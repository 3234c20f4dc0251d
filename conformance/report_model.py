"""Several runs' reports merged into what the results page shows: one column per run.

The page is a view of the reports and nothing more, so every number on it is a count of case
lines; the model keeps them in one place so the page, its tests and any other view agree.
A case is known by its id; what its scenario says (title, area, clauses, steps, ``expect``)
is taken from the first report that has it, or from ``facts`` for reports written before the
reports carried it. A case one run did not run has no cell in that run's column.
"""

from __future__ import annotations

import re
import shlex
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from . import outcomes, report_diff
from .report_jsonl import Run

AREAS = ("recall", "attribution", "reducer", "retention", "stats", "relations", "review", "contribute",
         "acceptance")
# Worst first: a cell that holds several outcomes takes the colour of the worst.
SEVERITY = (outcomes.CRASH, outcomes.ERROR, outcomes.TIMEOUT, outcomes.FAIL, outcomes.XPASS, outcomes.XFAIL,
            outcomes.NOT_APPLICABLE, outcomes.SKIP, outcomes.PASS)
SHARED = ("title", "area", "agents", "clauses", "path", "provenance", "plan", "expect", "hooks")
EVENTS_AREA = "attribution"
# Marks that qualify an outcome (see ``outcomes``): counted per column beside the outcomes.
MARKS = ("partly", "vacuous")


def build(runs: Sequence[Run], clause_texts: Mapping[str, Mapping[str, str]] | None = None,
          facts: Mapping[str, Mapping[str, Any]] | None = None) -> dict[str, Any]:
    """``clause_texts`` and ``facts`` only fill what the reports lack."""
    columns = _columns(runs)
    cases: dict[str, dict[str, Any]] = {}
    for column, (_head, lines, _foot) in zip(columns, runs, strict=True):
        for line in lines:
            case = cases.setdefault(str(line.get("id", "")), {"id": str(line.get("id", "")), "results": {}})
            for key in SHARED:
                if key not in case and line.get(key) is not None:
                    case[key] = line[key]
            case["results"][column["key"]] = _result(line, case)
    for case in cases.values():
        for key, value in (facts or {}).get(case["id"], {}).items():
            case.setdefault(key, value)
        case.setdefault("title", "")
        case.setdefault("area", "")
        case.setdefault("agents", [])
        case.setdefault("clauses", [])
        case["events"] = sorted({h["event"] for h in case.get("hooks") or [] if h.get("event")})
        for result in case["results"].values():
            if result.pop("_state_pending", False):
                result["state"] = report_diff.state(case.get("expect") or {}, result.get("observed"))
    texts: dict[str, Any] = dict(clause_texts or {})
    for head, _lines, _foot in runs:
        texts.update(head.get("clauses") or {})
    ordered = sorted(cases.values(), key=lambda c: (_area_rank(c["area"]), c["area"]))
    return {"columns": columns, "cases": ordered, "clauses": texts, "areas": _areas(ordered),
            "clause_rows": _clause_rows(ordered, columns, texts), "events": _events(ordered, columns),
            "outcomes": list(SEVERITY)}


def worst(counts: Mapping[str, int]) -> str | None:
    return next((o for o in SEVERITY if counts.get(o)), None)


def _columns(runs: Sequence[Run]) -> list[dict[str, Any]]:
    """A column is named by its implementation; runs of one implementation through different
    drivers add the driver, and runs alike in both a number."""
    names = []
    for head, _lines, _foot in runs:
        impl = head.get("implementation") or {}
        names.append(" ".join(str(x) for x in (impl.get("name") or "?", impl.get("version") or "") if x))
    twice = {n for n, k in Counter(names).items() if k > 1}
    labels = [f"{n} · {_short_impl(str((h.get('implementation') or {}).get('impl', '')))}" if n in twice else n
              for n, (h, _l, _f) in zip(names, runs, strict=True)]
    seen: Counter[str] = Counter()
    out: list[dict[str, Any]] = []
    for i, (head, lines, foot) in enumerate(runs):
        impl = head.get("implementation") or {}
        label = labels[i]
        seen[label] += 1
        if labels.count(label) > 1:
            label = f"{label} #{seen[label]}"
        corpus = head.get("corpus") or {}
        out.append({"key": f"c{i}", "label": label, "impl": impl.get("impl", ""), "harness": head.get("harness", ""),
                    "commit": corpus.get("commit") or "", "started": head.get("started", ""),
                    "finished": (foot or {}).get("finished", ""), "complete": foot is not None,
                    "exit": (foot or {}).get("exit"), "expectations": head.get("expectations", ""),
                    "cases": len(lines), "totals": dict(Counter(str(x.get("outcome")) for x in lines)),
                    "marks": {m: sum(1 for x in lines if x.get(m)) for m in MARKS}})
    return out


def _short_impl(impl: str) -> str:
    """``--impl`` as a person would name it: file names without folders, no interpreter."""
    try:
        words = [w.rstrip("/").rsplit("/", 1)[-1] for w in shlex.split(impl)]
    except ValueError:
        words = impl.split()
    if len(words) > 1 and re.fullmatch(r"python[0-9.]*|node|py", words[0]):
        words = words[1:]
    text = " ".join(words) or "?"
    return text if len(text) <= 32 else text[:31] + "…"


def _result(line: Mapping[str, Any], case: Mapping[str, Any]) -> dict[str, Any]:
    mismatches = [{**m, "diff": report_diff.lines(m.get("expected"), m.get("actual"))}
                  for m in line.get("mismatches") or []]
    out = {"outcome": str(line.get("outcome", "")), "message": line.get("message", ""),
           "reason": line.get("reason", ""), "mismatches": mismatches, "steps": line.get("steps") or [],
           "duration": line.get("duration"), "rerun": line.get("rerun", "")}
    if line.get("explanation"):
        out["explanation"] = line["explanation"]
    if line.get("partly"):
        out.update(partly=True, skipped=list(line.get("skipped") or []), lacking=list(line.get("lacking") or []))
    if line.get("vacuous"):
        out["vacuous"] = str(line["vacuous"])
    if "observed" in line:
        out["observed"] = line["observed"]
        out["_state_pending"] = True  # the expect block may come from a later report or the facts
    return out


def _area_rank(area: str) -> int:
    return AREAS.index(area) if area in AREAS else len(AREAS)


def _areas(cases: Sequence[Mapping[str, Any]]) -> list[str]:
    return list(dict.fromkeys(c["area"] for c in cases))


def _counts(cases: Sequence[Mapping[str, Any]], columns: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for column in columns:
        counted = Counter(c["results"][column["key"]]["outcome"] for c in cases if column["key"] in c["results"])
        out[column["key"]] = dict(counted)
    return out


def _clause_rows(cases: Sequence[Mapping[str, Any]], columns: Sequence[Mapping[str, Any]],
                 texts: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One row per area and clause a case of that area names, in catalogue order within an area."""
    order = {cid: i for i, cid in enumerate(texts)}
    rows = []
    for area in _areas(cases):
        named: dict[str, list[Mapping[str, Any]]] = {}
        for case in cases:
            if case["area"] == area:
                for cid in dict.fromkeys(case["clauses"]):
                    named.setdefault(cid, []).append(case)
        for cid in sorted(named, key=lambda c: (order.get(c, len(order)), c)):
            rows.append({"area": area, "clause": cid, "cases": [c["id"] for c in named[cid]],
                         "counts": _counts(named[cid], columns)})
    return rows


def _events(cases: Sequence[Mapping[str, Any]], columns: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The attribution cases by the agent and event of their hook steps."""
    cells: dict[tuple[str, str], list[Mapping[str, Any]]] = {}
    for case in cases:
        if case["area"] != EVENTS_AREA:
            continue
        for pair in dict.fromkeys((h.get("agent", ""), h.get("event", "")) for h in case.get("hooks") or []):
            cells.setdefault(pair, []).append(case)
    agents = sorted({a for a, _ in cells})
    events = sorted({e for _, e in cells}, key=lambda e: (e != "post-tool-use", "stop" in e, e))
    return {"agents": agents, "events": events,
            "cells": [{"agent": a, "event": e, "cases": [c["id"] for c in cs], "counts": _counts(cs, columns)}
                      for (a, e), cs in sorted(cells.items())]}
