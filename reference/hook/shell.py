"""What a shell command line did, as far as adoption is concerned: parsed, never substring-matched.

A command counts as a read only when the shell would run exactly one reader on the doc as a file
operand, or a pipeline whose first command is such a reader. Anything that makes the outcome depend
on another command (``&&``, ``||``, ``;``, ``&``, a subshell, a group, ``$( )``, backticks, process
substitution, a second command on another line) makes the line *compound*, and a compound line never
counts: in ``test -e x && cat doc || true`` the ``cat`` may never have run. ``shell_syntax.py``
splits the line into words, commands and pipelines and says whether it is compound (quoting, comment
lines, ``~/`` as the home folder); this module decides what the commands it found did.

Which shell (:func:`dialect`). A tool named PowerShell (Claude's, Copilot's ``powershell``) is read
as PowerShell. A tool named Bash is a POSIX shell, Git Bash on Windows included (a backslash there
is an escape, so ``cat a\\b.md`` names ``ab.md``), except Codex's: Codex calls its shell tool Bash
whatever shell it runs. Every other shell tool (Cursor's Shell, VS Code's ``run_in_terminal``,
CodeBuddy's ``execute_command``, Codex's) runs the host's shell, which on Windows is PowerShell (cmd
treats backslashes the same way). The payload never says which host ran it, so the paths decide:
the host is Windows when the call's folder is a Windows path (a drive letter or a UNC share) or,
when the call names no folder, when the knowledge roots are (``pathmatch.windows_host``).

Verbs (the command's base name, so ``/usr/bin/cat`` is ``cat``):

======  =====================================================================================
read    cat bat batcat less more head tail nl; ``sed -n`` with only print commands (never
        ``-i``), each with any address sed takes (``N``, ``$``, ``first~step``, ``/re/`` or
        ``\\%re%`` with ``I``/``M``, a range, a ``!`` after it); Get-Content, gc, type (any letter
        case), and cat in PowerShell, where it is Get-Content. The doc must be a file operand,
        not an option's value (``head -n 5 doc``: ``5`` is the value of ``-n``). Get-Content's
        parameters bind as PowerShell binds them: ``-LiteralPath:doc`` (a colon-bound value)
        and ``-Lit doc`` (a unique prefix).
search  rg grep egrep fgrep ag ack, ``git grep``: decided by the search rule on the output.
list    ls find fd fdfind tree, ``rg --files``, ``git ls-files``, ``ag -g``, ``ack -f/-g``:
        never evidence.
======  =====================================================================================

Wrappers (:func:`unwrap`, which serves both :func:`analyze` and ``claims.invokes_recall``, so a
wrapper means the same in front of a reader and in front of ``teamai recall``). ``NAME=value``
assignments and programs that run their command in the same folder with its output to the agent
are looked through: ``env [-i] [-u NAME] [NAME=value]…``, ``command [-p]``, ``exec``, ``builtin``,
``time``, ``nohup``, ``timeout [options] DURATION``, ``nice [-n N | -N]``, and ``sudo`` with options
that choose the user, group, prompt or environment (the doc's text reached the agent whoever opened
it; a ``sudo teamai recall`` that wrote its run into another user's state names a run the local log
does not hold, and such a claim settles nothing). ``env -C DIR`` and ``sudo -D DIR`` move the
folder relative operands are resolved against, as ``git -C DIR`` does. Forms that run nothing
(``command -v``, ``sudo -l/-v/-e/-K/-V/-h``, ``timeout`` without a duration, ``--help``) or run it
where the hook cannot follow (``sudo -i`` in another home, ``sudo -R`` in another root, ``sudo -b``
in the background, ``env -S`` from a string) never count, and neither does an option the hook does
not know. Other programs in front (``xargs``, ``watch``, ``strace``, ``su -c``) are not wrappers:
the line is not a read.
"""

from __future__ import annotations

import re

from .shell_syntax import _ASSIGN, POSIX, POWERSHELL, Command, Word, _Options, parse, split_args, verb_name

TYPE_CHECKING = False  # typing is imported only by type checkers: it costs a fresh process ~4 ms
if TYPE_CHECKING:
    from typing import NamedTuple
else:
    from .._tuples import NamedTuple

