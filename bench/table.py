"""The bench's table: one group of rows per figure (the floor, the reference, the peer), each
with its median, spread, ratio to the floor, peak memory and, for the peer, how its time compares
with the reference's. Rows are printed as they are measured (a long run shows progress) and kept
for ``--json``.

Errors (a peer that did not index the same assets, a section that failed) are printed where they
happen and counted, so the run can end non-zero instead of burying them under figures.
"""

from __future__ import annotations

import sys
from typing import IO, Any

from measure import Figure

TOOL_WIDTH = 44
HEADER = (f"    {'':<{TOOL_WIDTH}}{'median':>10}  {'spread (min–max)':>20}  {'x floor':>8}  {'max RSS':>9}"
          f"  vs reference")


def duration(ms: float) -> str:
    return f"{ms / 1000:.2f} s" if ms >= 1000 else f"{ms:.1f} ms"


def spread(fig: float) -> str:
    if not isinstance(fig, Figure) or len(fig.samples) < 2:
        return ""
    if fig.high >= 1000:
        return f"{fig.low / 1000:.2f}–{fig.high / 1000:.2f} s"
    return f"{fig.low:.1f}–{fig.high:.1f} ms"


def memory(fig: float) -> str:
    kb = fig.rss_kb if isinstance(fig, Figure) else None
    return f"{kb / 1024:.1f} MB" if kb else ""


def versus(peer: float, ours: float) -> str:
    ratio = peer / ours
    return f"{ratio:.1f}x slower" if ratio >= 1 else f"{1 / ratio:.1f}x faster"


def _facts(fig: float, floor: float | None) -> dict[str, Any]:
    row: dict[str, Any] = {"median_ms": round(fig, 1)}
    if isinstance(fig, Figure):
        row["samples"] = len(fig.samples)
        if len(fig.samples) > 1:
            q1, q3 = fig.quartiles
            row["spread_ms"] = [round(fig.low, 1), round(fig.high, 1)]
            row["iqr_ms"] = [round(q1, 1), round(q3, 1)]
        if fig.rss_kb:
            row["max_rss_kb"] = fig.rss_kb
    if floor:
        row["x_floor"] = round(fig / floor, 2)
    return row


class Report:
    def __init__(self, out: IO[str] | None = None) -> None:
        self.out = out or sys.stdout
        self.rows: list[dict[str, object]] = []
        self.errors: list[str] = []

    def say(self, text: str = "") -> None:
        print(text, file=self.out, flush=True)

    def title(self, text: str) -> None:
        self.say(f"\n== {text} ==")
        self.say(HEADER)

    def note(self, text: str) -> None:
        self.say(f"    {text}")

    def error(self, text: str) -> None:
        self.errors.append(text)
        self.say(f"error: {text}")

    def _line(self, tool: str, fig: float, floor: float | None, ours: float | None = None) -> None:
        text = f"    {tool:<{TOOL_WIDTH}}{duration(fig):>10}  {spread(fig):>20}"
        text += f"  {f'{fig / floor:.2f}x' if floor else '':>8}  {memory(fig):>9}"
        if ours:
            text += f"  {versus(fig, ours)}"
        self.say(text.rstrip())

    def figure(self, section: str, what: str, ours: float, floor: float | None = None,
               peer: float | None = None, *, tool: str = "reference", floor_name: str = "floor",
               peer_name: str = "teamai-cli", goal: str = "", ok: bool | None = None,
               notes: tuple[str, ...] = ()) -> None:
        """A figure: the floor's row (when measured beside it), ours, the peer's (when run)."""
        self.say(f"  {section}: {what}")
        if floor:
            self._line(floor_name, floor, None)
        self._line(tool, ours, floor)
        row: dict[str, Any] = {"section": section, "what": what, **_facts(ours, floor)}
        if floor:
            row["floor"] = _facts(floor, None)
        if peer:
            self._line(peer_name, peer, floor, ours)
            row["peer"] = {"name": peer_name, **_facts(peer, floor)}
            row["peer_over_ref"] = round(peer / ours, 1)
        for text in notes:
            self.note(text)
        if goal:
            row["goal"] = goal
            row["met"] = ok
            self.note(f"[goal {goal}: {'met' if ok else 'NOT met'}]")
        if notes:
            row["notes"] = list(notes)
        self.rows.append(row)

    def add(self, section: str, what: str, ms: float, floor_ms: float | None = None,
            goal: str = "", peer_ms: float | None = None, ok: bool | None = None) -> None:
        """The older one-call form, kept for the sections that use it."""
        self.figure(section, what, ms, floor_ms, peer_ms, goal=goal, ok=ok)
