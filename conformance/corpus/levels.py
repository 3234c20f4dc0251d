"""The three levels a scenario's expectations are judged at, and what the proposals define.

A case states its expectations in up to three blocks, one per level:

============  ===========================================================================
``expect``    **spec**: what follows from a #884 or #1552 clause, observed only through
              what the proposals themselves define (the fields of their log-line examples,
              the stats columns, a finding's file, relation, target and severity, the votes
              ledger read as YAML). Failing it is non-conformance.
``decide``    **decision**, one block per decision the case cites (``clauses.yaml``,
              ``spec: decision``): where the proposals are silent or ambiguous the reference
              chose, and the block holds what follows from its choice. An implementation
              that fails it *differs on* that decision; it is not non-conformant.
``profile``   **profile**: the reference's own formats (its extra log fields and line
              kinds, line counts, message wording, whole outputs, orders the proposals leave
              open). Judged only for a driver that declares the reference's profile.
============  ===========================================================================

The spec level is what another implementation is measured by, so it must never depend on
a profile detail: ``spec_problems`` is the lint rule that keeps the ``expect`` block inside
what the proposals define, and the harness judges it leniently where they leave the spelling
open (an instant with or without milliseconds, a null field or an absent one, a session shown
by a unique prefix of at least 8 characters, a finding's words).

Who does what with the levels: ``lint.level_problems`` applies them to every case; ``expect.py``
reads the spec and decision blocks on meaning (``normalize.same_instant``, null as absent, stats by
column and session prefix, findings by what they name, the ledger's scalars as values);
``outcomes.settle`` turns each block's mismatches into the case's verdicts and outcome, and
``outcomes.level_totals`` into the three numbers every report shows; ``placement.py`` sorts the
expectations of any case a tool writes. Credits are observed through the protocol (``observe``'s
``credited``), never through the reference's ``consumed`` lines (``drivers/reference.credits``).
``drivers/perturbed.py`` makes every open choice another way, and the whole corpus holds on it at
spec level.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..running.matchers import is_matcher

SPEC, DECISION, PROFILE = "spec", "decision", "profile"
LEVELS = (SPEC, DECISION, PROFILE)
BLOCK_KEYS = {SPEC: "expect", DECISION: "decide", PROFILE: "profile"}
# The profile a driver declares (``capabilities.profile``) to be judged on the profile block.
REFERENCE_PROFILE = "teamai-ref"

# The fields of each recall-log line kind that #884's examples define ("The recall log is local").
# Any other field, and any other kind (the reference's ``consumed``), is an implementation's own.
LINE_FIELDS: dict[str, frozenset[str]] = {
    "run": frozenset({"kind", "ts", "run", "session", "agent", "actor", "caller", "via", "docs"}),
    "claim": frozenset({"kind", "ts", "run", "session", "actor"}),
    "evidence": frozenset({"kind", "ts", "session", "actor", "path"}),
    "link": frozenset({"kind", "ts", "child", "parent"}),
}
DOC_FIELDS = frozenset({"key", "type", "scope", "path", "score", "eligible"})
ACTOR_FIELDS = frozenset({"agent_id", "agent_type"})
# ``teamai stats``: "session, agent, runs, recalled, adopted".
STATS_COLUMNS = frozenset({"session", "agent", "runs", "recalled", "adopted"})
SESSION_PREFIX = 8
# "evidence is marked consumed when credited": which read (its session and path) credited which doc.
CREDIT_FIELDS = frozenset({"session", "key", "path"})
# A finding of review --branch or contribute, as the #1552 examples show one.
FINDING_FIELDS = frozenset({"severity", "file", "relation", "target"})
MARKS = {"fail": ("✖",), "warn": ("!", "⚠")}
SPEC_KEYS = frozenset({"votes", "no_votes", "log_contains", "log_absent", "credited", "not_credited", "stats",
                       "never_in_state", "ledger_file", "steps"})
SPEC_STEP_KEYS = frozenset({"exit", "output_contains", "output_matches", "related", "findings",
                            "unchanged_without_relations"})
# Steps whose printed text the proposals define: recall's region, hits and Related: lines.
TEXT_STEPS = frozenset({"recall"})
# A step's expectations that are regular expressions, each searched in one stream of what it printed
# (``^`` and ``$`` at every line). Only stdout is ever the proposals': stderr holds an
# implementation's own warnings, so ``stderr_matches`` is the profile's.
PATTERN_KEYS = {"output_matches": "stdout", "stderr_matches": "stderr"}
ABSENCE = re.compile(r"^\\A\(\?!")


@dataclass(frozen=True)
class Block:
    """One level's expectations of a case."""

    level: str
    expect: dict[str, Any]
    decision: str | None = None

    @property
    def where(self) -> str:
        """The block's place in the scenario, which every mismatch path starts with."""
        return f"decide.{self.decision}" if self.decision else BLOCK_KEYS[self.level]