READ, SEARCH, LIST, OTHER, COMPOUND, EMPTY = "read", "search", "list", "other", "compound", "empty"


class Action(NamedTuple):
    """What a shell call did to files, in the terms of the adoption rule."""

    kind: str  # read / search / list / other / compound / empty
    verb: str | None
    operands: tuple[Word, ...] = ()  # file operands (for a search: the paths searched)
    simple: bool = False  # one command, not a pipeline
    mode: str = "content"  # search output: content / count / files
    chdir: str | None = None  # git -C DIR, env -C DIR, sudo -D DIR: relative paths are resolved against DIR
    reason: str = ""


class _Wrapper(NamedTuple):
    """The options of a program that runs another command: which take a value, which move the folder,
    and which make it run nothing the hook can follow (``refuse``). An option it does not list is
    unknown, and an unknown option means the command is not understood."""

    flags: str = ""
    values: str = ""
    long_flags: frozenset[str] = frozenset()
    long_values: frozenset[str] = frozenset()
    chdir: str = ""  # short options whose value is the folder the command runs in
    long_chdir: frozenset[str] = frozenset()
    refuse: str = ""
    long_refuse: frozenset[str] = frozenset({"help", "version"})
    assignments: bool = False  # NAME=value words may come before the command (env, sudo)


_F = frozenset
_WRAPPERS: dict[str, _Wrapper] = {
    "builtin": _Wrapper(long_refuse=_F()),
    "command": _Wrapper(flags="p", refuse="vV", long_refuse=_F()),
    "exec": _Wrapper(flags="cl", values="a", long_refuse=_F()),
    "time": _Wrapper(flags="pqva", values="of", long_flags=_F({"portability", "quiet", "verbose", "append"}),
                     long_values=_F({"output", "format"})),
    "nohup": _Wrapper(),
    "env": _Wrapper(flags="iv0", values="u", long_flags=_F({"ignore-environment", "debug", "null", "block-signal",
                                                            "default-signal", "ignore-signal"}),
                    long_values=_F({"unset"}), chdir="C", long_chdir=_F({"chdir"}), refuse="S",
                    long_refuse=_F({"split-string", "list-signal-handling", "help", "version"}), assignments=True),
    "timeout": _Wrapper(flags="v", values="sk", long_flags=_F({"preserve-status", "foreground", "verbose"}),
                        long_values=_F({"signal", "kill-after"})),
    "nice": _Wrapper(values="n", long_values=_F({"adjustment"})),
    # sudo -b runs the command in the background, -i in the target user's home, -R in another root:
    # the agent may not see the output, or relative paths mean other files.
    "sudo": _Wrapper(flags="AEHknPSsB", values="ugUpCTrt",
                     long_flags=_F({"askpass", "preserve-env", "set-home", "non-interactive", "preserve-groups",
                                    "stdin", "bell", "shell", "reset-timestamp"}),
                     long_values=_F({"user", "group", "other-user", "prompt", "close-from", "command-timeout",
                                     "role", "type"}),
                     chdir="D", long_chdir=_F({"chdir"}), refuse="lveKVhiRb",
                     long_refuse=_F({"list", "validate", "edit", "remove-timestamp", "version", "help", "login",
                                     "chroot", "host", "background"}), assignments=True),
}
_DURATION = re.compile(r"^(?:\d+(?:\.\d*)?|\.\d+)[smhd]?$")


class Unwrapped(NamedTuple):
    words: tuple[Word, ...]  # the command the wrappers run, with its arguments
    chdir: str | None = None  # the folder a wrapper moved to (env -C, sudo -D), as written
    problem: str = ""  # why the wrappers run nothing the hook can follow ("" when they do)


def _moved(chdir: str | None, folder: str) -> str:
    if chdir is None or folder.startswith(("/", "\\")) or folder[1:2] == ":":
        return folder
    return chdir.rstrip("/\\") + "/" + folder


