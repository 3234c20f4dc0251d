"""The spellings of one log line that JSON allows and the log's own writer never uses: escapes,
``\\u`` for every character that is not ASCII, spaces, keys in another order, and an extra field
holding an object with the same names (an implementation may add fields). The reducer reads some
lines from their bytes, so each of these must decide what the log's own spelling decides."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st

from reference.state import jsontext

NAMES = ("ts", "session", "path", "run", "caller", "agent_type", "kind", "exact", "evidence", "via", "unambiguous")


def decoy(values: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    """An object that holds some of the names the byte readers look for."""
    return st.fixed_dictionaries({}, optional={name: values for name in NAMES})


@st.composite
def spelling(draw: st.DrawFn, rec: dict[str, Any], values: st.SearchStrategy[Any], kind_first: bool = False) -> bytes:
    """``rec`` spelt one way or another; ``kind_first`` keeps ``kind`` and ``ts`` where the log writes
    them (so that the line is still sorted by its first bytes)."""
    rec = dict(rec)
    keys = list(rec)
    if draw(st.booleans()):
        head = keys[:2] if kind_first or draw(st.booleans()) else []
        rest = draw(st.permutations(keys[len(head):]))
        rec = {k: rec[k] for k in [*head, *rest]}
    if draw(st.integers(0, 3)) == 0:
        items = list(rec.items())
        items.insert(draw(st.integers(2 if kind_first else 1, len(items))), ("extra", draw(decoy(values))))
        rec = dict(items)
    how = draw(st.sampled_from(["log", "log", "ascii", "spaced", "slashes"]))
    if how == "log":
        text = jsontext.dumps(rec)
    elif how == "ascii":
        text = json.dumps(rec, separators=(",", ":"))
    elif how == "spaced":
        text = json.dumps(rec, ensure_ascii=False)
        if kind_first:
            text = text.replace('{"kind": ', '{"kind":', 1).replace(', "ts": "', ',"ts":"', 1)
    else:
        text = jsontext.dumps(rec).replace("/", "\\/")
    return text.encode("utf-8")
