"""Expectations on a value's kind and form rather than on the value itself.

Some fields are the implementation's own to fill: a run line's score comes out of its ranking,
so no scenario can name the number, yet a line without one, or with the score written as text,
breaks the record the spec describes. A matcher is a mapping whose keys all start with ``$``
(no field of a log line, a vote entry or a stats row does), written where the value would go:

- ``{$type: number}``: the field is there and holds a value of that kind (``number``,
  ``integer``, ``string``, ``boolean``, ``null``, ``list``, ``mapping``; a list of them allows
  any one). A boolean is never a number, as in JSON.
- ``{$form: '^[0-9]+(\\.[0-9]+)?$'}``: a regular expression (Python ``re``) that must match the
  whole of the value's JSON spelling (a string as its own text, ``3.7`` as ``3.7``, ``true``).

Both may be given; the value must satisfy both. Naming the key is what asks for the field to be
present, as everywhere in the subset comparison.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

TYPES: dict[str, tuple[type, ...]] = {
    "number": (int, float), "integer": (int,), "string": (str,), "boolean": (bool,),
    "null": (type(None),), "list": (list,), "mapping": (dict,),
}
KEYS = ("$type", "$form")


def is_matcher(value: Any) -> bool:
    return isinstance(value, Mapping) and bool(value) and all(isinstance(k, str) and k.startswith("$")
                                                               for k in value)


def problems(value: Mapping[str, Any]) -> list[str]:
    """What makes this matcher unusable (an unknown key, a kind nobody knows, a bad pattern)."""
    out = [f"{key} is not a matcher (known: {', '.join(KEYS)})" for key in value if key not in KEYS]
    if "$type" in value:
        kinds = value["$type"] if isinstance(value["$type"], list) else [value["$type"]]
        out += [f"$type {k!r} is not a kind (known: {', '.join(TYPES)})" for k in kinds if k not in TYPES]
    if "$form" in value:
        try:
            re.compile(str(value["$form"]))
        except re.error as exc:
            out.append(f"$form is not a regular expression: {exc}")
    return out


def holds(matcher: Mapping[str, Any], actual: Any) -> bool:
    """Whether ``actual`` is of the matcher's kind and form (an unusable matcher holds for nothing)."""
    if problems(matcher):
        return False
    if "$type" in matcher:
        kinds = matcher["$type"] if isinstance(matcher["$type"], list) else [matcher["$type"]]
        if not any(_of_kind(actual, str(k)) for k in kinds):
            return False
    if "$form" in matcher:
        return re.fullmatch(str(matcher["$form"]), spelling(actual)) is not None
    return True


def spelling(value: Any) -> str:
    """The value as the log's JSON spells it: a string is its own text."""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def _of_kind(value: Any, kind: str) -> bool:
    if isinstance(value, bool):
        return kind == "boolean"
    return isinstance(value, TYPES[kind])


def found_in(value: Any, where: str = "expect") -> list[tuple[str, Mapping[str, Any]]]:
    """Every matcher inside an expectation, with the path to it (for the lint)."""
    if is_matcher(value):
        return [(where, value)]
    if isinstance(value, Mapping):
        return [m for k, v in value.items() for m in found_in(v, f"{where}.{k}")]
    if isinstance(value, list):
        return [m for i, v in enumerate(value) for m in found_in(v, f"{where}[{i}]")]
    return []
