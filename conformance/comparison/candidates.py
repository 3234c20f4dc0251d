"""A disagreement between two implementations, written out as a candidate scenario.

The candidate is the case's own steps and trees with an ``expect`` block that pins what A
observed wherever B differs (votes, exit statuses, hit lists, ``Related:`` lines, findings,
log lines, stats rows), provenance ``differential``, and both observations attached under
``observations`` with the differences found. It is a candidate: a person decides which side is
right, edits ``expect`` accordingly, picks clauses and moves it into ``scenarios/<area>/``.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

from ..corpus.read import Scenario
from ..corpus.scenario_file import dump
from .differential import CaseDiff, Difference, hits, related_by_file
from .observation import Observation

SUFFIX = "-differential"
_PATH_TOKEN = re.compile(r"^\$\{(user:)?path:([^}]*)\}$")
_SCOPE_WORD = re.compile(r" \[(workspace|user)\]$")


def candidate(scenario: Scenario, case: CaseDiff) -> dict[str, Any]:
    assert case.a is not None and case.b is not None
    data = copy.deepcopy(scenario.data)
    data["id"] = scenario.id[: 80 - len(SUFFIX)] + SUFFIX
    data["title"] = f"{scenario.title} (where {case.a.implementation} and {case.b.implementation} differ)"[:160]
    data["provenance"] = "differential"
    steps = data.get("steps") or []
    expect: dict[str, Any] = {}
    unpinned: list[str] = []
    for d in case.differences:
        _pin(d, case.a, case.b, steps, expect, unpinned)
    # Nothing A did could be written as an expectation: the case's own expect block stays, so the
    # candidate still checks something, and the observations say where the sides part.
    data["expect"] = expect or copy.deepcopy(scenario.expect)
    data["observations"] = {"case": scenario.id,
                            "differences": [d.to_json() for d in case.differences],
                            **({"not_pinned": unpinned} if unpinned else {}),
                            "a": _observed(case.a), "b": _observed(case.b)}
    return data


def write(folder: Path, scenario: Scenario, case: CaseDiff) -> Path:
    data = candidate(scenario, case)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{data['id']}.yaml"
    path.write_text(dump(data), encoding="utf-8")
    return path


def _observed(obs: Observation) -> dict[str, Any]:
    return {"implementation": obs.implementation,
            "steps": [{k: s[k] for k in ("index", "action", "exit", "stdout")} for s in obs.steps],
            "final": obs.final, **({"stopped": obs.stopped} if obs.stopped else {})}


def _named(steps: list[dict[str, Any]], index: int) -> str:
    step = steps[index]
    if not step.get("as"):
        step["as"] = f"d{index + 1}"
    return str(step["as"])


def _pin(d: Difference, a: Observation, b: Observation, steps: list[dict[str, Any]], expect: dict[str, Any],
         unpinned: list[str]) -> None:
    """Add to ``expect`` what A observed for every place of this kind where B differs."""
    pairs = list(zip(a.steps, b.steps, strict=False))
    if d.kind == "exit status":
        for sa, sb in pairs:
            if sa["exit"] != sb["exit"]:
                _step(expect, _named(steps, sa["index"]))["exit"] = sa["exit"]
    elif d.kind == "recall output":
        for sa, sb in pairs:
            if sa["action"] != "recall":
                continue
            if sa["check"] and sa["stdout"].strip() != sb["stdout"].strip():
                _step(expect, _named(steps, sa["index"]))["output_contains"] = [sa["stdout"].strip()]
            elif not sa["check"] and hits(sa["stdout"]) != hits(sb["stdout"]):
                listed = hits(sa["stdout"])["hits"]
                texts = [_labelled(h["header"]) for h in listed] + [f"File: {h['file']}" for h in listed]
                _step(expect, _named(steps, sa["index"]))["output_contains"] = texts
    elif d.kind == "Related lines":
        for sa, sb in pairs:
            if sa["action"] != "recall" or sa["check"]:
                continue
            x, y = related_by_file(sa["stdout"]), related_by_file(sb["stdout"])
            for file, lines in x.items():
                match = _PATH_TOKEN.match(file)
                if file in y and x[file] != y[file] and match:
                    key = ("user:" if match.group(1) else "") + match.group(2)
                    _step(expect, _named(steps, sa["index"])).setdefault("related", {})[key] = lines
    elif d.kind == "findings":
        from ..running.expect import findings

        for sa, sb in pairs:
            fa, fb = findings(sa["stdout"], ""), findings(sb["stdout"], "")
            if sa["action"] in ("review", "contribute") and fa != fb:
                _step(expect, _named(steps, sa["index"]))["findings"] = fa
    elif d.kind == "votes":
        _votes(a.final.get("votes") or {}, b.final.get("votes") or {}, expect, unpinned)
    elif d.kind == "log lines":
        theirs = b.final.get("log") or []
        missing = [line for line in a.final.get("log") or [] if line not in theirs]
        if missing:
            expect["log_contains"] = missing[:5]
    elif d.kind == "stats" and a.final.get("stats") is not None:
        expect["stats"] = a.final["stats"]


def _votes(va: dict[str, Any], vb: dict[str, Any], expect: dict[str, Any], unpinned: list[str]) -> None:
    for key in sorted(set(va) | set(vb)):
        ea, eb = va.get(key), vb.get(key)
        counters = ("recalled_count", "upvoted_count")
        if ea is None:
            other = eb or {}
            if other.get("upvoted_count"):
                expect.setdefault("no_votes", []).append(key)
            if other.get("recalled_count"):
                unpinned.append(f"votes: A's ledger has no entry {key}, B's counts recalled_count "
                                f"{other['recalled_count']} (a scenario cannot say that an entry is absent)")
            continue
        if eb is None or any(ea.get(c, 0) != eb.get(c, 0) for c in counters):
            expect.setdefault("votes", {})[key] = {c: ea.get(c, 0) for c in counters}


def _step(expect: dict[str, Any], name: str) -> dict[str, Any]:
    return expect.setdefault("steps", {}).setdefault(name, {})


def _labelled(header: str) -> str:
    """A hit header with its scope word as a substitution, so the candidate fits any driver."""
    return _SCOPE_WORD.sub(lambda m: f" [${{label:{m.group(1)}}}]", header)
