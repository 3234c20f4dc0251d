"""The votes ledger of one scope, in teamai's shape and spelling::

    version: 2
    votes:
      redis-timeout:
        recalled_count: 1
        upvoted_count: 0
        last_recalled_at: 2026-11-30T10:00:00.000Z
    deltas:
      redis-timeout:
        recalled_delta: 1
        upvoted_delta: 0

teamai 0.25 reads and writes the same file (its ``YAML.stringify``), and its sync pushes
``deltas`` to the team, so a write here keeps everything the file holds: ``deltas``, and every
key neither tool knows, at the top and in each entry. A write is whole and atomic (temp file,
rename), under the ledger's lock with a bounded wait.

Counts are raised the way teamai's ``incrementRecalled`` / ``incrementUpvoted`` raise them: an
entry created for a key is ``{recalled_count: 0, upvoted_count: 0, last_recalled_at: ""}``
(:func:`empty_entry`), and every raise of a count (:class:`raising`) raises the key's
``recalled_delta`` / ``upvoted_delta`` by as much (a delta created for a key starts at 0 and 0).
Callers only raise counts; the deltas follow in one place.

Reading does not import YAML for the block spelling teamai writes (and the one this module
writes): recall and every Stop read the ledger, and PyYAML costs a fresh process more than the
rest of the read. Any other spelling (flow style, comments, anchors, sequences...) goes to PyYAML,
resolving plain scalars by YAML 1.2's core schema as teamai's ``yaml`` package does (``yes`` and
``2026-11-30`` stay strings). A ledger that does not parse into this shape is never overwritten:
it is moved aside and the move is named, in one line. A ledger only PyYAML can read, in a process
that cannot import PyYAML, is left untouched (:class:`YamlUnavailable`).
"""

from __future__ import annotations

import os
import sys

from . import jsontext, storage
from .storage import locked, write_atomic

TYPE_CHECKING = False  # typing is imported only by type checkers: it costs a fresh process ~4 ms
if TYPE_CHECKING:
    import re
    from collections.abc import Callable
    from typing import Any

    Document = dict[str, Any]
    Votes = dict[str, dict[str, Any]]

VERSION = 2
FIELDS = ("recalled_count", "upvoted_count", "last_recalled_at", "last_upvoted_at")  # what observers see
COUNTS = (("recalled_count", "recalled_delta"), ("upvoted_count", "upvoted_delta"))


class CorruptLedger(ValueError):
    pass


class YamlUnavailable(RuntimeError):
    """The ledger is spelled in a way only PyYAML reads, and this interpreter cannot import it."""


def empty_entry() -> dict[str, Any]:
    """A new entry, as teamai creates one."""
    return {"recalled_count": 0, "upvoted_count": 0, "last_recalled_at": ""}


def new_document() -> Document:
    return {"version": VERSION, "votes": {}, "deltas": {}}


# --- writing ------------------------------------------------------------------------------------

# A recall and every Stop that credits read and write the ledger in a fresh process, where ``re``
# costs more than the reading and writing: the spellings every ledger line uses are recognised with
# string operations, and ``re`` is imported only for what is rare (quoted scalars, escapes).
_UNSAFE = "[\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff\ud800-\udfff]"
_WORDS = frozenset({"y", "n", "yes", "no", "on", "off", "true", "false", "null"})
_PLAIN_MARKS = str.maketrans("", "", "_./@+()- ")
_DIGITS = frozenset("0123456789")


def _plain_word(text: str) -> bool:
    """A plain scalar every YAML reader takes for this very string: it starts with a letter (so it
    is no number, date or indicator), holds only word characters (``\\w``: letters, digits of any
    script, ``_``), ``./@+()-`` and single inner spaces."""
    if not text:
        return False
    first = text[0]
    if not (first.isalnum() or first == "_") or first.isdecimal():
        return False
    if text[-1] == " " or "  " in text:
        return False
    rest = text.translate(_PLAIN_MARKS)
    return not rest or rest.isalnum()


def _is_instant(text: str) -> bool:
    """``YYYY-MM-DDTHH:MM:SS.mmmZ`` with ASCII digits, as ``toISOString`` writes an instant."""
    if len(text) != 24 or text[4] != "-" or text[7] != "-" or text[10] != "T" or text[13] != ":" \
            or text[16] != ":" or text[19] != "." or text[23] != "Z":
        return False
    digits = text[:4] + text[5:7] + text[8:10] + text[11:13] + text[14:16] + text[17:19] + text[20:23]
    return digits.isascii() and digits.isdigit()


def _quoted(text: str) -> str:
    """A double-quoted scalar that JSON and both YAML versions read back as ``text``: the
    characters YAML refuses raw, or reads as line breaks, are escaped."""
    import re

    return re.sub(_UNSAFE, lambda m: f"\\u{ord(m.group()):04x}", jsontext.quote(text))


def _key(text: str) -> str:
    """A key as teamai spells it where every reader agrees on it, else double-quoted."""
    if _plain_word(text) and text.lower() not in _WORDS:
        return text
    return _quoted(text)


def _string(text: str) -> str:
    """A value: as a key, and instants unquoted as ``toISOString`` writes them (YAML 1.1 readers
    take them for timestamps of that very instant)."""
    if _is_instant(text):
        return text
    return _key(text) if text else '""'


