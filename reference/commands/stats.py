"""``teamai-ref stats``: recall for the last 10 sessions, read from the recall log without writing.

One row per root session that has a settled run (a child session's runs count for its root,
as they do for votes), newest first by its newest run:

- ``session``: the root session id;
- ``agent``: who ran the session's newest run: the agent of that run's first claim, else the
  agent its environment named; null when neither is known;
- ``runs``: settled runs;
- ``recalled``: distinct docs those runs printed (a doc is its scope and vote key);
- ``adopted``: distinct docs credited to the session (consumed lines that credited), each credit
  under the root its session has now, as the reducer counts it (a child credited as a root of its
  own before its link arrived counts for its new root); reads that are still pending do not count.

The rows come from the reducer's own model, so stats and votes can never disagree about which
session a run belongs to.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from .. import reducer
from ..cli import EXIT_OK, _load_config
from ..streams import Io, spells_all

LAST = 10


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = "Show recall for the last 10 sessions: runs, recalled docs and adopted docs."
    parser.add_argument("--json", action="store_true", help="print the rows as a JSON list")


def rows(model: reducer.Model, last: int = LAST) -> list[dict[str, Any]]:
    adopted: dict[str, set[str]] = {}
    for consumed in model.consumed.values():
        for rec in consumed:
            session, key = rec.get("session"), rec.get("key")
            if rec.get("credited") is True and isinstance(session, str) and isinstance(key, str):
                adopted.setdefault(model.roots.root(session), set()).add(key)
    out: list[tuple[float, str, dict[str, Any]]] = []
    for root, runs in model.runs.items():
        newest = max(runs, key=lambda r: (r.ts, r.run))
        recalled = {(str(d.get("scope")), d["key"]) for r in runs for d in r.docs if isinstance(d.get("key"), str)}
        out.append((newest.ts, root, {"session": root, "agent": newest.agent, "runs": len(runs),
                                       "recalled": len(recalled), "adopted": len(adopted.get(root, ()))}))
    out.sort(key=lambda item: (-item[0], item[1]))
    return [row for _, _, row in out[:last]]


def render(model: reducer.Model, table: list[dict[str, Any]]) -> str:
    if not model.all_runs:
        return "Recall: no recall data yet.\n"
    lines = [f"Recall (last {LAST} sessions)"]
    if not table:
        lines.append("  no run is settled to a session yet")
        return "\n".join(lines) + "\n"
    heads = ("session", "agent", "runs", "recalled", "adopted")
    cells = [[str(row[h] if row[h] is not None else "-") for h in heads] for row in table]
    widths = [max(len(h), *(len(c[i]) for c in cells)) for i, h in enumerate(heads)]
    for values in (list(heads), *cells):
        left = [values[i].ljust(widths[i]) for i in range(2)]
        right = [values[i].rjust(widths[i]) for i in range(2, 5)]
        lines.append("  " + "  ".join(left + right).rstrip())
    return "\n".join(lines) + "\n"


def run(args: argparse.Namespace, io: Io) -> int:
    cfg = _load_config(args, io, reads_tree=False)
    model = reducer.load(cfg)
    if model.skipped:
        io.warn(f"skipped {model.skipped} malformed line(s) in the recall log {cfg.active.log_path}")
    table = rows(model)
    if args.json:
        # JSON's own escapes where the output cannot spell every character: the stream's would
        # write one past U+FFFF as ``\U0001f600``, which is no JSON.
        io.stdout.write(json.dumps(table, ensure_ascii=not spells_all(io.stdout)) + "\n")
    else:
        io.stdout.write(render(model, table))
    return EXIT_OK
