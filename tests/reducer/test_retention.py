"""Pruning at pull: 30 days, a 5000-line backstop, and never what a young pending read needs."""

from __future__ import annotations

import json
import os
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference.reducer import logread
from reference.state import retention, storage

from . import logs
from .logs import claim, evidence, link, run

DAY = 24 * 3600
NOW = 40 * DAY  # the pull happens 40 days after logs.T0


def _lines(lab):
    return [json.loads(x) for x in lab.log_path.read_bytes().splitlines()]


def _prune(lab, **kw):
    return retention.prune(lab.cfg(NOW), lab.warnings.append, **kw)


def test_twenty_thousand_lines_backstop_keeps_what_pending_reads_need(lab):
    filler = logs.busy_log(lab.team, sessions=200, lines=20_000)
    for rec in filler:  # spread the filler over days 14..34 after T0 (6..26 days before the pull)
        rec["ts"] = logs.ts(logs_seconds(rec["ts"]) + 14 * DAY)
    keep_old = [
        link(2 * DAY, "ses-kid", "ses-long"),  # 38 days old, still on the way up to the root
        run(2 * DAY, "old-run", "ses-long", [lab.doc("old-doc")]),
        evidence(2 * DAY + 5, "ses-long", lab.path("old-doc")),
    ]
    young = [
        run(NOW - 7200, "young-run", None, [lab.doc("fresh-doc")]),
        claim(NOW - 7190, "young-run", "ses-long"),
        evidence(NOW - 3600, "ses-kid", lab.path("fresh-doc")),
    ]
    lab.write(keep_old + filler)
    lab.reduce(at=NOW - 10 * DAY)  # credits old-doc: a consumed line for ses-long, for a 38-day-old read
    assert any(c["key"] == "old-doc" for c in lab.consumed())
    lab.append(young)  # the young read arrives after that reduce, so it is still pending at the prune
    raw = lab.log_path.read_bytes()
    bad = b"not json\n" * 7 + b'{"kind":"run"}\n' * 3
    lab.log_path.write_bytes(raw + bad)
    total = len(raw.splitlines()) + 10
    assert total > 20_000

    res = _prune(lab)
    assert res.before == total
    assert res.malformed == 10
    assert res.old > 0 and res.over > 0
    kept = _lines(lab)
    assert len(kept) == res.after
    assert retention.MAX_LINES - 2 <= res.after <= retention.MAX_LINES
    # The protected lines survived although they are the oldest in the log.
    assert {"kind": "link", "child": "ses-kid"}.items() <= kept[0].items()
    kinds = {(r["kind"], r.get("run"), r.get("key")) for r in kept}
    assert ("consumed", "old-run", "old-doc") in kinds
    assert any(r["kind"] == "evidence" and r["path"] == lab.path("old-doc") for r in kept)
    assert ("run", "young-run", None) in kinds and ("claim", "young-run", None) in kinds
    assert any(r["kind"] == "evidence" and r["session"] == "ses-kid" for r in kept)
    # Unprotected survivors are the newest: no filler run kept is older than one dropped.
    kept_runs = {r["run"] for r in kept if r["kind"] == "run"}
    filler_runs = [(logs_seconds(r["ts"]), r["run"] in kept_runs) for r in filler if r["kind"] == "run"]
    assert max(t for t, k in filler_runs if not k) <= min(t for t, k in filler_runs if k)
    assert min(t for t, k in filler_runs if k) > NOW - 30 * DAY
    # Reads and their consumed lines stayed together.
    reads = {(r["ts"], r["session"], r["path"]) for r in kept if r["kind"] == "evidence"}
    for r in kept:
        if r["kind"] == "consumed":
            ev = r["evidence"]
            assert (ev["ts"], ev["session"], ev["path"]) in reads
    # The pending read still votes once, after the prune, for the root session.
    result = lab.reduce(at=NOW)
    assert ("ses-long", "fresh-doc") in result.credited
    assert lab.votes()["fresh-doc"] == 1 and lab.votes()["old-doc"] == 1


def logs_seconds(text: str) -> float:
    from reference.state.clock import parse_instant

    return (parse_instant(text) - logs.T0).total_seconds()


def test_thirty_days_and_pending_age(lab):
    lab.write([run(NOW - 31 * DAY, "r-old", "s", [lab.doc("a")]),
               run(NOW - 29 * DAY, "r-mid", "s", [lab.doc("a")]),
               evidence(NOW - 31 * DAY, "s2", lab.path("zzz")),  # pending, but old: may go
               evidence(NOW - 3600, "s3", lab.path("zzz"))])  # pending and young: stays
    res = _prune(lab)
    assert (res.old, res.over, res.malformed, res.after) == (2, 0, 0, 2)
    assert [r.get("run") or r.get("session") for r in _lines(lab)] == ["r-mid", "s3"]


def test_consumed_line_goes_with_its_read(lab):
    lab.write([run(0, "r1", "s", [lab.doc("a")]), evidence(5, "s", lab.path("a"))])
    lab.reduce(at=10)
    lab.append([run(NOW - 100, "r2", "t", [lab.doc("b")])])
    res = _prune(lab, max_lines=2)
    assert res.after == 1 and [r["kind"] for r in _lines(lab)] == ["run"]


def test_nothing_to_drop_leaves_the_file_alone(lab):
    lab.write([run(NOW - 5, "r1", "s", [lab.doc("a")])])
    before = os.stat(lab.log_path)
    res = _prune(lab)
    assert res.after == res.before == 1
    assert os.stat(lab.log_path).st_ino == before.st_ino


