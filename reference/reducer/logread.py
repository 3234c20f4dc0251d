"""Reading the recall log cheaply.

A Stop pays for a fresh interpreter, so the log is split into kinds by each line's first bytes and
a line is decoded only when its kind is asked for, many lines in one ``json.loads``. Identities
and a few fields are read straight from the bytes where the line is in the spelling the reference
writes (``runlog.encode``), and only outside any nested object (an extra field may hold the same
names); a line in any other spelling is decoded and judged like the rest, so a byte reader may
decline but never answer otherwise (``tests/reducer/test_byte_readers.py`` holds each to the decoder
over lines in every spelling). A line that is not UTF-8 is
malformed before any reader sees it, so a value cut out between quotes always decodes.

Instants are exact integers (microseconds, ``clock.micros``): a read exactly 24 h after a run or
after a credited read must compare equal, which floats do not promise.

A pending read is kept as a :class:`Read`, with whether its status lets it count (:func:`counts`)
and, for ``exact`` evidence, the printed paths in the spelling it is compared in
(:func:`comparable`): ``model`` builds them, ``join`` decides on them.
"""

from __future__ import annotations

from ..pathmatch import canonical
from ..state import jsontext
from ..state.clock import ClockError, micros
from ..state.storage import utf8

TYPE_CHECKING = False  # typing is not imported at run time: a Stop pays for every import
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    Record = dict[str, Any]
    EvidenceId = tuple[str, str, str]  # (ts, session, path) as written
    Maker = tuple[str, str | None]  # an actor: (session, agent id)

DAY = 24 * 3600 * 1_000_000  # microseconds
KINDS = ("run", "claim", "evidence", "link", "consumed")
_PREFIX = {f'{{"kind":"{k}",'.encode(): k for k in KINDS}


def complete(data: bytes) -> bytes:
    """The whole lines of ``data``: bytes after the last newline are a line still being written."""
    return data[:data.rfind(b"\n") + 1]


def _utf8(line: bytes) -> bool:
    """Whether a line is UTF-8: one that is not is malformed, and the byte readers never see it
    (they would read a field the decoder refuses)."""
    try:
        line.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


class Lines:
    """Log lines split by kind (a line that is not UTF-8 is malformed at once); a kind is decoded
    when it is first asked for, then kept."""

    def __init__(self, data: bytes = b"") -> None:
        self.raw: dict[str, list[bytes]] = {k: [] for k in KINDS}
        self.done: dict[str, list[Record]] = {k: [] for k in KINDS}
        self._undecodable = 0  # lines that were not a record of a known kind at all
        self._bad: set[int] = set()  # malformed raw lines met when decoding (by identity)
        self._decoded: dict[str, list[Record]] = {}
        raw, prefix = self.raw, _PREFIX
        for line in data.split(b"\n"):  # add(), written out: a Stop splits every kept line
            cut = line.find(b'",')
            kind = prefix.get(line[:cut + 2]) if cut > 0 else None
            if kind is not None and (line.isascii() or _utf8(line)):
                raw[kind].append(line)
            elif line:
                self.add(line)

    def add(self, line: bytes) -> None:
        if not line.strip():
            return
        cut = line.find(b'",')
        kind = _PREFIX.get(line[:cut + 2]) if cut > 0 else None
        if kind is not None and (line.isascii() or _utf8(line)):
            self.raw[kind].append(line)
            self._decoded.pop(kind, None)
            return
        rec = self._decode(line)
        if rec is not None:
            self.done[rec["kind"]].append(rec)
            self._decoded.pop(rec["kind"], None)

    @property
    def bad(self) -> int:
        """Malformed lines met so far."""
        return self._undecodable + len(self._bad)

    def _decode(self, line: bytes) -> Record | None:
        try:
            rec = jsontext.loads(line)
        except ValueError:
            rec = None
        if well_formed(rec):
            return rec  # type: ignore[no-any-return]
        self._undecodable += 1
        return None

    def get(self, kind: str) -> list[Record]:
        """Every record of ``kind``."""
        if kind in self._decoded:
            return self._decoded[kind]
        out = self._decoded[kind] = list(self.done[kind]) + self.decode(kind, self.raw[kind])
        return out

    def decode(self, kind: str, raw: list[bytes]) -> list[Record]:
        """The records of some of this object's raw lines of ``kind`` (malformed ones are counted)."""
        out: list[Record] = []
        try:  # one decode for the whole batch is much cheaper than one per line
            batch = jsontext.loads(b"[" + b",".join(raw) + b"]")
        except ValueError:
            batch = None
        if batch is None or len(batch) != len(raw):
            batch = []
            for line in raw:
                try:
                    batch.append(jsontext.loads(line))
                except ValueError:
                    batch.append(None)
        for line, rec in zip(raw, batch, strict=True):
            if well_formed(rec) and rec["kind"] == kind:
                out.append(rec)
            else:
                self._bad.add(id(line))
        return out


