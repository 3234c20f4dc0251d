"""The checkpoint: a Stop reads only what was appended since the last one.

Beside the log (``recall-log.checkpoint``) lies a small file: one JSON header line, then the log
lines that any later decision can still need, in the log's own spelling. A Stop reads it, reads
the log's bytes past ``offset``, and builds its model from both; it decides exactly what a
reduce of the whole log would decide for the same sessions (a property test compares them).

The header names the log it describes, so a pruned, replaced or truncated log is noticed: the
device and inode of the file that was read, the offset (always at a line's end) and the bytes
just before it. A checkpoint that does not match, cannot be read or is missing means a full
read, which writes a fresh one. It is derived data: written with ``storage.write_atomic``
without an fsync, never locked, last in a reduce (``commit.py``); a stale one is only slower.

What the kept lines are, for a horizon ``H`` an hour (``SLACK``) before the newest line:

- every link that counts (each child's earliest);
- every run from ``H`` - 24 h on, and every run inside the window of a kept older read;
- the first claim of each kept run, and first claims of run ids the log has no run for (from
  ``H`` - 24 h on);
- pending reads whose status counts: all from ``H`` on, and older ones that adopt a doc now (a
  family whose Stop has not come yet);
- consumed lines whose read is within 24 h of a kept read or of ``H``, for the cover.

The header also keeps the recall subagent actors of runs it dropped, each with the ts of its
first marked run (``makers``), the ids of the
runs and claims it dropped (``digest``: their first 8 characters), and the counts of malformed
lines and of pending reads that can never count (``bad``, ``idle``).

Why nothing else is needed: a read older than ``H`` that adopts nothing can start to only if a
run, a settling claim or a link appears that reaches back past ``H`` (a recall subagent that
keeps it out ran before it, hence before ``H``, and stays its maker for the same reason). So a Stop reads
the whole log instead whenever a new line is a run or a read older than ``H``, a claim names a
dropped id or settles a run older than ``H`` anew, or a link changes a session's parent; the
only cost of reading the whole log is time. Lines arrive in ``ts`` order to within ``SLACK``,
so in practice that happens after a new link (an OpenCode child session), or a clock that jumped.

The kept lines grow with each Stop (the new lines are added as they are) until the new lines
would move the horizon on by more than ``COMPACT_AFTER``, or the kept lines have doubled, when
they are worked out again.
"""

from __future__ import annotations

import json
import os
from bisect import bisect_left

from ..clock import stamp_micros
from ..storage import write_atomic
from .join import counts, matches
from .logread import (
    CONSUMED_ID,
    DAY,
    KINDS,
    Lines,
    complete,
    consumed_identity,
    encode,
    identity,
    instant,
    maybe_recall_subagent,
    raw_ids,
    run_of,
    stamp_of,
    text,
    well_formed,
)
from .sessions import best_links
from .settle import claim_order, first_claims, settled_by

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ..config import Scope
    from .logread import Record
    from .model import Model
    from .settle import Maker

VERSION = 1
SLACK = 3600 * 1_000_000  # microseconds a line may be older than the newest one without a full read
COMPACT_AFTER = 3600 * 1_000_000  # kept lines are worked out again when the horizon would move on this much
TAIL = 32  # bytes before the offset that the header remembers
PREFIX = 8  # characters of a dropped run id that the digest keeps


class View:
    """What a reduce read: the checkpoint and the lines since (``header`` set), or the whole log."""

    __slots__ = ("identity", "offset", "tail", "data", "header", "kept", "delta", "makers")

    def __init__(self, identity: tuple[int, int] | None, offset: int, tail: bytes, data: bytes = b"",
                 header: dict[str, Any] | None = None, kept: bytes = b"", delta: bytes = b"",
                 makers: Makers | None = None) -> None:
        self.identity = identity  # (device, inode) of the log that was read; None: there is no log
        self.offset = offset  # bytes of the log read, whole lines only
        self.tail = tail  # the last bytes before offset
        self.data = data  # the whole log, when it was read whole
        self.header = header  # the checkpoint's header, when it matched
        self.kept = kept  # the checkpoint's lines
        self.delta = delta  # the lines appended since the checkpoint
        self.makers = makers or Makers([])  # the recall subagent actors of the runs it dropped


