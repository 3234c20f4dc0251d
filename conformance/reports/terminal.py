"""The report a person reads: totals, tables by area and by agent, clause coverage, then every
unexpected outcome with its clauses, the first differing path, a compact diff and the command
that reruns just that case. The progress line (:class:`Progress`) is kept up to date on a terminal
and is a plain line every 5 s elsewhere."""

from __future__ import annotations

import json
import textwrap
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from typing import IO, Any

from ..running import outcomes
from ..running.outcomes import CaseResult
from . import explain_text as report_explain

COLUMNS = (outcomes.PASS, outcomes.FAIL, outcomes.ERROR, outcomes.CRASH, outcomes.TIMEOUT, outcomes.XFAIL,
           outcomes.XPASS, outcomes.SKIP, outcomes.NOT_APPLICABLE)
SHORT = {outcomes.NOT_APPLICABLE: "n/a"}
DIFF_WIDTH = 300
VACUOUS_NAMED = 12  # vacuous passes named in the summary; the reports mark every one
PROGRESS_EVERY = 5.0  # seconds between progress lines when stderr is not a terminal


def _table(title: str, groups: dict[str, list[CaseResult]]) -> list[str]:
    used = [c for c in COLUMNS if any(r.outcome == c for rs in groups.values() for r in rs)] or [outcomes.PASS]
    head = [title, "total", *(SHORT.get(c, c) for c in used)]
    rows = [[name, str(len(rs)), *(str(sum(r.outcome == c for r in rs)) for c in used)]
            for name, rs in sorted(groups.items())]
    widths = [max(len(row[i]) for row in [head, *rows]) for i in range(len(head))]

    def fmt(row: list[str]) -> str:
        return "  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(row, widths, strict=True)))

    return [fmt(head), fmt(["-" * w for w in widths]), *(fmt(r) for r in rows)]


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= DIFF_WIDTH else text[:DIFF_WIDTH] + "…"


def failure_block(r: CaseResult, rerun: str) -> list[str]:
    lines = [f"{r.outcome.upper()} {r.id}: {r.title}", f"  area: {r.area}  clauses: {', '.join(r.clauses) or '-'}"]
    if r.mismatches:
        first = r.mismatches[0]
        lines.append(f"  first difference at {first['path']}: {first['message']}")
        for m in r.mismatches[:5]:
            lines.append(f"    {m['path']}")
            diff = report_explain.text_diff_lines(m.get("expected"), m.get("actual")) \
                if "output_contains[" in m["path"] else []
            lines += diff or [f"      - expected: {_short(m.get('expected'))}",
                              f"      + actual:   {_short(m.get('actual'))}"]
        if len(r.mismatches) > 5:
            lines.append(f"    … and {len(r.mismatches) - 5} more")
    elif r.message:
        for text in r.message.splitlines()[:12]:
            lines.append(f"  {text}")
    if r.partly:
        lines.append(f"  partly applicable (no {', '.join(r.lacking)}): left out {', '.join(r.skipped)}")
    lines += report_explain.explanation_lines(r.explanation)
    lines.append(f"  rerun: {rerun}")
    return lines


def not_applicable_line(results: list[CaseResult]) -> str:
    """Not-applicable cases grouped by what their driver lacked, largest group first. A case
    lacking several needs is counted once, under all of them together, so the counts add up."""
    groups = Counter(" + ".join(r.lacking) or "?" for r in results if r.outcome == outcomes.NOT_APPLICABLE)
    parts = "; ".join(f"{need}: {n}" for need, n in sorted(groups.items(), key=lambda kv: (-kv[1], kv[0])))
    return f"not applicable: {sum(groups.values())} ({parts})"


def marks_lines(results: list[CaseResult]) -> list[str]:
    """The two marks that qualify outcomes: partly applicable cases, by what the driver lacked and
    by outcome, and vacuous passes, each named (they are few, and each needs a positive check)."""
    out = []
    partly = [r for r in results if r.partly]
    if partly:
        need = Counter(" + ".join(r.lacking) or "?" for r in partly)
        by_outcome = Counter(r.outcome for r in partly)
        out.append(f"partly applicable: {len(partly)} ("
                   + "; ".join(f"without {n}: {k}" for n, k in sorted(need.items(), key=lambda kv: (-kv[1], kv[0])))
                   + "), judged on the rest: "
                   + ", ".join(f"{SHORT.get(c, c)} {by_outcome[c]}" for c in COLUMNS if by_outcome[c]))
    vacuous = [r for r in results if r.vacuous]
    if vacuous:
        passed = sum(r.outcome in (outcomes.PASS, outcomes.XPASS) for r in results)
        named = ", ".join(r.id for r in vacuous[:VACUOUS_NAMED])
        more = f" … and {len(vacuous) - VACUOUS_NAMED} more (each is marked in --report and on the page)" \
            if len(vacuous) > VACUOUS_NAMED else ""
        out += textwrap.wrap(f"vacuous passes: {len(vacuous)} of {passed} (an implementation lacking the feature "
                             f"passes them too): {named}{more}", 100, subsequent_indent="  ", break_on_hyphens=False)
    return out