def _float(value: float) -> str:
    if value != value:
        return ".nan"
    if value in (float("inf"), float("-inf")):
        return ".inf" if value > 0 else "-.inf"
    text = repr(value)
    if "e" in text and "." not in text.split("e")[0]:  # YAML 1.1 wants a dot in the mantissa
        mantissa, exponent = text.split("e")
        text = f"{mantissa}.0e{exponent}"
    return text


def _scalar(value: Any) -> str:
    kind = type(value)
    if kind is int:
        return str(value)
    if kind is str:
        return _string(value)
    if value is None:
        return "null"
    if kind is bool:
        return "true" if value else "false"
    if kind is float:
        return _float(value)
    if isinstance(value, int):
        return str(int(value))
    return _quoted(str(value))


def _flow(value: Any) -> str:
    """A nested value inside a sequence, in flow style (only keys nobody knows hold sequences)."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_quoted(str(k))}: {_flow(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_flow(v) for v in value) + "]"
    if isinstance(value, str):
        return _quoted(value)
    return _scalar(value)


_SPELLED = {name: name for name in ("version", "votes", "deltas", *FIELDS, "recalled_delta", "upvoted_delta")}


def _emit(mapping: dict[Any, Any], pad: str, out: list[str]) -> None:
    for key, value in mapping.items():
        spelled = _SPELLED.get(key) or (_key(key) if type(key) is str else _quoted(str(key)))
        head = f"{pad}{spelled}:"
        kind = type(value)
        if kind is int:  # the counts: most lines of a ledger
            out.append(f"{head} {value}")
        elif kind is str:
            out.append(f"{head} {_string(value)}")
        elif kind is dict:
            if value:
                out.append(head)
                _emit(value, pad + "  ", out)
            else:
                out.append(head + " {}")
        elif kind is list:
            if value:
                out.append(head)
                out.extend(f"{pad}  - {_flow(v) if isinstance(v, (dict, list)) else _scalar(v)}" for v in value)
            else:
                out.append(head + " []")
        else:
            out.append(f"{head} {_scalar(value)}")


def dump(document: Document) -> str:
    """The document in teamai's block spelling, keys in the order they were read or added."""
    out: list[str] = []
    _emit(document, "", out)
    return "\n".join(out) + "\n"


# --- reading teamai's spelling without YAML -----------------------------------------------------

_NO = object()  # "not in the subset this reader knows": the text goes to PyYAML
_INDICATORS = frozenset("-?:,[]{}#&*!|>'\"%@`")
_ESCAPES = {"0": "\0", "a": "\a", "b": "\b", "t": "\t", "\t": "\t", "n": "\n", "v": "\v", "f": "\f", "r": "\r",
            "e": "\x1b", " ": " ", '"': '"', "/": "/", "\\": "\\", "N": "\x85", "_": "\xa0", "L": "\u2028",
            "P": "\u2029"}
_QUOTED: dict[str, Any] = {}  # the patterns of quoted scalars, compiled on first use (``_patterns``)
# Raw characters this reader leaves to PyYAML: in quotes, what YAML 1.2 says must be escaped there
# (teamai's writer leaves DEL, the C1 controls and the Unicode line separators raw inside quotes,
# and YAML 1.2 reads them as themselves); unquoted, every control character.
_RAW_CONTROL = "[\x00-\x08\x0a-\x1f\ud800-\udfff]"  # compiled on first use, like _UNSAFE
_RAW_CONTROL_PLAIN = "[\x00-\x08\x0a-\x1f\x7f-\x9f\ud800-\udfff]"
_SURROGATE = "[\ud800-\udfff]"
_OCTAL = frozenset("01234567")
_HEX = frozenset("0123456789abcdefABCDEF")
_NULLS = frozenset({"~", "null", "Null", "NULL"})
_BOOLS = {"true": True, "True": True, "TRUE": True, "false": False, "False": False, "FALSE": False}


def _unescape(match: re.Match[str]) -> str:
    code = match.group(1)
    if len(code) > 1:
        return chr(int(code[1:], 16))
    if code not in _ESCAPES:
        raise ValueError(code)
    return _ESCAPES[code]


def _patterns() -> dict[str, Any]:
    """``re`` and the patterns of quoted scalars: most ledgers quote nothing, so a fresh process
    pays for them only when a line does."""
    if not _QUOTED:
        import re

        _QUOTED.update(re=re, escape=re.compile(r"\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|.)", re.DOTALL),
                       double=re.compile(r'"((?:[^"\\]|\\.)*)"'), single=re.compile(r"'((?:[^']|'')*)'"))
    return _QUOTED


def _quoted_at(text: str) -> tuple[Any, int]:
    """The quoted scalar at the start of ``text`` and where it ends; ``_NO`` for what this reader
    leaves to PyYAML (a raw control character, an escape YAML does not have, a surrogate)."""
    found = _patterns()
    re = found["re"]
    match = found["double" if text[0] == '"' else "single"].match(text)
    if match is None or re.search(_RAW_CONTROL, match.group(1)):
        return _NO, 0
    body = match.group(1)
    if text[0] == "'":
        return body.replace("''", "'"), match.end()
    if "\\" in body:
        try:
            body = found["escape"].sub(_unescape, body)
        except (ValueError, OverflowError):
            return _NO, 0
        if re.search(_SURROGATE, body):
            return _NO, 0
    return body, match.end()


