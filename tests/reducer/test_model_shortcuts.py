"""A reduce decodes only what its pending reads can need, reading the rest from the bytes
(``model._build_pending``): it must decide what decoding every line decides. Random logs of a few
sessions, runs, claims, reads and consumed lines, each line in the log's spelling or another, with
or without more idle reads than a Stop decodes one by one, are reduced both ways, for ``pull`` and
for a Stop of each session."""

from __future__ import annotations

import datetime as dt
import os
import sys
from typing import Any

from hypothesis import event, given, settings
from hypothesis import strategies as st

from reference.reducer.credit import decide
from reference.reducer.logread import Lines
from reference.reducer.model import FEW, build

from . import log_cases
from .logs import T0, claim, doc, evidence, link, run, ts
from .spellings import spelling

EXAMPLES = int(os.environ.get("TEAMAI_MODEL_EXAMPLES", "400"))  # more: a longer search
SESSIONS = ("s1", "s2", "s3")
PATHS = ("/team/docs/a.md", "/team/docs/b.md", "/team/learnings/c.md", "/team/docs/./a.md", "/team//docs/b.md")
READ_PATHS = (*PATHS[:3], "docs/a.md", "c.md", "/team/docs/A.md")
RUNS = ("r-0", "r-1", "r-2", "r-3")
TIMES = (0, 60, 3600, 86_399, 86_400, 86_401, 90_000, 172_800)
AFTER = (-1, 0, 60, 86_399, 86_400, 86_401)  # a read this long after the run it follows
VALUES = st.sampled_from([None, True, "s1", "s2", "r-1", "teamai-recall", PATHS[0], READ_PATHS[3], ts(60)])


def _seconds(stamp: str) -> int:
    return int((dt.datetime.fromisoformat(stamp.replace("Z", "+00:00")) - T0).total_seconds())


def _key(path: str) -> str:
    return path.rsplit("/", 1)[-1].removesuffix(".md").lower()


@st.composite
def _log(draw: st.DrawFn) -> list[dict[str, Any]]:
    session = st.sampled_from(SESSIONS)
    when = st.sampled_from(TIMES)
    recs: list[dict[str, Any]] = []
    for run_id in draw(st.lists(st.sampled_from(RUNS), unique=True, min_size=1, max_size=4)):
        paths = draw(st.lists(st.sampled_from(PATHS), unique=True, max_size=2))
        recs.append(run(draw(when), run_id, draw(st.none() | session), [doc(_key(p), p) for p in paths],
                        unambiguous=draw(st.integers(0, 3)) > 0, caller=draw(st.sampled_from([None, "teamai-recall"]))))
    for rec in list(recs):
        if rec["session"] is None and draw(st.booleans()):  # the claim that settles a run with no session
            recs.append(claim(_seconds(rec["ts"]) + 30, rec["run"], draw(session)))
    for _ in range(draw(st.integers(0, 2))):
        recs.append(claim(draw(when) + 30, draw(st.sampled_from((*RUNS, "r-x"))), draw(session),
                          agent_id=draw(st.sampled_from([None, "sub-1"])),
                          agent_type=draw(st.sampled_from([None, "teamai-recall"]))))
    reads = []
    runs = [rec for rec in recs if rec["kind"] == "run"]
    for _ in range(draw(st.integers(1, 4))):
        printed = draw(st.sampled_from(runs))
        if printed["docs"] and draw(st.integers(0, 3)):  # mostly a read of what a run printed
            path = draw(st.sampled_from([d["path"] for d in printed["docs"]]))
            path = draw(st.sampled_from([path, path.replace("/./", "/").replace("//", "/"),
                                         path.rsplit("/", 2)[-2] + "/" + path.rsplit("/", 1)[-1]]))
            at = _seconds(printed["ts"]) + draw(st.sampled_from(AFTER))
            claims = [c["session"] for c in recs if c["kind"] == "claim" and c["run"] == printed["run"]]
            who = printed["session"] or (claims[0] if claims else draw(session))
        else:
            path, at, who = draw(st.sampled_from(READ_PATHS)), draw(when) + 120, draw(session)
        reads.append(evidence(at, who, path, draw(st.sampled_from([None, None, "sub-1"])),
                              exact=path.startswith("/"), status=draw(st.sampled_from(["success", "success", "unknown"]))))
    recs.extend(reads)
    for read in draw(st.lists(st.sampled_from(reads), max_size=2)):
        recs.append({"kind": "consumed", "ts": ts(200_000), "session": read["session"], "key": _key(read["path"]),
                     "run": draw(st.sampled_from(RUNS)), "credited": draw(st.booleans()),
                     "evidence": {"ts": read["ts"], "session": read["session"], "path": read["path"]}})
    if draw(st.booleans()):
        recs.append(link(0, "s2", "s1"))
    if draw(st.booleans()):  # more idle reads than a reduce decodes one by one
        idle = draw(st.sampled_from([*SESSIONS, "s-idle"]))
        recs.extend(evidence(1000 + i, idle, f"/team/never/{i % 3}.md") for i in range(FEW + 1))
    return recs


