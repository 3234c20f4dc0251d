"""Which level each expectation of a written case belongs at.

Every tool that writes a case from what the reference did (the generator, ``import-capture``,
``shrink``, ``capture``) states the whole observation, and the reference's observation holds its
own choices beside what the proposals define. :func:`place` sorts one ``expect`` block into the
three levels (``levels``), so that what another implementation is judged on is only what the
proposals define, and the reference is still held to everything it did:

- a log line of a kind #884 defines keeps, at spec level, only the fields #884 defines; the
  whole line goes to the profile when that dropped anything. A line of the reference's own
  ``consumed`` kind becomes a credit (``credited:``) when it credited a read, and is the
  profile's as written.
- an absence keeps its spec level only when everything it names is the spec's (an absence
  weakened by a dropped field would say more, not less); a consumed line's absence becomes the
  absence of a credit, which says less.
- the number of log lines, finding wording, exit codes other than the spec's, and the text of
  any step but recall (pull's report, stats' table, review's and contribute's lines) are the
  profile's. Findings keep their severity, file, relation and target at spec level; stats rows
  keep their columns (their order is the profile's).
- a case whose clauses include a decision (``clauses.yaml``) has its spec-level part under
  ``decide: {DECISION: ...}``, since what it observes follows from that choice; a case citing
  only profile clauses is the profile's whole.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..running.matchers import is_matcher
from . import levels

NONZERO = {"$form": "[1-9][0-9]*"}
SPEC_EXITS = {"recall": (0,), "hook": (0,), "pull": (0,), "stats": (0,), "review": (0, 1), "contribute": (0,)}
_FINDING = re.compile(r"^(?P<mark>[✖!⚠])\s+(?:\[relations\]\s+(?P<file>\S+?):\s+|(?:related|frontmatter):\s+)?(?P<msg>.*)$")
_RELATION = re.compile(r'(?<![A-Za-z_])"?([A-Z][A-Z_]{2,})"?(?![A-Za-z_])')


@functools.cache
def clause_levels(path: Path | None = None) -> dict[str, str]:
    """Clause id -> its ``spec`` (884, 1552, decision, profile), from the packaged catalogue."""
    from . import clauses

    return {c.id: c.spec for c in clauses.load(path or Path(__file__).parent.parent / "clauses.yaml")}


def place(data: Mapping[str, Any], catalogue: Mapping[str, str] | None = None) -> dict[str, Any]:
    """``data`` (a whole scenario) with its ``expect`` block sorted into ``expect``, ``decide``
    and ``profile``; a scenario already sorted comes back as it is (the blocks it has merge)."""
    catalogue = clause_levels() if catalogue is None else catalogue
    kinds = [catalogue.get(str(c), "") for c in data.get("clauses") or []]
    actions = _actions(data.get("steps") or [])
    spec, profile = split(dict(data.get("expect") or {}), actions)
    out = {k: v for k, v in data.items() if k not in ("expect", "decide", "profile")}
    decide = dict(data.get("decide") or {})
    profile = merge(dict(data.get("profile") or {}), profile)
    decision = next((str(c) for c, kind in zip(data.get("clauses") or [], kinds, strict=True)
                     if kind == levels.DECISION), None)
    if spec and decision is not None:
        decide[decision] = merge(dict(decide.get(decision) or {}), spec)
        spec = {}
    elif spec and not any(kind in ("884", "1552", "") for kind in kinds):  # "": a clause of another catalogue
        profile = merge(profile, dict(data.get("expect") or {}))
        spec = {}
    if spec:
        out["expect"] = spec
    if decide:
        out["decide"] = decide
    if profile:
        out["profile"] = profile
    return _ordered(out, data)


def split(expect: dict[str, Any], actions: Mapping[str, str]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(spec part, profile part) of one ``expect`` block."""
    spec: dict[str, Any] = {}
    profile: dict[str, Any] = {}
    for key, value in expect.items():
        if key in ("votes", "no_votes", "never_in_state", "ledger_file", "credited", "not_credited"):
            spec[key] = value
        elif key == "log_contains":
            for line in value or []:
                _contains(line, spec, profile)
        elif key == "log_absent":
            for line in value or []:
                _absent(line, spec, profile)
        elif key == "stats":
            spec["stats"] = value
            if len(value or []) > 1:
                profile["stats"] = value
        elif key == "steps":
            for name, want in (value or {}).items():
                mine, theirs = _step(dict(want or {}), actions.get(str(name), ""))
                if mine:
                    spec.setdefault("steps", {})[name] = mine
                if theirs:
                    profile.setdefault("steps", {})[name] = theirs
        else:
            profile[key] = value
    return spec, profile


def _contains(line: Any, spec: dict[str, Any], profile: dict[str, Any]) -> None:
    kind = line.get("kind") if isinstance(line, Mapping) else None
    if kind in levels.LINE_FIELDS:
        kept = project(line)
        spec.setdefault("log_contains", []).append(kept)
        if kept != line:
            profile.setdefault("log_contains", []).append(line)
        return
    profile.setdefault("log_contains", []).append(line)
    if kind == "consumed" and line.get("credited", True) is True:
        spec.setdefault("credited", []).append(_credit(line))


