"""One scope's index as recall uses it, whatever the state folder allows.

An agent must get its hits even when the index cannot be kept, so recall degrades instead of
failing, and says so on one line:

- ``stored``: the index file, refreshed before the search (the normal case).
- ``as it was``: another process held the stored index past the wait while this one had to
  write it, so it is searched as it was (the newest edits may be missing). Busy is never a reason
  to rebuild, and the work the other process is doing is not done twice.
- ``read-only``: ``recall --check`` (which writes nothing at all), or a state folder that cannot
  be written. The stored file is read, never written; when the tree changed since it was
  written, a private copy in memory is brought up to date and searched instead.
- ``memory``: there is no usable stored file, so the tree is indexed in memory for this one
  process (it costs what a cold index build costs).
"""

from __future__ import annotations

from collections.abc import Callable

from ..team.config import WRITABLE_HINT, Scope
from . import index, index_build
from ._sqlite import sqlite3

STORED, AS_IT_WAS, READ_ONLY, MEMORY = "stored", "as it was", "read-only", "memory"


class ScopeIndex:
    __slots__ = ("scope", "conn", "mode", "_warn", "_now_s", "_busy_s", "_limit")

    def __init__(self, scope: Scope, warn: Callable[[str], None], now_s: float, busy_s: float,
                 write: bool = True, limit: int | None = None) -> None:
        self.scope = scope
        self._warn = warn
        self._now_s = now_s
        self._busy_s = busy_s
        self._limit = limit
        problem = None
        if write:
            try:
                self.conn = index.open_index(scope, warn, busy_s)
                self.mode = STORED
                return
            except index.IndexError_ as exc:
                problem = exc
        stored = index.open_readonly(scope)
        if stored is not None:
            self.conn, self.mode = stored, READ_ONLY
        else:
            self.conn, self.mode = index.memory(), MEMORY
        if problem is not None:
            how = "read the stored index without writing it" if stored is not None \
                else "searched the team tree without a stored index"
            hint = "" if isinstance(problem, index.IndexBusy) else f"; {WRITABLE_HINT}"
            warn(f"{problem}; {how}{hint}")

    def refresh(self, force: bool = False) -> None:
        """Bring what is searched up to date with the tree, as far as this mode may."""
        if self.mode == STORED:
            try:
                index_build.refresh(self.conn, self.scope, self._warn, self._now_s, force, limit=self._limit)
            except index.IndexBusy as exc:
                self._warn(f"{exc}; searched it as it was, so the newest edits may be missing")
                self.mode = AS_IT_WAS  # and not waited for again in this process
            except index.IndexUnwritable as exc:
                self._warn(f"{exc}; searched a private copy of it; {WRITABLE_HINT}")
                self._to_memory()
                index_build.refresh(self.conn, self.scope, self._warn, self._now_s, force, limit=self._limit)
            return
        if self.mode == AS_IT_WAS:
            return
        if self.mode == READ_ONLY:
            try:
                if not index_build.refresh(self.conn, self.scope, self._warn, self._now_s, force, dry=True,
                                           limit=self._limit):
                    return
                self._to_memory()
            except sqlite3.Error:  # a read of the immutable file failed: index the tree instead
                self._fresh_memory()
        index_build.refresh(self.conn, self.scope, self._warn, self._now_s, force, limit=self._limit)

    def fresh_search(self, terms: list[str], limit: int, hidden: frozenset[str]) -> list[index.Entry]:
        """:meth:`refresh`, then :meth:`search`; where the refresh would only compare the folders'
        mtimes, that comparison runs while the index is searched (``index_build.FolderProbe``), and the
        search is done again after a refresh only when a folder moved."""
        check = None
        if self.mode in (STORED, READ_ONLY):
            try:
                check = index_build.probe(self.conn, self._now_s, self._limit)
            except sqlite3.Error:
                check = None  # the refresh below meets the same trouble and deals with it
        if check is None:
            self.refresh()
            return self.search(terms, limit, hidden)
        mode = self.mode
        entries = self.search(terms, limit, hidden)
        if check.moved() and self.mode == mode:  # (a failed read-only search indexed the tree anew)
            self.refresh()
            entries = self.search(terms, limit, hidden)
        return entries

    def search(self, terms: list[str], limit: int, hidden: frozenset[str]) -> list[index.Entry]:
        try:
            return index.search(self.conn, terms, limit, hidden)
        except sqlite3.Error:
            if self.mode != READ_ONLY:
                raise
        self._fresh_memory()
        index_build.refresh(self.conn, self.scope, self._warn, self._now_s, limit=self._limit)
        return index.search(self.conn, terms, limit, hidden)

    def reindex(self, paths: list[str]) -> bool:
        """Re-read these indexed files now (their content changed on disk); ``False`` when the
        index cannot take the change (busy), so the caller must not trust their stored rows."""
        if self.mode == AS_IT_WAS:
            return False
        if self.mode == READ_ONLY:
            self._to_memory()
        try:
            index_build.reindex(self.conn, self.scope, paths, self._warn)
        except index.IndexBusy as exc:
            self._warn(f"{exc}; the relations of {len(paths)} file(s) edited since they were indexed are left out")
            self.mode = AS_IT_WAS
            return False
        except index.IndexUnwritable:
            self._to_memory()
            index_build.reindex(self.conn, self.scope, paths, self._warn)
        return True

    def _to_memory(self) -> None:
        try:
            copy = index.copy_to_memory(self.conn)
        except sqlite3.Error:
            copy = index.memory()
        self.conn.close()
        self.conn, self.mode = copy, MEMORY

    def _fresh_memory(self) -> None:
        self.conn.close()
        self.conn, self.mode = index.memory(), MEMORY

    def close(self) -> None:
        self.conn.close()
