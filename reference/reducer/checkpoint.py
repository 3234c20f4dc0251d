"""The checkpoint: a Stop reads only what was appended since the last one.

Beside the log lies a small file (``recall-log.checkpoint``): a header line of fixed width
(``HEAD`` bytes, JSON padded with spaces), the digest of dropped run ids (a JSON string), one
JSON line per recall subagent actor it keeps (``[session, agent id, since]``), then the log lines
any later decision can still need, in the log's own spelling. The header gives each part's
length in bytes, so the parts are read as they lie and never split or decoded whole: the digest
is searched in its JSON spelling, the makers of a session are found by its quoted name. A Stop
reads the file, reads the log's bytes past ``offset``, and builds its model from both; it decides
exactly what a reduce of the whole log would decide for the same sessions (a property test
compares them).

The header names the log it describes, so a pruned, replaced, truncated or edited log is
noticed: the device and inode of the file that was read, the offset (always at a line's end),
the bytes just before it, and the SHA-256 of every byte before it (``prefix``). It carries a check
of its own bytes, so a header read while it was being rewritten is noticed too, and the SHA-256
of the parts after it (``body``), so a checkpoint whose digest, makers or kept lines changed is
noticed. The prefix is checked by reading the log up to the offset; the same hash then takes in
the lines appended since, which gives the next checkpoint's prefix without a second pass, so the
check costs one hash of the log and no decoding. A checkpoint that does not match, cannot be read
or is missing means a full read, which writes a fresh one; one that is there but does not
describe the log is also said once (``View.rejected``, a warning of the reduce, which a Stop
writes to ``hook-debug.log``). It is derived data, written without an fsync, last in a reduce
(``commit.py``); a stale one is only slower.

Two ways to write it. Worked out again (``keep.compact``), it is written whole with
``storage.write_atomic``. Grown by the lines a Stop read (``keep.grown``), only those lines are
written, after the kept ones, and then the header, in place: a Stop's cost stays that of what is
new, not of the history the file keeps. The in-place write holds an ``flock`` on the file and
happens only when the header is still the one this reduce read (another Stop that wrote first
wins; a file replaced meanwhile is a different inode and is left alone). Bytes past the kept
lines that the header does not count (a write cut short) are never read.

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

import fcntl
import os

from ..state import jsontext
from ..state.storage import truncate, utf8, write_at, write_atomic
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

    from ..team.config import Scope
    from .logread import Maker, Record

VERSION = 4  # 3: digests of the covered log and of its own parts; 4: an unclaimed recall subagent run of OpenCode names its session's anonymous actor, linked or not
HEAD = 1024  # bytes of the header line, padding and newline included
SLACK = 3600 * 1_000_000  # microseconds a line may be older than the newest one without a full read
COMPACT_AFTER = 3600 * 1_000_000  # kept lines are worked out again when the horizon would move on this much
TAIL = 32  # bytes before the offset that the header remembers
PREFIX = 8  # characters of a dropped run id that the digest keeps


class View:
    """What a reduce read: the checkpoint and the lines since (``header`` set), or the whole log."""

    __slots__ = ("identity", "offset", "tail", "data", "header", "kept", "delta", "makers", "digest", "file",
                 "prefix", "rejected")

    def __init__(self, identity: tuple[int, int] | None, offset: int, tail: bytes, data: bytes = b"",
                 header: dict[str, Any] | None = None, kept: bytes = b"", delta: bytes = b"",
                 makers: Makers | None = None, digest: bytes = b'""', file: Stored | None = None,
                 prefix: str = "") -> None:
        self.identity = identity  # (device, inode) of the log that was read; None: there is no log
        self.offset = offset  # bytes of the log read, whole lines only
        self.tail = tail  # the last bytes before offset
        self.data = data  # the whole log, when it was read whole
        self.header = header  # the checkpoint's header, when it matched
        self.kept = kept  # the checkpoint's lines
        self.delta = delta  # the lines appended since the checkpoint
        self.makers = makers or Makers(b"")  # the recall subagent actors of the runs it dropped
        self.digest = digest  # the dropped run ids' prefixes: a JSON string, as the file holds it
        self.file = file  # the checkpoint file as it was read, for writing it in place
        self.prefix = prefix  # SHA-256 (hex) of the log's first ``offset`` bytes
        self.rejected: str | None = None  # why a checkpoint that was there was not used


def whole_view(identity: tuple[int, int], data: bytes) -> View:
    """The view of a log read whole (``data``: its whole lines), as retention and the conformance
    driver write a checkpoint for it."""
    return View(identity, len(data), data[-TAIL:], data=data, prefix=_sha256(data).hexdigest())


def _sha256(data: bytes = b"") -> Any:
    try:
        from _sha256 import sha256  # type: ignore[import-not-found]
    except ImportError:  # pragma: no cover - CPython builds _sha256
        from hashlib import sha256
    return sha256(data)


class Stored:
    """The checkpoint file a reduce read: its inode and header bytes, which must still be there for
    the lines it read to be added in place, and where its kept lines end."""

    __slots__ = ("identity", "head", "end", "body")

    def __init__(self, identity: tuple[int, int], head: bytes, end: int, body: Any) -> None:
        self.identity, self.head, self.end = identity, head, end
        self.body = body  # the SHA-256 of the parts after the header, as a hash object to carry on


def dropped_ids(digest: bytes) -> list[str]:
    """The prefixes a digest holds (decoded: only a compaction needs them all)."""
    try:
        text = jsontext.loads(digest)
    except ValueError:
        return []
    return text.split("\n") if isinstance(text, str) and text else []


class Makers:
    """The checkpoint's recall subagent actors, one JSON line each (``[session, agent id, since]``),
    kept as the file holds them and decoded only for the sessions a reduce asks about."""

    def __init__(self, blob: bytes) -> None:
        self.blob = blob  # the lines, each ending in a newline

    @staticmethod
    def line(maker: Maker, since: int) -> bytes:
        return utf8(jsontext.dumps([maker[0], maker[1], since], spaced=True))

    def of(self, sessions: set[str] | None = None) -> list[tuple[Maker, int]]:
        """The makers of ``sessions`` (None: all)."""
        blob = self.blob
        if sessions is None:
            chosen = blob.split(b"\n")
        else:
            chosen = jsontext.lines_naming(blob, sessions)
        out = []
        for line in chosen:
            if not line:
                continue
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


_CHECK = b', "check": "'
_FIELDS = {"v": int, "dev": int, "ino": int, "offset": int, "tail": str, "prefix": str, "horizon": int,
           "newest": int, "bad": int, "idle": int, "size": int, "digest": int, "makers": int, "kept": int,
           "body": str}


def _check(body: bytes) -> bytes:
    """The check of a header's fields (the JSON object without its check)."""
    return _sha256(body).hexdigest()[:16].encode()