def _wrapper_options(name: str, spec: _Wrapper, words: tuple[Word, ...], i: int, chdir: str | None
                     ) -> tuple[int, str | None, str]:
    """Skip one wrapper's options from ``words[i]``: (index of what follows, chdir, problem)."""
    while i < len(words):
        t = words[i].text
        if t == "--":
            return i + 1, chdir, ""
        if spec.assignments and _ASSIGN.match(t):
            i += 1
            continue
        if name == "nice" and len(t) > 1 and t[0] == "-" and t[1:].lstrip("-").isdigit():
            i += 1  # nice -10: the old spelling of -n 10
            continue
        if not t.startswith("-") or t == "-":
            return i, chdir, ""
        i += 1
        if t.startswith("--"):
            long, eq, value = t[2:].partition("=")
            if long in spec.long_refuse:
                return i, chdir, f"{name} --{long} does not run the command here"
            if long in spec.long_chdir:
                if not eq:
                    value, i = (words[i].text if i < len(words) else ""), i + 1
                chdir = _moved(chdir, value)
            elif long in spec.long_values:
                i += 0 if eq else 1
            elif long not in spec.long_flags:
                return i, chdir, f"{name} --{long} is an option the hook does not know"
            continue
        for k, ch in enumerate(t[1:], 1):
            if ch in spec.refuse:
                return i, chdir, f"{name} -{ch} does not run the command here"
            if ch in spec.values or ch in spec.chdir:
                value = t[k + 1:]
                if not value:
                    value, i = (words[i].text if i < len(words) else ""), i + 1
                if ch in spec.chdir:
                    chdir = _moved(chdir, value)
                break
            if ch not in spec.flags:
                return i, chdir, f"{name} -{ch} is an option the hook does not know"
    return i, chdir, ""


def unwrap(words: tuple[Word, ...]) -> Unwrapped:
    """The command that wrappers in front of it run (see the module docstring, "Wrappers")."""
    i, chdir = 0, None
    while i < len(words):
        name = verb_name(words[i].text) if words[i].literal else ""
        spec = _WRAPPERS.get(name)
        if spec is None:
            break
        i, chdir, problem = _wrapper_options(name, spec, words, i + 1, chdir)
        if problem:
            return Unwrapped((), chdir, problem)
        if name == "timeout":
            if i >= len(words) or not _DURATION.match(words[i].text):
                return Unwrapped((), chdir, "timeout without a duration runs nothing")
            i += 1
        if i >= len(words) and name in ("command", "exec", "timeout", "nice", "sudo", "time", "nohup"):
            return Unwrapped((), chdir, f"{name} is given no command")
    return Unwrapped(words[i:], chdir)


def strip_wrappers(words: tuple[Word, ...]) -> tuple[Word, ...]:
    """The command the wrappers run, or () when they run none the hook can follow."""
    return unwrap(words).words


_READERS: dict[str, _Options] = {
    "cat": _Options("", frozenset()),
    # bat's -d is --diff, a switch: the word after it is still a file operand.
    "bat": _Options("lmrH", frozenset({
        "language", "map-syntax", "line-range", "highlight-line", "style", "theme", "tabs", "wrap",
        "terminal-width", "color", "italic-text", "decorations", "paging", "pager", "file-name",
        "diff-context", "gitsigns", "ignored-suffix", "binary", "squeeze-limit", "nonprintable-notation",
        "strip-ansi"})),
    "less": _Options('bDhjkoOpPtTxyz#"', frozenset({
        "log-file", "LOG-FILE", "pattern", "prompt", "tag", "tag-file", "tabs", "shift", "window",
        "max-back-scroll", "max-forw-scroll", "buffers", "jump-target", "lesskey-file", "color", "quotes",
        "line-num-width", "rscroll", "status-col-width", "wheel-lines"})),
    "more": _Options("n", frozenset({"lines"})),
    "head": _Options("nc", frozenset({"lines", "bytes"})),
    "tail": _Options("ncs", frozenset({"lines", "bytes", "sleep-interval", "pid", "max-unchanged-stats"})),
    "nl": _Options("bdfhilnsvw", frozenset({
        "body-numbering", "section-delimiter", "footer-numbering", "header-numbering",
        "line-increment", "join-blank-lines", "number-format", "number-separator",
        "starting-line-number", "number-width"})),
}
_READERS["batcat"] = _READERS["bat"]
# The readers that take some words starting with + as options (shell_syntax.split_args says which).
_PLUS_OPTIONS = {"less": "+", "more": "+/"}
_PS_READERS = frozenset({"get-content", "gc", "type"})
_PS_ALIASES_OF_GET_CONTENT = frozenset({"cat"})  # in PowerShell; in a POSIX shell cat is cat
# Get-Content's parameters and the common ones, by kind: "path" names the file, "value" takes a value,
# "switch" takes none. PowerShell also accepts any unambiguous prefix of a name (``-Lit``), and binds a
# value with a colon (``-LiteralPath:doc``); aliases match only in full.
_PS_PARAMS: dict[str, str] = {
    **dict.fromkeys(("path", "literalpath"), "path"),
    **dict.fromkeys(("readcount", "totalcount", "tail", "filter", "include", "exclude", "credential",
                     "delimiter", "encoding", "stream", "erroraction", "warningaction", "informationaction",
                     "progressaction", "errorvariable", "warningvariable", "informationvariable",
                     "outvariable", "outbuffer", "pipelinevariable"), "value"),
    **dict.fromkeys(("force", "wait", "raw", "asbytestream", "verbose", "debug"), "switch"),
}
_PS_ALIASES = {"pspath": "path", "lp": "path", "first": "value", "head": "value", "last": "value",
               "ea": "value", "wa": "value", "infa": "value", "ev": "value", "wv": "value", "iv": "value",
               "ov": "value", "ob": "value", "pv": "value", "vb": "switch", "db": "switch"}


