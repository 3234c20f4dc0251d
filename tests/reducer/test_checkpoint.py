"""The checkpoint beside the log: a Stop reads only what was appended since the last one, notices a
log that was pruned, replaced or cut, and reads the whole log whenever a new line could change a
decision about a read the checkpoint no longer holds."""

from __future__ import annotations

import json
import os
import stat
from unittest import mock

from reference import reducer
from reference.reducer import checkpoint
from reference.state import clock, retention, storage

from .logs import claim, evidence, link, run, ts

R1 = "11111111-1111-4111-8111-111111111111"
R2 = "22222222-2222-4222-8222-222222222222"
R3 = "33333333-3333-4333-8333-333333333333"
HOUR, DAY = 3600, 24 * 3600


def _stop(lab, at, session="ses-a"):
    return reducer.reduce(lab.cfg(at), lab.warnings.append, session)


def _plan(lab, at, session="ses-a"):
    return reducer.plan(lab.cfg(at), session, clock.micros(ts(at)))


def _head(lab):
    with open(lab.cfg().active.checkpoint_path, "rb") as fh:
        return json.loads(fh.readline())


def test_a_stop_reads_only_the_lines_appended_since_the_last_one(lab):
    lab.write([run(0, R1, "ses-a", [lab.doc("d1")]), evidence(5, "ses-a", lab.path("d1"))])
    first = _stop(lab, 10)
    assert first.checkpoint == "full" and first.credited == [("ses-a", "d1")]
    size = lab.log_path.stat().st_size
    assert _head(lab)["offset"] <= size  # the consumed line may land after it: it is read next time
    new = [run(60, R2, "ses-a", [lab.doc("d2")]), evidence(65, "ses-a", lab.path("d2"))]
    lab.append(new)
    made = _plan(lab, 70)
    assert made.used and not made.compact
    assert made.view.delta.endswith(b"".join(json.dumps(r, separators=(",", ":")).encode() + b"\n" for r in new))
    assert _stop(lab, 70).credited == [("ses-a", "d2")]
    assert lab.votes() == {"d1": 1, "d2": 1}


def test_the_checkpoint_lies_beside_the_log_private_and_a_stop_with_nothing_new_leaves_it(lab):
    lab.write([run(0, R1, "ses-a", [lab.doc("d1")]), evidence(5, "ses-a", lab.path("d1"))])
    _stop(lab, 10)
    _stop(lab, 11)  # reads the consumed line it wrote
    path = lab.cfg().active.checkpoint_path
    assert os.path.dirname(path) == os.path.dirname(lab.log_path)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    before = os.stat(path).st_mtime_ns, open(path, "rb").read()
    assert _stop(lab, 12).checkpoint == "used"
    assert (os.stat(path).st_mtime_ns, open(path, "rb").read()) == before


def test_a_replaced_log_is_noticed(lab):
    lab.write([run(0, R1, "ses-a", [lab.doc("d1")]), evidence(5, "ses-a", lab.path("d1"))])
    _stop(lab, 10)
    storage.write_atomic(str(lab.log_path), json.dumps(run(20, R2, "ses-a", [lab.doc("d2")])).encode() + b"\n")
    lab.append([evidence(25, "ses-a", lab.path("d2"))])
    made = _plan(lab, 30)
    assert not made.used and not made.matched
    assert _stop(lab, 30).credited == [("ses-a", "d2")]


def test_a_log_cut_short_or_rewritten_in_place_is_noticed(lab):
    lab.write([run(0, R1, "ses-a", [lab.doc("d1")]), evidence(5, "ses-a", lab.path("d1"))])
    _stop(lab, 10)
    data = lab.log_path.read_bytes()
    with open(lab.log_path, "r+b") as fh:  # same file, same length, other bytes just before the offset
        fh.write(data.replace(b'"status":"success"}', b'"status":"failure"}'))
    assert not _plan(lab, 11).matched
    with open(lab.log_path, "r+b") as fh:
        fh.truncate(10)
    assert not _plan(lab, 12).matched


def test_a_checkpoint_that_cannot_be_read_means_a_whole_read_and_a_fresh_one(lab):
    lab.write([run(0, R1, "ses-a", [lab.doc("d1")]), evidence(5, "ses-a", lab.path("d1"))])
    _stop(lab, 10)
    path = lab.cfg().active.checkpoint_path
    for spoilt in (b"", b"{not json\n", b'{"v": 99}\n""\n', open(path, "rb").read()[:40]):
        with open(path, "wb") as fh:
            fh.write(spoilt)
        lab.append([evidence(20, "ses-a", lab.path("d1"))])
        result = _stop(lab, 21)
        assert result.checkpoint == "full"
        assert _plan(lab, 22).matched  # written afresh
    assert lab.votes() == {"d1": 1}


