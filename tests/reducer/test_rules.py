"""Each reducer rule on a real log file in a temporary folder."""

from __future__ import annotations

import json
import os
import random

from reference import reducer
from reference.reducer import logread
from reference.state import storage, upvoted_file

from .logs import claim, doc, evidence, link, run
from .logs import ts as logs_ts

R1 = "11111111-1111-4111-8111-111111111111"
R2 = "22222222-2222-4222-8222-222222222222"
DAY = 24 * 3600


def test_main_agent_read_credits_once_and_is_consumed(lab):
    lab.write([run(0, R1, "ses-a", [lab.doc("redis-timeout")]), evidence(60, "ses-a", lab.path("redis-timeout"))])
    res = lab.reduce()
    assert res.credited == [("ses-a", "redis-timeout")]
    assert lab.votes() == {"redis-timeout": 1}
    (line,) = lab.consumed()
    assert line["session"] == "ses-a" and line["key"] == "redis-timeout" and line["run"] == R1
    assert line["credited"] is True
    assert line["evidence"] == {"ts": "2026-11-30T10:01:00.000Z", "session": "ses-a", "path": lab.path("redis-timeout")}
    again = lab.reduce()
    assert again.credited == [] and again.consumed == 0
    assert lab.votes() == {"redis-timeout": 1} and len(lab.consumed()) == 1


def test_window_includes_both_edges(lab):
    docs = [lab.doc("at-zero"), lab.doc("at-day"), lab.doc("past-day"), lab.doc("before")]
    lab.write([run(100, R1, "ses-a", docs),
               evidence(100, "ses-a", lab.path("at-zero")),
               evidence(100 + DAY, "ses-a", lab.path("at-day")),
               evidence(100 + DAY + 0.001, "ses-a", lab.path("past-day")),
               evidence(99.999, "ses-a", lab.path("before"))])
    lab.reduce(at=3 * DAY)
    assert lab.votes() == {"at-zero": 1, "at-day": 1}


def test_ineligible_doc_never_votes(lab):
    lab.write([run(0, R1, "ses-a", [lab.doc("user-doc", eligible=False)]),
               evidence(5, "ses-a", lab.path("user-doc"))])
    res = lab.reduce()
    assert lab.votes() == {} and res.consumed == 0 and res.pending == 1


def test_unsettled_run_never_votes(lab):
    lab.write([run(0, R1, "ses-a", [lab.doc("d1")], unambiguous=False),
               run(0, R2, None, [lab.doc("d2")]),
               evidence(5, "ses-a", lab.path("d1")), evidence(5, "ses-a", lab.path("d2"))])
    lab.reduce()
    assert lab.votes() == {}


def test_claim_settles_an_ambiguous_run(lab):
    lab.write([run(0, R1, "ses-outer", [lab.doc("d1")], unambiguous=False),
               claim(2, R1, "ses-inner", agent="codex"),
               evidence(5, "ses-inner", lab.path("d1")), evidence(6, "ses-outer", lab.path("d1"))])
    res = lab.reduce()
    assert res.credited == [("ses-inner", "d1")]
    assert lab.votes() == {"d1": 1}


def test_first_claim_by_ts_wins_whatever_the_line_order(lab):
    lab.write([run(0, R1, None, [lab.doc("d1")]),
               claim(9, R1, "ses-late"),
               claim(3, R1, "ses-first"),
               evidence(20, "ses-late", lab.path("d1"))])
    lab.reduce()
    assert lab.votes() == {}
    lab.append([evidence(21, "ses-first", lab.path("d1"))])
    res = lab.reduce()
    assert res.credited == [("ses-first", "d1")]


def test_claim_beats_unambiguous_env(lab):
    lab.write([run(0, R1, "ses-env", [lab.doc("d1")]), claim(1, R1, "ses-hook"),
               evidence(5, "ses-env", lab.path("d1"))])
    lab.reduce()
    assert lab.votes() == {}


def test_claim_for_unknown_run_settles_nothing(lab):
    lab.write([claim(1, R2, "ses-a"), evidence(5, "ses-a", lab.path("d1"))])
    res = lab.reduce()
    assert lab.votes() == {} and res.pending == 1


