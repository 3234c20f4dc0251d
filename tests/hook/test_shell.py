"""The shell rule: a command line counts as a read only when exactly one reader shows the doc as a
file operand (or a pipeline starts with one); anything compound never counts."""

from __future__ import annotations

import shlex

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference.hook import shell, shell_syntax

DOC = "learnings/redis-timeout.md"


def read_operands(command: str, dialect: str = shell_syntax.POSIX) -> list[str] | None:
    action = shell.analyze(command, dialect)
    if action.kind != shell.READ:
        return None
    return [w.text for w in action.operands if w.literal]


# --- the acceptance cases ----------------------------------------------------------------------

def test_bobs_sed_print_form_counts() -> None:
    action = shell.analyze(f"sed -n '1,80p' {DOC}")
    assert action.kind == shell.READ and action.simple
    assert [w.text for w in action.operands] == [DOC]


def test_bobs_compound_command_does_not_count() -> None:
    action = shell.analyze(f"test -e x && cat {DOC} || true")
    assert action.kind == shell.COMPOUND
    assert action.operands == ()


# --- every read verb ---------------------------------------------------------------------------

@pytest.mark.parametrize("command", [
    f"cat {DOC}", f"bat {DOC}", f"batcat {DOC}", f"less {DOC}", f"more {DOC}", f"head {DOC}",
    f"tail {DOC}", f"nl {DOC}", f"sed -n 5p {DOC}", f"sed -n '$p' {DOC}", f"sed -n '1,80p' {DOC}",
    f"sed -n -e '1,80p' {DOC}", f"sed -ne 5p {DOC}", f"sed --quiet '10,+5p' {DOC}",
    f"sed -n '1,80p;80q' {DOC}", f"sed -n '/redis/p' {DOC}", f"sed -n -E '3p' {DOC}",
    f"sed -n '1~2p' {DOC}", f"sed -n '$!p' {DOC}", f"sed -n '/^#/!p' {DOC}", f"sed -n '1 ! p' {DOC}",
    f"sed -n '/REDIS/Ip' {DOC}", f"sed -n '\\,redis,p' {DOC}", f"sed -n '1,~4p' {DOC}", f"sed -n '0,/x/p' {DOC}",
    f"Get-Content {DOC}", f"gc {DOC}", f"type {DOC}", f"GET-CONTENT {DOC}", f"get-content -Path {DOC}",
    f"Get-Content -TotalCount 20 {DOC}", f"Get-Content -LiteralPath {DOC} -Raw",
])
def test_every_read_verb_reads_its_file_operand(command: str) -> None:
    assert read_operands(command) == [DOC]


@pytest.mark.parametrize(("command", "operands"), [
    (f"head -n 5 {DOC}", [DOC]),
    (f"head -n5 {DOC}", [DOC]),
    (f"head -5 {DOC}", [DOC]),
    (f"head --lines 5 {DOC}", [DOC]),
    (f"head --lines=5 {DOC}", [DOC]),
    (f"tail -n 20 -f {DOC}", [DOC]),
    (f"tail +3 {DOC}", ["+3", DOC]),  # tail's old +N count: an operand here, which names no doc
    ("tail +notes.md", ["+notes.md"]),  # GNU tail reads a +word that is no count as a file
    ("less +notes.md", []),  # less runs any +word as a command
    ("more +/redis docs/a.md", ["docs/a.md"]),  # more takes +/pattern, and shows +notes.md as a file
    ("more +notes.md", ["+notes.md"]),
    (f"bat -l md --style plain {DOC}", [DOC]),
    (f"bat --line-range 1:40 {DOC}", [DOC]),
    (f"nl -ba -w 3 {DOC}", [DOC]),
    (f"less -N +G {DOC}", [DOC]),
    (f"cat -n {DOC} docs/a.md", [DOC, "docs/a.md"]),
    (f"cat -- -odd.md {DOC}", ["-odd.md", DOC]),
    ("head -n learnings/x.md", []),
    (f"bat -d {DOC}", [DOC]),  # bat's -d is --diff, a switch
    (f"bat --gitsigns modern {DOC}", [DOC]),
    (f"less -D Nk {DOC}", [DOC]),
    (f"less -\\\" '<>' {DOC}", [DOC]),
    (f"less --lesskey-file keys {DOC}", [DOC]),
    (f"less --color Nk {DOC}", [DOC]),
    (f"less --quotes '<>' {DOC}", [DOC]),
    (f"less --line-num-width 4 --status-col-width 2 {DOC}", [DOC]),
    (f"less --rscroll - --wheel-lines 3 {DOC}", [DOC]),
])
def test_option_values_are_not_file_operands(command: str, operands: list[str]) -> None:
    assert read_operands(command) == operands


