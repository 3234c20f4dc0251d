"""``teamai-conformance diff``: the same cases against two implementations, and a list of where
their observations differ, grouped by clause and by kind of difference.

Each case is observed in A and then in B (:mod:`.observation`: the state after every step) and
the two are compared (:mod:`.differential`). A case one side cannot run (a command or agent it
does not declare) is not compared; a kind one side cannot show (a recall log, stats rows) is
left out of that case and the report says so once.
"""

from __future__ import annotations

import textwrap
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..corpus.read import Payload, Scenario
from ..running.driver import Driver
from .differential import KINDS, CaseDiff, compare, short
from .observation import observe

DIFFER, AGREE, NOT_COMPARED = "differ", "agree", "not compared"


def run(a: Driver, b: Driver, chosen: Sequence[Scenario], payloads: Mapping[str, Payload],
        timeout: float = 60.0, on_case: Callable[[CaseDiff], None] | None = None) -> list[CaseDiff]:
    out = []
    for scenario in chosen:
        oa = observe(a, scenario, payloads, timeout)
        ob = observe(b, scenario, payloads, timeout)
        case = CaseDiff(scenario.id, scenario.title, scenario.area, scenario.clauses, AGREE, a=oa, b=ob)
        why = [f"{side} lacks {', '.join(o.lacking)}" for side, o in (("A", oa), ("B", ob)) if o.lacking]
        why += [f"{side}: {o.error}" for side, o in (("A", oa), ("B", ob)) if o.error]
        if why:
            case.status = NOT_COMPARED
            case.not_compared["case"] = "; ".join(why)
        else:
            case.differences, case.not_compared = compare(oa, ob)
            case.status = DIFFER if case.differences else AGREE
        out.append(case)
        if on_case is not None:
            on_case(case)
    return out


def step_label(case: CaseDiff, index: int | None) -> str:
    if index is None:
        return "at the end"
    obs = case.a if case.a and index < len(case.a.steps) else case.b
    step = obs.steps[index] if obs and index < len(obs.steps) else {}
    name = f" {step['name']}" if step.get("name") else ""
    return f"from step {index + 1} ({step.get('action', '?')}{name})"


def render(cases: Sequence[CaseDiff], label_a: str, label_b: str) -> str:
    out = [f"teamai-conformance diff: {len(cases)} cases, A = {label_a}, B = {label_b}"]
    status = defaultdict(list)
    for c in cases:
        status[c.status].append(c)
    out.append(f"differ: {len(status[DIFFER])}, agree: {len(status[AGREE])}, "
               f"not compared: {len(status[NOT_COMPARED])}")
    left_out: dict[str, set[str]] = defaultdict(set)
    for c in status[DIFFER] + status[AGREE]:
        for kind, why in c.not_compared.items():
            left_out[kind].add(why)
    for kind, whys in sorted(left_out.items()):
        out.append(f"  {kind} not compared: {'; '.join(sorted(whys))}")
    by_kind: dict[str, list[str]] = defaultdict(list)
    by_clause: dict[str, list[CaseDiff]] = defaultdict(list)
    for c in status[DIFFER]:
        for d in c.differences:
            by_kind[d.kind].append(c.id)
        for clause in c.clauses:
            by_clause[clause].append(c)
    if by_kind:
        out += ["", "by kind:"]
        for kind in KINDS:
            if by_kind.get(kind):
                out += _wrapped(f"  {kind} ({len(by_kind[kind])}): ", by_kind[kind])
        out += ["", "by clause:"]
        for clause in sorted(by_clause):
            listed = [f"{c.id} [{', '.join(d.kind for d in c.differences)}]" for c in by_clause[clause]]
            out += _wrapped(f"  {clause} ({len(listed)}): ", listed)
        out += ["", "cases:"]
        for c in status[DIFFER]:
            out.append(f"  {c.id} ({c.area}): {c.title}")
            for d in c.differences:
                more = f" (+{d.count - 1} more)" if d.count > 1 else ""
                out.append(f"    {d.kind}, {step_label(c, d.step)}: {d.path}{more}")
                out.append(f"      A: {short(d.a)}")
                out.append(f"      B: {short(d.b)}")
    if status[NOT_COMPARED]:
        out += ["", "not compared:"]
        for c in status[NOT_COMPARED]:
            out.append(f"  {c.id}: {c.not_compared.get('case', '')}")
    return "\n".join(out) + "\n"


def _wrapped(head: str, items: list[str]) -> list[str]:
    return textwrap.wrap(head + ", ".join(items), 110, subsequent_indent="      ", break_on_hyphens=False)


def as_json(cases: Sequence[CaseDiff]) -> list[dict[str, Any]]:
    return [c.to_json() for c in cases]