def test_recall_subagent_by_agent_type(lab):
    lab.write([run(0, R1, "ses-a", [lab.doc("d1")]),
               claim(1, R1, "ses-a", agent_id="a-19", agent_type="teamai-recall"),
               evidence(5, "ses-a", lab.path("d1"), agent_id="a-19")])
    lab.reduce()
    assert lab.votes() == {}
    lab.append([evidence(50, "ses-a", lab.path("d1"), agent_id="b-7")])  # another subagent
    res = lab.reduce()
    assert res.credited == [("ses-a", "d1")]


def test_recall_subagent_by_caller_with_agent_id_lets_main_agent_vote(lab):
    lab.write([run(0, R1, "ses-a", [lab.doc("d1")], caller="teamai-recall"),
               claim(1, R1, "ses-a", agent_id="a-19"),
               evidence(5, "ses-a", lab.path("d1"), agent_id="a-19")])
    lab.reduce()
    assert lab.votes() == {}
    lab.append([evidence(50, "ses-a", lab.path("d1"))])
    lab.reduce()
    assert lab.votes() == {"d1": 1}


def test_caller_without_agent_id_blocks_anonymous_reads(lab):
    # Cursor: hooks name no subagent, so the subagent's reads look like the main agent's.
    lab.write([run(0, R1, "conv-f", [lab.doc("d1")], caller="teamai-recall", agent="cursor"),
               claim(1, R1, "conv-f", agent="cursor"),
               evidence(5, "conv-f", lab.path("d1"), agent="cursor")])
    res = lab.reduce()
    assert lab.votes() == {} and res.pending == 1


def test_child_read_counts_for_parent_run_and_the_root_is_credited(lab):
    lab.write([run(0, R1, "ses_parent", [lab.doc("d1")], agent="opencode"),
               link(30, "ses_child", "ses_parent"),
               evidence(10, "ses_child", lab.path("d1"), agent="opencode")])
    res = lab.reduce()
    assert res.credited == [("ses_parent", "d1")]
    (line,) = lab.consumed()
    assert line["session"] == "ses_parent" and line["evidence"]["session"] == "ses_child"


def test_child_of_child_reaches_the_root(lab):
    lab.write([run(0, R1, "s-root", [lab.doc("d1")]), link(1, "s-mid", "s-root"), link(2, "s-leaf", "s-mid"),
               evidence(10, "s-leaf", lab.path("d1"))])
    assert lab.reduce().credited == [("s-root", "d1")]


def test_link_cycle_terminates_and_joins_the_cycle(lab):
    lab.write([run(0, R1, "s-b", [lab.doc("d1")]), link(1, "s-a", "s-b"), link(2, "s-b", "s-a"),
               link(3, "s-c", "s-c"), evidence(10, "s-a", lab.path("d1"))])
    res = lab.reduce()
    assert res.credited == [("s-a", "d1")]  # the cycle's root is its smallest id


def test_recall_subagent_in_child_session_does_not_block_parent(lab):
    lab.write([run(0, R1, "ses_child", [lab.doc("d1")], caller="teamai-recall", agent="opencode"),
               link(1, "ses_child", "ses_parent"),
               evidence(5, "ses_child", lab.path("d1")),
               evidence(8, "ses_parent", lab.path("d1"))])
    res = lab.reduce()
    assert res.credited == [("ses_parent", "d1")]
    assert lab.consumed()[0]["evidence"]["session"] == "ses_parent"


def test_status_rules(lab):
    lab.write([run(0, R1, "ses-a", [lab.doc("failed"), lab.doc("unknown-simple"), lab.doc("unknown-piped")]),
               evidence(5, "ses-a", lab.path("failed"), status="failure"),
               evidence(5, "ses-a", lab.path("unknown-simple"), status="unknown", simple=True, via="shell"),
               evidence(5, "ses-a", lab.path("unknown-piped"), status="unknown", simple=False, via="search")])
    lab.reduce()
    assert lab.votes() == {"unknown-simple": 1}


