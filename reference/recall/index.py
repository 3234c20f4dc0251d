"""The search index of one scope: its SQLite FTS5 file, opened whatever state it is in, and searched.

Why FTS5: one file, no server, no dependency, incremental updates, and ``bm25()``. Each asset is
stored in two FTS5 tables, its body (``bodies``) and its heads (``heads``: title, tags, about,
name; see ``fields.py``), and its body's length in words in ``lengths``. ``ranking.py`` scores
each concept of a query in each table on its own (the best of its spellings) and adds the two
tables' scores. No column or table carries a weight: ``bm25()`` is called without weights, so the
four heads columns count alike. A word in the heads counts for more only through BM25 itself: its
heads score comes on top of its body score, with the idf the word has among the heads, and judged
against the length of the heads rather than of the whole document. (The only weights are the
query's, on its concepts: ``ranking.py``.)

Why two modules: this one is the file and what is read from it (the schema and its
``INDEX_VERSION``, opening it, the searches and look-ups recall and relations make); filling it
from the team tree and keeping it fresh is ``index_build.py``, which imports this module and is
never imported by it. ``INDEX_VERSION`` is stored in the file: a file of another version has its
tables replaced in place, and a file SQLite calls corrupt (or not a database) is deleted; either
way the next refresh fills it again from the tree. A busy file is waited for, never rebuilt.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable

from ..state import jsontext
from ..state.storage import Refused, ensure_dir, refuse_link
from ..team.config import Scope
from . import ranking
from ._sqlite import sqlite3

TYPE_CHECKING = False  # typing is imported only by type checkers: it costs a fresh process ~4 ms
if TYPE_CHECKING:
    from typing import Any, NamedTuple
else:
    from .._tuples import NamedTuple

INDEX_VERSION = "15"

Warn = Callable[[str], None]


class IndexError_(RuntimeError):
    """The stored index cannot be used: its state folder cannot be written, or SQLite refused."""


class IndexBusy(IndexError_):
    """Another process held the index past the bounded wait. Busy is never a reason to rebuild."""


class IndexUnwritable(IndexError_):
    """The state folder (or the index file) cannot be written."""


class Entry(NamedTuple):
    kind: str
    tree_path: str
    key: str
    path: str
    title: str
    author: str | None
    date: str | None
    tags: tuple[str, ...]
    relations: dict[str, Any]
    snippet: str | None
    score: float = 0.0


_SCHEMA = (
    "CREATE TABLE meta(name TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE assets("
    "id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE, kind TEXT NOT NULL, tree_path TEXT NOT NULL,"
    " key TEXT NOT NULL, mtime_ns INTEGER NOT NULL, size INTEGER NOT NULL, indexed INTEGER NOT NULL,"
    " title TEXT, author TEXT, date TEXT, tags TEXT, relations TEXT, snippet TEXT, codebase TEXT)",
    "CREATE INDEX assets_tree ON assets(tree_path)",
    "CREATE INDEX assets_key ON assets(kind, key)",
    "CREATE TABLE edges(source INTEGER NOT NULL, target TEXT NOT NULL)",
    "CREATE INDEX edges_target ON edges(target)",
    "CREATE TABLE dirs(path TEXT PRIMARY KEY, mtime_ns INTEGER NOT NULL)",
    # The two views ranking.py scores (see fields.py for what the heads are).
    "CREATE VIRTUAL TABLE bodies USING fts5(body, tokenize='porter unicode61 remove_diacritics 2')",
    "CREATE VIRTUAL TABLE heads USING fts5(title, tags, about, name,"
    " tokenize='porter unicode61 remove_diacritics 2')",
    # Each body's length in words, as FTS5 counted them (ranking.py normalises the body's term
    # frequencies by it): a narrow table, so looking a length up costs little.
    "CREATE TABLE lengths(id INTEGER PRIMARY KEY, words INTEGER NOT NULL)",
)


# SQLite's primary result codes that decide what a failure means (``sqlite_errorcode & 0xff``).
_BUSY_CODES = frozenset({5, 6})  # SQLITE_BUSY, SQLITE_LOCKED: someone else holds it; wait, never rebuild
_CORRUPT_CODES = frozenset({11, 26})  # SQLITE_CORRUPT, SQLITE_NOTADB: the only reasons to delete the file


def _code(exc: BaseException) -> int:
    return int(getattr(exc, "sqlite_errorcode", 0) or 0) & 0xFF


def _failure(exc: sqlite3.Error, path: str) -> IndexError_:
    """The index error a SQLite error means."""
    if _code(exc) in _BUSY_CODES:
        return IndexBusy(f"index {path} is busy (another process is writing it: {exc})")
    return IndexUnwritable(f"index {path} cannot be written ({exc})")


def _connect(path: str, busy_s: float, read_only: bool = False) -> sqlite3.Connection:
    busy_ms = max(0, int(busy_s * 1000))
    if read_only:
        from urllib.parse import quote  # only the read-only fallback pays for it

        uri = "file:" + quote(path) + "?mode=ro&immutable=1"
        conn = sqlite3.connect(uri, uri=True, timeout=busy_ms / 1000, isolation_level=None)
    else:
        for suffix in ("", "-wal", "-shm", "-journal"):  # SQLite would follow a link planted there
            refuse_link(path + suffix)
        if not os.path.lexists(path):  # SQLite gives its -wal and -shm files the database's mode
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600))
        conn = sqlite3.connect(path, timeout=busy_ms / 1000, isolation_level=None)
    conn.execute(f"PRAGMA busy_timeout={busy_ms}")
    return conn


def _version(conn: sqlite3.Connection) -> str | None:
    """The format version stored in the file; ``None`` for an empty (new) or foreign database."""
    try:
        row = conn.execute("SELECT value FROM meta WHERE name='version'").fetchone()
    except sqlite3.OperationalError as exc:
        if _code(exc) == 1 and "no such table" in str(exc):
            return None
        raise
    return row[0] if row else None


def _create(conn: sqlite3.Connection) -> None:
    for statement in _SCHEMA:
        conn.execute(statement)
    conn.execute("INSERT INTO meta(name, value) VALUES('version', ?)", (INDEX_VERSION,))


def memory() -> sqlite3.Connection:
    """An empty index in memory: what recall searches when the stored one cannot be used."""
    conn = sqlite3.connect(":memory:", isolation_level=None)
    _create(conn)
    return conn


def copy_to_memory(conn: sqlite3.Connection) -> sqlite3.Connection:
    """A private copy of an index, to bring up to date without writing the stored file."""
    mem = sqlite3.connect(":memory:", isolation_level=None)
    conn.backup(mem)
    return mem


def open_index(scope: Scope, warn: Warn | None = None, busy_s: float = 5.0) -> sqlite3.Connection:
    """Open the stored index of ``scope`` for reading and writing, creating it, or rebuilding it
    when its format version differs or the file is corrupt (each said on one line).

    Raises :class:`IndexBusy` when another process holds it past ``busy_s`` seconds, and
    :class:`IndexUnwritable` when the state folder or the file cannot be written. A busy index
    is never deleted: only SQLite's "corrupt" and "not a database" answers remove the file.
    """
    if warn is None:
        warn = _quiet
    path = scope.index_path
    try:
        ensure_dir(scope.state_dir)
        conn = _connect(path, busy_s)
    except Refused as exc:
        raise IndexUnwritable(f"index {exc}") from exc
    except OSError as exc:
        raise IndexUnwritable(f"the state folder {scope.state_dir} cannot be written "
                              f"({exc.strerror or exc})") from exc
    except sqlite3.Error as exc:
        raise _failure(exc, path) from exc
    try:
        try:
            version = _version(conn)
        except sqlite3.DatabaseError as exc:
            if _code(exc) not in _CORRUPT_CODES:
                raise
            conn.close()
            warn(f"index {path} is corrupt ({exc}); rebuilding it from the team tree")
            _remove_files(path)
            conn = _connect(path, busy_s)
            version = None
        if version != INDEX_VERSION:
            _build(conn, path, warn)
        # Derived data, rebuilt when corrupt or stale: in WAL mode NORMAL never corrupts the file
        # on a crash (a power loss can only lose the last commits, which the next refresh finds
        # missing), and it spares a cold build an fsync per commit. (A power loss at the wrong
        # moment of a new file's first fill, in the rollback journal, can corrupt it: it is then
        # rebuilt, as any corrupt index is.)
        conn.execute("PRAGMA synchronous=NORMAL")
        return conn
    except sqlite3.Error as exc:
        conn.close()
        raise _failure(exc, path) from exc
    except OSError as exc:
        raise IndexUnwritable(f"index {path} cannot be written ({exc.strerror or exc})") from exc


def _quiet(message: str) -> None:
    pass


def _build(conn: sqlite3.Connection, path: str, warn: Warn) -> None:
    """Create the schema, or replace an old one, in place and in one transaction, so a process
    that has the file open meanwhile sees the old index or the new one, never a missing file.

    A new file keeps SQLite's rollback journal until its first fill has committed (see
    :func:`index_build._settle_journal`): a page that did not exist before the transaction needs
    no copy in the journal, so a cold build writes the index once, where WAL writes every page to
    the log and then again into the file. A file of another version being replaced keeps its WAL mode
    (the journal mode is stored in the file), so processes reading it meanwhile are not held up."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        version = _version(conn)  # again: another process may have built it while this one waited
        if version != INDEX_VERSION:
            tables = conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table'"
                                  " AND name NOT LIKE 'sqlite_%'").fetchall()
            if tables:
                warn(f"index {path} was written by another version of teamai-ref; rebuilding it once")
            virtual = [n for n, sql in tables if (sql or "").upper().startswith("CREATE VIRTUAL")]
            for name in virtual:  # dropping a virtual table drops its shadow tables
                conn.execute(f'DROP TABLE IF EXISTS "{name}"')
            for name, _ in tables:
                conn.execute(f'DROP TABLE IF EXISTS "{name}"')
            _create(conn)
        conn.execute("COMMIT")
    except BaseException:
        _rollback(conn)
        raise


