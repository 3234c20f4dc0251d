"""Materializing a scenario's files in a folder the harness owns.

Layout (every implementation's driver may use it; the reference's does)::

    <sandbox>/team/            the workspace team tree (none with ``windows_team``: its path is that)
    <sandbox>/user-team/       the user scope's tree (only when the scenario has ``user_team``)
    <sandbox>/learnings-<n>/   the learnings roots, in order (only with ``learnings_roots``)
    <sandbox>/withheld         the withheld codebases, one per line (a folder when "unreadable")
    <sandbox>/repo/            a git repository for review: team on main, a commit per branch
    <sandbox>/state/           the implementation's own state (TEAMAI_HOME)
    <sandbox>/home/            HOME for the commands run
    <sandbox>/links/           symbolic links to the roots, made by the harness (``${link:team}``)
"""

from __future__ import annotations

import datetime
import os
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

UNREADABLE = "unreadable"
_GIT_ENV = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull, "GIT_TERMINAL_PROMPT": "0",
            "GIT_AUTHOR_NAME": "conformance", "GIT_AUTHOR_EMAIL": "conformance@example.invalid",
            "GIT_COMMITTER_NAME": "conformance", "GIT_COMMITTER_EMAIL": "conformance@example.invalid",
            "GIT_AUTHOR_DATE": "2026-11-30T10:00:00Z", "GIT_COMMITTER_DATE": "2026-11-30T10:00:00Z"}


@dataclass
class Layout:
    root: str
    team: str
    state: str
    home: str
    user_team: str | None = None
    learnings: list[str] = field(default_factory=list)
    withheld_file: str | None = None
    repo: str | None = None


def file_text(value: Any) -> Any:
    """A tree file's text. A scenario spells a file too big to write out (a doc at a size limit) as
    ``{before, repeat, times, after}``: ``before``, then ``repeat`` ``times`` times, then ``after``."""
    if isinstance(value, Mapping):
        return (str(value.get("before") or "") + str(value.get("repeat") or "") * int(value.get("times") or 0)
                + str(value.get("after") or ""))
    return value


def expand_tree(tree: Any) -> Any:
    """``tree`` with every repeated file spelt out (the form drivers receive); anything else as given."""
    if not isinstance(tree, Mapping):
        return tree
    return {path: file_text(value) for path, value in tree.items()}


def write_tree(folder: str, files: Mapping[str, Any]) -> None:
    os.makedirs(folder, exist_ok=True)
    for rel, text in files.items():
        if text is None:
            continue
        path = os.path.join(folder, *str(rel).split("/"))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8", newline="") as fh:
            fh.write(str(text))


def materialize(root: str, message: Mapping[str, Any]) -> Layout:
    """Write the tree of an ``open`` message under ``root`` (which must exist)."""
    root = os.path.realpath(root)
    layout = Layout(root, os.path.join(root, "team"), os.path.join(root, "state"), os.path.join(root, "home"))
    if message.get("windows_team"):
        layout.team = message["windows_team"]  # a folder of another host's spelling: nothing is written there
    else:
        write_tree(layout.team, message.get("team") or {})
    os.makedirs(layout.home, exist_ok=True)
    if message.get("user_team") is not None:
        layout.user_team = os.path.join(root, "user-team")
        write_tree(layout.user_team, message["user_team"])
    for i, tree in enumerate(message.get("learnings_roots") or [], 1):
        folder = os.path.join(root, f"learnings-{i}")
        write_tree(folder, tree or {})
        layout.learnings.append(folder)
    withheld = message.get("withheld")
    if withheld is not None:
        layout.withheld_file = os.path.join(root, "withheld")
        if withheld == UNREADABLE:
            os.makedirs(layout.withheld_file)  # a folder: no one, not even root, reads it as a list
        else:
            with open(layout.withheld_file, "w", encoding="utf-8") as fh:
                fh.write("".join(f"{slug}\n" for slug in withheld))
    repo = message.get("repo")
    if repo is not None:
        layout.repo = os.path.join(root, "repo")
        make_repo(layout.repo, message.get("team") or {}, repo.get("branches") or {})
    return layout


def make_repo(folder: str, team: Mapping[str, Any], branches: Mapping[str, Mapping[str, Any]]) -> None:
    """A real git repository: ``team`` committed on main, each branch one commit on top of it.

    In a branch, a file mapped to ``null`` is deleted. The commits are written by one ``git
    fast-import`` (a process per ``add`` and ``commit`` made this most of a review case's time);
    they are the commits ``git add -A`` and ``git commit`` would make, with the same ids. The work
    tree and the index are main's.
    """
    env = {**os.environ, **_GIT_ENV}

    def git(*args: str, stdin: bytes | None = None) -> None:
        subprocess.run(["git", *args], cwd=folder, env=env, check=True, capture_output=True, input=stdin)

    write_tree(folder, team)
    git("init", "-q", "-b", "main")
    stream = _commit("refs/heads/main", "team", mark=1) + _changes({r: t for r, t in team.items() if t is not None})
    for branch, changes in branches.items():
        stream += _commit(f"refs/heads/{branch}", str(branch), parent=1)
        stream += _changes(changes or {})
    git("fast-import", "--quiet", "--done", stdin=b"".join([*stream, b"done\n"]))
    git("reset", "-q")


_GIT_WHEN = f"{int(datetime.datetime.fromisoformat(_GIT_ENV['GIT_COMMITTER_DATE']).timestamp())} +0000"


def _commit(ref: str, message: str, mark: int | None = None, parent: int | None = None) -> list[bytes]:
    who = f"{_GIT_ENV['GIT_AUTHOR_NAME']} <{_GIT_ENV['GIT_AUTHOR_EMAIL']}> {_GIT_WHEN}"
    head = [f"commit {ref}\n"] + ([f"mark :{mark}\n"] if mark else []) + [f"author {who}\n", f"committer {who}\n"]
    lines = [line.encode() for line in head] + _data((message + "\n").encode())
    return lines + ([f"from :{parent}\n".encode()] if parent else [])


def _changes(files: Mapping[str, Any]) -> list[bytes]:
    out: list[bytes] = []
    for rel, text in files.items():
        path = _quoted("/".join(str(rel).split("/")))
        if text is None:
            out.append(b"D " + path + b"\n")
        else:
            out += [b"M 100644 inline " + path + b"\n", *_data(str(text).encode("utf-8"))]
    return out


def _data(body: bytes) -> list[bytes]:
    return [f"data {len(body)}\n".encode(), body, b"\n"]


def _quoted(path: str) -> bytes:
    """A path as fast-import reads it: C-style quoted, so spaces, quotes and line breaks are plain."""
    raw = path.encode("utf-8")
    return b'"' + raw.replace(b"\\", b"\\\\").replace(b'"', b'\\"').replace(b"\n", b"\\n") + b'"'
