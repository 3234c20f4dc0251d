"""The votes ledger's text read back into data: what ``ledger.parse`` makes a document of.

It exists so that the ledger's rules (``ledger.py``: its shape, what a raise does) and its YAML
are kept apart. The block spelling teamai's ``YAML.stringify`` writes (and ``ledger_write``
writes) is read without importing YAML (:func:`_fast_parse`): recall and every Stop that credits
read the ledger in a fresh process, where PyYAML, and even ``re``, cost more than the rest of the
read, so the lines every ledger is made of are recognised with string operations and ``re`` is
imported only for quoted scalars. The reader is strict: any other spelling (flow style, comments,
anchors, sequences...) goes to PyYAML (:func:`_yaml_parse`), resolving plain scalars by YAML 1.2's
core schema as teamai's ``yaml`` package does (``yes`` and ``2026-11-30`` stay strings);
:func:`spelling` says which of the two a text needs (``teamai-ref doctor``). A text that is not
YAML raises :class:`CorruptLedger` (as ``ledger.py`` does for data that is no ledger); one only
PyYAML can read, in a process that cannot import PyYAML, raises :class:`YamlUnavailable`. Both
readers give plain data (strings, numbers, lists, mappings with string keys); whether that data
is a ledger is ``ledger.py``'s to say.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # typing is imported only by type checkers: it costs a fresh process ~4 ms
if TYPE_CHECKING:
    import re
    from typing import Any

class CorruptLedger(ValueError):
    pass


class YamlUnavailable(RuntimeError):
    """The ledger is spelled in a way only PyYAML reads, and this interpreter cannot import it."""


# An instant as teamai writes it: most lines of a ledger hold a count or one, and the writer
# (``ledger_write``) leaves it plain.
def _is_instant(text: str) -> bool:
    """``YYYY-MM-DDTHH:MM:SS.mmmZ`` with ASCII digits, as ``toISOString`` writes an instant."""
    if len(text) != 24 or text[4] != "-" or text[7] != "-" or text[10] != "T" or text[13] != ":" \
            or text[16] != ":" or text[19] != "." or text[23] != "Z":
        return False
    digits = text[:4] + text[5:7] + text[8:10] + text[11:13] + text[14:16] + text[17:19] + text[20:23]
    return digits.isascii() and digits.isdigit()


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
_RAW_CONTROL = "[\x00-\x08\x0a-\x1f\ud800-\udfff]"  # compiled on first use, like ledger_write._UNSAFE
_RAW_CONTROL_PLAIN = "[\x00-\x08\x0a-\x1f\x7f-\x9f\ud800-\udfff]"
_SURROGATE = "[\ud800-\udfff]"
_OCTAL = frozenset("01234567")
_DIGITS = frozenset("0123456789")
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
    from .. import yaml_strict

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


def _unmarked(text: str) -> str:
    """The text without a leading byte order mark: YAML allows one at the start of a stream and
    every YAML reader (teamai's too) drops it; it is no part of the first key."""
    return text[1:] if text.startswith("\ufeff") else text


def spelling(text: str) -> str:
    """``teamai`` when the text is in the block spelling read without YAML, else ``yaml``."""
    return "teamai" if _fast_parse(_unmarked(text)) is not None else "yaml"