def open_readonly(scope: Scope) -> sqlite3.Connection | None:
    """The stored index for reading only, when it exists at this format version; else ``None``.

    Opened as immutable: SQLite then takes no lock and creates no ``-wal``/``-shm`` file, so
    nothing in the state folder is written or created. It also means the last commits still in a
    ``-wal`` file are not seen, and a checkpoint running meanwhile can make a read fail; both are
    safe here, because what is read is compared with the tree and brought up to date in a
    private copy (:func:`index_build.refresh` with ``dry``), and a read that fails falls back to
    a copy of the tree in memory."""
    path = scope.index_path
    if not os.path.isfile(path) or os.path.islink(path):  # a link may lead to anybody's database
        return None
    try:
        conn = _connect(path, 0, read_only=True)
        if _version(conn) == INDEX_VERSION:
            return conn
    except sqlite3.Error:
        return None
    conn.close()
    return None


def _remove_files(path: str) -> None:
    for suffix in ("", "-wal", "-shm"):
        try:
            os.unlink(path + suffix)
        except FileNotFoundError:
            pass


def _rollback(conn: sqlite3.Connection) -> None:
    if conn.in_transaction:  # SQLite may have rolled back already (a full disk, an I/O error)
        conn.execute("ROLLBACK")


def _meta(conn: sqlite3.Connection, name: str) -> str | None:
    row = conn.execute("SELECT value FROM meta WHERE name = ?", (name,)).fetchone()
    return row[0] if row else None


