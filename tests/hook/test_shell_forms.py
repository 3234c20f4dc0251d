"""Shell forms that are one simple command although they do not look like one at first: a comment
line before it, PowerShell's colon-bound parameters, Windows paths in the shells of Windows hosts,
the home folder's ``~``, and the wrappers that run their command unchanged. Each wrapper is decided
once, for a reader and for ``teamai recall`` alike (``shell.unwrap`` serves both)."""

from __future__ import annotations

import shlex

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference.hook import claims, classify, shell, shell_syntax
from reference.hook.toolcall import SUCCESS, ToolCall

DOC = "learnings/redis-timeout.md"


def read_operands(command: str, dialect: str = shell_syntax.POSIX) -> list[str] | None:
    action = shell.analyze(command, dialect)
    if action.kind != shell.READ:
        return None
    return [w.text for w in action.operands if w.literal]


# --- comments ------------------------------------------------------------------------------------

@pytest.mark.parametrize("command", [
    f"# show the doc\ncat {DOC}",
    f"# one\n# two\n\ncat {DOC}",
    f"\n\ncat {DOC}\n",
    f"cat {DOC} # why\n",
    f"cat {DOC}\n# a note after it",
    f"   # indented note\n   cat {DOC}",
])
def test_comment_lines_and_blank_lines_around_one_command_keep_it_simple(command: str) -> None:
    action = shell.analyze(command)
    assert action.kind == shell.READ and action.simple
    assert [w.text for w in action.operands] == [DOC]


@pytest.mark.parametrize("command", [f"# note\ncat {DOC}\ncat other.md", f"cat {DOC}\n# x\nrm -rf x",
                                     f"# x\ntest -e y\ncat {DOC}"])
def test_two_commands_on_two_lines_are_still_compound(command: str) -> None:
    assert shell.analyze(command).kind == shell.COMPOUND


def test_a_newline_after_a_pipe_or_a_list_operator_continues_the_line() -> None:
    action = shell.analyze(f"cat {DOC} |\n  head -20")
    assert action.kind == shell.READ and not action.simple
    assert shell.analyze(f"cat {DOC} &&\n cat x").kind == shell.COMPOUND


def test_a_comment_before_teamai_recall_still_invokes_it() -> None:
    assert claims.invokes_recall('# ask the team first\nteamai recall "redis timeout"')


@settings(max_examples=150, deadline=None)
@given(st.lists(st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\r"), max_size=20),
                max_size=4))
def test_any_comment_lines_before_a_reader_leave_it_a_simple_read(notes: list[str]) -> None:
    lines = "".join(f"# {note}\n" for note in notes)
    action = shell.analyze(lines + f"cat {shlex.quote(DOC)}")
    assert action.kind == shell.READ and action.simple and [w.text for w in action.operands] == [DOC]


# --- PowerShell's colon-bound parameters and parameter prefixes ----------------------------------

@pytest.mark.parametrize("command", [
    f"Get-Content -LiteralPath:'{DOC}'",
    f"Get-Content -LiteralPath:{DOC}",
    f'Get-Content -Path:"{DOC}" -Raw',
    f"Get-Content -Path:{DOC} -TotalCount:20",
    f"Get-Content -TotalCount:20 {DOC}",
    f"gc -LiteralPath:'{DOC}'",
    f"Get-Content -lit '{DOC}'",  # a unique prefix of -LiteralPath
    f"Get-Content -Pa {DOC}",  # a unique prefix of -Path
    f"Get-Content -Head 5 {DOC}",
    f"Get-Content -Encoding:utf8 {DOC}",
])
def test_powershell_parameters_bound_with_a_colon_or_abbreviated(command: str) -> None:
    assert read_operands(command, shell_syntax.POWERSHELL) == [DOC]
    assert read_operands(command) == [DOC]  # a cmdlet in a POSIX shell tool is read as PowerShell


@pytest.mark.parametrize("command", [f"cat -LiteralPath:'{DOC}'", f"type -Path:{DOC}"])
def test_powershell_aliases_of_get_content_take_its_parameters(command: str) -> None:
    assert read_operands(command, shell_syntax.POWERSHELL) == [DOC]


def test_a_colon_bound_value_of_another_parameter_is_not_a_file() -> None:
    assert read_operands(f"Get-Content -Filter:*.md -Path:{DOC}", shell_syntax.POWERSHELL) == [DOC]
    assert read_operands(f"Get-Content -Stream:{DOC} other.md", shell_syntax.POWERSHELL) == ["other.md"]


# --- which shell a tool runs ---------------------------------------------------------------------

