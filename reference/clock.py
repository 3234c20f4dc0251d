"""The one clock. Every time the reference takes comes from here, so scenarios can move time
with ``TEAMAI_NOW`` instead of sleeping.

``datetime`` is imported only when an instant has to be parsed or returned as an object: a hook
that just stamps its lines with the system time does not pay for it.
"""

from __future__ import annotations

import time
from collections.abc import Mapping

TYPE_CHECKING = False
if TYPE_CHECKING:
    import datetime as _dt


class ClockError(ValueError):
    """TEAMAI_NOW is set but is not an ISO 8601 instant."""


def parse_instant(text: str) -> _dt.datetime:
    """Parse an ISO 8601 instant; a value without a zone is taken as UTC."""
    import datetime as _dt

    raw = text.strip()
    if raw.endswith(("Z", "z")):
        raw = raw[:-1] + "+00:00"
    try:
        value = _dt.datetime.fromisoformat(raw)
    except ValueError as exc:
        raise ClockError(f"not an ISO 8601 instant: {text!r}") from exc
    if value.tzinfo is None:
        value = value.replace(tzinfo=_dt.UTC)
    return value.astimezone(_dt.UTC)


def now(env: Mapping[str, str]) -> _dt.datetime:
    """The current instant: ``TEAMAI_NOW`` when set, else the system clock."""
    import datetime as _dt

    fixed = env.get("TEAMAI_NOW")
    if fixed:
        return parse_instant(fixed)
    return _dt.datetime.now(_dt.UTC)


def stamp(instant: _dt.datetime) -> str:
    """The one spelling of an instant in every file the reference writes (ms, UTC, ``Z``)."""
    import datetime as _dt

    instant = instant.astimezone(_dt.UTC)
    return instant.strftime("%Y-%m-%dT%H:%M:%S.") + f"{instant.microsecond // 1000:03d}Z"


def now_seconds(env: Mapping[str, str]) -> float:
    """``now(env).timestamp()``, without ``datetime`` when the system clock is the source."""
    if env.get("TEAMAI_NOW"):
        return now(env).timestamp()
    return time.time()


def now_stamp(env: Mapping[str, str]) -> str:
    """``stamp(now(env))``, without ``datetime`` when the system clock is the source."""
    if env.get("TEAMAI_NOW"):
        return stamp(now(env))
    seconds = time.time()
    whole = int(seconds)
    return time.strftime("%Y-%m-%dT%H:%M:%S.", time.gmtime(whole)) + f"{int((seconds - whole) * 1000):03d}Z"
