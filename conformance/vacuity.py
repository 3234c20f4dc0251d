"""Vacuous passes: a pass that an implementation lacking the feature would also get.

A case that only checks zero counters, absent log lines, empty ``Related:`` lists or an exit
status of 0 passes against an implementation that lacks the feature altogether, so its pass
says nothing about it. The rule, one for every key: an expectation is *positive* when it would
fail against the null observation, the one of an implementation in which the steps the case is
about do nothing (every vote key reads as zero counters and unset instants, the log is empty,
there are no stats rows, those steps print nothing and exit 0, no hit has a ``Related:`` line,
there are no findings).

Which steps a case is about: its hooks, pulls, stats, reviews and contributes when it has any,
and then the recalls before the first of them only set it up (their output and the
``recalled_count`` they leave are not the case's feature: an attribution case that checks
``recalled_count: 1, upvoted_count: 0`` says nothing about attribution); a case of recalls alone
is about its recalls. A pass whose judged expectations (after :mod:`.applicability` left some
out) hold no positive one is marked vacuous, with the expectations it did judge.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from .capabilities import action_of
from .substitute import PATTERN

_NULL_INSTANTS = ("", None)
FEATURE_ACTIONS = ("hook", "pull", "stats", "review", "contribute")
RECALL_FIELDS = ("recalled_count", "last_recalled_at")


def set_up(steps: Sequence[Mapping[str, Any]]) -> set[str]:
    """Names of the recall steps that only set the case up (see the module docstring)."""
    actions = [action_of(step) for step in steps]
    if not any(a in FEATURE_ACTIONS for a in actions):
        return set()
    first = next(i for i, a in enumerate(actions) if a in FEATURE_ACTIONS)
    return {str(step["as"]) for step in steps[:first] if step.get("as")}


def positive(expect: Mapping[str, Any], steps: Sequence[Mapping[str, Any]] = ()) -> list[str]:
    """The paths of the expectations that an implementation lacking the case's feature would fail."""
    about_recall = not any(action_of(step) in FEATURE_ACTIONS for step in steps)
    setup = set_up(steps)
    out: list[str] = []
    for key, fields in (expect.get("votes") or {}).items():
        if any(_counter_set(name, value) for name, value in (fields or {}).items()
               if about_recall or name not in RECALL_FIELDS):
            out.append(f"expect.votes.{key}")
    out += [f"expect.log_contains[{i}]" for i, _ in enumerate(expect.get("log_contains") or [])]
    out += [f"expect.credited[{i}]" for i, _ in enumerate(expect.get("credited") or [])]
    if expect.get("log_lines"):
        out.append("expect.log_lines")
    if expect.get("stats"):
        out.append("expect.stats")
    for name, want in (expect.get("steps") or {}).items():
        if name not in setup:
            out += _step(f"expect.steps.{name}", want or {})
    return out


def judged(expect: Mapping[str, Any]) -> list[str]:
    """Every expectation path that is judged, for the words of a vacuous mark."""
    out: list[str] = []
    for key, value in expect.items():
        if key == "steps":
            for name, want in (value or {}).items():
                out += [f"expect.steps.{name}.{k}" for k in (want or {})]
        else:
            out.append(f"expect.{key}")
    return out


def vacuous(expect: Mapping[str, Any], steps: Sequence[Mapping[str, Any]] = ()) -> str:
    """Why a pass judged on ``expect`` is vacuous, or ``""`` when it is not."""
    if positive(expect, steps):
        return ""
    checked = judged(expect)
    if not checked:
        return "nothing was checked but that every hook exits 0"
    setup = sorted(set_up(steps))
    what = f" (recalls {', '.join(setup)} only set the case up)" if setup else ""
    return f"an implementation lacking the feature passes every check made{what}: " + ", ".join(checked)


def _counter_set(name: str, value: Any) -> bool:
    if name.endswith("_count"):
        return value != 0
    if name.startswith("last_"):
        return value not in _NULL_INSTANTS
    return True  # a field the null ledger does not hold


def _step(path: str, want: Mapping[str, Any]) -> list[str]:
    out = []
    if "exit" in want and want["exit"] != 0:
        out.append(f"{path}.exit")
    for i, text in enumerate(want.get("output_contains") or []):
        if str(text):
            out.append(f"{path}.output_contains[{i}]")
    for i, pattern in enumerate(want.get("output_matches") or []):
        if not _matches_nothing_printed(str(pattern)):
            out.append(f"{path}.output_matches[{i}]")
    for tree_path, lines in (want.get("related") or {}).items():
        if lines:
            out.append(f"{path}.related.{tree_path}")
    if want.get("findings"):
        out.append(f"{path}.findings")
    return out


def _matches_nothing_printed(pattern: str) -> bool:
    """Whether the pattern (substitutions stood in for by a word) is found in empty stdout."""
    literal = PATTERN.sub(lambda m: re.escape("substituted"), pattern)
    try:
        return re.search(literal, "", re.MULTILINE) is not None
    except re.error:
        return False
