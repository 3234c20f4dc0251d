"""The one clock. Every time the reference takes comes from here, so scenarios can move time
with ``TEAMAI_NOW`` instead of sleeping: :func:`now` is ``TEAMAI_NOW`` (ISO 8601) when it is set,
else the system clock, and every instant the reference writes is spelled by :func:`stamp` (UTC,
milliseconds, ``Z``), so one spelling reaches the log, the ledgers and the checkpoint.

``datetime`` is imported only when an instant has to be parsed or returned as an object: a hook
that just stamps its lines with the system time does not pay for it.
"""

from __future__ import annotations

import sys
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    import datetime as _dt
    from collections.abc import Mapping


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


def _days_from_civil(year: int, month: int, day: int) -> int:
    """Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm)."""
    year -= month <= 2
    era = year // 400
    yoe = year - era * 400
    doy = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    return era * 146097 + yoe * 365 + yoe // 4 - yoe // 100 + doy - 719468


_MONTH_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def micros(text: str) -> int:
    """Microseconds since the epoch of an ISO 8601 instant, as an exact integer.

    The reducer compares instants 24 h apart to the second, so they are integers, never floats
    (two floats that are each rounded can be 24 h apart by one ulp too many). :func:`stamp`'s
    own spelling (``2026-11-30T10:00:00.000Z``, or without the milliseconds) is read by hand,
    without ``datetime``, which a Stop would otherwise import just for this; any other spelling
    goes through :func:`parse_instant`. Raises :class:`ClockError` like it.
    """
    size = len(text)
    loaded = sys.modules.get("datetime")
    if loaded is not None and (size == 24 or size == 20) and text[-1] == "Z":
        try:  # datetime's C parser is quicker, once something else has paid for the import
            return (loaded.datetime.fromisoformat(text) - _epoch(loaded)) // _ONE_US  # type: ignore[no-any-return]
        except ValueError:
            pass
    elif (size == 24 or size == 20) and text[-1] == "Z" and text[13] == ":" == text[16] \
            and (size == 20 or text[19] == "."):
        hour = _HOURS.get(text[:13])
        if hour is None:
            hour = _hour(text[:13])
        rest = text[14:16] + text[17:19] + (text[20:23] if size == 24 else "000")
        if hour >= 0 and rest.isdigit() and rest.isascii():
            value = int(rest)  # mmssSSS
            minute, second = value // 100000, value // 1000 % 100
            if minute < 60 and second < 60:
                return hour + (minute * 60 + second) * 1_000_000 + value % 1000 * 1000
    import datetime as _dt

    delta = parse_instant(text) - _dt.datetime(1970, 1, 1, tzinfo=_dt.UTC)
    return (delta.days * 86400 + delta.seconds) * 1_000_000 + delta.microseconds


_HOURS: dict[str, int] = {}
_EPOCH: list[object] = []
_ONE_US: object = None


def _epoch(module: object) -> object:
    global _ONE_US
    if not _EPOCH:
        _EPOCH.append(module.datetime(1970, 1, 1, tzinfo=module.UTC))  # type: ignore[attr-defined]
        _ONE_US = module.timedelta(microseconds=1)  # type: ignore[attr-defined]
    return _EPOCH[0]


def _hour(text: str) -> int:
    """Microseconds of ``YYYY-MM-DDTHH`` (kept: a log's lines share few hours); -1 when it is not one."""
    value = -1
    digits = text[:4] + text[5:7] + text[8:10] + text[11:13]
    if text[4] == "-" == text[7] and text[10] == "T" and digits.isascii() and digits.isdigit():
        year, month, day, hour = int(text[:4]), int(text[5:7]), int(text[8:10]), int(text[11:13])
        leap = month == 2 and year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
        if year >= 1 and 1 <= month <= 12 and 1 <= day <= _MONTH_DAYS[month - 1] + leap and hour < 24:
            value = (_days_from_civil(year, month, day) * 24 + hour) * 3_600_000_000
    if len(_HOURS) < 100_000:
        _HOURS[text] = value
    return value


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

    i = instant.astimezone(_dt.UTC)
    return _spelt(i.year, i.month, i.day, i.hour, i.minute, i.second, i.microsecond // 1000)


def _spelt(year: int, month: int, day: int, hour: int, minute: int, second: int, ms: int) -> str:
    """Every field at its full width. ``strftime("%Y")`` writes the year 1 as ``1``, not ``0001``,
    and the log's readers, which take an instant at fixed places, dropped such a line as malformed."""
    return f"{year:04d}-{month:02d}-{day:02d}T{hour:02d}:{minute:02d}:{second:02d}.{ms:03d}Z"


def now_seconds(env: Mapping[str, str]) -> float:
    """``now(env).timestamp()``, without ``datetime`` when the system clock is the source."""
    if env.get("TEAMAI_NOW"):
        return now(env).timestamp()
    return time.time()


def now_micros(env: Mapping[str, str]) -> int:
    """:func:`micros` of the current instant, without ``datetime`` when the system clock is the source."""
    fixed = env.get("TEAMAI_NOW")
    if fixed:
        return micros(fixed)
    return time.time_ns() // 1000


def stamp_micros(value: int) -> str:
    """:func:`stamp` of an instant given in microseconds, without ``datetime``."""
    t = time.gmtime(value // 1_000_000)
    return _spelt(t.tm_year, t.tm_mon, t.tm_mday, t.tm_hour, t.tm_min, t.tm_sec, value % 1_000_000 // 1000)


def now_stamp(env: Mapping[str, str]) -> str:
    """``stamp(now(env))``, without ``datetime`` when the system clock is the source."""
    if env.get("TEAMAI_NOW"):
        return stamp(now(env))
    seconds = time.time()
    whole = int(seconds)
    t = time.gmtime(whole)
    return _spelt(t.tm_year, t.tm_mon, t.tm_mday, t.tm_hour, t.tm_min, t.tm_sec, int((seconds - whole) * 1000))
