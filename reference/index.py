"""The search index of one scope: SQLite FTS5 through the standard library, refreshed on use.

Why FTS5: one file, no server, no dependency, incremental updates, and ``bm25()``. Each asset is
stored in two FTS5 tables, its body (``bodies``) and its heads (``heads``: title, tags, about,
name; see ``fields.py``), and ``ranking.py`` scores each word in each table on its own and adds
the two, with no column weights: a heads match counts more because the heads are short, not
because of a fixed factor. A recall stats every asset file and re-reads only the files
whose (mtime, size) changed, so an added, edited or removed asset shows up in the next recall.
``INDEX_VERSION`` is part of the file: a format change rebuilds the index from scratch.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence

from . import ranking, tree
from ._sqlite import sqlite3
from .config import Scope
from .storage import Refused, ensure_dir, refuse_link

TYPE_CHECKING = False  # typing is imported only by type checkers: it costs a fresh process ~4 ms
if TYPE_CHECKING:
    from typing import Any, NamedTuple

    from . import asset_rows
else:
    from ._tuples import NamedTuple

INDEX_VERSION = "11"
FULL_SCAN_LIMIT = 4000  # trees up to this many assets stat every file on every recall
FULL_SCAN_EVERY = 300.0  # seconds; larger trees are walked at least this often

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
    :func:`_settle_journal`): a page that did not exist before the transaction needs no copy in
    the journal, so a cold build writes the index once, where WAL writes every page to the log
    and then again into the file. A file of another version being replaced keeps its WAL mode
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
    private copy (:func:`refresh` with ``dry``), and a read that fails falls back to a copy of
    the tree in memory."""
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


def _store(conn: sqlite3.Connection, assets: Sequence[tree.AssetFile], warn: Warn) -> None:
    """Read these assets and write their rows, with ids counting up from the largest one (the id
    SQLite would give each in turn): a batch at a time, one statement per table instead of four
    per file; in worker processes when there are many (see :func:`_store_packed`)."""
    from . import asset_rows  # a recall that changes nothing never reads a file

    next_id = conn.execute("SELECT coalesce(max(id), 0) + 1 FROM assets").fetchone()[0]
    workers = asset_rows.workers(len(assets))
    if workers > 1 and hasattr(conn, "deserialize"):
        _store_packed(conn, asset_rows.packed_parts(assets, warn, _pack, next_id, workers))
        return
    batch: list[asset_rows.Prepared] = []
    for item in asset_rows.prepared(assets, warn):
        batch.append(item)
        if len(batch) == _BATCH:
            _store_batch(conn, batch, next_id)
            next_id += len(batch)
            batch = []
    if batch:
        _store_batch(conn, batch, next_id)


_BATCH = 256

# The columns each table is written through, by _store_batch here and by the copy of a worker's
# part (see _pack), so the two ways of filling the index cannot drift apart.
_WRITTEN = {
    "assets": ("id", "path", "kind", "tree_path", "key", "mtime_ns", "size", "indexed", "title", "author", "date",
               "tags", "relations", "snippet", "codebase"),
    "heads": ("rowid", "title", "tags", "about", "name"),
    "bodies": ("rowid", "body"),
    "edges": ("source", "target"),
}
_INSERTS = {table: f"INSERT INTO {table}({', '.join(cols)}) VALUES({','.join('?' * len(cols))})"
            for table, cols in _WRITTEN.items()}
# A worker writes a part's rows into a database of its own in memory, into plain tables of these
# columns (kept in the order written, which is id order), and sends it whole; the writer attaches
# it and copies each table in one statement. Rows then cross between processes as one block of
# bytes instead of a Python object per value, which the writer would have to build, and bind
# again, one at a time.
_PACKED = tuple(f"CREATE TABLE {table}({', '.join(cols)})" for table, cols in _WRITTEN.items())
_COPIES = tuple(f"INSERT INTO main.{table}({', '.join(cols)}) SELECT {', '.join(cols)} FROM packed.{table}"
                for table, cols in _WRITTEN.items())


