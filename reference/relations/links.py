"""The one Markdown link parser, and where a link lands in the team tree.

Only local links count: a target with a scheme (``https:``, ``mailto:``) or a leading ``/`` is
not a place in the tree. Code is not prose, so fenced blocks and code spans are skipped. An
``#anchor`` or ``?query`` does not change which file a link names. Images are pictures, not
references, and are skipped.

A link is resolved against the file's place in the team tree, never against where the file
happens to sit on disk: a learning may live in a separate worktree, but ``../docs/x.md`` written
in ``learnings/<id>.md`` still means ``docs/x.md``.
"""

from __future__ import annotations

import posixpath
import re
from urllib.parse import unquote

from . import paths

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`).*?(?<!`)\1(?!`)", re.DOTALL)
_DEST = r"(<[^<>\n]*>|[^\s()<>]*(?:\([^\s()]*\)[^\s()]*)*)"
_TITLE = r"""(?:\s+(?:"[^"\n]*"|'[^'\n]*'|\([^()\n]*\)))?"""
_INLINE = re.compile(r"(?<![!\\])\[(?:[^\[\]\n]|\[[^\[\]\n]*\])*\]\(\s*" + _DEST + _TITLE + r"\s*\)")
_DEFINITION = re.compile(r"^ {0,3}\[(?:[^\[\]\n]|\\\])+\]:[ \t]*(<[^<>\n]*>|\S+)", re.MULTILINE)
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:")


def _prose(text: str) -> str:
    """The text outside fenced code blocks, with code spans blanked (offsets are not needed)."""
    kept: list[str] = []
    fence: str | None = None
    for line in text.split("\n"):
        match = _FENCE.match(line)
        if fence is None:
            if match:
                fence = match.group(1)
                kept.append("")
                continue
            kept.append(line)
        else:
            if match and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence) \
                    and not line.strip().lstrip(fence[0]):
                fence = None
            kept.append("")
    return _CODE_SPAN.sub(" ", "\n".join(kept))


def local_targets(text: str) -> list[str]:
    """Local link destinations in file order, without anchor or query, percent-decoded."""
    prose = _prose(text)
    found = [(m.start(), m.group(1)) for m in _INLINE.finditer(prose)]
    found += [(m.start(), m.group(1)) for m in _DEFINITION.finditer(prose)]
    out: list[str] = []
    for _, dest in sorted(found):
        if dest.startswith("<") and dest.endswith(">"):
            dest = dest[1:-1]
        dest = dest.strip()
        if not dest or _SCHEME.match(dest) or dest.startswith("/"):
            continue
        dest = re.split(r"[#?]", dest, maxsplit=1)[0]
        if dest:
            out.append(unquote(dest))
    return out


def resolve(dest: str, source_file: str) -> paths.Target | None:
    """The asset a link written in ``source_file`` (a path in the tree) lands on, if any."""
    joined = posixpath.join(posixpath.dirname(source_file), dest)
    try:
        return paths.target(paths.normalise(joined))
    except paths.BadPath:
        return None
