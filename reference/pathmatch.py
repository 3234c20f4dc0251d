"""When a path a tool touched is the path recall printed.

Both sides use it: the hook spells and resolves the paths it records, and the reducer compares them
with the paths recall printed, so the one spelling lives below both.

Recall prints absolute paths. Tools report paths as the agent wrote them: relative to the call's
folder, with ``.`` and ``..``, with Windows backslashes, with a lower-case drive letter, or in Git
Bash's ``/c/Users/...`` form. Both sides are brought to one spelling (forward slashes, upper-case
drive, ``.`` and ``..`` folded) before they are compared.

Git Bash's drive folders are the one spelling that depends on the host: ``/c/Users`` is ``C:/Users``
in a Git Bash on Windows, and a folder ``c`` at the top of the file system everywhere else. The
printed paths decide: only where the knowledge roots are Windows paths (:func:`windows_roots`: a
drive letter or a ``\\\\server`` share) is a one-letter top folder read as a drive
(``drives=True``). So a team under ``/w/team`` on Linux or macOS is compared as the POSIX path it
is, and the printed paths themselves (``canonical``, which the reducer uses) are never folded:
recall prints native paths, and a Windows recall never prints the Git Bash form.

*Exact* evidence is a path that was absolute, or relative with a known base (the call's search
root or cwd); only ``.md`` files under the knowledge roots are kept. Without a base the path is
kept as given and the reducer may still match it by suffix (:func:`suffix_match`), but only when
the suffix is long enough to mean one file and only one printed path has it.
"""

from __future__ import annotations

import os
import posixpath

from .realpath import realpath

TYPE_CHECKING = False  # collections.abc costs a fresh process (a hook) ~2 ms
if TYPE_CHECKING:
    from collections.abc import Iterable

# A relative path without a base matches a printed path only when its last segments, at least
# this many, are the printed path's last segments. The spec's "basename plus at least 2 trailing
# segments" counts the base name among the two (``learnings/x.md``), as the public #884
# implementation does; the spec gives no example that needs three. A bare base name never
# matches: it names a file in any folder. Ambiguity, not length, is what guards the rest.
MIN_SUFFIX_SEGMENTS = 2

# The longest path, in characters, the hook makes real. The kernel refuses a longer name (Linux's
# PATH_MAX is 4096 bytes, macOS's 1024, and a character is at least one byte), so no tool opened a
# file by it, and it is no evidence. Without this bound a long path that does not exist costs
# ``os.path.realpath`` a walk quadratic in its segments (a 1 MB path: seconds of a hook's time);
# with it, at most one walk of a path the kernel could take.
MAX_PATH = 4096

# Read with string operations, not ``re``: the reducer (every Stop) compares paths through here,
# and ``re`` costs a fresh process more than the comparing does.
_LETTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")


def _git_bash_drive(p: str) -> bool:
    """``/c`` alone or before a slash: Git Bash's name for drive C:. (Every caller strips the path
    first, so "alone" is simply the end of the string.)"""
    return p[:1] == "/" and p[1:2] in _LETTERS and p[2:3] in ("/", "")


def _is_drive(p: str) -> bool:
    """``C:`` alone or before a slash."""
    return p[:1] in _LETTERS and p[1:2] == ":" and p[2:3] in ("/", "")


def _windows_root(p: str) -> bool:
    """A drive (``C:``, ``C:\\``, ``C:/``) or a UNC share (two backslashes and a name)."""
    if p[:1] in _LETTERS and p[1:2] == ":":
        return p[2:3] in ("\\", "/", "")
    return p[:2] == "\\\\" and p[2:3] not in ("", "\\")


def windows_roots(roots: Iterable[str]) -> bool:
    """True when the knowledge roots are Windows paths (a drive letter or a UNC share): only then
    are Git Bash drive folders (``/c/...``) drives."""
    return any(_windows_root(r.strip()) for r in roots)


def normalize(path: str, drives: bool = False) -> str:
    """One spelling: forward slashes, ``C:`` upper case, no doubled slashes; with ``drives``, Git
    Bash's ``/c/...`` as ``C:/...`` too."""
    p = path.strip().replace("\\", "/")
    if drives and _git_bash_drive(p):
        p = p[1].upper() + ":" + p[2:]
    elif _is_drive(p):
        p = p[0].upper() + p[1:]
    unc = p.startswith("//")
    while "//" in p:
        p = p.replace("//", "/")
    return "/" + p if unc else p