def test_a_read_older_than_the_horizon_reads_the_whole_log(lab):
    lab.write([run(0, R1, "ses-a", [lab.doc("d1")]), evidence(10 * HOUR, "ses-b", lab.path("d9"))])
    _stop(lab, 10 * HOUR + 5)
    horizon = _head(lab)["horizon"]
    assert horizon == clock.micros(ts(9 * HOUR))
    lab.append([evidence(60, "ses-a", lab.path("d1"))])  # written late, stamped long before
    made = _plan(lab, 10 * HOUR + 10)
    assert made.matched and not made.used
    assert _stop(lab, 10 * HOUR + 10).credited == [("ses-a", "d1")]


def test_a_link_that_moves_a_session_reads_the_whole_log(lab):
    lab.write([run(0, R1, "ses-a", [lab.doc("d1")]), evidence(5, "kid", lab.path("d1"))])
    _stop(lab, 10, "kid")
    assert lab.votes() == {}
    lab.append([link(20, "kid", "ses-a")])
    assert not _plan(lab, 21, "kid").used
    assert _stop(lab, 21, "kid").credited == [("ses-a", "d1")]
    lab.append([link(30, "kid", "ses-b")])  # a later link changes nothing
    assert _plan(lab, 31, "kid").used


def test_a_claim_for_a_run_the_checkpoint_dropped_reads_the_whole_log(lab):
    # An unsettled run two days before, and a read of its doc in its window, both long gone from
    # the checkpoint; a claim arriving now settles the run and the read votes.
    lab.write([run(0, R1, None, [lab.doc("d1")]), evidence(60, "ses-a", lab.path("d1")),
               run(2 * DAY, R2, "ses-a", [lab.doc("d2")])])
    _stop(lab, 2 * DAY + 5)
    assert R1[:checkpoint.PREFIX] in json.loads(open(lab.cfg().active.checkpoint_path, "rb").read().split(b"\n")[1])
    lab.append([claim(2 * DAY + 10, R1, "ses-a")])
    assert not _plan(lab, 2 * DAY + 20).used
    assert _stop(lab, 2 * DAY + 20).credited == [("ses-a", "d1")]


def test_a_claim_that_settles_a_kept_run_from_before_the_horizon_reads_the_whole_log(lab):
    lab.write([run(0, R1, None, [lab.doc("d1")]), evidence(60, "ses-a", lab.path("d1")),
               run(3 * HOUR, R2, "ses-b", [lab.doc("d2")])])
    _stop(lab, 3 * HOUR + 5, "ses-b")  # R1 is kept (within a day of the horizon), its read is not
    lab.append([claim(3 * HOUR + 10, R1, "ses-a")])
    assert not _plan(lab, 3 * HOUR + 20).used
    assert _stop(lab, 3 * HOUR + 20).credited == [("ses-a", "d1")]
    lab.append([claim(3 * HOUR + 30, R1, "ses-c")])  # a later claim changes nothing
    assert _plan(lab, 3 * HOUR + 40).used


def test_the_recall_subagent_of_a_dropped_run_still_keeps_its_reads_out(lab):
    lab.write([run(0, R1, "conv-f", [lab.doc("d1")], caller="teamai-recall", agent="cursor"),
               claim(1, R1, "conv-f", agent="cursor")])
    _stop(lab, 5, "conv-f")
    lab.append([run(3 * DAY, R2, "conv-f", [lab.doc("d2")], agent="cursor")])
    _stop(lab, 3 * DAY + 5, "conv-f")  # R1 is dropped now, its maker kept
    body = open(lab.cfg().active.checkpoint_path, "rb").read()
    assert b'["conv-f", null, ' in body and R1.encode() not in body.split(b"\n", 3)[3]
    lab.append([evidence(3 * DAY + 60, "conv-f", lab.path("d2"), agent="cursor")])
    made = _plan(lab, 3 * DAY + 70, "conv-f")
    assert made.used and made.decisions == []
    assert _stop(lab, 3 * DAY + 70, "conv-f").credited == [] and lab.votes() == {}


def test_the_kept_lines_are_worked_out_again_once_the_horizon_would_move_on(lab):
    lab.write([run(0, R1, "ses-a", [lab.doc("d1")]), evidence(5, "ses-a", lab.path("d1"))])
    _stop(lab, 10)
    lab.append([run(HOUR, R2, "ses-a", [lab.doc("d2")])])
    assert not _plan(lab, HOUR + 5).compact  # grown
    _stop(lab, HOUR + 5)
    lab.append([run(3 * HOUR, R3, "ses-a", [lab.doc("d3")])])
    made = _plan(lab, 3 * HOUR + 5)
    assert made.used and made.compact
    _stop(lab, 3 * HOUR + 5)
    assert _head(lab)["horizon"] == clock.micros(ts(2 * HOUR))


