"""When each step runs. Scenarios move time instead of sleeping.

The first step runs at ``start`` (default 2026-11-30T10:00:00Z). A step's ``at`` is either an
absolute ISO 8601 instant or ``+<n><unit>`` (s, m, h, d) after the previous step; without
``at`` a step runs one second after the previous one. Instants are spelled in UTC with
milliseconds and ``Z``, the spelling the reference writes. Each instant travels in the step's
message as ``now``; ``observe`` runs one second after the last step.

The harness parses instants itself rather than through ``reference.state.clock``: it must judge any
implementation, so nothing in it may depend on the implementation it is judging.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Mapping
from typing import Any

DEFAULT_START = "2026-11-30T10:00:00Z"
DEFAULT_GAP = dt.timedelta(seconds=1)
_RELATIVE = re.compile(r"^\+(\d+)([smhd])$")
_UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days"}


class TimeError(ValueError):
    pass


def parse_instant(text: str) -> dt.datetime:
    raw = text.strip()
    if raw.endswith(("Z", "z")):
        raw = raw[:-1] + "+00:00"
    try:
        value = dt.datetime.fromisoformat(raw)
    except ValueError as exc:
        raise TimeError(f"not an ISO 8601 instant: {text!r}") from exc
    if value.tzinfo is None:
        value = value.replace(tzinfo=dt.UTC)
    return value.astimezone(dt.UTC)


def spell(instant: dt.datetime) -> str:
    """ISO 8601 to the millisecond, UTC, the year at four digits (``strftime("%Y")`` writes the
    year 1 as ``1``, which no reader takes for an instant)."""
    instant = instant.astimezone(dt.UTC)
    return f"{instant.year:04d}-{instant:%m-%dT%H:%M:%S}.{instant.microsecond // 1000:03d}Z"


def next_instant(previous: dt.datetime | None, start: dt.datetime, at: Any) -> dt.datetime:
    """The instant of a step given the previous step's (None for the first step)."""
    base = start if previous is None else previous
    if at is None:
        return start if previous is None else previous + DEFAULT_GAP
    text = str(at).strip()
    match = _RELATIVE.match(text)
    if match:
        return base + dt.timedelta(**{_UNITS[match.group(2)]: int(match.group(1))})
    return parse_instant(text)


def instants(scenario: Mapping[str, Any]) -> list[dt.datetime]:
    """The instant of every step, in order."""
    start = parse_instant(str(scenario.get("start") or DEFAULT_START))
    result: list[dt.datetime] = []
    previous: dt.datetime | None = None
    for step in _steps(scenario.get("steps")):
        previous = next_instant(previous, start, step.get("at"))
        result.append(previous)
    return result


def _steps(raw: Any) -> Iterable[Mapping[str, Any]]:
    return [s if isinstance(s, Mapping) else {} for s in (raw or [])]