def _ps_param(name: str) -> str:
    """The kind of a Get-Content parameter given as written (without ``-``); unknown or ambiguous
    names read as switches (PowerShell rejects the call, so nothing was shown)."""
    n = name.lower()
    if n in _PS_ALIASES:
        return _PS_ALIASES[n]
    if n in _PS_PARAMS:
        return _PS_PARAMS[n]
    found = [full for full in _PS_PARAMS if full.startswith(n)]
    return _PS_PARAMS[found[0]] if len(found) == 1 else "switch"

_SED = _Options("efl", frozenset({"expression", "file", "line-length"}))


def _sed_address(group: str) -> str:
    """One sed address: a line number (GNU's ``first~step`` too), ``$``, or a regular expression
    between slashes or between any other delimiter after a backslash (``\\%re%``), with GNU's ``I``
    and ``M`` flags."""
    return (rf"(?:\d+(?:~\d+)?|\$|/(?:[^/\\]|\\.)*/[IM]*"
            rf"|\\(?P<{group}>[^\\\n])(?:(?!(?P={group}))[^\\]|\\.)*(?P={group})[IM]*)")


# One command of a print script: an optional address or range (``N,+M`` and GNU's ``N,~M`` too), an
# optional ``!`` after it (every line but those), then ``p`` or ``q``.
_SED_PART = re.compile(rf"^\s*(?:{_sed_address('d1')}(?:\s*,\s*(?:{_sed_address('d2')}|[+~]\d+))?\s*(?:!\s*)?)?"
                       rf"(?P<command>[pq])\s*$")

_SEARCHERS: dict[str, _Options] = {
    "grep": _Options("efmABCdD", frozenset({
        "regexp", "file", "max-count", "after-context", "before-context", "context", "directories",
        "devices", "include", "exclude", "exclude-dir", "exclude-from", "label", "binary-files",
        "group-separator"})),
    "rg": _Options("efgtTmABCjMdEr", frozenset({
        "regexp", "file", "glob", "iglob", "type", "type-not", "type-add", "type-clear", "max-count",
        "after-context", "before-context", "context", "threads", "max-columns", "max-depth", "encoding",
        "replace", "pre", "pre-glob", "sort", "sortr", "color", "colors", "context-separator",
        "field-context-separator", "field-match-separator", "path-separator", "ignore-file",
        "max-filesize", "dfa-size-limit", "regex-size-limit", "engine"})),
    "ag": _Options("ABCGgmp", frozenset({"after", "before", "context", "file-search-regex", "max-count",
                                          "depth", "ignore", "path-to-ignore", "pager"})),
    "ack": _Options("ABCm", frozenset({"after-context", "before-context", "context", "max-count", "type",
                                        "ignore-dir", "match", "output", "ignore-file"})),
    "git-grep": _Options("efABCm", frozenset({"max-depth", "threads", "after-context", "before-context",
                                              "context", "max-count", "file"})),
}
_SEARCHERS["egrep"] = _SEARCHERS["fgrep"] = _SEARCHERS["grep"]
_COUNT_FLAGS = frozenset({"-c", "--count", "--count-matches"})
_FILES_FLAGS = frozenset({"-l", "-L", "--files-with-matches", "--files-without-match",
                          "--files-without-matches", "--name-only", "-q", "--quiet", "--silent", "-O",
                          "--open-files-in-pager"})
