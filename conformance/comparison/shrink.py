"""``teamai-conformance shrink``: the smallest scenario that still fails the same way.

A failing case is cut down one piece at a time; a piece stays out when the case, run again
against the same implementation, still fails with the same *signature*: the outcome, the first
mismatch's message and its path in the scenario, with every list index in that path replaced
by what the scenario holds there (``steps[hook claude/stop]``, ``expect.log_contains[{…}]``),
so removing an earlier step or item does not change it, and substituted values (sandbox paths)
never enter it. The case's title and clauses are kept, so the signature's clause is the
original's; an isolating pair's marks are not (its twin points back to the original).

Passes, repeated until none removes anything (or the trial budget is spent); a pass starts
again from the smaller scenario after every cut it keeps, and a candidate already refused is
never run twice:

1. steps (halves first, then one at a time, the last first);
2. files of the trees, withheld codebases, environment variables;
3. expectations that are not on the failing path;
4. payload fields: a ``set:`` entry, else a field of the payload file taken out with ``unset:``
   (an object first, then its fields);
5. text: lines of a file, lines of a ``set:`` text, words of a recall's query.

A cut that makes the case fail the same way against the implementation can also make the
scenario wrong (drop the Stop that credits a read, and "one upvote" fails everywhere). So a cut
is kept only when the case still passes against an *oracle*, the reference unless told
otherwise: the result is a true regression case, one the reference passes and the shrunk
implementation fails as before.

The result is written as a new scenario, provenance ``regression``, ``shrunk_from`` the
original's id, and the report says how much smaller it is (steps, files, bytes).
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any

from ..corpus.capabilities import action_of
from ..corpus.read import Payload, Scenario
from ..corpus.scenario_file import dump
from ..running import outcomes
from ..running.case_runner import run_case
from ..running.driver import Driver
from ..running.substitute import set_paths, unset_paths

DEFAULT_TRIALS = 400
SUFFIX = "-shrunk"
_INDEX = re.compile(r"\[(\d+)\]")


class CannotShrink(ValueError):
    """The case does not fail in a way shrinking can hold on to."""


@dataclass(frozen=True)
class Signature:
    outcome: str
    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.outcome} at {self.path}: {self.message}"


@dataclass(frozen=True)
class Size:
    steps: int
    files: int
    bytes: int

    def __str__(self) -> str:
        return f"{self.steps} steps, {self.files} files, {self.bytes} bytes"


@dataclass
class Shrunk:
    data: dict[str, Any]
    signature: Signature
    before: Size
    after: Size
    trials: int

    def summary(self) -> str:
        def part(name: str, a: int, b: int) -> str:
            cut = f" (-{100 * (a - b) // a}%)" if a and b < a else ""
            return f"{name} {a} -> {b}{cut}"

        return ", ".join([part("steps", self.before.steps, self.after.steps),
                          part("files", self.before.files, self.after.files),
                          part("bytes", self.before.bytes, self.after.bytes)])


def signature(result: outcomes.CaseResult, data: Mapping[str, Any]) -> Signature | None:
    """The failure's signature, or None for a case that did not fail on a mismatch."""
    if result.outcome != outcomes.FAIL or not result.mismatches:
        return None
    first = result.mismatches[0]
    return Signature(result.outcome, stable_path(str(first.get("path", "")), data), str(first.get("message", "")))


def stable_path(path: str, data: Mapping[str, Any]) -> str:
    """``path`` with each ``[i]`` replaced by what the scenario holds there."""
    if path.startswith("steps["):
        match = _INDEX.match(path, len("steps"))
        steps = data.get("steps") or []
        if match and int(match.group(1)) < len(steps):
            step = steps[int(match.group(1))]
            action = action_of(step) or "?"
            return f"steps[{action} {_short(step.get(action))}]" + path[match.end():]
        return path
    if not path.startswith("expect."):
        return path
    node: Any = data.get("expect") or {}
    out = "expect"
    for token in re.findall(r"\.([^.\[]+)|\[(\d+)\]", path[len("expect"):]):
        key, index = token
        if key:
            out += f".{key}"
            node = node.get(key) if isinstance(node, Mapping) else None
        else:
            item = node[int(index)] if isinstance(node, list) and int(index) < len(node) else None
            out += f"[{_short(item)}]"
            node = item
    return out


def _short(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True)


def size(data: Mapping[str, Any], payloads: Mapping[str, Payload]) -> Size:
    """Steps; files of the trees; bytes of the scenario file plus the payloads its hooks send."""
    files = len(data.get("team") or {}) + len(data.get("user_team") or {})
    files += sum(len(tree or {}) for tree in data.get("learnings_roots") or [])
    files += sum(len(changes or {}) for changes in ((data.get("repo") or {}).get("branches") or {}).values())
    sent = 0
    for step in data.get("steps") or []:
        payload = payloads.get(str(step.get("hook"))) if "hook" in step else None
        if payload is not None:
            body = unset_paths(set_paths(payload.payload, dict(step.get("set") or {})), list(step.get("unset") or []))
            sent += len(json.dumps(body, ensure_ascii=False).encode("utf-8"))
    return Size(len(data.get("steps") or []), files, len(dump(data).encode("utf-8")) + sent)