def test_suffix_match_needs_a_folder_and_one_candidate(lab):
    other = str(lab.team.parent / "elsewhere" / "team" / "learnings" / "twin.md")
    lab.write([run(0, R1, "ses-a", [lab.doc("d1"), lab.doc("twin"), doc("twin-old", other)]),
               evidence(5, "ses-a", "team/learnings/d1.md", exact=False),
               evidence(5, "ses-a", "team/learnings/twin.md", exact=False),
               evidence(6, "ses-a", "d1.md", exact=False, agent_id="x")])
    res = lab.reduce()
    assert lab.votes() == {"d1": 1}
    assert res.pending == 2  # the ambiguous read and the one too short to tell


def test_exact_evidence_must_equal_the_printed_path(lab):
    lab.write([run(0, R1, "ses-a", [lab.doc("d1")]),
               evidence(5, "ses-a", str(lab.team / "elsewhere" / "learnings" / "d1.md"))])
    lab.reduce()
    assert lab.votes() == {}


def test_second_read_is_covered_not_counted(lab):
    lab.write([run(0, R1, "ses-a", [lab.doc("d1")]), run(100, R2, "ses-a", [lab.doc("d1")]),
               evidence(50, "ses-a", lab.path("d1")), evidence(200, "ses-a", lab.path("d1"), agent_id="x")])
    lab.reduce()
    assert lab.votes() == {"d1": 1}
    flags = sorted(c["credited"] for c in lab.consumed())
    assert flags == [False, True]


def test_resumed_session_next_day_gets_no_second_vote(lab):
    lab.write([run(0, R1, "ses-alice", [lab.doc("d1")]), evidence(60, "ses-alice", lab.path("d1"))])
    lab.reduce(at=120)
    lab.append([evidence(DAY - 600, "ses-alice", lab.path("d1"))])  # resumed, no new recall
    lab.reduce(at=DAY - 500)
    lab.reduce(at=3 * DAY)  # the per-session entry has expired by now; the log still says covered
    assert lab.votes() == {"d1": 1}


def test_separate_sessions_each_vote(lab):
    lab.write([run(0, R1, "ses-a", [lab.doc("d1")]), run(0, R2, "ses-b", [lab.doc("d1")]),
               evidence(5, "ses-a", lab.path("d1")), evidence(5, "ses-b", lab.path("d1"))])
    lab.reduce()
    assert lab.votes() == {"d1": 2}


def test_per_session_ledger_stops_a_second_credit_when_consumed_lines_were_lost(lab):
    lines = [run(0, R1, "ses-a", [lab.doc("d1")]), evidence(5, "ses-a", lab.path("d1"))]
    lab.write(lines)
    lab.reduce(at=100)
    lab.write(lines)  # as if appending the consumed line had failed
    res = lab.reduce(at=200)
    assert res.credited == [] and res.consumed == 1
    assert lab.votes() == {"d1": 1}
    sessions = upvoted_file.load(lab.cfg().active.upvoted_path, "x", lab.warnings.append).sessions
    assert list(sessions) == ["ses-a"] and "d1" in sessions["ses-a"]


def test_busy_ledger_consumes_nothing_and_a_later_reduce_credits_once(lab):
    lab.write([run(0, R1, "ses-a", [lab.doc("d1")]), evidence(5, "ses-a", lab.path("d1"))])
    scope = lab.cfg().active
    with storage.locked(scope.ledger_lock, "test"):
        res = lab.reduce()
        assert res.busy and res.credited == [] and res.consumed == 0
    assert lab.consumed() == [] and lab.votes() == {}
    assert any("stayed locked" in w for w in lab.warnings)
    assert lab.reduce().credited == [("ses-a", "d1")]
    assert lab.reduce().credited == []
    assert lab.votes() == {"d1": 1} and len(lab.consumed()) == 1


def test_corrupt_votes_ledger_is_moved_aside_and_named(lab):
    lab.write([run(0, R1, "ses-a", [lab.doc("d1")]), evidence(5, "ses-a", lab.path("d1"))])
    scope = lab.cfg().active
    with open(scope.ledger_path, "w") as fh:
        fh.write("votes: [not, a, mapping\n")
    lab.reduce()
    (warning,) = [w for w in lab.warnings if "corrupt" in w]
    aside = warning.split("moved it to ")[1].split(" and")[0]
    assert aside.startswith(scope.ledger_path + ".corrupt-")
    with open(aside) as fh:
        assert fh.read() == "votes: [not, a, mapping\n"
    assert lab.votes() == {"d1": 1}