def _raw_control_plain(text: str) -> bool:
    """Whether ``text`` holds a character of ``_RAW_CONTROL_PLAIN``."""
    if text.isascii() and text.isprintable():
        return False
    return any(c <= "\x08" or "\x0a" <= c <= "\x1f" or "\x7f" <= c <= "\x9f" or "\ud800" <= c <= "\udfff"
               for c in text)


def _digits(text: str, allowed: frozenset[str] = _DIGITS) -> bool:
    """One or more characters, all of ``allowed`` (ASCII digits by default)."""
    if allowed is _DIGITS:
        return text.isascii() and text.isdigit()  # among ASCII characters only 0-9 are digits
    return bool(text) and all(c in allowed for c in text)


def _unsigned(text: str) -> str:
    return text[1:] if text[:1] in ("-", "+") else text


def _is_int(text: str) -> bool:
    """``[-+]?[0-9]+``"""
    return _digits(_unsigned(text))


def _is_floatish(text: str) -> bool:
    """What YAML 1.2's core schema reads as a float, or an octal or hexadecimal integer:
    ``[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?``, ``[-+]?.inf``, ``.nan`` (in three
    cases each), ``0o[0-7]+``, ``0x[0-9a-fA-F]+``."""
    if text in (".nan", ".NaN", ".NAN"):
        return True
    if text[:2] == "0o" and _digits(text[2:], _OCTAL) or text[:2] == "0x" and _digits(text[2:], _HEX):
        return True
    body = _unsigned(text)
    if body in (".inf", ".Inf", ".INF"):
        return True
    cut = max(body.find("e"), body.find("E"))
    if cut >= 0:
        mantissa, exponent = body[:cut], body[cut + 1:]
        if not _is_int(exponent):
            return False
    else:
        mantissa = body
    whole, dot, fraction = mantissa.partition(".")
    if not dot:
        return _digits(whole)
    return _digits(whole) and (not fraction or _digits(fraction)) or not whole and _digits(fraction)


_KEY_START = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")
_KEY_MARKS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./@+()-"


def _common(line: str) -> tuple[int, str, Any] | None:
    """(indent, key, value or ``_OPEN``) of the lines most of a ledger is made of: spaces, a plain
    ASCII word key and its colon, then nothing, a count, ``""``, ``{}`` or an instant."""
    body = line.lstrip(" ")
    colon = body.find(":")
    if colon < 1 or body[0] not in _KEY_START:
        return None
    key = body[:colon]
    if key.strip(_KEY_MARKS) or key in _NOT_KEYS:
        return None
    rest = body[colon + 1:]
    if not rest:
        return len(line) - len(body), key, _OPEN
    if rest[0] != " ":
        return None
    value = rest[1:]
    if value[:1] == "-" and _digits(value[1:]) or _digits(value):
        return len(line) - len(body), key, int(value)
    if value == '""':
        return len(line) - len(body), key, ""
    if value == "{}":
        return len(line) - len(body), key, {}
    if _is_instant(value):
        return len(line) - len(body), key, value
    return None



def _plain(text: str) -> Any:
    """A plain scalar, resolved by YAML 1.2's core schema; ``_NO`` for what might be more (or for
    nothing at all: an empty key, as in a line that is only ``:``, is left to PyYAML)."""
    if not text:
        return _NO
    first = text[0]
    if first in _INDICATORS and not (first in "-?:" and len(text) > 1 and text[1] not in " \t"):
        return _NO
    if ": " in text or " #" in text or text[-1] in " \t:" or _raw_control_plain(text):
        return _NO
    if _is_int(text):
        return int(text)
    if text in _NULLS:
        return None
    if text in _BOOLS:
        return _BOOLS[text]
    if _is_floatish(text):
        return _number(text)
    return text


def _number(text: str) -> Any:
    """The numbers of YAML 1.2's core schema beyond decimal integers."""
    if text[:2] in ("0o", "0x"):
        return int(text[2:], 8 if text[1] == "o" else 16)
    bare = text.lstrip("+-").lower()
    if bare in (".inf", ".nan"):
        value = float(bare[1:])
        return -value if text[0] == "-" else value
    return float(text)


def _value(text: str) -> Any:
    if text == "{}":
        return {}
    if text == "[]":
        return []
    if text[0] in "\"'":
        value, end = _quoted_at(text)
        return value if end == len(text) else _NO
    return _plain(text)


def _key_at(text: str) -> tuple[Any, str | None]:
    """(key, the rest of the line after ``key:``; None when nothing follows) or (_NO, None)."""
    if text[0] in "\"'":
        key, end = _quoted_at(text)
        if key is _NO or text[end:end + 1] != ":":
            return _NO, None
        rest = text[end + 1:]
    else:
        sep = text.find(": ")
        if sep < 0:
            if text[-1] != ":":
                return _NO, None
            sep = len(text) - 1
        key = _plain(text[:sep])
        if type(key) is not str:  # teamai quotes a key that would read as a number, null or bool
            return _NO, None
        rest = text[sep + 1:]
    if not rest:
        return key, None
    if rest[0] != " " or len(rest) < 2 or rest[1] == " ":
        return _NO, None
    return key, rest[1:]


