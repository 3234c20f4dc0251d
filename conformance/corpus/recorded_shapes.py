"""Whether a payload has the shape real agents send: the keys, and their JSON types, seen in hook
payloads recorded from real Claude Code, Codex and Cursor runs (``recorded_shapes.json``, whose
header says where they come from and what the counts mean).

A payload is compared with the recorded shape of its agent, event and tool:

- no key the agent was never seen to send: a key must appear in that shape, or at the top level
  of another recorded shape of the same agent and event (``duration_ms``, a subagent's
  ``agent_id`` are the same envelope whatever the tool);
- every key the agent always sent (seen in every sample) is present;
- every value has a JSON type the recordings show for that key.

Cursor was never recorded sending ``postToolUse`` or ``stop``; where an agent has no recorded
shape for the event and tool, only the keys every one of its recordings carries are checked and
the verdict is ``unrecorded``. A corpus payload either passes (and says
``verified: recorded-shape``, or ``true`` when a primary source documents every field) or gives
the reason in ``provenance.exemption``; ``lint`` enforces both directions.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

PASS, FAIL, UNRECORDED = "pass", "fail", "unrecorded"
MARK = "recorded-shape"


@dataclass(frozen=True)
class Shape:
    agent: str
    event: str
    tool: str | None
    samples: int
    keys: dict[str, tuple[frozenset[str], int]]  # key path -> (JSON types, in how many samples)

    @property
    def name(self) -> str:
        return " ".join(p for p in (self.agent, self.event, self.tool) if p)

    def always(self) -> list[str]:
        return [path for path, (_types, seen) in self.keys.items() if seen == self.samples]


@dataclass(frozen=True)
class Verdict:
    status: str  # PASS, FAIL or UNRECORDED
    shape: str  # the recorded shape compared with, in words
    problems: tuple[str, ...] = ()


@cache
def shapes() -> tuple[Shape, ...]:
    data = json.loads(resources.files("conformance").joinpath("recorded_shapes.json").read_text("utf-8"))
    return tuple(Shape(s["agent"], s["event"], s.get("tool"), int(s["samples"]),
                       {k: (frozenset(v["types"]), int(v["seen"])) for k, v in s["keys"].items()})
                 for s in data["shapes"])


def agents() -> set[str]:
    return {s.agent for s in shapes()}


def json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def key_paths(value: Any, prefix: str = "", into: dict[str, set[str]] | None = None) -> dict[str, set[str]]:
    """Every key path of ``value`` with the JSON types found there (``a.b``, ``a[]``, ``a[].c``)."""
    found: dict[str, set[str]] = {} if into is None else into
    if isinstance(value, Mapping):
        for key, item in value.items():
            path = f"{prefix}.{key}" if prefix else str(key)
            found.setdefault(path, set()).add(json_type(item))
            key_paths(item, path, found)
    elif isinstance(value, list):
        for item in value:
            path = f"{prefix}[]"
            found.setdefault(path, set()).add(json_type(item))
            key_paths(item, path, found)
    return found


def _event(name: str) -> str:
    return name.lower().replace("-", "").replace("_", "")


def _tool_matches(recorded: str | None, tool: str) -> bool:
    if not recorded:
        return not tool
    if recorded.startswith("mcp__<"):
        return tool.startswith("mcp__")
    return recorded == tool


def _parent(path: str) -> str | None:
    cut = max(path.rfind("."), path.rfind("["))
    return path[:cut] if cut > 0 else None


def check(agent: str, event: str, payload: Any) -> Verdict | None:
    """The verdict for one payload; None when no shape was ever recorded for ``agent``."""
    mine = [s for s in shapes() if s.agent == agent]
    if not mine or not isinstance(payload, Mapping):
        return None
    named = payload.get("hook_event_name")
    wanted = _event(named if isinstance(named, str) and named else event)
    named_tool = payload.get("tool_name")
    tool = named_tool if isinstance(named_tool, str) else ""
    same_event = [s for s in mine if _event(s.event) == wanted]
    exact = next((s for s in same_event if _tool_matches(s.tool, tool)), None)
    found = key_paths(payload)
    if exact is None:
        what = f"{agent} {named or event}" + (f" {tool}" if tool else "")
        whose = f"{agent} {named or event}" if same_event else agent
        problems = _missing_or_mistyped(found, _common(same_event or mine))
        return Verdict(FAIL if problems else UNRECORDED, f"no recorded {what}; the keys every recorded {whose} "
                       "payload carries", tuple(problems))
    allowed = dict(exact.keys)
    for other in same_event:  # the envelope: top-level keys of the same event with any tool
        for path, (types, seen) in other.keys.items():
            if "." not in path and "[" not in path and path not in exact.keys:
                known = allowed.get(path)
                allowed[path] = (types | known[0], max(seen, known[1])) if known else (types, seen)
    problems = []
    wrong: set[str] = set()
    for path, seen_types in found.items():
        if any(path.startswith(w) and path[len(w)] in ".[" for w in wrong):
            continue  # below a key already named: its children say nothing more
        if path not in allowed:
            problems.append(f"{path} was never seen in a recorded payload")
            wrong.add(path)
        elif not seen_types <= allowed[path][0]:
            problems.append(f"{path} is {'/'.join(sorted(seen_types))}, recorded as "
                            f"{'/'.join(sorted(allowed[path][0]))}")
            wrong.add(path)
    required = {path: allowed[path] for path in exact.always()}
    problems += _missing_or_mistyped(found, required, types_too=False)
    return Verdict(FAIL if problems else PASS, exact.name, tuple(problems))


def _common(mine: Iterable[Shape]) -> dict[str, tuple[frozenset[str], int]]:
    """The keys every one of these recorded shapes always carries, with every type seen for them."""
    shapes_ = list(mine)
    keys = set.intersection(*(set(s.always()) for s in shapes_)) if shapes_ else set()
    return {k: (frozenset().union(*(s.keys[k][0] for s in shapes_)), 0) for k in sorted(keys)}


def _missing_or_mistyped(found: Mapping[str, set[str]], required: Mapping[str, tuple[frozenset[str], int]],
                         types_too: bool = True) -> list[str]:
    out = []
    for path, (types, _seen) in required.items():
        if path not in found:
            parent = _parent(path)
            if parent is None or parent in found:
                out.append(f"{path} is missing (every recording has it)")
        elif types_too and not found[path] <= types:
            out.append(f"{path} is {'/'.join(sorted(found[path]))}, recorded as {'/'.join(sorted(types))}")
    return out


def lint_payload(agent: str, event: str, payload: Any, provenance: Mapping[str, Any]) -> list[str]:
    """What is wrong with a corpus payload's recorded-shape claims (empty: nothing)."""
    verified = provenance.get("verified")
    exemption = provenance.get("exemption")
    verdict = check(agent, event, payload)
    if verdict is None:
        if verified == MARK:
            return [f"verified: {MARK}, but no payload of {agent} was ever recorded to compare with"]
        return []
    if verdict.status == PASS:
        out = []
        if verified not in (True, MARK):
            out.append(f"matches the recorded shape ({verdict.shape}): mark it verified: {MARK}")
        if exemption:
            out.append(f"matches the recorded shape ({verdict.shape}), so its exemption no longer applies")
        return out
    said = "; ".join(verdict.problems) or "nothing to compare with"
    if verified == MARK:
        return [f"says verified: {MARK}, but against {verdict.shape}: {said}"]
    if not exemption:
        return [f"does not match the shapes recorded from real {agent} runs ({verdict.shape}): {said}; "
                "make it match, or say why it cannot in provenance.exemption"]
    return []


def tally(payloads: Iterable[tuple[str, str, Any, Mapping[str, Any]]]) -> dict[str, Counter[str]]:
    """Per agent with recorded shapes: how many payloads match, are exempt, or have a problem."""
    counts: dict[str, Counter[str]] = {a: Counter() for a in sorted(agents())}
    for agent, event, payload, provenance in payloads:
        verdict = check(agent, event, payload)
        if verdict is None:
            continue
        if lint_payload(agent, event, payload, provenance):
            counts[agent]["problem"] += 1
        elif verdict.status == PASS:
            counts[agent]["match"] += 1
        else:
            counts[agent]["exempt"] += 1
    return counts


def describe(counts: Mapping[str, Counter[str]]) -> str:
    parts = []
    for agent, c in counts.items():
        words = [f"{c['match']} match"] + [f"{c[k]} {k}" for k in ("exempt", "problem") if c[k]]
        parts.append(f"{agent} {', '.join(words)}")
    return "recorded shapes: " + "; ".join(parts)