def _pack(batch: list[asset_rows.Prepared], first_id: int) -> bytes:
    """In a worker: one part's rows as a serialized SQLite database."""
    mem = sqlite3.connect(":memory:", isolation_level=None)
    try:
        for statement in _PACKED:
            mem.execute(statement)
        mem.execute("BEGIN")
        _store_batch(mem, batch, first_id)
        mem.execute("COMMIT")
        return mem.serialize()
    finally:
        mem.close()


def _store_packed(conn: sqlite3.Connection, parts: Iterable[bytes]) -> None:
    """Copy packed parts into the index, in order, inside the caller's transaction. The parts'
    schema stays attached until :func:`_detach_packed` (SQLite lets no database be detached
    while a transaction is open)."""
    if not any(row[1] == "packed" for row in conn.execute("PRAGMA database_list")):
        conn.execute("ATTACH ':memory:' AS packed")
    for data in parts:
        conn.deserialize(data, name="packed")
        for statement in _COPIES:
            conn.execute(statement)


def _detach_packed(conn: sqlite3.Connection) -> None:
    """Detach what :func:`_store_packed` attached (and free the last part), once the transaction
    is over; a connection that refuses keeps it until it is closed, which changes nothing."""
    try:
        if any(row[1] == "packed" for row in conn.execute("PRAGMA database_list")):
            conn.execute("DETACH packed")
    except sqlite3.Error:
        pass


def _store_batch(conn: sqlite3.Connection, batch: list[asset_rows.Prepared], first_id: int) -> None:
    assets: list[tuple[Any, ...]] = []
    heads: list[tuple[Any, ...]] = []
    bodies: list[tuple[int, str]] = []
    edges: list[tuple[int, str]] = []
    for rowid, item in enumerate(batch, first_id):
        a = item.asset
        if item.columns is None:
            assets.append((rowid, a.path, a.kind, a.tree_path, a.key, a.mtime_ns, a.size, 0,
                           None, None, None, None, None, None, None))
            continue
        assets.append((rowid, a.path, a.kind, a.tree_path, a.key, a.mtime_ns, a.size, 1, *item.columns, a.codebase))
        heads.append((rowid, *item.heads))
        bodies.append((rowid, item.body))
        edges.extend((rowid, t) for t in item.targets)
    for table, rows in (("assets", assets), ("heads", heads), ("bodies", bodies), ("edges", edges)):
        conn.executemany(_INSERTS[table], rows)


def _meta(conn: sqlite3.Connection, name: str) -> str | None:
    row = conn.execute("SELECT value FROM meta WHERE name = ?", (name,)).fetchone()
    return row[0] if row else None


def full_scan_limit(env: Mapping[str, str]) -> int:
    """``TEAMAI_FULL_SCAN_LIMIT`` (a count of assets) moves the line between trees checked file by
    file and trees checked by their folders, so a small tree can be run the way a large one is."""
    raw = env.get("TEAMAI_FULL_SCAN_LIMIT")
    if raw:
        try:
            return max(0, int(raw))
        except ValueError:
            pass
    return FULL_SCAN_LIMIT


def _walk_needed(conn: sqlite3.Connection, now_s: float, limit: int) -> bool:
    """Whether a refresh walks every folder (a small tree, the interval is over, or no walk yet)
    rather than only those whose mtime moved."""
    if int(_meta(conn, "assets") or 0) <= limit:
        return True
    return now_s - float(_meta(conn, "walked_at") or 0) >= FULL_SCAN_EVERY


def _moved(folders: Iterable[tuple[str, int]]) -> Iterator[str]:
    """The folders whose mtime is no longer the stored one, statted one at a time as asked for."""
    return (path for path, mtime in folders if tree.dir_mtime(path) != mtime)