def header_line(head: dict[str, Any]) -> bytes | None:
    """The header's bytes, padded to ``HEAD``; None when the fields do not fit."""
    body = utf8(jsontext.dumps(head, spaced=True))
    line = body[:-1] + _CHECK + _check(body) + b'"}'
    return line.ljust(HEAD - 1) + b"\n" if len(line) < HEAD else None


def _header(raw: bytes) -> dict[str, Any] | None:
    cut = raw.rfind(_CHECK)
    if len(raw) != HEAD or cut < 0:
        return None
    check = _check(raw[:cut] + b"}") + b'"}'
    if raw[cut + len(_CHECK):cut + len(_CHECK) + len(check)] != check:
        return None  # not this version's, or read while it was being rewritten
    try:
        head = jsontext.loads(raw)
    except ValueError:
        return None
    if not isinstance(head, dict) or head.get("v") != VERSION:
        return None
    if not all(isinstance(head.get(name), kind) for name, kind in _FIELDS.items()):
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
    rejected = None
    try:
        st = os.fstat(fd)
        ident = (st.st_dev, st.st_ino)
        if not whole:
            found = _load(scope.checkpoint_path)
            if isinstance(found, str):
                rejected = found
            elif found is not None:
                head, digest, makers, kept, stored = found
                if (head["dev"], head["ino"]) != ident:
                    rejected = "it describes another file than the log"
                elif head["offset"] > st.st_size:
                    rejected = "the log is shorter than the part it covers"
                else:
                    hashed = _sha256(_pread(fd, 0, head["offset"]))
                    if hashed.hexdigest() != head["prefix"]:
                        rejected = "the log's bytes before its offset changed"
                    else:
                        delta = complete(_pread(fd, head["offset"], st.st_size - head["offset"]))
                        hashed.update(delta)
                        offset = head["offset"] + len(delta)
                        return View(ident, offset, (head["tail"] + delta)[-TAIL:], header=head, kept=kept,
                                    delta=delta, makers=makers, digest=digest, file=stored, prefix=hashed.hexdigest())
        data = complete(_pread(fd, 0, st.st_size))
        view = whole_view(ident, data)
        view.rejected = rejected
        return view
    finally:
        os.close(fd)


