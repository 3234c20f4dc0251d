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

from . import paths

# Patterns that hold only at a line's start begin with the line break before it and are run over
# the text with one put in front, so a match starts where its line does. (``^`` in multi-line mode
# is tried at every character, which cost more than all the rest of link finding.)
_FENCE_LINE = re.compile(r"\n {0,3}(`{3,}|~{3,})")
# A run of backticks, then everything up to the next run of exactly as many. Between them, text
# without backticks is taken a stretch at a time and other runs a backtick at a time: matching
# the fewest characters one by one (``.*?``) tested for the closing run at every character.
# Each pattern that may start anywhere begins with the character it needs (a backtick, a
# bracket) and only then looks behind it: the engine then jumps from one such character to the
# next instead of trying the whole pattern at every character of the text, which made link
# finding a large part of indexing a tree.
_CODE_SPAN = re.compile(r"(`(?<!``)`*)(?!`)(?:[^`]++|(?!(?<!`)\1(?!`))`)*+(?<!`)\1(?!`)")
_DEST = r"(<[^<>\n]*>|[^\s()<>]*(?:\([^\s()]*\)[^\s()]*)*)"
_TITLE = r"""(?:\s+(?:"[^"\n]*"|'[^'\n]*'|\([^()\n]*\)))?"""
_INLINE = re.compile(r"\[(?<![!\\]\[)(?:[^\[\]\n]|\[[^\[\]\n]*\])*\]\(\s*" + _DEST + _TITLE + r"\s*\)")
_DEFINITION = re.compile(r"\n {0,3}\[(?:[^\[\]\n]|\\\])+\]:[ \t]*(<[^<>\n]*>|\S+)")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:")
# What a code span is blanked to: not white space, so a line that opens with a code span does not
# become a line that opens with a definition (`` `x` [r]: y `` is a paragraph), and not a character
# the link rules look at (``!``, ``\``, brackets, parentheses).
_SPAN_BLANK = "_"


def _prose(text: str) -> str:
    """The text outside fenced code blocks, with code spans blanked to one ``_`` (offsets are not
    needed).

    A fenced block is blanked from its opening line to its closing line (or to the end), each of
    its lines left empty. Only lines that start like a fence can open or close one, so those are
    found with one scan instead of matching every line."""
    if "```" not in text and "~~~" not in text:  # no fence can open: every line is kept
        return _CODE_SPAN.sub(_SPAN_BLANK, text) if "`" in text else text
    out: list[str] = []
    kept_from = 0  # the start of the text not yet copied
    fence: str | None = None
    opened = 0
    for match in _FENCE_LINE.finditer("\n" + text):
        start = match.start()
        end = text.find("\n", start)
        end = len(text) if end == -1 else end
        marker = match.group(1)
        if fence is None:
            fence, opened = marker, start
        elif marker[0] == fence[0] and len(marker) >= len(fence) and not text[start:end].strip().lstrip(fence[0]):
            out += (text[kept_from:opened], "\n" * text.count("\n", opened, end))
            fence, kept_from = None, end
    if fence is not None:
        out += (text[kept_from:opened], "\n" * text.count("\n", opened))
    else:
        out.append(text[kept_from:])
    return _CODE_SPAN.sub(_SPAN_BLANK, "".join(out))


def local_targets(text: str) -> list[str]:
    """Local link destinations in file order, without anchor or query, percent-decoded."""
    if "](" not in text and "]:" not in text:  # neither form can match (blanking code adds neither)
        return []
    prose = _prose(text)
    found = [(m.start(), m.group(1)) for m in _INLINE.finditer(prose)]
    if "]:" in prose:
        found += [(m.start(), m.group(1)) for m in _DEFINITION.finditer("\n" + prose)]
    out: list[str] = []
    for _, dest in sorted(found):
        if dest.startswith("<") and dest.endswith(">"):
            dest = dest[1:-1]
        dest = dest.strip()
        if not dest or _SCHEME.match(dest) or dest.startswith("/"):
            continue
        dest = re.split(r"[#?]", dest, maxsplit=1)[0]
        if "%" in dest:  # urllib.parse costs a fresh process a few ms; most links need none of it
            from urllib.parse import unquote

            dest = unquote(dest)
        if dest:
            out.append(dest)
    return out


def resolve(dest: str, source_file: str) -> paths.Target | None:
    """The asset a link written in ``source_file`` (a path in the tree) lands on, if any."""
    joined = posixpath.join(posixpath.dirname(source_file), dest)
    try:
        return paths.target(paths.normalise(joined))
    except paths.BadPath:
        return None