def _changed_dirs(conn: sqlite3.Connection, now_s: float, limit: int) -> list[str] | None:
    """The folders to walk again: ``None`` for all of them, else the topmost folders whose mtime
    moved (often none)."""
    if _walk_needed(conn, now_s, limit):
        return None
    top: list[str] = []
    for path in sorted(_moved(conn.execute("SELECT path, mtime_ns FROM dirs"))):
        # sorted, so a folder comes before the folders inside it
        if not top or not (path == top[-1] or path.startswith(top[-1] + os.sep)):
            top.append(path)
    return top


class FolderProbe:
    """The stored folders' mtimes, compared with the disk on another thread while the caller
    searches the index as it is.

    In a large tree that check is a stat per folder, thousands of system calls, and it used to
    come before the search; a search spends its time inside SQLite, which lets other threads run,
    so the two overlap. When no folder moved the refresh had nothing to do and the search stands;
    when one did, the caller refreshes and searches again, so what is found is the same either
    way. Only the low-level ``_thread`` is used: ``threading`` costs a fresh process more to import
    than the check costs."""

    __slots__ = ("_done", "_any_moved", "_failed")

    def __init__(self, folders: list[tuple[str, int]]) -> None:
        import _thread

        self._any_moved = False
        self._failed = False
        self._done = _thread.allocate_lock()
        self._done.acquire()
        try:
            _thread.start_new_thread(self._check, (folders,))
        except RuntimeError:  # no thread to be had: check here instead
            self._check(folders)

    def _check(self, folders: list[tuple[str, int]]) -> None:
        try:
            self._any_moved = next(_moved(folders), None) is not None  # the first moved folder settles it
        except BaseException:  # noqa: BLE001 - said as "moved": the caller then refreshes as usual
            self._failed = True
        finally:
            self._done.release()

    def moved(self) -> bool:
        """Whether any folder moved (waits for the check); a check that failed counts as moved."""
        with self._done:
            return self._failed or self._any_moved


def probe(conn: sqlite3.Connection, now_s: float, limit: int | None = None) -> FolderProbe | None:
    """A started :class:`FolderProbe` when a refresh of this index would only look at the folders'
    mtimes; ``None`` when it would walk the tree (refresh first, then search)."""
    limit = FULL_SCAN_LIMIT if limit is None else limit
    if _walk_needed(conn, now_s, limit):
        return None
    return FolderProbe(conn.execute("SELECT path, mtime_ns FROM dirs").fetchall())


def _inside_clause(column: str, folders: list[str]) -> tuple[str, list[str]]:
    """SQL for "``column`` is one of these folders or below one", using the column's index."""
    parts, args = [], []
    for folder in folders:
        parts.append(f"({column} = ? OR ({column} >= ? AND {column} < ?))")
        args += [folder, folder + os.sep, folder + chr(ord(os.sep) + 1)]
    return " OR ".join(parts), args


