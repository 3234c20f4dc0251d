"""The JSON-lines report: a header, one line per case, a footer.

A report without its footer is a run that did not finish. Every other view (terminal, JUnit)
could be rebuilt from these lines.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from . import __version__, protocol
from .outcomes import CaseResult

REPORT_VERSION = 1


def header(implementation: dict[str, Any], corpus: dict[str, Any], started: str) -> dict[str, Any]:
    return {"kind": "header", "report": REPORT_VERSION, "harness": __version__, "protocol": protocol.VERSION,
            "implementation": implementation, "corpus": corpus, "started": started}


def footer(results: Iterable[CaseResult], finished: str, exit_code: int,
           clauses: dict[str, Any] | None = None) -> dict[str, Any]:
    """``clauses``: the coverage summary (``clauses.summary``): total, by_scenarios,
    unit_tests_only and untested, the same numbers the terminal report shows."""
    out = {"kind": "footer", "totals": dict(Counter(r.outcome for r in results)), "finished": finished,
           "exit": exit_code}
    if clauses is not None:
        out["clauses"] = clauses
    return out


def write(path: Path, head: dict[str, Any], results: list[CaseResult], foot: dict[str, Any],
          rerun: dict[str, str]) -> None:
    with path.open("w", encoding="utf-8") as fh:
        fh.write(json.dumps(head, ensure_ascii=False) + "\n")
        for r in results:
            line = {"kind": "case", **r.to_json(), "rerun": rerun.get(r.id, "")}
            fh.write(json.dumps(line, ensure_ascii=False) + "\n")
        fh.write(json.dumps(foot, ensure_ascii=False) + "\n")


def read(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]], dict[str, Any] | None]:
    """(header, case lines, footer or None when the run was cut short)."""
    lines = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]
    head = lines[0] if lines and lines[0].get("kind") == "header" else {}
    cases = [x for x in lines if x.get("kind") == "case"]
    foot = lines[-1] if lines and lines[-1].get("kind") == "footer" else None
    return head, cases, foot