class Makers:
    """The checkpoint's recall subagent actors, one JSON line each (``[session, agent id, since]``),
    decoded only for the sessions a reduce asks about."""

    def __init__(self, lines: list[bytes]) -> None:
        self.lines = lines

    @staticmethod
    def line(maker: Maker, since: int) -> bytes:
        return json.dumps([maker[0], maker[1], since], ensure_ascii=False).encode("utf-8")

    def of(self, sessions: set[str] | None = None) -> list[tuple[Maker, int]]:
        """The makers of ``sessions`` (None: all)."""
        if sessions is None:
            chosen = self.lines
        else:
            needles = [json.dumps(session, ensure_ascii=False).encode("utf-8") for session in sessions]
            chosen = [line for line in self.lines if any(needle in line for needle in needles)]
        out = []
        for line in chosen:
            try:
                session, agent, since = json.loads(line)
            except ValueError:
                continue
            if (isinstance(session, str) and isinstance(agent, (str, type(None))) and isinstance(since, int)
                    and (sessions is None or session in sessions)):
                out.append(((session, agent), since))
        return out


def _pread(fd: int, start: int, size: int) -> bytes:
    parts = []
    while size > 0:
        chunk = os.pread(fd, size, start)
        if not chunk:
            break
        parts.append(chunk)
        start += len(chunk)
        size -= len(chunk)
    return b"".join(parts)


def _header(raw: bytes) -> dict[str, Any] | None:
    try:
        head = json.loads(raw)
    except ValueError:
        return None
    fields = {"v": int, "dev": int, "ino": int, "offset": int, "tail": str, "horizon": int, "newest": int,
              "bad": int, "idle": int, "makers": int, "size": int}
    if not isinstance(head, dict) or head.get("v") != VERSION:
        return None
    if not all(isinstance(head.get(name), kind) for name, kind in fields.items()):
        return None
    try:
        head["tail"] = bytes.fromhex(head["tail"])
    except ValueError:
        return None
    return head


def open_view(scope: Scope, whole: bool = False) -> View:
    """Read the log through the checkpoint when it matches (unless ``whole``), else all of it."""
    try:
        fd = os.open(scope.log_path, os.O_RDONLY)
    except FileNotFoundError:
        return View(None, 0, b"")
    try:
        st = os.fstat(fd)
        ident = (st.st_dev, st.st_ino)
        if not whole:
            head, digest, makers, kept = _load(scope.checkpoint_path)
            if (head is not None and (head["dev"], head["ino"]) == ident and head["offset"] <= st.st_size
                    and _pread(fd, head["offset"] - len(head["tail"]), len(head["tail"])) == head["tail"]):
                head["digest"] = digest
                delta = complete(_pread(fd, head["offset"], st.st_size - head["offset"]))
                offset = head["offset"] + len(delta)
                return View(ident, offset, (head["tail"] + delta)[-TAIL:], header=head, kept=kept, delta=delta,
                            makers=makers)
        data = complete(_pread(fd, 0, st.st_size))
        return View(ident, len(data), data[-TAIL:], data=data)
    finally:
        os.close(fd)


def _load(path: str) -> tuple[dict[str, Any] | None, str, Makers, bytes]:
    """The header, digest, makers and kept lines of a checkpoint file (a None header when it
    cannot be read)."""
    none = (None, "", Makers([]), b"")
    try:
        with open(path, "rb") as fh:
            raw = fh.read()
    except OSError:
        return none
    first = raw.find(b"\n")
    second = raw.find(b"\n", first + 1)
    head = _header(raw[:first]) if first >= 0 and second >= 0 else None
    if head is None:
        return none
    try:
        digest = json.loads(raw[first + 1:second])
    except ValueError:
        return none
    at, makers = second + 1, []
    for _ in range(head["makers"]):
        end = raw.find(b"\n", at)
        if end < 0 or not isinstance(digest, str):
            return none
        makers.append(raw[at:end])
        at = end + 1
    return head, digest, Makers(makers), raw[at:]


def follow(view: View) -> Lines | None:
    """The checkpoint's lines and the new ones, or None when a new line needs the whole log."""
    head = view.header
    assert head is not None
    lines = Lines(view.kept)
    known = _Known(lines, head["horizon"], "\n" + head["digest"] + "\n")
    for raw in view.delta.split(b"\n"):
        if not raw.strip():
            continue
        try:
            rec = json.loads(raw)
        except ValueError:
            rec = None
        if well_formed(rec) and known.needs_everything(rec):
            return None
        lines.add(raw)
    return lines


