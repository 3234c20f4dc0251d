"""The checkpoint: a Stop reads only what was appended since the last one.

Beside the log (``recall-log.checkpoint``) lies a small file: a JSON header line, the digest of
dropped run ids (a JSON string), one JSON line per recall subagent actor it keeps
(``[session, agent id, since]``, decoded only for the sessions a reduce asks about), then the log
lines that any later decision can still need, in the log's own spelling. A Stop reads it, reads
the log's bytes past ``offset``, and builds its model from both; it decides exactly what a
reduce of the whole log would decide for the same sessions (a property test compares them).

The header names the log it describes, so a pruned, replaced or truncated log is noticed: the
device and inode of the file that was read, the offset (always at a line's end) and the bytes
just before it. A checkpoint that does not match, cannot be read or is missing means a full
read, which writes a fresh one. It is derived data: written with ``storage.write_atomic``
without an fsync, never locked, last in a reduce (``commit.py``); a stale one is only slower.

What it keeps (``keep.py``): for a horizon ``H`` an hour (``SLACK``) before the newest line, the
runs, claims, links, pending reads and consumed lines any read from ``H`` on, or any older read
that is still pending and adopts a doc, can need; of the rest, the recall subagent actors and the
run ids it dropped (``makers``, ``digest``) and two counts (``bad``, ``idle``).

Why nothing else is needed: a read older than ``H`` that adopts nothing can start to only if a
run, a settling claim or a link appears that reaches back past ``H`` (a recall subagent that
keeps it out ran before it, hence before ``H``, and stays its maker for the same reason). So a
Stop reads the whole log instead whenever a new line is a run or a read older than ``H``, a claim names a
dropped id or settles a run older than ``H`` anew, or a link changes a session's parent; the
only cost of reading the whole log is time. Lines arrive in ``ts`` order to within ``SLACK``,
so in practice that happens after a new link (an OpenCode child session), or a clock that jumped.

The kept lines grow with each Stop (the new lines are added as they are) until the new lines
would move the horizon on by more than ``COMPACT_AFTER``, or the kept lines have doubled, when
they are worked out again.
"""

from __future__ import annotations

import os

from .. import jsontext
from ..storage import utf8, write_atomic
from .logread import (
    KINDS,
    Lines,
    complete,
    instant,
    stamp_of,
    text,
    well_formed,
)
from .sessions import best_links
from .settle import claim_order, first_claims

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ..config import Scope
    from .logread import Record
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
        return utf8(jsontext.dumps([maker[0], maker[1], since], spaced=True))

    def of(self, sessions: set[str] | None = None) -> list[tuple[Maker, int]]:
        """The makers of ``sessions`` (None: all)."""
        if sessions is None:
            chosen = self.lines
        else:  # the lines holding one of the sessions, found in all of them at once, in their order
            blob = b"\n".join(self.lines)
            starts: set[int] = set()
            for needle in {utf8(jsontext.quote(session)) for session in sessions}:
                at = blob.find(needle)
                while at >= 0:
                    starts.add(blob.rfind(b"\n", 0, at) + 1)
                    at = blob.find(needle, at + 1)
            chosen = []
            for start in sorted(starts):
                end = blob.find(b"\n", start)
                chosen.append(blob[start:end if end >= 0 else len(blob)])
        out = []
        for line in chosen:
            try:
                session, agent, since = jsontext.loads(line)
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
        head = jsontext.loads(raw)
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
        digest = jsontext.loads(raw[first + 1:second])
    except ValueError:
        return none
    count = head["makers"]
    if count and not isinstance(digest, str):
        return none
    parts = raw[second + 1:].split(b"\n", count) if count else [raw[second + 1:]]
    if len(parts) <= count:  # fewer whole lines than the header names
        return none
    return head, digest, Makers(parts[:count]), parts[count]


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
            rec = jsontext.loads(raw)
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
        needle = b'"run":' + utf8(jsontext.quote(run_id))
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
                  if (kind := kind_of(line)) is not None], default="")
    latest = max(head["newest"], (instant(newest) or 0) if newest else 0)
    return min(latest, now) - SLACK - head["horizon"] > COMPACT_AFTER or len(view.kept) > 2 * head["size"] + (256 << 10)


def kind_of(line: bytes) -> str | None:
    cut = line.find(b'",')
    return _PREFIX.get(line[:cut + 2]) if cut > 0 else None


_PREFIX = {f'{{"kind":"{k}",'.encode(): k for k in KINDS}


def save(scope: Scope, view: View, fields: dict[str, Any], body: bytes) -> None:
    """Write the checkpoint for the log as ``view`` read it: the header, the digest, one line per
    maker, then the kept lines."""
    if view.identity is None:
        return
    makers: list[bytes] = fields["makers"]
    head = {k: v for k, v in fields.items() if k not in ("makers", "digest")}
    head.update(v=VERSION, dev=view.identity[0], ino=view.identity[1], offset=view.offset, tail=view.tail.hex(),
                makers=len(makers))
    data = b"\n".join([jsontext.dumps(head, spaced=True).encode(), utf8(jsontext.dumps(fields["digest"], spaced=True)),
                       *makers, b""]) + body
    write_atomic(scope.checkpoint_path, data, durable=False)
