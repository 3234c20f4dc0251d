"""JSON for the Stop and a warm recall, without the ``json`` package.

A Stop is a fresh interpreter on every turn of every agent, and a recall one on every question.
``import json`` brings ``re``, and with it ``enum``, ``functools`` and ``collections``: together
they cost a fresh process about as much as the interpreter's own start, while the parsing and
writing itself is done by the C accelerator ``_json`` that the package wraps. This module calls
that accelerator directly, with the settings the package uses by default, so a value, a document
and an error read here are those ``json.loads`` gives, and :func:`dumps` writes what
``json.dumps(obj, ensure_ascii=False, separators=(",", ":"))`` writes (the log's spelling). Where
the accelerator is missing (another Python), or for the rare bytes ``json`` would decode as UTF-16
or UTF-32, the package does it.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_make_scanner: Any
try:
    from _json import encode_basestring as _quote
    from _json import make_encoder as _make_encoder
    from _json import make_scanner as _make_scanner
except ImportError:  # pragma: no cover - CPython always builds _json
    _make_scanner = None

_WHITESPACE = " \t\n\r"
_CONSTANTS = {"-Infinity": float("-inf"), "Infinity": float("inf"), "NaN": float("nan")}


class _Settings:
    """What the accelerator's scanner reads from ``json.JSONDecoder``: its defaults."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = _CONSTANTS.__getitem__


def _refuse(value: Any) -> Any:
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


if _make_scanner is not None:
    _scan = _make_scanner(_Settings())  # the accelerator reads the settings' attributes only


def _package() -> Any:
    import json

    return json


def loads(data: bytes | str) -> Any:
    """``json.loads(data)``: the same value, and a ``ValueError`` where it raises one, or where it
    runs out of depth (``RecursionError``): a log line or file nested past what the parser can
    follow is malformed like any other, so every reader of the state skips it, where before it
    stopped ``stats``, ``pull`` and every Stop of that scope."""
    try:
        return _loads(data)
    except RecursionError:
        raise ValueError("JSON nested too deeply to read") from None


def _loads(data: bytes | str) -> Any:
    if _make_scanner is None:
        return _package().loads(data)
    if isinstance(data, (bytes, bytearray)):
        head = bytes(data[:4])
        if head[:1] in (b"\x00", b"\xfe", b"\xff") or b"\x00" in head[1:]:
            return _package().loads(data)  # a UTF-16 or UTF-32 document: the package detects which
        text = bytes(data[3:] if head[:3] == b"\xef\xbb\xbf" else data).decode("utf-8", "surrogatepass")
    elif isinstance(data, str):
        if data.startswith("\ufeff"):
            return _package().loads(data)  # the package names this error
        text = data
    else:
        return _package().loads(data)  # the package names the wrong type
    start = len(text) - len(text.lstrip(_WHITESPACE))
    try:
        value, end = _scan(text, start)
    except StopIteration:
        return _refused(text)
    except SystemError:
        # The accelerator names some errors (a string cut off inside an array) by importing the
        # package's error class; before the package is imported, it can return with no error set.
        return _refused(text)
    if end != len(text) and text[end:].strip(_WHITESPACE):
        return _refused(text)
    return value


def _refused(text: str) -> Any:
    """Not JSON: the package's decoder raises its error, with the position."""
    return _package().JSONDecoder().decode(text)


def dumps(value: Any, spaced: bool = False) -> str:
    """``json.dumps(value, ensure_ascii=False, separators=(",", ":"))``; with ``spaced``, the
    package's default separators (``", "`` and ``": "``)."""
    item, key = (", ", ": ") if spaced else (",", ":")
    if _make_scanner is None:
        return _package().dumps(value, ensure_ascii=False, separators=(item, key))  # type: ignore[no-any-return]
    if isinstance(value, str):
        return _quote(value)  # type: ignore[no-any-return]
    # A new encoder per value, as the package makes one: its table of the containers being written
    # (the check for a circular value) starts empty even after a value that could not be written.
    return "".join(_make_encoder({}, _refuse, _quote, None, key, item, False, False, True)(value, 0))


def quote(text: str) -> str:
    """A string as JSON spells it with ``ensure_ascii=False``: the quotes and the few escapes."""
    return dumps(text)


def lines_naming(blob: bytes, names: set[str]) -> list[bytes]:
    """The lines of a JSON-lines ``blob`` that hold one of ``names`` as a JSON string, in their
    order, found by their quoted spelling without decoding the rest (a superset: a caller checks
    the field once it decodes the line). Names are spelt as ``storage.utf8`` writes them."""
    starts: set[int] = set()
    for needle in {quote(name).encode("utf-8", "backslashreplace") for name in names}:
        at = blob.find(needle)
        while at >= 0:
            starts.add(blob.rfind(b"\n", 0, at) + 1)
            at = blob.find(needle, at + 1)
    out = []
    for start in sorted(starts):
        end = blob.find(b"\n", start)
        out.append(blob[start:end if end >= 0 else len(blob)])
    return out