def test_corrupt_upvoted_ledger_is_moved_aside(lab):
    lab.write([run(0, R1, "ses-a", [lab.doc("d1")]), evidence(5, "ses-a", lab.path("d1"))])
    scope = lab.cfg().active
    os.makedirs(scope.state_dir, exist_ok=True)
    with open(scope.upvoted_path, "w") as fh:
        fh.write("{oops")
    lab.reduce()
    assert any(w.startswith(f"per-session upvote ledger {scope.upvoted_path} is corrupt") for w in lab.warnings)
    assert os.path.exists(scope.upvoted_path)
    assert lab.votes() == {"d1": 1}


def test_malformed_lines_are_skipped_and_counted(lab):
    lab.write([run(0, R1, "ses-a", [lab.doc("d1")])])
    with open(lab.log_path, "ab") as fh:
        fh.write(b'{"kind":"evidence","ts":"2026-11-30T10:00:05.000Z","sess\n[1,2]\n{"kind":"nope","ts":"x"}\n')
    lab.append([evidence(5, "ses-a", lab.path("d1"))])
    assert lab.reduce().credited == [("ses-a", "d1")] and lab.votes() == {"d1": 1}
    assert reducer.load(lab.cfg()).skipped == 3  # what stats warns about


def test_a_line_nested_too_deeply_is_malformed_for_stop_stats_and_pull(lab):
    """Such a line (a hand edit, a broken writer) raised ``RecursionError``: every Stop of the scope
    failed, ``stats`` and ``pull`` stopped with a traceback, and nothing could prune it."""
    from reference.state import retention

    deep = b"[" * 100_000 + b"]" * 100_000
    lab.write([run(0, R1, "ses-a", [lab.doc("d1")])])
    with open(lab.log_path, "ab") as fh:
        fh.write(b'{"kind":"run","ts":"2026-11-30T10:00:01.000Z","x":' + deep + b"}\n")
        fh.write(b'{"kind":"evidence","ts":"2026-11-30T10:00:02.000Z","session":"ses-a","x":' + deep + b"}\n")
    lab.append([evidence(5, "ses-a", lab.path("d1"))])
    assert lab.reduce().credited == [("ses-a", "d1")] and lab.votes() == {"d1": 1}  # the Stop
    assert reducer.load(lab.cfg()).skipped == 2  # stats
    pruned = retention.prune(lab.cfg(90_000.0), lab.warnings.append)  # pull
    assert pruned.malformed == 2 and b"[[[" not in lab.log_path.read_bytes()


def test_a_line_that_is_not_utf8_is_malformed_whichever_way_the_log_is_read(lab):
    """The byte readers must not read what the decoder refuses: a consumed line with a byte that is
    not UTF-8 (in a field no reader looks at) consumes nothing, so its read still credits, in a
    Stop, a pull and the whole-log model alike, and each counts the line as skipped."""
    lab.write([run(0, R1, "ses-a", [lab.doc("d1")]), evidence(5, "ses-a", lab.path("d1"))])
    read = {"ts": logs_ts(5), "session": "ses-a", "path": lab.path("d1")}
    line = json.dumps({"kind": "consumed", "ts": logs_ts(9), "session": "ses-a", "key": "d1-KEY", "run": R1,
                       "credited": False, "evidence": read}, separators=(",", ":")).encode()
    with open(lab.log_path, "ab") as fh:
        fh.write(line.replace(b"-KEY", b"\xff") + b"\n")
    lines = logread.Lines(lab.log_path.read_bytes())
    assert lines.bad == 1 and lines.raw["consumed"] == []
    assert reducer.load(lab.cfg()).skipped == 1
    assert lab.reduce().credited == [("ses-a", "d1")] and lab.votes() == {"d1": 1}


def test_key_order_of_a_line_does_not_matter(lab):
    rec = evidence(5, "ses-a", lab.path("d1"))
    reordered = dict(reversed(list(rec.items())))
    lab.write([run(0, R1, "ses-a", [lab.doc("d1")]), reordered])
    assert lab.reduce().credited == [("ses-a", "d1")]