def render(results: list[CaseResult], coverage: dict[str, Any] | None, implementation: str,
           rerun: Callable[[str], str]) -> str:
    """``coverage``: the corpus's clause coverage (``clauses.summary``: total, by_scenarios,
    unit_tests_only, untested), shown only for a run of the whole corpus; None leaves it out, as
    for a run of a selection, whose cases cannot speak for the corpus."""
    out: list[str] = [f"teamai-conformance: {len(results)} cases against {implementation}"]
    totals = Counter(r.outcome for r in results)
    out.append("totals: " + ", ".join(f"{SHORT.get(c, c)} {totals[c]}" for c in COLUMNS if totals[c]))
    out += outcomes.level_lines(results)
    if totals[outcomes.NOT_APPLICABLE]:
        out.append(not_applicable_line(results))
    out += marks_lines(results)
    out.append("")
    by_area: dict[str, list[CaseResult]] = defaultdict(list)
    by_agent: dict[str, list[CaseResult]] = defaultdict(list)
    for r in results:
        by_area[r.area].append(r)
        for agent in r.agents or ["(none)"]:
            by_agent[agent].append(r)
    out += _table("area", by_area) + [""] + _table("agent", by_agent) + [""]
    if coverage:
        out += coverage_lines(coverage) + [""]
    bad = [r for r in results if r.outcome in outcomes.UNEXPECTED]
    for r in bad:
        out += failure_block(r, rerun(r.id)) + [""]
    rollup = report_explain.failing_clauses(bad)
    out += rollup + ([""] if rollup else [])
    verdict = "all outcomes as expected" if not bad else f"{len(bad)} unexpected outcome(s)"
    out.append(verdict)
    return "\n".join(out) + "\n"


def coverage_lines(summary: dict[str, Any]) -> list[str]:
    """The clause coverage: tested by scenarios, only by the reference's unit tests, untested."""
    out = [f"clauses: {summary.get('by_scenarios', 0)}/{summary.get('total', 0)} tested by at least one scenario"]
    units = list(summary.get("unit_tests_only") or [])
    if units:
        out += textwrap.wrap(f"tested only by the reference's unit tests ({len(units)}): " + ", ".join(units),
                             100, subsequent_indent="  ", break_on_hyphens=False)
    untested = list(summary.get("untested") or [])
    if untested:
        out += textwrap.wrap("untested clauses: " + ", ".join(untested), 100, subsequent_indent="  ",
                             break_on_hyphens=False)
    return out


class Progress:
    """How far a run is, on stderr. On a terminal: one line, rewritten in place as cases finish.
    Elsewhere (a CI log, a pipe): a plain line when a case finishes at least ``every`` seconds
    after the last one, so a long run is never silent for long and a short one prints nothing."""

    def __init__(self, stream: IO[str], total: int, every: float | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.stream = stream
        self.total = total
        self.counts: Counter[str] = Counter()
        self.enabled = bool(getattr(stream, "isatty", lambda: False)())
        self.every = PROGRESS_EVERY if every is None else every
        self.clock = clock
        self.started = self.last = clock()

    def __call__(self, result: CaseResult) -> None:
        self.counts[result.outcome] += 1
        done = sum(self.counts.values())
        if self.enabled:
            parts = ", ".join(f"{SHORT.get(c, c)} {self.counts[c]}" for c in COLUMNS if self.counts[c])
            self.stream.write(f"\r[{done}/{self.total}] {parts} ({result.id})\033[K")
            self.stream.flush()
            return
        now = self.clock()
        if now - self.last >= self.every:
            self.last = now
            unexpected = sum(n for c, n in self.counts.items() if c in outcomes.UNEXPECTED)
            self.stream.write(f"teamai-conformance: {done}/{self.total} cases done, {unexpected} unexpected so far "
                              f"({now - self.started:.0f} s)\n")
            self.stream.flush()

    def finish(self) -> None:
        if self.enabled:
            self.stream.write("\r\033[K")
            self.stream.flush()
