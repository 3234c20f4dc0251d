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
harmless, but a read without its consumed line would vote again. Malformed lines (not JSON, no
known kind, no instant, cut short) are dropped and counted; a line in the log's own spelling is
judged by its bytes up to its ``ts`` and its closing brace, then, if it survives, checked as JSON
with the other survivors (one decode): one spoilt in between is dropped and counted then, as every
reader skips it (an old one goes as old, unread). Lines that survive are written back byte for
byte, in their original order.

Last, still under the lock, the reducer's checkpoint is worked out for the file as it now is, so
the next Stop reads only what is appended after the pull. Lines are judged from their bytes
where the log's own spelling allows (a 50,000-line log is pruned well within a second); only what
the young pending reads need is decoded one line at a time, and the survivors together.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..reducer import DAY, Lines, build, checkpoint, keep
from ..reducer.logread import (
    EVIDENCE_TAIL,
    KINDS,
    consumed_identity,
    identity,
    instant,
    raw_ids,
    run_of,
    text,
    well_formed,
)
from ..reducer.model import claims_for
from ..reducer.settle import settled_by
from ..team.config import Config
from . import jsontext
from .clock import now_micros, stamp_micros
from .logspool import fold
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


class _Log:
    """Each well-formed line of the log with its kind, ``ts`` and unit (a read and its consumed
    lines are one unit), read from the bytes where they are in the log's own spelling. Instants
    are kept as the text of ``clock.stamp``, which sorts in time order."""

    def __init__(self, data: bytes) -> None:
        self.lines: list[bytes] = []
        self.when: list[bytes] = []
        self.unit: list[Any] = []  # the read's identity (as bytes) for evidence and consumed lines, else None
        self.records: dict[int, dict[str, Any]] = {}  # lines decoded here (spelt otherwise)
        self.malformed = 0
        by_kind: dict[str, list[int]] = {kind: [] for kind in KINDS}
        pieces = data.split(b"\n")
        if pieces[-1] == b"":
            pieces.pop()
        # One pass over the whole log reads every line's kind and instant, and a read's session and
        # path. As many matches as lines, each line ending its object: every line is in the log's
        # own spelling (a blank line has no match, so there is none either).
        found = _PLAIN_ACROSS.findall(b"\n" + data)
        ends = data.count(b"}\n") + data.endswith(b"}")
        read_ids: list[Any] | None = None
        if len(found) == len(pieces) == ends and all(_hour_ok(hour) for hour in {f[1][:13] for f in found}):
            self.lines = pieces
            self.when = [f[1] for f in found]
            for at, f in enumerate(found):
                by_kind[_KIND[f[0]]].append(at)
            read_ids = [(f[1], f[3], f[4]) if f[2] else None for f in map(found.__getitem__, by_kind["evidence"])]
        elif pieces:
            self._one_by_one([raw for raw in pieces if raw.strip()], by_kind)
        unit: list[Any] = [None] * len(self.lines)
        for kind, ident in (("evidence", identity), ("consumed", consumed_identity)):
            ats = by_kind[kind]
            found_ids = read_ids if kind == "evidence" and read_ids is not None else \
                raw_ids([self.lines[at] for at in ats], kind)
            for at, raw_id in zip(ats, found_ids, strict=True):
                unit[at] = raw_id
            if self.records or None in found_ids:  # spelt otherwise: compared by their decoded values
                for at, raw_id in zip(ats, found_ids, strict=True):
                    if raw_id is None or at in self.records:
                        unit[at] = _as_bytes(ident(self.record(at)))
        self.unit = unit
        self.by_kind = by_kind
        self.units: dict[Any, list[int]] = {}  # a read -> its evidence and consumed lines
        for at in by_kind["evidence"] + by_kind["consumed"]:
            if unit[at] is not None:
                self.units.setdefault(unit[at], []).append(at)

    def _one_by_one(self, raws: list[bytes], by_kind: dict[str, list[int]]) -> None:
        found = [_PLAIN.match(raw) for raw in raws]
        hours = {m.group(2)[:13] for m in found if m is not None}
        bad_hours = {hour for hour in hours if not _hour_ok(hour)}
        for raw, m in zip(raws, found, strict=True):
            if m is not None and raw[-1:] == b"}" and (not bad_hours or m.group(2)[:13] not in bad_hours):
                kind, ts = _KIND[m.group(1)], m.group(2)
                by_kind[kind].append(len(self.lines))
                self.lines.append(raw)
                self.when.append(ts)
                continue
            rec = _decoded(raw)  # spelt otherwise, or malformed
            when = instant(rec["ts"]) if rec is not None else None
            if rec is None or when is None:
                self.malformed += 1
                continue
            self.records[len(self.lines)] = rec
            by_kind[rec["kind"]].append(len(self.lines))
            self.lines.append(raw)
            self.when.append(_sortable(when))

    def consumed_sessions(self) -> list[Any]:
        """The root session each consumed line credits, in ``by_kind["consumed"]`` order."""
        ats = self.by_kind["consumed"]
        found = _CONSUMED_SESSION.findall(b"\n" + b"\n".join([self.lines[at] for at in ats]))
        if len(found) == len(ats) and not any(at in self.records for at in ats):
            return [value.decode("utf-8", "replace") for value in found]
        return [self.record(at).get("session") for at in ats]

    def record(self, at: int) -> dict[str, Any]:
        """The decoded line (it is well formed)."""
        return self.records.get(at) or _decoded(self.lines[at]) or {}