_TS_AT = {kind: len(f'{{"kind":"{kind}","ts":"') for kind in KINDS}


def stamp_of(line: bytes, kind: str) -> str | None:
    """The ``ts`` of a raw line of ``kind`` in the log's own spelling, as written (instants in
    that spelling sort as text); None when the line is spelt otherwise."""
    at = _TS_AT[kind]
    if line[at + 23:at + 25] == b'Z"' and line[at - 6:at] == b'"ts":"':
        return line[at:at + 24].decode("ascii", "replace")
    return None


def well_formed(rec: Any) -> bool:
    return isinstance(rec, dict) and rec.get("kind") in KINDS and isinstance(rec.get("ts"), str)


_EPOCHS: dict[str, int] = {}


def instant(text: Any) -> int | None:
    """Microseconds since the epoch for a ts as written, or None when it is not an instant."""
    if not isinstance(text, str):
        return None
    value = _EPOCHS.get(text)
    if value is None:
        try:
            value = micros(text)
        except (ClockError, ValueError, OverflowError):
            return None
        _EPOCHS[text] = value
    return value


def text(value: Any) -> str | None:
    """A non-empty string field, else None."""
    return value if isinstance(value, str) and value else None


def agent_id(actor: Any) -> str | None:
    return text(actor.get("agent_id")) if isinstance(actor, dict) else None


def agent_type(actor: Any) -> str | None:
    return text(actor.get("agent_type")) if isinstance(actor, dict) else None


def identity(rec: Record) -> EvidenceId | None:
    """How a read is known: its ts, session and path as written."""
    ts, session, path = rec.get("ts"), rec.get("session"), rec.get("path")
    if isinstance(ts, str) and isinstance(session, str) and isinstance(path, str):
        return (ts, session, path)
    return None


def consumed_identity(rec: Record) -> EvidenceId | None:
    """The read a consumed line settles."""
    ev = rec.get("evidence")
    return identity(ev) if isinstance(ev, dict) else None


class Read:
    """A pending read (an evidence line with no consumed line)."""

    __slots__ = ("ident", "ts", "session", "root", "actor", "path", "exact", "counts")

    def __init__(self, ident: EvidenceId, ts: int, session: str, root: str, actor: Maker, path: str,
                 exact: bool, counts: bool) -> None:
        self.ident, self.ts, self.session, self.root, self.actor = ident, ts, session, root, actor
        self.path, self.exact = path, exact
        self.counts = counts  # its status lets it count


def counts(status: object, simple: object) -> bool:
    """Whether a read's status lets it count: a failed call never does, an unknown one only when
    it was a simple read."""
    return status == "success" or (status == "unknown" and simple is True)


_COMPARABLE: dict[str, str] = {}


def comparable(path: str) -> str:
    """The printed path in the spelling exact evidence uses (``pathmatch.canonical``); a plain
    POSIX path is already in it, so the costly fold runs only for unusual spellings."""
    if "\\" not in path and "/." not in path and "//" not in path and path[1:2] != ":":
        return path
    value = _COMPARABLE.get(path)
    if value is None:
        value = _COMPARABLE[path] = canonical(path)
    return value


def _outermost(line: bytes, at: int) -> bool:
    """Whether the key at ``at`` belongs to the line's own object: no other object opens before it.

    In JSON a quote, a name and a quote followed by a colon can only be a key (a quote inside a
    string is escaped), but it may be the key of a nested object (an extra field an implementation
    added, holding the same names); the decoder reads the outer one. A ``{`` inside a string before
    the key only makes the reader decline."""
    return line.find(b"{", 1, at) < 0