def test_line_order_does_not_change_the_ledger(lab, tmp_path):
    from .conftest import Lab

    lines = [run(0, R1, "ses-a", [lab.doc("d1"), lab.doc("d2")], unambiguous=False),
             claim(3, R1, "ses-b"), claim(2, R1, "ses-a"), link(4, "kid", "ses-a"),
             evidence(5, "kid", lab.path("d1")), evidence(6, "ses-a", lab.path("d1")),
             evidence(7, "ses-b", lab.path("d2")), evidence(8, "ses-a", lab.path("d2"), agent_id="q")]
    lab.write(lines)
    lab.reduce()
    expected = lab.votes()
    assert expected == {"d1": 1, "d2": 1}
    for seed in range(5):
        other = Lab(tmp_path / f"p{seed}")
        shuffled = list(lines)
        random.Random(seed).shuffle(shuffled)
        other.team = lab.team
        other.write(shuffled)
        other.reduce()
        assert other.votes() == expected


def test_no_reads_means_no_ledger_access(lab):
    lab.write([run(0, R1, "ses-a", [lab.doc("d1")])])
    res = lab.reduce()
    assert res.pending == 0 and res.consumed == 0
    assert not list(lab.home.glob("workspaces/*/votes.yaml"))
    assert not list(lab.home.glob("workspaces/*/upvoted-sessions.json"))


def test_a_covered_read_does_not_extend_the_cover(lab):
    hour = 3600
    lab.write([run(0, R1, "ses-a", [lab.doc("d1")]), evidence(60, "ses-a", lab.path("d1"))])
    lab.reduce(at=100)
    lab.append([evidence(23 * hour, "ses-a", lab.path("d1"))])
    lab.reduce(at=23 * hour + 100)
    assert [c["credited"] for c in lab.consumed()] == [True, False]
    lab.append([run(40 * hour, R2, "ses-a", [lab.doc("d1")]), evidence(46 * hour, "ses-a", lab.path("d1"))])
    res = lab.reduce(at=46 * hour + 100)
    assert res.credited == [("ses-a", "d1")]  # a day after the credit, from a new run
    assert lab.votes() == {"d1": 2}


def test_unusual_spellings_take_the_careful_path(lab):
    windows = "C:\\Users\\ana\\team\\learnings\\d1.md"  # printed by recall on Windows
    accented = str(lab.team / "learnings" / "café.md")
    lab.write([run(0, R1, "ses-a", [doc("d1", windows), doc("café", accented)]),
               evidence(5, "ses-a", "C:/Users/ana/team/learnings/d1.md"),
               evidence(6, "ses-a", accented),
               evidence(7, "ses-b", "C:/Users/ana/team/learnings/d1.md")])
    res = lab.reduce()
    assert sorted(res.credited) == [("ses-a", "café"), ("ses-a", "d1")]
    assert res.pending == 1
    assert lab.reduce().credited == [] and len(lab.consumed()) == 2


def test_the_stop_path_reads_real_hook_lines_without_decoding_them(lab):
    """The cheap identity reader must recognise the evidence lines the hooks really write; if it
    did not, every Stop would decode every read (correct, but slow)."""
    import io
    import json as _json

    from reference.cli import run as cli_run
    from reference.streams import Io

    payload = {"session_id": "ses-a", "cwd": str(lab.team), "hook_event_name": "PostToolUse",
               "tool_name": "Read", "tool_input": {"file_path": lab.path("d1")},
               "tool_response": {"type": "text", "file": {"filePath": lab.path("d1"), "content": "x"}}}
    (lab.team / "learnings" / "d1.md").write_text("---\ntitle: d1\n---\nx\n")
    code = cli_run(["hook-dispatch", "post-tool-use", "--tool", "claude"],
                   Io(lab.env(5), io.BytesIO(_json.dumps(payload).encode()), io.StringIO(), io.StringIO()))
    assert code == 0
    raw = lab.log_path.read_bytes().splitlines()
    assert len(raw) == 1 and b'"kind":"evidence"' in raw[0]
    assert logread.raw_ids(raw, "evidence") == [(logs_ts(5).encode(), b"ses-a", lab.path("d1").encode())]
    lab.write([run(0, R1, "ses-a", [lab.doc("d1")])] + [_json.loads(x) for x in raw])
    lab.reduce()
    consumed = lab.log_path.read_bytes().splitlines()[-1:]
    assert logread.raw_ids(consumed, "consumed") == [(logs_ts(5).encode(), b"ses-a",
                                                                 lab.path("d1").encode())]


