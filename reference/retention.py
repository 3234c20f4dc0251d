"""Keep the recall log small: 30 days, with 5000 lines as a backstop, pruned only at ``pull``.

Pruning rewrites the whole file (``storage.write_atomic``) while holding the log's lock, so a
hook appending at the same moment waits and then appends to the new file. It never runs on the
hook path. What it never drops, however old or however many lines there are: a pending read
(evidence with no consumed line) younger than 24 h, and what that read still needs to vote:

- the runs of its root session that it could join (run ts within the 24 h before the read),
- every claim naming those runs,
- the consumed lines of that root session (the credits that may cover the read) and their reads,
- the links from the read's session and from those runs' sessions up to the root.

A read and its consumed lines are kept or dropped together: a consumed line without its read is
harmless, but a read without its consumed line would vote again. Malformed lines are dropped and
counted. Lines that survive are written back byte for byte, in their original order.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from . import reducer
from .clock import now
from .config import Config
from .storage import lock_wait, locked, write_atomic

MAX_AGE_DAYS = 30
MAX_LINES = 5000


@dataclass
class PruneResult:
    before: int = 0  # lines read, malformed included
    after: int = 0
    old: int = 0  # dropped for being older than 30 days
    over: int = 0  # dropped to get down to the line limit
    malformed: int = 0
    protected: int = 0  # lines kept because pending reads need them


def _parse(raw: bytes) -> dict[str, Any] | None:
    try:
        rec = json.loads(raw)
    except ValueError:
        return None
    if (isinstance(rec, dict) and rec.get("kind") in reducer.KINDS
            and reducer.epoch(rec.get("ts")) is not None):
        return rec
    return None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _protected(records: list[tuple[bytes, dict[str, Any]]], now_epoch: float) -> set[int]:
    """Indexes of the lines that pending reads younger than 24 h still need."""
    lines = reducer._Lines(b"")
    for _, rec in records:
        lines.done[rec["kind"]].append(rec)
    model = reducer.build(lines)
    young = [r for r in model.reads if r.ts >= now_epoch - reducer.DAY]
    if not young:
        return set()
    roots = model.roots
    reads: set[reducer.EvidenceId] = set()
    runs: set[str] = set()
    sessions: set[str] = set()
    credit_roots: set[str] = set()
    for read in young:
        reads.add(read.ident)
        sessions.add(read.session)
        credit_roots.add(read.root)
        for run in model.runs.get(read.root, ()):
            if run.ts <= read.ts <= run.ts + reducer.DAY:
                runs.add(run.run)
                sessions.add(run.session)
    children: set[str] = set()
    for session in sessions:
        children.update(roots.chain(session))
    for ident, consumed in model.consumed.items():
        if any(c.get("session") in credit_roots for c in consumed):
            reads.add(ident)
    keep: set[int] = set()
    for i, (_, rec) in enumerate(records):
        kind = rec["kind"]
        if kind == "evidence":
            hit = reducer._identity(rec) in reads
        elif kind == "consumed":
            hit = reducer._consumed_identity(rec) in reads
        elif kind in ("run", "claim"):
            hit = _text(rec.get("run")) in runs
        else:
            hit = _text(rec.get("child")) in children
        if hit:
            keep.add(i)
    return keep


def prune(cfg: Config, warn: Callable[[str], None], max_lines: int = MAX_LINES,
          max_age_days: int = MAX_AGE_DAYS) -> PruneResult:
    """Drop what is too old, then the oldest beyond ``max_lines``, under the log's lock."""
    scope = cfg.active
    instant = now(cfg.env).timestamp()
    result = PruneResult()
    with locked(scope.log_lock, "the recall log", lock_wait(cfg.env)):
        try:
            with open(scope.log_path, "rb") as fh:
                data = fh.read()
        except FileNotFoundError:
            return result
        records: list[tuple[bytes, dict[str, Any]]] = []
        for raw in data.split(b"\n"):
            if not raw.strip():
                continue
            result.before += 1
            rec = _parse(raw)
            if rec is None:
                result.malformed += 1
            else:
                records.append((raw, rec))
        keep = _protected(records, instant)
        result.protected = len(keep)
        # A read and its consumed lines form one unit, dated by its oldest line.
        unit_of: dict[reducer.EvidenceId, int] = {}
        units: list[list[int]] = []
        for i, (_, rec) in enumerate(records):
            ident = (reducer._identity(rec) if rec["kind"] == "evidence"
                     else reducer._consumed_identity(rec) if rec["kind"] == "consumed" else None)
            if ident is None:
                units.append([i])
            elif ident in unit_of:
                units[unit_of[ident]].append(i)
            else:
                unit_of[ident] = len(units)
                units.append([i])
        alive = [True] * len(records)

        def when(unit: list[int]) -> float:
            return min(reducer.epoch(records[i][1]["ts"]) or 0.0 for i in unit)

        droppable = sorted((u for u in units if not any(i in keep for i in u)), key=lambda u: (when(u), u[0]))
        cutoff = instant - max_age_days * reducer.DAY
        remaining = len(records)
        for unit in droppable:
            if when(unit) < cutoff:
                for i in unit:
                    alive[i] = False
                result.old += len(unit)
                remaining -= len(unit)
        for unit in droppable:
            if remaining <= max_lines:
                break
            if alive[unit[0]]:
                for i in unit:
                    alive[i] = False
                result.over += len(unit)
                remaining -= len(unit)
        result.after = remaining
        if result.after != result.before:
            kept = [records[i][0] + b"\n" for i in range(len(records)) if alive[i]]
            write_atomic(scope.log_path, b"".join(kept))
    if result.malformed:
        warn(f"dropped {result.malformed} malformed line(s) from the recall log {scope.log_path}")
    return result