def _value_at(line: bytes, at: int) -> tuple[bytes, int] | None:
    """The plain string value starting at ``at`` (no escape, no quote, no newline) and the index
    of its closing quote."""
    end = line.find(b'"', at)
    if end < 0:
        return None
    value = line[at:end]
    if b"\\" in value or b"\n" in value:
        return None
    return value, end


_EVIDENCE_HEAD = b'{"kind":"evidence","ts":"'
_CONSUMED_HEAD = b'"evidence":{"ts":"'


def evidence_id(line: bytes) -> tuple[bytes, ...] | None:
    """(ts, session, path) of an evidence line as the log spells it, read from its bytes: the line
    starts ``{"kind":"evidence","ts":"…","session":"…","agent":…,"actor":{…},"path":"…"``, every
    value plain (no escape); None for any other spelling (the line is then decoded)."""
    if not line.startswith(_EVIDENCE_HEAD):
        return None
    ts = _value_at(line, len(_EVIDENCE_HEAD))
    if ts is None or line[ts[1]:ts[1] + 13] != b'","session":"':
        return None
    session = _value_at(line, ts[1] + 13)
    if session is None or line[session[1]:session[1] + 10] != b'","agent":':
        return None
    at = session[1] + 10
    if line[at:at + 4] == b"null":
        at += 4
    else:
        agent = _value_at(line, at + 1) if line[at:at + 1] == b'"' else None
        if agent is None:
            return None
        at = agent[1] + 1
    if line[at:at + 10] != b',"actor":{':
        return None
    close = line.find(b"}", at + 10)
    if close < 0 or b"{" in line[at + 10:close] or b"\n" in line[at + 10:close]:
        return None
    if line[close:close + 10] != b'},"path":"':
        return None
    path = _value_at(line, close + 10)
    return None if path is None else (ts[0], session[0], path[0])


def consumed_id(line: bytes) -> tuple[bytes, ...] | None:
    """(ts, session, path) of the read a consumed line settles, from its bytes: its
    ``"evidence":{"ts":"…","session":"…","path":"…"}`` with plain values, outside any other object;
    None otherwise (the line is then decoded)."""
    at = line.find(_CONSUMED_HEAD)
    if at < 0 or not _outermost(line, at):
        return None
    return _consumed_at(line, at + len(_CONSUMED_HEAD))


def _consumed_at(line: bytes, at: int) -> tuple[bytes, ...] | None:
    ts = _value_at(line, at)
    if ts is None or line[ts[1]:ts[1] + 13] != b'","session":"':
        return None
    session = _value_at(line, ts[1] + 13)
    if session is None or line[session[1]:session[1] + 10] != b'","path":"':
        return None
    path = _value_at(line, session[1] + 10)
    if path is None or line[path[1]:path[1] + 2] != b'"}':
        return None
    return ts[0], session[0], path[0]


# The same readers as patterns, for reads of many lines (``pull``, a Stop with no checkpoint): one
# ``findall`` over them all is far quicker than a call per line, and ``re`` is then a small part of
# the cost. ``_PATTERNS`` read one line (``match``); ``_ACROSS`` read lines joined by line breaks,
# each match starting at a line break and within one line, so at most one per line, and the matches
# line up with the lines when there are as many. ``tests/test_string_readers.py`` holds them to
# agree with the readers.
#
# What follows an evidence line's ts, up to its path (``retention`` reads it with every line's ts).
EVIDENCE_TAIL = rb',"session":"([^"\\\n]*)","agent":(?:"[^"\\\n]*"|null),"actor":\{[^{}\n]*\},"path":"([^"\\\n]*)"'
_PATTERNS = {
    "evidence": rb'(?m)^\{"kind":"evidence","ts":"([^"\\\n]*)"' + EVIDENCE_TAIL,
    "consumed": (rb'(?m)^(?:[^\n][^{\n]*?)?"evidence":\{"ts":"([^"\\\n]*)","session":"([^"\\\n]*)",'
                 rb'"path":"([^"\\\n]*)"\}'),
}
_ACROSS = {kind: b"\n" + found.removeprefix(b"(?m)^") for kind, found in _PATTERNS.items()}
MANY = 256  # lines from which a pattern reads them
_COMPILED: dict[str, Any] = {}


