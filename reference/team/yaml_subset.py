"""The frontmatter most asset files carry, read without PyYAML.

Building the index parses every file's frontmatter, and PyYAML's constructors (run in Python
even with its C parser) cost more than everything else the build does to a file. Almost every
real block is a handful of ``key: value`` lines: plain or quoted one-line scalars, flow lists
(``tags: [a, b]``), and at most one level of nesting (a ``related:`` block, a list of tags, a
``metadata:`` map). :func:`load` reads exactly that subset and returns ``None`` for anything
else (anchors, block scalars, multi-line scalars, floats, escapes, comments after a value,
tabs, characters ``str.isprintable`` does not accept, deeper nesting...), which the caller then
gives to PyYAML. Whatever it returns is what PyYAML's safe loader returns for the same text,
types included: YAML 1.1 booleans and nulls, decimal integers and ``YYYY-MM-DD`` dates are
resolved as PyYAML resolves them, and every other plain scalar that PyYAML might resolve to
something other than a string (it starts with a digit, a sign, ``.``, ``~``, ``<`` or ``=``) is
left to PyYAML. ``tests/test_yaml_subset.py`` holds it to that.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False  # typing is imported only by type checkers: it costs a fresh process ~4 ms
if TYPE_CHECKING:
    from typing import Any

_KEY = re.compile(r"([A-Za-z_][A-Za-z0-9_-]*):(?: +(.*))?")
_INT = re.compile(r"[-+]?(?:0|[1-9][0-9]*)")
_DATE = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})")
# YAML 1.1 as PyYAML resolves plain scalars: these words are booleans and nulls, not strings.
_TRUE = frozenset("yes Yes YES true True TRUE on On ON".split())
_FALSE = frozenset("no No NO false False FALSE off Off OFF".split())
_NULL = frozenset("~ null Null NULL".split())
_WORDS = {**dict.fromkeys(_TRUE, True), **dict.fromkeys(_FALSE, False), **dict.fromkeys(_NULL)}
_NOT_A_WORD = object()
# A plain scalar starting with one of these may be a number, a date, a null, a merge or value key.
_RESOLVABLE_START = frozenset("-+0123456789.~<=")
# Characters that cannot start a plain scalar (or that this reader leaves to PyYAML there).
_INDICATORS = frozenset("-?:,[]{}#&*!|>'\"%@`")
_FLOW_FORBIDDEN = frozenset("[]{}#&*!|>'\"%@`?:")


class _Unsupported(Exception):
    """Outside the subset: PyYAML decides."""


def load(block: str) -> dict[str, Any] | None:
    """The mapping a frontmatter block holds, or ``None`` when PyYAML must read it."""
    if "\t" in block:
        return None
    lines = block.split("\n")
    for line in lines:
        if not line.isprintable():
            return None
    try:
        return _mapping(lines)
    except _Unsupported:
        return None


def _content(line: str) -> bool:
    stripped = line.lstrip(" ")
    return bool(stripped) and not stripped.startswith("#")


def _mapping(lines: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    i, n = 0, len(lines)
    while i < n:
        line = lines[i]
        i += 1
        if not line or line[0] == "#":
            continue
        if line[0] == " ":
            if _content(line):
                raise _Unsupported
            continue
        key, value = _key_line(line)
        if value:
            out[key] = _value(value)
            continue
        # An empty value: a nested block may follow.
        j = i
        while j < n and not _content(lines[j]):
            j += 1
        if j == n:
            out[key] = None
            break
        nxt = lines[j]
        indent = len(nxt) - len(nxt.lstrip(" "))
        if nxt[indent:indent + 2] == "- " or nxt[indent:] == "-":
            out[key], i = _sequence(lines, j, indent)
        elif indent > 0:
            out[key], i = _nested(lines, j, indent)
        else:
            out[key] = None
    return out


def _key_line(line: str) -> tuple[str, str]:
    match = _KEY.fullmatch(line.rstrip(" "))
    if match is None:
        raise _Unsupported
    key = match.group(1)
    if key in _WORDS:
        raise _Unsupported
    return key, match.group(2) or ""


def _block_end(lines: list[str], i: int, indent: int) -> int:
    """The index of the first content line at or left of ``indent`` - 1 (where the block ends)."""
    while i < len(lines):
        line = lines[i]
        if _content(line) and len(line) - len(line.lstrip(" ")) < indent:
            return i
        i += 1
    return i


def _sequence(lines: list[str], start: int, indent: int) -> tuple[list[Any], int]:
    items: list[Any] = []
    i = start
    while i < len(lines):
        line = lines[i]
        if not _content(line):
            i += 1
            continue
        here = len(line) - len(line.lstrip(" "))
        if here < indent or (here == indent == 0 and not line.startswith("-")):
            break
        if here != indent or line[indent:indent + 2] != "- ":
            raise _Unsupported
        value = line[indent + 2:].strip(" ")
        if not value:
            raise _Unsupported
        items.append(_value(value))
        i += 1
    return items, i


def _nested(lines: list[str], start: int, indent: int) -> tuple[dict[str, Any], int]:
    out: dict[str, Any] = {}
    end = _block_end(lines, start, indent)
    for line in lines[start:end]:
        if not _content(line):
            continue
        if len(line) - len(line.lstrip(" ")) != indent:
            raise _Unsupported
        key, value = _key_line(line[indent:])
        if not value:
            raise _Unsupported
        out[key] = _value(value)
    return out, end


def _value(text: str) -> Any:
    """A one-line value: a quoted scalar, a flow list of plain scalars, or a plain scalar."""
    text = text.rstrip(" ")
    first = text[0]
    if first == '"':
        if len(text) < 2 or text[-1] != '"' or '"' in text[1:-1] or "\\" in text:
            raise _Unsupported
        return text[1:-1]
    if first == "'":
        if len(text) < 2 or text[-1] != "'" or "'" in text[1:-1]:
            raise _Unsupported
        return text[1:-1]
    if first == "[":
        return _flow_list(text)
    if first in _INDICATORS or ": " in text or " #" in text or text.endswith(":"):
        raise _Unsupported
    return _plain(text)


def _flow_list(text: str) -> list[Any]:
    if not text.endswith("]"):
        raise _Unsupported
    inner = text[1:-1]
    if not inner.strip(" "):
        return []
    items: list[Any] = []
    i, n = 0, len(inner)
    while True:
        while i < n and inner[i] == " ":
            i += 1
        if i < n and inner[i] in "\"'":  # a quoted item without escapes
            quote = inner[i]
            end = inner.find(quote, i + 1)
            if end == -1 or (quote == '"' and "\\" in inner[i:end]):
                raise _Unsupported
            items.append(inner[i + 1:end])
            i = end + 1
            while i < n and inner[i] == " ":
                i += 1
            if i < n and inner[i] != ",":
                raise _Unsupported  # '' inside a single-quoted item, or text after the quote
        else:
            end = inner.find(",", i)
            end = n if end == -1 else end
            item = inner[i:end].rstrip(" ")
            if not item or item[0] in _INDICATORS or not _FLOW_FORBIDDEN.isdisjoint(item):
                raise _Unsupported
            items.append(_plain(item))
            i = end
        if i >= n:
            return items
        i += 1  # past the comma
        if not inner[i:].strip(" "):
            raise _Unsupported  # a trailing comma


def _plain(text: str) -> Any:
    word = _WORDS.get(text, _NOT_A_WORD)
    if word is not _NOT_A_WORD:
        return word
    if text[0] not in _RESOLVABLE_START:
        return text
    if _INT.fullmatch(text):
        return int(text)
    match = _DATE.fullmatch(text)
    if match:
        import datetime  # only a date pays for it

        year, month, day = match.groups()
        try:
            return datetime.date(int(year), int(month), int(day))
        except ValueError:
            raise _Unsupported from None  # PyYAML says what is wrong with it
    raise _Unsupported