@pytest.mark.parametrize(("agent", "tool", "windows", "expected"), [
    ("claude", "PowerShell", False, shell_syntax.POWERSHELL),
    ("copilot", "powershell", False, shell_syntax.POWERSHELL),
    ("claude", "Bash", True, shell_syntax.POSIX),  # Claude's Bash on Windows is Git Bash
    ("copilot", "bash", True, shell_syntax.POSIX),
    ("opencode", "bash", True, shell_syntax.POSIX),
    ("codex", "Bash", True, shell_syntax.POWERSHELL),  # Codex's "Bash" names its shell tool, not the shell
    ("codex", "Bash", False, shell_syntax.POSIX),
    ("cursor", "Shell", True, shell_syntax.POWERSHELL),
    ("cursor", "Shell", False, shell_syntax.POSIX),
    ("copilot", "run_in_terminal", True, shell_syntax.POWERSHELL),
    ("codebuddy", "execute_command", True, shell_syntax.POWERSHELL),
    ("codebuddy", "execute_command", False, shell_syntax.POSIX),
])
def test_the_dialect_follows_the_tool_and_the_host(agent: str, tool: str, windows: bool, expected: str) -> None:
    assert shell.dialect(agent, tool, windows) == expected


WIN_ROOT = r"C:\Users\ana\team"
WIN_DOC = "C:/Users/ana/team/learnings/redis-timeout.md"


def shell_evidence(agent: str, tool: str, command: str, cwd: str | None, roots: tuple[str, ...] = (WIN_ROOT,),
                   home: str | None = None) -> list[tuple[str, bool]]:
    call = ToolCall(agent=agent, event="post-tool-use", session="s", actor={}, tool=tool, category="shell",
                    command=command, output="text", status=SUCCESS, cwd=cwd)
    out = classify.classify(call, roots, "2026-11-30T10:00:00.000Z", home=home)
    return [(r["path"], r["exact"]) for r in out.records if r["kind"] == "evidence"]


@pytest.mark.parametrize(("agent", "tool"), [("cursor", "Shell"), ("copilot", "powershell"),
                                             ("copilot", "run_in_terminal"), ("codex", "Bash"),
                                             ("codebuddy", "execute_command"), ("claude", "PowerShell")])
@pytest.mark.parametrize("command", [r"cat learnings\redis-timeout.md", r"type .\learnings\redis-timeout.md",
                                     r"Get-Content C:\Users\ana\team\learnings\redis-timeout.md",
                                     r"cat 'C:\Users\ana\team\learnings\redis-timeout.md'"])
def test_windows_paths_in_the_shells_of_a_windows_host(agent: str, tool: str, command: str) -> None:
    assert shell_evidence(agent, tool, command, WIN_ROOT) == [(WIN_DOC, True)]
    assert shell_evidence(agent, tool, command, None) == [(WIN_DOC, True)] if "C:" in command \
        else shell_evidence(agent, tool, command, None) == [("learnings/redis-timeout.md", False)]


def test_a_bash_tool_on_a_windows_host_keeps_posix_quoting() -> None:
    # Git Bash removes these backslashes, so cat was given another name, never the doc's.
    assert shell_evidence("claude", "Bash", r"cat learnings\redis-timeout.md", WIN_ROOT) == [
        ("C:/Users/ana/team/learningsredis-timeout.md", True)]
    assert shell_evidence("claude", "Bash", "cat learnings/redis-timeout.md", WIN_ROOT) == [(WIN_DOC, True)]


def test_a_posix_host_keeps_posix_quoting_for_generic_shell_tools() -> None:
    assert shell_evidence("cursor", "Shell", r"cat learnings\redis-timeout.md", "/srv/team", ("/srv/team",)) == [
        ("/srv/team/learningsredis-timeout.md", True)]


# --- the home folder --------------------------------------------------------------------------------

@pytest.mark.parametrize("command", ["cat ~/team/learnings/redis-timeout.md",
                                     "head -n 5 ~/team/learnings/redis-timeout.md"])
def test_a_tilde_home_prefix_reads_the_file_in_home_like_a_read_tool(command: str, tmp_path) -> None:  # type: ignore[no-untyped-def]
    home = tmp_path / "home"
    root = home / "team"
    (root / "learnings").mkdir(parents=True)
    found = shell_evidence("claude", "Bash", command, "/elsewhere", (str(root),), home=str(home))
    assert found == [(str(root / "learnings" / "redis-timeout.md"), True)]
    read = ToolCall(agent="claude", event="post-tool-use", session="s", actor={}, tool="Read", category="read",
                    paths=("~/team/learnings/redis-timeout.md",), status=SUCCESS, cwd="/elsewhere")
    records = classify.classify(read, (str(root),), "2026-11-30T10:00:00.000Z", home=str(home)).records
    assert [(r["path"], r["exact"]) for r in records] == found


