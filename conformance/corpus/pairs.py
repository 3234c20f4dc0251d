"""Isolating pairs: for each clause, two scenarios whose results flip on that clause's input alone.

A clause's own scenario can pass for another reason: its input may be one a different rule already
rejects, so breaking the named rule changes nothing. A pair closes that gap. Its two scenarios
(twins) carry ``isolates: CLAUSE-ID`` and ``twin: <the other's id>``, run the same steps and differ
only in the input that clause decides on; each passes on its own run, and each one's expectations
fail on the other's run (``flip``, which needs an implementation, so a test runs it on the
reference: ``tests/conformance/test_isolating_pairs.py``, through ``case_runner.Observation``).
What needs no implementation is here for ``lint``: the two point at each other, name
the clause, and differ by at most ``MAX_CHANGES`` leaves of their input.

Why three: one clause's input is one value (an instant, a path, a verb, a count, a line of a file),
and a value sometimes has to change in two or three places that must agree (a file's name and
the path a read names; a relation in one file and its target in another). More than three
changes test more than one thing, and the pair would not say which one flipped the result.

A clause is exempt when no scenario can observe it: it lists ``unit_tests:`` and no scenario names it.
A clause whose result no input can flip (an invariant such as "relations never change the hits")
or that no implementation under test can show is listed, with its reason, in
``conformance/clauses-without-pair.txt``; ``lint --require-pairs`` accepts those and nothing else.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any

from ..running import outcomes
from ..running.case_runner import Observation, judge_blocks, run_case
from ..running.driver import Driver
from ..running.expect import Mismatch
from ..running.substitute import SubstitutionError
from . import levels
from .capabilities import action_of
from .clauses import Clause
from .read import Corpus, Payload, Scenario

MAX_CHANGES = 3
INPUT_KEYS = ("start", "env", "team", "user_team", "learnings_roots", "windows_team", "withheld", "repo", "given", "steps")


@dataclass(frozen=True)
class Pair:
    clause: str
    first: Scenario
    second: Scenario


def pairs(corpus: Corpus) -> list[Pair]:
    """Every well-formed pair once (the twin whose id sorts first is ``first``)."""
    by_id = corpus.by_id()
    out = []
    for scenario in corpus.scenarios:
        other = by_id.get(str(scenario.data.get("twin", "")))
        if (other is None or not scenario.data.get("isolates") or scenario.id >= other.id
                or _format(scenario, other, set()) or _format(other, scenario, set())):
            continue
        out.append(Pair(str(scenario.data["isolates"]), scenario, other))
    return out


def problems(corpus: Corpus, catalogue: set[str]) -> list[str]:
    """What is wrong with the ``isolates``/``twin`` marks, and twins that differ too much."""
    by_id = corpus.by_id()
    out = []
    for scenario in corpus.scenarios:
        if "twin" not in scenario.data and "isolates" not in scenario.data:
            continue
        twin = by_id.get(str(scenario.data.get("twin", "")))
        if twin is None:
            out.append(f"{scenario.rel}: twin {scenario.data.get('twin')!r} is not a case of the corpus")
            continue
        out += [f"{scenario.rel}: {p}" for p in _format(scenario, twin, catalogue)]
        if scenario.id < twin.id and not _format(twin, scenario, catalogue):
            out += [f"{scenario.rel}: {p}" for p in _difference_problems(scenario, twin)]
    return out


def _format(scenario: Scenario, twin: Scenario, catalogue: set[str]) -> list[str]:
    clause = str(scenario.data.get("isolates", ""))
    out = []
    if twin.id == scenario.id:
        return ["is its own twin"]
    if catalogue and clause not in catalogue:
        out.append(f"isolates {clause!r}, which is not in the catalogue")
    if clause not in scenario.clauses:
        out.append(f"isolates {clause} but does not list it in clauses:")
    if twin.data.get("twin") != scenario.id:
        out.append(f"its twin {twin.id} does not point back (its twin: {twin.data.get('twin')!r})")
    elif str(twin.data.get("isolates", "")) != clause:
        out.append(f"its twin {twin.id} isolates {twin.data.get('isolates')!r}, not {clause}")
    return out


def _difference_problems(first: Scenario, second: Scenario) -> list[str]:
    kinds = [action_of(s) for s in first.steps], [action_of(s) for s in second.steps]
    if sorted(map(str, kinds[0])) != sorted(map(str, kinds[1])):
        return [f"runs {', '.join(map(str, kinds[0]))} and its twin {second.id} runs "
                f"{', '.join(map(str, kinds[1]))}; twins run the same number and kinds of steps"]
    changed = differences(first.data, second.data)
    if not changed:
        return [f"its twin {second.id} has the same input; twins differ in the clause's input"]
    if len(changed) > MAX_CHANGES:
        return [f"its twin {second.id} differs in {len(changed)} places (at most {MAX_CHANGES}): "
                + "; ".join(changed[:6]) + ("; …" if len(changed) > 6 else "")]
    return []


def differences(first: Mapping[str, Any], second: Mapping[str, Any]) -> list[str]:
    """Where two scenarios' inputs (tree, environment, times, given state, steps) differ, one entry per leaf.

    A key on one side only is one change (a file added, a ``set:`` path added); a key renamed is
    one change plus what changed under it; a string of several lines counts each changed line;
    anything else counts once when it differs. Steps are compared in place, or, when the two
    run the same steps in another order, with one step moved: the move is one change (a trigger
    that comes before a read in one twin and after it in the other).
    """
    out: list[str] = []
    for key in INPUT_KEYS:
        a, b = first.get(key), second.get(key)
        if a is None and isinstance(b, Mapping | list):
            a = type(b)()  # no `env:` is an empty one
        if b is None and isinstance(a, Mapping | list):
            b = type(a)()
        if key == "steps" and isinstance(a, list) and isinstance(b, list):
            out += _step_differences(a, b)
        else:
            _diff(a, b, key, out.append)
    return out


def _step_differences(a: list[Any], b: list[Any]) -> list[str]:
    def compare(x: list[Any]) -> list[str]:
        found: list[str] = []
        _diff(x, b, "steps", found.append)
        return found

    best: list[str] | None = compare(a) if [action_of(s) for s in a] == [action_of(s) for s in b] else None
    for i in range(len(a)):
        for j in range(len(a)):
            if i == j:
                continue
            moved = a[:i] + a[i + 1:]
            moved.insert(j, a[i])
            if [action_of(s) for s in moved] == [action_of(s) for s in b]:
                found = [f"steps[{i}] moved to steps[{j}]", *compare(moved)]
                if best is None or len(found) < len(best):
                    best = found
    if best is None:  # more than one step moved: every place counts
        return compare(a) or ["steps reordered"]
    return best


def _diff(a: Any, b: Any, path: str, add: Callable[[str], None]) -> None:
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        for key in a:
            if key in b:
                _diff(a[key], b[key], f"{path}.{key}", add)
        gone, new = [k for k in a if k not in b], [k for k in b if k not in a]
        for old_key, new_key in zip(gone, new, strict=False):  # a renamed file: the name, and what changed in it
            add(f"{path}.{old_key} is {new_key} in the other")
            _diff(a[old_key], b[new_key], f"{path}.{new_key}", add)
        for key in gone[len(new):] + new[len(gone):]:
            add(f"{path}.{key} only in one")
    elif isinstance(a, list) and isinstance(b, list):
        for i, (x, y) in enumerate(zip(a, b, strict=False)):
            _diff(x, y, f"{path}[{i}]", add)
        for i in range(min(len(a), len(b)), max(len(a), len(b))):
            add(f"{path}[{i}] only in one")
    elif isinstance(a, str) and isinstance(b, str) and ("\n" in a or "\n" in b):
        lines = difflib.SequenceMatcher(None, a.splitlines(), b.splitlines(), autojunk=False)
        for tag, i1, i2, j1, j2 in lines.get_opcodes():
            if tag != "equal":
                for n in range(max(i2 - i1, j2 - j1)):
                    add(f"{path} line {min(i1, j1) + n + 1}")
    elif a != b or type(a) is not type(b):
        add(path)


LISTED_FILE = ("conformance", "clauses-without-pair.txt")


def listed(corpus: Corpus) -> tuple[dict[str, str], list[str]]:
    """The clauses the corpus says can have no isolating pair, each with its reason, and what
    is wrong with the list. ``conformance/clauses-without-pair.txt``: ``CLAUSE-ID  reason`` per
    line, ``#`` for comments. A reviewed list, like a list of equivalent mutants: every entry
    says why no input of the clause can flip a result."""
    path = corpus.root.joinpath(*LISTED_FILE)
    rel = "/".join(LISTED_FILE)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return {}, []
    except (OSError, UnicodeDecodeError) as exc:
        return {}, [f"{rel}: cannot be read: {exc}"]
    out: dict[str, str] = {}
    problems = []
    for n, line in enumerate(lines, 1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        clause, _, reason = text.partition(" ")
        if not reason.strip():
            problems.append(f"{rel}:{n}: {clause} needs a reason")
        out[clause] = reason.strip()
    return out, problems


def listing_problems(corpus: Corpus, catalogue: list[Clause]) -> list[str]:
    """Entries of the list that no longer hold: an unknown clause, one that has a pair now, or
    one that needs none (exempt by its unit tests)."""
    entries, problems = listed(corpus)
    known = {c.id for c in catalogue}
    paired = {p.clause for p in pairs(corpus)}
    skip = exempt(catalogue, corpus.scenarios)
    rel = "/".join(LISTED_FILE)
    for clause in entries:
        if clause not in known:
            problems.append(f"{rel}: {clause} is not in the catalogue")
        elif clause in paired:
            problems.append(f"{rel}: {clause} has an isolating pair now; take it off the list")
        elif clause in skip:
            problems.append(f"{rel}: {clause} is tested only by unit tests and needs no entry")
    return problems


def exempt(catalogue: Iterable[Clause], scenarios: Iterable[Scenario]) -> set[str]:
    """Clauses no scenario can observe: they list unit tests and no scenario names them."""
    named = {c for s in scenarios for c in s.clauses}
    return {c.id for c in catalogue if c.unit_tests and c.id not in named}


def unpaired(corpus: Corpus, catalogue: list[Clause]) -> list[str]:
    """Clause ids, in catalogue order, that need an isolating pair and have none (listed ones
    included: ``listed`` says which of them have a reason)."""
    paired = {p.clause for p in pairs(corpus)}
    skip = exempt(catalogue, corpus.scenarios)
    return [c.id for c in catalogue if c.id not in paired and c.id not in skip]


def flip(driver: Driver, pair: Pair, payloads: Mapping[str, Payload]) -> list[str]:
    """Run both twins on ``driver``: each must pass on its own run, and each one's expectations
    must fail on the other's run. What is wrong, one line each (empty: the pair flips)."""
    runs: dict[str, Observation] = {}
    out = []
    for scenario in (pair.first, pair.second):
        result = run_case(driver, scenario, payloads, observer=partial(runs.__setitem__, scenario.id), profile=True)
        if result.outcome != outcomes.PASS:
            out.append(f"{scenario.id}: {result.outcome} on its own run: {result.message}")
    if out:
        return out
    for mine, other in ((pair.first, pair.second), (pair.second, pair.first)):
        seen = runs[other.id]
        try:
            missed = [m for _block, found in judge_blocks(levels.blocks(mine.data), seen.observed, seen.steps,
                                                          seen.ctx, seen.norm) for m in found]
        except SubstitutionError as exc:
            missed = [Mismatch("expect", str(exc))]
        if not missed:
            out.append(f"{mine.id}: its expectations also pass on the run of its twin {other.id}, "
                       f"so {pair.clause} does not decide them")
    return out