class _Known:
    """What the lines before a new line say about its run or session, read only when asked."""

    def __init__(self, lines: Lines, horizon: int, digest: str) -> None:
        self.lines, self.horizon, self.digest = lines, horizon, digest
        self.run_ts: dict[str, int | None] = {}  # run id -> earliest ts among the lines so far
        self.first: dict[str, Any] = {}  # run id -> order of its first claim so far (None: none)
        self.links: dict[str, tuple[int, str, Record]] | None = None

    def _naming(self, kind: str, run_id: str) -> list[Record]:
        needle = b'"run":' + json.dumps(run_id, ensure_ascii=False).encode("utf-8")
        raw = [line for line in self.lines.raw[kind] if needle in line]
        found = Lines(b"\n".join(raw)).get(kind) if raw else []
        return [rec for rec in found + self.lines.done[kind] if rec.get("run") == run_id]

    def _run_time(self, run_id: str) -> int | None:
        if run_id not in self.run_ts:
            times = [w for rec in self._naming("run", run_id) if (w := instant(rec.get("ts"))) is not None]
            self.run_ts[run_id] = min(times, default=None)
        return self.run_ts[run_id]

    def _first(self, run_id: str) -> Any:
        if run_id not in self.first:
            found = first_claims(self._naming("claim", run_id)).get(run_id)
            self.first[run_id] = found[0] if found else None
        return self.first[run_id]

    def _dropped(self, run_id: str) -> bool:
        return f"\n{run_id[:PREFIX]}\n" in self.digest

    def needs_everything(self, rec: Record) -> bool:
        """Whether a new line may change a decision about a read the checkpoint no longer holds."""
        kind, when = rec["kind"], instant(rec["ts"])
        if kind == "evidence":
            return when is not None and when < self.horizon  # its window reaches dropped runs
        if kind == "run":
            run_id = text(rec.get("run"))
            if when is None or run_id is None:
                return False  # it never settles
            if when < self.horizon or self._dropped(run_id):
                return True  # older reads may join it, or a dropped claim may settle it
            earlier = self._run_time(run_id)
            self.run_ts[run_id] = when if earlier is None else min(earlier, when)
            return False
        if kind == "claim":
            order = claim_order(rec)
            if order is None:
                return False
            run_id = rec["run"]
            if self._dropped(run_id):
                return True  # it names a run (or an older claim) the checkpoint dropped
            first = self._first(run_id)
            if first is not None and first <= order:
                return False  # a later claim changes nothing
            run_ts = self._run_time(run_id)
            if run_ts is not None and run_ts < self.horizon:
                return True  # it settles a run from before the horizon anew
            self.first[run_id] = order
            return False
        if kind == "link":
            if self.links is None:
                self.links = best_links(self.lines.get("link"))
            child, parent = text(rec.get("child")), text(rec.get("parent"))
            if child is None or parent is None or when is None or child == parent:
                return False
            if child not in self.links or (when, parent) < self.links[child][:2]:
                return True  # a session's root may change, for reads of any age
        return False


def due(view: View, now: int) -> bool:
    """Whether the kept lines should be worked out again rather than grow: the new lines would move
    the horizon on by more than ``COMPACT_AFTER``, or the kept lines have doubled."""
    head = view.header
    if head is None:
        return True
    newest = max([stamp_of(line, kind) or "" for line in view.delta.split(b"\n")
                  if (kind := _kind_of(line)) is not None], default="")
    latest = max(head["newest"], (instant(newest) or 0) if newest else 0)
    return min(latest, now) - SLACK - head["horizon"] > COMPACT_AFTER or len(view.kept) > 2 * head["size"] + (256 << 10)


def _kind_of(line: bytes) -> str | None:
    cut = line.find(b'",')
    return _PREFIX.get(line[:cut + 2]) if cut > 0 else None


_PREFIX = {f'{{"kind":"{k}",'.encode(): k for k in KINDS}