def _spelt(rec: dict[str, Any]) -> st.SearchStrategy[bytes]:
    """A line in some spelling; one in four may move ``kind`` from the front, so that it is decoded
    on its own (``Lines.done``) rather than sorted by its first bytes."""
    return st.sampled_from([True, True, True, False]).flatmap(lambda first: spelling(rec, VALUES, kind_first=first))


def _decisions(decisions: list[Any]) -> list[tuple[Any, ...]]:
    return sorted((d.match.read.ident, d.match.key, d.match.run.run, d.credit, d.root) for d in decisions)


LOGS = _log().flatmap(lambda recs: st.tuples(*(_spelt(rec) for rec in recs)))
STOPPING = st.sampled_from([None, *SESSIONS])


@settings(max_examples=EXAMPLES, deadline=None)
@given(LOGS, STOPPING)
def test_a_reduce_that_decodes_little_decides_as_one_that_decodes_everything(lines: tuple[bytes, ...],
                                                                               stopping: str | None) -> None:
    check(lines, stopping)


def check(lines: tuple[bytes, ...], stopping: str | None) -> None:
    """Reduce ``lines`` every way (see ``log_cases``) and hold each to decoding every line; a failure
    is written out as a scenario on Hypothesis's final example."""
    data = b"".join(line + b"\n" for line in lines)
    full = build(Lines(data))
    family = full.roots.family({full.roots.root(stopping)}) if stopping is not None else None
    want = decide(full, family)
    event("credits" if any(d.credit for d in want) else "no credit")
    event("covered" if any(not d.credit for d in want) else "nothing covered")
    event("many reads" if len(lines) > FEW else "few reads")
    # a Stop through its checkpoint (or pull), and a Stop that read the whole log
    ways = [(log_cases.PULL if stopping is None else log_cases.STOP_CHECKPOINT,
             lambda: decide(build(Lines(data), only_pending=True, stopping=stopping)))]
    if stopping is not None:
        ways.append((log_cases.STOP, lambda: decide(build(Lines(data), only_pending=True), family)))
    for how, reduce in ways:
        try:
            got, raised = _decisions(reduce()), ""
        except Exception as exc:  # noqa: BLE001 - written out as a scenario below, then failed
            got, raised = [], f" (it raised {exc!r})"
        if got == _decisions(want) and not raised:  # a crash is a failure even where nothing was to decide
            continue
        problem = f"{how} decided {got}{raised}, decoding every line decides {_decisions(want)}"
        written = log_cases.write(lines, how, stopping, want, "tests/reducer/test_model_shortcuts.py", problem)
        raise AssertionError(problem + ("\n" + written if written else ""))


def test_a_shortcut_that_crashes_fails_even_where_nothing_was_to_decide(monkeypatch):
    """A reduce that raises has decided nothing; on a log where decoding every line decides nothing
    too, that must still fail the check (it passed as agreement)."""
    import reference.reducer.model as model_module

    real = build

    def crashing(lines: Lines, **kwargs: Any) -> Any:
        if kwargs.get("only_pending"):
            raise RuntimeError("crashed")
        return real(lines, **kwargs)

    here = sys.modules[__name__]
    monkeypatch.setattr(here, "build", crashing)
    monkeypatch.setattr(here, "event", lambda *args: None)  # (outside a Hypothesis test)
    monkeypatch.setattr(log_cases, "write", lambda *args, **kwargs: "")
    assert model_module.build is real
    idle = (b'{"kind":"run","ts":"' + ts(0).encode() + b'","run":"r-0","session":null,"via":"none",'
            b'"unambiguous":false,"agent":"claude","actor":{},"caller":null,"docs":[]}',)
    for stopping in (None, "s1"):
        try:
            check(idle, stopping)
        except AssertionError as exc:
            assert "crashed" in str(exc)
        else:
            raise AssertionError("a crashing reduce passed the check")
