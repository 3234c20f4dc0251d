"""A Stop reads only the lines that may concern its own family, and decides what a full read decides.

``model._mentioning`` lets a Stop pass over every raw line in which none of its family's sessions
can be a string value (no backslash and none of them quoted). The property: for logs of several
families, with lines in every spelling a log may hold (the reference's own, ASCII escapes, spaced
separators, keys in another order) and session names that JSON must escape, the model a Stop
builds holds the same pending reads of its family as a model of every line with no shortcut, and
the decisions are the same. The test fails unless the gate passes over lines in most examples and
the examples reach credits and covered reads.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any
from unittest import mock

from hypothesis import event, given, settings
from hypothesis import strategies as st

from reference.reducer import build, model
from reference.reducer.credit import decide
from reference.reducer.logread import Lines

from . import logs
from .histories import DAY, DOCS

# Two families (ses-a with a linked child; ses-b), a session no one links, and names that are
# escaped in JSON or are not ASCII, so that the gate meets every way a session can be spelt.
SESSIONS = ("ses-a", "ses-a-child", "ses-b", 'ses-"q"', "séance", "ses-a\\x")
LINKS = (("ses-a-child", "ses-a"), ("séance", "ses-b"))
RUN_IDS = ("r-1", "r-2", "r-3", "r-4")
SPELLINGS = ("own", "own", "ascii", "spaced", "reversed")
# Shares of (example, session) checks; measured at 0.97, 0.21 and 0.05 (of 200 examples), and at
# 0.98, 0.19 and 0.019 in one CI run: the floors ask that each branch be reached, not how often.
LEAST = {"gate passed over lines": 0.5, "credit": 0.05, "covered": 0.005}
TALLY: Counter[str] = Counter()

TEAM = "/srv/team"


def _path(rel: str) -> str:
    return f"{TEAM}/{rel}"


def _spell(rec: dict[str, Any], how: str) -> bytes:
    if how == "ascii":
        return json.dumps(rec, separators=(",", ":")).encode()
    if how == "spaced":
        return json.dumps(rec, ensure_ascii=False).encode()
    if how == "reversed":
        return json.dumps(dict(reversed(list(rec.items()))), ensure_ascii=False, separators=(",", ":")).encode()
    return json.dumps(rec, ensure_ascii=False, separators=(",", ":")).encode()


@st.composite
def _log(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Turns (a run settled by a claim or by the environment, then reads of what it printed, hours
    later, or of another doc) among several families, with stray claims and consumed lines."""
    out: list[dict[str, Any]] = [logs.link(0, child, parent) for child, parent in LINKS
                                 if draw(st.booleans())]
    reads: list[dict[str, Any]] = []
    for _ in range(draw(st.integers(1, 6))):
        at = draw(st.integers(1, 40)) * 1800
        session, run_id = draw(st.sampled_from(SESSIONS)), draw(st.sampled_from(RUN_IDS))
        printed = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=3, unique=True))
        env = draw(st.booleans())
        out.append(logs.run(at, run_id, session if env else None, [logs.doc(key, _path(rel)) for key, rel in printed],
                            caller=draw(st.sampled_from((None, None, None, "teamai-recall")))))
        if not env or draw(st.booleans()):
            claimer = session if draw(st.integers(0, 3)) else draw(st.sampled_from(SESSIONS))
            out.append(logs.claim(at, run_id, claimer, agent_id=draw(st.sampled_from((None, "ag-1"))),
                                  agent_type=draw(st.sampled_from((None, None, "teamai-recall")))))
        for _ in range(draw(st.integers(0, 3))):
            reader = session if draw(st.integers(0, 3)) else draw(st.sampled_from(SESSIONS))
            rel = draw(st.sampled_from(printed if draw(st.integers(0, 4)) else DOCS))[1]
            later = draw(st.sampled_from((60, 1800, 3 * 3600, 20 * 3600, 26 * 3600)))
            read = logs.evidence(at + later, reader, _path(rel), agent_id=draw(st.sampled_from((None, None, "ag-1"))))
            reads.append(read)
            out.append(read)
    for read in draw(st.lists(st.sampled_from(reads), max_size=3)) if reads else ():
        key = next(key for key, rel in DOCS if read["path"] == _path(rel))
        out.append({"kind": "consumed", "ts": logs.ts(90_000), "session": draw(st.sampled_from(SESSIONS)),
                    "key": key, "run": draw(st.sampled_from(RUN_IDS)), "credited": draw(st.booleans()),
                    "evidence": {"ts": read["ts"], "session": read["session"], "path": read["path"]}})
    return draw(st.permutations(out))


def _decided(decisions: list[Any]) -> list[tuple[Any, ...]]:
    return sorted((d.match.read.ident, d.match.key, d.match.run.run, d.credit, d.root) for d in decisions)


