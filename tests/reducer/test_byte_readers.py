"""The log's byte readers may only save time: each answers what the JSON decoder would, or says it
cannot tell (``logread``'s promise). Lines are written in the log's own spelling and in the others
an implementation or a hand may write (escapes, ``\\u`` for any character, spaces, keys in another
order, extra fields, nested objects that hold the same keys), and every reader's answer is held to
the decoded record's. A reader that declines more often only sends more lines to the decoder; one
that answers otherwise changes a decision, and fails here."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from reference.reducer import logread
from reference.state import jsontext

from .spellings import spelling

_words = st.sampled_from(["", "a", "s1", "docs/a.md", "/team/docs/A.md", "teamai-recall", "C:\\t\\a.md", 'q"uote',
                          "back\\slash", "é/ü.md", "line\nbreak", "2026-01-02T03:04:05.000Z", "run", "session",
                          "evidence", "path", "caller", "agent_type", "null", "x/./y.md", "x//y.md", "{", "}"])
_ts = st.sampled_from(["2026-01-02T03:04:05.000Z", "2026-01-02T03:04:05.123Z", "2026-01-02T03:04:05Z",
                       "2026-01-02T03:04:05.000+00:00", "2026-02-30T00:00:00.000Z", "", "x"])
_nullable = st.one_of(st.none(), _words)
_actor = st.one_of(st.none(), st.fixed_dictionaries({}, optional={"agent_id": _nullable, "agent_type": _nullable}))


def _records() -> st.SearchStrategy[dict[str, Any]]:
    run = st.fixed_dictionaries({
        "kind": st.just("run"), "ts": _ts, "run": _nullable, "session": _nullable,
        "via": st.sampled_from(["env", "hint", None]), "unambiguous": st.booleans(), "agent": _nullable,
        "actor": _actor, "caller": _nullable,
        "docs": st.lists(st.fixed_dictionaries({"key": _words, "path": _words, "score": st.just(1.0)}), max_size=3)})
    claim = st.fixed_dictionaries({"kind": st.just("claim"), "ts": _ts, "run": _nullable, "session": _nullable,
                                   "agent": _nullable, "actor": _actor})
    evidence = st.fixed_dictionaries({
        "kind": st.just("evidence"), "ts": _ts, "session": _nullable, "agent": _nullable, "actor": _actor,
        "path": _nullable, "exact": st.booleans(), "via": _nullable, "simple": st.booleans(),
        "status": st.sampled_from(["success", "unknown", "failure"])})
    consumed = st.fixed_dictionaries({
        "kind": st.just("consumed"), "ts": _ts, "session": _nullable, "key": _nullable, "run": _nullable,
        "credited": st.booleans(),
        "evidence": st.one_of(st.none(), st.fixed_dictionaries({"ts": _ts, "session": _nullable, "path": _nullable}))})
    link = st.fixed_dictionaries({"kind": st.just("link"), "ts": _ts, "child": _nullable, "parent": _nullable,
                                  "agent": _nullable})
    return st.one_of(run, claim, evidence, consumed, link)


def _spelt() -> st.SearchStrategy[tuple[bytes, dict[str, Any]]]:
    """A record and one spelling of it; the decoder's reading of the line is what it must mean."""
    return _records().flatmap(lambda rec: spelling(rec, _words)).map(lambda line: (line, json.loads(line)))


def _b(value: str) -> bytes:
    return value.encode("utf-8")


@settings(max_examples=1500, deadline=None)
@given(_spelt())
def test_each_reader_answers_what_the_decoder_reads_or_declines(spelt: tuple[bytes, dict[str, Any]]) -> None:
    line, rec = spelt
    kind = rec["kind"]
    stamp = logread.stamp_of(line, kind)
    assert stamp is None or stamp == rec["ts"]
    if kind == "evidence":
        found = logread.evidence_id(line)
        ident = logread.identity(rec)
        assert found is None or (ident is not None and found == tuple(_b(v) for v in ident))
        assert logread.raw_ids([line], "evidence") == [found]
    if kind == "consumed":
        found = logread.consumed_id(line)
        ident = logread.consumed_identity(rec)
        assert found is None or (ident is not None and found == tuple(_b(v) for v in ident))
    if kind in ("run", "claim"):
        session = logread.session_of(line)
        assert session == line or session == rec.get("session", line)
    if kind in ("run", "claim", "consumed"):
        run = logread.run_of(line)
        assert run is None or run == rec.get("run")
    if kind == "run":
        assert logread.maybe_recall_subagent(line, b'"caller":', absent=True) or rec.get("caller") != "teamai-recall"
        docs = rec.get("docs") or []
        printed = {p for d in docs if isinstance(d, dict) and logread.text(p := d.get("path"))}
        found_paths = set(logread.path_values(line, logread.comparable))
        assert {v for p in printed for v in (p, logread.comparable(p))} <= found_paths
    if kind == "claim":
        actor = rec.get("actor")
        recall = isinstance(actor, dict) and actor.get("agent_type") == "teamai-recall"
        assert logread.maybe_recall_subagent(line, b'"agent_type":', absent=False) or not recall


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(_spelt(), st.sampled_from([(b"{", None), (b"[1]", None), (b'{"kind":"run"}', None),
                                                     (b'{"kind":"nope","ts":"x"}', None), (b"   ", None)])),
                max_size=8))
def test_lines_are_sorted_by_kind_as_the_decoder_reads_them(spelt: list[tuple[bytes, Any]]) -> None:
    data = b"".join(line + b"\n" for line, _ in spelt)
    lines = logread.Lines(data)
    for kind in logread.KINDS:
        want = sorted(jsontext.dumps(rec) for _, rec in spelt if rec is not None and rec["kind"] == kind)
        assert sorted(jsontext.dumps(rec) for rec in lines.get(kind)) == want
    assert lines.bad == sum(1 for line, rec in spelt if rec is None and line.strip())
    one_by_one = logread.Lines()
    for line, _ in spelt:
        one_by_one.add(line)
    for kind in logread.KINDS:
        assert sorted(map(jsontext.dumps, one_by_one.get(kind))) == sorted(map(jsontext.dumps, lines.get(kind)))
    assert one_by_one.bad == lines.bad


@settings(max_examples=100, deadline=None)
@given(st.lists(_spelt().filter(lambda s: s[1]["kind"] in ("evidence", "consumed")), min_size=1, max_size=5),
       st.integers(1, 80))
def test_many_lines_are_read_as_one_line_is(spelt: list[tuple[bytes, dict[str, Any]]], copies: int) -> None:
    lines = [line for line, _ in spelt for _ in range(copies)]
    lines = lines * (logread.MANY // len(lines) + 1)
    for kind, reader in (("evidence", logread.evidence_id), ("consumed", logread.consumed_id)):
        assert logread.raw_ids(lines, kind) == [reader(line) for line in lines]