def test_a_stop_settles_its_own_session_family_and_pull_the_rest(tmp_path):
    """A Stop that names its session credits only that session's (and its linked children's)
    reads; the other sessions' reads wait for their own Stop or for pull."""
    from reference.state import ledger
    from reference.state.runlog import append
    from reference.team import config

    team = tmp_path / "team"
    (team / "learnings").mkdir(parents=True)
    doc = str(team / "learnings" / "a.md")
    cfg = config.load({"TEAMAI_HOME": str(tmp_path / "home"), "TEAMAI_TEAM": str(team),
                       "TEAMAI_NOW": "2026-11-30T12:00:00Z"})
    scope = cfg.active
    lines = []
    for i, session in enumerate(("ses-a", "ses-b")):
        run = f"00000000-0000-4000-8000-00000000000{i}"
        lines.append({"kind": "run", "ts": "2026-11-30T10:00:00.000Z", "run": run, "session": session,
                      "via": "env", "unambiguous": True, "agent": "claude", "actor": {}, "caller": None,
                      "docs": [{"key": "a", "type": "learning", "scope": "workspace", "path": doc, "score": 1.0,
                                "eligible": True}]})
    lines.append({"kind": "link", "ts": "2026-11-30T10:00:01.000Z", "child": "ses-a-child", "parent": "ses-a",
                  "agent": "opencode"})
    for session in ("ses-a-child", "ses-b"):
        lines.append({"kind": "evidence", "ts": "2026-11-30T10:05:00.000Z", "session": session, "agent": "claude",
                      "actor": {}, "path": doc, "exact": True, "via": "read", "simple": True, "status": "success"})
    append(scope.log_path, scope.log_lock, lines, 1.0)

    first = reducer.reduce(cfg, print, "ses-a")
    assert first.credited == [("ses-a", "a")]
    assert ledger.read(scope.ledger_path)["a"]["upvoted_count"] == 1
    assert reducer.reduce(cfg, print, "ses-a").credited == []
    assert reducer.reduce(cfg, print).credited == [("ses-b", "a")]
    assert ledger.read(scope.ledger_path)["a"]["upvoted_count"] == 2


def test_a_path_escaping_a_lone_surrogate_is_credited_once_and_written_back_escaped(lab):
    """A file name that is not UTF-8 reaches the log as an escaped lone surrogate (Python's json
    writes one so); decoding gives the surrogate back, and every byte needle and line written from
    it must spell the escape again instead of stopping the reducer."""
    path = lab.path("caf\udce9")
    lines = [run(0, R1, "ses-a", [lab.doc("caf\udce9")]), evidence(5, "ses-a", path)]
    lab.log_path.parent.mkdir(parents=True, exist_ok=True)
    lab.log_path.write_bytes(b"".join(json.dumps(rec, separators=(",", ":")).encode("ascii") + b"\n" for rec in lines))
    assert lab.reduce().credited == [("ses-a", "caf\udce9")]
    written = lab.log_path.read_bytes()
    assert b"\\udce9" in written.splitlines()[-1]  # the consumed line spells the escape
    assert [rec["kind"] for rec in lab.log()] == ["run", "evidence", "consumed"]
    assert lab.reduce(at=90_001.0).credited == []


def test_a_line_with_a_lone_surrogate_is_written_as_its_escape_and_reads_back():
    """What the reducer writes back from the log (a consumed line naming a read of a file whose name
    is not UTF-8) spells the escaped lone surrogate so, not fail to be written. (The hook appends
    strictly: a payload holding one writes nothing, ``tests/hook/test_dispatch.py``.)"""
    from reference.state import runlog

    rec = {"kind": "evidence", "ts": "2026-11-30T10:00:00.000Z", "session": "s", "path": "/t/caf\udce9.md"}
    line = runlog.encode(rec)
    assert b"caf\\udce9.md" in line
    assert json.loads(line) == rec
