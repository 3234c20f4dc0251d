"""One selector grammar for every command: a case id, an area, a clause id or an agent, a glob of
them, or ``kind:name``; several selectors add up, ``--agent`` narrows; a selector that matches
nothing is the same usage error everywhere."""

from __future__ import annotations

import io
import json
from pathlib import Path

import project as project_corpus
import pytest

from conformance import cli
from conformance.corpus import read as corpus
from conformance.corpus import selection

CORPUS = Path(__file__).resolve().parent / "corpus"
ROOT = Path(__file__).resolve().parents[2]
FIXTURE = corpus.load(CORPUS)


def _main(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(["--corpus", str(CORPUS), *argv], out, err)
    return code, out.getvalue(), err.getvalue()


def _listed(*selector_args: str) -> list[str]:
    code, out, err = _main("list", "--json", *selector_args)
    assert code == cli.EXIT_OK, err
    return [json.loads(line)["id"] for line in out.splitlines()]


def _shown(*selector_args: str) -> list[str]:
    code, out, err = _main("show", *selector_args)
    assert code == cli.EXIT_OK, err
    return [line.split("\t")[0].removeprefix("id: ") for line in out.splitlines() if line.startswith("id: ")]


@pytest.mark.parametrize("selector, expected", [
    ("fx-recall-prints-hit", ["fx-recall-prints-hit"]),                      # a case id
    ("attribution", ["fx-read-needs-hook"]),                                 # an area
    ("FX-SHADOW", ["fx-recall-user-scope-shadowed"]),                        # a clause id
    ("claude", ["fx-read-needs-hook"]),                                      # an agent
    ("fx-recall-*", ["fx-recall-prints-hit", "fx-recall-user-scope-shadowed"]),  # a glob of ids
    ("FX-RUN-*", ["fx-designed-to-fail", "fx-recall-prints-hit"]),           # a glob of clause ids
    ("clause:FX-ADOPT-READ", ["fx-read-needs-hook"]),
    ("area:recall", ["fx-designed-to-fail", "fx-recall-prints-hit", "fx-recall-user-scope-shadowed"]),
    ("agent:claude", ["fx-read-needs-hook"]),
    ("case:fx-designed-*", ["fx-designed-to-fail"]),
])
def test_every_kind_of_selector_works_the_same_in_list_show_and_run(selector, expected):
    assert _listed("--only", selector) == expected
    assert _shown(selector) == expected
    code, out, _ = _main("run", "--only", selector)
    assert f"{len(expected)} cases against" in out or f"{len(expected)} case against" in out


def test_selectors_add_up_and_agent_narrows():
    assert _listed("--only", "fx-designed-to-fail", "--only", "attribution") == ["fx-read-needs-hook",
                                                                                "fx-designed-to-fail"]
    assert _listed("--only", "FX-ADOPT-READ", "--only", "fx-read-needs-hook") == ["fx-read-needs-hook"]
    assert _listed("--agent", "claude") == ["fx-read-needs-hook"]
    assert _shown("attribution", "recall", "--agent", "claude") == ["fx-read-needs-hook"]


@pytest.mark.parametrize("argv, named", [
    (["--only", "nosuch"], "'nosuch'"),
    (["--only", "fx-recall-prints-hit", "--only", "fx-typo"], "'fx-typo'"),
    (["--only", "zz-*"], "'zz-*'"),
    (["--only", "area:FX-SHADOW"], "'area:FX-SHADOW'"),   # a clause id is not an area
    (["--only", "colour:red"], "'colour:red'"),
    (["--agent", "nosuch"], "--agent 'nosuch'"),
    (["--only", "recall", "--agent", "claude"], "--agent 'claude'"),
])
def test_a_selector_that_matches_nothing_is_the_same_usage_error_everywhere(argv, named):
    errors = set()
    for command in (["list", *argv], ["run", *argv], ["show", *_positional(argv)]):
        code, out, err = _main(*command)
        assert code == cli.EXIT_USAGE and out == "", (command, err)
        assert named in err and "see teamai-conformance list" in err, err
        errors.add(err)
    assert len(errors) == 1, errors


def _positional(argv: list[str]) -> list[str]:
    return [a for a in argv if a != "--only"]


def test_show_needs_a_selector():
    assert _main("show")[0] == cli.EXIT_USAGE


def test_every_case_area_clause_and_agent_of_the_project_selects_exactly_its_cases():
    project = project_corpus.load()
    for scenario in project.scenarios:
        assert selection.select(project, [f"case:{scenario.id}"]) == [scenario]
    for area in {s.area for s in project.scenarios}:
        assert selection.select(project, [f"area:{area}"]) == [s for s in project.scenarios if s.area == area]
    for clause in {c for s in project.scenarios for c in s.clauses}:
        assert selection.select(project, [clause]) == [s for s in project.scenarios if clause in s.clauses]
    for agent in {a for s in project.scenarios for a in s.agents}:
        assert selection.select(project, [], agent) == [s for s in project.scenarios if agent in s.agents]
    assert selection.select(project, ["*"]) == project.scenarios


def test_no_selector_is_the_whole_corpus_and_the_error_is_typed():
    assert selection.select(FIXTURE, []) == FIXTURE.scenarios
    with pytest.raises(selection.NoMatch, match="'nosuch'"):
        selection.select(FIXTURE, ["nosuch"])
