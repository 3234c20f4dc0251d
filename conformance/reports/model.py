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

from ..running import outcomes
from . import diff as report_diff
from . import explain_text as report_explain
from .jsonl import Run

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
        for cid, info in (head.get("clauses") or {}).items():  # a report's text beside the corpus's alternatives
            texts[cid] = {**(texts.get(cid) or {}), **info}
    ordered = sorted(cases.values(), key=lambda c: (_area_rank(c["area"]), c["area"]))
    return {"columns": columns, "cases": ordered, "clauses": texts, "areas": _areas(ordered),
            "clause_rows": _clause_rows(ordered, columns, texts), "events": _events(ordered, columns),
            "outcomes": list(SEVERITY), "summary": summary(ordered, columns),
            "decisions": _decisions(ordered, columns, texts)}


PASSING = (outcomes.PASS,)
NOT_JUDGED = (outcomes.NOT_APPLICABLE, outcomes.SKIP)


def summary(cases: Sequence[Mapping[str, Any]], columns: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """One row per area: per column the cases that pass of those judged (not n/a, not skipped),
    and the n/a ones by what the driver lacked. Rows with the smallest share passing come first,
    so failures lead; an area every column passes keeps the catalogue's order after them."""
    rows: list[tuple[float, dict[str, Any]]] = []
    for area in _areas(cases):
        cells = {}
        for column in columns:
            mine = [c["results"][column["key"]] for c in cases if c["area"] == area and column["key"] in c["results"]]
            judged = [r for r in mine if r["outcome"] not in NOT_JUDGED]
            cells[column["key"]] = {"pass": sum(r["outcome"] in PASSING for r in judged), "total": len(judged),
                                    "na": sum(r["outcome"] == outcomes.NOT_APPLICABLE for r in mine),
                                    "cases": len(mine)}
        worst = min((c["pass"] / c["total"] for c in cells.values() if c["total"]), default=1.0)
        rows.append((worst, {"area": area, "cells": cells}))
    rows.sort(key=lambda r: (r[0] >= 1.0, r[0]))  # stable: catalogue order within ties
    return [row for _worst, row in rows]


def _decisions(cases: Sequence[Mapping[str, Any]], columns: Sequence[Mapping[str, Any]],
               texts: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The decisions the cases cite (``decide:``) or a column differs on, each with its text, the
    alternatives an implementation may take, and per column how many cases agree and differ."""
    counts: dict[str, dict[str, dict[str, int]]] = {}
    for case in cases:
        for key, result in case["results"].items():
            for name, verdict in ((result.get("levels") or {}).get("decisions") or {}).items():
                cell = counts.setdefault(name, {}).setdefault(key, {"agree": 0, "differ": 0})
                cell[verdict if verdict in cell else "differ"] += 1
    named = {cid for cid, info in texts.items() if (info or {}).get("spec") == "decision"}
    cited = {cid for case in cases for cid in case["clauses"] if cid in named}
    out = []
    for name in sorted(set(counts) | cited):
        info = texts.get(name) or {}
        out.append({"id": name, "text": info.get("text", ""), "alternatives": list(info.get("alternatives") or []),
                    "counts": {c["key"]: counts.get(name, {}).get(c["key"], {"agree": 0, "differ": 0})
                               for c in columns}})
    out.sort(key=lambda d: (-sum(x["differ"] for x in d["counts"].values()), d["id"]))
    return out


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
                    "marks": {m: sum(1 for x in lines if x.get(m)) for m in MARKS},
                    "levels": outcomes.level_totals(lines),
                    "na": _na_reasons(lines),
                    "failing_clauses": (foot or {}).get("failing_clauses") or report_explain.rollup(lines),
                    "rerun": _rerun_template(lines)})
    return out


def _na_reasons(lines: Sequence[Mapping[str, Any]]) -> list[list[Any]]:
    """Not-applicable cases by what the driver lacked (several needs together counted once), most first."""
    groups = Counter(" + ".join(x.get("lacking") or []) or "?" for x in lines
                     if x.get("outcome") == outcomes.NOT_APPLICABLE)
    return [[need, n] for need, n in sorted(groups.items(), key=lambda kv: (-kv[1], kv[0]))]


def _rerun_template(lines: Sequence[Mapping[str, Any]]) -> str:
    """The rerun command with ``{id}`` for the case id, when every case's command has that shape
    (the page then rebuilds it instead of carrying it per case); else empty."""
    template = ""
    for x in lines:
        rerun, case = str(x.get("rerun") or ""), str(x.get("id", ""))
        if not rerun:
            continue
        mine = rerun.replace(f"--only {shlex.quote(case)}", "--only {id}", 1)
        if "{id}" not in mine or (template and mine != template):
            return ""
        template = mine
    return template


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
    if line.get("levels"):
        out["levels"] = line["levels"]
    blamed = line.get("blame") or report_explain.blame(line)
    if blamed:
        out["blame"] = blamed
    if line.get("lacking"):
        out["lacking"] = list(line["lacking"])
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