_LISTERS = frozenset({"ls", "find", "fd", "fdfind", "tree", "dir", "get-childitem", "gci"})
# git's options before the subcommand whose value may be the next word. (``--exec-path`` takes one
# only as ``--exec-path=DIR``: alone it prints git's folder and runs nothing.)
_GIT_VALUE_OPTS = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace"})


def _stdout_hidden(cmd: Command) -> bool:
    for op, target in cmd.redirects:
        fd = op[: len(op) - len(op.lstrip("0123456789"))]
        bare = op[len(fd):]
        if bare in ("&>", "&>>"):
            return True
        if bare in (">", ">>", ">|", ">&") and fd in ("", "1"):
            if bare == ">&" and target == "1":
                continue
            return True
    return False


def _read_action(verb: str, args: tuple[Word, ...], simple: bool, dialect: str = POSIX) -> Action:
    lowered = verb.lower()
    if lowered in _PS_READERS or (dialect == POWERSHELL and lowered in _PS_ALIASES_OF_GET_CONTENT):
        operands: list[Word] = []
        i = 0
        while i < len(args):
            w = args[i]
            i += 1
            if not (w.text.startswith("-") and w.text != "-"):
                operands.extend(w._replace(text=p) for p in w.text.split(",") if p)
                continue
            name, colon, bound = w.text[1:].partition(":")
            kind = _ps_param(name)
            if kind == "switch":
                continue
            value: Word | None = w._replace(text=bound) if bound else None
            if value is None and i < len(args):
                value, i = args[i], i + 1
            if kind == "path" and value is not None:
                operands.extend(value._replace(text=p) for p in value.text.split(",") if p)
        return Action(READ, verb, tuple(operands), simple, reason=f"{verb} reads its file operands")
    if verb == "sed":
        found, rest = split_args(args, _SED)
        names = {name for name, _ in found}
        if names & {"-i", "--in-place"}:
            return Action(OTHER, verb, reason="sed -i edits the file, it does not show it")
        if not names & {"-n", "--quiet", "--silent"}:
            return Action(OTHER, verb, reason="sed without -n is not the print form")
        if names & {"-f", "--file"}:
            return Action(OTHER, verb, reason="sed reads its script from a file")
        scripts = [v or "" for name, v in found if name in ("-e", "--expression")]
        if not scripts:
            if not rest:
                return Action(OTHER, verb, reason="sed without a script")
            scripts, rest = [rest[0].text], rest[1:]
        parts = [p for s in scripts for p in re.split(r"[;\n]", s) if p.strip()]
        matches = [_SED_PART.match(p) for p in parts]
        if not parts or not all(matches) or not any(m and m.group("command") == "p" for m in matches):
            return Action(OTHER, verb, reason="the sed script is not only print commands")
        return Action(READ, verb, tuple(rest), simple, reason="sed -n with print commands shows its files")
    found, rest = split_args(args, _READERS[verb], plus_prefix=_PLUS_OPTIONS.get(verb, ""))
    return Action(READ, verb, tuple(rest), simple, reason=f"{verb} shows its file operands")


def _search_action(verb: str, args: tuple[Word, ...], chdir: str | None) -> Action:
    opts = _SEARCHERS[verb]
    found, rest = split_args(args, opts)
    names = {name for name, _ in found}
    if verb == "rg" and "--files" in names:
        return Action(LIST, verb, reason="rg --files lists file names")
    if (verb == "ag" and "-g" in names) or (verb == "ack" and names & {"-f", "-g"}):
        return Action(LIST, verb, reason=f"{verb} -f/-g lists file names")
    pattern_given = bool(names & {"-e", "--regexp", "-f", "--file", "--match"})  # ack --match PATTERN
    paths = tuple(rest if pattern_given else rest[1:])
    shown = "git grep" if verb == "git-grep" else verb
    if names & _COUNT_FLAGS:
        return Action(SEARCH, shown, paths, True, "count", chdir, f"{shown} only counts matches")
    if names & _FILES_FLAGS:
        return Action(SEARCH, shown, paths, True, "files", chdir, f"{shown} only lists file names")
    return Action(SEARCH, shown, paths, True, "content", chdir, f"{shown} shows matching lines")