def shrink(driver: Driver, scenario: Scenario, payloads: Mapping[str, Payload], timeout: float = 60.0,
           max_trials: int = DEFAULT_TRIALS, oracle: Driver | None = None,
           on_trial: Callable[[int, bool], None] | None = None) -> Shrunk:
    """``oracle``: the driver the case must keep passing against (None: no such check)."""
    first = run_case(driver, scenario, payloads, timeout)
    goal = signature(first, scenario.data)
    if goal is None:
        detail = f": {first.message.splitlines()[0]}" if first.message else ""
        raise CannotShrink(f"{scenario.id} is {first.outcome} against this implementation{detail}; "
                           "only a fail with a mismatch can be shrunk")
    if oracle is not None:
        judged = run_case(oracle, scenario, payloads, timeout)
        if judged.outcome != outcomes.PASS:
            raise CannotShrink(f"{scenario.id} is {judged.outcome} against the oracle too, so no cut could be "
                               "told right from wrong (shrink without an oracle, or fix the case first)")
    trials = 0
    current = copy.deepcopy(scenario.data)
    rejected: set[str] = set()

    def holds(data: dict[str, Any]) -> bool:
        nonlocal trials
        key = json.dumps(data, sort_keys=True, ensure_ascii=False, default=str)
        if key in rejected:
            return False
        trials += 1
        candidate = replace(scenario, data=data)
        ok = signature(run_case(driver, candidate, payloads, timeout), data) == goal
        if ok and oracle is not None:
            ok = run_case(oracle, candidate, payloads, timeout).outcome == outcomes.PASS
        if not ok:
            rejected.add(key)
        if on_trial is not None:
            on_trial(trials, ok)
        return ok

    changed = True
    while changed and trials < max_trials:
        changed = False
        for reductions in (_step_cuts, _file_cuts, _expect_cuts, _payload_cuts, _text_cuts):
            accepted = True
            while accepted and trials < max_trials:
                accepted = False  # each accepted cut starts the pass again from the smaller scenario
                for candidate in reductions(current, payloads, goal):
                    if trials >= max_trials:
                        break
                    if candidate != current and holds(candidate):
                        current, accepted, changed = candidate, True, True
                        break
    out = _as_regression(current, scenario.id)
    return Shrunk(out, goal, size(scenario.data, payloads), size(out, payloads), trials)


def _as_regression(data: dict[str, Any], original: str) -> dict[str, Any]:
    """The shrunk scenario under its own id, valid corpus input as written: the original's title
    and every clause it cites (``shrunk_from`` says where it came from), without the empty maps the
    cuts left behind, and without ``isolates``/``twin``: the twin names the original, not this
    case, so the pair would not point back (lint refuses a pair that does not)."""
    out = {k: v for k, v in copy.deepcopy(data).items()
           if not (k in ("env", "user_team") and not v) and k not in ("isolates", "twin")}
    out["steps"] = [{k: v for k, v in step.items() if not (k in ("env", "set", "unset") and not v)}
                    for step in out.get("steps") or []]
    out["id"] = original[: 80 - len(SUFFIX)] + SUFFIX
    out["title"] = data.get("title") or original
    out["provenance"] = "regression"
    out["shrunk_from"] = original
    return out


# -- reductions: each yields candidate scenarios, smallest change last ------------------------
Cuts = Iterator[dict[str, Any]]


def _expect_cuts(data: dict[str, Any], payloads: Mapping[str, Payload], goal: Signature) -> Cuts:
    expect = data.get("expect") or {}
    for key in list(expect):
        if not goal.path.startswith(f"expect.{key}"):
            yield {**data, "expect": {k: v for k, v in expect.items() if k != key}}
    for key, value in list(expect.items()):
        if isinstance(value, dict):
            for inner in list(value):
                if not goal.path.startswith(f"expect.{key}.{inner}"):
                    yield {**data, "expect": {**expect, key: {k: v for k, v in value.items() if k != inner}}}
        if isinstance(value, list) and len(value) > 1:
            for i in range(len(value)):
                yield {**data, "expect": {**expect, key: value[:i] + value[i + 1:]}}
    for name, want in list((expect.get("steps") or {}).items()):
        for inner, value in list((want or {}).items()):
            if isinstance(value, list) and len(value) > 1:
                for i in range(len(value)):
                    steps = {**expect["steps"], name: {**want, inner: value[:i] + value[i + 1:]}}
                    yield {**data, "expect": {**expect, "steps": steps}}
            elif not goal.path.startswith(f"expect.steps.{name}.{inner}"):
                steps = {**expect["steps"], name: {k: v for k, v in want.items() if k != inner}}
                yield {**data, "expect": {**expect, "steps": steps}}


