"""Which codebases' teamwiki pages this directory may see.

The withheld list (``TEAMAI_WITHHELD_FILE``) holds one codebase slug per line; ``#`` starts a
comment. Recall's hits leave out a withheld codebase's pages (filtered inside ``index.search``).
Recall hits and relations read it differently on purpose: when the list is named but
cannot be read, recall keeps showing pages (as teamai does today), while relations resolve no
teamwiki target at all, since a relation line would print the path of a page that may be withheld.
"""

from __future__ import annotations

from ..team.config import Config
from ..team.tree import WIKI, WIKI_PREFIX


def withheld(cfg: Config) -> frozenset[str] | None:
    """The withheld codebase slugs; ``None`` when the list is named but cannot be read."""
    if not cfg.withheld_file:
        return frozenset()
    from .. import bounded  # only when a list is named: a warm recall stays light (ARCHITECTURE.md)

    try:
        text = bounded.read_file(cfg.withheld_file, bounded.WITHHELD_LIST).decode("utf-8")
    except (OSError, UnicodeDecodeError, bounded.TooLarge):
        return None
    slugs = (line.split("#", 1)[0].strip() for line in text.splitlines())
    return frozenset(s for s in slugs if s)


def hidden_from_hits(cfg: Config) -> frozenset[str]:
    """The codebases whose pages recall leaves out of its hits (an unreadable list hides none)."""
    return withheld(cfg) or frozenset()


def codebase(tree_path: str) -> str | None:
    if not tree_path.startswith(WIKI_PREFIX):
        return None
    return tree_path[len(WIKI_PREFIX):].split("/", 1)[0]


def page_visible(kind: str, tree_path: str, hidden: frozenset[str] | None) -> bool:
    """Whether an asset may be shown, given the withheld slugs (``None``: no page may)."""
    if kind != WIKI:
        return True
    if hidden is None:
        return False
    return codebase(tree_path) not in hidden