def _absent(line: Any, spec: dict[str, Any], profile: dict[str, Any]) -> None:
    kind = line.get("kind") if isinstance(line, Mapping) else None
    if kind in levels.LINE_FIELDS and project(line) == line:
        spec.setdefault("log_absent", []).append(line)
        return
    profile.setdefault("log_absent", []).append(line)
    if kind == "consumed" and set(line) <= {"kind", "session", "key", "evidence", "credited"} and \
            line.get("credited", True) is True and set(line.get("evidence") or {}) <= {"path"}:
        spec.setdefault("not_credited", []).append(_credit(line))


def project(line: Mapping[str, Any]) -> Any:
    """A log line with only the fields #884 defines for its kind (the same type of mapping)."""
    fields = levels.LINE_FIELDS[str(line.get("kind"))]
    kept: dict[str, Any] = {}
    for name, value in line.items():
        if name not in fields:
            continue
        if name == "actor" and isinstance(value, dict) and not is_matcher(value):
            value = type(value)({k: v for k, v in value.items() if k in levels.ACTOR_FIELDS})
        elif name == "docs" and isinstance(value, list):
            value = [type(d)({k: v for k, v in d.items() if k in levels.DOC_FIELDS})
                     if isinstance(d, dict) and not is_matcher(d) else d for d in value]
        kept[name] = value
    return type(line)(kept) if isinstance(line, dict) else kept


def _credit(line: Mapping[str, Any]) -> Any:
    read: Mapping[str, Any] = line["evidence"] if isinstance(line.get("evidence"), Mapping) else {}
    credit = {k: line[k] for k in ("session", "key") if k in line}
    if "path" in read:
        credit["path"] = read["path"]
    return type(line)(credit) if isinstance(line, dict) else credit


def _step(want: dict[str, Any], action: str) -> tuple[dict[str, Any], dict[str, Any]]:
    spec: dict[str, Any] = {}
    profile: dict[str, Any] = {}
    for key, value in want.items():
        if key == "exit":
            if is_matcher(value):
                spec["exit"] = value
            elif isinstance(value, int) and value in SPEC_EXITS.get(action, ()):
                spec["exit"] = NONZERO if value else 0
                if value:
                    profile["exit"] = value
            else:
                profile["exit"] = value
        elif key == "findings":
            texts = [str(line) for line in value or [] if isinstance(line, str)]
            spec["findings"] = [finding(line) if isinstance(line, str) else line for line in value or []]
            if texts:
                profile["findings"] = value
        elif key == "stderr_matches":  # an implementation's own warnings
            profile[key] = value
        elif key in ("output_contains", "output_matches"):
            if action in levels.TEXT_STEPS:
                spec[key] = value
            elif action == "stats" and key == "output_matches":
                absent = [p for p in value or [] if levels.ABSENCE.match(str(p))]
                if absent:
                    spec[key] = absent
                profile[key] = value
            else:
                profile[key] = value
        else:
            spec[key] = value
    return spec, profile


def finding(line: str) -> dict[str, str]:
    """A finding line read as what it names: severity, file, relation and target (what of them
    the line names), whatever its other words."""
    text = line.strip()
    found = _FINDING.match(text)
    if not found:
        return {"severity": levels.severity(text[:1]) or "warn"}
    out = {"severity": levels.severity(found["mark"]) or "warn"}
    if found["file"]:
        out["file"] = found["file"]
    message = found["msg"].split(". Use ")[0]
    relation = _RELATION.search(message)
    if relation:
        out["relation"] = relation.group(1)
    for word in message.split():
        word = word.strip('("').rstrip('.,;:)"\'')
        if "/" in word and word != out.get("file"):
            out["target"] = word
            break
    return out


def every(data: Mapping[str, Any]) -> dict[str, Any]:
    """All the case's expectations in one block, whatever their level: for tools that ask what a
    case expects of the reference (which is held to every level), never for judging another."""
    out: dict[str, Any] = {}
    for block in levels.blocks(data):
        out = merge(out, block.expect)
    return out


def merge(into: dict[str, Any], more: Mapping[str, Any]) -> dict[str, Any]:
    """Two expectation blocks as one: lists joined, mappings merged key by key."""
    for key, value in more.items():
        if key not in into:
            into[key] = value
        elif isinstance(into[key], list) and isinstance(value, list):
            into[key] = [*into[key], *[v for v in value if v not in into[key]]]
        elif isinstance(into[key], dict) and isinstance(value, Mapping):
            into[key] = merge(dict(into[key]), value)
        else:
            into[key] = value
    return into


def _actions(steps: list[Any]) -> dict[str, str]:
    from .capabilities import action_of

    return {str(s["as"]): str(action_of(s)) for s in steps if isinstance(s, Mapping) and s.get("as")}


def _ordered(out: dict[str, Any], original: Mapping[str, Any]) -> dict[str, Any]:
    """The keys in the original's order, the three blocks where ``expect`` stood."""
    order: list[str] = []
    for key in original:
        if key in ("expect", "decide", "profile"):
            order += [k for k in ("expect", "decide", "profile") if k not in order]
        else:
            order.append(key)
    order += [k for k in ("expect", "decide", "profile") if k not in order]
    return {k: out[k] for k in order if k in out}