def compact(lines: Lines, model: Model, now: int, base: View | None) -> tuple[dict[str, Any], bytes]:
    """The header fields and kept lines for the log ``lines`` hold. ``model`` is built from them
    for every session (``only_pending`` or not); ``base`` is the checkpoint they were read
    through, if any. Lines are decoded only where the bytes cannot say."""
    head_base = base.header if base is not None else None
    base_makers = base.makers if base is not None else None
    newest = _newest(lines, now)
    horizon = min(newest, now) - SLACK
    low, recent = stamp_micros(horizon - DAY), stamp_micros(horizon)
    kept_reads: list[Record] = []
    older: list[int] = []
    idle = 0
    for read in model.reads:
        if read.counts and (read.ts >= horizon or matches(model, read)):
            kept_reads.append(model.records[read.ident])
            if read.ts < horizon:
                older.append(read.ts)
        else:
            idle += 1
    late = [line for line in model.idle if (stamp_of(line, "evidence") or recent) >= recent]
    idle += len(model.idle) - len(late)
    for rec in lines.decode("evidence", late):  # from the horizon on, every read that counts
        if counts(rec.get("status"), rec.get("simple")) and identity(rec) is not None:
            kept_reads.append(rec)
        else:
            idle += 1
    older.sort()
    cover = (min(horizon, older[0]) if older else horizon) - DAY

    # Runs from the horizon's day on, and in the windows of the older reads kept.
    run_ids: set[str] = set()
    dropped: set[str] = set()
    kept_raw: list[bytes] = []
    dropped_raw: list[bytes] = []
    odd: list[bytes] = []
    for line in lines.raw["run"]:
        run_id, ts = run_of(line), stamp_of(line, "run")
        if run_id is None or ts is None:
            odd.append(line)
            continue
        run_ids.add(run_id)
        if ts >= low or _in_a_window(older, instant(ts) or 0):
            kept_raw.append(line)
        else:
            dropped.add(run_id)
            if maybe_recall_subagent(line, b'"caller":', absent=True):
                dropped_raw.append(line)
    kept_runs = lines.decode("run", kept_raw)
    dropped_runs = lines.decode("run", dropped_raw)
    for rec in lines.decode("run", odd) + lines.done["run"]:
        run_id, when = text(rec.get("run")), instant(rec.get("ts"))
        if run_id is None:
            continue  # no claim can name it, and it never settles
        run_ids.add(run_id)
        if when is not None and (when >= horizon - DAY or _in_a_window(older, when)):
            kept_runs.append(rec)
        else:
            dropped.add(run_id)
            dropped_runs.append(rec)
    runs = [_trimmed(rec) for rec in kept_runs]
    kept_ids = {rec["run"] for rec in runs}

    # Claims: the first of each kept run, the first of each run id no run line names (from the
    # horizon's day on), and those that name the recall subagent of a dropped run.
    marked = {run_of(line) for line in lines.raw["claim"] if maybe_recall_subagent(line, b'"agent_type":', absent=False)}
    needed = kept_ids | {text(rec.get("run")) for rec in dropped_runs} | (marked & dropped)
    first = first_claims(lines.decode("claim", [line for line in lines.raw["claim"] if (run_id := run_of(line)) is None
                                                or run_id in needed or run_id not in run_ids])
                         + lines.done["claim"])
    claims: list[Record] = []
    for run_id, (order, rec) in first.items():
        if run_id in kept_ids or (run_id not in run_ids and order[0] >= horizon - DAY):
            claims.append(rec)
        elif run_id not in run_ids:
            dropped.add(run_id)
    makers: dict[Maker, int] = dict(base_makers.of()) if base_makers is not None else {}
    for rec in dropped_runs + lines.decode("run", [line for line in lines.raw["run"] if run_of(line) in marked & dropped
                                                   and line not in dropped_raw]):
        run_id, when = text(rec.get("run")), instant(rec.get("ts"))
        settled = settled_by(rec, first[run_id][1] if run_id in first else None) if run_id is not None else None
        if when is not None and settled is not None and settled[1] is not None:
            makers[settled[1]] = min(makers.get(settled[1], when), when)
    floor = stamp_micros(cover).encode()
    consumed_ids = raw_ids(lines.raw["consumed"], CONSUMED_ID)
    consumed = [line for line, raw_id in zip(lines.raw["consumed"], consumed_ids, strict=True)
                if raw_id is not None and raw_id[0] >= floor]
    odd = [line for line, raw_id in zip(lines.raw["consumed"], consumed_ids, strict=True) if raw_id is None]
    consumed.extend(encode(rec) for rec in lines.decode("consumed", odd) + lines.done["consumed"]
                    if (ident := consumed_identity(rec)) is not None and (w := instant(ident[0])) is not None
                    and w >= cover)
    links = [rec for _, _, rec in best_links(lines.get("link")).values()]
    digest = {run_id[:PREFIX] for run_id in dropped}
    if head_base and head_base["digest"]:
        digest.update(head_base["digest"].split("\n"))
    body = b"".join(line + b"\n" for line in [*(encode(rec) for rec in links + runs + claims), *consumed,
                                               *(encode(rec) for rec in kept_reads)])
    head = {"horizon": horizon, "newest": newest, "bad": (head_base["bad"] if head_base else 0) + lines.bad,
            "idle": (head_base["idle"] if head_base else 0) + idle,
            "makers": [Makers.line(maker, since) for maker, since in sorted(
                makers.items(), key=lambda m: (m[0][0], m[0][1] or "", m[1]))],
            "digest": "\n".join(sorted(digest)), "size": len(body)}
    return head, body


