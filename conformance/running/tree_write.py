"""A `write` step: the harness changes files of the team tree between two commands.

A team's files change under a running implementation (a teammate's pull, an edit in an editor),
and rules such as "a file edited since it was indexed is read again" are only seen across such a
change. The harness owns the sandbox, and the `open` answer names the team tree's root folder
(`roots.team`, the folder the implementation reads), so the harness makes the change itself and
every driver gets it alike: no protocol message, no capability.

A file is written in place (the same file, truncated and rewritten, as an editor saving it does),
which leaves its folder's modification time alone unless the file is new. Its own modification
time is set to the step's instant, and pushed one second on when that would leave it unchanged,
so an implementation that trusts (mtime, size) sees an edit whose size stays the same. ``null``
deletes the file.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Mapping
from pathlib import Path, PurePosixPath


class WriteError(ValueError):
    """The step names a path outside the tree, or the tree has no root to write under."""


def target(root: str, tree_path: str) -> Path:
    """Where ``tree_path`` (as the scenario's ``team:`` block spells it) lies under ``root``."""
    rel = PurePosixPath(tree_path)
    if not tree_path or rel.is_absolute() or "\\" in tree_path or any(p in ("", ".", "..") for p in tree_path.split("/")):
        raise WriteError(f"write: {tree_path!r} is not a path inside the team tree")
    return Path(root, *rel.parts)


def apply(root: str | None, files: Mapping[str, str | None], instant: dt.datetime) -> None:
    if not root:
        raise WriteError("write: the implementation named no team root (roots.team) to write under")
    stamp = int(instant.timestamp()) * 1_000_000_000
    for tree_path, text in files.items():
        path = target(root, str(tree_path))
        if text is None:
            path.unlink(missing_ok=True)
            continue
        before = path.stat().st_mtime_ns if path.exists() else None
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "r+" if before is not None else "w", encoding="utf-8", newline="") as fh:
            fh.truncate(0)
            fh.write(str(text))
        mtime = stamp if stamp != before else stamp + 1_000_000_000
        os.utime(path, ns=(mtime, mtime))
