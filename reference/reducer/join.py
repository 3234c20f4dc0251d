"""The join: which recalled docs a read adopts.

A read (an ``evidence`` line) adopts a doc when a settled run of the same root session printed
that doc, the read's ``ts`` lies in ``[run ts, run ts + 24 h]`` (both edges in), the doc is
``eligible``, the read is not by a maker of that root (``settle``) at or after the maker's first
marked run, and its status counts
(``success``; ``unknown`` only for a ``simple`` read). ``exact`` evidence must equal the printed
path (both in ``pathmatch.canonical`` spelling); other evidence uses ``pathmatch.suffix_match``
over every path the root's runs in the window printed (one candidate only). Each vote key is
adopted once per read, through the earliest run that printed it.

The read itself, whether its status counts and the spelling of its path are ``logread``'s:
``model`` builds the reads from the log, and the join works on the model it built.
"""

from __future__ import annotations

from ..pathmatch import suffix_match
from .logread import DAY

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .logread import Read
    from .model import Model
    from .settle import Run


class Match:
    """A read that adopts one vote key, through the earliest run in its window that printed it."""

    __slots__ = ("read", "key", "run")

    def __init__(self, read: Read, key: str, run: Run) -> None:
        self.read, self.key, self.run = read, key, run


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