def _newest(lines: Lines, now: int) -> int:
    """The latest ``ts`` among the lines (``now`` when there is none)."""
    texts = [ts for kind in KINDS for line in lines.raw[kind] if (ts := stamp_of(line, kind)) is not None]
    best = instant(max(texts)) if texts else None
    others = [rec["ts"] for kind in KINDS for rec in lines.done[kind]]
    others += [rec["ts"] for kind in KINDS
               for rec in lines.decode(kind, [line for line in lines.raw[kind] if stamp_of(line, kind) is None])]
    stamps = [w for ts in others if (w := instant(ts)) is not None] + ([best] if best is not None else [])
    if texts and best is None:  # the greatest text is not an instant: judge every one
        stamps += [w for ts in texts if (w := instant(ts)) is not None]
    return max(stamps, default=now)


def _in_a_window(older: list[int], when: int) -> bool:
    """Whether a run at ``when`` lies in the 24 h window of one of the (sorted) read times."""
    at = bisect_left(older, when)
    return at < len(older) and older[at] <= when + DAY


def _trimmed(rec: Record) -> Record:
    """A run line with only the doc fields a decision reads."""
    docs = rec.get("docs")
    if not isinstance(docs, list):
        return rec
    short = [{k: d[k] for k in ("key", "path", "eligible") if k in d} if isinstance(d, dict) else d for d in docs]
    return {k: (short if k == "docs" else v) for k, v in rec.items()}


def grown(view: View) -> tuple[dict[str, Any], bytes]:
    """The header fields and kept lines when the new lines are simply added (malformed ones are
    counted instead)."""
    head = view.header
    assert head is not None
    fields = {k: head[k] for k in ("horizon", "idle", "digest", "size", "bad")}
    delta_newest = max([stamp_of(line, kind) or "" for line in view.delta.split(b"\n")
                        if (kind := _kind_of(line)) is not None], default="")
    fields["newest"] = max(head["newest"], (instant(delta_newest) or 0) if delta_newest else 0)
    fields["makers"] = view.makers.lines
    good = []
    for raw in view.delta.split(b"\n"):
        if not raw.strip():
            continue
        try:
            rec = json.loads(raw)
        except ValueError:
            rec = None
        if well_formed(rec):
            good.append(raw + b"\n")
        else:
            fields["bad"] += 1
    return fields, view.kept + b"".join(good)


def save(scope: Scope, view: View, fields: dict[str, Any], body: bytes) -> None:
    """Write the checkpoint for the log as ``view`` read it: the header, the digest, one line per
    maker, then the kept lines."""
    if view.identity is None:
        return
    makers: list[bytes] = fields["makers"]
    head = {k: v for k, v in fields.items() if k not in ("makers", "digest")}
    head.update(v=VERSION, dev=view.identity[0], ino=view.identity[1], offset=view.offset, tail=view.tail.hex(),
                makers=len(makers))
    data = b"\n".join([json.dumps(head).encode(), json.dumps(fields["digest"], ensure_ascii=False).encode("utf-8"),
                       *makers, b""]) + body
    write_atomic(scope.checkpoint_path, data, durable=False)