_NOT_KEYS = frozenset({"null", "Null", "NULL", "true", "True", "TRUE", "false", "False", "FALSE"})
_OPEN = object()  # a key whose value starts on the next line


def _line(line: str) -> tuple[int, Any, Any]:
    """(indent, key, value or _OPEN) of a line the common pattern does not cover; key ``_NO``
    when this reader does not know it."""
    body = line.lstrip(" ")
    if not body or body[0] in "#\t":
        return 0, _NO, None
    key, rest = _key_at(body)
    if key is _NO:
        return 0, _NO, None
    return len(line) - len(body), key, _OPEN if rest is None else _value(rest)


def _fast_parse(text: str) -> Any:
    """The block mappings with one-line scalars, ``{}`` and ``[]`` that teamai's ``YAML.stringify``
    writes for a ledger (and :func:`dump` writes); ``None`` for anything else."""
    if "\r" in text:
        return None
    root: dict[Any, Any] = {}
    stack: list[tuple[int, dict[Any, Any]]] = [(0, root)]
    open_key: tuple[int, dict[Any, Any], Any] | None = None
    for line in text.split("\n"):
        if not line:
            continue
        found = _common(line)
        if found is not None:
            indent, key, value = found
        else:
            indent, key, value = _line(line)
            if key is _NO or value is _NO:
                return None
        if open_key is not None:
            parent_indent, parent, parent_key = open_key
            open_key = None
            if indent > parent_indent:
                child: dict[Any, Any] = {}
                parent[parent_key] = child
                stack.append((indent, child))
            else:
                parent[parent_key] = None
        while stack[-1][0] > indent:
            stack.pop()
        level, mapping = stack[-1]
        if level != indent or key in mapping:
            return None
        if value is _OPEN:
            open_key = (indent, mapping, key)
        else:
            mapping[key] = value
    if open_key is not None:
        open_key[1][open_key[2]] = None
    return root


# --- reading any other spelling -----------------------------------------------------------------

def yaml_module() -> Any:
    """PyYAML. Under ``python -S`` (the hook's fast line) the interpreter's site set-up was skipped,
    so the folders that hold PyYAML may not be on the path yet: set them up now, on this rare path
    only, rather than give up."""
    why = "the votes ledger is in a spelling only PyYAML reads, and PyYAML cannot be imported by"
    try:
        import yaml
    except ImportError:
        if not sys.flags.no_site:
            raise YamlUnavailable(f"{why} {sys.executable}") from None
        import site

        site.main()
        try:
            import yaml
        except ImportError:
            raise YamlUnavailable(f"{why} {sys.executable}, even after its site set-up") from None
    return yaml


_LOADER: Any = None


