"""Hook steps for any agent, built from ``tables/agents.yaml``: where each agent's payload holds
the session, the folder, a shell command and its output, a search tool's input and output.

A step only ever sets values the payload already has (a payload is never reshaped); a table that
would add a key is a :class:`~conformance.generate.tables.TableError`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from .tables import TableError, Tables, fill, need

ROOT = "${root:team}"
STOP = "stop"


class Agent:
    """One agent's row of ``agents.yaml``."""

    def __init__(self, name: str, row: Mapping[str, Any], tables: Tables) -> None:
        self.name = name
        self.row = row
        self.tables = tables
        self.title = str(row.get("name", name))
        self.session = str(need(row, "session", f"agents.yaml: {name}"))
        self.shell = dict(row.get("shell") or {})
        self.search = dict(row["search"]) if row.get("search") else None

    @property
    def statuses(self) -> list[str]:
        return list(self.shell.get("statuses") or {})

    def payload_name(self, file: str) -> str:
        return f"{self.name}/{file}"

    def step(self, file: str, values: list[tuple[Any, Any]]) -> dict[str, Any]:
        """A hook step on ``payloads/<agent>/<file>.json`` with the session, the folder and
        ``values`` (each a placement from the table and the value to put there)."""
        name = self.payload_name(file)
        payload = self.tables.payload(name)
        assignments: dict[str, Any] = {}
        for field in self.row.get("session_fields") or ():
            self._put(assignments, payload, name, field, self.session)
        # The folder goes wherever this payload names one (a Shell call's working_directory, say).
        for field in self.row.get("folder_fields") or ():
            if _has(payload, field):
                self._put(assignments, payload, name, field, ROOT)
        for field in self.row.get("folder_lists") or ():
            if _has(payload, field):
                self._put(assignments, payload, name, field, [ROOT])
        for where, value in values:
            self._put(assignments, payload, name, where, value)
        return {"hook": name, "set": assignments}

    def claim(self, recall: str, query: str) -> dict[str, Any]:
        """The shell call that ran recall ``recall``: it carries recall's output, so its hook writes
        the claim of that run."""
        claim = need(self.shell, "claim", f"agents.yaml: {self.name}.shell")
        text = fill(str(claim.get("output_text", "${" + recall + ".output}")), run="${" + recall + ".run}")
        return self.step(str(claim["payload"]), [(self.shell["command"], f'teamai recall "{query}"'),
                                                  (claim["output"], text)])

    def shell_call(self, status: str, command: str, output: str) -> dict[str, Any]:
        how = (self.shell.get("statuses") or {}).get(status)
        if how is None:
            raise TableError(f"agents.yaml: {self.name} cannot report the status {status!r}")
        values: list[tuple[Any, Any]] = [(self.shell["command"], command),
                                         (how["output"], str(how.get("prefix", "")) + output)]
        values += list((how.get("set") or {}).items())
        return self.step(str(how["payload"]), values)

    def stop(self) -> dict[str, Any]:
        name = self.payload_name(str(self.row.get("stop", STOP)))
        payload = self.tables.payload(name)
        assignments: dict[str, Any] = {}
        for field in self.row.get("session_fields") or ():
            self._put(assignments, payload, name, field, self.session)
        return {"hook": name, "set": assignments}

    @staticmethod
    def _put(assignments: dict[str, Any], payload: Mapping[str, Any], name: str, where: Any, value: Any) -> None:
        if isinstance(where, Mapping):  # a key holding a JSON-encoded object
            key, inner = str(where["json"]), str(where["key"])
            encoded = assignments.get(key, payload.get(key))
            try:
                obj = json.loads(encoded) if isinstance(encoded, str) else None
            except ValueError:
                obj = None
            if not isinstance(obj, dict) or inner not in obj:
                raise TableError(f"agents.yaml: payloads/{name}.json has no JSON object with {inner!r} in {key!r}")
            obj[inner] = value
            assignments[key] = json.dumps(obj, ensure_ascii=False)
            return
        dotted = str(where)
        if not _has(payload, dotted):
            raise TableError(f"agents.yaml: payloads/{name}.json has no {dotted!r} to set (a payload is never reshaped)")
        assignments[dotted] = value


def _has(payload: Any, dotted: str) -> bool:
    node = payload
    for part in dotted.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return False
        node = node[part]
    return True


def load(tables: Tables) -> dict[str, Agent]:
    rows = tables.table("agents")
    return {str(name): Agent(str(name), row, tables) for name, row in rows.items()}
