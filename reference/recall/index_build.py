"""Building one scope's search index from its team tree, and keeping it in line with the tree.

Why a module of its own: ``index.py`` is the index file and what is read from it; this module is
what is written into it. It walks the asset files into the FTS5 tables (a batch of rows at a
time, or, for a large build, parts that worker processes read and pack; see ``asset_rows.py``),
and decides on each refresh what to read again. Trees up to ``FULL_SCAN_LIMIT`` assets stat
every asset file on every refresh and re-read only the files whose (path, tree path, mtime,
size) changed, so an added, edited or removed asset shows up in the next recall; larger trees
keep each folder's mtime and walk again only the folders whose mtime moved, and every folder
once the last full walk is ``FULL_SCAN_EVERY`` seconds old or when a hit's own file changed. A
refresh or re-read that fails is rolled back whole; SQLite's refusal is said as
:class:`index.IndexBusy` or :class:`index.IndexUnwritable`. This module imports ``index.py``;
``index.py`` never imports it.

Why the line at ``FULL_SCAN_LIMIT`` (4000 assets): a stat per file costs about 2.5 µs, most of a
recall at 10k assets. Above it, a refresh walks again only the topmost folders whose mtime moved
(an asset added, removed or renamed, a checkout, a save-by-rename), and everything when a hit's
own file changed (``index.changed_paths``, which recall checks), when the change touches several
learnings roots (the first root wins, so one root's change can move another's id), when the last
full walk is ``FULL_SCAN_EVERY`` old, and on ``teamai-ref index``. What recall prints is exact all
the same: a hit's file and every file its ``Related:`` lines are built from are checked against the
disk (``relations_view``). The walk interval costs only this: in such a tree an in-place edit of an
asset that is neither printed nor related to a hit is found by a search within five minutes.

A file that is not UTF-8 text is remembered, so it is reported once, and is not searchable.
Malformed frontmatter keeps the body searchable and is reported once, when the file is indexed;
its one-line ``description:`` is still read (``frontmatter.salvage``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping, Sequence

from ..team import tree
from ..team.config import Scope
from ._sqlite import sqlite3
from .index import Warn, _failure, _meta, _rollback

TYPE_CHECKING = False  # typing is imported only by type checkers: it costs a fresh process ~4 ms
if TYPE_CHECKING:
    from typing import Any

    from . import asset_rows

FULL_SCAN_LIMIT = 4000  # trees up to this many assets stat every file on every recall
FULL_SCAN_EVERY = 300.0  # seconds; larger trees are walked at least this often


def _store(conn: sqlite3.Connection, assets: Sequence[tree.AssetFile], warn: Warn) -> None:
    """Read these assets and write their rows, with ids counting up from the largest one (the id
    SQLite would give each in turn): a batch at a time, one statement per table instead of four
    per file; in worker processes when there are many (see :func:`_store_packed`)."""
    from . import asset_rows  # a recall that changes nothing never reads a file

    first_id = next_id = conn.execute("SELECT coalesce(max(id), 0) + 1 FROM assets").fetchone()[0]
    workers = asset_rows.workers(len(assets))
    if workers > 1 and hasattr(conn, "deserialize"):
        _store_packed(conn, asset_rows.packed_parts(assets, warn, _pack, next_id, workers))
    else:
        batch: list[asset_rows.Prepared] = []
        for item in asset_rows.prepared(assets, warn):
            batch.append(item)
            if len(batch) == _BATCH:
                _store_batch(conn, batch, next_id)
                next_id += len(batch)
                batch = []
        if batch:
            _store_batch(conn, batch, next_id)
    _store_lengths(conn, first_id)


def _store_lengths(conn: sqlite3.Connection, first_id: int) -> None:
    """The length in words of each body stored from ``first_id`` on, as FTS5 counted it: its
    ``docsize`` shadow table holds it as a varint (the same number ``bm25()`` divides by)."""
    sizes = conn.execute("SELECT id, sz FROM bodies_docsize WHERE id >= ?", (first_id,)).fetchall()
    conn.executemany("INSERT INTO lengths(id, words) VALUES(?, ?)", [(i, _varint(sz)) for i, sz in sizes])


def _varint(data: bytes) -> int:
    """SQLite's variable-length integer (FTS5 writes its sizes so): 7 bits a byte, high bit set on
    every byte but the last, the ninth byte whole."""
    value = 0
    for i, byte in enumerate(data[:9]):
        if i == 8:
            return (value << 8) | byte
        value = (value << 7) | (byte & 0x7F)
        if not byte & 0x80:
            break
    return value


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
            dry: bool = False, limit: int | None = None, skipped: list[tree.Skipped] | None = None) -> int:
    """Bring the index in line with the files on disk; returns how many assets changed.

    Small trees (up to ``limit`` assets, by default ``FULL_SCAN_LIMIT``) are checked file by file on every call. In
    larger ones a stat per file would dominate the recall, so only the folders whose mtime moved
    (an asset added, removed or renamed, a checkout, an editor's save-by-rename) are walked again;
    everything is walked when the last full walk is ``FULL_SCAN_EVERY`` seconds old, or when a
    hit's own file changed (``force``, see :func:`index.changed_paths`). With ``dry`` nothing is
    written: the count says whether a private copy needs refreshing.

    The files and folders the walk left out (a name that is not UTF-8, a folder that cannot be
    listed) go into ``skipped`` where it is given (:func:`tree.walk_with_dirs`).

    Raises :class:`index.IndexBusy` when another process holds the write lock past the wait, and
    :class:`index.IndexUnwritable` when the file cannot be written.
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
    files, dirs = tree.walk_with_dirs(scope.team, scope.learnings_roots, within, skipped)
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
    """Put a stored index that still has the rollback journal (its first fill, see
    :func:`index._build`) in WAL mode, where readers never wait for a writer. Another process
    holding the file keeps it from switching now; the next write switches it."""
    try:
        if conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete":
            conn.execute("PRAGMA journal_mode=WAL")
    except sqlite3.Error:
        pass


def _count_indexed(conn: sqlite3.Connection) -> None:
    """Keep the number of searchable assets and the average body length (in words) at hand:
    ranking needs both on every query, and counting a table costs a scan of it."""
    count = conn.execute("SELECT count(*) FROM assets WHERE indexed = 1").fetchone()[0]
    average = conn.execute("SELECT coalesce(avg(words), 0) FROM lengths").fetchone()[0]
    conn.executemany("INSERT OR REPLACE INTO meta(name, value) VALUES(?, ?)",
                     [("indexed", str(count)), ("body_words", repr(float(average)))])


def _delete(conn: sqlite3.Connection, ids: list[int]) -> None:
    for chunk in _chunks(ids, 500):
        marks = ",".join("?" * len(chunk))
        conn.execute(f"DELETE FROM bodies WHERE rowid IN ({marks})", chunk)
        conn.execute(f"DELETE FROM heads WHERE rowid IN ({marks})", chunk)
        conn.execute(f"DELETE FROM lengths WHERE id IN ({marks})", chunk)
        conn.execute(f"DELETE FROM edges WHERE source IN ({marks})", chunk)
        conn.execute(f"DELETE FROM assets WHERE id IN ({marks})", chunk)



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


def _chunks(items: list[int], size: int) -> Iterable[list[int]]:
    for i in range(0, len(items), size):
        yield items[i:i + size]
