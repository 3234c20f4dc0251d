"""The votes ledger of one scope, in teamai's shape and spelling::

    version: 2
    votes:
      redis-timeout:
        recalled_count: 1
        upvoted_count: 0
        last_recalled_at: 2026-11-30T10:00:00.000Z
    deltas:
      redis-timeout:
        recalled_delta: 1
        upvoted_delta: 0

teamai 0.25 reads and writes the same file (its ``YAML.stringify``), and its sync pushes
``deltas`` to the team, so a write here keeps everything the file holds: ``deltas``, and every
key neither tool knows, at the top and in each entry. A write is whole and atomic (temp file,
rename), under the ledger's lock with a bounded wait.

Counts are raised the way teamai's ``incrementRecalled`` / ``incrementUpvoted`` raise them: an
entry created for a key is ``{recalled_count: 0, upvoted_count: 0, last_recalled_at: ""}``
(``ledger_write.empty_entry``), and every raise of a count (:class:`raising`) raises the key's
``recalled_delta`` / ``upvoted_delta`` by as much (a delta created for a key starts at 0 and 0).
Callers only raise counts; the deltas follow in one place.

This module holds what the ledger means: its shape (:func:`parse`, a version 1 ledger migrated),
what observers see (:func:`read`), and how counts are raised, under the lock and all or nothing.
Its YAML is the file format's: ``ledger_read`` reads the text (teamai's block spelling without
PyYAML, any other through it) and ``ledger_write`` spells the document (whole, or the raised
entries in place). A ledger that does not parse into this shape is never overwritten: it is moved
aside (``votes.yaml.corrupt-<instant>``) and the move is named, in one line: text that is not YAML,
another version, counts that are not non-negative integers, deltas that are not integers. A
missing section reads as empty and a missing count as 0; a leading byte order mark is no part of
the first key and is not written back (``tests/test_ledger_hand_edits.py``: any hand edit is raised
with everything else kept, or moved aside byte for byte). A ledger only PyYAML can read, in a
process that cannot import PyYAML, is left untouched (``ledger_read.YamlUnavailable``): recall
warns and prints its hits, a Stop notes it in the debug log and its reads stay pending. Observers
(``stats``, the conformance driver's ``observe``) see :func:`read`: the four counters per key, an
instant never set as null.
"""

from __future__ import annotations

import os

from . import jsontext, storage
from .ledger_read import CorruptLedger, _fast_parse, _plain_data, _unmarked, _yaml_parse
from .ledger_write import COUNTS, FIELDS, _splice, dump, empty_entry
from .storage import locked, write_atomic

TYPE_CHECKING = False  # typing is imported only by type checkers: it costs a fresh process ~4 ms
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    Document = dict[str, Any]
    Votes = dict[str, dict[str, Any]]

VERSION = 2


def new_document() -> Document:
    return {"version": VERSION, "votes": {}, "deltas": {}}


# --- the shape ----------------------------------------------------------------------------------

def _count(value: Any) -> bool:
    return type(value) is int and value >= 0


def _shape(data: Any) -> Document:
    """Check the document's shape and make the little teamai's reader would make of it: missing
    sections and counts become empty and 0, a version 1 ledger is migrated as teamai migrates it."""
    if data is None:
        return new_document()
    if not isinstance(data, dict):
        raise CorruptLedger(f"not a votes ledger (the top level is a {type(data).__name__})")
    version = data.get("version")
    votes = data.get("votes")
    if votes is None:
        votes = data["votes"] = {}
    if not isinstance(votes, dict):
        raise CorruptLedger("not a votes ledger (votes is not a mapping)")
    if version is None and votes and all(isinstance(e, dict) and "recalled_count" not in e
                                         and "upvoted_count" not in e for e in votes.values()):
        for key, old in list(votes.items()):  # teamai's migrateV1ToV2
            votes[key] = {"recalled_count": 1, "upvoted_count": 0, "last_recalled_at": old.get("at", "")}
        data["deltas"] = {}
    if version is None:
        data = {"version": VERSION, **data}
    elif version != VERSION:
        raise CorruptLedger(f"version {version!r} is not a version this reference reads")
    for key, entry in votes.items():
        if not isinstance(entry, dict):
            raise CorruptLedger(f"entry {key!r} is not a mapping")
        for name, _delta in COUNTS:
            if name not in entry:
                entry[name] = 0
            elif not _count(entry[name]):
                raise CorruptLedger(f"{key}.{name} is not a count")
    deltas = data.get("deltas")
    if deltas is None:
        deltas = data["deltas"] = {}
    if not isinstance(deltas, dict):
        raise CorruptLedger("not a votes ledger (deltas is not a mapping)")
    for key, delta in deltas.items():
        if not isinstance(delta, dict):
            raise CorruptLedger(f"delta {key!r} is not a mapping")
        for _name, name in COUNTS:
            if name in delta and type(delta[name]) is not int:
                raise CorruptLedger(f"delta {key}.{name} is not a number")
    return data


