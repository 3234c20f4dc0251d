"""Expected against observed, as lines a person can read: the diffs of the results page.

Both sides are spelt the way the report holds them (run ids, paths and roots as the scenario's
``${…}`` tokens), so a diff shows what differs in meaning, not which sandbox a run used. A line
is ``[tag, text]``: ``" "`` on both sides, ``"-"`` only expected, ``"+"`` only observed.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Mapping
from typing import Any

MAX_LINES = 400
MISSING = "<missing>"


def lines(expected: Any, actual: Any) -> list[list[str]]:
    """A full-context line diff of two values (text as its lines, anything else as JSON)."""
    left, right = _as_lines(expected), _as_lines(actual)
    out: list[list[str]] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=left, b=right, autojunk=False).get_opcodes():
        if op == "equal":
            out += [[" ", x] for x in left[i1:i2]]
        else:
            out += [["-", x] for x in left[i1:i2]] + [["+", x] for x in right[j1:j2]]
    if len(out) > MAX_LINES:
        out = out[:MAX_LINES] + [[" ", f"… {len(out) - MAX_LINES} more lines"]]
    return out


def state(expect: Mapping[str, Any], observed: Mapping[str, Any] | None) -> list[list[str]] | None:
    """The state the scenario expects against the same parts of what was observed.

    Votes are compared key by key on the fields the scenario names (a ledger holds more than a
    scenario pins); ``no_votes`` keys on their upvotes; stats rows and the number of log lines
    whole. Log line expectations are patterns, not state: their mismatches say which one missed.
    None when the scenario expects no state or the report holds none.
    """
    if observed is None:
        return None
    votes = observed.get("votes") or {}
    want: dict[str, Any] = {}
    got: dict[str, Any] = {}
    if isinstance(expect.get("votes"), Mapping):
        want["votes"] = expect["votes"]
        got["votes"] = {key: _project(fields, votes.get(key, MISSING)) for key, fields in expect["votes"].items()}
    if isinstance(expect.get("no_votes"), list):
        want["no_votes"] = {str(k): {"upvoted_count": 0} for k in expect["no_votes"]}
        got["no_votes"] = {str(k): {"upvoted_count": _upvotes(votes.get(str(k)))} for k in expect["no_votes"]}
    if "stats" in expect:
        want["stats"] = expect["stats"]
        got["stats"] = observed.get("stats")
    if "log_lines" in expect:
        want["log_lines"] = expect["log_lines"]
        got["log_lines"] = len(observed.get("log") or []) + int(observed.get("log_omitted") or 0)
    return lines(want, got) if want else None


def _project(fields: Any, entry: Any) -> Any:
    """``entry`` cut down to the fields ``fields`` names (all of it when it is not a mapping)."""
    if not isinstance(fields, Mapping) or not isinstance(entry, Mapping):
        return entry
    return {k: entry.get(k, MISSING) for k in fields}


def _upvotes(entry: Any) -> Any:
    return entry.get("upvoted_count", 0) if isinstance(entry, Mapping) else 0


def _as_lines(value: Any) -> list[str]:
    """Text as its lines; anything else as indented JSON without the commas that end its items, so
    an item added after the last one differs by that item alone, not by a comma on the one before."""
    if isinstance(value, str):
        return value.splitlines() or [""]
    text = json.dumps(value, ensure_ascii=False, indent=2, sort_keys=True, default=str)
    return [line[:-1] if line.endswith(",") else line for line in text.splitlines()]
