"""The explanation of a failure and the roll-up of failing clauses, as lines of the terminal report.

The explanation itself is worked out by ``explain.py`` and travels in the JSON-lines report;
this module only says it compactly: the first differing step with its decisions and the
reference's reasons, then the chain behind each vote that came out wrong.

:func:`blame` is the one place that says which clause a failing case counts under, in every
roll-up (the terminal, the JSON lines' ``blame`` and footer ``failing_clauses``, the page, JUnit):
the clause of the first observation at which it parted from the reference (by the decision's kind:
``BLAME``), else the decision or the case clause of its first held mismatch; :func:`rollup` groups
the failing cases by it.
"""

from __future__ import annotations

import difflib
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

from ..running import outcomes

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


# The clause that defines each kind of observation the explanation compares (``decisions.py``,
# ``explain._printed``): the case's own clause of that family when it names one, else the default.
BLAME: dict[str, tuple[tuple[str, ...], str]] = {
    "run": (("RUN-", "SESSION-"), "RUN-RECORD"),
    "claim": (("CLAIM-",), "CLAIM-PARSED-COMMAND"),
    "evidence": (("EVIDENCE-",), "EVIDENCE-LINE"),
    "link": (("LINK-",), "LINK-OPENCODE-TASK"),
    "consumed": (("REDUCE-",), "REDUCE-CONSUMED"),
    "pruned": (("RETAIN-",), "RETAIN-30-DAYS"),
    "stopped": ((), "RUN-ID-START-LINE"),
}
BLAME_BY_DECISION = {"run id not printed": "RUN-ID-START-LINE", "hook exited non-zero": "REF-HOOK-NEVER-FAILS",
                     "recall counted (the reference does not count it)": "RUN-RECALLED-COUNT",
                     "recall not counted": "RUN-RECALLED-COUNT"}
NO_CLAUSE = "(no clause)"


def _get(result: Any, name: str, default: Any = None) -> Any:
    """A field of a result or of its line in a JSON-lines report."""
    if isinstance(result, Mapping):
        return result.get(name, default)
    return getattr(result, name, default)


def blame(result: Any) -> dict[str, str] | None:
    """The clause a failing case is blamed on, and why: the clause of the first observation at
    which the implementation parted from the reference (the explanation's ``why``), not every
    clause the case names. Without such an observation, the clause behind the first mismatch the
    case is held to (a decision's own id), else the case's first clause. None for a case that
    does not fail."""
    outcome = _get(result, "outcome")
    if outcome not in FAILING:
        return None
    clauses = list(_get(result, "clauses") or [])
    first = (_get(result, "explanation") or {}).get("first") or {}
    for d in first.get("decisions") or []:
        name = str(d.get("decision", ""))
        kind = "pruned" if name.startswith(("line kept", "line pruned", "another line pruned")) else str(d.get("kind"))
        clause = BLAME_BY_DECISION.get(name)
        families: tuple[str, ...]
        if clause is None and kind == "votes":
            families, default = ("REDUCE-", "ADOPT-"), "REDUCE-JOIN"
        elif clause is None and kind == "output":
            families, default = ("OUT-", "REL-", "RESOLVE-", "DECLARE-", "MDLINK-", "REVIEW-", "CONTRIB-",
                                 "MALFORMED-", "RUN-", "REF-OUTPUT-"), clauses[0] if clauses else NO_CLAUSE
        elif clause is None:
            families, default = BLAME.get(kind, ((), clauses[0] if clauses else NO_CLAUSE))
        if clause is None:
            clause = next((c for c in clauses if c.startswith(families)), default) if families else default
        return {"clause": clause, "why": f"step {int(first.get('index', 0)) + 1}: {name}"}
    held = set(_get(result, "held") or ["spec"])
    mismatches = [m for m in _get(result, "mismatches") or [] if m.get("level", "spec") in held]
    if mismatches:
        m = mismatches[0]
        clause = str(m["decision"]) if m.get("decision") else (clauses[0] if clauses else NO_CLAUSE)
        return {"clause": clause, "why": f"{m.get('path')}: {m.get('message')}"}
    message = str(_get(result, "message") or outcome).splitlines()[0] if _get(result, "message") else str(outcome)
    return {"clause": clauses[0] if clauses else NO_CLAUSE, "why": f"{outcome}: {message}"[:200]}


def rollup(results: Iterable[Any]) -> list[dict[str, Any]]:
    """Failing cases grouped by the clause each is blamed on (:func:`blame`), most cases first;
    each group says what was seen first most often. A rule broken everywhere is one group."""
    groups: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for r in results:
        b = blame(r)
        if b is not None:
            groups[b["clause"]].append((str(_get(r, "id")), b["why"]))
    out = []
    for clause, cases in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        seen = Counter(why.split(": ", 1)[-1] for _id, why in cases).most_common(1)[0][0]
        out.append({"clause": clause, "cases": [i for i, _why in cases], "seen": seen})
    return out


def failing_clauses(results: Iterable[Any]) -> list[str]:
    """One line per blamed clause (:func:`rollup`), most cases first, with what was seen first."""
    groups = rollup(results)
    if not groups:
        return []
    out = ["failing clauses:"]
    for g in groups:
        ids = g["cases"]
        shown = ", ".join(ids[:ROLLUP_CASES_SHOWN]) + (", …" if len(ids) > ROLLUP_CASES_SHOWN else "")
        out.append(f"  {g['clause']}: {len(ids)} case{'s' if len(ids) != 1 else ''} ({shown}): {g['seen']}")
    return out
