"""Writing a scenario back as a YAML file a person can read and edit (for the scenarios that
tools derive from others: ``diff --write-candidates`` and ``shrink``).

Multi-line text (team files, payload text) is written as a literal block, everything else as
plain YAML in the key order the scenario format documents.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import yaml

ORDER = ("id", "title", "clauses", "provenance", "shrunk_from", "agents", "start", "team", "user_team",
         "learnings_roots", "withheld", "repo", "env", "steps", "expect", "observations")


class _Dumper(yaml.SafeDumper):
    pass


def _text(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
    if "\n" in value and not any(ch in value for ch in "\t\r") and value == value.rstrip(" ") \
            and all(line == line.rstrip(" ") for line in value.split("\n")):
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|")
    return dumper.represent_scalar("tag:yaml.org,2002:str", value)


_Dumper.add_representer(str, _text)


def dump(data: Mapping[str, Any]) -> str:
    ordered = {k: data[k] for k in ORDER if k in data}
    ordered.update({k: v for k, v in data.items() if k not in ordered})
    return yaml.dump(ordered, Dumper=_Dumper, allow_unicode=True, sort_keys=False, width=110)
