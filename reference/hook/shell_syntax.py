"""A shell command line split the way the shell splits it: words, operators, commands, pipelines.

The hook decides what a shell call did from the line's structure, never from substrings, and this
module gives it that structure; which of the commands found read, search or list files is decided
by ``shell.py`` (the read rules), and ``claims.py`` finds ``teamai recall`` in the same commands.

:func:`parse` splits a line into pipelines joined by list operators. Anything that makes the outcome
depend on another command (``&&``, ``||``, ``;``, ``&``, a subshell, a group, ``$( )``, backticks,
process substitution, a second command on another line) makes the line *compound*
(``Parsed.compound``). Comment lines and blank lines run nothing, so ``# note`` on one line and
``cat doc`` on the next is one simple command; a newline right after ``|``, ``&&`` or ``||``
continues the line. A line that does not parse (an unbalanced quote, a dangling operator, longer
than ``MAX_COMMAND``) is *broken*.

The tokenizer follows POSIX sh quoting (single quotes, double quotes with their four escapes,
backslash outside quotes) and, for PowerShell, PowerShell's (backslash is an ordinary character, the
backtick escapes). A word whose value the shell would still expand (``$VAR``, a glob, ``~user``,
braces) is kept but marked not literal: we cannot know which file it names. An unquoted ``~`` or
``~/`` at the start of a word is the home folder (``Word.home``): the hook expands it with the agent's
HOME, exactly as it expands a Read tool's ``~/``, so the two count alike; a quoted ``~`` is a folder
named ``~``.

:func:`split_args` splits a command's arguments into options and operands as most programs take
them, given which options take a value (``-n 5``, ``-n5``, ``--lines=5``, ``--lines 5``); ``--`` ends
the options.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False  # typing is imported only by type checkers: it costs a fresh process ~4 ms
if TYPE_CHECKING:
    from typing import NamedTuple
else:
    from .._tuples import NamedTuple

POSIX, POWERSHELL = "posix", "powershell"


class Word(NamedTuple):
    text: str
    literal: bool  # False when the shell would still expand it (variable, glob, ``~user``, braces)
    home: bool = False  # starts with an unquoted ``~`` or ``~/``: the home folder (see SHELL-HOME-TILDE)
    assignment: bool = False  # ``NAME=…`` with the name and ``=`` unquoted: in front of a command, an assignment


class Command(NamedTuple):
    assignments: tuple[str, ...]
    words: tuple[Word, ...]
    redirects: tuple[tuple[str, str], ...]  # (operator with its fd, target)


class Parsed(NamedTuple):
    """A command line split into pipelines joined by list operators."""

    pipelines: tuple[tuple[Command, ...], ...]
    operators: tuple[str, ...]  # list operators and grouping seen: && || ; & \n ( ) { }
    substitution: bool  # $( ), backticks, <( ), >( )
    broken: bool  # unbalanced quotes, a dangling operator

    @property
    def compound(self) -> bool:
        return bool(self.operators) or self.substitution or len(self.pipelines) != 1

    def commands(self) -> tuple[Command, ...]:
        """Every command the line runs directly (not those inside substitutions)."""
        return tuple(c for p in self.pipelines for c in p)


_OPS = ("&&", "||", "|&", ";;", "<<<", "<<-", "&>>", "<<", ">>", ">&", "<&", "&>", ">|", "<>",
        "|", "&", ";", "(", ")", "<", ">", "\n")
_REDIRECT_OPS = frozenset({"<<<", "<<-", "&>>", "<<", ">>", ">&", "<&", "&>", ">|", "<>", "<", ">"})
_OP_CHARS = frozenset("&|;()<>\n")
_GLOB_CHARS = frozenset("*?[]{}")
# A longer line is not parsed at all (it is treated as broken, so it never counts): real reads and
# recalls are short, and the hook must stay fast whatever a payload holds.
MAX_COMMAND = 64 * 1024


def tokenize(text: str, dialect: str = POSIX) -> tuple[list[Word | str], bool, bool]:
    """(tokens, substitution seen, broken). Operators come back as ``str``, words as :class:`Word`."""
    ps = dialect == POWERSHELL
    escape = "`" if ps else "\\"
    tokens: list[Word | str] = []
    buf: list[str] = []
    literal = True
    started = False  # a word is in progress (even an empty quoted one)
    quoted_any = False
    subst = False
    i, n = 0, len(text)

    home = False  # the word began with an unquoted home prefix
    quoted_at = -1  # how much of the word was read before its first quote or escape (-1: none)

    def flush() -> None:
        nonlocal buf, literal, started, quoted_any, home, quoted_at
        if started:
            word = "".join(buf)
            named = _ASSIGN.match(word) is not None and (quoted_at < 0 or word.index("=") < quoted_at)
            tokens.append(Word(word, literal, home and literal, named))
        buf, literal, started, quoted_any, home, quoted_at = [], True, False, False, False, -1

    def quoting() -> None:
        nonlocal quoted_at
        if quoted_at < 0:
            quoted_at = sum(map(len, buf))

    while i < n:
        ch = text[i]
        if ch in " \t\r":
            flush()
            i += 1
            continue
        if ch == "#" and not started:
            while i < n and text[i] != "\n":
                i += 1
            continue
        if ch == escape:
            if i + 1 < n:
                if text[i + 1] == "\n":
                    i += 2
                    continue
                quoting()
                buf.append(text[i + 1])
                started = True
                i += 2
                continue
            buf.append(ch)
            started = True
            i += 1
            continue
        if not ps and ch == "`":
            subst = True
            literal = False
            started = True
            end = text.find("`", i + 1)
            if end < 0:
                return tokens, True, True
            i = end + 1
            continue
        if ch == "'":
            end = text.find("'", i + 1)
            if end < 0:
                return tokens, subst, True
            quoting()
            buf.append(text[i + 1:end])
            started = quoted_any = True
            i = end + 1
            continue
        if ch == '"':
            quoting()
            i += 1
            started = quoted_any = True
            while True:
                if i >= n:
                    return tokens, subst, True
                c = text[i]
                if c == '"':
                    i += 1
                    break
                if c == escape and i + 1 < n:
                    nxt = text[i + 1]
                    if ps or nxt in '"\\$`\n':
                        if nxt != "\n":
                            buf.append(nxt)
                        i += 2
                        continue
                    buf.append(c)
                    i += 1
                    continue
                if c == "`" and not ps:
                    subst = True
                    literal = False
                    end = text.find("`", i + 1)
                    if end < 0:
                        return tokens, True, True
                    i = end + 1
                    continue
                if c == "$" and i + 1 < n:
                    if text[i + 1] == "(":
                        subst = True
                    if text[i + 1] == "(" or text[i + 1] == "{" or text[i + 1].isalnum() or text[i + 1] in "_?@*#!$-":
                        literal = False
                buf.append(c)
                i += 1
            continue
        if ch == "$" and i + 1 < n:
            nxt = text[i + 1]
            if nxt == "(":
                subst = True
                literal = False
                depth, j = 0, i + 1
                while j < n:  # skip to the matching parenthesis
                    if text[j] == "(":
                        depth += 1
                    elif text[j] == ")":
                        depth -= 1
                        if depth == 0:
                            break
                    j += 1
                if j >= n:
                    return tokens, True, True
                buf.append(text[i:j + 1])
                started = True
                i = j + 1
                continue
            if nxt == "{" or nxt.isalnum() or nxt in "_?@*#!$-'\"":
                literal = False
        if ch in "<>" and i + 1 < n and text[i + 1] == "(" and not ps:
            subst = True
            flush()
            return tokens, True, False
        op = next((o for o in _OPS if text.startswith(o, i)), None) if ch in _OP_CHARS else None
        if op is not None and not (ps and op in ("<", "<<", "<<-", "<<<", "<&", "<>")):
            fd = ""
            if op in _REDIRECT_OPS and started and not quoted_any and buf and "".join(buf).isdigit():
                fd = "".join(buf)
                buf, started = [], False
            flush()
            tokens.append(fd + op)
            i += len(op)
            continue
        if ch == "~" and not started:
            nxt = text[i + 1] if i + 1 < n else " "
            if nxt in " \t\r/" or nxt in _OP_CHARS or (ps and nxt == "\\"):
                home = True  # ``~`` or ``~/``: the home folder, which the hook knows (pathmatch.resolve)
            else:
                literal = False  # ``~user``, ``~+``: another folder the shell picks
        if ch in _GLOB_CHARS:
            literal = False
        buf.append(ch)
        started = True
        i += 1
    flush()
    return tokens, subst, False


def parse(text: str, dialect: str = POSIX) -> Parsed:
    if len(text) > MAX_COMMAND:
        return Parsed((), (), False, True)
    tokens, subst, broken = tokenize(text.strip(), dialect)
    pipelines: list[tuple[Command, ...]] = []
    operators: list[str] = []
    stages: list[Command] = []
    assigns: list[str] = []
    words: list[Word] = []
    redirects: list[tuple[str, str]] = []
    pending: str | None = None  # a redirection waiting for its target

    def end_command() -> bool:
        nonlocal assigns, words, redirects
        empty = not (assigns or words or redirects)
        if not empty:
            stages.append(Command(tuple(assigns), tuple(words), tuple(redirects)))
        assigns, words, redirects = [], [], []
        return not empty

    previous: Word | str | None = None
    separated = False  # a newline ended a command; it joins two only when another command follows
    for tok in tokens:
        last, previous = previous, tok
        if tok == "\n":
            # A newline at the start, after another newline, or after |, && or || joins nothing
            # (comment lines and blank lines leave only newlines); after a command it separates it
            # from whatever comes next, which is decided when something does.
            if last is None or (isinstance(last, str) and last.lstrip("0123456789") in ("\n", "|", "|&", "&&", "||")):
                previous = last
                continue
            if pending is not None:
                broken = True
                pending = None
            end_command()
            if stages:
                pipelines.append(tuple(stages))
                stages = []
            separated = True
            continue
        if separated:
            operators.append("\n")
            separated = False
        if isinstance(tok, Word):
            if pending is not None:
                redirects.append((pending, tok.text))
                pending = None
            elif not words and tok.assignment:
                assigns.append(tok.text)
            else:
                if not words and not tok.literal and tok.text in ("{", "}"):  # unquoted: a group
                    operators.append(tok.text)
                    continue
                words.append(tok)
            continue
        if pending is not None:
            broken = True
            pending = None
        op = tok.lstrip("0123456789")
        if op in _REDIRECT_OPS:
            pending = tok
        elif op in ("|", "|&"):
            if not end_command():
                broken = True
        else:
            end_command()
            if stages:
                pipelines.append(tuple(stages))
                stages = []
            operators.append(op)
    if pending is not None:
        broken = True
    ended = end_command()
    if stages and not ended:
        broken = True  # a pipe into nothing, whatever comment or blank lines follow it
    if ended or stages:
        pipelines.append(tuple(stages))
    elif operators and operators[-1] in ("&&", "||"):
        broken = True
    return Parsed(tuple(pipelines), tuple(operators), subst, broken)


_ASSIGN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*\+?=")


def verb_name(word: str) -> str:
    """The base name a command is known by: no folders, no ``.exe``."""
    base = re.split(r"[\\/]", word)[-1]
    if base.lower().endswith(".exe"):
        base = base[:-4]
    return base


class _Options(NamedTuple):
    short_values: str  # short options that take a value
    long_values: frozenset[str]  # long options that take a value (without the leading --)


def split_args(args: tuple[Word, ...], opts: _Options, plus_prefix: str = ""
               ) -> tuple[list[tuple[str, str | None]], list[Word]]:
    """(options as (name, value), operands). ``--`` ends the options. A word starting with
    ``plus_prefix`` (when given) is an option too: ``+`` for less, which runs any such word as a
    command; ``+/`` for more, whose ``+/pattern`` searches while util-linux more shows
    ``+notes.md`` as a file. A count ``+N`` (more's, GNU tail's) is otherwise an operand, which
    names no doc (a doc's name ends in ``.md``), so it needs no rule of its own."""
    found: list[tuple[str, str | None]] = []
    operands: list[Word] = []
    i = 0
    only_operands = False
    while i < len(args):
        w = args[i]
        t = w.text
        i += 1
        if only_operands or t == "-" or not (t.startswith("-") or (plus_prefix and t.startswith(plus_prefix))):
            operands.append(w)
            continue
        if t == "--":
            only_operands = True
            continue
        if t.startswith("--"):
            name, eq, value = t[2:].partition("=")
            if eq:
                found.append(("--" + name, value))
            elif name in opts.long_values and i < len(args):
                found.append(("--" + name, args[i].text))
                i += 1
            else:
                found.append(("--" + name, None))
            continue
        if t.startswith("+") or t[1:].isdigit():  # +N / -N (head -5, less +G)
            found.append((t, None))
            continue
        for k, ch in enumerate(t[1:], 1):
            if ch in opts.short_values:
                rest = t[k + 1:]
                if rest:
                    found.append(("-" + ch, rest))
                elif i < len(args):
                    found.append(("-" + ch, args[i].text))
                    i += 1
                else:
                    found.append(("-" + ch, None))
                break
            found.append(("-" + ch, None))
    return found, operands