def pattern(kind: str, across: bool = False) -> Any:
    """The compiled pattern of one ``evidence`` or ``consumed`` line, or ``across`` lines joined by
    line breaks (``re`` is imported here, not by a hook that never needs it)."""
    key = f"{kind} across" if across else kind
    if key not in _COMPILED:
        import re

        _COMPILED[key] = re.compile((_ACROSS if across else _PATTERNS)[kind])
    return _COMPILED[key]


def raw_ids(raw: list[bytes], kind: str) -> list[tuple[bytes, ...] | None]:
    """The (ts, session, path) of each raw line of ``kind`` (``evidence`` or ``consumed``) as bytes;
    None where the line is not in the plain spelling (it is decoded and compared properly later)."""
    if len(raw) < MANY:
        reader = evidence_id if kind == "evidence" else consumed_id
        return [reader(line) for line in raw]
    every = pattern(kind, across=True).findall(b"\n" + b"\n".join(raw))
    if len(every) == len(raw):
        return every  # type: ignore[no-any-return]
    found = pattern(kind)
    return [(m.groups() if (m := found.match(line)) else None) for line in raw]


def session_of(line: bytes) -> str | bytes | None:
    """The ``session`` value of a raw run line without decoding it: a str, None for null, or the
    raw line itself when the cheap read is not sure (then the caller decodes it)."""
    at = line.find(b'"session":')
    if at < 0 or not _outermost(line, at):
        return line
    rest = line[at + 10:at + 14]
    if rest == b"null":
        return None
    if not rest.startswith(b'"'):
        return line
    end = line.find(b'"', at + 11)
    value = line[at + 11:end]
    if end < 0 or b"\\" in value:
        return line
    return value.decode()


def run_of(line: bytes) -> str | None:
    """The ``"run"`` value of a raw line (run, claim and consumed lines name one); None when there
    is none, it is spelt with an escape or it may belong to a nested object (the caller then decodes
    the line)."""
    at = line.find(b'"run":"')
    if at < 0 or not _outermost(line, at):
        return None
    end = line.find(b'"', at + 7)
    if end < 0:
        return None
    value = line[at + 7:end]
    return None if b"\\" in value else value.decode()


def path_values(blob: bytes, comparable: Callable[[str], str]) -> list[str]:
    """Every ``"path"`` value in some raw run lines, in both spellings (``bytes.find`` is far
    quicker than a regular expression over a megabyte of lines)."""
    out: list[str] = []
    needle = b'"path":"'
    if blob.count(needle) != blob.count(b'"path"'):  # a path key spelt with a space, or not a string
        return _decoded_paths(blob, comparable)
    at = blob.find(needle)
    while at >= 0:
        start = at + 8
        end = blob.find(b'"', start)
        raw = blob[start:end]
        if end < 0 or b"\\" in raw:  # an escaped path somewhere: let the JSON decoder spell them
            return _decoded_paths(blob, comparable)
        path = raw.decode()
        out.append(path)
        out.append(comparable(path))
        at = blob.find(needle, end)
    return out


def _decoded_paths(blob: bytes, comparable: Callable[[str], str]) -> list[str]:
    paths: list[str] = []
    for line in blob.split(b"\n"):
        try:
            docs = jsontext.loads(line).get("docs")
        except (ValueError, AttributeError):
            continue
        if isinstance(docs, list):
            paths.extend(d["path"] for d in docs if isinstance(d, dict) and text(d.get("path")))
    return [p for path in paths for p in (path, comparable(path))]


def maybe_recall_subagent(line: bytes, field: bytes, absent: bool) -> bool:
    """Whether the value of ``field`` (``"caller":`` of a run, ``"agent_type":`` of a claim) in a
    raw line may be ``teamai-recall``; ``absent`` is the answer when the field is not there in
    plain spelling. Unsure lines say yes (the caller decodes them)."""
    if b"\\u" in line:
        return True  # an escaped key or value: let the decoder say
    at = line.find(field)
    if at < 0:
        return absent
    if line.find(field, at + 1) >= 0:
        return True  # the name twice: one of them is in a nested object
    value = line[at + len(field):at + len(field) + 15]
    return value == b'"teamai-recall"' or not (value.startswith(b"null") or value.startswith(b'"'))


def encode(rec: Record) -> bytes:
    """A record in the log's own spelling (``runlog.encode``), without the newline."""
    return utf8(jsontext.dumps(rec))
