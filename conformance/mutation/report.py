"""The mutation report: the score per module and overall, and every survivor with its change.

Score = killed / (mutants − equivalent), where killed includes timeouts and a survivor is a
mutant the corpus let through, whether no scenario reached its line (``uncovered``) or every
scenario that did still passed. Mutants listed as equivalent are counted apart but judged like any other
(``--skip-equivalents`` leaves those without a verdict for this code unjudged); one the corpus
kills anyway is counted as killed and named, as is a listed id that matches no mutant.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from .judge import KILLED, LISTED, SURVIVED, TIMEOUT, UNCOVERED, Verdict
from .operators import Mutant

TARGET = 0.90


@dataclass
class Row:
    mutant: Mutant
    verdict: Verdict
    equivalent: str | None  # why, when listed
    cached: bool

    @property
    def killed(self) -> bool:
        return self.verdict.status in (KILLED, TIMEOUT)

    @property
    def counted_survivor(self) -> bool:
        return not self.killed and self.equivalent is None


@dataclass
class Tally:
    mutants: int = 0
    killed: int = 0
    timeouts: int = 0
    survived: int = 0
    uncovered: int = 0
    equivalent: int = 0

    def add(self, row: Row) -> None:
        self.mutants += 1
        if row.killed:
            self.killed += 1
            self.timeouts += row.verdict.status == TIMEOUT
        elif row.equivalent is not None:
            self.equivalent += 1
        elif row.verdict.status == UNCOVERED:
            self.uncovered += 1
        else:
            self.survived += 1

    @property
    def score(self) -> float | None:
        judged = self.mutants - self.equivalent
        return self.killed / judged if judged else None


def tallies(rows: list[Row]) -> tuple[dict[str, Tally], Tally]:
    per: dict[str, Tally] = {}
    total = Tally()
    for row in rows:
        per.setdefault(row.mutant.short, Tally()).add(row)
        total.add(row)
    return per, total


def _pct(score: float | None) -> str:
    return "-" if score is None else f"{100 * score:5.1f}%"


def table(rows: list[Row]) -> list[str]:
    per, total = tallies(rows)
    width = max([len("module"), *(len(m) for m in per)])
    lines = [f"{'module':<{width}}  mutants  killed  timeout  survived  uncovered  equivalent   score"]
    for name, t in sorted(per.items()):
        mark = "" if t.score is None or t.score >= TARGET else "  < 90%"
        lines.append(f"{name:<{width}}  {t.mutants:7}  {t.killed:6}  {t.timeouts:7}  {t.survived:8}  {t.uncovered:9}  "
                     f"{t.equivalent:10}  {_pct(t.score)}{mark}")
    lines.append(f"{'overall':<{width}}  {total.mutants:7}  {total.killed:6}  {total.timeouts:7}  {total.survived:8}  "
                 f"{total.uncovered:9}  {total.equivalent:10}  {_pct(total.score)}")
    return lines


def terminal(rows: list[Row], header: str, stale: list[str], killed_equivalents: list[Row], seconds: float,
             report_path: str) -> str:
    survivors = [r for r in rows if r.counted_survivor]
    out = [header, "", *table(rows), ""]
    ran = _judged_now(rows)
    cached = sum(1 for r in rows if r.cached)
    unjudged = _unjudged(rows)
    out.append(f"{len(rows)} mutants, {ran} judged now, {cached} taken from the cache, "
               f"{len(rows) - ran - cached - unjudged} reached by no scenario, {unjudged} listed as equivalent and "
               f"not judged (--skip-equivalents); {seconds:.0f}s")
    if survivors:
        out.append(f"{len(survivors)} survivors (their changes are in {report_path}):")
        for r in survivors[:40]:
            out.append(f"  {r.mutant.id}  {r.mutant.path}:{r.mutant.line}  {r.verdict.status}")
        if len(survivors) > 40:
            out.append(f"  ... and {len(survivors) - 40} more")
    for r in killed_equivalents:
        out.append(f"listed as equivalent but killed by {r.verdict.by}: {r.mutant.id}")
    for ident in stale:
        out.append(f"listed as equivalent but no such mutant: {ident}")
    return "\n".join(out) + "\n"


def markdown(rows: list[Row], header: str, stale: list[str], killed_equivalents: list[Row], seconds: float) -> str:
    out = ["# Mutation report", "", header, "", "```", *table(rows), "```", "",
           f"Judged in {seconds:.0f}s ({_judged_now(rows)} mutants run now, {sum(1 for r in rows if r.cached)} "
           f"verdicts from the cache, {_unjudged(rows)} listed as equivalent and not judged, the rest reached by "
           "no scenario).",
           ""]
    survivors = [r for r in rows if r.counted_survivor]
    out += [f"## Survivors ({len(survivors)})", ""]
    for r in survivors:
        m = r.mutant
        how = ("no scenario runs this line" if r.verdict.status == UNCOVERED
               else f"{r.verdict.ran} scenario(s) ran it and passed")
        out += [f"### `{m.id}`", "", f"`{m.path}:{m.line}`, {m.operator}, {how}", "", "```diff", m.diff(), "```", ""]
    if killed_equivalents or stale:
        out += ["## The equivalents file", ""]
        out += [f"- listed as equivalent but killed by `{r.verdict.by}`: `{r.mutant.id}`" for r in killed_equivalents]
        out += [f"- listed as equivalent but no such mutant: `{i}`" for i in stale]
        out.append("")
    equivalents = [r for r in rows if r.equivalent is not None and not r.killed]
    if equivalents:
        out += [f"## Equivalent ({len(equivalents)})", ""]
        out += [f"- `{r.mutant.id}` ({r.mutant.path}:{r.mutant.line}): {r.equivalent}" for r in equivalents]
        out.append("")
    return "\n".join(out)


def _judged_now(rows: list[Row]) -> int:
    return sum(1 for r in rows if not r.cached and r.verdict.status not in (UNCOVERED, LISTED))


def _unjudged(rows: list[Row]) -> int:
    return sum(1 for r in rows if r.verdict.status == LISTED)


def jsonl(rows: list[Row]) -> str:
    lines = []
    for r in rows:
        m = r.mutant
        lines.append(json.dumps({"id": m.id, "module": m.short, "path": m.path, "line": m.line, "operator": m.operator,
                                 "before": m.before, "after": m.after, **r.verdict.to_json(),
                                 "equivalent": r.equivalent, "cached": r.cached}, ensure_ascii=False))
    return "\n".join(lines) + "\n"


__all__ = ["KILLED", "LISTED", "SURVIVED", "TIMEOUT", "UNCOVERED", "Row", "Tally", "markdown", "jsonl", "tallies",
           "terminal"]
