"""The per-session ledger: it blocks on the reads' own times, like the log's cover, and keeps each
entry a day from when it was written, so a lost consumed line never leads to a second vote."""

from __future__ import annotations

import json
import os
from unittest import mock

import pytest

from reference.state import clock, ledger, storage, upvoted, upvoted_file

from .logs import evidence, link, run, ts

R1 = "11111111-1111-4111-8111-111111111111"
R2 = "22222222-2222-4222-8222-222222222222"
HOUR, DAY = 3600, 24 * 3600


def _sessions(lab):
    return upvoted_file.load(lab.cfg().active.upvoted_path, "x", lab.warnings.append).sessions


def test_an_entry_remembers_the_crediting_read_and_when_it_was_credited(lab):
    lab.write([run(0, R1, "ses-a", [lab.doc("d1")]), evidence(60, "ses-a", lab.path("d1"))])
    lab.reduce(at=10 * HOUR)
    head, *lines = [json.loads(line) for line in open(lab.cfg().active.upvoted_path).read().splitlines()]
    assert head == {"version": 4, "compacted": 0}
    assert lines == [{"kind": "guard", "session": "ses-a", "key": "d1", "read": ts(60), "credited": ts(10 * HOUR)},
                     {"kind": "read", "read": ts(60), "session": "ses-a", "path": lab.path("d1"), "root": "ses-a",
                      "key": "d1", "credited": ts(10 * HOUR)}]


def test_it_blocks_on_read_times_not_on_when_the_reducer_ran():
    sessions = upvoted.Credits({"ses-a": {"d1": {"read": ts(0), "credited": ts(20 * HOUR)}}})
    at = lambda seconds: clock.micros(ts(seconds))  # noqa: E731
    assert upvoted.blocks(sessions, "ses-a", "d1", at(DAY - 1))
    assert not upvoted.blocks(sessions, "ses-a", "d1", at(DAY))  # exactly a day after the read
    assert not upvoted.blocks(sessions, "ses-a", "d1", at(30 * HOUR))  # though credited only 10 h before
    assert upvoted.blocks(sessions, "ses-a", "d1", at(-DAY + 1))
    assert not upvoted.blocks(sessions, "ses-b", "d1", at(0)) and not upvoted.blocks(sessions, "ses-a", "d2", at(0))


def test_a_version_1_file_is_read_with_its_instant_as_both(lab):
    path = lab.cfg().active.upvoted_path
    lab.log_path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as fh:
        json.dump({"version": 1, "sessions": {"ses-a": {"d1": ts(100)}}}, fh)
    assert _sessions(lab) == {"ses-a": {"d1": {"read": ts(100), "credited": ts(100)}}}
    lab.write([run(0, R1, "ses-a", [lab.doc("d1")]), evidence(200, "ses-a", lab.path("d1"))])
    lab.reduce(at=300)  # the old entry counts as this read's credit: no second vote
    assert lab.votes() == {}
    assert [c["credited"] for c in lab.consumed()] == [True]


@pytest.mark.parametrize("spoilt", [{"sessions": {"ses-a": {"d1": 5}}},
                                    {"sessions": {"ses-a": {"d1": {"read": ts(1)}}}},
                                    {"sessions": {"ses-a": ["d1"]}},
                                    {"sessions": {}, "reads": {"d1": ts(1)}},
                                    {"sessions": {}, "reads": [{"read": ts(1), "session": "ses-a"}]}])
def test_a_spoilt_entry_moves_the_file_aside(lab, spoilt):
    path = lab.cfg().active.upvoted_path
    lab.log_path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as fh:
        json.dump(spoilt, fh)
    assert _sessions(lab) == {}
    assert any("per-session upvote ledger" in w and "is corrupt" in w for w in lab.warnings)


def test_a_lost_consumed_line_is_caught_a_day_after_the_pull_that_credited_an_old_read(lab):
    # A pull credits a read three days old; the consumed line is lost; the next pull comes 20 h later.
    lines = [run(0, R1, "ses-a", [lab.doc("d1")]), evidence(60, "ses-a", lab.path("d1"))]
    lab.write(lines)
    from reference.state import runlog

    with mock.patch.object(runlog, "append_bytes", side_effect=OSError("disk full")):
        first = lab.reduce(at=3 * DAY)
    assert first.credited == [("ses-a", "d1")] and first.consumed == 0
    again = lab.reduce(at=3 * DAY + 20 * HOUR)
    assert again.credited == [] and again.consumed == 1
    assert lab.votes() == {"d1": 1}
    assert "d1" in _sessions(lab)["ses-a"]


def _at(seconds):
    return clock.micros(ts(seconds))


