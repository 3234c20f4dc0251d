"""The search index of one scope: SQLite FTS5 through the standard library, refreshed on use.

Why FTS5: one file, no server, no dependency, incremental updates, and ``bm25()`` with column
weights (title 3, tags 2, body 1). A recall stats every asset file and re-reads only the files
whose (mtime, size) changed, so an added, edited or removed asset shows up in the next recall.
``INDEX_VERSION`` is part of the file: a format change rebuilds the index from scratch.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
from collections.abc import Callable, Iterable

from . import frontmatter, tree
from .config import Scope
from .storage import ensure_dir

TYPE_CHECKING = False  # typing is imported only by type checkers: it costs a fresh process ~4 ms
if TYPE_CHECKING:
    from typing import Any, NamedTuple
else:
    from ._tuples import NamedTuple

INDEX_VERSION = "9"
MAX_INDEXED_BYTES = 1 << 20  # a larger asset is indexed up to here, with a warning
SNIPPET_CHARS = 160
WEIGHTS = (3.0, 2.0, 1.0)  # title, tags, body
FULL_SCAN_LIMIT = 4000  # trees up to this many assets stat every file on every recall
FULL_SCAN_EVERY = 300.0  # seconds; larger trees are walked at least this often

_STOP = frozenset(
    "a an and are as at be but by for from how i if in into is it its me my of on or our so that the "
    "their then there these this to was we what when where which who why will with you your do does did "
    "can could should would".split()
)
_TOKEN = re.compile(r"\w+", re.UNICODE)
# Chinese, Japanese and Korean text has no spaces between words: each character is indexed as a
# token of its own and a query word written in these scripts is searched as a phrase of them.
_CJK = re.compile("([\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff])")


def spaced(text: str) -> str:
    return _CJK.sub(r" \1 ", text)

Warn = Callable[[str], None]


class IndexError_(RuntimeError):
    """The index cannot be opened or written (locked beyond the busy timeout, unwritable...)."""


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


_SCHEMA = """
CREATE TABLE meta(name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE assets(
  id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE, kind TEXT NOT NULL, tree_path TEXT NOT NULL,
  key TEXT NOT NULL, mtime_ns INTEGER NOT NULL, size INTEGER NOT NULL, indexed INTEGER NOT NULL,
  title TEXT, author TEXT, date TEXT, tags TEXT, relations TEXT, snippet TEXT, codebase TEXT);
CREATE INDEX assets_tree ON assets(tree_path);
CREATE INDEX assets_key ON assets(kind, key);
CREATE TABLE edges(source INTEGER NOT NULL, target TEXT NOT NULL);
CREATE INDEX edges_target ON edges(target);
CREATE TABLE dirs(path TEXT PRIMARY KEY, mtime_ns INTEGER NOT NULL);
CREATE VIRTUAL TABLE fts USING fts5(title, tags, body, tokenize='porter unicode61 remove_diacritics 2');
"""


def query_terms(query: str) -> list[str]:
    """Distinct lower-case words of a query, stop words dropped (all kept if all are stop words)."""
    words = [" ".join(spaced(w).split()) for w in _TOKEN.findall(query.lower())]
    seen: dict[str, None] = {}
    for w in words:
        if w not in _STOP:
            seen.setdefault(w, None)
    if not seen:
        for w in words:
            seen.setdefault(w, None)
    return list(seen)


def _connect(path: str, busy_ms: int) -> sqlite3.Connection:
    if not os.path.exists(path):  # SQLite gives its -wal and -shm files the database's mode
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600))
    conn = sqlite3.connect(path, timeout=busy_ms / 1000, isolation_level=None)
    conn.execute(f"PRAGMA busy_timeout={busy_ms}")
    return conn


def open_index(scope: Scope, busy_ms: int = 5000) -> sqlite3.Connection:
    """Open (or create, or rebuild after a version change) the index of ``scope``."""
    ensure_dir(scope.state_dir)
    path = scope.index_path
    try:
        conn = _connect(path, busy_ms)
        try:
            row = conn.execute("SELECT value FROM meta WHERE name='version'").fetchone()
        except sqlite3.DatabaseError:
            row = None
        if row is not None and row[0] == INDEX_VERSION:
            return conn
        conn.close()
        _rebuild_file(path)
        conn = _connect(path, busy_ms)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.executescript("BEGIN;" + _SCHEMA + "COMMIT;")
        conn.execute("INSERT INTO meta(name, value) VALUES('version', ?)", (INDEX_VERSION,))
        return conn
    except sqlite3.OperationalError as exc:
        raise IndexError_(f"index {path} cannot be opened: {exc}") from exc


def _rebuild_file(path: str) -> None:
    for suffix in ("", "-wal", "-shm"):
        try:
            os.unlink(path + suffix)
        except FileNotFoundError:
            pass


def _read_asset(asset: tree.AssetFile, warn: Warn) -> tuple[frontmatter.Parsed, bool] | None:
    try:
        with open(asset.path, "rb") as fh:
            data = fh.read(MAX_INDEXED_BYTES + 1)
    except OSError as exc:
        warn(f"{asset.path}: cannot be read ({exc.strerror}); skipped. Check its permissions.")
        return None
    truncated = len(data) > MAX_INDEXED_BYTES
    if truncated:  # cut at the last line break, so no character is split
        data = data[:MAX_INDEXED_BYTES].rsplit(b"\n", 1)[0]
    try:
        text = frontmatter.decode(data)
    except UnicodeDecodeError:
        warn(f"{asset.path}: not UTF-8 text; skipped. Save it as UTF-8 or remove it.")
        return None
    if truncated:
        warn(f"{asset.path}: larger than {MAX_INDEXED_BYTES >> 20} MiB; only the start is indexed. "
             "Split it into smaller assets.")
    return frontmatter.split(text), truncated


def _heading(body: str) -> str | None:
    """The body's first line when it is a level-one Markdown heading."""
    for line in body.split("\n", 20)[:20]:
        if line.strip():
            return line[2:].strip() or None if line.startswith("# ") else None
    return None


def _title(asset: tree.AssetFile, meta: dict[str, Any], body: str) -> str:
    """Frontmatter title (a skill's name), else the body's leading ``# heading``, else the file name."""
    title = frontmatter.text_field(meta, "title")
    if title is None and asset.kind == tree.SKILL:
        title = frontmatter.text_field(meta, "name")
    if title is None:
        title = _heading(body)
    if title is None:
        title = asset.key.rsplit("/", 1)[-1]
    return " ".join(title.split())


def _snippet(body: str) -> str:
    text = " ".join(body.split())
    return text[:SNIPPET_CHARS] + ("…" if len(text) > SNIPPET_CHARS else "")


def _insert(conn: sqlite3.Connection, asset: tree.AssetFile, warn: Warn) -> None:
    read = _read_asset(asset, warn)
    if read is None:
        conn.execute(
            "INSERT INTO assets(path, kind, tree_path, key, mtime_ns, size, indexed) VALUES(?,?,?,?,?,?,0)",
            (asset.path, asset.kind, asset.tree_path, asset.key, asset.mtime_ns, asset.size))
        return
    parsed, _ = read
    from .relations import extract  # only indexing needs it
    if parsed.problem:
        warn(f"{asset.path}: {parsed.problem}; frontmatter skipped, body indexed. Fix the frontmatter.")
    meta = parsed.meta
    title = _title(asset, meta, parsed.body)
    tags = frontmatter.tags_field(meta)
    relations = extract.outgoing(asset.kind, asset.tree_path, meta, parsed.body) if not parsed.problem \
        else extract.outgoing(asset.kind, asset.tree_path, {}, parsed.body)
    cur = conn.execute(
        "INSERT INTO assets(path, kind, tree_path, key, mtime_ns, size, indexed, title, author, date, tags,"
        " relations, snippet, codebase) VALUES(?,?,?,?,?,?,1,?,?,?,?,?,?,?)",
        (asset.path, asset.kind, asset.tree_path, asset.key, asset.mtime_ns, asset.size, title,
         frontmatter.text_field(meta, "author"), frontmatter.text_field(meta, "date"),
         json.dumps(tags, ensure_ascii=False), json.dumps(relations, ensure_ascii=False, sort_keys=True),
         _snippet(parsed.body) if asset.kind == tree.WIKI else None, asset.codebase))
    rowid = cur.lastrowid
    conn.execute("INSERT INTO fts(rowid, title, tags, body) VALUES(?,?,?,?)",
                 (rowid, spaced(title), spaced(" ".join(tags)), spaced(parsed.body)))
    targets = {t for _, t in relations.get("declared", ())} | set(relations.get("links", ()))
    conn.executemany("INSERT INTO edges(source, target) VALUES(?, ?)", [(rowid, t) for t in sorted(targets)])


def _meta(conn: sqlite3.Connection, name: str) -> str | None:
    row = conn.execute("SELECT value FROM meta WHERE name = ?", (name,)).fetchone()
    return row[0] if row else None


def _changed_dirs(conn: sqlite3.Connection, now_s: float) -> list[str] | None:
    """The folders to walk again: ``None`` for all of them (a small tree, the interval is over, or
    no walk yet), else the topmost folders whose mtime moved (often none)."""
    count = int(_meta(conn, "assets") or 0)
    if count <= FULL_SCAN_LIMIT:
        return None
    if now_s - float(_meta(conn, "walked_at") or 0) >= FULL_SCAN_EVERY:
        return None
    moved = sorted(path for path, mtime in conn.execute("SELECT path, mtime_ns FROM dirs")
                   if tree.dir_mtime(path) != mtime)
    top: list[str] = []
    for path in moved:  # sorted, so a folder comes before the folders inside it
        if not top or not (path == top[-1] or path.startswith(top[-1] + os.sep)):
            top.append(path)
    return top


def _inside_clause(column: str, folders: list[str]) -> tuple[str, list[str]]:
    """SQL for "``column`` is one of these folders or below one", using the column's index."""
    parts, args = [], []
    for folder in folders:
        parts.append(f"({column} = ? OR ({column} >= ? AND {column} < ?))")
        args += [folder, folder + os.sep, folder + chr(ord(os.sep) + 1)]
    return " OR ".join(parts), args


def refresh(conn: sqlite3.Connection, scope: Scope, warn: Warn, now_s: float = 0.0, force: bool = False) -> int:
    """Bring the index in line with the files on disk; returns how many assets changed.

    Small trees (up to ``FULL_SCAN_LIMIT`` assets) are checked file by file on every call. In
    larger ones a stat per file would dominate the recall, so only the folders whose mtime moved
    (an asset added, removed or renamed, a checkout, an editor's save-by-rename) are walked again;
    everything is walked when the last full walk is ``FULL_SCAN_EVERY`` seconds old, or when a
    hit's own file changed (``force``, see :func:`changed_paths`).
    """
    changed = None if force else _changed_dirs(conn, now_s)
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
    stored_dirs = dict(conn.execute(f"SELECT path, mtime_ns FROM dirs WHERE {where}", args))
    if wanted.keys() == stored.keys() and stored_dirs == dirs and changed is None \
            and int(_meta(conn, "assets") or 0) <= FULL_SCAN_LIMIT:
        return 0
    try:
        conn.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError as exc:
        raise IndexError_(f"index {scope.index_path} is locked: {exc}") from exc
    try:
        conn.execute(f"DELETE FROM dirs WHERE {where}", args)
        conn.executemany("INSERT OR REPLACE INTO dirs(path, mtime_ns) VALUES(?, ?)", sorted(dirs.items()))
        stored = {tuple(r[1:]): r[0] for r in conn.execute(select, args)}
        gone = [stored[k] for k in stored.keys() - wanted.keys()]
        for chunk in _chunks(gone, 500):
            marks = ",".join("?" * len(chunk))
            conn.execute(f"DELETE FROM fts WHERE rowid IN ({marks})", chunk)
            conn.execute(f"DELETE FROM edges WHERE source IN ({marks})", chunk)
            conn.execute(f"DELETE FROM assets WHERE id IN ({marks})", chunk)
        added = [wanted[k] for k in sorted(wanted.keys() - stored.keys(), key=lambda k: k[1])]
        for asset in added:
            _insert(conn, asset, warn)
        total = len(files) if changed is None else int(_meta(conn, "assets") or 0) + len(added) - len(gone)
        meta = [("assets", str(total))] + ([("walked_at", repr(now_s))] if changed is None else [])
        conn.executemany("INSERT OR REPLACE INTO meta(name, value) VALUES(?, ?)", meta)
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return len(gone) + len(added)


def changed_paths(conn: sqlite3.Connection, paths: list[str]) -> bool:
    """Whether any of these indexed files changed on disk since it was indexed."""
    if not paths:
        return False
    marks = ",".join("?" * len(paths))
    for path, mtime, size in conn.execute(
            f"SELECT path, mtime_ns, size FROM assets WHERE path IN ({marks})", paths):
        try:
            st = os.stat(path)
        except OSError:
            return True
        if st.st_mtime_ns != mtime or st.st_size != size:
            return True
    return False


def _chunks(items: list[int], size: int) -> Iterable[list[int]]:
    for i in range(0, len(items), size):
        yield items[i:i + size]


def _fts_query(terms: list[str], op: str) -> str:
    return f" {op} ".join('"' + t.replace('"', '""') + '"' for t in terms)


# A hit needs a word of the query in its title or tags (teamai's rule); teamwiki pages, whose
# titles are file names, are exempt. Pages of withheld codebases are never hits.
_COLUMNS = "a.kind, a.tree_path, a.key, a.path, a.title, a.author, a.date, a.tags, a.relations, a.snippet"
_SELECT = (
    f"SELECT -bm25(fts, ?, ?, ?) AS score, {_COLUMNS} FROM fts JOIN assets a ON a.id = fts.rowid"
    " WHERE fts MATCH ? AND (a.kind = 'wiki' OR fts.rowid IN (SELECT rowid FROM fts WHERE fts MATCH ?))"
    " AND (a.codebase IS NULL OR a.codebase NOT IN (SELECT value FROM json_each(?)))"
    " ORDER BY score DESC, a.tree_path ASC LIMIT ?")


def search(conn: sqlite3.Connection, terms: list[str], limit: int,
           withheld: frozenset[str] = frozenset()) -> list[Entry]:
    """Best ``limit`` entries: all terms first; any term when that finds fewer than ``limit``."""
    if not terms:
        return []
    heading = "{title tags}: (" + _fts_query(terms, "OR") + ")"
    hidden = json.dumps(sorted(withheld))
    rows = conn.execute(_SELECT, (*WEIGHTS, _fts_query(terms, "AND"), heading, hidden, limit)).fetchall()
    if len(rows) < limit and len(terms) > 1:
        rows = conn.execute(_SELECT, (*WEIGHTS, _fts_query(terms, "OR"), heading, hidden, limit)).fetchall()
    return [_entry(r) for r in rows]


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