def refresh(conn: sqlite3.Connection, scope: Scope, warn: Warn, now_s: float = 0.0, force: bool = False,
            dry: bool = False, limit: int | None = None) -> int:
    """Bring the index in line with the files on disk; returns how many assets changed.

    Small trees (up to ``limit`` assets, by default ``FULL_SCAN_LIMIT``) are checked file by file on every call. In
    larger ones a stat per file would dominate the recall, so only the folders whose mtime moved
    (an asset added, removed or renamed, a checkout, an editor's save-by-rename) are walked again;
    everything is walked when the last full walk is ``FULL_SCAN_EVERY`` seconds old, or when a
    hit's own file changed (``force``, see :func:`changed_paths`). With ``dry`` nothing is
    written: the count says whether a private copy needs refreshing.

    Raises :class:`IndexBusy` when another process holds the write lock past the wait, and
    :class:`IndexUnwritable` when the file cannot be written.
    """
    limit = FULL_SCAN_LIMIT if limit is None else limit
    changed = None if force else _changed_dirs(conn, now_s, limit)
    if changed is not None and not changed:
        return 0
    if changed is not None and len(scope.learnings_roots) > 1 and any(
            tree._inside(root, tuple(changed)) or any(c.startswith(root + os.sep) for c in changed)
            for root in scope.learnings_roots):
        changed = None  # which root wins an id depends on the other roots: walk everything
    within = tuple(changed) if changed is not None else None
    files, dirs = tree.walk_with_dirs(scope.team, scope.learnings_roots, within)
    wanted = {(a.path, a.tree_path, a.mtime_ns, a.size): a for a in files}
    where, args = _inside_clause("path", changed) if changed is not None else ("1", [])
    select = f"SELECT id, path, tree_path, mtime_ns, size FROM assets WHERE {where}"
    stored = {tuple(r[1:]): r[0] for r in conn.execute(select, args)}
    if dry:
        return len(wanted.keys() ^ stored.keys())
    stored_dirs = dict(conn.execute(f"SELECT path, mtime_ns FROM dirs WHERE {where}", args))
    if wanted.keys() == stored.keys() and stored_dirs == dirs and changed is None \
            and int(_meta(conn, "assets") or 0) <= limit:
        return 0
    try:
        conn.execute("BEGIN IMMEDIATE")
    except sqlite3.Error as exc:
        raise _failure(exc, scope.index_path) from exc
    try:
        conn.execute(f"DELETE FROM dirs WHERE {where}", args)
        conn.executemany("INSERT OR REPLACE INTO dirs(path, mtime_ns) VALUES(?, ?)", sorted(dirs.items()))
        stored = {tuple(r[1:]): r[0] for r in conn.execute(select, args)}
        gone = [stored[k] for k in stored.keys() - wanted.keys()]
        _delete(conn, gone)
        added = [wanted[k] for k in sorted(wanted.keys() - stored.keys(), key=lambda k: k[1])]
        _store(conn, added, warn)
        total = len(files) if changed is None else int(_meta(conn, "assets") or 0) + len(added) - len(gone)
        meta = [("assets", str(total))] + ([("walked_at", repr(now_s))] if changed is None else [])
        conn.executemany("INSERT OR REPLACE INTO meta(name, value) VALUES(?, ?)", meta)
        _count_indexed(conn)
        conn.execute("COMMIT")
    except sqlite3.Error as exc:
        _rollback(conn)
        raise _failure(exc, scope.index_path) from exc
    except BaseException:
        _rollback(conn)
        raise
    finally:
        _detach_packed(conn)
    _settle_journal(conn)
    return len(gone) + len(added)


def _settle_journal(conn: sqlite3.Connection) -> None:
    """Put a stored index that still has the rollback journal (its first fill, see :func:`_build`)
    in WAL mode, where readers never wait for a writer. Another process holding the file keeps it
    from switching now; the next write switches it."""
    try:
        if conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete":
            conn.execute("PRAGMA journal_mode=WAL")
    except sqlite3.Error:
        pass


def _count_indexed(conn: sqlite3.Connection) -> None:
    """Keep the number of searchable assets at hand: ranking's idf needs it on every query, and
    counting an FTS table costs a scan of it."""
    count = conn.execute("SELECT count(*) FROM assets WHERE indexed = 1").fetchone()[0]
    conn.execute("INSERT OR REPLACE INTO meta(name, value) VALUES('indexed', ?)", (str(count),))


def _delete(conn: sqlite3.Connection, ids: list[int]) -> None:
    for chunk in _chunks(ids, 500):
        marks = ",".join("?" * len(chunk))
        conn.execute(f"DELETE FROM bodies WHERE rowid IN ({marks})", chunk)
        conn.execute(f"DELETE FROM heads WHERE rowid IN ({marks})", chunk)
        conn.execute(f"DELETE FROM edges WHERE source IN ({marks})", chunk)
        conn.execute(f"DELETE FROM assets WHERE id IN ({marks})", chunk)


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


