"""Split an asset's text into frontmatter and body, the way people actually write them.

Real trees have BOMs, CRLF, unquoted ``globs: *.ts`` and frontmatter that is a list or a
string. None of that may abort a recall: a file whose frontmatter does not parse as a YAML
mapping keeps its body, and the caller reports the file once.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing is imported only by type checkers: it costs a fresh process ~4 ms
if TYPE_CHECKING:
    from typing import Any, NamedTuple
else:
    from .._tuples import NamedTuple


class Parsed(NamedTuple):
    meta: dict[str, Any]
    body: str
    problem: str | None = None  # why the frontmatter was skipped, if it was
    body_line: int = 1  # 1-based line where the body starts
    salvaged: dict[str, Any] | None = None  # of a skipped block, what :func:`salvage` could read


def decode(data: bytes) -> str:
    """Text of a file; raises ``UnicodeDecodeError`` for what is not text (NUL bytes included)."""
    if b"\x00" in data:
        raise UnicodeDecodeError("utf-8", data, data.index(b"\x00"), data.index(b"\x00") + 1, "NUL byte")
    text = data.decode("utf-8")
    if text.startswith("\ufeff"):
        text = text[1:]
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _load_yaml(block: str) -> Any:
    import yaml  # only the index builder pays for YAML

    from .. import yaml_strict

    return yaml_strict.load(yaml, block, getattr(yaml, "CSafeLoader", yaml.SafeLoader))


_CLOSERS = ("---", "...")


def split(text: str) -> Parsed:
    """Frontmatter is a leading ``---`` line, YAML, and a closing ``---`` (or ``...``) line."""
    if not text.startswith("---"):
        return Parsed({}, text)
    first_nl = text.find("\n")
    if first_nl == -1 or text[:first_nl].strip() != "---":
        return Parsed({}, text)
    # The closing line is found line by line from the top, without cutting the body into lines:
    # the block ends where it starts, and the body is the rest of the text as it is.
    start = at = first_nl + 1
    while True:
        end = text.find("\n", at)
        stop = len(text) if end == -1 else end
        if text.startswith(_CLOSERS, at) and text[at:stop].rstrip() in _CLOSERS:
            block = text[start:max(start, at - 1)]
            body = "" if end == -1 else text[end + 1:]
            body_line = text.count("\n", start, at) + 3
            break
        if end == -1:
            return Parsed({}, text, "frontmatter has no closing '---' line")
        at = end + 1
    from . import yaml_subset  # only indexing reads frontmatter

    try:
        meta = yaml_subset.load(block) if block.strip() else {}
        if meta is None:  # outside the common subset: PyYAML reads it
            meta = _load_yaml(block)
    except Exception as exc:  # any YAML error: keep the body, report the file
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 2})" if mark is not None else ""
        reason = getattr(exc, "problem", None) or type(exc).__name__
        return Parsed({}, body, f"frontmatter is not valid YAML{where}: {reason}", body_line, salvage(block))
    if meta is None:
        meta = {}
    if not isinstance(meta, dict):
        return Parsed({}, body, f"frontmatter is a {type(meta).__name__}, not a mapping", body_line)
    return Parsed(meta, body, None, body_line)


SALVAGED = ("description",)


def salvage(block: str) -> dict[str, Any]:
    """What a search can still read from a block that is not valid YAML: the top-level
    ``description: one line`` (quotes around it removed). Editors write frontmatter YAML does not
    accept (Cursor's unquoted ``globs: **/*.go`` is an alias to YAML), and the description is
    what such a rule is found by. Only fields that change no printed line are read this way."""
    found: dict[str, Any] = {}
    for line in block.split("\n"):
        key, sep, value = line.partition(":")
        value = value.strip()
        if not sep or key not in SALVAGED or key in found or not value or value[0] in "[{|>&*!%@`#":
            continue
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1].strip()
        elif value[0] in "'\"":
            continue
        if value:
            found[key] = value
    return found


def text_field(meta: dict[str, Any], name: str) -> str | None:
    """A scalar field as text (YAML dates and numbers included); anything else is absent."""
    value = meta.get(name)
    if value is None or isinstance(value, (dict, list, bool)):
        return None
    text = str(value).strip()
    return text or None


def tags_field(meta: dict[str, Any]) -> list[str]:
    value = meta.get("tags")
    if isinstance(value, str):
        items = [v.strip() for v in value.split(",")]
    elif isinstance(value, list):
        items = [str(v).strip() for v in value if isinstance(v, (str, int, float)) and not isinstance(v, bool)]
    else:
        return []
    return [t for t in items if t]
