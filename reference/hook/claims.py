"""Which recall runs a shell call confirms: the run ids it printed, if the call itself ran recall.

Recall prints its run id at the end of the start line (``--- [teamai:recall:start] --- (N results)
run=<uuid>``) or of the no-hit line (``No matching learnings found for "<query>". run=<uuid>``); the
format is owned by ``render.py``. A run id counts only on a whole line in exactly one of those two
forms: nothing before it (no glyph, no prompt, no quote of it), nothing after it but a carriage
return, and on the no-hit line a query in render's escaped spelling (no raw quote, backslash or
control character). Since render escapes the query, no query can print a line of either form, so a
recall that found nothing confirms its own run and never another session's. Every such id in the
output is claimed, so a call that ran recall twice confirms both runs.

A claim needs the command line to *invoke* recall, decided on the parsed line, never by substring:
``codex exec "run teamai recall …"`` only quotes it, and the outer agent must not take the run from
the inner session that really ran it. Invoking means that some command the line runs directly
(in any position of a pipeline or list, after ``NAME=value`` assignments and the wrappers that
``shell.unwrap`` looks through: ``env``, ``command``, ``exec``, ``time``, ``nohup``, ``timeout``,
``nice``, ``sudo``, decided there once for readers and recall alike) is, after root options, the
``recall`` subcommand of:

- ``teamai`` by name or path, also ``teamai.cmd``, ``teamai.exe``, ``teamai.ps1``;
- ``npx``/``bunx`` (with their own flags) of the package ``teamai`` or ``teamai-cli``, any version;
- the reference's own ``teamai-ref``, or ``python -m reference``.

So ``teamai recall x | head`` and ``A=1 teamai recall x`` invoke it, and so does
``cd proj && teamai recall x``. A recall inside ``$( )``, backticks, ``bash -c``, ``xargs`` or
``eval`` is not recognized: its text is an argument, and arguments are never parsed as commands.
Whether the run exists and whether this is the first claim is the reducer's business.
"""

from __future__ import annotations

import re

from ..recall import render
from . import shell, shell_syntax

_UUID = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
# The query as render.echo_query spells it: no raw quote, backslash or control character.
_ECHOED = r'"(?:[^"\\\x00-\x1f\x7f-\x9f\u2028\u2029]|\\[^\x00-\x1f\x7f-\x9f\u2028\u2029])*"'
_LINES = re.compile(
    rf"^(?:{re.escape(render.START)} \(\d+ results?\)|No matching learnings found for {_ECHOED}\.)"
    rf" run=({_UUID})\r?$", re.MULTILINE)

_BINARIES = frozenset({"teamai", "teamai.cmd", "teamai.ps1", "teamai-ref"})
_PACKAGES = frozenset({"teamai", "teamai-cli"})
_RUNNERS = frozenset({"npx", "bunx", "npx.cmd"})
_RUNNER_VALUE_OPTS = frozenset({"-p", "--package", "--registry", "--cache", "--userconfig", "-w", "--workspace"})
_ROOT_VALUE_OPTS = frozenset({"--scope", "--team", "--user-team", "--cwd", "-C", "--config"})
_PYTHON = re.compile(r"^(?:python(?:\d+(?:\.\d+)?)?|py)$", re.IGNORECASE)


def run_ids(output: str) -> list[str]:
    """Every run id the output prints on a start or no-hit line, in order, without repeats."""
    seen: list[str] = []
    if " run=" not in output:
        return seen
    for m in _LINES.finditer(output):
        rid = m.group(1).lower()
        if rid not in seen:
            seen.append(rid)
    return seen


def _package_name(word: str) -> str:
    at = word.find("@", 1)  # a version after the name; a leading @ is a package scope
    name = word[:at] if at > 0 else word
    return name.rsplit("/", 1)[-1].lower()


def _after_program(words: tuple[shell_syntax.Word, ...]) -> tuple[shell_syntax.Word, ...] | None:
    """The arguments given to teamai, or None when these words do not run teamai."""
    if not words or not words[0].literal:
        return None
    name = shell_syntax.verb_name(words[0].text).lower()
    rest = words[1:]
    if name in _BINARIES:
        return rest
    if name in _RUNNERS:
        i = 0
        while i < len(rest) and rest[i].text.startswith("-"):
            t = rest[i].text
            if t in ("-c", "--call"):
                return None
            i += 2 if t in _RUNNER_VALUE_OPTS else 1
        if i < len(rest) and rest[i].literal and _package_name(rest[i].text) in _PACKAGES:
            return rest[i + 1:]
        return None
    if _PYTHON.match(name):
        i = 0
        while i < len(rest):
            t = rest[i].text
            if t == "-m":
                return rest[i + 2:] if i + 1 < len(rest) and rest[i + 1].text == "reference" else None
            if t.startswith("-m") and len(t) > 2:
                return rest[i + 1:] if t[2:] == "reference" else None
            if not t.startswith("-") or t == "-c":
                return None
            i += 2 if t in ("-X", "-W", "-Q") else 1
    return None


def _is_recall(args: tuple[shell_syntax.Word, ...]) -> bool:
    i = 0
    while i < len(args):
        t = args[i].text
        if t == "recall":
            return True
        if not t.startswith("-"):
            return False
        i += 2 if t in _ROOT_VALUE_OPTS else 1
    return False


def invokes_recall(command: str, dialect: str = shell_syntax.POSIX) -> bool:
    """True when the command line itself runs ``teamai recall`` (see the module docstring)."""
    parsed = shell_syntax.parse(command, dialect)
    if parsed.broken:
        return False
    for cmd in parsed.commands():
        args = _after_program(shell.strip_wrappers(cmd.words))
        if args is not None and _is_recall(args):
            return True
    return False
