"""Vacuous passes: a pass that an implementation lacking the feature would also get.

A case that only checks zero counters, absent log lines, empty ``Related:`` lists or an exit
status of 0 passes against an implementation that lacks the feature altogether, so its pass
says nothing about it. The rule, one for every key: an expectation is *positive* when it would
fail against the null observation, the one of an implementation in which the steps the case is
about do nothing (every vote key reads as zero counters and unset instants, the log is empty,
there are no stats rows, those steps print nothing and exit 0, no hit has a ``Related:`` line,
there are no findings).

State the case starts from (``given:``) is not the implementation's doing: an implementation
that does nothing keeps the seeded log as it was. So a ``log_contains`` line that a seeded line
already matches is not positive (a "no vote" case that names its seeded evidence line says
nothing about the reducer), while a ``log_absent`` line or a ``never_in_state`` text that the
seeded log holds is positive: doing nothing would leave it there.

Which steps a case is about: its hooks, pulls, stats, reviews and contributes when it has any.
The recalls before the first hook, pull or stats only set it up (those steps act on what a
recall leaves behind, so the recall's output and the ``recalled_count`` it leaves are not the
case's feature: an attribution case that checks ``recalled_count: 1, upvoted_count: 0`` says
nothing about attribution). A review or a contribute reads the tree, never what a recall left,
so the recalls beside them are the case's feature as much as they are (a relation's
``Related:`` lines, then a contribute of the same file). A case of recalls alone is about its
recalls. A pass whose judged expectations (after :mod:`.applicability` left some out, and
without a decision it differs on) hold no positive one is marked vacuous, with the
expectations it did judge.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from ..running.normalize import matches
from ..running.sandbox import file_text
from ..running.substitute import PATTERN
from . import levels
from .capabilities import action_of

_NULL_INSTANTS = ("", None)
FEATURE_ACTIONS = ("hook", "pull", "stats", "review", "contribute")
# The steps that act on what a recall left behind (its run, the recalled count): the recalls
# before the first of them only set the case up.
AFTER_RECALL = ("hook", "pull", "stats")
RECALL_FIELDS = ("recalled_count", "last_recalled_at")


def set_up(steps: Sequence[Mapping[str, Any]]) -> set[str]:
    """Names of the recall steps that only set the case up (see the module docstring)."""
    actions = [action_of(step) for step in steps]
    first = next((i for i, a in enumerate(actions) if a in AFTER_RECALL), None)
    if first is None:
        return set()
    return {str(step["as"]) for step, action in zip(steps[:first], actions[:first], strict=True)
            if action == "recall" and step.get("as")}


def seeded_log(given: Mapping[str, Any] | None) -> tuple[list[Any], str]:
    """The log lines a case's ``given:`` block seeds (those that read as JSON), and its whole text,
    substitutions left as written, as the expectations spell them."""
    text = file_text((given or {}).get("log"))
    if not isinstance(text, str):
        return [], ""
    lines = []
    for line in text.splitlines():
        try:
            lines.append(json.loads(line))
        except (ValueError, RecursionError):  # a seeded line may be malformed on purpose, nested too deep
            continue
    return lines, text


def positive(expect: Mapping[str, Any], steps: Sequence[Mapping[str, Any]] = (),
             given: Mapping[str, Any] | None = None) -> list[str]:
    """The paths of the expectations that an implementation lacking the case's feature would fail
    (one that keeps the state ``given`` seeds, and does nothing)."""
    about_recall = not any(action_of(step) in AFTER_RECALL for step in steps)
    setup = set_up(steps)
    seeded, seeded_text = seeded_log(given)
    out: list[str] = []
    for key, fields in (expect.get("votes") or {}).items():
        if any(_counter_set(name, value) for name, value in (fields or {}).items()
               if about_recall or name not in RECALL_FIELDS):
            out.append(f"expect.votes.{key}")
    out += [f"expect.log_contains[{i}]" for i, line in enumerate(expect.get("log_contains") or [])
            if not _seeded(line, seeded)]
    out += [f"expect.log_absent[{i}]" for i, line in enumerate(expect.get("log_absent") or [])
            if _seeded(line, seeded)]
    out += [f"expect.never_in_state[{i}]" for i, text in enumerate(expect.get("never_in_state") or [])
            if seeded_text and str(text) in seeded_text]
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


def vacuous(expect: Mapping[str, Any], steps: Sequence[Mapping[str, Any]] = (),
            given: Mapping[str, Any] | None = None) -> str:
    """Why a pass judged on ``expect`` is vacuous, or ``""`` when it is not."""
    if positive(expect, steps, given):
        return ""
    checked = judged(expect)
    if not checked:
        return "nothing was checked but that every hook exits 0"
    setup = sorted(set_up(steps))
    what = f" (recalls {', '.join(setup)} only set the case up)" if setup else ""
    if seeded_log(given)[0]:
        what += " (the lines it finds were seeded)" if expect.get("log_contains") else ""
    return f"an implementation lacking the feature passes every check made{what}: " + ", ".join(checked)


def _seeded(line: Any, seeded: Sequence[Any]) -> bool:
    """Whether a seeded line matches ``line`` (read leniently, as the spec level reads a log)."""
    return any(matches(line, got, lenient=True) for got in seeded)


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
    for key in levels.PATTERN_KEYS:
        for i, pattern in enumerate(want.get(key) or []):
            if not _matches_nothing_printed(str(pattern)):
                out.append(f"{path}.{key}[{i}]")
    for tree_path, lines in (want.get("related") or {}).items():
        if lines:
            out.append(f"{path}.related.{tree_path}")
    if want.get("findings"):
        out.append(f"{path}.findings")
    return out


def _matches_nothing_printed(pattern: str) -> bool:
    """Whether the pattern (substitutions stood in for by a word) is found in empty output."""
    literal = PATTERN.sub(lambda m: re.escape("substituted"), pattern)
    try:
        return re.search(literal, "", re.MULTILINE) is not None
    except re.error:
        return False