def reindex(conn: sqlite3.Connection, scope: Scope, paths: list[str], warn: Warn) -> None:
    """Re-read these indexed files, whatever their folders say: an in-place edit moves no
    folder's mtime, so in a large tree this is how a file about to be printed is made exact."""
    try:
        conn.execute("BEGIN IMMEDIATE")
    except sqlite3.Error as exc:
        raise _failure(exc, scope.index_path) from exc
    try:
        for path in sorted(set(paths)):
            row = conn.execute("SELECT id, kind, tree_path, key FROM assets WHERE path = ?", (path,)).fetchone()
            if row is None:
                continue
            rowid, kind, tree_path, key = row
            _delete(conn, [rowid])
            try:
                st = os.stat(path)
            except OSError:  # gone: the next walk of its folder settles the count
                continue
            _store(conn, [tree.AssetFile(kind, tree_path, key, path, st.st_mtime_ns, st.st_size)], warn)
        _count_indexed(conn)
        conn.execute("COMMIT")
    except sqlite3.Error as exc:
        _rollback(conn)
        raise _failure(exc, scope.index_path) from exc
    except BaseException:
        _rollback(conn)
        raise


def _rollback(conn: sqlite3.Connection) -> None:
    if conn.in_transaction:  # SQLite may have rolled back already (a full disk, an I/O error)
        conn.execute("ROLLBACK")


def _chunks(items: list[int], size: int) -> Iterable[list[int]]:
    for i in range(0, len(items), size):
        yield items[i:i + size]


def search(conn: sqlite3.Connection, terms: list[str], limit: int,
           withheld: frozenset[str] = frozenset()) -> list[Entry]:
    """The best ``limit`` entries for these query words (``ranking.py`` owns how)."""
    total = int(_meta(conn, "indexed") or 0)
    return [_entry(r) for r in ranking.search(conn, terms, limit, total, withheld)]


_COLUMNS = ranking._COLUMNS


def _entry(row: tuple[Any, ...]) -> Entry:
    score, kind, tree_path, key, path, title, author, date, tags, relations, snippet = row
    return Entry(kind, tree_path, key, path, title, author, date, tuple(json.loads(tags or "[]")),
                 json.loads(relations or "{}"), snippet, round(float(score), 6))


def entries(conn: sqlite3.Connection) -> list[Entry]:
    """Every indexed asset, by tree path (for relations and checks)."""
    rows = conn.execute(f"SELECT 0, {_COLUMNS} FROM assets a WHERE indexed = 1 ORDER BY tree_path").fetchall()
    return [_entry(r) for r in rows]


def entries_at(conn: sqlite3.Connection, tree_paths: Iterable[str]) -> list[Entry]:
    """The indexed assets at these tree paths (those that exist)."""
    wanted = json.dumps(sorted(set(tree_paths)))
    rows = conn.execute(f"SELECT 0, {_COLUMNS} FROM assets a WHERE indexed = 1 AND tree_path IN"
                        " (SELECT value FROM json_each(?)) ORDER BY tree_path", (wanted,)).fetchall()
    return [_entry(r) for r in rows]


def sources_of(conn: sqlite3.Connection, targets: Iterable[str]) -> list[Entry]:
    """The indexed assets whose stored outgoing relations name one of these tree paths."""
    wanted = json.dumps(sorted(set(targets)))
    rows = conn.execute(f"SELECT DISTINCT 0, {_COLUMNS} FROM edges e JOIN assets a ON a.id = e.source"
                        " WHERE a.indexed = 1 AND e.target IN (SELECT value FROM json_each(?))"
                        " ORDER BY a.tree_path", (wanted,)).fetchall()
    return [_entry(r) for r in rows]


def has_key(conn: sqlite3.Connection, kind: str, key: str) -> bool:
    """Whether the index holds an asset of this kind and vote key (shadowing is by both)."""
    row = conn.execute("SELECT 1 FROM assets WHERE indexed = 1 AND kind = ? AND key = ? LIMIT 1", (kind, key))
    return row.fetchone() is not None
