"""Scrubbing a captured payload: keep what the hook's rules read, replace what is private.

A capture should be safe to commit and still replay to the same decisions, so the scrubber
works by what a value *is* (its key), not by guessing at every string:

- **Ids** (``session_id``, ``agent_id``, ``tool_use_id``, any ``*_id``/``*Id``): kept as sent;
  sessions and actors are what claims and evidence are about.
- **Paths** (``cwd``, ``file_path``, ``path``, ``workspace_roots``, ``filenames``, …) and
  **command lines** (``command``, ``cmd``): kept, because the read, search and claim rules match
  them; only the home folder, the user's names and secret-like words inside them are replaced.
- **Text** (file contents, tool output, prompts, assistant messages, errors, descriptions,
  edits, search patterns): every line becomes ``[scrubbed]`` except the parts a rule reads,
  which are kept with their line: recall's start line (count and run id) and no-hit line (its
  run id; the query becomes ``[scrubbed]``), ``File:`` lines, and a search line's
  ``path:line:`` prefix (or ``line:`` for a single file), whose text becomes ``scrubbed-text``
  (a plain word: a rule that weighs what a search line shows still sees text there, and an
  import recreates the doc with that line); recall's lines behind a short label
  (``Stdout: --- [teamai:recall:start] …``, how Gemini CLI shows a command's output) are kept
  with the label. Blank lines stay blank, so line counts and
  emptiness are kept. A string holding JSON (Cursor's ``tool_output``, Copilot's
  ``toolArgs``) is scrubbed inside and encoded again.
- **Transcript paths** (``transcript_path``, ``agent_transcript_path``, output files): replaced.
- **Secret-named keys** (``*token*``, ``*password*``, ``*api_key*``, ``authorization``, …):
  replaced whole.
- Anything else: numbers, booleans and null as sent; a short one-word string (an enum, a tool
  name, a version) kept like a path; longer or multi-word text scrubbed as text.

Everywhere something is kept, what looks like a secret is replaced: private key blocks, bearer
and basic credentials, credentials in URLs, tokens with a known prefix (``sk-``, ``ghp_``,
``xoxb-``, ``AKIA``, ``AIza``, JWTs …), values of secret-named assignments and options
(``API_KEY=…``, ``--token …``), e-mail addresses, hex runs of 32 or more characters and long
base64 blobs. The home folder becomes ``/home/user`` and the user's names ``user``, the same way
in every payload, so paths still match each other and the knowledge roots the capture records.

``tests/capture/test_scrub.py`` checks that the reference decides the same for the scrubbed payload
as for the one sent.

A base64 blob that holds ``/`` is only caught piecewise where it sits inside a path or command
word; secrets in commands are caught by their form and context instead.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping

TYPE_CHECKING = False  # typing is imported only by type checkers: it costs a fresh process ~4 ms
if TYPE_CHECKING:
    from typing import Any

LINE = "[scrubbed]"
SHOWN = "scrubbed-text"  # what a search line showed after its prefix; a word, so no rule reads it as a mark
SECRET = "scrubbed-secret"
EMAIL = "scrubbed@example.invalid"
HOME = "/home/user"
USER = "user"

_PATH_KEYS = frozenset({
    "cwd", "filepath", "path", "paths", "files", "targetfile", "notebookpath", "absolutepath", "file",
    "workingdirectory", "workdir", "workspaceroots", "directory", "dir", "dirpath", "root", "roots", "filenames",
    "folder", "targetdirectory", "relativeworkspacepath", "uri", "url"})
_COMMAND_KEYS = frozenset({"command", "cmd", "commands", "args", "argv", "script", "toolargs", "arguments"})
_TRANSCRIPT_KEYS = frozenset({"transcriptpath", "agenttranscriptpath", "outputfile", "persistedoutputpath"})
_TEXT_KEYS = frozenset({
    "content", "contents", "stdout", "stderr", "output", "tooloutput", "toolresponse", "text", "result",
    "textresultforllm", "error", "errormessage", "message", "prompt", "lastassistantmessage", "description",
    "oldstring", "newstring", "oldstr", "newstr", "patch", "diff", "query", "pattern", "body", "summary",
    "title", "snippet", "base64", "data", "input", "response", "thinking", "reasoning"})
_SECRET_WORDS = ("token", "secret", "password", "passwd", "apikey", "credential", "cookie", "authorization",
                 "privatekey", "accesskey", "sessionkey", "clientsecret")
_SECRET_PARTS = frozenset({"auth", "pwd", "pass", "key"})

# Recall's own lines (the format is render.py's; claims.py reads the run ids the same way).
_UUID = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
_START = re.compile(rf"^--- \[teamai:recall:start\] --- \(\d+ results?\)(?: run={_UUID})?[ \t\r]*$")
_NO_HIT = re.compile(rf'^(No matching learnings found for ").*("\.(?: run={_UUID})?[ \t\r]*)$')
_FILE = re.compile(r"^(File: )(.*)$")
# A short label some agents put before a command's first line of output (Gemini CLI's "Stdout: "):
# recall's own lines after it are kept as they are without it.
_LABEL = re.compile(r"^([A-Za-z][A-Za-z ]{0,23}: )(.*)$")
# What a search rule reads from a line: the path before ":" (with its line number), or the line
# number alone when the search had one file; context lines (path-12-text) keep theirs too.
_PREFIX = re.compile(r"^(?:(?:[A-Za-z]:)?[^:\n]*?\.md:(?:\d+[:-])?|[^\s:]+[:-]\d+[:-]|\d+[:-])", re.IGNORECASE)
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")

_PEM = re.compile(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----.*?(-----END [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----|\Z)",
                  re.DOTALL)
_AUTH = re.compile(r"(?i)\b(bearer|basic|digest)(\s+)(?!\.{1,2}/|~/)(?![^\s\"']*\.md\b)[A-Za-z0-9._~+/=-]{8,}")
# The password part may hold a slash (a base64 secret, unescaped): it is replaced whole.
_URL_CREDENTIALS = re.compile(r"(?i)(\b[a-z][a-z0-9+.-]*://)[^\s/@:\"']+:[^\s@\"']+@")
_PREFIXED = re.compile(
    r"\b(?:sk-(?:ant-|proj-)?[A-Za-z0-9_-]{16,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}"
    r"|xox[abposr]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16}|ASIA[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{30,}"
    r"|glpat-[A-Za-z0-9_-]{16,}|npm_[A-Za-z0-9]{30,}|hf_[A-Za-z0-9]{30,}|pypi-[A-Za-z0-9_-]{30,}"
    r"|eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,})")
_SECRET_NAME = (r"[A-Za-z0-9_-]*(?:token|secret|passw(?:or)?d|pwd|api[_-]?key|access[_-]?key|private[_-]?key"
                r"|auth|credential|cookie)[A-Za-z0-9_-]*")
# NAME=value, NAME: value, "name": "value" (no dot in the name, so a path such as auth.md:12: is safe) ...
_ASSIGNED = re.compile(rf"(?i)(\b{_SECRET_NAME})([\"']?\s*[:=]\s*)([\"']?)([^\s\"']{{3,}})")
# ... and an option with its value: --token X, --api-key=X
_OPTION = re.compile(rf"(?i)((?<![\w-])--?{_SECRET_NAME})(\s+|=)([\"']?)(?!-)([^\s\"']{{3,}})")
# Only an option that names a file or folder (--token-file, --password-path) keeps a path as its
# value: any other secret option's value is replaced whole, whatever it starts with (a base64
# secret may start with a slash).
_PATH_OPTION = re.compile(r"(?i)(?:file|path|dir|directory|folder)$")
_EMAIL = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}")
_HEX = re.compile(r"(?<![0-9A-Za-z])[0-9a-fA-F]{32,}(?![0-9A-Za-z])")
_RUN = re.compile(r"[A-Za-z0-9+/_-]{32,}={0,2}")
_UUID_ANY = re.compile(_UUID)


def _option(m: re.Match[str]) -> str:
    if m.group(4)[:1] in "./~" and _PATH_OPTION.search(m.group(1)):
        return m.group(0)
    return m.group(1) + m.group(2) + m.group(3) + SECRET


def _norm_key(key: str) -> str:
    return re.sub(r"[^a-z0-9]", "", key.lower())


def _secret_key(key: str) -> bool:
    flat = _norm_key(key)
    if any(word in flat for word in _SECRET_WORDS):
        return True
    parts = re.split(r"[^a-z0-9]+", re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", key).lower())
    return any(p in _SECRET_PARTS for p in parts) and not flat.endswith(("id", "type", "mode", "path", "name"))


def _id_key(key: str) -> bool:
    return key.endswith(("_id", "Id", "ID")) or key in ("id", "session", "sessionId", "run")


def _blobby(piece: str) -> bool:
    """A base64-looking piece: long, and switching between upper case, lower case and digits as
    random text does (a slug, a CamelCase name or a UUID switches far less often)."""
    rest = _UUID_ANY.sub("-", piece)
    if len(rest) < 32:
        return False
    classes = [("u" if c.isupper() else "l" if c.islower() else "d" if c.isdigit() else "") for c in rest]
    switches = sum(1 for a, b in zip(classes, classes[1:], strict=False) if a and b and a != b)
    return len(set(classes) - {""}) >= 2 and switches >= 0.3 * len(rest)


def _blobs(text: str) -> str:
    def one(m: re.Match[str]) -> str:
        run = m.group(0)
        return "/".join(SECRET if _blobby(piece) else piece for piece in run.split("/"))
    return _RUN.sub(one, text)


class Scrubber:
    """One way of scrubbing, fixed by the home folder and user names it was made with."""

    def __init__(self, home: str | None, users: Iterable[str]) -> None:
        home = (home or "").rstrip("/\\")
        self.home = home if len(home) > 1 else ""
        names = {u for u in users if u and len(u) >= 3 and re.fullmatch(r"[\w.-]+", u)}
        self._users = re.compile(r"(?<![\w.-])(" + "|".join(re.escape(u) for u in sorted(names, key=len, reverse=True))
                                 + r")(?![\w-])") if names else None

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> Scrubber:
        home = env.get("HOME") or os.path.expanduser("~")
        users = [env.get(k, "") for k in ("USER", "LOGNAME", "USERNAME")] + [os.path.basename(home.rstrip("/"))]
        return cls(home, users)

    # -- kept strings ----------------------------------------------------------------------
    def text(self, value: str) -> str:
        """A string that is kept: only secrets, the home folder and user names are replaced."""
        value = _PEM.sub(SECRET, value)
        value = _URL_CREDENTIALS.sub(lambda m: m.group(1) + SECRET + "@", value)
        value = _AUTH.sub(lambda m: m.group(1) + m.group(2) + SECRET, value)
        value = _PREFIXED.sub(SECRET, value)
        value = _ASSIGNED.sub(lambda m: m.group(1) + m.group(2) + m.group(3) + SECRET, value)
        value = _OPTION.sub(_option, value)
        value = _EMAIL.sub(EMAIL, value)
        value = _HEX.sub(SECRET, value)
        value = _blobs(value)
        if self.home:
            value = re.sub(re.escape(self.home) + r"(?=[/\\\s\"':;,)]|$)", HOME, value)
        if self._users is not None:
            value = self._users.sub(USER, value)
        return value

    # -- text --------------------------------------------------------------------------------
    def lines(self, value: str) -> str:
        """Text: each line scrubbed, keeping what a rule reads (see the module docstring)."""
        parsed = _json_inside(value)
        if parsed is not None:
            return json.dumps(self.value(parsed), ensure_ascii=False)
        return "\n".join(self._line(line) for line in value.split("\n"))

    def _line(self, line: str) -> str:
        if not line.strip():
            return line
        if "\x1b" in line:
            line = _ANSI.sub("", line)
        if _START.match(line):
            return self.text(line)
        m = _LABEL.match(line)
        if m and (_START.match(m.group(2)) or _NO_HIT.match(m.group(2)) or _FILE.match(m.group(2))):
            return m.group(1) + self._line(m.group(2))  # "Stdout: --- [teamai:recall:start] ..."
        m = _NO_HIT.match(line)
        if m:
            return m.group(1) + LINE + self.text(m.group(2))
        m = _FILE.match(line)
        if m:
            return m.group(1) + self.text(m.group(2))
        m = _PREFIX.match(line)
        if m:
            rest = line[m.end():]
            return self.text(m.group(0)) + (SHOWN if rest.strip() else rest)
        return LINE

    # -- whole values --------------------------------------------------------------------------
    def value(self, value: Any, key: str = "") -> Any:
        """``value`` found under ``key`` (the payload itself under no key), scrubbed by what it is."""
        if isinstance(value, Mapping):
            return {(self.text(k) if isinstance(k, str) else k): self.value(v, str(k)) for k, v in value.items()}
        if isinstance(value, list):
            return [self.value(v, key) for v in value]
        if not isinstance(value, str):
            return value
        flat = _norm_key(key)
        if _id_key(key) and _plain(value):
            return value
        if flat in _TRANSCRIPT_KEYS:
            return LINE if value else value
        if _secret_key(key):
            return SECRET if value else value
        if flat in _COMMAND_KEYS:
            parsed = _json_inside(value)
            return json.dumps(self.value(parsed), ensure_ascii=False) if parsed is not None else self.text(value)
        if flat in _PATH_KEYS:
            return self.text(value)
        if flat in _TEXT_KEYS or not _plain(value):
            return self.lines(value)
        return self.text(value)

    def payload(self, payload: Any) -> Any:
        return self.value(payload)


def _plain(value: str) -> bool:
    """A short one-word string: an enum, a name, a version, an id or a path without spaces."""
    return len(value) <= 200 and not any(c.isspace() for c in value)


def _json_inside(value: str) -> Any:
    """The object or list a string holds as JSON, else None."""
    stripped = value.strip()
    if not stripped or stripped[0] not in "{[":
        return None
    try:
        parsed = json.loads(stripped)
    except (ValueError, RecursionError):
        return None
    return parsed if isinstance(parsed, (dict, list)) else None
