"""Writing a scenario back as a YAML file a person can read and edit (for the scenarios that
tools derive from others: ``diff --write-candidates`` and ``shrink``).

Multi-line text (team files, payload text) is written as a literal block, everything else as
plain YAML in the key order the scenario format documents.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import yaml

from . import placement

ORDER = ("id", "title", "clauses", "provenance", "shrunk_from", "agents", "start", "windows_team", "team",
         "user_team", "learnings_roots", "withheld", "repo", "env", "steps", "expect", "decide", "profile",
         "observations")


class _Dumper(yaml.SafeDumper):
    pass


_BREAKS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029\ufeff\ud800-\udfff\ufffe\uffff]")


def _text(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
    """A literal block for plain multi-line text; double quotes (every odd character escaped) for
    text holding what YAML would read back otherwise (controls, NEL, line separators)."""
    if _BREAKS.search(value):
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style='"')
    if "\n" in value and not any(ch in value for ch in "\t\r") and value == value.rstrip(" ") \
            and all(line == line.rstrip(" ") for line in value.split("\n")):
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|")
    return dumper.represent_scalar("tag:yaml.org,2002:str", value)


_Dumper.add_representer(str, _text)


def dump(data: Mapping[str, Any]) -> str:
    """The case as YAML, each expectation at its level (``placement``)."""
    data = placement.place(data)
    ordered = {k: data[k] for k in ORDER if k in data}
    ordered.update({k: v for k, v in data.items() if k not in ordered})
    return yaml.dump(ordered, Dumper=_Dumper, allow_unicode=True, sort_keys=False, width=110)