def test_entries_expire_a_day_after_they_were_written(lab):
    lab.write([run(0, R1, "ses-a", [lab.doc("d1")]), evidence(60, "ses-a", lab.path("d1")),
               run(0, R2, "ses-b", [lab.doc("d2")])])
    lab.reduce(at=HOUR)
    lab.append([evidence(2 * DAY, "ses-b", lab.path("d9"))])
    lab.append([run(2 * DAY, "r3", "ses-b", [lab.doc("d3")]), evidence(2 * DAY + 5, "ses-b", lab.path("d3"))])
    lab.reduce(at=2 * DAY + 10)  # credits d3
    path = lab.cfg().active.upvoted_path
    fresh = upvoted_file.load(path, "x", lab.warnings.append, now=_at(HOUR + DAY - 1))
    assert upvoted.blocks(fresh, "ses-a", "d1", _at(120))  # a second before it expires
    old = upvoted_file.load(path, "x", lab.warnings.append, now=_at(HOUR + DAY))
    assert not upvoted.blocks(old, "ses-a", "d1", _at(120))  # ignored from then on, still in the file
    assert upvoted.blocks(old, "ses-b", "d3", _at(2 * DAY + 60))
    old.rewrite = True  # written whole (as once the file has doubled), it is left out
    upvoted_file.save(path, old, _at(2 * DAY + 20))
    assert _sessions(lab) == {"ses-b": {"d3": {"read": ts(2 * DAY + 5), "credited": ts(2 * DAY + 10)}}}


def test_a_failure_between_the_two_ledgers_is_finished_by_the_next_reduce(lab):
    """The per-session ledger lands, the votes ledger's write fails: the intent left behind makes
    the next reduce write the vote, once (it used to be lost for good)."""
    lab.write([run(0, R1, "ses-a", [lab.doc("d1")]), evidence(60, "ses-a", lab.path("d1"))])
    with mock.patch.object(ledger, "write_atomic", side_effect=OSError("disk full")), pytest.raises(OSError):
        lab.reduce(at=100)
    assert lab.consumed() == [] and lab.votes() == {}
    assert "d1" in _sessions(lab)["ses-a"]  # written first
    assert os.path.exists(storage.intent_path(lab.cfg().active.ledger_path))
    again = lab.reduce(at=200)
    assert again.credited == [] and [c["credited"] for c in lab.consumed()] == [True]
    assert lab.votes() == {"d1": 1}
    assert not os.path.exists(storage.intent_path(lab.cfg().active.ledger_path))
    lab.reduce(at=300)
    assert lab.votes() == {"d1": 1} and len(lab.consumed()) == 1


@pytest.mark.parametrize("again_at", [200, 30 * HOUR], ids=["covered-under-the-new-root", "credit-under-the-new-root"])
def test_a_read_counted_before_its_session_was_linked_stays_the_credit_it_was(lab, again_at):
    # The parent credits d1; its child (not yet linked) reads d1 and credits it as a root of its own,
    # but the consumed line is lost; then the link arrives. The retry would now judge the read under
    # the parent: covered (no credited line for a vote already given) or a credit (a second vote for
    # one read). It is marked as the credit it was, under the child.
    from reference.state import runlog

    lab.write([run(0, R1, "ses-p", [lab.doc("d1")]), evidence(60, "ses-p", lab.path("d1"))])
    assert lab.reduce(at=70).credited == [("ses-p", "d1")]
    lab.append([run(again_at - 50, R2, "ses-c", [lab.doc("d1")]), evidence(again_at, "ses-c", lab.path("d1"))])
    with mock.patch.object(runlog, "append_bytes", side_effect=OSError("disk full")):
        assert lab.reduce(at=again_at + 10).credited == [("ses-c", "d1")]
    lab.append([link(again_at + 20, "ses-c", "ses-p")])
    retry = lab.reduce(at=again_at + 30)
    assert retry.credited == [] and retry.consumed == 1
    assert lab.votes() == {"d1": 2}
    assert sorted((c["session"], c["credited"]) for c in lab.consumed()) == [("ses-c", True), ("ses-p", True)]
    assert lab.reduce(at=again_at + 40).consumed == 0


