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
from dataclasses import dataclass
from typing import Any

from . import frontmatter, tree
from .config import Scope
from .relations import extract
from .storage import ensure_dir

INDEX_VERSION = "4"
MAX_INDEXED_BYTES = 1 << 20  # a larger asset is indexed up to here, with a warning
SNIPPET_CHARS = 160
WEIGHTS = (3.0, 2.0, 1.0)  # title, tags, body

_STOP = frozenset(
    "a an and are as at be but by for from how i if in into is it its me my of on or our so that the "
    "their then there these this to was we what when where which who why will with you your do does did "
    "can could should would".split()
)
_TOKEN = re.compile(r"\w+", re.UNICODE)

Warn = Callable[[str], None]


class IndexError_(RuntimeError):
    """The index cannot be opened or written (locked beyond the busy timeout, unwritable...)."""


@dataclass(frozen=True, slots=True)
class Entry:
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
  title TEXT, author TEXT, date TEXT, tags TEXT, relations TEXT, snippet TEXT);
CREATE INDEX assets_tree ON assets(tree_path);
CREATE VIRTUAL TABLE fts USING fts5(title, tags, body, tokenize='porter unicode61 remove_diacritics 2');
"""


def query_terms(query: str) -> list[str]:
    """Distinct lower-case words of a query, stop words dropped (all kept if all are stop words)."""
    words = [w.lower() for w in _TOKEN.findall(query)]
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
    if truncated:
        data = data[:MAX_INDEXED_BYTES]
    try:
        text = frontmatter.decode(data)
    except UnicodeDecodeError:
        if truncated:  # the cut may have split a character
            try:
                text = frontmatter.decode(data[:-4].rsplit(b"\n", 1)[0])
            except UnicodeDecodeError:
                text = None
        else:
            text = None
        if text is None:
            warn(f"{asset.path}: not UTF-8 text; skipped. Save it as UTF-8 or remove it.")
            return None
    if truncated:
        warn(f"{asset.path}: larger than {MAX_INDEXED_BYTES >> 20} MiB; only the start is indexed. "
             "Split it into smaller assets.")
    return frontmatter.split(text), truncated


def _title(asset: tree.AssetFile, meta: dict[str, Any]) -> str:
    title = frontmatter.text_field(meta, "title")
    if title is None and asset.kind == tree.SKILL:
        title = frontmatter.text_field(meta, "name")
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
    if parsed.problem:
        warn(f"{asset.path}: {parsed.problem}; frontmatter skipped, body indexed. Fix the frontmatter.")
    meta = parsed.meta
    title = _title(asset, meta)
    tags = frontmatter.tags_field(meta)
    relations = extract.outgoing(asset.kind, asset.tree_path, meta, parsed.body) if not parsed.problem \
        else extract.outgoing(asset.kind, asset.tree_path, {}, parsed.body)
    cur = conn.execute(
        "INSERT INTO assets(path, kind, tree_path, key, mtime_ns, size, indexed, title, author, date, tags,"
        " relations, snippet) VALUES(?,?,?,?,?,?,1,?,?,?,?,?,?)",
        (asset.path, asset.kind, asset.tree_path, asset.key, asset.mtime_ns, asset.size, title,
         frontmatter.text_field(meta, "author"), frontmatter.text_field(meta, "date"),
         json.dumps(tags, ensure_ascii=False), json.dumps(relations, ensure_ascii=False, sort_keys=True),
         _snippet(parsed.body) if asset.kind == tree.WIKI else None))
    conn.execute("INSERT INTO fts(rowid, title, tags, body) VALUES(?,?,?,?)",
                 (cur.lastrowid, title, " ".join(tags), parsed.body))


def refresh(conn: sqlite3.Connection, scope: Scope, warn: Warn) -> int:
    """Bring the index in line with the files on disk; returns how many assets changed."""
    files = tree.walk(scope.team, scope.learnings_roots)
    wanted = {(a.path, a.tree_path, a.mtime_ns, a.size): a for a in files}
    stored = {tuple(r[1:]): r[0] for r in conn.execute(
        "SELECT id, path, tree_path, mtime_ns, size FROM assets")}
    if wanted.keys() == stored.keys():
        return 0
    try:
        conn.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError as exc:
        raise IndexError_(f"index {scope.index_path} is locked: {exc}") from exc
    try:
        stored = {tuple(r[1:]): r[0] for r in conn.execute(
            "SELECT id, path, tree_path, mtime_ns, size FROM assets")}
        gone = [stored[k] for k in stored.keys() - wanted.keys()]
        for chunk in _chunks(gone, 500):
            marks = ",".join("?" * len(chunk))
            conn.execute(f"DELETE FROM fts WHERE rowid IN ({marks})", chunk)
            conn.execute(f"DELETE FROM assets WHERE id IN ({marks})", chunk)
        added = [wanted[k] for k in sorted(wanted.keys() - stored.keys(), key=lambda k: k[1])]
        for asset in added:
            _insert(conn, asset, warn)
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return len(gone) + len(added)


def _chunks(items: list[int], size: int) -> Iterable[list[int]]:
    for i in range(0, len(items), size):
        yield items[i:i + size]


def _fts_query(terms: list[str], op: str) -> str:
    return f" {op} ".join('"' + t.replace('"', '""') + '"' for t in terms)


# A hit needs a word of the query in its title or tags (teamai's rule); teamwiki pages, whose
# titles are file names, are exempt.
_SELECT = (
    "SELECT -bm25(fts, ?, ?, ?) AS score, a.kind, a.tree_path, a.key, a.path, a.title, a.author, a.date,"
    " a.tags, a.relations, a.snippet FROM fts JOIN assets a ON a.id = fts.rowid WHERE fts MATCH ?"
    " AND (a.kind = 'wiki' OR fts.rowid IN (SELECT rowid FROM fts WHERE fts MATCH ?))"
    " ORDER BY score DESC, a.tree_path ASC LIMIT ?")


def search(conn: sqlite3.Connection, terms: list[str], limit: int) -> list[Entry]:
    """Best ``limit`` entries: all terms first; any term when that finds fewer than ``limit``."""
    if not terms:
        return []
    heading = "{title tags}: (" + _fts_query(terms, "OR") + ")"
    rows = conn.execute(_SELECT, (*WEIGHTS, _fts_query(terms, "AND"), heading, limit)).fetchall()
    if len(rows) < limit and len(terms) > 1:
        rows = conn.execute(_SELECT, (*WEIGHTS, _fts_query(terms, "OR"), heading, limit)).fetchall()
    return [_entry(r) for r in rows]


def _entry(row: tuple[Any, ...]) -> Entry:
    score, kind, tree_path, key, path, title, author, date, tags, relations, snippet = row
    return Entry(kind, tree_path, key, path, title, author, date, tuple(json.loads(tags or "[]")),
                 json.loads(relations or "{}"), snippet, round(float(score), 6))


def entries(conn: sqlite3.Connection) -> list[Entry]:
    """Every indexed asset, by tree path (for relations and checks)."""
    rows = conn.execute(
        "SELECT 0, kind, tree_path, key, path, title, author, date, tags, relations, snippet FROM assets"
        " WHERE indexed = 1 ORDER BY tree_path").fetchall()
    return [_entry(r) for r in rows]