def test_pull_leaves_a_checkpoint_for_the_pruned_log(lab):
    lab.write([run(0, R1, "ses-a", [lab.doc("d1")]), evidence(5, "ses-a", lab.path("d1"))])
    _stop(lab, 10)
    lab.append([run(40 * DAY, R2, "ses-a", [lab.doc("d2")])])
    reducer.reduce(lab.cfg(40 * DAY), lab.warnings.append)
    pruned = retention.prune(lab.cfg(40 * DAY), lab.warnings.append)
    assert pruned.old > 0
    lab.append([evidence(40 * DAY + 5, "ses-a", lab.path("d2"))])
    made = _plan(lab, 40 * DAY + 10)
    assert made.used
    assert _stop(lab, 40 * DAY + 10).credited == [("ses-a", "d2")]


def test_a_checkpoint_that_cannot_be_written_costs_only_time(lab):
    lab.write([run(0, R1, "ses-a", [lab.doc("d1")]), evidence(5, "ses-a", lab.path("d1"))])
    with mock.patch.object(checkpoint, "write_atomic", side_effect=OSError("disk full")):
        assert _stop(lab, 10).credited == [("ses-a", "d1")]
    assert any("could not write the reducer's checkpoint (disk full)" in w for w in lab.warnings)
    assert not os.path.exists(lab.cfg().active.checkpoint_path)
    lab.append([evidence(20, "ses-a", lab.path("d1"))])
    assert _stop(lab, 21).checkpoint == "full"
    assert lab.votes() == {"d1": 1}


def _settled(lab):
    """A log reduced twice, so the checkpoint has read the consumed line the first Stop wrote."""
    lab.write([run(0, R1, "ses-a", [lab.doc("d1")]), evidence(5, "ses-a", lab.path("d1"))])
    _stop(lab, 10)
    _stop(lab, 11)
    return lab.cfg().active.checkpoint_path


def test_a_stop_that_only_adds_lines_writes_them_and_the_header_in_place(lab):
    path = _settled(lab)
    inode, before = os.stat(path).st_ino, open(path, "rb").read()
    lab.append([run(60, R2, "ses-a", [lab.doc("d2")]), evidence(65, "ses-a", lab.path("d2"))])
    assert _stop(lab, 70).credited == [("ses-a", "d2")]
    after = open(path, "rb").read()
    assert os.stat(path).st_ino == inode  # not replaced
    assert after[checkpoint.HEAD:].startswith(before[checkpoint.HEAD:])  # what it held is untouched
    assert _head(lab)["kept"] > json.loads(before[:checkpoint.HEAD])["kept"]
    assert _plan(lab, 71).used
    assert lab.votes() == {"d1": 1, "d2": 1}


def test_bytes_past_the_kept_lines_and_a_header_changed_without_its_check_are_not_trusted(lab):
    path = _settled(lab)
    with open(path, "ab") as fh:
        fh.write(b'{"kind":"evidence","ts":"2026')  # an in-place write cut short
    lab.append([run(60, R2, "ses-a", [lab.doc("d2")]), evidence(65, "ses-a", lab.path("d2"))])
    assert _plan(lab, 70).used
    assert _stop(lab, 70).credited == [("ses-a", "d2")]
    assert b'"ts":"2026{' not in open(path, "rb").read()  # cut off before the new lines went in
    data = bytearray(open(path, "rb").read())
    at = data.index(b'"horizon": ') + len(b'"horizon": ')
    data[at] = ord("2") if data[at] == ord("1") else ord("1")  # as if read while being rewritten
    with open(path, "wb") as fh:
        fh.write(bytes(data))
    assert not _plan(lab, 71).matched
    assert _stop(lab, 71).checkpoint == "full" and lab.votes() == {"d1": 1, "d2": 1}


def test_a_stop_leaves_alone_a_checkpoint_another_reduce_wrote_after_it_read_it(lab):
    from reference.reducer import keep

    path = _settled(lab)
    lab.append([run(60, R2, "ses-b", [lab.doc("d2")]), evidence(65, "ses-b", lab.path("d2"))])
    late = _plan(lab, 70)
    assert _stop(lab, 70, session="ses-b").checkpoint == "used"  # the other Stop writes first
    written = open(path, "rb").read()
    fields, added = keep.grown(late.view)
    assert added
    checkpoint.add(lab.cfg().active, late.view, fields, added)
    assert open(path, "rb").read() == written
