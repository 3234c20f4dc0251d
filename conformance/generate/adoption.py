"""#884's adoption table as scenarios: every shell verb x every agent x every status that agent's
hook can report (``tables/adoption.yaml``, ``tables/agents.yaml``).

Each cell is one session: a recall, the shell call of that recall (its claim is a line the hook
must write whatever the verb does, so a hook that records nothing fails every cell on the log, not
only on votes), the verb's call on the recalled doc, then Stop. A call that counts leaves an
evidence line and one upvote; one that does not leaves no evidence and no upvote.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from . import agents as agents_mod
from .emit import Flow
from .model import PREFIX, Generated, slug
from .tables import TableError, Tables, fill, need

TABLE = "adoption"
AREA = "attribution"


def doc_values(doc: Mapping[str, Any]) -> dict[str, str]:
    """What ``{doc}``, ``{file}``, ``{root}``, ``{text}``, ``{n}`` and ``{line}`` stand for."""
    text = str(doc["text"])
    n = int(doc["n"])
    lines = text.splitlines()
    if not 1 <= n <= len(lines):
        raise TableError(f"{TABLE}.yaml: doc.n {n} is not a line of doc.text")
    return {"doc": "${path:" + str(doc["tree_path"]) + "}", "file": str(doc["file"]), "root": agents_mod.ROOT,
            "text": text, "n": str(n), "line": lines[n - 1]}


def session_expect(doc: Mapping[str, Any], session: str, counts: bool) -> dict[str, Any]:
    """The claim always written; the evidence and the upvote only when the call counts."""
    evidence = Flow(kind="evidence", session=session, path="${path:" + str(doc["tree_path"]) + "}")
    expect: dict[str, Any] = {
        "votes": {str(doc["key"]): Flow(recalled_count=1, upvoted_count=1 if counts else 0)},
        "log_contains": [Flow(kind="claim", run="${r1.run}", session=session)] + ([evidence] if counts else []),
    }
    if not counts:
        expect["log_absent"] = [Flow(kind="evidence")]
    return expect


def session_steps(agent: agents_mod.Agent, doc: Mapping[str, Any], call: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"recall": str(doc["query"]), "as": "r1"}, agent.claim("r1", str(doc["query"])), call, agent.stop()]


def cells(tables: Tables) -> Iterator[Generated]:
    table = tables.table(TABLE)
    doc = need(table, "doc", f"{TABLE}.yaml")
    values = doc_values(doc)
    rule = need(table, "counts", f"{TABLE}.yaml")
    clauses = need(table, "clauses", f"{TABLE}.yaml")
    for agent in agents_mod.load(tables).values():
        for verb in need(table, "verbs", f"{TABLE}.yaml"):
            category = str(verb["category"])
            name = str(verb.get("name", verb["verb"]))
            for status in agent.statuses:
                counts = bool(rule[category][status])
                call = agent.shell_call(status, fill(str(verb["command"]), **values),
                                        fill(str(verb["output"]), **values))
                said = f"status {status}" if status != "success" else "a successful call"
                outcome = "counts once" if counts else "never counts"
                yield Generated(
                    id=f"{PREFIX}verb-{slug(str(verb['verb']))}-{agent.name}-{status}",
                    area=AREA, table=TABLE,
                    row=f"verb {name} ({category}) x agent {agent.name} x status {status}",
                    data={
                        "title": f"{agent.title}, {said}: `{name}` on a recalled doc {outcome}",
                        "clauses": list(dict.fromkeys([*clauses["category"][category], *(verb.get("clauses") or []),
                                                       *clauses["status"][status], *clauses["always"]])),
                        "provenance": "generated",
                        "agents": [agent.name],
                        "team": {str(doc["file"]): str(doc["text"])},
                        "steps": session_steps(agent, doc, call),
                        "expect": session_expect(doc, agent.session, counts),
                    })