def test_a_doc_given_as_an_option_value_is_not_read() -> None:
    # head -c takes the doc name as its byte count here: nonsense, but not a read of the doc.
    assert read_operands(f"head -c {DOC} other.txt") == ["other.txt"]


@pytest.mark.parametrize("command", [
    f"sed -i -n 1p {DOC}", f"sed -ni 1p {DOC}", f"sed --in-place -n 1p {DOC}", f"sed -n -i.bak 1p {DOC}",
    f"sed 1,80p {DOC}", f"sed -n 's/a/b/p' {DOC}", f"sed -n 1d {DOC}", f"sed -n -f script.sed {DOC}",
    f"sed -n '1,80p;s/x/y/' {DOC}", f"sed -n 5q {DOC}", "sed -n", f"sed -n '!p' {DOC}", f"sed -n '2,4{{p}}' {DOC}",
])
def test_sed_outside_the_print_form_is_not_a_read(command: str) -> None:
    assert shell.analyze(command).kind == shell.OTHER


@pytest.mark.parametrize("command", [
    f"/usr/bin/cat {DOC}", f"/bin/head -n 3 {DOC}", f"./bin/bat {DOC}", f"C:/tools/cat.exe {DOC}",
    f"A=1 cat {DOC}", f"LC_ALL=C B='x y' head {DOC}", f"env LC_ALL=C cat {DOC}", f"command cat {DOC}",
    f"time cat {DOC}", f"nohup cat {DOC}", f"exec cat {DOC}", f"cat {DOC} 2>/dev/null", f"cat {DOC} 2>&1",
    f"cat '{DOC}'", f'cat "{DOC}"', "cat learnings/redis\\-timeout.md", "cat lear'nings/redis-timeout'.md",
])
def test_paths_wrappers_quotes_and_harmless_redirections_still_read(command: str) -> None:
    assert read_operands(command) == [DOC]


@pytest.mark.parametrize("command", [f"cat {DOC} | head -20", f"cat {DOC} | grep redis | wc -l",
                                     f"head -n 40 {DOC} | tail -5"])
def test_a_pipeline_starting_with_a_reader_reads_but_is_not_simple(command: str) -> None:
    action = shell.analyze(command)
    assert action.kind == shell.READ and not action.simple
    assert [w.text for w in action.operands] == [DOC]


@pytest.mark.parametrize("command", [f"echo x | cat {DOC}", f"ls | head {DOC}", f"true | sed -n 1p {DOC}"])
def test_a_pipeline_not_starting_with_a_reader_never_reads(command: str) -> None:
    assert shell.analyze(command).kind in (shell.OTHER, shell.LIST)


@pytest.mark.parametrize("command", [
    f"test -e x && cat {DOC}", f"cat {DOC} || true", f"cat {DOC}; echo done", f"cat {DOC} &",
    f"(cat {DOC})", f"{{ cat {DOC}; }}", f"cat $(echo {DOC})", f"cat `echo {DOC}`", f"echo $(cat {DOC})",
    f"cat <(cat {DOC})", f"cat {DOC}\necho x", f'cat "$(pwd)/{DOC}"', f"cat {DOC};",
])
def test_compound_commands_never_count(command: str) -> None:
    assert shell.analyze(command).kind == shell.COMPOUND


@pytest.mark.parametrize("command", [f"cat {DOC} > copy.md", f"cat {DOC} >> log", f"cat {DOC} &> /dev/null",
                                     f"cat {DOC} 1>/tmp/x", f"cat {DOC} >&2"])
def test_output_redirected_away_is_not_a_read(command: str) -> None:
    assert shell.analyze(command).kind == shell.OTHER