def test_counted_reads_expire_with_their_entries(lab):
    lab.write([run(0, R1, "ses-a", [lab.doc("d1")]), evidence(60, "ses-a", lab.path("d1")),
               run(0, R2, "ses-b", [lab.doc("d2")])])
    lab.reduce(at=HOUR)
    lab.append([run(2 * DAY, "r3", "ses-b", [lab.doc("d3")]), evidence(2 * DAY + 5, "ses-b", lab.path("d3"))])
    lab.reduce(at=2 * DAY + 10)
    path = lab.cfg().active.upvoted_path
    read = (ts(60), "ses-a", lab.path("d1"))
    assert upvoted.counted(upvoted_file.load(path, "x", lab.warnings.append, now=_at(HOUR + DAY - 1)), read, "d1") == "ses-a"
    credits = upvoted_file.load(path, "x", lab.warnings.append, now=_at(HOUR + DAY))
    assert upvoted.counted(credits, read, "d1") is None
    credits.rewrite = True
    upvoted_file.save(path, credits, _at(2 * DAY + 20))
    lines = [json.loads(line) for line in open(path).read().splitlines()[1:]]
    assert [(r["session"], r["key"]) for r in lines if r["kind"] == "read"] == [("ses-b", "d3")]


def _credited(lab, session, key, seconds):
    """Put a credit straight into the per-session ledger, as a Stop's reduce writes it."""
    path = lab.cfg().active.upvoted_path
    lab.log_path.parent.mkdir(parents=True, exist_ok=True)
    credits = upvoted_file.load(path, "x", lab.warnings.append, {session})
    upvoted.remember(credits, session, key, (ts(seconds), session, f"/t/{key}.md"), ts(seconds + 1))
    upvoted_file.save(path, credits, _at(seconds + 1))


def test_a_stop_decodes_only_the_sessions_it_asks_about_and_appends(lab):
    for i in range(3):
        _credited(lab, f"ses-{i}", "d1", 100 + i)
    path = lab.cfg().active.upvoted_path
    before = open(path, "rb").read()
    credits = upvoted_file.load(path, "x", lab.warnings.append, {"ses-1"})
    assert not credits.whole and list(credits.sessions) == ["ses-1"]
    assert [ident[1] for ident, _ in credits.reads] == ["ses-1"]
    upvoted.remember(credits, "ses-1", "d2", (ts(200), "ses-1", "/t/d2.md"), ts(201))
    upvoted_file.save(path, credits, _at(201))
    after = open(path, "rb").read()
    assert after.startswith(before) and after.count(b"\n") == before.count(b"\n") + 2  # appended
    assert set(_sessions(lab)["ses-1"]) == {"d1", "d2"} and set(_sessions(lab)) == {"ses-0", "ses-1", "ses-2"}


def test_a_last_line_cut_short_is_ignored_and_cut_off_before_the_next_append(lab):
    _credited(lab, "ses-a", "d1", 100)
    path = lab.cfg().active.upvoted_path
    with open(path, "ab") as fh:
        fh.write(b'{"kind":"guard","session":"ses-a","key":"d2","re')
    assert set(_sessions(lab)["ses-a"]) == {"d1"} and not lab.warnings
    _credited(lab, "ses-a", "d3", 200)
    assert set(_sessions(lab)["ses-a"]) == {"d1", "d3"} and not lab.warnings
    assert b'"re\n' not in open(path, "rb").read() and b'"re{' not in open(path, "rb").read()


def test_a_file_that_has_doubled_is_written_whole_without_replaced_or_expired_lines(lab):
    path = lab.cfg().active.upvoted_path
    for i in range(400):  # the same pair again and again: each credit replaces the last
        _credited(lab, "ses-a", "d1", 100 + 2 * DAY * i)
    head = json.loads(open(path).readline())
    lines = open(path).read().splitlines()
    assert head["version"] == 4 and len(lines) < 400  # it was written whole on the way
    assert os.path.getsize(path) <= 2 * head["compacted"] + upvoted_file.SLACK + 1000
    credits = upvoted_file.load(path, "x", lab.warnings.append)
    assert credits.sessions == {"ses-a": {"d1": {"read": ts(100 + 2 * DAY * 399), "credited": ts(101 + 2 * DAY * 399)}}}


def test_a_version_3_file_is_read_and_written_again_as_version_4(lab):
    path = lab.cfg().active.upvoted_path
    lab.log_path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as fh:
        json.dump({"version": 3, "sessions": {"ses-a": {"d1": {"read": ts(10), "credited": ts(20)}}},
                   "reads": [{"read": ts(10), "session": "ses-a", "path": "/t/d1.md", "root": "ses-a", "key": "d1",
                              "credited": ts(20)}]}, fh)
    _credited(lab, "ses-b", "d2", 100)
    assert json.loads(open(path).readline())["version"] == 4
    assert set(_sessions(lab)) == {"ses-a", "ses-b"}
    assert upvoted.counted(upvoted_file.load(path, "x", lab.warnings.append), (ts(10), "ses-a", "/t/d1.md"), "d1") == "ses-a"
