"""The JSON-lines report: a header, one line per case, a footer.

A report without its footer is a run that did not finish. Every other view (terminal, JUnit,
the results page) could be rebuilt from these lines.

Fields were added over time, never renamed or removed, so a reader of a newer report keeps
working on an older one: the header's ``clauses`` (the catalogue's texts) and ``expectations``,
and each case's ``observed`` state and the facts its scenario holds (``path``, ``provenance``,
``plan``, ``expect``, ``hooks``) may be absent, as may a failing case's ``blame`` (the clause of its
first difference from the reference, ``explain_text.blame``) and the footer's ``levels`` and
``failing_clauses`` (the failing cases grouped by that clause). An observed log longer than ``2 * LOG_KEPT``
lines keeps its ends, and ``observed.log_omitted`` counts the lines left out between them.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from reference import bounded

from .. import __version__
from ..corpus.capabilities import action_of
from ..corpus.clauses import Clause
from ..corpus.read import Payload, Scenario
from ..running import outcomes, protocol
from ..running.outcomes import CaseResult
from . import explain_text as report_explain

REPORT_VERSION = 1
LOG_KEPT = 100  # log lines kept from each end of an observed log; the middle is only counted
Run = tuple[dict[str, Any], list[dict[str, Any]], dict[str, Any] | None]
MAX_FILE = 256 << 20  # a report to read back; a larger file, or one that never ends, is refused


class ReportError(ValueError):
    """A report file that cannot be read, with the file and line in one line."""


def header(implementation: dict[str, Any], corpus: dict[str, Any], started: str,
           clauses: Iterable[Clause] = (), expectations: str | None = None) -> dict[str, Any]:
    """``clauses``: the catalogue, so a page built from the report alone can say what each id means."""
    out = {"kind": "header", "report": REPORT_VERSION, "harness": __version__, "protocol": protocol.VERSION,
           "implementation": implementation, "corpus": corpus, "started": started}
    texts = clause_texts(clauses)
    if texts:
        out["clauses"] = texts
    if expectations:
        out["expectations"] = expectations
    return out


def clause_texts(clauses: Iterable[Clause]) -> dict[str, dict[str, Any]]:
    """Each clause's text, level and section; a decision's also the alternatives an implementation may take."""
    return {c.id: {"text": c.text, "spec": c.spec, "section": c.section,
                   **({"alternatives": list(c.alternatives)} if c.alternatives else {})} for c in clauses}


def footer(results: Iterable[CaseResult], finished: str, exit_code: int,
           clauses: dict[str, Any] | None = None) -> dict[str, Any]:
    """``clauses``: the coverage summary (``clauses.summary``): total, by_scenarios,
    unit_tests_only and untested, the same numbers the terminal report shows."""
    results = list(results)
    out = {"kind": "footer", "totals": dict(Counter(r.outcome for r in results)),
           "levels": outcomes.level_totals(results), "failing_clauses": report_explain.rollup(results),
           "finished": finished, "exit": exit_code}
    if clauses is not None:
        out["clauses"] = clauses
    return out


def facts(scenarios: Iterable[Scenario], payloads: Mapping[str, Payload]) -> dict[str, dict[str, Any]]:
    """Case id -> what its scenario says, the same for every implementation: the file, its
    provenance, the steps and the ``expect`` block as written, and the agent and event of each
    hook step (the payload's event unless the step names another)."""
    out = {}
    for s in scenarios:
        hooks = []
        for step in s.steps:
            if action_of(step) != "hook":
                continue
            name = str(step["hook"])
            payload = payloads.get(name)
            agent = payload.agent if payload else name.split("/", 1)[0]
            hooks.append({"payload": name, "agent": agent,
                          "event": kebab(str(step.get("event") or (payload.event if payload else "")))})
        out[s.id] = _plain({"path": s.rel, "provenance": s.data.get("provenance"), "plan": s.steps,
                            "expect": s.expect, **{k: s.data[k] for k in ("decide", "profile") if s.data.get(k)},
                            "hooks": hooks})
    return out


def kebab(event: str) -> str:
    """``PostToolUse``, ``postToolUse`` and ``post_tool_use`` all read ``post-tool-use``."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "-", event).replace("_", "-").lower()


def build(head: dict[str, Any], results: list[CaseResult], foot: dict[str, Any], rerun: Mapping[str, str],
          case_facts: Mapping[str, dict[str, Any]] | None = None) -> Run:
    """The report as the lines :func:`write` writes and :func:`read` gives back."""
    cases = []
    for r in results:
        line = {"kind": "case", **r.to_json(), "rerun": rerun.get(r.id, ""), **(case_facts or {}).get(r.id, {})}
        blamed = report_explain.blame(r)
        if blamed is not None:
            line["blame"] = blamed
        if "observed" in line:
            line["observed"] = _bounded(line["observed"])
        cases.append(line)
    return head, cases, foot


def write(path: Path, head: dict[str, Any], results: list[CaseResult], foot: dict[str, Any],
          rerun: Mapping[str, str], case_facts: Mapping[str, dict[str, Any]] | None = None) -> None:
    head, cases, last = build(head, results, foot, rerun, case_facts)
    # A lone surrogate (a path that is not valid Unicode, quoted from the log) is written as the
    # JSON escape it is, which reads back as the same text.
    with path.open("w", encoding="utf-8", errors="backslashreplace") as fh:
        for line in (head, *cases, last):
            fh.write(_one_line(json.dumps(line, ensure_ascii=False)) + "\n")


# Characters that end a line for str.splitlines() and many editors though JSON leaves them raw in
# strings: escaped, a report line stays one line for every reader.
_BREAKS = {"\x85": "\\u0085", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def _one_line(text: str) -> str:
    for raw, escaped in _BREAKS.items():
        text = text.replace(raw, escaped)
    return text


def read(path: Path) -> Run:
    """(header, case lines, footer or None when the run was cut short)."""
    try:
        text = bounded.read_file(str(path), MAX_FILE).decode("utf-8")
    except (OSError, UnicodeDecodeError, bounded.TooLarge) as exc:
        raise ReportError(f"{path}: cannot be read: {exc}") from exc
    lines = []
    for number, raw in enumerate(text.split("\n"), 1):  # not splitlines: a report written before
        if not raw.strip():                                # _one_line may hold U+2028 in a string
            continue
        try:
            line = json.loads(raw)
        except (ValueError, RecursionError) as exc:  # (nested past the parser's depth)
            raise ReportError(f"{path}:{number}: not a JSON line: {exc}") from exc
        if not isinstance(line, dict):
            raise ReportError(f"{path}:{number}: not a JSON object")
        lines.append(line)
    head = lines[0] if lines and lines[0].get("kind") == "header" else {}
    cases = [x for x in lines if x.get("kind") == "case"]
    foot = lines[-1] if lines and lines[-1].get("kind") == "footer" else None
    return head, cases, foot


def _bounded(observed: dict[str, Any]) -> dict[str, Any]:
    """A log of thousands of lines (a retention case) keeps its ends; ``log_omitted`` counts the
    lines left out after the first :data:`LOG_KEPT`."""
    log = observed.get("log")
    if not isinstance(log, list) or len(log) <= 2 * LOG_KEPT:
        return observed
    return {**observed, "log": log[:LOG_KEPT] + log[-LOG_KEPT:], "log_omitted": len(log) - 2 * LOG_KEPT}


def _plain(value: Any) -> Any:
    """What YAML gave, as JSON would give it back (keys are strings; nothing else sneaks in)."""
    return json.loads(json.dumps(value, ensure_ascii=False, default=str))
