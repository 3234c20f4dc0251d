"""A scenario's team on Windows (``windows_team``): the harness writes no tree, a driver that
declares the capability gets the folder, any other finds the case not-applicable."""

from __future__ import annotations

import pytest

from conformance.corpus import capabilities, lint
from conformance.corpus import read as corpus
from conformance.running import outcomes, pool, sandbox

ON_C = r"""id: fx-windows-git-bash
title: A Git Bash read beside a team on drive C is the recalled file
clauses: [FX-ADOPT-READ]
provenance: derived
agents: [claude]
windows_team: 'C:\Users\ana\team'
team: {}
given:
  log: |
    {"kind":"run","ts":"2026-11-30T09:59:00.000Z","run":"5c0ffee0-0001-4e5f-8a9b-0c1d2e3f4a5b","session":"ses-w","via":"env","unambiguous":true,"agent":"claude","actor":{},"caller":null,"docs":[{"key":"redis-timeout","type":"learning","scope":"workspace","path":"C:\\Users\\ana\\team\\learnings\\redis-timeout.md","score":1.0,"eligible":true}]}
steps:
  - hook: claude/post-tool-use-read
    set: {session_id: ses-w, cwd: 'C:\Users\ana\proj', tool_input.file_path: /c/Users/ana/team/learnings/redis-timeout.md}
  - pull: {}
expect:
  votes:
    redis-timeout: {upvoted_count: 1}
  log_contains:
    - {kind: evidence, session: ses-w, exact: true, path: 'C:/Users/ana/team/learnings/redis-timeout.md'}
"""
EVERYTHING = {"commands": ["recall", "hook", "pull", "stats", "review", "contribute"], "agents": ["claude"],
              "log": True, "hold": [], "repeat": True, "seed": ["votes", "upvoted", "log", "checkpoint"]}


def _load(corpus_copy, scenario_writer, text: str = ON_C):  # type: ignore[no-untyped-def]
    scenario_writer(corpus_copy, "attribution", "fx-windows-git-bash", text)
    loaded = corpus.load(corpus_copy)
    (chosen,) = [s for s in loaded.scenarios if s.id == "fx-windows-git-bash"]
    return loaded, chosen


@pytest.mark.parametrize("impl", ["reference", "reference-cli"])
def test_the_reference_takes_a_windows_team_in_process_and_as_real_processes(corpus_copy, scenario_writer, impl):
    loaded, chosen = _load(corpus_copy, scenario_writer)
    assert lint.blocking(chosen, loaded) == []
    (result,) = pool.run_all(impl, loaded, [chosen], {}, timeout=60.0)
    assert result.outcome == outcomes.PASS, (result.message, result.mismatches)


def test_the_same_read_beside_a_team_on_another_drive_credits_nothing(corpus_copy, scenario_writer):
    loaded, chosen = _load(corpus_copy, scenario_writer, ON_C.replace("windows_team: 'C:", "windows_team: 'D:"))
    (result,) = pool.run_all("reference", loaded, [chosen], {}, timeout=60.0)
    assert result.outcome == outcomes.FAIL
    assert not [line for line in result.observed["log"] if line.get("kind") == "evidence"]


def test_a_driver_without_the_capability_finds_the_case_not_applicable(corpus_copy, scenario_writer, fake):
    loaded, chosen = _load(corpus_copy, scenario_writer)
    need = capabilities.needs(chosen, loaded.payloads)
    assert need["windows_team"] is True
    assert capabilities.missing(need, EVERYTHING) == ["a Windows team folder"]
    assert capabilities.missing(need, {**EVERYTHING, "windows_team": True}) == []
    (result,) = pool.run_all(fake("few"), loaded, [chosen], {}, timeout=10.0)
    assert result.outcome == outcomes.NOT_APPLICABLE and "a Windows team folder" in result.message


def test_an_ordinary_case_does_not_need_it(corpus_copy):
    loaded = corpus.load(corpus_copy)
    assert not any(capabilities.needs(s, loaded.payloads)["windows_team"] for s in loaded.scenarios)


@pytest.mark.parametrize("old, new", [
    ("team: {}\n", "team:\n  learnings/x.md: text\n"),  # nothing can be written there
    ("steps:\n", "steps:\n  - recall: redis\n"),  # nor recalled from it
    ("team: {}\n", "team: {}\nuser_team: {}\n"),
    ("windows_team: 'C:\\Users\\ana\\team'", "windows_team: 'team'"),  # not a Windows path
    ("windows_team: 'C:\\Users\\ana\\team'", "windows_team: 'C:team'"),  # drive-relative: no folder
])
def test_the_schema_refuses_what_a_team_on_windows_cannot_have(corpus_copy, scenario_writer, old, new):
    assert old in ON_C
    loaded, chosen = _load(corpus_copy, scenario_writer, ON_C.replace(old, new, 1))
    assert lint.blocking(chosen, loaded) != []


def test_materialize_writes_no_tree_for_a_windows_team(tmp_path):
    layout = sandbox.materialize(str(tmp_path), {"team": {}, "windows_team": "\\\\fs01\\share\\team"})
    assert layout.team == "\\\\fs01\\share\\team"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["home"]
