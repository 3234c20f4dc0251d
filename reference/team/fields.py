"""What of an asset file is searched, and under which field.

Recall finds a document by what it says about itself (its *heads*: title, tags, what it is for,
its name) and by what it contains (its *body*). Both views are scored on their own, so a short
title is not drowned by a long body (see ``ranking.py``). The heads:

- **title**: the frontmatter ``title`` (a skill's ``name``), else the body's leading ``# heading``,
  else the last part of the vote key; it is also what recall prints.
- **tags**: the frontmatter ``tags``.
- **about**: what the asset is for: the frontmatter ``description`` (where skills and rules say
  when to use them), else the opening paragraph of prose, which is where a page without a
  description says what it is about (a package README's one-line summary, a design doc's
  abstract). A skill's ``name`` is added, so a skill is found by what it is for and by its name.
- **name**: the words of its file name (a skill's folder name), with the folder above when the
  file name says nothing (``index.md``, ``README.md``), since names are chosen to describe. A
  published learning's date-and-hash suffix is left out.
"""

from __future__ import annotations

import re

from . import frontmatter, tree

TYPE_CHECKING = False  # typing is imported only by type checkers: it costs a fresh process ~4 ms
if TYPE_CHECKING:
    from typing import Any

SNIPPET_CHARS = 160
LEAD_WORDS = 40  # an opening paragraph is cut here: a summary, not the body again
_GENERIC_NAMES = frozenset({"index", "readme", "overview", "skill", "introduction", "intro"})
_DATED = re.compile(r"-\d{4}-\d{2}-\d{2}(-[0-9a-f]{6})?$")
_NOT_PROSE = ("#", "```", "~~~", "|", "<", "!", "---", "- ", "* ", "+ ", "1.", "[")


def heading(body: str) -> str | None:
    """The body's first line when it is a level-one Markdown heading."""
    for line in body.split("\n", 20)[:20]:
        if line.strip():
            return line[2:].strip() or None if line.startswith("# ") else None
    return None


def title(asset: tree.AssetFile, meta: dict[str, Any], body: str) -> str:
    """Frontmatter title (a skill's name), else the body's leading ``# heading``, else the key's
    last part."""
    found = frontmatter.text_field(meta, "title")
    if found is None and asset.kind == tree.SKILL:
        found = frontmatter.text_field(meta, "name")
    if found is None:
        found = heading(body)
    if found is None:
        found = asset.key.rsplit("/", 1)[-1]
    return " ".join(found.split())


def lead(body: str) -> str | None:
    """The first paragraph of prose (a quote counts; headings, lists, tables and code do not)."""
    for block in body.split("\n\n", 16)[:16]:
        text = block.strip()
        if not text or text.startswith(_NOT_PROSE):
            continue
        text = text.lstrip("> ").strip()
        return " ".join(text.split()[:LEAD_WORDS]) or None
    return None


def about(asset: tree.AssetFile, meta: dict[str, Any], body: str) -> str:
    parts = [frontmatter.text_field(meta, "description") or lead(body)]
    if asset.kind == tree.SKILL:
        parts.append(frontmatter.text_field(meta, "name"))
    return " ".join(p for p in parts if p)


def name(asset: tree.AssetFile) -> str:
    path = asset.tree_path[:-3] if asset.tree_path.endswith(".md") else asset.tree_path
    parts = path.split("/")
    last = _DATED.sub("", parts[-1]) if asset.kind == tree.LEARNING else parts[-1]
    found = [last]
    if last.lower() in _GENERIC_NAMES and len(parts) > 2:
        found.insert(0, parts[-2])
    return " ".join(found).replace("-", " ")


def snippet(body: str) -> str:
    text = " ".join(body.split())
    return text[:SNIPPET_CHARS] + ("…" if len(text) > SNIPPET_CHARS else "")
