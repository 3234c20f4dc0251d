"""Which root session a session's runs and reads count for.

``link`` lines lead from a child session to its parent (OpenCode's task tool writes one when a
child session finishes). Each child keeps its earliest link (by ``ts``, then parent id), so a
later or repeated link changes nothing; a line without child, parent or ts links nothing. Following the links upwards gives the root; the sessions
of a cycle share the smallest id in the cycle as their root, so a bad pair of links can never
loop or leave a read without a root. The actor of a read stays the child's own.
"""

from __future__ import annotations

from .logread import instant, text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .logread import Record


def best_links(links: list[Record]) -> dict[str, tuple[int, str, Record]]:
    """Each child's earliest valid link: child -> (ts, parent, the line)."""
    best: dict[str, tuple[int, str, Record]] = {}
    for rec in links:
        child, parent, ts = text(rec.get("child")), text(rec.get("parent")), instant(rec.get("ts"))
        if child is None or parent is None or ts is None or child == parent:
            continue
        if child not in best or (ts, parent) < best[child][:2]:
            best[child] = (ts, parent, rec)
    return best


class Roots:
    """Child -> parent links followed to the root session, safe against cycles."""

    def __init__(self, links: list[Record]) -> None:
        self.parent = {child: parent for child, (_, parent, _) in best_links(links).items()}
        self._cache: dict[str, str] = {}

    def root(self, session: str) -> str:
        cached = self._cache.get(session)
        if cached is not None:
            return cached
        path: list[str] = []
        where: dict[str, int] = {}
        node = session
        while node in self.parent and node not in where and node not in self._cache:
            where[node] = len(path)
            path.append(node)
            node = self.parent[node]
        if node in self._cache:
            top = self._cache[node]
        elif node in where:
            top = min(path[where[node]:])
        else:
            top = node
        for item in path:
            self._cache[item] = top
        self._cache[session] = top
        return top

    def chain(self, session: str) -> list[str]:
        """``session`` and every session above it, each once."""
        out = [session]
        while out[-1] in self.parent and self.parent[out[-1]] not in out:
            out.append(self.parent[out[-1]])
        return out

    def family(self, roots: set[str]) -> set[str]:
        """Every session known to belong to one of ``roots``."""
        out = set(roots)
        for child in self.parent:
            if self.root(child) in roots:
                out.add(child)
        return out
