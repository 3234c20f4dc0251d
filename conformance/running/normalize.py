"""Turning observed state into the scenario's own words, and comparing it.

Run ids become ``${name.run}`` of the step that printed them, absolute asset paths become
``${path:tree/path}`` (``${user:path:…}`` for the user scope) and other paths under a sandbox
folder become ``${root:…}/rest``. Expectations go through the same normalizer after their
substitutions, so both sides meet in one spelling whatever the sandbox was called.

Comparison is by subset: a mapping matches when every key it names matches; a list matches a
list of the same length item by item; a matcher (``{$type: number}``, see :mod:`.matchers`)
matches a value of its kind and form; anything else must be equal. Every mismatch can name the
first path where the two sides differ.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from . import matchers

_MISSING = object()


@dataclass
class Normalizer:
    replacements: list[tuple[str, str]] = field(default_factory=list)

    @classmethod
    def build(cls, runs: Mapping[str, str], paths: Mapping[str, str], user_paths: Mapping[str, str],
              roots: Mapping[str, Any]) -> Normalizer:
        """``runs`` maps run id -> step name; ``paths`` tree path -> absolute path."""
        pairs: list[tuple[str, str]] = [(run, f"${{{name}.run}}") for run, name in runs.items() if run]
        pairs += [(p, f"${{path:{t}}}") for t, p in paths.items() if p]
        pairs += [(p, f"${{user:path:{t}}}") for t, p in user_paths.items() if p]
        for name, value in roots.items():
            if isinstance(value, list):
                pairs += [(str(v), f"${{root:{name}:{i}}}" if i > 1 else f"${{root:{name}}}")
                          for i, v in enumerate(value, 1) if v]
            elif value:
                pairs.append((str(value), f"${{root:{name}}}"))
        # Longest first, so a file's own token wins over the folder it sits in.
        pairs.sort(key=lambda pair: len(pair[0]), reverse=True)
        return cls(pairs)

    def text(self, value: str) -> str:
        for raw, token in self.replacements:
            if raw in value:
                value = value.replace(raw, token)
        return value

    def __call__(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, list):
            return [self(v) for v in value]
        if isinstance(value, dict):
            return {(self.text(k) if isinstance(k, str) else k): self(v) for k, v in value.items()}
        return value


def first_difference(expected: Any, actual: Any, path: str = "", lenient: bool = False) -> tuple[str, Any, Any] | None:
    """``None`` when ``expected`` is a subset of ``actual``, else (path, expected, actual) there.

    ``lenient`` compares as the spec level does (``levels``), on meaning where the proposals leave
    the spelling open: a null expected field also matches an absent one, and two instants match
    when they name the same moment (``…:00Z`` and ``…:00.000Z``)."""
    if matchers.is_matcher(expected):
        return None if matchers.holds(expected, actual) else (path, expected, actual)
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return path, expected, actual
        for key, want in expected.items():
            got = actual.get(key, _MISSING)
            where = f"{path}.{key}" if path else str(key)
            if got is _MISSING:
                if lenient and want is None:
                    continue
                return where, want, "<missing>"
            diff = first_difference(want, got, where, lenient)
            if diff:
                return diff
        return None
    if isinstance(expected, list):
        if not isinstance(actual, list):
            return path, expected, actual
        for i, (want, got) in enumerate(zip(expected, actual, strict=False)):
            diff = first_difference(want, got, f"{path}[{i}]", lenient)
            if diff:
                return diff
        if len(expected) != len(actual):
            return f"{path}.length", len(expected), len(actual)
        return None
    if _same_scalar(expected, actual) or (lenient and same_instant(expected, actual)):
        return None
    return path, expected, actual


def matches(expected: Any, actual: Any, lenient: bool = False) -> bool:
    return first_difference(expected, actual, lenient=lenient) is None


_INSTANT = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:?\d\d)$")


def same_instant(a: Any, b: Any) -> bool:
    """Whether two strings spell one moment in ISO 8601 (``Z`` or an offset, any fraction)."""
    if not (isinstance(a, str) and isinstance(b, str) and _INSTANT.match(a) and _INSTANT.match(b)):
        return False
    try:
        return dt.datetime.fromisoformat(a.replace("Z", "+00:00")) == dt.datetime.fromisoformat(b.replace("Z", "+00:00"))
    except ValueError:
        return False


def _same_scalar(expected: Any, actual: Any) -> bool:
    if isinstance(expected, bool) or isinstance(actual, bool):
        return type(expected) is type(actual) and expected == actual
    if isinstance(expected, (int, float)) and isinstance(actual, (int, float)):
        return float(expected) == float(actual)
    return bool(expected == actual)
