"""Which asset a path in the team tree names, by its shape alone.

One mapping serves declarations and Markdown links, so ``docs/x.md`` means the same asset
whichever way it was written. Accepted spellings (after POSIX normalisation):

- ``rules/<path>.md`` and ``docs/<path>.md``
- ``learnings/<id>``; ``learnings/<id>.md`` is the file of that learning and names it too
- ``skills/<dir>``; ``skills/<dir>/SKILL.md`` is the skill's file and names it too
- ``teamwiki/evidence/code/<slug>/<path>.md``

Whether the asset exists is a separate question, answered by whoever knows the scope or branch.
"""

from __future__ import annotations

import posixpath

from ..team.tree import DOC, LEARNING, RULE, SKILL, WIKI, WIKI_PREFIX

TYPE_CHECKING = False  # typing is imported only by type checkers: it costs a fresh process ~4 ms
if TYPE_CHECKING:
    from typing import NamedTuple
else:  # dataclasses would cost a recall that re-reads one file the import of inspect
    from .._tuples import NamedTuple

PREFIXES = ("rules/", "docs/", "learnings/", "skills/", WIKI_PREFIX)


class Target(NamedTuple):
    kind: str
    tree_path: str


class BadPath(ValueError):
    """The path cannot name an asset: absolute, leaving the tree, or outside every asset folder."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


ABSOLUTE, LEAVES_TREE, NO_PREFIX = "absolute", "leaves-tree", "no-prefix"


def normalise(path: str) -> str:
    """POSIX normal form; raises ``BadPath`` for an absolute path or one that climbs out of the tree."""
    if path.startswith("/"):
        raise BadPath(ABSOLUTE)
    if not path.isprintable():  # no asset file name holds a newline or a control character
        raise BadPath(NO_PREFIX)
    norm = posixpath.normpath(path) if path else ""
    if norm == ".." or norm.startswith("../") or "/../" in norm:
        raise BadPath(LEAVES_TREE)
    return "" if norm == "." else norm


def target(norm: str) -> Target:
    """The asset a normalised tree path names; raises ``BadPath(NO_PREFIX)`` when it names none."""
    if norm.startswith(WIKI_PREFIX):
        rest = norm[len(WIKI_PREFIX):]
        if "/" in rest and norm.endswith(".md") and not rest.endswith("/.md"):
            return Target(WIKI, norm)
    elif norm.startswith(("rules/", "docs/")):
        if norm.endswith(".md") and not norm.endswith("/.md"):
            return Target(RULE if norm.startswith("rules/") else DOC, norm)
    elif norm.startswith("learnings/"):
        ident = norm[len("learnings/"):]
        if ident.endswith(".md"):
            ident = ident[:-3]
        if ident and not ident.endswith("/"):
            return Target(LEARNING, "learnings/" + ident)
    elif norm.startswith("skills/"):
        directory = norm[len("skills/"):]
        if directory.endswith("/SKILL.md"):
            directory = directory[: -len("/SKILL.md")]
        if directory and directory != "SKILL.md":
            return Target(SKILL, "skills/" + directory)
    raise BadPath(NO_PREFIX)


def of_file(tree_path: str, kind: str) -> str:
    """The file a tree path stands for, as a path in the tree (what a relative link starts from)."""
    if kind == LEARNING:
        return tree_path + ".md"
    if kind == SKILL:
        return tree_path + "/SKILL.md"
    return tree_path
