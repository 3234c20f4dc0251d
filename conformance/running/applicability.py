"""How much of a case a driver can be judged on.

A case is one behaviour, but its ``expect`` block often checks it from several sides: the
votes, the recall text, the stats rows, the recall log. A driver that keeps no recall log can
still be judged on everything else, so not-applicable is a property of an *expectation*, and
only a case of which nothing applies is not-applicable as a whole:

=====================  ======================================================================
case-wide needs        a command one of its steps runs, an agent whose payload a step sends,
                       ``hold``, ``spoil``, ``repeat``: without them the steps cannot run at all
expectation needs      ``log_contains``, ``log_absent``, ``log_lines`` need a recall log;
                       ``stats`` needs the ``stats`` command (when no step runs it)
=====================  ======================================================================

A case whose expectation needs are not all declared runs without those expectations and is
*partly applicable*: its outcome (pass, fail, ...) is judged on the rest, and the report names
every expectation left out and why. When nothing of its ``expect`` block is left, the case is
not-applicable, as before. The rule that every hook exits 0 is the harness's, not the case's,
so it alone never makes a case applicable.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..corpus import levels
from ..corpus.capabilities import missing, needs
from ..corpus.read import Payload, Scenario

LOG_KEYS = ("log_contains", "log_absent", "log_lines")
LOG_NEED = "a recall log"
CREDIT_KEYS = ("credited", "not_credited")
PROFILE_ONLY = "the reference's profile (the case checks only the reference's own formats)"
CREDITED_NEED = "an answer to which reads were credited"


@dataclass
class Plan:
    """What to run and judge of one case against one driver."""

    applicable: bool
    expect: dict[str, Any]                              # the spec-level expectations that are judged
    lacking: list[str] = field(default_factory=list)    # needs the driver did not declare
    skipped: list[str] = field(default_factory=list)    # expectations left out: expect.log_contains[0], ...
    blocks: list[levels.Block] = field(default_factory=list)  # every level's judged expectations

    @property
    def partly(self) -> bool:
        return self.applicable and bool(self.skipped)


def steps_lacking(scenario: Scenario, payloads: Mapping[str, Payload], declared: Mapping[str, Any]) -> list[str]:
    """What the case's steps need and the driver did not declare (any: nothing of it can run)."""
    need = needs(scenario, payloads)
    step_commands = {c for c in _commands(need) if c != "stats" or _runs_stats(scenario)}
    return missing({**need, "commands": step_commands, "log": False, "credited": False}, declared)


def plan(scenario: Scenario, payloads: Mapping[str, Payload], declared: Mapping[str, Any],
         profile: bool | None = None) -> Plan:
    """``profile``: judge the profile block whatever the driver declares (None: as it declares)."""
    need = needs(scenario, payloads)
    wanted = [b for b in levels.blocks(scenario.data) if b.level in levels.judged(declared, profile)]
    spec = next((b.expect for b in wanted if b.level == levels.SPEC), {})
    if steps_lacking(scenario, payloads, declared):
        return Plan(False, spec, missing(need, declared), blocks=wanted)
    kept: list[levels.Block] = []
    lacking: list[str] = []
    skipped: list[str] = []
    for block in wanted:
        left_out = _left_out(block.expect, declared)
        judged = {k: v for k, v in block.expect.items() if k not in left_out}
        lacking += left_out.values()
        skipped += [path for key in left_out for path in _paths(key, block.expect[key], block.where)]
        if judged:
            kept.append(levels.Block(block.level, judged, block.decision))
    lacking = list(dict.fromkeys(lacking))
    if not kept:
        if not wanted:
            lacking = [PROFILE_ONLY]
        return Plan(False, spec, lacking or missing(need, declared), blocks=[])
    spec = next((b.expect for b in kept if b.level == levels.SPEC), {})
    return Plan(True, spec, lacking, skipped, kept)


def _left_out(expect: Mapping[str, Any], declared: Mapping[str, Any]) -> dict[str, str]:
    """The keys of one block the driver cannot be judged on, each with what it lacks."""
    left_out: dict[str, str] = {}
    if not declared.get("log"):
        left_out.update({key: LOG_NEED for key in LOG_KEYS if key in expect})
    if not declared.get("credited"):
        left_out.update({key: CREDITED_NEED for key in CREDIT_KEYS if key in expect})
    if "stats" in expect and "stats" not in (declared.get("commands") or []):
        left_out["stats"] = "command stats"
    return left_out


def _runs_stats(scenario: Scenario) -> bool:
    return any("stats" in step for step in scenario.steps)


def _paths(key: str, value: Any, where: str = "expect") -> list[str]:
    """``expect.log_contains[0]``, ``expect.log_contains[1]``, ... as the mismatches name them."""
    if isinstance(value, list) and key != "stats":
        return [f"{where}.{key}[{i}]" for i in range(len(value))]
    return [f"{where}.{key}"]


def _commands(need: Mapping[str, Any]) -> set[str]:
    commands = need["commands"]
    return set(commands) if isinstance(commands, set) else set()