def _step_cuts(data: dict[str, Any], payloads: Mapping[str, Payload], goal: Signature) -> Cuts:
    steps = data.get("steps") or []
    for chunk in _chunks(len(steps)):
        kept = [s for i, s in enumerate(steps) if i not in chunk]
        if kept:
            yield {**data, "steps": kept}


def _chunks(n: int) -> Iterator[set[int]]:
    """Halves, quarters, ... then single indexes, last first (later steps depend on earlier ones)."""
    size_ = n // 2
    while size_ >= 1:
        for start in range(n - size_, -1, -size_):
            yield set(range(start, start + size_))
        size_ //= 2


def _file_cuts(data: dict[str, Any], payloads: Mapping[str, Payload], goal: Signature) -> Cuts:
    for key in ("team", "user_team"):
        tree = data.get(key)
        if isinstance(tree, dict):
            if key == "user_team" and tree:
                yield {k: v for k, v in data.items() if k != key}
            for path in list(tree):
                yield {**data, key: {p: t for p, t in tree.items() if p != path}}
    roots = data.get("learnings_roots")
    if isinstance(roots, list):
        for i, tree in enumerate(roots):
            for path in list(tree or {}):
                yield {**data, "learnings_roots": roots[:i] + [{p: t for p, t in tree.items() if p != path}]
                       + roots[i + 1:]}
    branches = (data.get("repo") or {}).get("branches") or {}
    for branch, changes in branches.items():
        for path in list(changes or {}):
            new = {**branches, branch: {p: t for p, t in changes.items() if p != path}}
            yield {**data, "repo": {**data["repo"], "branches": new}}
    withheld = data.get("withheld")
    if isinstance(withheld, list):
        for i in range(len(withheld)):
            yield {**data, "withheld": withheld[:i] + withheld[i + 1:]}
    env = data.get("env") or {}
    for name in list(env):
        yield {**data, "env": {k: v for k, v in env.items() if k != name}}
    steps = data.get("steps") or []
    for i, step in enumerate(steps):
        for name in list(step.get("env") or {}):
            yield _with_step(data, i, {**step, "env": {k: v for k, v in step["env"].items() if k != name}})


def _payload_cuts(data: dict[str, Any], payloads: Mapping[str, Payload], goal: Signature) -> Cuts:
    steps = data.get("steps") or []
    for i, step in enumerate(steps):
        if "hook" not in step:
            continue
        set_ = dict(step.get("set") or {})
        for key in list(set_):
            yield _with_step(data, i, {**step, "set": {k: v for k, v in set_.items() if k != key}})
        payload = payloads.get(str(step["hook"]))
        if payload is None:
            continue
        body = unset_paths(set_paths(payload.payload, set_), list(step.get("unset") or []))
        for dotted in _fields(body):
            if any(k == dotted or k.startswith(dotted + ".") for k in set_):
                continue  # what set: puts there is cut by removing the set: entry
            yield _with_step(data, i, {**step, "unset": [*(step.get("unset") or []), dotted]})


def _fields(body: Any, prefix: str = "") -> Iterator[str]:
    """Dotted paths of a payload's fields, each object before its own fields."""
    if isinstance(body, dict):
        for key, value in body.items():
            dotted = f"{prefix}{key}"
            yield dotted
            yield from _fields(value, dotted + ".")


def _text_cuts(data: dict[str, Any], payloads: Mapping[str, Payload], goal: Signature) -> Cuts:
    for key in ("team", "user_team"):
        tree = data.get(key)
        if isinstance(tree, dict):
            for path, text in tree.items():
                if not isinstance(text, str):
                    continue  # a repeated file ({repeat, times}) is kept as written
                for shorter in _fewer_lines(text):
                    if shorter.strip():  # never an empty file: a cut file, not one made blank
                        yield {**data, key: {**tree, path: shorter}}
    steps = data.get("steps") or []
    for i, step in enumerate(steps):
        for name, value in (step.get("set") or {}).items():
            if isinstance(value, str):
                for shorter in _fewer_lines(value):
                    yield _with_step(data, i, {**step, "set": {**step["set"], name: shorter}})
        if isinstance(step.get("recall"), str):
            words = step["recall"].split(" ")
            for j in range(len(words)):
                if len(words) > 1:
                    yield _with_step(data, i, {**step, "recall": " ".join(words[:j] + words[j + 1:])})


def _fewer_lines(text: str) -> Iterator[str]:
    lines = text.split("\n")
    for chunk in _chunks(len(lines)):
        kept = [line for j, line in enumerate(lines) if j not in chunk]
        if kept:
            yield "\n".join(kept)


def _with_step(data: dict[str, Any], index: int, step: dict[str, Any]) -> dict[str, Any]:
    steps = list(data.get("steps") or [])
    steps[index] = step
    return {**data, "steps": steps}