def _load(path: str) -> tuple[dict[str, Any], bytes, Makers, bytes, Stored] | str | None:
    """The header, digest, makers and kept lines of a checkpoint file; None when there is none,
    or why it cannot be used. Each part is read where the header says it lies, from one open
    file, and checked against the header's digest of them."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except FileNotFoundError:
        return None
    except OSError:
        return "it cannot be read"
    try:
        st = os.fstat(fd)
        raw = _pread(fd, 0, HEAD)
        head = _header(raw)
        if head is None:
            return "its header is not this version's or does not check"
        sizes = (head["digest"], head["makers"], head["kept"])
        end = HEAD + sum(sizes)
        if min(sizes) < 0 or end > st.st_size:
            return "it is shorter than its header says"
        data = _pread(fd, HEAD, sum(sizes))
    except OSError:
        return "it cannot be read"
    finally:
        os.close(fd)
    body = _sha256(data)
    if body.hexdigest() != head["body"]:
        return "its lines do not match its header's digest of them"
    digest, makers, kept = data[:sizes[0]], data[sizes[0]:sizes[0] + sizes[1]], data[sizes[0] + sizes[1]:]
    if (digest[:1] != b'"' or digest[-2:] != b'"\n' or (makers and makers[-1:] != b"\n")
            or (kept and kept[-1:] != b"\n") or len(data) != end - HEAD):
        return "its parts are not whole"
    return head, digest[:-1], Makers(makers), kept, Stored((st.st_dev, st.st_ino), raw, end, body)


def follow(view: View) -> Lines | None:
    """The checkpoint's lines and the new ones, or None when a new line needs the whole log."""
    head = view.header
    assert head is not None
    lines = Lines(view.kept)
    known = _Known(lines, head["horizon"], b"\\n" + view.digest[1:-1] + b"\\n")
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

    def __init__(self, lines: Lines, horizon: int, digest: bytes) -> None:
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
        """Searched in the digest's JSON spelling (its separators are the two bytes ``\\n``): JSON
        escapes one character at a time, so an id's escaped prefix is there when the id is."""
        return b"\\n" + utf8(jsontext.quote(run_id[:PREFIX])[1:-1]) + b"\\n" in self.digest

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
    """Write the checkpoint whole for the log as ``view`` read it: the header, the digest, one line
    per maker, then the kept lines."""
    if view.identity is None:
        return
    digest = utf8(jsontext.dumps(fields["digest"], spaced=True)) + b"\n"
    makers = b"".join(line + b"\n" for line in fields["makers"])
    parts = b"".join([digest, makers, body])
    head = _fields(view, fields, len(digest), len(makers), len(body), _sha256(parts).hexdigest())
    line = header_line(head)
    if line is None:
        return  # counts too large to spell in the header: the next Stop reads the whole log
    write_atomic(scope.checkpoint_path, line + parts, durable=False)


def _fields(view: View, fields: dict[str, Any], digest: int, makers: int, kept: int, body: str) -> dict[str, Any]:
    assert view.identity is not None and view.prefix
    head = {k: fields[k] for k in ("horizon", "newest", "bad", "idle", "size")}
    head.update(v=VERSION, dev=view.identity[0], ino=view.identity[1], offset=view.offset, tail=view.tail.hex(),
                prefix=view.prefix, digest=digest, makers=makers, kept=kept, body=body)
    return head


def add(scope: Scope, view: View, fields: dict[str, Any], added: bytes) -> None:
    """Add the lines a Stop read to the checkpoint it read them through, in place: the lines after
    the kept ones, then the header. Nothing is written when another reduce wrote the file since it
    was read or is writing it (its checkpoint stands), nor when the file cannot be written in place
    (it is gone, or the header would not fit): the checkpoint as it was still describes the log it
    names, so it only makes the next Stop read more lines, until one works the lines out again."""
    stored, header = view.file, view.header
    if stored is None or view.identity is None or header is None:
        return
    grown = stored.body.copy()
    grown.update(added)
    head = _fields(view, fields, header["digest"], header["makers"], header["kept"] + len(added), grown.hexdigest())
    line = header_line(head)
    if line is None:
        return
    try:
        fd = os.open(scope.checkpoint_path, os.O_RDWR | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return  # gone, or a link: never written through
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        st = os.fstat(fd)
        if (st.st_dev, st.st_ino) != stored.identity or _pread(fd, 0, HEAD) != stored.head:
            return  # another reduce wrote it first: its checkpoint stands
        write_at(fd, added, stored.end)
        truncate(fd, stored.end + len(added))
        write_at(fd, line, 0)
    except OSError:
        return  # busy or failing: the checkpoint as it was still describes the log it names
    finally:
        os.close(fd)
