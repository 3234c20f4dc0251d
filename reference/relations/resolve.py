"""Turn the outgoing relations stored in one scope's index into the lines a hit shows.

Incoming relations are worked out here, at query time, from every entry's stored outgoing ones
and never cached: a cached incoming edge would outlive its source's edit. A relation resolves
only inside one scope, and only to an entry of that scope's index that is visible, so a relation
whose other end is missing, shadowed or withheld shows nothing.

Order of a hit's lines: declared outgoing, declared incoming, link outgoing, link incoming.
Outgoing lines keep the order of the source file; incoming ones sort by the source's tree path.
A declared relation hides a link between the same two assets in the same direction. At most
``MAX_LINES`` per hit.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from ..recall.index import Entry
from .vocabulary import REFERENCES

TYPE_CHECKING = False  # typing is imported only by type checkers: it costs a fresh process ~4 ms
if TYPE_CHECKING:
    from typing import Any

MAX_LINES = 5
OUT, IN = "→", "←"


def _declared(relations: dict[str, Any]) -> list[tuple[str, str]]:
    items = relations.get("declared") or []
    return [(str(i[0]), str(i[1])) for i in items if isinstance(i, list) and len(i) == 2]


def _links(relations: dict[str, Any]) -> list[str]:
    return [str(t) for t in relations.get("links") or []]


def targets_of(relations: dict[str, Any]) -> set[str]:
    """Every tree path an entry's stored outgoing relations name."""
    return {t for _, t in _declared(relations)} | set(_links(relations))


class Graph:
    """The visible entries of one scope and the edges between them."""

    def __init__(self, entries: Iterable[Entry]) -> None:
        self.nodes: dict[str, Entry] = {e.tree_path: e for e in entries}
        self._in_declared: dict[str, list[tuple[str, int, str]]] = defaultdict(list)
        self._in_links: dict[str, list[str]] = defaultdict(list)
        for source, entry in self.nodes.items():
            declared = _declared(entry.relations)
            targets = {t for _, t in declared}
            for i, (relation, target) in enumerate(declared):
                if target in self.nodes and target != source:
                    self._in_declared[target].append((source, i, relation))
            for target in _links(entry.relations):
                if target in self.nodes and target != source and target not in targets:
                    self._in_links[target].append(source)

    def lines(self, entry: Entry) -> list[str]:
        """The ``Related:`` texts of one hit (without the ``Related: `` prefix)."""
        me = entry.tree_path
        declared = _declared(entry.relations)
        declared_targets = {t for _, t in declared}
        out: dict[str, None] = {}  # each line once, in order (a hub page has thousands of them)

        def add(arrow: str, relation: str, other: str) -> None:
            if len(out) < MAX_LINES:
                out[f"{arrow} {relation} {self.nodes[other].path}"] = None

        for relation, target in declared:
            if target in self.nodes and target != me:
                add(OUT, relation, target)
        for source, _, relation in sorted(self._in_declared.get(me, ())):
            add(IN, relation, source)
        for target in _links(entry.relations):
            if target in self.nodes and target != me and target not in declared_targets:
                add(OUT, REFERENCES, target)
        for source in sorted(self._in_links.get(me, ())):
            add(IN, REFERENCES, source)
        return list(out)
