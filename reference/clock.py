"""The one clock. Every time the reference takes comes from here, so scenarios can move time
with ``TEAMAI_NOW`` instead of sleeping."""

from __future__ import annotations

import datetime as _dt
from collections.abc import Mapping

UTC = _dt.UTC


class ClockError(ValueError):
    """TEAMAI_NOW is set but is not an ISO 8601 instant."""


def parse_instant(text: str) -> _dt.datetime:
    """Parse an ISO 8601 instant; a value without a zone is taken as UTC."""
    raw = text.strip()
    if raw.endswith(("Z", "z")):
        raw = raw[:-1] + "+00:00"
    try:
        value = _dt.datetime.fromisoformat(raw)
    except ValueError as exc:
        raise ClockError(f"not an ISO 8601 instant: {text!r}") from exc
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


def now(env: Mapping[str, str]) -> _dt.datetime:
    """The current instant: ``TEAMAI_NOW`` when set, else the system clock."""
    fixed = env.get("TEAMAI_NOW")
    if fixed:
        return parse_instant(fixed)
    return _dt.datetime.now(UTC)


def stamp(instant: _dt.datetime) -> str:
    """The one spelling of an instant in every file the reference writes (ms, UTC, ``Z``)."""
    instant = instant.astimezone(UTC)
    return instant.strftime("%Y-%m-%dT%H:%M:%S.") + f"{instant.microsecond // 1000:03d}Z"
