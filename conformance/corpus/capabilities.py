"""What a scenario needs from a driver, worked out from what it does and what it checks.

A driver declares its capabilities in the handshake; a case whose needs are not all declared
is not-applicable, and the report says which need was missing. Needs: commands, agents, a
log, ``hold``, ``spoil``, ``repeat`` (``repeat: N`` with ``${i}`` travels as one message, so a
5000-event retention case stays a few seconds) and ``seed``.

Private state: a ``hold``, ``release`` or ``spoil`` step acts on a file only the implementation
knows (its votes ledger's lock, its search index), so it names the file by a word of the protocol
(``what``) and the driver, which knows where and what that file is, does the act. Each such
step needs its word in one capability: ``hold`` for what a driver can keep busy, ``spoil`` for
what it can damage.

Existing state: a scenario's ``given:`` block (a votes ledger's text, per-session credits, a log's
text, a checkpoint of an earlier reading) is what the machine holds before the first step. Its
parts, and a ``ledger_file`` expectation, become ``seed`` needs here; ``case_runner.open_case``
substitutes paths into it and sends it as one ``seed`` message right after ``open``, so the runner
and the step observer start from the same state; each driver puts it where its implementation
keeps it (``drivers/reference.py``; ``drivers/teamai_cli.py``: the votes file only).
``expect.ledger_file`` reads the ledger file as YAML on the harness's side, so that check never goes
through the implementation's own reader.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from . import levels
from .read import Payload, Scenario

ACTIONS = ("recall", "hook", "pull", "stats", "review", "contribute", "hold", "release", "spoil", "write")
# The steps that act on the implementation's private state, each with the capability that lists
# what it may name (see the module docstring).
STATE_STEPS = {"hold": "hold", "release": "hold", "spoil": "spoil"}
STATE_CAPABILITIES = tuple(dict.fromkeys(STATE_STEPS.values()))


def action_of(step: Mapping[str, Any]) -> str | None:
    present = [a for a in ACTIONS if a in step]
    return present[0] if len(present) == 1 else None


def target(step: Mapping[str, Any], action: str) -> dict[str, str]:
    """What a state step names, as its message carries it: ``what`` (``hold: votes-ledger``), and
    for a spoil also ``how`` (``spoil: {what: search-index, how: garbage}``)."""
    value = step[action]
    if isinstance(value, Mapping):
        return {key: str(value.get(key)) for key in ("what", "how")}
    return {"what": str(value)}


def needs(scenario: Scenario, payloads: Mapping[str, Payload]) -> dict[str, set[str] | bool]:
    commands: set[str] = set()
    agents: set[str] = set()
    state: dict[str, set[str]] = {capability: set() for capability in STATE_CAPABILITIES}
    repeat = False
    for step in scenario.steps:
        action = action_of(step)
        if action in STATE_STEPS:
            state[STATE_STEPS[action]].add(target(step, action)["what"])
        elif action is not None and action != "write":  # the harness writes the tree itself
            commands.add(action)
        if step.get("repeat") is not None:
            repeat = True
        if action == "hook":
            payload = payloads.get(str(step["hook"]))
            agents.add(payload.agent if payload else str(step["hook"]).split("/", 1)[0])
    every = [block.expect for block in levels.blocks(scenario.data)]
    if any("stats" in expect for expect in every):
        commands.add("stats")
    log = any(k in expect for expect in every for k in ("log_contains", "log_absent", "log_lines"))
    credited = any(k in expect for expect in every for k in ("credited", "not_credited"))
    seed = {str(k) for k, v in (scenario.data.get("given") or {}).items() if v is not None}
    if any("ledger_file" in expect for expect in every):
        seed.add("votes")  # a driver that can write the ledger file can read it back
    return {"commands": commands, "agents": agents, **state, "log": log, "repeat": repeat, "seed": seed,
            "windows_team": bool(scenario.data.get("windows_team")), "credited": credited}


def missing(need: Mapping[str, Any], declared: Mapping[str, Any]) -> list[str]:
    """Human-readable names of the needs the declaration lacks (empty: applicable)."""
    out = [f"command {c}" for c in sorted(need["commands"]) if c not in (declared.get("commands") or [])]
    out += [f"agent {a}" for a in sorted(need["agents"]) if a not in (declared.get("agents") or [])]
    for capability in STATE_CAPABILITIES:
        out += [f"{capability} {what}" for what in sorted(need.get(capability) or ())
                if what not in (declared.get(capability) or [])]
    if need["log"] and not declared.get("log"):
        out.append("a recall log")
    if need.get("credited") and not declared.get("credited"):
        out.append("an answer to which reads were credited")
    if need.get("repeat") and not declared.get("repeat"):
        out.append("repeat")
    out += [f"seed {s}" for s in sorted(need.get("seed") or ()) if s not in (declared.get("seed") or [])]
    if need.get("windows_team") and not declared.get("windows_team"):
        out.append("a Windows team folder")
    return out