def test_prune_waits_for_the_log_lock(lab):
    lab.write([run(0, "r1", "s", [lab.doc("a")])])
    with storage.locked(lab.cfg().active.log_lock, "test"), pytest.raises(storage.Busy):
        _prune(lab)
    assert len(_lines(lab)) == 1


def test_missing_log_is_fine(lab):
    assert _prune(lab).before == 0


# --- the whole-log reading ----------------------------------------------------------------------

_PLAIN_LINES = st.lists(st.one_of(
    st.builds(lambda at, s: run(at, f"r{s}", f"ses-{s}", []), st.integers(0, 9 * DAY), st.integers(0, 3)),
    st.builds(lambda at, s: claim(at, f"r{s}", f"ses-{s}"), st.integers(0, 9 * DAY), st.integers(0, 3)),
    st.builds(lambda at, s, p: evidence(at, f"ses-{s}", f"/t/{p}.md"), st.integers(0, 9 * DAY), st.integers(0, 3),
              st.sampled_from("ab")),
    st.builds(lambda at, s: link(at, f"ses-{s}", "ses-0"), st.integers(0, 9 * DAY), st.integers(1, 3)),
    st.builds(lambda at, s, p, c: {"kind": "consumed", "ts": logs.ts(at + 60), "session": f"ses-{s}", "key": p,
                                   "run": "r0", "credited": c,
                                   "evidence": {"ts": logs.ts(at), "session": f"ses-{s}", "path": f"/t/{p}.md"}},
              st.integers(0, 9 * DAY), st.integers(0, 3), st.sampled_from("ab"), st.booleans()),
).map(lambda rec: logs.encode([rec])[:-1]), max_size=12)
# What a log may hold besides its own spelling: nothing, blank and white lines, a line ended by CR,
# a line spelt with spaces, one that is not JSON, an hour that does not exist, a torn last line.
_SPOILT = st.sampled_from([None, b"", b"   ", b"\r", b"spaced", b"not json", b"hour", b"torn"])


def _spoil(lines: list[bytes], how: bytes | None, at: int) -> bytes:
    lines = list(lines)
    at = at % (len(lines) + 1)
    if how in (b"", b"   ", b"not json"):
        lines.insert(at, how)
    elif lines and how == b"\r":
        lines[at % len(lines)] += b"\r"
    elif lines and how == b"spaced":
        lines[at % len(lines)] = json.dumps(json.loads(lines[at % len(lines)])).encode()
    elif lines and how == b"hour":
        lines[at % len(lines)] = re.sub(rb'T\d\d:', b'T24:', lines[at % len(lines)], count=1)
    data = b"\n".join(lines) + (b"\n" if lines else b"")
    if lines and how == b"torn":
        data = data[:-5]
    return data


@settings(max_examples=300, deadline=None)
@given(_PLAIN_LINES, _SPOILT, st.integers(0, 20))
def test_the_whole_log_is_read_as_its_lines_one_by_one(lines, how, at):
    """Pruning reads a log in its own spelling in one pass over all of it, and any other log line by
    line: both must see the same lines, instants, kinds and reads. The oracle decodes each line."""
    data = _spoil(lines, how, at)
    log = retention._Log(data)
    want, kinds, malformed = [], [], 0
    for raw in data.split(b"\n"):
        if not raw.strip():
            continue
        try:
            rec = json.loads(raw)
        except ValueError:
            malformed += 1
            continue
        when = logread.instant(rec.get("ts")) if logread.well_formed(rec) else None
        if when is None:
            malformed += 1
            continue
        want.append((raw, retention._sortable(when)))
        kinds.append(rec["kind"])
    assert list(zip(log.lines, log.when, strict=True)) == want
    assert log.malformed == malformed
    assert {kind: ats for kind, ats in log.by_kind.items() if ats} == {
        kind: [at for at, k in enumerate(kinds) if k == kind] for kind in set(kinds)}
    for at in log.by_kind["evidence"]:
        assert log.unit[at] == retention._as_bytes(logread.identity(json.loads(log.lines[at])))
    for at in log.by_kind["consumed"]:
        assert log.unit[at] == retention._as_bytes(logread.consumed_identity(json.loads(log.lines[at])))


@pytest.mark.parametrize("tail", [b',garbage}', b',"x":1,}', b',"x":' + b"[" * 100_000 + b"]" * 100_000 + b"}",
                                  b',"x":"\xff"}', b'}{"kind":"run"}'])
@pytest.mark.parametrize("alone", [True, False])
def test_a_line_spelt_like_the_log_but_not_json_is_dropped_as_malformed(lab, tail: bytes, alone: bool) -> None:
    """It starts as the log's own lines do (kind, then ts) and ends its object, so pull took it for
    well formed and kept it, while every reader skipped it and ``stats`` warned about it again on
    every call. ``alone``: among lines that are all the log's own spelling (the one-pass reading),
    or beside one spelt otherwise (the line-by-line one)."""
    young = NOW - DAY
    records = [run(young, "r1", "ses-a", [lab.doc("d1")])]
    if not alone:
        records.append({"ts": logs.ts(young), "kind": "claim", "session": "ses-a", "run": "r1"})  # keys reordered
    lab.write(records)
    with open(lab.log_path, "ab") as fh:
        fh.write(b'{"kind":"run","ts":"' + logs.ts(young).encode() + b'"' + tail + b"\n")
    res = _prune(lab)
    assert res.malformed == 1 and res.after == len(records)
    assert tail not in lab.log_path.read_bytes()
