"""What one asset says about its relations, computed once when the asset is indexed.

Stored on the index entry as ``{"declared": [[RELATION, target], ...], "links": [target, ...]}``,
both in file order, targets as tree paths. Only what the vocabulary table allows is stored, so
nothing later can turn an illegal declaration into a relation. Whether a target exists is not
known here: it depends on the scope at query time, and is settled by ``resolve``.

Only rules, docs and learnings are read for relations: skills and teamwiki pages declare nothing
and their links are not read. A link that lands on an asset is a REFERENCES relation; anything else
is prose. A change of the stored shape bumps ``index.INDEX_VERSION``.
"""

from __future__ import annotations

from . import declarations, links, paths, vocabulary

TYPE_CHECKING = False  # typing is imported only by type checkers: it costs a fresh process ~4 ms
if TYPE_CHECKING:
    from typing import Any

EMPTY: dict[str, Any] = {"declared": [], "links": []}


def outgoing(kind: str, tree_path: str, meta: dict[str, Any], body: str) -> dict[str, Any]:
    if not vocabulary.declares(kind):
        return {"declared": [], "links": []}
    parsed = declarations.parse(kind, tree_path, meta)
    declared = [[d.relation, d.target] for d in parsed.declarations]
    source_file = paths.of_file(tree_path, kind)
    targets: dict[str, None] = {}  # in file order, each once (a page of thousands of links stays linear)
    for dest in links.local_targets(body):
        found = links.resolve(dest, source_file)
        if found is not None and found.tree_path != tree_path:
            targets[found.tree_path] = None
    return {"declared": declared, "links": list(targets)}