def _loader(yaml: Any) -> Any:
    """PyYAML's safe loader resolving plain scalars as YAML 1.2's core schema does."""
    global _LOADER
    if _LOADER is None:
        import re

        class Core12(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
            pass

        Core12.yaml_implicit_resolvers = {}
        for tag, pattern, first in (
            ("null", r"^(?:~|null|Null|NULL|)$", ["~", "n", "N", ""]),
            ("bool", r"^(?:true|True|TRUE|false|False|FALSE)$", list("tTfF")),
            ("int", r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$", list("-+0123456789")),
            ("float", r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)"
                      r"|\.(?:nan|NaN|NAN))$", list("-+.0123456789")),
        ):
            Core12.add_implicit_resolver(f"tag:yaml.org,2002:{tag}", re.compile(pattern), first)

        def core_int(loader: Any, node: Any) -> int:
            value = str(loader.construct_scalar(node))
            if value.startswith(("0o", "0x")):
                return int(value[2:], 8 if value[1] == "o" else 16)
            return int(value, 10)

        Core12.add_constructor("tag:yaml.org,2002:int", core_int)
        _LOADER = Core12
    return _LOADER


def _one_line(exc: Exception) -> str:
    """A YAML error as one line: what is wrong and where."""
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or getattr(exc, "context", None) or str(exc)
    where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""
    return " ".join(f"{where}{problem}".split())


def _yaml_parse(text: str) -> Any:
    from . import yaml_strict

    yaml = yaml_module()
    try:
        return yaml_strict.load(yaml, text, _loader(yaml))
    except yaml.YAMLError as exc:
        raise CorruptLedger(f"not YAML ({_one_line(exc)})") from None
    except (ValueError, OverflowError, RecursionError) as exc:
        raise CorruptLedger(f"not YAML ({type(exc).__name__})") from None


def _plain_data(value: Any) -> Any:
    """What PyYAML may build beyond JSON's types (explicit ``!!timestamp``, ``!!binary``, ``!!set``),
    spelled as strings, and every mapping key as a string, as teamai (JavaScript) holds them."""
    if isinstance(value, dict):
        return {k if isinstance(k, str) else _key_text(k): _plain_data(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain_data(v) for v in value]
    if value is None or isinstance(value, (str, int, float)):
        return value
    import datetime as _dt

    if isinstance(value, _dt.datetime):
        from .clock import stamp

        return stamp(value if value.tzinfo else value.replace(tzinfo=_dt.UTC))
    if isinstance(value, _dt.date):
        return value.isoformat()
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return str(value)


def _key_text(key: Any) -> str:
    if key is None:
        return ""
    if isinstance(key, bool):
        return "true" if key else "false"
    return str(key)


# --- the shape ----------------------------------------------------------------------------------

def _count(value: Any) -> bool:
    return type(value) is int and value >= 0


def _shape(data: Any) -> Document:
    """Check the document's shape and make the little teamai's reader would make of it: missing
    sections and counts become empty and 0, a version 1 ledger is migrated as teamai migrates it."""
    if data is None:
        return new_document()
    if not isinstance(data, dict):
        raise CorruptLedger(f"not a votes ledger (the top level is a {type(data).__name__})")
    version = data.get("version")
    votes = data.get("votes")
    if votes is None:
        votes = data["votes"] = {}
    if not isinstance(votes, dict):
        raise CorruptLedger("not a votes ledger (votes is not a mapping)")
    if version is None and votes and all(isinstance(e, dict) and "recalled_count" not in e
                                         and "upvoted_count" not in e for e in votes.values()):
        for key, old in list(votes.items()):  # teamai's migrateV1ToV2
            votes[key] = {"recalled_count": 1, "upvoted_count": 0, "last_recalled_at": old.get("at", "")}
        data["deltas"] = {}
    if version is None:
        data = {"version": VERSION, **data}
    elif version != VERSION:
        raise CorruptLedger(f"version {version!r} is not a version this reference reads")
    for key, entry in votes.items():
        if not isinstance(entry, dict):
            raise CorruptLedger(f"entry {key!r} is not a mapping")
        for name, _delta in COUNTS:
            if name not in entry:
                entry[name] = 0
            elif not _count(entry[name]):
                raise CorruptLedger(f"{key}.{name} is not a count")
    deltas = data.get("deltas")
    if deltas is None:
        deltas = data["deltas"] = {}
    if not isinstance(deltas, dict):
        raise CorruptLedger("not a votes ledger (deltas is not a mapping)")
    for key, delta in deltas.items():
        if not isinstance(delta, dict):
            raise CorruptLedger(f"delta {key!r} is not a mapping")
        for _name, name in COUNTS:
            if name in delta and type(delta[name]) is not int:
                raise CorruptLedger(f"delta {key}.{name} is not a number")
    return data


def parse(text: str) -> Document:
    """The whole document: ``version``, ``votes``, ``deltas`` and whatever else it holds.

    Raises :class:`CorruptLedger` for text that is not a ledger, :class:`YamlUnavailable` when only
    PyYAML could read it and it cannot be imported.
    """
    text = _unmarked(text)
    data = _fast_parse(text)
    if data is None:
        data = _plain_data(_yaml_parse(text))
    return _shape(data)


def _unmarked(text: str) -> str:
    """The text without a leading byte order mark: YAML allows one at the start of a stream and
    every YAML reader (teamai's too) drops it; it is no part of the first key."""
    return text[1:] if text.startswith("\ufeff") else text


def spelling(text: str) -> str:
    """``teamai`` when the text is in the block spelling read without YAML, else ``yaml``."""
    return "teamai" if _fast_parse(_unmarked(text)) is not None else "yaml"


def view(document: Document) -> Votes:
    """Vote key to the four counters an observer compares; an instant never set reads None."""
    out: Votes = {}
    for key, entry in (document.get("votes") or {}).items():
        item: dict[str, Any] = {}
        for name in FIELDS:
            value = entry.get(name)
            if name.endswith("_count"):
                item[name] = value if type(value) is int else 0
            else:
                item[name] = str(value) if value not in (None, "") else None
        out[key] = item
    return out


def _read_text(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.read()
    except FileNotFoundError:
        return None
    except UnicodeDecodeError as exc:
        raise CorruptLedger("not UTF-8") from exc


def load(path: str) -> Document:
    """The ledger's document (a new one when there is no file)."""
    text = _read_text(path)
    return new_document() if text is None else parse(text)


def read(path: str) -> Votes:
    """The ledger's votes as observers see them; raises :class:`CorruptLedger` for a file that is not
    a ledger."""
    return view(load(path))


def _set_aside(path: str, stamp: str) -> str:
    aside = f"{path}.corrupt-{stamp.replace(':', '')}"
    n = 1
    while os.path.exists(aside):
        n += 1
        aside = f"{path}.corrupt-{stamp.replace(':', '')}-{n}"
    storage.rename(path, aside)
    return aside


def _raise_deltas(document: Document, before: dict[str, tuple[int, ...]]) -> None:
    """Every change of a count since the ledger was read goes into the key's delta, as teamai's
    ``incrementRecalled`` / ``incrementUpvoted`` do it."""
    deltas = document["deltas"]
    for key, entry in document["votes"].items():
        old = before.get(key, (0, 0))
        for i, (count, delta_name) in enumerate(COUNTS):
            change = entry.get(count, 0) - old[i]
            if change:
                delta = deltas.get(key)
                if not isinstance(delta, dict):
                    delta = deltas[key] = {"recalled_delta": 0, "upvoted_delta": 0}
                delta[delta_name] = delta.get(delta_name, 0) + change


# --- raising counts: what a recall and a Stop do -------------------------------------------------

_SEAL = b"ledger-sha256 "  # what the lock file holds: the digest of the ledger this module last wrote


def _digest(data: bytes) -> str:
    try:
        from _sha256 import sha256  # type: ignore[import-not-found]
    except ImportError:  # pragma: no cover - CPython builds _sha256
        from hashlib import sha256
    return str(sha256(data).hexdigest())


class raising:  # noqa: N801 - used as a function: ``with raising(...) as tally:``
    """Lock the ledger, take the counts to raise (:meth:`add`), and write them when the block ends
    without an error, with their deltas, as a whole read and write of the document gives them.

    A recall and a Stop raise a few counts in a ledger of thousands of entries. Reading and writing
    the whole document each time made the ledger the largest cost of a Stop on a large team, so
    when the file holds exactly the text this module wrote last (its digest is kept in the lock
    file, written under the lock), only the entries raised are read and rewritten, in place in
    that text. Any other file (teamai wrote it, a person edited it, the digest is missing) is read
    and written whole. Both ways give the same bytes (``tests/test_ledger_raising.py``).

    Writes of other files that must land with the ledger's (the per-session ledger's, at a Stop)
    are given to :meth:`together`. Then the whole change is first recorded in an intent
    (``votes.yaml.intent``, ``storage.write_intent``: the ledger's digest before and after, the
    raises, the other writes), made, and the intent removed. Whoever next takes the lock finishes
    an intent it finds (a process that died part way): the other writes are made again (each
    gives the same bytes however often it is made), and the ledger is written as recorded when it
    still holds the text it held before; when something else wrote it since, the recorded raises
    are made in what it holds now. So a crash at any point leaves both files as if the write had
    happened whole, or not at all."""

    def __init__(self, path: str, lock_path: str, wait: float, stamp: str, warn: Callable[[str], None]) -> None:
        self.path, self.stamp, self.warn = path, stamp, warn
        self.lock = locked(lock_path, "the votes ledger", wait)
        self.raises: list[tuple[str, str, str, str]] = []  # (key, count, instant field, instant)
        self.data: bytes | None = None  # the file's bytes, when they are this module's own text
        self.document: Document | None = None  # otherwise the document, read whole
        self.companions: list[tuple[Any, ...]] = []  # ("at", path, offset, data) or ("whole", path, data)
        self.before: str | None = None  # the digest of the file as read (None: no file)
        self.recovered = False  # an intent's raises are among ours: it is removed once they are written

    def __enter__(self) -> raising:
        self.lock.__enter__()
        try:
            self._recover()
            self._collect()
            self._read()
        except BaseException:
            self.lock.__exit__()
            raise
        return self

    def together(self, op: tuple[Any, ...]) -> None:
        """Write ``op`` with the ledger, all or nothing: ``("at", path, offset, data)`` cuts the file
        at ``offset`` and writes ``data`` there (``storage.write_after``), ``("whole", path, data)``
        replaces it (``storage.write_atomic``)."""
        self.companions.append(op)

    def _recover(self) -> None:
        intent = storage.intent_path(self.path)
        parts = storage.read_intent(intent)
        if parts is None:
            if os.path.lexists(intent):  # not a whole intent: it was never acted on
                storage.unlink(intent)
            return
        meta = jsontext.loads(parts[0])
        for op, data in zip(meta["ops"], parts[2:], strict=True):
            _apply((*op, data))
        current = _read_bytes(self.path)
        now = _digest(current) if current is not None else None
        if now != meta["after"]:
            if now == meta["before"]:
                self._put(parts[1])
            else:  # written by something else since: make the recorded raises in what it holds
                self.raises.extend((str(a), str(b), str(c), str(d)) for a, b, c, d in meta["raises"])
                self.recovered = True
                return
        storage.unlink(intent)

    def _collect(self) -> None:
        """Take the raises recalls left pending (:func:`defer`): made with this write, and their
        files removed under the same intent, so each is made once (and the temps of those a
        crash left half made are removed)."""
        storage.sweep(self.path, os.path.basename(self.path) + storage.PENDING)
        found: list[tuple[str, str, str, str]] = []
        for path in storage.pending(self.path):
            raises = _pending_raises(path)
            if raises is None:
                self.warn(f"{path} is not a pending raise of the votes ledger; removed it")
            else:
                found.extend(raises)
            self.together(("unlink", path, b""))
        # in the order of their instants (the files' names are run ids, in no order), so each
        # ``last_*_at`` ends as the latest, as it would had every recall written its own
        self.raises.extend(sorted(found, key=lambda r: (_micros_or_none(r[3]) or 0, r[3])))

    def _read(self) -> None:
        storage.refuse_link(self.path)  # a link is neither read as the ledger nor set aside
        data = _read_bytes(self.path)
        self.existed = data is not None
        digest = _digest(data) if data is not None else None
        self.before = digest
        if data is not None and os.pread(self.lock.fd, 100, 0) == _SEAL + str(digest).encode() + b"\n":
            self.data = data
            return
        try:
            if data is None:
                self.document = new_document()
            else:
                try:
                    text = data.decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise CorruptLedger("not UTF-8") from exc
                self.document = parse(text)
        except CorruptLedger as exc:
            aside = _set_aside(self.path, self.stamp)
            self.warn(f"votes ledger {self.path} is corrupt ({exc}); moved it to {aside} and started a new one")
            self.document = new_document()
            self.existed = False
            self.before = None

    def add(self, key: str, count: str, field: str, instant: str) -> None:
        """Raise ``count`` (``recalled_count`` or ``upvoted_count``) of ``key`` by one, and set its
        ``field`` (``last_recalled_at`` or ``last_upvoted_at``) to ``instant``."""
        self.raises.append((key, count, field, instant))

    def __exit__(self, kind: object, *exc: object) -> None:
        try:
            if kind is None:
                self._write()
        finally:
            self.lock.__exit__()

    def _write(self) -> None:
        companions = self.companions
        if not self.raises and self.existed and not companions:
            return
        data = None
        if self.raises or not self.existed:
            if self.data is not None:
                try:
                    data = _splice(self.data, self.raises)
                except ValueError:  # a shape the entry reader leaves to the whole read (lists, flow style)
                    self.document = parse(self.data.decode("utf-8"))
            if data is None:
                assert self.document is not None
                data = dump(_raised(self.document, self.raises)).encode("utf-8")
        intent = storage.intent_path(self.path)
        if companions:
            meta = {"before": self.before, "after": _digest(data) if data is not None else self.before,
                    "raises": self.raises, "ops": [list(op[:-1]) for op in companions]}
            storage.write_intent(intent, [storage.utf8(jsontext.dumps(meta)), data or b"",
                                          *(op[-1] for op in companions)])
            for op in companions:
                _apply(op)
        if data is not None:
            self._put(data)
        if companions or self.recovered:
            storage.unlink(intent)

    def _put(self, data: bytes) -> None:
        """Replace the file with ``data`` and keep its digest in the lock file."""
        write_atomic(self.path, data)
        try:
            seal = _SEAL + _digest(data).encode() + b"\n"
            storage.write_at(self.lock.fd, seal, 0)
            storage.truncate(self.lock.fd, len(seal))
        except OSError:
            pass  # the next edit reads the file whole


def _apply(op: tuple[Any, ...]) -> None:
    if op[0] == "at":
        storage.write_after(op[1], op[2], op[3])
    elif op[0] == "unlink":
        try:
            storage.unlink(op[1])
        except FileNotFoundError:
            pass  # made already, before a crash
    else:
        write_atomic(op[1], op[2])


def _micros_or_none(text: str) -> int | None:
    from .clock import ClockError, micros

    try:
        return micros(text)
    except ClockError:
        return None


def defer(path: str, name: str, raises: list[tuple[str, str, str, str]]) -> None:
    """Leave ``raises`` for whoever next writes the ledger at ``path`` (a file of their own, made
    whole by a rename, so a writer never sees half of it): a recall leaves its recalled counts
    this way before it writes its run line, then writes the ledger itself, which makes them
    unless another writer made them first. A recall that stops (a crash, a busy or full disk)
    between its run line and the ledger leaves them for the next recall, Stop or pull."""
    data = storage.utf8(jsontext.dumps([list(r) for r in raises]))
    pending = f"{path}{storage.PENDING}{name}"
    try:
        write_atomic(pending, data, durable=False)
    except OSError:
        if not os.path.lexists(pending):  # a failure after the rename (only an injected one) left it made
            raise


def _pending_raises(path: str) -> list[tuple[str, str, str, str]] | None:
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except FileNotFoundError:
        return []
    except OSError:
        return None
    try:
        data = os.read(fd, 1 << 20)
    finally:
        os.close(fd)
    try:
        found = jsontext.loads(data)
    except ValueError:
        return None
    if not isinstance(found, list):
        return None
    out = []
    for item in found:
        if (not isinstance(item, list) or len(item) != 4 or not all(isinstance(v, str) for v in item)
                or item[1] not in ("recalled_count", "upvoted_count")
                or item[2] not in ("last_recalled_at", "last_upvoted_at")):
            return None
        out.append((item[0], item[1], item[2], item[3]))
    return out


def _read_bytes(path: str) -> bytes | None:
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except FileNotFoundError:
        return None


def _raised(document: Document, raises: list[tuple[str, str, str, str]]) -> Document:
    """The document with the counts raised, and their deltas."""
    votes = document["votes"]
    before = {key: tuple(entry.get(c, 0) for c, _ in COUNTS) for key, entry in votes.items()}
    for key, count, field, instant in raises:
        entry = votes.setdefault(key, empty_entry())
        entry[count] += 1
        entry[field] = instant
    _raise_deltas(document, before)
    return document


# Every byte but a newline and a space, as one letter: in the translated text, ``b"\nx"`` is where
# a line that starts with neither begins (a top-level key), found by ``bytes.find`` at C speed.
_SHAPE = bytes(c if c in b"\n " else ord("x") for c in range(256))


def _section(data: bytes, shape: bytes, name: str) -> tuple[int, int, int]:
    """(start, end of its key line, end) of the top-level mapping ``name``; the data ends with a
    newline, and the section ends where the next top-level key begins."""
    for header in (f"{name}:\n", f"{name}: {{}}\n"):
        needle = header.encode()
        at = 0 if data.startswith(needle) else data.find(b"\n" + needle) + 1
        if at > 0 or data.startswith(needle):
            line_end = at + len(needle)
            end = shape.find(b"\nx", line_end - 1)
            return at, line_end, end + 1 if end >= 0 else len(data)
    raise ValueError(name)


def _block(data: bytes, start: int, end: int) -> int:
    """Where the entry whose key line starts at ``start`` ends (its fields are indented deeper)."""
    at = data.index(b"\n", start) + 1
    while at < end and data.startswith(b"   ", at):
        at = data.index(b"\n", at) + 1
    return at


def _entry_of(data: bytes, start: int, end: int) -> tuple[str, dict[str, Any]]:
    """The key and mapping of one entry's lines, read as the whole file would be."""
    lines = data[start:end].decode("utf-8").split("\n")[:-1]
    found = _fast_parse("\n".join(line[2:] for line in lines))
    if not isinstance(found, dict) or len(found) != 1:
        raise ValueError("entry")
    ((key, entry),) = found.items()
    if not isinstance(entry, dict):
        raise ValueError("entry")
    return key, entry


def _spelled(mapping: dict[str, Any]) -> bytes:
    out: list[str] = []
    _emit(mapping, "  ", out)
    return "".join(line + "\n" for line in out).encode("utf-8")


def _places(data: bytes, keys: list[str], start: int, end: int) -> dict[str, int]:
    """Where each key's entry starts in the section's lines ``data[start:end]`` (keys with none are
    left out)."""
    places: dict[str, int] = {}
    for key in keys:
        at = data.find(b"\n  " + _key_spelling(key).encode("utf-8") + b":\n", start - 1, end)
        if at >= 0:
            places[key] = at + 1
    return places


def _splice(data: bytes, raises: list[tuple[str, str, str, str]]) -> bytes:
    """``dump`` of the raised document, for ``data`` that ``dump`` wrote: the raised entries (and
    their deltas) are read and written again, every other byte is kept as it is. Positions are
    found with ``bytes.find``, so the cost is that of the entries raised, not of the ledger."""
    if not data.endswith(b"\n"):
        raise ValueError("no final newline")
    shape = data.translate(_SHAPE)
    votes_at, votes_line, votes_end = _section(data, shape, "votes")
    # Each raised key's entry: where it is (new keys go last, in the order they were first raised).
    order: list[str] = []
    for key, *_ in raises:
        if key not in order:
            order.append(key)
    places = _places(data, order, votes_line, votes_end)
    entries: dict[str, dict[str, Any]] = {}
    before: dict[str, tuple[int, int]] = {}
    for key, at in places.items():
        read_key, entry = _entry_of(data, at, _block(data, at, votes_end))
        if read_key != key:
            raise ValueError(key)
        entries[key] = entry
        before[key] = (entry["recalled_count"], entry["upvoted_count"])
    for key, count, field, instant in raises:
        entry = entries.setdefault(key, empty_entry())
        entry[count] += 1
        entry[field] = instant
    # The deltas, in the votes' order: the ledger's own first, then the new keys.
    changed = sorted(order, key=lambda k: (k not in places, places.get(k, 0), order.index(k)))
    deltas_at, deltas_line, deltas_end = _section(data, shape, "deltas")
    delta_places = _places(data, changed, deltas_line, deltas_end)
    edits: list[tuple[int, int, bytes]] = []  # (start, end, new bytes)
    appended_deltas: list[bytes] = []
    for key in changed:
        old = before.get(key, (0, 0))
        entry = entries[key]
        changes = [(name, entry.get(count, 0) - old[i]) for i, (count, name) in enumerate(COUNTS)]
        if key in delta_places:
            at = delta_places[key]
            end = _block(data, at, deltas_end)
            read_key, delta = _entry_of(data, at, end)
            if read_key != key:
                raise ValueError(key)
        else:
            at, end, delta = -1, -1, {"recalled_delta": 0, "upvoted_delta": 0}
        for name, change in changes:
            if change:
                delta[name] = delta.get(name, 0) + change
        if at >= 0:
            edits.append((at, end, _spelled({key: delta})))
        else:
            appended_deltas.append(_spelled({key: delta}))
    appended_votes: list[bytes] = []
    for key in order:
        if key in places:
            at = places[key]
            edits.append((at, _block(data, at, votes_end), _spelled({key: entries[key]})))
        else:
            appended_votes.append(_spelled({key: entries[key]}))
    if data[votes_at:votes_line] == b"votes: {}\n" and (appended_votes or places):
        edits.append((votes_at, votes_line, b"votes:\n"))
    if data[deltas_at:deltas_line] == b"deltas: {}\n" and appended_deltas:
        edits.append((deltas_at, deltas_line, b"deltas:\n"))
    for place, lines in ((votes_end, appended_votes), (deltas_end, appended_deltas)):
        if lines:
            edits.append((place, place, b"".join(lines)))
    out: list[bytes] = []
    at = 0
    for start, end, new in sorted(edits, key=lambda edit: edit[:2]):
        out += (data[at:start], new)
        at = end
    out.append(data[at:])
    return b"".join(out)


def _key_spelling(key: str) -> str:
    return _SPELLED.get(key) or _key(key)