def test_input_redirection_is_not_a_file_operand() -> None:
    assert read_operands(f"cat < {DOC}") == []


@pytest.mark.parametrize("command", [f"cat $HOME/{DOC}", f"cat ~bob/{DOC}", "cat learnings/*.md",
                                     "cat learnings/{a,b}.md", f'cat "${{DIR}}/{DOC}"'])
def test_words_the_shell_expands_are_not_literal(command: str) -> None:
    action = shell.analyze(command)
    assert action.kind == shell.READ
    assert all(not w.literal for w in action.operands)


@pytest.mark.parametrize("command", ["echo 'open", 'cat "open', f"cat {DOC} |", f"cat {DOC} &&", "cat `x",
                                     f"cat {DOC} >", f"cat {DOC} |\n# nothing after it", f"cat {DOC} |&\n\n",
                                     f"cat {DOC} |\n  \n# nor here\n"])
def test_broken_lines_never_count(command: str) -> None:
    assert shell.analyze(command).kind == shell.COMPOUND


def test_powershell_keeps_backslashes_and_uses_the_backtick_as_escape() -> None:
    assert read_operands(r"Get-Content C:\team\learnings\redis-timeout.md", shell_syntax.POWERSHELL) == [
        r"C:\team\learnings\redis-timeout.md"]
    assert read_operands(r"cat 'C:\team\a b.md'", shell_syntax.POWERSHELL) == [r"C:\team\a b.md"]
    assert read_operands("cat C:\\x`y.md", shell_syntax.POWERSHELL) == ["C:\\xy.md"]
    assert read_operands("Get-Content -Path a.md,b.md", shell_syntax.POWERSHELL) == ["a.md", "b.md"]


def test_a_powershell_cmdlet_in_a_posix_shell_tool_is_read_as_powershell() -> None:
    assert read_operands(r"Get-Content C:\team\x.md") == [r"C:\team\x.md"]


def test_posix_backslash_escapes_and_double_quote_rules() -> None:
    assert read_operands(r'cat "a\"b.md"') == ['a"b.md']
    assert read_operands(r'cat "a\nb.md"') == [r"a\nb.md"]
    assert read_operands(r"cat 'a\b.md'") == [r"a\b.md"]
    assert read_operands("cat a\\ b.md") == ["a b.md"]


# --- search and list verbs ---------------------------------------------------------------------

@pytest.mark.parametrize(("command", "verb", "paths", "mode"), [
    (f"grep -n redis {DOC}", "grep", [DOC], "content"),
    (f"egrep 'a|b' {DOC} docs/x.md", "egrep", [DOC, "docs/x.md"], "content"),
    ("fgrep -r redis learnings", "fgrep", ["learnings"], "content"),
    (f"rg -n redis {DOC}", "rg", [DOC], "content"),
    ("rg -e redis -e timeout learnings docs", "rg", ["learnings", "docs"], "content"),
    (f"rg -A 3 -t md redis {DOC}", "rg", [DOC], "content"),
    (f"ag redis {DOC}", "ag", [DOC], "content"),
    (f"ack redis {DOC}", "ack", [DOC], "content"),
    (f"git grep -n redis -- {DOC}", "git grep", [DOC], "content"),
    (f"grep -c redis {DOC}", "grep", [DOC], "count"),
    (f"rg --count redis {DOC}", "rg", [DOC], "count"),
    (f"rg --count-matches redis {DOC}", "rg", [DOC], "count"),
    (f"git grep -c redis {DOC}", "git grep", [DOC], "count"),
    (f"grep -l redis {DOC}", "grep", [DOC], "files"),
    ("rg --files-with-matches redis learnings", "rg", ["learnings"], "files"),
    (f"grep -q redis {DOC}", "grep", [DOC], "files"),
])
def test_search_verbs(command: str, verb: str, paths: list[str], mode: str) -> None:
    action = shell.analyze(command)
    assert action.kind == shell.SEARCH
    assert action.verb == verb
    assert [w.text for w in action.operands] == paths
    assert action.mode == mode


def test_git_dash_c_moves_the_base_of_a_git_grep() -> None:
    action = shell.analyze("git -C team grep -n redis")
    assert action.kind == shell.SEARCH and action.chdir == "team"