def changed_paths(conn: sqlite3.Connection, paths: list[str]) -> list[str]:
    """Those of these indexed files that changed (or went away) on disk since they were indexed."""
    if not paths:
        return []
    marks = ",".join("?" * len(paths))
    changed = []
    for path, mtime, size in conn.execute(
            f"SELECT path, mtime_ns, size FROM assets WHERE path IN ({marks})", sorted(set(paths))):
        try:
            st = os.stat(path)
        except OSError:
            changed.append(path)
            continue
        if st.st_mtime_ns != mtime or st.st_size != size:
            changed.append(path)
    return changed


def search(conn: sqlite3.Connection, terms: list[str], limit: int,
           withheld: frozenset[str] = frozenset()) -> list[Entry]:
    """The best ``limit`` entries for these query words (``ranking.py`` owns how)."""
    stored = dict(conn.execute("SELECT name, value FROM meta WHERE name IN ('indexed', 'body_words')"))
    total = int(stored.get("indexed") or 0)
    average = float(stored.get("body_words") or 0) or None
    return [_entry(r) for r in ranking.search(conn, terms, limit, total, withheld, average)]


_COLUMNS = ranking._COLUMNS


def _entry(row: tuple[Any, ...]) -> Entry:
    score, kind, tree_path, key, path, title, author, date, tags, relations, snippet = row
    return Entry(kind, tree_path, key, path, title, author, date, tuple(jsontext.loads(tags or "[]")),
                 jsontext.loads(relations or "{}"), snippet, round(float(score), 6))


def entries(conn: sqlite3.Connection) -> list[Entry]:
    """Every indexed asset, by tree path (for relations and checks)."""
    rows = conn.execute(f"SELECT 0, {_COLUMNS} FROM assets a WHERE indexed = 1 ORDER BY tree_path").fetchall()
    return [_entry(r) for r in rows]


def entries_at(conn: sqlite3.Connection, tree_paths: Iterable[str]) -> list[Entry]:
    """The indexed assets at these tree paths (those that exist)."""
    wanted = jsontext.dumps(sorted(set(tree_paths)))
    rows = conn.execute(f"SELECT 0, {_COLUMNS} FROM assets a WHERE indexed = 1 AND tree_path IN"
                        " (SELECT value FROM json_each(?)) ORDER BY tree_path", (wanted,)).fetchall()
    return [_entry(r) for r in rows]


def sources_of(conn: sqlite3.Connection, targets: Iterable[str]) -> list[Entry]:
    """The indexed assets whose stored outgoing relations name one of these tree paths."""
    wanted = jsontext.dumps(sorted(set(targets)))
    rows = conn.execute(f"SELECT DISTINCT 0, {_COLUMNS} FROM edges e JOIN assets a ON a.id = e.source"
                        " WHERE a.indexed = 1 AND e.target IN (SELECT value FROM json_each(?))"
                        " ORDER BY a.tree_path", (wanted,)).fetchall()
    return [_entry(r) for r in rows]


def has_key(conn: sqlite3.Connection, kind: str, key: str) -> bool:
    """Whether the index holds an asset of this kind and vote key (shadowing is by both)."""
    row = conn.execute("SELECT 1 FROM assets WHERE indexed = 1 AND kind = ? AND key = ? LIMIT 1", (kind, key))
    return row.fetchone() is not None