def _drive(p: str) -> tuple[str, str]:
    if _is_drive(p):
        return p[:2], p[2:]
    return "", p


def is_absolute(path: str) -> bool:
    p = normalize(path)
    return p.startswith("/") or _is_drive(p)


def canonical(path: str) -> str:
    """The comparable form of an absolute path (``.`` and ``..`` folded)."""
    drive, rest = _drive(normalize(path))
    return drive + posixpath.normpath(rest or "/")


def windows_host(folder: str | None, roots: Iterable[str]) -> bool:
    """Whether a call ran on Windows: its folder is a Windows path; with no folder, the roots are."""
    if folder and folder.strip():
        return _windows_root(folder.strip())
    return windows_roots(roots)


def _absolute(path: str, base: str | None, drives: bool, home: str | None) -> str | None:
    """The absolute, canonical form of ``path`` (no link followed), or None when it is relative and
    no base is known."""
    p = normalize(path, drives)
    if p.startswith("~/") or p == "~":
        p = normalize((home if home else os.path.expanduser("~")) + p[1:], drives)
        if p.startswith("~"):
            return None
    if is_absolute(p):
        return canonical(p)
    if base and is_absolute(base):
        return canonical(normalize(base, drives).rstrip("/") + "/" + p)
    return None


def _made_real(out: str, drives: bool) -> bool:
    return out.startswith("/") and os.sep == "/" and not drives


def _real(out: str, drives: bool) -> str:
    if _made_real(out, drives):
        # the roots are real paths too (symlinked temp folders, /private); beside Windows roots a
        # path is a Windows path (``//server/share`` a share), which this host cannot make real
        return realpath(out)
    return out


def resolve(path: str, base: str | None, drives: bool = False, home: str | None = None) -> str | None:
    """The absolute, canonical form of ``path``, or None when it is relative and no base is known,
    or when it would be made real and is longer than any path a tool can open (:data:`MAX_PATH`).
    ``drives``: the knowledge roots are Windows paths, so Git Bash's ``/c/`` is a drive. ``~`` and
    ``~/`` name ``home`` (the agent's HOME; None: this process's)."""
    out = _absolute(path, base, drives, home)
    if out is None or (len(out) >= MAX_PATH and _made_real(out, drives)):
        return None
    return _real(out, drives)


def under(path: str, roots: Iterable[str]) -> bool:
    """True when the canonical absolute ``path`` lies inside one of ``roots``."""
    for root in roots:
        r = canonical(root).rstrip("/")
        if r and path.startswith(r + "/"):
            return True
    return False


def is_markdown(path: str) -> bool:
    return path.lower().endswith(".md")


def evidence_path(raw: object, base: str | None, roots: Iterable[str], home: str | None = None
                  ) -> tuple[str, bool] | None:
    """``(path, exact)`` for a path worth recording as evidence, else None."""
    if not isinstance(raw, str) or not raw.strip() or "\x00" in raw or not is_markdown(raw.strip()):
        return None
    roots = tuple(roots)
    drives = windows_roots(roots)
    absolute = _absolute(raw, base, drives, home)
    if absolute is not None:
        if len(absolute) >= MAX_PATH and _made_real(absolute, drives):
            return None  # no tool opened a file by this name: the kernel refuses it
        resolved = _real(absolute, drives)
        return (resolved, True) if under(resolved, roots) else None
    given = normalize(raw)
    while given.startswith("./"):
        given = given[2:]
    return (given, False) if given and not given.startswith("~") else None


def _segments(path: str) -> list[str]:
    return [s for s in normalize(path).split("/") if s]


def suffix_match(given: str, printed: Iterable[str]) -> str | None:
    """The one printed path ending in ``given``'s segments (at least :data:`MIN_SUFFIX_SEGMENTS`),
    or None when there is none, when several match, or when ``given`` is too short to tell."""
    folded = posixpath.normpath(normalize(given)) if given.strip() else ""
    segs = [s for s in folded.split("/") if s and s != "."]
    while segs and segs[0] == "..":  # what follows the last leading ".." is still a true suffix
        segs.pop(0)
    if len(segs) < MIN_SUFFIX_SEGMENTS:
        return None
    found = {p for p in printed if _segments(p)[-len(segs):] == segs}
    return found.pop() if len(found) == 1 else None
