"""The votes ledger's document spelled as teamai spells it: written whole, or raised in place.

It exists so that the ledger's rules (``ledger.py``) and its YAML are kept apart. :func:`dump`
writes the whole document in teamai's block spelling (``YAML.stringify``: block style, ``""``,
``{}``, plain instants), keys in the order they were read or added, a key left plain only where
every YAML reader takes it for that very string. :func:`_splice` gives the bytes ``dump`` would
give after a raise, for a file ``dump`` wrote: only the raised entries and their deltas are read
and spelled again, every other byte is kept, so a Stop's cost does not grow with the ledger
(``tests/test_ledger_raising.py`` holds the two to the same bytes).

Raising in place raises counts here too, so what a raise is made of lives here, below
``ledger.py``, which uses it as well: the names of the counts and their deltas, and the entry
created for a new key (:func:`empty_entry`). An entry is read back through ``ledger_read``.
"""

from __future__ import annotations

from . import jsontext
from .ledger_read import _fast_parse, _is_instant

TYPE_CHECKING = False  # typing is imported only by type checkers: it costs a fresh process ~4 ms
if TYPE_CHECKING:
    from typing import Any

    Document = dict[str, Any]

FIELDS = ("recalled_count", "upvoted_count", "last_recalled_at", "last_upvoted_at")  # what observers see
COUNTS = (("recalled_count", "recalled_delta"), ("upvoted_count", "upvoted_delta"))


def empty_entry() -> dict[str, Any]:
    """A new entry, as teamai creates one."""
    return {"recalled_count": 0, "upvoted_count": 0, "last_recalled_at": ""}


# --- writing ------------------------------------------------------------------------------------

# A recall and every Stop that credits read and write the ledger in a fresh process, where ``re``
# costs more than the reading and writing: the spellings every ledger line uses are recognised with
# string operations, and ``re`` is imported only for what is rare (quoted scalars, escapes).
_UNSAFE = "[\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff\ud800-\udfff]"
_WORDS = frozenset({"y", "n", "yes", "no", "on", "off", "true", "false", "null"})
_PLAIN_MARKS = str.maketrans("", "", "_./@+()- ")


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


# --- writing in place: the raised entries of a file ``dump`` wrote ------------------------------

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