# Shell tools whose name says which shell runs the line. Codex names its shell tool "Bash" whatever
# shell it runs (PowerShell on Windows), so there the name says nothing.
_NAMED_SHELLS = {"powershell": POWERSHELL, "bash": POSIX}


def dialect(agent: str, tool: str | None, windows: bool) -> str:
    """How to read a shell tool's command line (see the module docstring, "Which shell")."""
    named = _NAMED_SHELLS.get((tool or "").lower())
    if named == POWERSHELL or (named == POSIX and agent != "codex"):
        return named
    return POWERSHELL if windows else POSIX


def analyze(text: str, dialect: str = POSIX) -> Action:
    """Decide what one shell call did (see the module docstring for the rule)."""
    parsed = parse(text, dialect)
    if parsed.broken:
        return Action(COMPOUND, None, reason="the command line does not parse (unbalanced quote or operator)")
    if not parsed.pipelines and not parsed.operators and not parsed.substitution:
        return Action(EMPTY, None, reason="no command")
    if parsed.compound:
        why = [op.replace("\n", "a newline") for op in sorted(set(parsed.operators))]
        if parsed.substitution:
            why.append("a command substitution")
        return Action(COMPOUND, None, reason=f"a compound command ({', '.join(why) or 'several commands'}) "
                                             "never counts")
    stages = parsed.pipelines[0]
    first = stages[0]
    unwrapped = unwrap(first.words)
    if unwrapped.problem:
        return Action(OTHER, None, reason=unwrapped.problem)
    words = unwrapped.words
    if not words:
        return Action(EMPTY, None, reason="no command, only assignments or redirections")
    head = words[0]
    if not head.literal:
        return Action(OTHER, None, reason="the command name is expanded by the shell")
    verb = verb_name(head.text)
    args = words[1:]
    simple = len(stages) == 1
    chdir = unwrapped.chdir
    if verb == "git":
        i = 0
        while i < len(args) and args[i].text.startswith("-"):
            if args[i].text in _GIT_VALUE_OPTS and i + 1 < len(args):
                if args[i].text == "-C":
                    chdir = _moved(chdir, args[i + 1].text)
                i += 2
            else:
                i += 1
        sub = args[i].text if i < len(args) else ""
        if sub == "ls-files":
            return Action(LIST, "git ls-files", reason="git ls-files lists file names")
        if sub != "grep":
            return Action(OTHER, "git", reason=f"git {sub} is neither a read nor a search".replace("  ", " "))
        verb, args = "git-grep", args[i + 1:]
    if verb.lower() in _PS_READERS and dialect == POSIX:
        # A PowerShell cmdlet: the line was written for PowerShell, whose backslash is a plain character.
        return analyze(text, POWERSHELL)
    if verb in _READERS or verb == "sed" or verb.lower() in _PS_READERS:
        action = _read_action(verb, args, simple, dialect)._replace(chdir=chdir)
        if action.kind == READ and _stdout_hidden(first):
            return action._replace(kind=OTHER, reason=f"{verb}'s output is redirected away from the agent")
        if action.kind == READ and not simple and _stdout_hidden(stages[-1]):
            return action._replace(kind=OTHER, reason="the pipeline's output is redirected away from the agent")
        return action
    if verb in _SEARCHERS:
        action = _search_action(verb, args, chdir)
        if action.kind == SEARCH and not simple:
            return action._replace(kind=OTHER, simple=False,
                                   reason=f"a pipeline starting with {action.verb}: its output is transformed")
        if action.kind == SEARCH and _stdout_hidden(first):
            return action._replace(kind=OTHER, reason=f"{action.verb}'s output is redirected away from the agent")
        return action
    if verb in _LISTERS or verb.lower() in _LISTERS:
        return Action(LIST, verb, reason=f"{verb} lists file names")
    if not simple:
        return Action(OTHER, verb, reason=f"a pipeline that starts with {verb}, not a reader")
    return Action(OTHER, verb, reason=f"{verb} is neither a reader nor a search")