def blocks(data: Mapping[str, Any]) -> list[Block]:
    """The case's expectation blocks, spec first (empty ones left out)."""
    out = [Block(SPEC, dict(data.get("expect") or {}))]
    out += [Block(DECISION, dict(block or {}), str(name)) for name, block in (data.get("decide") or {}).items()]
    out.append(Block(PROFILE, dict(data.get("profile") or {})))
    return [b for b in out if b.expect]


def judged(declared: Mapping[str, Any], profile: bool | None = None) -> tuple[str, ...]:
    """The levels a driver is judged at: spec and decisions always, the profile only for a driver
    that declares the reference's (or when asked for)."""
    if profile is None:
        profile = declared.get("profile") == REFERENCE_PROFILE
    return LEVELS if profile else (SPEC, DECISION)


def held(declared: Mapping[str, Any], profile: bool | None = None) -> tuple[str, ...]:
    """The levels whose failure fails a case: every level for a driver judged on the profile (the
    reference is held to its own choices and formats), the spec alone for any other."""
    return LEVELS if PROFILE in judged(declared, profile) else (SPEC,)


def severity(mark: str) -> str | None:
    return next((name for name, marks in MARKS.items() if mark in marks), None)


# -- what the spec block may observe (lint) -----------------------------------------------------

def spec_problems(expect: Mapping[str, Any], actions: Mapping[str, str]) -> list[str]:
    """Why ``expect`` observes something the proposals do not define (empty: it does not).
    ``actions`` maps a step's name to its action (recall, stats, ...)."""
    out = [f"expect.{key}: not a spec-level observation (put it under profile:)"
           for key in expect if key not in SPEC_KEYS]
    for key in ("log_contains", "log_absent"):
        for i, line in enumerate(expect.get(key) or []):
            out += [f"expect.{key}[{i}]: {p}" for p in _line_problems(line)]
    for key in ("credited", "not_credited"):
        for i, item in enumerate(expect.get(key) or []):
            extra = sorted(set(item or {}) - CREDIT_FIELDS) if isinstance(item, Mapping) else ["(not a mapping)"]
            if extra:
                out.append(f"expect.{key}[{i}]: {', '.join(extra)} is not a field of a credit "
                           f"({', '.join(sorted(CREDIT_FIELDS))})")
    for i, row in enumerate(expect.get("stats") or []):
        extra = sorted(set(row or {}) - STATS_COLUMNS) if isinstance(row, Mapping) else ["(not a mapping)"]
        if extra:
            out.append(f"expect.stats[{i}]: {', '.join(extra)} is not a stats column")
    for name, want in (expect.get("steps") or {}).items():
        out += _step_problems(f"expect.steps.{name}", want or {}, actions.get(str(name)))
    return out


def _line_problems(line: Any) -> list[str]:
    if not isinstance(line, Mapping):
        return ["not a mapping"]
    kind = line.get("kind")
    fields = LINE_FIELDS.get(str(kind))
    if fields is None:
        return [f"kind {kind!r} is not a line kind #884 defines (run, claim, evidence, link); "
                "a credit is observed with credited:/not_credited:"]
    out = [f"{name} is not a field of a {kind} line in #884" for name in line if name not in fields]
    actor = line.get("actor")
    if isinstance(actor, Mapping) and not is_matcher(actor):
        out += [f"actor.{name} is not a field of an actor" for name in actor if name not in ACTOR_FIELDS]
    docs = line.get("docs")
    if isinstance(docs, list):
        for j, doc in enumerate(docs):
            if isinstance(doc, Mapping) and not is_matcher(doc):
                out += [f"docs[{j}].{name} is not a field of a run's doc" for name in doc if name not in DOC_FIELDS]
    return out


def _step_problems(where: str, want: Mapping[str, Any], action: str | None) -> list[str]:
    out = [f"{where}.{key}: not a spec-level observation" for key in want if key not in SPEC_STEP_KEYS]
    for i, item in enumerate(want.get("findings") or []):
        if not isinstance(item, Mapping):
            out.append(f"{where}.findings[{i}]: a finding's wording is the profile's; at spec level name its "
                       "severity, file, relation and target")
        elif set(item) - FINDING_FIELDS or item.get("severity") not in MARKS:
            out.append(f"{where}.findings[{i}]: a finding is {{severity: fail|warn, file, relation, target}}")
    if action in TEXT_STEPS:
        return out
    out += [f"{where}.output_contains: the proposals do not define what a {action or 'this'} step prints"
            for _ in want.get("output_contains") or ()][:1]
    if action == "stats":  # only that the recall section is not there (shown only when there are runs)
        out += [f"{where}.output_matches[{i}]: at spec level a stats step's text is only checked for what it "
                "does not hold (\\A(?!...))" for i, p in enumerate(want.get("output_matches") or [])
                if not ABSENCE.match(str(p))]
    elif want.get("output_matches"):
        out.append(f"{where}.output_matches: the proposals do not define what a {action or 'this'} step prints")
    return out
