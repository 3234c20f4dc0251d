"""What a newcomer meets on ``teamai-ref``'s command line: help that lists every command, flags
that do what they say, usage errors that name what would work, one line per message."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference import cli as cli_module
from reference.hook.agents import AGENTS


def test_top_level_help_lists_every_command(cli) -> None:  # type: ignore[no-untyped-def]
    res = cli.subprocess("--help")
    assert res.code == 0
    for command in ("recall", "hook-dispatch", "hook-command", "replay", "pull", "stats", "review", "contribute",
                    "index", "doctor"):
        assert f"    {command}" in res.out, command


def test_hook_dispatch_help_through_the_console_entry(cli) -> None:  # type: ignore[no-untyped-def]
    res = cli.subprocess("hook-dispatch", "--help")
    assert res.code == 0 and res.out.startswith("usage: teamai-ref hook-dispatch")
    assert ", ".join(AGENTS) in res.out


def test_recall_help_hides_caller_and_shows_limit(cli) -> None:  # type: ignore[no-untyped-def]
    helped = cli.subprocess("recall", "--help")
    assert helped.code == 0
    flat = " ".join(helped.out.split())
    assert "--caller" not in flat and "teamai-recall" not in flat  # a hidden flag (#884)
    assert "--limit N" in flat and "(default: 5)" in flat
    assert cli("recall", "redis", "--caller", "teamai-recall", "--limit", "1").code == 0


@pytest.mark.parametrize("limit", ["0", "-1"])
def test_a_limit_under_one_is_a_usage_error_not_clamped(cli, limit: str) -> None:  # type: ignore[no-untyped-def]
    res = cli("recall", "redis", "--limit", limit)
    assert res.code == 2 and res.out == ""
    assert res.err.startswith(f"teamai-ref recall: error: --limit {limit}: ")


def test_a_team_that_does_not_exist_is_said_so(cli, tmp_path) -> None:  # type: ignore[no-untyped-def]
    res = cli("recall", "redis", "--team", str(tmp_path / "nowhere"))
    assert res.code == 3
    assert res.err == (f"teamai-ref: error: the team folder {tmp_path / 'nowhere'} does not exist: check the path "
                       "given to --team (or TEAMAI_TEAM)\n")


def _printed(cli, *args: str) -> list[str]:  # type: ignore[no-untyped-def]
    res = cli("hook-command", *args)
    assert res.code == 0, res.err
    return shlex.split(res.out.strip())


def test_hook_command_puts_team_flags_into_the_line(cli, team: Path, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    user = tmp_path / "user-team"
    user.mkdir()
    monkeypatch.chdir(tmp_path)
    argv = _printed(cli, "stop", "--tool", "codex", "--team", "team", "--user-team", "user-team")
    assert argv[4:] == ["stop", "--tool", "codex", "--team", str(team.resolve()), "--user-team", str(user.resolve())]
    assert _printed(cli, "--tool", "cursor")[4:] == ["post-tool-use", "--tool", "cursor"]


@pytest.mark.parametrize("args", [("--tool", "bogus"), ("--tool", ""), ("pre-tool-use", "--tool", "claude")])
def test_hook_command_refuses_what_no_hook_knows(cli, args: tuple[str, ...]) -> None:  # type: ignore[no-untyped-def]
    res = cli("hook-command", *args)
    assert res.code == 2 and res.out == ""
    assert len(res.err.splitlines()) == 1
    if "--tool" in args and args[-1] != "claude":
        assert ", ".join(AGENTS) in res.err
    else:
        assert "post-tool-use, post-tool-use-failure, stop, subagent-stop, session-start" in res.err


def test_hook_command_refuses_a_team_folder_that_is_not_there(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    res = cli("hook-command", "--team", str(tmp_path / "missing"))
    assert res.code == 3 and res.out == "" and "does not exist" in res.err


def test_a_team_path_that_is_a_file_is_named_as_such(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    not_a_folder = tmp_path / "team.md"
    not_a_folder.write_text("a file\n")
    for command in (("recall", "redis"), ("contribute", "--file", str(not_a_folder), "--title", "T")):
        res = cli(*command, env={"TEAMAI_TEAM": str(not_a_folder)})
        assert res.code == 3, res.err
        assert res.err == f"teamai-ref: error: team folder {not_a_folder} is a file, not a folder: give --team (or TEAMAI_TEAM) the team tree's folder\n"


def test_a_usage_error_has_one_prefix(cli) -> None:  # type: ignore[no-untyped-def]
    res = cli("contribute")
    assert res.code == 2
    (line,) = res.err.splitlines()
    assert line.startswith("teamai-ref contribute: error: ") and line.count("error:") == 1
    assert line.endswith("(see teamai-ref contribute --help)")
    res = cli("nosuch")
    (line,) = res.err.splitlines()
    assert res.code == 2 and line.startswith("teamai-ref: error: ") and line.count("teamai-ref") == 2


def test_every_warning_and_error_is_one_line() -> None:
    import io

    from reference.streams import Io

    err = io.StringIO()
    out = Io({}, io.BytesIO(), io.StringIO(), err)
    out.warn("first\n  second\n\nthird")
    out.error("a\r\nb")
    assert err.getvalue() == "teamai-ref: warning: first second third\nteamai-ref: error: a b\n"


_ARG = st.one_of(
    st.sampled_from(["--check", "--caller", "--limit", "--team", "--user-team", "--lim", "--team=x", "--", "-h",
                     "--help", "-", "-3", "3", " 7", "x9", "", "a b", "redis", "timeout", "teamai-recall", "recall"]),
    st.text(alphabet="ab-3 ", max_size=4),
)


@settings(max_examples=600, deadline=None)
@given(st.lists(_ARG, max_size=7))
def test_a_plain_recall_line_means_what_argparse_says_it_means(rest: list[str]) -> None:
    """The recall command line parsed without argparse gives argparse's own values, for every
    line it accepts (everything else goes to argparse, which explains what is wrong)."""
    argv = ["recall", *rest]
    fast = cli_module.plain_recall(argv)
    if fast is None:
        return
    parsed = cli_module.build_parser("recall").parse_args(argv)
    for name in ("command", "version", "query", "check", "caller", "limit", "team", "user_team"):
        assert getattr(fast, name) == getattr(parsed, name), name


def test_the_shapes_agents_use_skip_argparse() -> None:
    for argv in (["recall", "why did", "the payment job fail"], ["recall", "redis", "--caller", "teamai-recall"],
                 ["recall", "--team", "/t", "--limit", "3", "q"], ["recall", "q", "--check"]):
        assert cli_module.plain_recall(argv) is not None, argv
    for argv in (["recall"], ["recall", "--help"], ["recall", "a", "--check", "b"], ["recall", "--limit", "x", "q"],
                 ["recall", "--lim", "3", "q"], ["recall", "--", "-q"], ["index"]):
        assert cli_module.plain_recall(argv) is None, argv
