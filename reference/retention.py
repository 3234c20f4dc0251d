"""Keep the recall log small: 30 days, with 5000 lines as a backstop, pruned only at ``pull``.

Pruning rewrites the whole file (``storage.write_atomic``) while holding the log's lock, so a
hook appending at the same moment waits and then appends to the new file. It never runs on the
hook path. What it never drops, however old or however many lines there are: a pending read
(evidence with no consumed line) younger than 24 h, and what that read still needs to vote:

- the runs of its root session that it could join (run ts within the 24 h before the read), and
  the unsettled runs in that window (a late claim may still settle them),
- every claim naming those runs,
- the consumed lines of that root session (the credits that may cover the read) and their reads,
- the links from the read's session and from those runs' sessions up to the root.

A read and its consumed lines are kept or dropped together: a consumed line without its read is
harmless, but a read without its consumed line would vote again. Malformed lines are dropped and
counted. Lines that survive are written back byte for byte, in their original order.

Last, still under the lock, the reducer's checkpoint is worked out for the file as it now is, so
the next Stop reads only what is appended after the pull.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .clock import now_micros
from .config import Config
from .reducer import DAY, Lines, build, checkpoint
from .reducer.logread import consumed_identity, identity, instant, text, well_formed
from .reducer.settle import first_claims, settled_by
from .storage import lock_wait, locked, write_atomic

MAX_AGE_DAYS = 30
MAX_LINES = 5000

Record = dict[str, Any]


@dataclass
class PruneResult:
    before: int = 0  # lines read, malformed included
    after: int = 0
    old: int = 0  # dropped for being older than 30 days
    over: int = 0  # dropped to get down to the line limit
    malformed: int = 0
    protected: int = 0  # lines kept because pending reads need them


def _decode(raws: list[bytes]) -> list[Record | None]:
    """Each line's record (None when malformed), with one decode for the lot when it can."""
    try:
        batch = json.loads(b"[" + b",".join(raws) + b"]")
    except ValueError:
        batch = None
    if batch is None or len(batch) != len(raws):
        batch = []
        for raw in raws:
            try:
                batch.append(json.loads(raw))
            except ValueError:
                batch.append(None)
    return [rec if well_formed(rec) and instant(rec["ts"]) is not None else None for rec in batch]


def _protected(records: list[Record], now: int) -> set[int]:
    """Indexes of the records that pending reads younger than 24 h still need."""
    lines = Lines()
    for rec in records:
        lines.done[rec["kind"]].append(rec)
    model = build(lines)
    young = [r for r in model.reads if r.ts >= now - DAY]
    if not young:
        return set()
    roots = model.roots
    reads: set[Any] = set()
    runs: set[str] = set()
    sessions: set[str] = set()
    credit_roots: set[str] = set()
    windows: list[int] = []
    for read in young:
        reads.add(read.ident)
        sessions.add(read.session)
        credit_roots.add(read.root)
        windows.append(read.ts)
        for run in model.runs.get(read.root, ()):
            if run.ts <= read.ts <= run.ts + DAY:
                runs.add(run.run)
                sessions.add(run.session)
    first = first_claims(lines.get("claim"))
    for rec in lines.get("run"):  # unsettled runs a young read could still join once claimed
        run_id, when = text(rec.get("run")), instant(rec.get("ts"))
        if run_id is None or when is None or settled_by(rec, first[run_id][1] if run_id in first else None):
            continue
        if any(when <= at <= when + DAY for at in windows):
            runs.add(run_id)
    children: set[str] = set()
    for session in sessions:
        children.update(roots.chain(session))
    for ident, consumed in model.consumed.items():
        if any(c.get("session") in credit_roots for c in consumed):
            reads.add(ident)
    keep: set[int] = set()
    for i, rec in enumerate(records):
        kind = rec["kind"]
        if kind == "evidence":
            hit = identity(rec) in reads
        elif kind == "consumed":
            hit = consumed_identity(rec) in reads
        elif kind in ("run", "claim"):
            hit = text(rec.get("run")) in runs
        else:
            hit = text(rec.get("child")) in children
        if hit:
            keep.add(i)
    return keep


def prune(cfg: Config, warn: Callable[[str], None], max_lines: int = MAX_LINES,
          max_age_days: int = MAX_AGE_DAYS) -> PruneResult:
    """Drop what is too old, then the oldest beyond ``max_lines``, under the log's lock; then write
    the reducer's checkpoint for what is left."""
    scope = cfg.active
    now = now_micros(cfg.env)
    result = PruneResult()
    with locked(scope.log_lock, "the recall log", lock_wait(cfg.env)):
        try:
            with open(scope.log_path, "rb") as fh:
                data = fh.read()
        except FileNotFoundError:
            return result
        raws = [raw for raw in data.split(b"\n") if raw.strip()]
        result.before = len(raws)
        pairs = [(raw, rec) for raw, rec in zip(raws, _decode(raws), strict=True) if rec is not None]
        result.malformed = result.before - len(pairs)
        records = [rec for _, rec in pairs]
        keep = _protected(records, now)
        result.protected = len(keep)
        alive = _survivors(records, keep, now - max_age_days * DAY, max_lines, result)
        result.after = sum(alive)
        kept = b"".join(pairs[i][0] + b"\n" for i in range(len(pairs)) if alive[i])
        if kept != data:  # (a torn last line or blank lines are tidied away too)
            write_atomic(scope.log_path, kept)
        _checkpoint(cfg, warn, [records[i] for i in range(len(records)) if alive[i]], kept, now)
    if result.malformed:
        warn(f"dropped {result.malformed} malformed line(s) from the recall log {scope.log_path}")
    return result


def _survivors(records: list[Record], keep: set[int], cutoff: int, max_lines: int,
               result: PruneResult) -> list[bool]:
    """Which records stay: units (a read and its consumed lines, or one line) dated by their oldest
    line, dropped when older than ``cutoff``, then oldest first down to ``max_lines``."""
    unit_of: dict[Any, int] = {}
    units: list[list[int]] = []
    for i, rec in enumerate(records):
        ident = (identity(rec) if rec["kind"] == "evidence"
                 else consumed_identity(rec) if rec["kind"] == "consumed" else None)
        if ident is None:
            units.append([i])
        elif ident in unit_of:
            units[unit_of[ident]].append(i)
        else:
            unit_of[ident] = len(units)
            units.append([i])
    alive = [True] * len(records)

    def when(unit: list[int]) -> int:
        return min(instant(records[i]["ts"]) or 0 for i in unit)

    droppable = sorted((u for u in units if not any(i in keep for i in u)), key=lambda u: (when(u), u[0]))
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
    return alive


def _checkpoint(cfg: Config, warn: Callable[[str], None], records: list[Record], data: bytes, now: int) -> None:
    """The reducer's checkpoint for the log as it is now (the caller holds the log's lock)."""
    scope = cfg.active
    try:
        st = os.stat(scope.log_path)
        lines = Lines()
        for rec in records:
            lines.done[rec["kind"]].append(rec)
        fields, body = checkpoint.compact(lines, build(lines), now, None)
        view = checkpoint.View((st.st_dev, st.st_ino), len(data), data[-checkpoint.TAIL:])
        checkpoint.save(scope, view, fields, body)
    except OSError as exc:
        warn(f"could not write the reducer's checkpoint ({exc}); the next Stop reads the whole log")