_PLAIN = re.compile(rb'\{"kind":"(run|claim|evidence|link|consumed)",'
                    rb'"ts":"(\d{4}-\d\d-\d\dT\d\d:[0-5]\d:[0-5]\d\.\d{3}Z)"')
# The same at the start of each of many lines, with what names a read (as ``logread``'s evidence
# pattern reads it) when the line is one: kind, ts, the read's part (empty for other lines),
# session, path.
_PLAIN_ACROSS = re.compile(b"\n" + _PLAIN.pattern + b"(" + EVIDENCE_TAIL + b")?")
_KIND = {kind.encode(): kind for kind in KINDS}
_CONSUMED_SESSION = re.compile(rb'\n\{"kind":"consumed","ts":"[^"\\\n]*","session":"([^"\\\n]*)"')


def _as_bytes(ident: Any) -> Any:
    """A read's identity as the bytes the log's own spelling holds (units are keyed by these)."""
    return None if ident is None else tuple(part.encode("utf-8", "surrogateescape") for part in ident)


def _hour_ok(text: bytes) -> bool:
    try:
        return instant(text.decode("ascii") + ":00:00.000Z") is not None
    except UnicodeDecodeError:
        return False


def _sortable(value: int, up: bool = False) -> bytes:
    """An instant as the text ``clock.stamp`` writes, which sorts in time order (years 1-9999, all
    at four digits); ``up`` rounds up to the millisecond (a bound that lines stamped to the
    millisecond meet)."""
    if up:
        value = -(-value // 1000) * 1000
    if value < _YEAR_1:
        return b"0"
    if value >= _YEAR_10000:
        return b"a"
    return stamp_micros(value).encode("ascii")


_YEAR_1 = -62135596800 * 1_000_000
_YEAR_10000 = 253402300800 * 1_000_000


def _not_json(log: _Log, alive: list[bool]) -> list[int]:
    """The surviving lines that are not JSON after all. A line is read as the log's own spelling
    from how it starts and ends (kind, then ts, then ``}``), which a line edited by hand, nested
    too deeply or holding a byte that is not UTF-8 may match; every reader skips it, so it goes
    too. Only survivors are checked, in one decode: what is dropped anyway needs no reading (a
    whole 60,000-line log decoded here took pull half as long again and twice the memory)."""
    checked = [at for at, live in enumerate(alive) if live and at not in log.records]
    if not checked:
        return []
    try:
        batch = jsontext.loads(b"[" + b",".join(log.lines[at] for at in checked) + b"]")
    except ValueError:
        batch = None
    if batch is not None and len(batch) == len(checked):
        return []
    return [at for at in checked if _decoded(log.lines[at]) is None]


def _decoded(raw: bytes) -> dict[str, Any] | None:
    try:
        rec = jsontext.loads(raw)
    except ValueError:  # also a line nested too deeply to read (jsontext.loads)
        return None
    return rec if well_formed(rec) else None


def _protected(log: _Log, now: int) -> set[int]:
    """Indexes of the lines that pending reads younger than 24 h still need."""
    consumed = {log.unit[at] for at in log.by_kind["consumed"]}
    since = _sortable(now - DAY, up=True)
    young = [at for at in log.by_kind["evidence"]
             if log.when[at] >= since and log.unit[at] is not None and log.unit[at] not in consumed]
    if not young:
        return set()
    earliest = _sortable((instant(min(log.when[at] for at in young).decode("ascii")) or 0) - DAY, up=True)
    runs = [at for at in log.by_kind["run"] if log.when[at] >= earliest]
    run_ids = {_run_id(log, at) for at in runs}
    claims = [at for at in log.by_kind["claim"] if _run_id(log, at) in run_ids]
    links = log.by_kind["link"]
    sub = Lines(b"\n".join([log.lines[at] for at in links + young + runs + claims]))
    model = build(sub)
    roots = model.roots
    reads: set[Any] = set()
    keep_runs: set[str] = set()
    sessions: set[str] = set()
    credit_roots: set[str] = set()
    windows: list[int] = []
    for read in model.reads:
        reads.add(_as_bytes(read.ident))
        sessions.add(read.session)
        credit_roots.add(read.root)
        windows.append(read.ts)
        for run in model.runs.get(read.root, ()):
            if run.ts <= read.ts <= run.ts + DAY:
                keep_runs.add(run.run)
                sessions.add(run.session)
    window_runs = sub.get("run")
    first = claims_for(sub, {text(rec.get("run")) for rec in window_runs})
    for rec in window_runs:  # unsettled runs a young read could still join once claimed
        run_id, when = text(rec.get("run")), instant(rec.get("ts"))
        if run_id is None or when is None or settled_by(rec, first[run_id][1] if run_id in first else None):
            continue
        if any(when <= at <= when + DAY for at in windows):
            keep_runs.add(run_id)
    chains: set[str] = set()
    for session in sessions:
        chains.update(roots.chain(session))
    sessions_of = log.consumed_sessions()
    for at, root in zip(log.by_kind["consumed"], sessions_of, strict=True):
        if root in credit_roots:
            reads.add(log.unit[at])
    keep = {at for ident in reads for at in log.units.get(ident, ())}
    keep.update(at for at in runs + claims if _run_id(log, at) in keep_runs)
    keep.update(at for at in links if text(log.record(at).get("child")) in chains)
    return keep


def _run_id(log: _Log, at: int) -> str | None:
    if at in log.records:
        return text(log.records[at].get("run"))
    found = run_of(log.lines[at])
    return found if found is not None else text(log.record(at).get("run"))


def prune(cfg: Config, warn: Callable[[str], None], max_lines: int = MAX_LINES,
          max_age_days: int = MAX_AGE_DAYS) -> PruneResult:
    """Drop what is too old, then the oldest beyond ``max_lines``, under the log's lock; then write
    the reducer's checkpoint for what is left."""
    scope = cfg.active
    now = now_micros(cfg.env)
    result = PruneResult()
    with locked(scope.log_lock, "the recall log", lock_wait(cfg.env)):
        fold(scope.log_path)  # a hook's spooled lines are part of the log it prunes
        try:
            with open(scope.log_path, "rb") as fh:
                data = fh.read()
        except FileNotFoundError:
            return result
        log = _Log(data)
        result.before = len(log.lines) + log.malformed
        result.malformed = log.malformed
        keep = _protected(log, now)
        result.protected = len(keep)
        alive = _survivors(log, keep, _sortable(now - max_age_days * DAY, up=True), max_lines, result)
        for at in _not_json(log, alive):
            alive[at] = False
            result.malformed += 1
        result.after = sum(alive)
        kept = b"".join(line + b"\n" for line, live in zip(log.lines, alive, strict=True) if live)
        if kept != data:  # (a torn last line or blank lines are tidied away too)
            write_atomic(scope.log_path, kept)
        _checkpoint(cfg, warn, kept, now)
    if result.malformed:
        warn(f"dropped {result.malformed} malformed line(s) from the recall log {scope.log_path}")
    return result


def _survivors(log: _Log, keep: set[int], cutoff: bytes, max_lines: int, result: PruneResult) -> list[bool]:
    """Which lines stay: units (a read and its consumed lines, or one line) dated by their oldest
    line, dropped when older than ``cutoff``, then oldest first down to ``max_lines``.

    A unit is named by its first line; one stable sort by date puts the units in (date, first line)
    order, so the old ones are a prefix and the ones over the limit follow them."""
    when = log.when
    dated = list(when)  # a unit's date, at its first line
    grouped: dict[int, list[int]] = {}  # first line -> the unit, for units of several lines
    skip = set(keep)
    for unit in log.units.values():
        if len(unit) > 1:
            skip.update(unit)
            if not any(at in keep for at in unit):
                grouped[unit[0]] = unit
                dated[unit[0]] = min(when[at] for at in unit)
    firsts = [at for at in range(len(when)) if at not in skip] if skip else list(range(len(when)))
    firsts.extend(grouped)
    firsts.sort()
    firsts.sort(key=dated.__getitem__)
    alive = [True] * len(when)
    remaining = len(when)
    for first in firsts:
        if dated[first] >= cutoff and remaining <= max_lines:
            break
        members = grouped.get(first)
        size = 1 if members is None else len(members)
        if dated[first] < cutoff:
            result.old += size
        else:
            result.over += size
        remaining -= size
        if members is None:
            alive[first] = False
        else:
            for at in members:
                alive[at] = False
    return alive


def _checkpoint(cfg: Config, warn: Callable[[str], None], data: bytes, now: int) -> None:
    """The reducer's checkpoint for the log as it is now (the caller holds the log's lock)."""
    scope = cfg.active
    try:
        st = os.stat(scope.log_path)
        lines = Lines(data)
        fields, body = keep.compact(lines, build(lines, only_pending=True), now, None)
        view = checkpoint.whole_view((st.st_dev, st.st_ino), data)
        checkpoint.save(scope, view, fields, body)
    except OSError as exc:
        warn(f"could not write the reducer's checkpoint ({exc}); the next Stop reads the whole log")
