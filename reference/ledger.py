"""The votes ledger of one scope, in teamai's YAML shape::

    version: 2
    votes:
      "redis-timeout":
        recalled_count: 1
        upvoted_count: 0
        last_recalled_at: "2026-11-30T10:00:00.000Z"
        last_upvoted_at: null
    deltas: {}

It is written whole, atomically (temp file, rename), under the ledger's lock with a bounded
wait. The reference writes and reads its own spelling without importing YAML (recall is on
an agent's critical path); any other spelling falls back to a full YAML parser. A ledger that
does not parse into this shape is never overwritten: it is moved aside and the move is named.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from .clock import stamp
from .storage import locked, write_atomic

TYPE_CHECKING = False  # typing is imported only by type checkers: it costs a fresh process ~4 ms
if TYPE_CHECKING:
    from typing import Any

    Votes = dict[str, dict[str, Any]]

VERSION = 2
FIELDS = ("recalled_count", "upvoted_count", "last_recalled_at", "last_upvoted_at")



class CorruptLedger(ValueError):
    pass


def empty_entry() -> dict[str, Any]:
    return {"recalled_count": 0, "upvoted_count": 0, "last_recalled_at": None, "last_upvoted_at": None}


_UNSAFE = re.compile("[\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff\ud800-\udfff]")


def _quoted(key: str) -> str:
    """A double-quoted scalar that both JSON and YAML read back as ``key``: YAML refuses some
    characters raw (and pairs of ``\\u`` surrogate escapes), so only those are escaped."""
    return _UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", json.dumps(key, ensure_ascii=False))


def _scalar(value: Any) -> str:
    """JSON for one field; counts and plain instants are spelled directly (a Stop writes a
    ledger of thousands of entries, and ``json.dumps`` per value is most of that time)."""
    if value is None:
        return "null"
    if type(value) is int:
        return str(value)
    if type(value) is str and value.isascii() and value.isprintable() and '"' not in value and "\\" not in value:
        return f'"{value}"'
    return json.dumps(value)


def _unquote(text: str) -> Any:
    """The inverse of :func:`_scalar` (and of ``_quoted`` for keys)."""
    if text == "null":
        return None
    if text.isdigit():
        return int(text)
    if len(text) >= 2 and text[0] == '"' == text[-1] and "\\" not in text and '"' not in text[1:-1]:
        return text[1:-1]
    return json.loads(text)


def dump(votes: Votes, extra: dict[str, Any] | None = None) -> str:
    lines = [f"version: {VERSION}", "votes:" if votes else "votes: {}"]
    for key in sorted(votes):
        entry = votes[key]
        lines.append(f"  {_quoted(key)}:")
        for name in FIELDS:
            lines.append(f"    {name}: {_scalar(entry.get(name))}")
    deltas = (extra or {}).get("deltas") or {}
    lines.append("deltas: " + json.dumps(deltas, ensure_ascii=False, sort_keys=True))
    return "\n".join(lines) + "\n"


def _fast_parse(text: str) -> Votes | None:
    """Parse exactly what :func:`dump` writes; ``None`` for anything else."""
    lines = text.split("\n")
    if not lines or lines[0].strip() != f"version: {VERSION}":
        return None
    votes: Votes = {}
    current: dict[str, Any] | None = None
    for line in lines[1:]:
        if not line.strip():
            continue
        if line in ("votes:", "votes: {}"):
            continue
        if line.startswith("deltas:"):
            continue
        if line.startswith('  "') and line.endswith(":") and not line.startswith("    "):
            try:
                key = _unquote(line[2:-1])
            except ValueError:
                return None
            if not isinstance(key, str):
                return None
            current = votes.setdefault(key, empty_entry())
            continue
        if line.startswith("    ") and current is not None:
            name, sep, value = line.strip().partition(": ")
            if not sep or name not in FIELDS:
                return None
            try:
                current[name] = _unquote(value)
            except ValueError:
                return None
            continue
        return None
    return votes


def _coerce(data: Any) -> Votes:
    if not isinstance(data, dict) or not isinstance(data.get("votes", {}), (dict, type(None))):
        raise CorruptLedger("not a votes ledger")
    votes: Votes = {}
    for key, raw in (data.get("votes") or {}).items():
        if not isinstance(raw, dict):
            raise CorruptLedger(f"entry {key!r} is not a mapping")
        entry = empty_entry()
        for name in FIELDS:
            value = raw.get(name, entry[name])
            if name.endswith("_count"):
                if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                    raise CorruptLedger(f"{key}.{name} is not a count")
            elif isinstance(value, _dt.datetime):  # YAML reads an unquoted instant as a datetime
                value = stamp(value if value.tzinfo else value.replace(tzinfo=_dt.UTC))
            elif value is not None:
                value = str(value)
            entry[name] = value
        votes[str(key)] = entry
    return votes


def parse(text: str) -> Votes:
    fast = _fast_parse(text)
    if fast is not None:
        return fast
    import yaml

    try:
        data = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))  # noqa: S506
    except yaml.YAMLError as exc:
        raise CorruptLedger(f"not YAML: {exc}") from exc
    if data is None:
        return {}
    return _coerce(data)


def read(path: str) -> Votes:
    """The ledger's votes; raises :class:`CorruptLedger` for a file that is not a ledger."""
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except FileNotFoundError:
        return {}
    except UnicodeDecodeError as exc:
        raise CorruptLedger("not UTF-8") from exc
    return parse(text)


def _set_aside(path: str, stamp: str) -> str:
    aside = f"{path}.corrupt-{stamp.replace(':', '')}"
    n = 1
    while os.path.exists(aside):
        n += 1
        aside = f"{path}.corrupt-{stamp.replace(':', '')}-{n}"
    os.replace(path, aside)
    return aside


@contextmanager
def editing(path: str, lock_path: str, wait: float, stamp: str,
            warn: Callable[[str], None]) -> Iterator[Votes]:
    """Lock the ledger, yield its votes for editing, write them back atomically on success."""
    with locked(lock_path, "the votes ledger", wait):
        try:
            votes = read(path)
        except CorruptLedger as exc:
            aside = _set_aside(path, stamp)
            warn(f"votes ledger {path} is corrupt ({exc}); moved it to {aside} and started a new one")
            votes = {}
        before = {key: dict(entry) for key, entry in votes.items()}
        yield votes
        if votes != before or not os.path.exists(path):
            write_atomic(path, dump(votes).encode("utf-8"))