def parse(text: str) -> Document:
    """The whole document: ``version``, ``votes``, ``deltas`` and whatever else it holds.

    Raises :class:`CorruptLedger` for text that is not a ledger, :class:`YamlUnavailable` when only
    PyYAML could read it and it cannot be imported.
    """
    text = _unmarked(text)
    data = _fast_parse(text)
    if data is None:
        data = _plain_data(_yaml_parse(text))
    return _shape(data)


def view(document: Document) -> Votes:
    """Vote key to the four counters an observer compares; an instant never set reads None."""
    out: Votes = {}
    for key, entry in (document.get("votes") or {}).items():
        item: dict[str, Any] = {}
        for name in FIELDS:
            value = entry.get(name)
            if name.endswith("_count"):
                item[name] = value if type(value) is int else 0
            else:
                item[name] = str(value) if value not in (None, "") else None
        out[key] = item
    return out


def _read_text(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.read()
    except FileNotFoundError:
        return None
    except UnicodeDecodeError as exc:
        raise CorruptLedger("not UTF-8") from exc


def load(path: str) -> Document:
    """The ledger's document (a new one when there is no file)."""
    text = _read_text(path)
    return new_document() if text is None else parse(text)


def read(path: str) -> Votes:
    """The ledger's votes as observers see them; raises :class:`CorruptLedger` for a file that is not
    a ledger."""
    return view(load(path))


def _set_aside(path: str, stamp: str) -> str:
    aside = f"{path}.corrupt-{stamp.replace(':', '')}"
    n = 1
    while os.path.exists(aside):
        n += 1
        aside = f"{path}.corrupt-{stamp.replace(':', '')}-{n}"
    storage.rename(path, aside)
    return aside


def _raise_deltas(document: Document, before: dict[str, tuple[int, ...]]) -> None:
    """Every change of a count since the ledger was read goes into the key's delta, as teamai's
    ``incrementRecalled`` / ``incrementUpvoted`` do it."""
    deltas = document["deltas"]
    for key, entry in document["votes"].items():
        old = before.get(key, (0, 0))
        for i, (count, delta_name) in enumerate(COUNTS):
            change = entry.get(count, 0) - old[i]
            if change:
                delta = deltas.get(key)
                if not isinstance(delta, dict):
                    delta = deltas[key] = {"recalled_delta": 0, "upvoted_delta": 0}
                delta[delta_name] = delta.get(delta_name, 0) + change


# --- raising counts: what a recall and a Stop do -------------------------------------------------

_SEAL = b"ledger-sha256 "  # what the lock file holds: the digest of the ledger this module last wrote


def _digest(data: bytes) -> str:
    try:
        from _sha256 import sha256  # type: ignore[import-not-found]
    except ImportError:  # pragma: no cover - CPython builds _sha256
        from hashlib import sha256
    return str(sha256(data).hexdigest())


class raising:  # noqa: N801 - used as a function: ``with raising(...) as tally:``
    """Lock the ledger, take the counts to raise (:meth:`add`), and write them when the block ends
    without an error, with their deltas, as a whole read and write of the document gives them.

    A recall and a Stop raise a few counts in a ledger of thousands of entries. Reading and writing
    the whole document each time made the ledger the largest cost of a Stop on a large team, so
    when the file holds exactly the text this module wrote last (its digest is kept in the lock
    file, written under the lock), only the entries raised are read and rewritten, in place in
    that text. Any other file (teamai wrote it, a person edited it, the digest is missing) is read
    and written whole. Both ways give the same bytes (``tests/test_ledger_raising.py``).

    Writes of other files that must land with the ledger's (the per-session ledger's, at a Stop)
    are given to :meth:`together`. Then the whole change is first recorded in an intent
    (``votes.yaml.intent``, ``storage.write_intent``: the ledger's digest before and after, the
    raises, the other writes), made, and the intent removed. Whoever next takes the lock finishes
    an intent it finds (a process that died part way): the other writes are made again (each
    gives the same bytes however often it is made), and the ledger is written as recorded when it
    still holds the text it held before; when something else wrote it since, the recorded raises
    are made in what it holds now. So a crash at any point leaves both files as if the write had
    happened whole, or not at all."""

    def __init__(self, path: str, lock_path: str, wait: float, stamp: str, warn: Callable[[str], None]) -> None:
        self.path, self.stamp, self.warn = path, stamp, warn
        self.lock = locked(lock_path, "the votes ledger", wait)
        self.raises: list[tuple[str, str, str, str]] = []  # (key, count, instant field, instant)
        self.data: bytes | None = None  # the file's bytes, when they are this module's own text
        self.document: Document | None = None  # otherwise the document, read whole
        self.companions: list[tuple[Any, ...]] = []  # ("at", path, offset, data) or ("whole", path, data)
        self.before: str | None = None  # the digest of the file as read (None: no file)
        self.recovered = False  # an intent's raises are among ours: it is removed once they are written

    def __enter__(self) -> raising:
        self.lock.__enter__()
        try:
            self._recover()
            self._collect()
            self._read()
        except BaseException:
            self.lock.__exit__()
            raise
        return self

    def together(self, op: tuple[Any, ...]) -> None:
        """Write ``op`` with the ledger, all or nothing: ``("at", path, offset, data)`` cuts the file
        at ``offset`` and writes ``data`` there (``storage.write_after``), ``("whole", path, data)``
        replaces it (``storage.write_atomic``)."""
        self.companions.append(op)

    def _recover(self) -> None:
        intent = storage.intent_path(self.path)
        parts = storage.read_intent(intent)
        if parts is None:
            if os.path.lexists(intent):  # not a whole intent: it was never acted on
                storage.unlink(intent)
            return
        meta = jsontext.loads(parts[0])
        for op, data in zip(meta["ops"], parts[2:], strict=True):
            _apply((*op, data))
        current = _read_bytes(self.path)
        now = _digest(current) if current is not None else None
        if now != meta["after"]:
            if now == meta["before"]:
                self._put(parts[1])
            else:  # written by something else since: make the recorded raises in what it holds
                self.raises.extend((str(a), str(b), str(c), str(d)) for a, b, c, d in meta["raises"])
                self.recovered = True
                return
        storage.unlink(intent)

    def _collect(self) -> None:
        """Take the raises recalls left pending (:func:`defer`): made with this write, and their
        files removed under the same intent, so each is made once (and the temps of those a
        crash left half made are removed)."""
        storage.sweep(self.path, os.path.basename(self.path) + storage.PENDING)
        found: list[tuple[str, str, str, str]] = []
        for path in storage.pending(self.path):
            raises = _pending_raises(path)
            if raises is None:
                self.warn(f"{path} is not a pending raise of the votes ledger; removed it")
            else:
                found.extend(raises)
            self.together(("unlink", path, b""))
        # in the order of their instants (the files' names are run ids, in no order), so each
        # ``last_*_at`` ends as the latest, as it would had every recall written its own
        self.raises.extend(sorted(found, key=lambda r: (_micros_or_none(r[3]) or 0, r[3])))

    def _read(self) -> None:
        storage.refuse_link(self.path)  # a link is neither read as the ledger nor set aside
        data = _read_bytes(self.path)
        self.existed = data is not None
        digest = _digest(data) if data is not None else None
        self.before = digest
        if data is not None and os.pread(self.lock.fd, 100, 0) == _SEAL + str(digest).encode() + b"\n":
            self.data = data
            return
        try:
            if data is None:
                self.document = new_document()
            else:
                try:
                    text = data.decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise CorruptLedger("not UTF-8") from exc
                self.document = parse(text)
        except CorruptLedger as exc:
            aside = _set_aside(self.path, self.stamp)
            self.warn(f"votes ledger {self.path} is corrupt ({exc}); moved it to {aside} and started a new one")
            self.document = new_document()
            self.existed = False
            self.before = None

    def add(self, key: str, count: str, field: str, instant: str) -> None:
        """Raise ``count`` (``recalled_count`` or ``upvoted_count``) of ``key`` by one, and set its
        ``field`` (``last_recalled_at`` or ``last_upvoted_at``) to ``instant``."""
        self.raises.append((key, count, field, instant))

    def __exit__(self, kind: object, *exc: object) -> None:
        try:
            if kind is None:
                self._write()
        finally:
            self.lock.__exit__()

    def _write(self) -> None:
        companions = self.companions
        if not self.raises and self.existed and not companions:
            return
        data = None
        if self.raises or not self.existed:
            if self.data is not None:
                try:
                    data = _splice(self.data, self.raises)
                except ValueError:  # a shape the entry reader leaves to the whole read (lists, flow style)
                    self.document = parse(self.data.decode("utf-8"))
            if data is None:
                assert self.document is not None
                data = dump(_raised(self.document, self.raises)).encode("utf-8")
        intent = storage.intent_path(self.path)
        if companions:
            meta = {"before": self.before, "after": _digest(data) if data is not None else self.before,
                    "raises": self.raises, "ops": [list(op[:-1]) for op in companions]}
            storage.write_intent(intent, [storage.utf8(jsontext.dumps(meta)), data or b"",
                                          *(op[-1] for op in companions)])
            for op in companions:
                _apply(op)
        if data is not None:
            self._put(data)
        if companions or self.recovered:
            storage.unlink(intent)

    def _put(self, data: bytes) -> None:
        """Replace the file with ``data`` and keep its digest in the lock file."""
        write_atomic(self.path, data)
        try:
            seal = _SEAL + _digest(data).encode() + b"\n"
            storage.write_at(self.lock.fd, seal, 0)
            storage.truncate(self.lock.fd, len(seal))
        except OSError:
            pass  # the next edit reads the file whole


def _apply(op: tuple[Any, ...]) -> None:
    if op[0] == "at":
        storage.write_after(op[1], op[2], op[3])
    elif op[0] == "unlink":
        try:
            storage.unlink(op[1])
        except FileNotFoundError:
            pass  # made already, before a crash
    else:
        write_atomic(op[1], op[2])


def _micros_or_none(text: str) -> int | None:
    from .clock import ClockError, micros

    try:
        return micros(text)
    except ClockError:
        return None


def defer(path: str, name: str, raises: list[tuple[str, str, str, str]]) -> None:
    """Leave ``raises`` for whoever next writes the ledger at ``path`` (a file of their own, made
    whole by a rename, so a writer never sees half of it): a recall leaves its recalled counts
    this way before it writes its run line, then writes the ledger itself, which makes them
    unless another writer made them first. A recall that stops (a crash, a busy or full disk)
    between its run line and the ledger leaves them for the next recall, Stop or pull."""
    data = storage.utf8(jsontext.dumps([list(r) for r in raises]))
    pending = f"{path}{storage.PENDING}{name}"
    try:
        write_atomic(pending, data, durable=False)
    except OSError:
        if not os.path.lexists(pending):  # a failure after the rename (only an injected one) left it made
            raise


def _pending_raises(path: str) -> list[tuple[str, str, str, str]] | None:
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except FileNotFoundError:
        return []
    except OSError:
        return None
    try:
        data = os.read(fd, 1 << 20)
    finally:
        os.close(fd)
    try:
        found = jsontext.loads(data)
    except ValueError:
        return None
    if not isinstance(found, list):
        return None
    out = []
    for item in found:
        if (not isinstance(item, list) or len(item) != 4 or not all(isinstance(v, str) for v in item)
                or item[1] not in ("recalled_count", "upvoted_count")
                or item[2] not in ("last_recalled_at", "last_upvoted_at")):
            return None
        out.append((item[0], item[1], item[2], item[3]))
    return out


def _read_bytes(path: str) -> bytes | None:
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except FileNotFoundError:
        return None


def _raised(document: Document, raises: list[tuple[str, str, str, str]]) -> Document:
    """The document with the counts raised, and their deltas."""
    votes = document["votes"]
    before = {key: tuple(entry.get(c, 0) for c, _ in COUNTS) for key, entry in votes.items()}
    for key, count, field, instant in raises:
        entry = votes.setdefault(key, empty_entry())
        entry[count] += 1
        entry[field] = instant
    _raise_deltas(document, before)
    return document
