"""The relations check of one file, shared by ``review --branch`` and ``contribute``.

Both read the file themselves (from a branch, or from the file being published) and ask the
same parser; they differ only in which targets exist and how a missing one is worded.
"""

from __future__ import annotations

import re

from ..team.frontmatter import split
from . import declarations
from .declarations import WARN, Exists, Finding

_RELATED_LINE = re.compile(r"^related[ \t]*:", re.MULTILINE)


def findings(kind: str, tree_path: str, text: str, exists: Exists, missing: str) -> list[Finding]:
    """Every finding about the relations ``text`` declares, in file order."""
    parsed = split(text)
    if parsed.problem and _RELATED_LINE.search(text.split("\n---", 1)[0]):
        return [Finding(WARN, f"the frontmatter cannot be read ({parsed.problem}), so related: is not read",
                        "no relation is read")]
    if parsed.problem:
        return []  # broken frontmatter without a related: block is not this check's business
    return declarations.parse(kind, tree_path, parsed.meta, exists, missing).findings
