"""``corpus-lint``: everything about the corpus that can be checked without an implementation.

- every scenario and payload is valid against its JSON Schema (``schemas/``);
- ids are unique; each payload sits in the folder of its agent;
- every hook step names an existing payload, every clause exists in the catalogue, and every
  unit test a clause names (``unit_tests:``) exists;
- every ``${name.…}`` refers to an earlier step (in ``expect``: to any named step), and every
  ``${name.run}`` to a recall that searched (a hook or a ``--check`` prints no run id); names are
  unique, and every ``${…}`` is a known form (``${i}`` only in a step with ``repeat``); times
  parse; every ``output_matches`` and ``stderr_matches`` item is a regular expression;
- no two scenarios mean the same: the fingerprint of a scenario's content without its id,
  title, provenance and pair marks (``isolates``, ``twin``) is unique;
- every expectations file kept with the corpus (``conformance/expectations/*.toml``) is valid
  and names only cases the corpus has.
- a payload of an agent whose real payloads were recorded has that shape, or says why not
  (``recorded_shapes.py``).
- isolating pairs (``isolates:``/``twin:``) point at each other, name their clause, and differ
  only a little (``pairs.py``; which clauses still lack a pair is ``pairs.unpaired``).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from typing import Any

from ..running import expectations, matchers, timeline
from ..running.substitute import PATTERN as SUBSTITUTION
from ..running.substitute import REPEAT_INDEX, is_known_form, references, silent_step, step_name
from . import clauses, levels, pairs, recorded_shapes, schema
from .capabilities import action_of
from .read import Corpus, Scenario, is_shared

META_KEYS = ("id", "title", "provenance", "shrunk_from", "observations", "isolates", "twin")


def schema_errors(data: Any, name: str) -> list[str]:
    out = []
    for error in sorted(schema.errors(data, name), key=lambda e: list(e.absolute_path)):
        where = ".".join(str(p) for p in error.absolute_path) or "(top)"
        out.append(f"{where}: {error.message if len(error.message) < 200 else error.message[:200] + '…'}")
    return out


def fingerprint(scenario: Scenario) -> str:
    meaning = {k: v for k, v in scenario.data.items() if k not in META_KEYS}
    text = json.dumps(meaning, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def lint(corpus: Corpus) -> list[str]:
    problems = [str(p) for p in corpus.problems]
    try:
        loaded = clauses.load(corpus.clauses_path)
    except clauses.CatalogueError as exc:
        problems.append(str(exc))
        loaded = []
    catalogue = {c.id for c in loaded}
    level_of = {c.id: c.spec for c in loaded}
    problems += clauses.missing_unit_tests(loaded, corpus.root)
    if corpus.clauses_path is None:
        problems.append("no clause catalogue (conformance/clauses.yaml) was found")
    for payload in corpus.payloads.values():
        errors = schema_errors(payload.data, "payload.schema.json")
        problems += [f"{payload.rel}: {e}" for e in errors]
        if not errors:
            problems += [f"{payload.rel}: {e}" for e in recorded_shapes.lint_payload(
                payload.agent, payload.event, payload.payload, payload.data["provenance"])]
        if payload.data.get("agent") not in (None, payload.name.split("/", 1)[0]):
            problems.append(f"{payload.rel}: agent {payload.data.get('agent')!r} is not its folder's name")
    seen_ids: dict[str, str] = {}
    seen_meaning: dict[str, str] = {}
    for scenario in corpus.scenarios:
        rel = scenario.rel
        errors = _scenario_errors(scenario.data)
        problems += [f"{rel}: {e}" for e in errors]
        if scenario.id in seen_ids:
            problems.append(f"{rel}: id {scenario.id!r} is also used by {seen_ids[scenario.id]}")
        seen_ids.setdefault(scenario.id, rel)
        mark = fingerprint(scenario)
        if mark in seen_meaning:
            problems.append(f"{rel}: means the same as {seen_meaning[mark]} (only id, title, provenance or what it was derived from differ)")
        seen_meaning.setdefault(mark, rel)
        if errors:
            continue  # the rest assumes the shape is right
        if catalogue:
            problems += [f"{rel}: clause {c!r} is not in the catalogue" for c in scenario.clauses if c not in catalogue]
            problems += [f"{rel}: {p}" for p in level_problems(scenario, level_of)]
        origin = scenario.data.get("shrunk_from")
        if origin is not None and origin not in {s.id for s in corpus.scenarios}:
            problems.append(f"{rel}: shrunk_from names {origin!r}, a case the corpus does not have")
        if origin is not None and scenario.data.get("provenance") != "regression":
            problems.append(f"{rel}: a case shrunk from another is provenance regression")
        problems += [f"{rel}: {p}" for p in blocking(scenario, corpus, schema=False)]
    problems += pairs.problems(corpus, catalogue)
    problems += pairs.listing_problems(corpus, loaded)
    problems += _expectation_files(corpus, set(seen_ids))
    return problems


def _expectation_files(corpus: Corpus, ids: set[str]) -> list[str]:
    out = []
    for path in sorted((corpus.root / "conformance" / "expectations").glob("*.toml")):
        rel = path.relative_to(corpus.root).as_posix()
        try:
            entries = expectations.load(path)
        except expectations.ExpectationsError as exc:
            out.append(f"{rel}: {str(exc).removeprefix(f'{path}: ')}")
            continue
        out += [f"{rel}: [{case_id}] is not a case of the corpus" for case_id in expectations.unknown(entries, ids)]
    return out


# The schema errors of scenario data that the corpus's loads share, for this process: the suite
# and ``run`` ask about the same scenarios again and again, and validation takes a millisecond each.
_SCENARIO_ERRORS: dict[int, list[str]] = {}


def _scenario_errors(data: Any) -> list[str]:
    if not is_shared(data):
        return schema_errors(data, "scenario.schema.json")
    if id(data) not in _SCENARIO_ERRORS:
        _SCENARIO_ERRORS[id(data)] = schema_errors(data, "scenario.schema.json")
    return list(_SCENARIO_ERRORS[id(data)])


def blocking(scenario: Scenario, corpus: Corpus, schema: bool = True) -> list[str]:
    """What keeps this one scenario from running at all (its shape, references and times)."""
    if schema:
        errors = _scenario_errors(scenario.data)
        if errors:
            return errors
    out = _references(scenario, corpus)
    try:
        timeline.instants(scenario.data)
    except timeline.TimeError as exc:
        out.append(str(exc))
    return out


def _references(scenario: Scenario, corpus: Corpus) -> list[str]:
    out: list[str] = []
    names: dict[str, str | None] = {}  # step name -> what it is when it prints no run id
    for i, step in enumerate(scenario.steps, 1):
        action = action_of(step)
        if action == "hook" and str(step["hook"]) not in corpus.payloads:
            out.append(f"step {i}: payload {step['hook']!r} does not exist under payloads/")
        out += _check_refs(references({k: v for k, v in step.items() if k != "as"}), names, f"step {i}",
                           repeated=step.get("repeat") is not None)
        if step.get("as"):
            if step["as"] in names:
                out.append(f"step {i}: the name {step['as']!r} is already used by an earlier step")
            names[str(step["as"])] = silent_step(action, step.get("check"))
    out += _check_refs(references(scenario.data.get("env") or {}), {}, "env")
    for block in levels.blocks(scenario.data):
        expect, at = block.expect, block.where
        out += [f"{where}: {p}" for where, m in matchers.found_in(dict(expect), at) for p in matchers.problems(m)]
        out += _check_refs(references(expect), names, at)
        for name, want in (expect.get("steps") or {}).items():
            if name not in names:
                out.append(f"{at}.steps.{name}: no step is named {name!r}")
            for key in levels.PATTERN_KEYS:
                for j, pattern in enumerate(want.get(key) or []):
                    try:
                        re.compile(SUBSTITUTION.sub("x", str(pattern)))
                    except re.error as exc:
                        out.append(f"{at}.steps.{name}.{key}[{j}]: not a regular expression: {exc}")
    return out


def level_problems(scenario: Scenario, level_of: Mapping[str, str]) -> list[str]:
    """Each block at its level: the spec block observes only what #884 and #1552 define and the
    case cites one of their clauses; a decide block names a decision the case cites."""
    out: list[str] = []
    actions = {str(s["as"]): str(action_of(s)) for s in scenario.steps if s.get("as")}
    cited = set(scenario.clauses)
    if scenario.expect:
        out += levels.spec_problems(scenario.expect, actions)
        if not any(level_of.get(c) in clauses.SPEC_LEVEL for c in cited):
            out.append("expect: a spec-level block needs a #884 or #1552 clause among the case's clauses "
                       "(else the expectations are a decision's or the profile's)")
    for name, block in (scenario.data.get("decide") or {}).items():
        if name not in cited:
            out.append(f"decide.{name}: the case does not cite this clause")
        elif level_of.get(name) != levels.DECISION:
            out.append(f"decide.{name}: not a decision of the register (clauses.yaml, spec: decision)")
        out += [p.replace("expect.", f"decide.{name}.", 1) for p in levels.spec_problems(block or {}, actions)]
    return out


def _check_refs(refs: list[str], names: dict[str, str | None], where: str, repeated: bool = False) -> list[str]:
    out = []
    for ref in refs:
        if not is_known_form(ref):
            out.append(f"{where}: ${{{ref}}} is not a known substitution")
            continue
        if ref == REPEAT_INDEX and not repeated:
            out.append(f"{where}: ${{{REPEAT_INDEX}}} is known only in a step with repeat")
            continue
        name = step_name(ref)
        if name is not None and name not in names:
            out.append(f"{where}: ${{{ref}}} refers to no earlier step named {name!r}")
        elif name is not None and ref.endswith(".run") and names[name]:
            out.append(f"{where}: ${{{ref}}}: step {name!r} is {names[name]} and prints no run id")
    return out
