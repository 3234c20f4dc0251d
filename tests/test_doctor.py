"""``teamai-ref doctor``: what a hook line would do here, line by line, with a fix per problem;
exit 0 when a hook would record, 1 when something would make it record nothing. It writes no
state of its own (its probe runs the real hook line against a scratch state folder)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reference.hook.agents import AGENTS
from reference.team import config


def doctor(cli, *args: str, env: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    res = cli.subprocess("doctor", *args, env=env)
    assert res.err == "", res.err
    return res


def status(out: str, label: str) -> str:
    """The status word of the first line whose label is ``label``."""
    for line in out.splitlines():
        if line.startswith(label):
            return line[len(label):].split()[0]
    raise AssertionError(f"no {label!r} line in:\n{out}")


def state(cli) -> config.Scope:  # type: ignore[no-untyped-def]
    return config.load(cli.env).active


def test_a_healthy_place_says_so_and_writes_nothing(cli, home: Path, team: Path) -> None:  # type: ignore[no-untyped-def]
    res = doctor(cli, "--tool", "claude")
    assert res.code == 0, res.out
    for label in ("team", "state folder", "tool", "hook line", "hook probe", "votes ledger", "recall log",
                  "debug log"):
        assert status(res.out, label) == "ok", (label, res.out)
    assert str(team.resolve()) in res.out and "fast.py post-tool-use --tool claude" in res.out
    assert res.out.rstrip().splitlines()[-1] == "a hook line here would record."
    assert not home.exists(), "doctor must not write the state it inspects"


def test_no_team_is_a_problem_with_its_fix(cli) -> None:  # type: ignore[no-untyped-def]
    res = doctor(cli, env={"TEAMAI_TEAM": "", "TEAMAI_USER_TEAM": ""})
    assert res.code == 1
    assert status(res.out, "team") == "FAIL"
    fixes = [line for line in res.out.splitlines() if line.strip().startswith("fix:")]
    assert fixes and "--team" in fixes[0]
    assert res.out.rstrip().splitlines()[-1].startswith("a hook line here would record nothing")


def test_a_team_that_is_a_file_is_named(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    not_a_folder = tmp_path / "team.md"
    not_a_folder.write_text("x\n")
    res = doctor(cli, "--team", str(not_a_folder))
    assert res.code == 1 and "is a file, not a folder" in res.out


def test_an_unknown_tool_is_a_problem_naming_the_agents(cli) -> None:  # type: ignore[no-untyped-def]
    res = doctor(cli, "--tool", "bogus")
    assert res.code == 1 and status(res.out, "tool") == "FAIL"
    assert ", ".join(AGENTS) in res.out


def test_an_agent_without_an_adapter_is_never_checked_as_another(cli) -> None:  # type: ignore[no-untyped-def]
    res = doctor(cli, "--tool", "gemini")
    assert res.code == 1 and status(res.out, "tool") == "FAIL" and status(res.out, "hook line") == "FAIL"
    assert "--tool claude" not in res.out and "hook probe" not in res.out
    assert "reference/hook/agents/gemini.py" in res.out and "Adding an agent" in res.out


def test_recording_switched_off_is_a_problem(cli) -> None:  # type: ignore[no-untyped-def]
    res = doctor(cli, env={"TEAMAI_RECALL_DISABLED": "1"})
    assert res.code == 1 and status(res.out, "recording") == "FAIL" and "unset TEAMAI_RECALL_DISABLED" in res.out


def test_a_state_folder_that_cannot_be_made_is_a_problem(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    blocker = tmp_path / "blocker"
    blocker.write_text("a file where the state home should be\n")
    res = doctor(cli, env={"TEAMAI_HOME": str(blocker / "home")})
    assert res.code == 1 and status(res.out, "state folder") == "FAIL"
    assert "TEAMAI_HOME" in res.out


@pytest.mark.parametrize(("text", "word", "verdict"), [
    ("version: 2\nvotes:\n  redis-timeout:\n    recalled_count: 1\n    upvoted_count: 0\n"
     "    last_recalled_at: 2026-11-30T10:00:00.000Z\ndeltas:\n  redis-timeout:\n    recalled_delta: 1\n"
     "    upvoted_delta: 0\n", "teamai's spelling", "ok"),
    ("{version: 2, votes: {a: {recalled_count: 1, upvoted_count: 0}}, deltas: {}}\n", "another YAML spelling",
     "ok"),
    ("version: 2\nvotes: [broken\n", "not a ledger", "note"),
])
def test_the_ledger_is_read_and_its_spelling_named(cli, text: str, word: str, verdict: str) -> None:  # type: ignore[no-untyped-def]
    path = Path(state(cli).ledger_path)
    path.parent.mkdir(parents=True)
    path.write_text(text)
    res = doctor(cli)
    assert res.code == 0
    assert status(res.out, "votes ledger") == verdict and word in res.out
    assert path.read_text() == text


def test_the_logs_are_sized_and_counted(cli) -> None:  # type: ignore[no-untyped-def]
    scope = state(cli)
    Path(scope.state_dir).mkdir(parents=True)
    good = json.dumps({"kind": "link", "ts": "2026-11-30T10:00:00.000Z", "child": "a", "parent": "b",
                       "agent": "claude"})
    Path(scope.log_path).write_text(f"{good}\nnot json\n{{\"kind\": \"nosuch\"}}\n{good}\n")
    Path(scope.debug_log_path).write_text("2026-11-30T10:00:00.000Z agent=claude event=stop first\n"
                                          "2026-11-30T10:00:01.000Z agent=claude event=stop the last one\n")
    res = doctor(cli)
    assert res.code == 0
    log_line = next(line for line in res.out.splitlines() if line.startswith("recall log"))
    assert "4 lines" in log_line and "2 malformed" in log_line
    debug_line = next(line for line in res.out.splitlines() if line.startswith("debug log"))
    assert "2 lines" in debug_line and "the last one" in debug_line