def test_ack_match_names_the_pattern_so_every_other_word_is_a_path() -> None:
    assert [w.text for w in shell.analyze(f"ack --match redis {DOC}").operands] == [DOC]
    assert [w.text for w in shell.analyze(f"ack redis {DOC}").operands] == [DOC]


@pytest.mark.parametrize(("command", "kind"), [
    ("git --exec-path=/usr/lib/git-core grep -n redis", shell.SEARCH),
    ("git --exec-path /usr/lib/git-core grep -n redis", shell.OTHER),  # alone it prints git's folder
    ("git --namespace team grep -n redis", shell.SEARCH),
    ("git --git-dir .git --work-tree . grep -n redis", shell.SEARCH),
])
def test_git_options_take_a_next_word_only_where_git_does(command: str, kind: str) -> None:
    assert shell.analyze(command).kind == kind


@pytest.mark.parametrize("command", [f"grep redis {DOC} | head", f"rg -n x {DOC} | wc -l"])
def test_a_pipeline_starting_with_a_search_does_not_count(command: str) -> None:
    assert shell.analyze(command).kind == shell.OTHER


@pytest.mark.parametrize("command", ["ls learnings", "ls -la learnings/", "find . -name '*.md'", "fd redis",
                                     "fdfind redis", "tree learnings", "rg --files", "rg --files learnings",
                                     "git ls-files", "git -C team ls-files '*.md'", "ag -g redis", "ack -f",
                                     "/usr/bin/find learnings"])
def test_list_verbs_never_read(command: str) -> None:
    assert shell.analyze(command).kind == shell.LIST


@pytest.mark.parametrize("command", ["echo learnings/redis-timeout.md", "vim learnings/x.md", "git show HEAD",
                                     "python -c 'print(1)'", "teamai recall redis"])
def test_other_commands_are_neither(command: str) -> None:
    assert shell.analyze(command).kind == shell.OTHER


@pytest.mark.parametrize("command", ["", "   ", "# only a comment", "A=1"])
def test_empty_commands(command: str) -> None:
    assert shell.analyze(command).kind == shell.EMPTY


# --- properties --------------------------------------------------------------------------------

_word = st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=12)


@settings(max_examples=200, deadline=None)
@given(st.lists(_word, min_size=1, max_size=6))
def test_words_quoted_by_shlex_come_back_unchanged(words: list[str]) -> None:
    parsed = shell_syntax.parse(shlex.join(words))
    assert not parsed.broken and not parsed.compound
    (command,) = parsed.commands()
    got = list(command.assignments) + [w.text for w in command.words]
    assert got == words
    assert all(w.literal for w in command.words)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=80), st.sampled_from([shell_syntax.POSIX, shell_syntax.POWERSHELL]))
def test_any_text_parses_without_an_exception(text: str, dialect: str) -> None:
    action = shell.analyze(text, dialect)
    assert action.kind in (shell.READ, shell.SEARCH, shell.LIST, shell.OTHER, shell.COMPOUND, shell.EMPTY)


@settings(max_examples=150, deadline=None)
@given(st.lists(_word, min_size=0, max_size=3), st.sampled_from(["&&", "||", ";", "&", "\n"]),
       st.lists(_word, min_size=1, max_size=3))
def test_a_list_operator_between_commands_always_makes_it_compound(before: list[str], op: str,
                                                                    after: list[str]) -> None:
    line = f"cat {shlex.quote(DOC)} {shlex.join(before)} {op} {shlex.join(after)}"
    assert shell.analyze(line).kind == shell.COMPOUND


@settings(max_examples=150, deadline=None)
@given(st.lists(_word, min_size=0, max_size=4))
def test_a_reader_reads_every_quoted_operand_after_double_dash(names: list[str]) -> None:
    assert read_operands("cat -- " + shlex.join(names)) == names


def test_a_command_longer_than_the_cap_is_never_analyzed() -> None:
    long_line = f"cat {DOC} " + "x" * shell_syntax.MAX_COMMAND
    assert shell.analyze(long_line).kind == shell.COMPOUND
    assert shell.analyze(f"cat {DOC} " + "x" * 1000).kind == shell.READ