@settings(max_examples=200, deadline=None, database=None)
@given(_log(), st.data())
def _a_stop_decides_its_family_as_a_read_of_every_line_does(records: list[dict[str, Any]],
                                                            data: st.DataObject) -> None:
    spellings = [data.draw(st.sampled_from(SPELLINGS)) for _ in records]
    blob = b"".join(_spell(rec, how) + b"\n" for rec, how in zip(records, spellings, strict=True))
    full = build(Lines(blob))  # every line decoded, no shortcut
    for session in SESSIONS:
        family = full.roots.family({full.roots.root(session)})
        expected = _decided(decide(full, family))
        assert _decided(decide(build(Lines(blob), only_pending=True), family)) == expected  # pull
        for few in (model.FEW, 0):  # a Stop's few reads, and the way with many
            with mock.patch.object(model, "FEW", few):
                stop = build(Lines(blob), only_pending=True, stopping=session)
            if few:  # (with many, a read that no run printed is left undecoded)
                assert sorted(r.ident for r in stop.reads) == sorted(r.ident for r in full.reads
                                                                     if r.session in family)
            assert _decided(decide(stop)) == expected
        for decision in decide(full, family):
            event("credit" if decision.credit else "covered")
            TALLY["credit" if decision.credit else "covered"] += 1
        every = [line for line in blob.split(b"\n") if line]
        if len(model._mentioned(every, model._mentioning(family))) < len(every):
            TALLY["gate passed over lines"] += 1
    TALLY["histories"] += 1


def test_a_stop_decides_its_family_as_a_read_of_every_line_does() -> None:
    TALLY.clear()
    _a_stop_decides_its_family_as_a_read_of_every_line_does()
    sessions = TALLY["histories"] * len(SESSIONS)
    assert TALLY["histories"] >= 100
    short = {k: round(TALLY[k] / sessions, 2) for k in LEAST if TALLY[k] / sessions < LEAST[k]}
    assert not short, f"reached too rarely: {short} ({dict(TALLY)})"


_BYTES = st.binary(max_size=12).map(lambda b: b.replace(b"\n", b""))


@settings(max_examples=300, deadline=None, database=None)
@given(st.lists(st.sampled_from([b"", b'"ses-a"', b"\\", b'x"ses-b"y', b'"ses-a"z"ses-a"']) | _BYTES, max_size=12)
       .map(lambda parts: [b"".join(parts[i:i + 3]) for i in range(0, len(parts), 3)]),
       st.lists(st.sampled_from([b'"ses-a"', b'"ses-b"', b'"s"']), min_size=1, max_size=3))
def test_the_gate_finds_exactly_the_lines_holding_a_needle_or_a_backslash(lines: list[bytes],
                                                                          needles: list[bytes]) -> None:
    lines = lines + lines[:2]  # the same line twice, as a log may hold it
    expected = [line for line in lines if b"\\" in line or any(needle in line for needle in needles)]
    assert model._mentioned(lines, needles) == expected


# The three cases the property found, each failing before its fix, spelt out so that they fail
# every time rather than when the random search reaches them.
_DOC = DOCS[0]


def _decisions(records: list[tuple[dict[str, Any], str]], session: str) -> dict[str, list[tuple[Any, ...]]]:
    """The decisions for ``session``'s family by a read of every line, by ``pull``'s way and by a
    Stop's (with few reads and with many)."""
    blob = b"".join(_spell(rec, how) + b"\n" for rec, how in records)
    full = build(Lines(blob))
    family = full.roots.family({full.roots.root(session)})
    out = {"every line": _decided(decide(full, family)),
           "pull": _decided(decide(build(Lines(blob), only_pending=True), family))}
    for few in (model.FEW, 0):
        with mock.patch.object(model, "FEW", few):
            out[f"stop, FEW={few}"] = _decided(decide(build(Lines(blob), only_pending=True, stopping=session)))
    return out


def test_a_run_line_in_another_spelling_is_settled_by_its_claim() -> None:
    docs = [logs.doc(_DOC[0], _path(_DOC[1]))]
    got = _decisions([(logs.run(1800, "r-2", None, docs), "spaced"), (logs.claim(1800, "r-2", "ses-a"), "own"),
                      (logs.evidence(1860, "ses-a", _path(_DOC[1])), "own")], "ses-a")
    assert all(len(found) == 1 and found[0][3] for found in got.values()), got


def test_a_claim_in_another_spelling_marks_the_recall_subagents_run() -> None:
    # The recall subagent's run prints another doc, a day before the read: only its claim, spelt
    # otherwise, says that the session's anonymous reads from then on are the subagent's own.
    other = DOCS[1]
    got = _decisions([(logs.run(1800, "r-1", None, [logs.doc(other[0], _path(other[1]))]), "own"),
                      (logs.claim(1800, "r-1", "ses-a", agent_type="teamai-recall"), "spaced"),
                      (logs.run(DAY + 1800, "r-2", "ses-a", [logs.doc(_DOC[0], _path(_DOC[1]))]), "own"),
                      (logs.evidence(DAY + 1860, "ses-a", _path(_DOC[1])), "own")], "ses-a")
    assert all(found == [] for found in got.values()), got  # the maker's own read never counts


def test_two_claims_tied_on_time_session_and_agent_id_settle_the_same_in_either_order() -> None:
    docs = [logs.doc(_DOC[0], _path(_DOC[1]))]
    plain, marked = logs.claim(1800, "r-1", "ses-a"), logs.claim(1800, "r-1", "ses-a", agent_type="teamai-recall")
    read = logs.evidence(1860, "ses-a", _path(_DOC[1]))
    for claims in ([(plain, "own"), (marked, "spaced")], [(marked, "spaced"), (plain, "own")],
                   [(plain, "own"), (marked, "own")], [(marked, "own"), (plain, "own")]):
        got = _decisions([(logs.run(1800, "r-1", None, docs), "own"), *claims, (read, "own")], "ses-a")
        assert all(found == [] for found in got.values()), (claims, got)  # the recall subagent's claim wins