def test_a_quoted_tilde_is_a_folder_named_tilde(tmp_path) -> None:  # type: ignore[no-untyped-def]
    root = tmp_path / "team"
    found = shell_evidence("claude", "Bash", "cat '~/learnings/x.md'", str(root), (str(root),),
                           home=str(tmp_path / "home"))
    assert found == [(str(root / "~" / "learnings" / "x.md"), True)]


@pytest.mark.parametrize("command", ["cat ~bob/x.md", "cat ~+/x.md", "cat ~/$X.md"])
def test_other_tilde_forms_are_not_literal(command: str) -> None:
    action = shell.analyze(command)
    assert action.kind == shell.READ and not any(w.literal for w in action.operands)


# --- wrappers: in front of a reader and in front of recall alike ---------------------------------

WRAPPED = [
    "timeout 30 {}", "timeout -s KILL -k 5 2m {}", "timeout --preserve-status 10s {}", "timeout --signal=TERM 1.5 {}",
    "nice {}", "nice -n 10 {}", "nice -10 {}", "nice --adjustment=5 {}", "nice -n5 {}",
    "command {}", "command -p {}",
    "env {}", "env A=1 B=2 {}", "env -u HOME {}", "env -i PATH=/bin {}",
    "sudo {}", "sudo -u ana {}", "sudo -E -H -n {}", "sudo --user=ana --preserve-env {}", "sudo -g staff -- {}",
    "time {}", "time -p {}", "nohup {}", "exec {}", "exec -a name {}",
    "A=1 timeout 5 nice -n 3 env B=2 command sudo -u ana {}",
]


@pytest.mark.parametrize("form", WRAPPED)
def test_a_wrapper_in_front_of_a_reader_is_looked_through(form: str) -> None:
    action = shell.analyze(form.format(f"cat {DOC}"))
    assert action.kind == shell.READ and action.simple
    assert [w.text for w in action.operands] == [DOC]


@pytest.mark.parametrize("form", WRAPPED)
def test_a_wrapper_in_front_of_recall_is_looked_through(form: str) -> None:
    assert claims.invokes_recall(form.format('teamai recall "redis timeout"'))


NOT_RUN = ["command -v {}", "command -V {}", "sudo -l {}", "sudo -e {}", "sudo -v {}", "sudo -K {}",
           "sudo -V {}", "timeout {}", "timeout --help {}", "nice -n {}", "sudo -i {}", "sudo -R /x {}",
           "sudo --login {}", "sudo -s -i {}"]


@pytest.mark.parametrize("form", NOT_RUN)
def test_a_wrapper_that_does_not_run_the_command_here_never_counts(form: str) -> None:
    assert shell.analyze(form.format(f"cat {DOC}")).kind != shell.READ
    assert not claims.invokes_recall(form.format('teamai recall "redis timeout"'))


@pytest.mark.parametrize("form", ["env -C team {}", "env --chdir=team {}", "sudo -D team {}",
                                  "sudo --chdir=team {}"])
def test_a_wrapper_that_moves_the_folder_moves_the_base(form: str) -> None:
    action = shell.analyze(form.format("cat learnings/x.md"))
    assert action.kind == shell.READ and action.chdir == "team"
    assert claims.invokes_recall(form.format("teamai recall x"))
    found = shell_evidence("claude", "Bash", form.format("cat learnings/x.md"), "/srv", ("/srv/team",))
    assert found == [("/srv/team/learnings/x.md", True)]


@pytest.mark.parametrize("form", ["xargs {}", "watch {}", "strace {}", "stdbuf -oL {}", "ionice -c3 {}",
                                  "su -c {}"])
def test_other_programs_in_front_are_not_wrappers(form: str) -> None:
    assert shell.analyze(form.format(f"cat {DOC}")).kind == shell.OTHER


@pytest.mark.parametrize("line, assigns, words", [
    ("A=b cat x.md", ("A=b",), ["cat", "x.md"]),
    ("'A=b' cat x.md", (), ["A=b", "cat", "x.md"]),
    ('"A"=b cat x.md', (), ["A=b", "cat", "x.md"]),
    ("A\\=b cat x.md", (), ["A=b", "cat", "x.md"]),
    ("A='b c' cat x.md", ("A=b c",), ["cat", "x.md"]),
])
def test_only_an_unquoted_name_and_equals_sign_make_an_assignment(line, assigns, words):
    (cmd,) = shell_syntax.parse(line).commands()
    assert cmd.assignments == assigns and [w.text for w in cmd.words] == words
