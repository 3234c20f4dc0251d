"""The join: which recalled docs a read adopts.

A read (an ``evidence`` line) adopts a doc when a settled run of the same root session printed
that doc, the read's ``ts`` lies in ``[run ts, run ts + 24 h]`` (both edges in), the doc is
``eligible``, the read is not by a maker of that root (``settle``) at or after the maker's first
marked run, and its status counts
(``success``; ``unknown`` only for a ``simple`` read). ``exact`` evidence must equal the printed
path (both in ``pathmatch.canonical`` spelling); other evidence uses ``pathmatch.suffix_match``
over every path the root's runs in the window printed (one candidate only). Each vote key is
adopted once per read, through the earliest run that printed it.
"""

from __future__ import annotations

from ..pathmatch import canonical, suffix_match
from .logread import DAY

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .logread import EvidenceId
    from .model import Model
    from .settle import Maker, Run


class Read:
    """A pending read (an evidence line with no consumed line)."""

    __slots__ = ("ident", "ts", "session", "root", "actor", "path", "exact", "counts")

    def __init__(self, ident: EvidenceId, ts: int, session: str, root: str, actor: Maker, path: str,
                 exact: bool, counts: bool) -> None:
        self.ident, self.ts, self.session, self.root, self.actor = ident, ts, session, root, actor
        self.path, self.exact = path, exact
        self.counts = counts  # its status lets it count


class Match:
    """A read that adopts one vote key, through the earliest run in its window that printed it."""

    __slots__ = ("read", "key", "run")

    def __init__(self, read: Read, key: str, run: Run) -> None:
        self.read, self.key, self.run = read, key, run


def counts(status: object, simple: object) -> bool:
    """Whether a read's status lets it count: a failed call never does, an unknown one only when
    it was a simple read."""
    return status == "success" or (status == "unknown" and simple is True)


def matches(model: Model, read: Read) -> list[Match]:
    """The docs this read adopts, one match per vote key."""
    if not read.counts:
        return []
    since = model.makers.get(read.root, {}).get(read.actor)
    if since is not None and since <= read.ts:
        return []
    window = [r for r in model.runs.get(read.root, ()) if r.ts <= read.ts <= r.ts + DAY]
    if not window:
        return []
    target = read.path if read.exact else suffix_match(read.path, {p for r in window for p in r.printed})
    if target is None:
        return []
    found: dict[str, Match] = {}
    for run in window:
        for key in run.eligible.get(target, ()):
            if key not in found:
                found[key] = Match(read, key, run)
    return list(found.values())


_COMPARABLE: dict[str, str] = {}


def comparable(path: str) -> str:
    """The printed path in the spelling exact evidence uses (``pathmatch.canonical``); a plain
    POSIX path is already in it, so the costly fold runs only for unusual spellings."""
    if "\\" not in path and "/." not in path and "//" not in path and path[1:2] != ":":
        return path
    value = _COMPARABLE.get(path)
    if value is None:
        value = _COMPARABLE[path] = canonical(path)
    return value
