"""The hand-written instant reader (``clock.micros``) against ``datetime``.

A Stop reads its log's instants without importing ``datetime``: ``micros`` reads the reference's
own spelling by hand, and goes to ``datetime`` only when something else has imported it. Under
pytest something always has, so each call here first hides the module, as a fresh hook process
would find it, and the hand-written path is the one measured.
"""

from __future__ import annotations

import datetime as dt
import sys

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from reference.state import clock

EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
INSTANTS = st.datetimes(min_value=dt.datetime(1, 1, 1), max_value=dt.datetime(9999, 12, 31, 23, 59, 59, 999000))


def _by_hand(text: str) -> int:
    """``clock.micros(text)`` in a process that has not imported ``datetime``."""
    clock._HOURS.clear()  # a remembered hour must not stand in for the reading
    del sys.modules["datetime"]
    try:
        return clock.micros(text)
    finally:
        sys.modules["datetime"] = dt


def _expected(instant: dt.datetime) -> int:
    delta = instant.replace(tzinfo=dt.UTC) - EPOCH
    return (delta.days * 86400 + delta.seconds) * 1_000_000 + delta.microseconds


@given(instant=INSTANTS.map(lambda i: i.replace(microsecond=i.microsecond // 1000 * 1000)))
@example(instant=dt.datetime(2024, 2, 29, 23, 59, 59, 999000))
@example(instant=dt.datetime(1900, 3, 1, 0, 0, 0))
@example(instant=dt.datetime(2000, 2, 29, 12, 0, 0))
@example(instant=dt.datetime(1969, 12, 31, 23, 59, 59, 1000))
@example(instant=dt.datetime(1, 1, 1))
@example(instant=dt.datetime(999, 12, 31, 23, 59, 59, 999000))
def test_the_stamp_spelling_is_read_by_hand_as_datetime_reads_it(instant):
    text = f"{instant.year:04d}-" + instant.strftime("%m-%dT%H:%M:%S.") + f"{instant.microsecond // 1000:03d}Z"
    # Every year at four digits: strftime("%Y") wrote the year 1 as "1", a line the log's readers dropped.
    assert text == clock.stamp(instant.replace(tzinfo=dt.UTC)) == clock.stamp_micros(_expected(instant))
    assert _by_hand(text) == _expected(instant) == clock.micros(text)
    whole = text[:19] + "Z"  # the spelling without milliseconds
    assert _by_hand(whole) == _expected(instant.replace(microsecond=0))


@given(instant=INSTANTS, offset=st.integers(-14 * 60, 14 * 60))
def test_other_spellings_go_to_datetime_and_agree(instant, offset):
    zone = dt.timezone(dt.timedelta(minutes=offset))
    text = instant.replace(tzinfo=zone).isoformat()
    want = instant.replace(tzinfo=zone) - EPOCH
    assert _by_hand(text) == (want.days * 86400 + want.seconds) * 1_000_000 + want.microseconds


@pytest.mark.parametrize("text", ["2026-02-30T10:00:00.000Z", "2026-13-01T10:00:00.000Z", "2026-11-30T24:00:00.000Z",
                                  "2026-11-30T10:60:00.000Z", "2026-11-30T10:00:60.000Z", "2026-11-30T1O:00:00.000Z",
                                  "2026-11-30T10:00:00.0a0Z", "0000-01-01T00:00:00.000Z"])
def test_what_is_no_instant_is_refused_by_hand_as_by_datetime(text):
    with pytest.raises(clock.ClockError):
        _by_hand(text)


@pytest.mark.parametrize("year", ["0001", "0999"])
def test_a_run_recorded_before_the_year_1000_is_kept_by_pull(cli, year: str) -> None:  # type: ignore[no-untyped-def]
    """The whole way: the run line written at such an instant is read back, not dropped as malformed."""
    at = {"TEAMAI_NOW": f"{year}-06-01T00:00:00Z"}
    assert cli("recall", "redis", env=at).code == 0
    pulled = cli("pull", env={"TEAMAI_NOW": f"{year}-06-01T00:10:00Z"})
    assert pulled.code == 0 and "0 malformed" in pulled.out and "1 of 1 line(s) kept" in pulled.out, pulled.out
    assert pulled.err == ""
