"""The explanation of a failure and the roll-up of failing clauses, as lines of the terminal report.

The explanation itself is worked out by ``explain.py`` and travels in the JSON-lines report;
this module only says it compactly: the first differing step with its decisions and the
reference's reasons, then the chain behind each vote that came out wrong.
"""

from __future__ import annotations

import difflib
from collections import defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

from . import outcomes

DECISIONS_SHOWN = 4
CHAINS_SHOWN = 3
ROLLUP_CASES_SHOWN = 4
FAILING = frozenset({outcomes.FAIL, outcomes.ERROR, outcomes.CRASH, outcomes.TIMEOUT})


def explanation_lines(explanation: Mapping[str, Any] | None) -> list[str]:
    """The ``why:`` block under a failure (nothing when the case has no explanation)."""
    if not explanation:
        return []
    out = [f"  why: {explanation.get('summary') or explanation.get('problem') or '?'}"]
    if explanation.get("problem") and explanation.get("summary") != explanation.get("problem"):
        out.append(f"    ({explanation['problem']})")
    first = explanation.get("first")
    if first:
        if first.get("now"):
            out.append(f"    at {first['now']}, the first step whose decisions differ from the reference's:")
        for decision in first.get("decisions", [])[:DECISIONS_SHOWN]:
            out.append(f"    {decision['decision']}:")
            out += [f"      {w}" for w in decision.get("words", [])]
        hidden = len(first.get("decisions", [])) - DECISIONS_SHOWN
        if hidden > 0:
            out.append(f"    … and {hidden} more difference(s) at this step")
        if first.get("notes"):
            out.append("    the reference's reasons (teamai-ref replay): " + "; ".join(first["notes"]))
    if explanation.get("log_compared") is False:
        out.append("    (the implementation keeps no recall log: only votes were compared)")
    for chain in (explanation.get("chains") or [])[:CHAINS_SHOWN]:
        out.append(f"  behind {chain['path']}:")
        out += [f"    {line}" for line in chain.get("lines", [])]
    return out


def text_diff_lines(expected: Any, actual: Any, indent: str = "      ") -> list[str]:
    """A short unified diff of two texts (an ``output_contains`` against the closest region of
    stdout); nothing when either side is not text."""
    if not isinstance(expected, str) or not isinstance(actual, str):
        return []
    diff = difflib.unified_diff(expected.splitlines(), actual.splitlines(), "expected", "stdout", n=2,
                                lineterm="")
    return [f"{indent}{line}" for line in list(diff)[2:]]


def failing_clauses(results: Iterable[outcomes.CaseResult]) -> list[str]:
    """One line per clause that unexpectedly failing cases name, most cases first: a rule that is
    broken everywhere shows as one line."""
    cases: dict[str, list[str]] = defaultdict(list)
    for r in results:
        if r.outcome in FAILING:
            for clause in dict.fromkeys(r.clauses):
                cases[clause].append(r.id)
    if not cases:
        return []
    out = ["failing clauses:"]
    for clause, ids in sorted(cases.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        shown = ", ".join(ids[:ROLLUP_CASES_SHOWN]) + (", …" if len(ids) > ROLLUP_CASES_SHOWN else "")
        out.append(f"  {clause}: {len(ids)} case{'s' if len(ids) != 1 else ''} ({shown})")
    return out
