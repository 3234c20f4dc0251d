"""Reading the spec's tables (``conformance/tables/*.yaml``) and the payloads they name.

A table is data written from the spec in the project's own words; the generator modules turn
its cells into scenarios. A table that cannot be read, or names a payload that does not exist, is
a :class:`TableError` with one line saying where, never a half-generated corpus.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from ..corpus.read import load_yaml

TABLES = Path("conformance") / "tables"


class TableError(ValueError):
    """A table or a payload it names cannot be used."""


class Tables:
    """The tables and payloads under one corpus root, each read once."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._tables: dict[str, Any] = {}
        self._payloads: dict[str, dict[str, Any]] = {}

    def table(self, name: str) -> Any:
        if name not in self._tables:
            path = self.root / TABLES / f"{name}.yaml"
            try:
                data = load_yaml(path.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
                raise TableError(f"{rel(path, self.root)}: cannot be read: {' '.join(str(exc).split())}") from exc
            if not isinstance(data, Mapping):
                raise TableError(f"{rel(path, self.root)}: is not a mapping")
            self._tables[name] = data
        return self._tables[name]

    def payload(self, name: str) -> dict[str, Any]:
        """The ``payload`` object of ``payloads/<agent>/<file>.json`` (``name`` is ``agent/file``)."""
        if name not in self._payloads:
            path = self.root / "payloads" / f"{name}.json"
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, ValueError) as exc:
                raise TableError(f"a table names the payload {name}, which cannot be read: {exc}") from exc
            if not isinstance(data, Mapping) or not isinstance(data.get("payload"), Mapping):
                raise TableError(f"payloads/{name}.json: has no payload object")
            self._payloads[name] = dict(data["payload"])
        return self._payloads[name]


def rel(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


def fill(template: str, **values: str) -> str:
    """``template`` with each ``{name}`` of ``values`` replaced; every other brace is kept, so the
    harness's own ``${path:…}`` and ``${r1.run}`` pass through untouched."""
    out = template
    for name, value in values.items():
        out = out.replace("{" + name + "}", value)
    return out


def need(mapping: Mapping[str, Any], key: str, where: str) -> Any:
    if key not in mapping:
        raise TableError(f"{where}: has no {key!r}")
    return mapping[key]
