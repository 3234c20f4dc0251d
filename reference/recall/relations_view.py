"""Attach ``Related:`` lines to recall hits, one scope at a time.

Runs after recall has chosen its hits: it can add lines to a hit but never add, drop or reorder
one. Each scope's relations resolve against that scope's own index. In the inherited user scope,
an entry that a workspace entry shadows (same kind and vote key) takes no part in relations.

Only the part of the graph that touches the hits is loaded: the hits, the targets of their
outgoing relations, and the sources whose stored outgoing relations name a hit. That is every
node a hit's lines can mention, so the lines are the same as over the whole scope, and recall stays
fast at 50k assets (``index.entries_at``, and ``index.sources_of`` over the ``edges`` table that
mirrors the stored outgoing relations).

Stored rows can lag the disk in large trees (an in-place edit moves no folder's mtime), so every
node about to be used is checked against the disk first (:func:`attach`); a removed ``related:``
entry never shows. A relation added by an in-place edit of a file not yet in the neighbourhood
appears with the next walk of its folder (within five minutes), like any other such edit.
"""

from __future__ import annotations

from ..relations import visibility
from ..relations.resolve import Graph, targets_of
from ..team.config import Config
from . import index
from ._sqlite import sqlite3
from .run import Hit, Searched, with_related
from .scope_index import ScopeIndex


def _neighbourhood(conn: sqlite3.Connection, hits: list[Hit]) -> list[index.Entry]:
    here = {h.entry.tree_path for h in hits}
    around = set(here)
    for hit in hits:
        around.update(targets_of(hit.entry.relations))
    found = {e.tree_path: e for e in index.entries_at(conn, around)}
    for source in index.sources_of(conn, here):
        found.setdefault(source.tree_path, source)
    return [found[k] for k in sorted(found)]


def _exact_neighbourhood(handle: ScopeIndex, hits: list[Hit]) -> list[index.Entry]:
    """The neighbourhood, with every file in it checked against the disk first.

    Incoming relations are never cached: a large tree notices an in-place edit only through a
    hit's own file or a periodic walk, so every source and target about to be printed has its
    (mtime, size) compared, and the files that changed are re-read before the lines are built.
    When the index is busy and cannot take them, what they declare is left out (they still
    resolve as targets: being one does not depend on their content)."""
    nodes = _neighbourhood(handle.conn, hits)
    changed = index.changed_paths(handle.conn, [e.path for e in nodes])
    if not changed:
        return nodes
    if handle.reindex(changed):
        return _neighbourhood(handle.conn, hits)
    stale = set(changed)
    return [e._replace(relations={}) if e.path in stale else e for e in nodes]


def attach(cfg: Config, searched: Searched) -> list[Hit]:
    hits = list(searched.hits)
    if not hits:
        return hits
    hidden = visibility.withheld(cfg)
    active = cfg.active.name
    graphs: dict[str, Graph] = {}
    for name, handle in searched.indexes.items():
        mine = [h for h in hits if h.scope_name == name]
        if not mine:
            continue
        nodes = _exact_neighbourhood(handle, mine)
        shadow = searched.indexes[active].conn if name != active else None
        graphs[name] = Graph(
            e for e in nodes
            if visibility.page_visible(e.kind, e.tree_path, hidden)
            and (shadow is None or not index.has_key(shadow, e.kind, e.key)))
    return with_related(hits, [tuple(graphs[h.scope_name].lines(h.entry)) if h.scope_name in graphs else ()
                               for h in hits])
