"""#884's search rule as scenarios: every mode of ``tables/search-modes.yaml`` x every agent with a
search tool (``tables/agents.yaml``, ``search``), on the doc of ``tables/adoption.yaml``.

A cell counts only when its mode shows content from the doc, the agent's search status is known and
the spec does not defer the agent's search tool; a mode the agent's payload cannot express has no
cell. Each cell is one session, as in the adoption table: recall, its claim, the search, Stop.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from . import agents as agents_mod
from .adoption import TABLE as DOC_TABLE
from .adoption import doc_values, session_expect, session_steps
from .model import PREFIX, Generated
from .tables import Tables, fill, need

TABLE = "search-modes"
AREA = "attribution"
CONTENT = "content"


def _payload(search: Mapping[str, Any], mode: Mapping[str, Any]) -> str | None:
    """Which of the agent's payloads can show this mode, or None when none can."""
    if mode.get("needs") and not search.get(str(mode["needs"])):
        return None
    wanted = mode.get("mode")
    if wanted == "count":
        return search.get("count_payload") or (search["payload"] if search.get("mode_field") else None)
    if wanted == "files_with_matches":
        return search.get("files_payload") or (search["payload"] if search.get("mode_field") else None)
    return str(search["payload"])


def _values(search: Mapping[str, Any], mode: Mapping[str, Any], payload: str, values: dict[str, str]
            ) -> list[tuple[Any, Any]]:
    where = values["doc"] if mode["input"] == "doc" else values["root"]
    out: list[tuple[Any, Any]] = [(search["input_path"], where)]
    if search.get("mode_field"):
        out.append((search["mode_field"], str(mode.get("mode") or CONTENT)))
    filenames = [fill(str(f), **values) for f in mode.get("filenames") or ()]
    if payload == search.get("files_payload"):
        out.append((search["filenames"], filenames))  # this payload's result is the list of names
        return out
    out.append((search["output"], fill(str(mode["output"]), **values)))
    if mode.get("needs") == "filenames":
        out.append((search["filenames"], filenames))
    return out


def cells(tables: Tables) -> Iterator[Generated]:
    table = tables.table(TABLE)
    doc = need(tables.table(DOC_TABLE), "doc", f"{DOC_TABLE}.yaml")
    values = doc_values(doc)
    clauses = need(table, "clauses", f"{TABLE}.yaml")
    for agent in agents_mod.load(tables).values():
        search = agent.search
        if search is None:
            continue
        for mode_name, mode in need(table, "modes", f"{TABLE}.yaml").items():
            payload = _payload(search, mode)
            if payload is None:
                continue
            deferred = not search.get("adapter", True)
            unknown = search.get("status") == "unknown"
            counts = bool(mode["counts"]) and not deferred and not unknown
            call = agent.step(str(payload), _values(search, mode, str(payload), values))
            why = " (the spec defers its search tool)" if deferred else \
                " (its searches report an unknown status)" if unknown else ""
            extra = [*(clauses["deferred"] if deferred else ()), *(clauses["unknown"] if unknown else ())]
            yield Generated(
                id=f"{PREFIX}search-{mode_name}-{agent.name}",
                area=AREA, table=TABLE,
                row=f"mode {mode_name} x agent {agent.name}",
                data={
                    "title": f"{agent.title}'s search tool, {mode['title']}: "
                             f"{'counts once' if counts else 'never counts'}{why}",
                    "clauses": list(dict.fromkeys([*mode["clauses"], *extra, *clauses["always"]])),
                    "provenance": "generated",
                    "agents": [agent.name],
                    "team": {str(doc["file"]): str(doc["text"])},
                    "steps": session_steps(agent, doc, call),
                    "expect": session_expect(doc, agent.session, counts),
                })
