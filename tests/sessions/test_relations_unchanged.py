"""Relations never change what recall finds: the same generated session over a tree with its
``related:`` blocks and Markdown links, and over the same tree with them stripped (the words and
line numbers kept, see ``trees.py``), prints the same hits in the same order with the same scores,
and ends with the same log and votes. Only the ``Related:`` lines may differ.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from hypothesis import given, settings

from conformance.running.substitute import PATTERN

from . import agents, cases, harness, invariants
from .sessions import EVERY, Plan, plans

TEST = "tests/sessions/test_relations_unchanged.py::test_relations_never_change_hits_order_or_scores"
RELATED = "Related: "
REACHED = {"a hit shows Related lines": 0.5, "a hit shows an incoming relation": 0.2,
           "a declaration the table allows": 0.5, "a declaration outside the table": 0.2,
           "a link to an asset": 0.5, "a link out of the tree": 0.1, "a hit shows five Related lines": 0.02}


def without_related(stdout: str) -> str:
    return "".join(line for line in stdout.splitlines(keepends=True) if not line.startswith(RELATED))


def literal(text: str) -> str:
    """A regular expression matching ``text``, its ``${…}`` substitutions left for the harness."""
    out, at = [], 0
    for m in PATTERN.finditer(text):
        out += [re.escape(text[at:m.start()]), m.group(0)]
        at = m.end()
    return "".join(out) + re.escape(text[at:])


def hits_pattern(stdout: str) -> str:
    """The whole output as printed without relations, each line allowed to be followed by
    ``Related:`` lines and by nothing else."""
    return r"\A" + "".join(literal(line) + r"\n(?:Related: [^\n]*\n)*" for line in stdout.splitlines()) + r"\Z"


def _cases_reached(plan: Plan, outputs: dict[str, str]) -> set[str]:
    reached = {f"a {k.replace('-', ' ')}" for k in plan.tree.notes}
    names = {"a declared allowed": "a declaration the table allows",
             "a declared outside table": "a declaration outside the table",
             "a link asset": "a link to an asset", "a link outside": "a link out of the tree"}
    reached = {names.get(r, r) for r in reached}
    for text in outputs.values():
        related = [line for line in text.splitlines() if line.startswith(RELATED)]
        if related:
            reached.add("a hit shows Related lines")
        if any(line.startswith(RELATED + "←") for line in related):
            reached.add("a hit shows an incoming relation")
        blocks = re.split(r"\n(?=\[\d+/\d+\] )", text)
        if any(sum(line.startswith(RELATED) for line in b.splitlines()) == 5 for b in blocks):
            reached.add("a hit shows five Related lines")
    return reached


def test_relations_never_change_hits_order_or_scores() -> None:
    harness.each_lead(_property, REACHED)


def _property(lead: str, reach: harness.Reach, **overrides: Any) -> Callable[[], None]:
    @settings(**{**harness.profile(40, share=len(agents.AGENTS)), **overrides})
    @given(plans(lead))
    def prop(plan: Plan) -> None:
        full = cases.build(plan, EVERY, relations=True, what="relations")
        bare = cases.build(plan, EVERY, relations=False, what="relations")
        with_rel, without = harness.run(full, "recall"), harness.run(bare, "recall")
        for result, case in ((with_rel, full), (without, bare)):
            broken = invariants.ran(result)
            if broken:
                harness.fail(TEST, "the session runs to its end and every hook exits 0", broken, [(case, "recall")])
        shown, plain = cases.outputs(with_rel), cases.outputs(without)
        reach.saw(_cases_reached(plan, shown))
        problems = [f"{name}: the hits differ once relations are stripped" for name in sorted(plain)
                    if without_related(shown.get(name, "")) != plain[name]]
        observed = (with_rel.observed or {}), (without.observed or {})
        if not problems and observed[0] != observed[1]:
            problems.append("the log or the votes differ once relations are stripped")
        if problems:
            steps: dict[str, Any] = {name: {"output_matches": [hits_pattern(text)]} for name, text in plain.items()}
            stated = {**full, "clauses": ["OUT-RESULTS-UNCHANGED"], "expect": {**full["expect"], "steps": steps}}
            harness.fail(f"{TEST} (lead agent {lead})", "relations never change hits, their order or scores",
                         problems, [(stated, "recall")])

    return prop
