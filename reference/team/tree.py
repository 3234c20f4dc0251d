"""Which files of a scope are assets, and what each one is called.

The walk only lists and stats; it never reads a file. Reading and parsing happen in the index,
and only for files whose (mtime, size) changed, so a warm recall costs one stat per file.

Kinds and their names (one owner for all of them):

=========  ===========================================  ======================  =====================
kind       file                                         tree path               vote key
=========  ===========================================  ======================  =====================
rule       ``rules/**/*.md``                            ``rules/<path>.md``     ``<path>``
doc        ``docs/**/*.md``                             ``docs/<path>.md``      ``<path>``
learning   ``<root>/**/*.md`` for each learnings root   ``learnings/<id>``      id
skill      ``skills/**/<dir>/SKILL.md``                 ``skills/<dir path>``   ``<dir>`` (last name)
wiki       ``teamwiki/evidence/code/<slug>/**/*.md``    same, with ``.md``      ``<slug>/<path>``
=========  ===========================================  ======================  =====================

A rule's or doc's key is its path under ``rules/`` or ``docs/`` without ``.md``
(``rules/finance/payments.md`` is ``finance/payments``), which is the id teamai 0.25 collects
them under: two nested files with the same base name are two keys, never one shared vote.
A learning's id is its path under the root without ``.md`` (a namespace folder stays in it);
when two roots hold the same id, the first root wins and the other file is not an asset. A skill
is keyed by its folder name, as teamai keys skills. A teamwiki page is keyed ``<slug>/<path>``, so
pages whose base names collide (``index``, ``overview``) never share a vote; teamai 0.25 keys a page
it recalls as ``evidence/code/<slug>/<path>`` and counts its recalls there, so pages are the one
kind whose votes the two tools keep under different keys.

A file or folder whose name is not UTF-8 (Linux allows any bytes but ``/`` in a name) is left
out of the walk: its tree path could not be stored in the index, a vote key or a log line, nor
printed. So is a folder that cannot be listed (its permissions). The walk lists what it left out
when asked (``skipped``, as :class:`Skipped`), so ``teamai-ref index`` can say which to rename or
open up; a recall leaves them out without a word, as it would every time.

Links in the tree (:func:`_md_files`): the walk reads only real paths inside the team folder or a
learnings root. The real forms of ``rules/``, ``docs/``, ``skills/``, the wiki folder and the
learnings roots are walked directly, never through a link, and a top folder that is itself a link
out of the team is not walked. ``tests/test_tree_links.py`` checks it, with generated links.
"""

from __future__ import annotations

import os

from ..realpath import realpath

TYPE_CHECKING = False  # typing is imported only by type checkers: it costs a fresh process ~4 ms
if TYPE_CHECKING:
    from typing import NamedTuple
else:
    from .._tuples import NamedTuple

RULE, DOC, LEARNING, SKILL, WIKI = "rule", "doc", "learning", "skill", "wiki"
KINDS = (RULE, DOC, LEARNING, SKILL, WIKI)
WIKI_PREFIX = "teamwiki/evidence/code/"

# The type label recall prints in a hit header, as teamai prints it.
TYPE_LABEL = {RULE: "rules", DOC: "docs", LEARNING: "learnings", SKILL: "skills", WIKI: "docs"}


class Skipped(NamedTuple):
    """A file or folder the walk left out: for its name (``why`` None), or because it cannot be
    listed (``why``, the system's reason)."""

    path: str
    why: str | None = None


class AssetFile(NamedTuple):
    kind: str
    tree_path: str
    key: str
    path: str  # absolute path on disk; what recall prints
    mtime_ns: int
    size: int

    @property
    def codebase(self) -> str | None:
        """The codebase slug of a teamwiki page."""
        if self.kind != WIKI:
            return None
        return self.tree_path[len(WIKI_PREFIX):].split("/", 1)[0]


def _inside(path: str, folders: tuple[str, ...]) -> bool:
    return any(path == f or path.startswith(f + os.sep) for f in folders)


class _Bounds:
    """What one walk of a scope may read: only real paths inside the team or a learnings root
    (``areas``), each real folder once (``seen``), and, through a folder link, nothing the walk
    reaches under its own name (``tops``, the real forms of the folders it walks directly)."""

    __slots__ = ("areas", "tops", "seen", "skipped")

    def __init__(self, areas: tuple[str, ...], tops: tuple[str, ...], skipped: list[Skipped] | None = None) -> None:
        self.areas, self.tops = areas, tops
        self.seen: set[str] = set()
        self.skipped = skipped  # where given, what the walk left out

    def followed(self, real: str) -> bool:
        """Whether the walk goes into the real folder ``real``, reached through a folder link."""
        return _inside(real, self.areas) and not _inside(real, self.tops) and real not in self.seen

    def readable(self, path: str) -> bool:
        """Whether the file link ``path`` names a file inside the team or a learnings root."""
        return _inside(realpath(path), self.areas)


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def _md_files(top: str, bounds: _Bounds, dirs: dict[str, int] | None = None,
              within: tuple[str, ...] | None = None) -> list[tuple[str, str, int, int]]:
    """(relative posix path, absolute path, mtime_ns, size) of every ``.md`` file under ``top``;
    every folder visited goes into ``dirs`` with its mtime. With ``within``, only the files inside
    those folders are listed (the folders above them are only passed through).

    Links (a team is a checkout, and a link in it can point anywhere): a folder link is followed
    only to a real folder inside the team or a learnings root that the walk reaches under no other
    name, each real folder once, folder links in the order of their own paths after the folders
    reached without one; a file link only to a file inside them. So a link back up the tree
    indexes nothing twice and ends, and no file outside the team is ever read or printed."""
    found: list[tuple[str, str, int, int]] = []
    real_top = realpath(top)
    if not _inside(real_top, bounds.areas):
        return found
    stack = [("", top, real_top, False)]
    links: list[tuple[str, str]] = []
    while stack or links:
        if not stack:
            links.sort(reverse=True)
            rel, path = links.pop()
            stack.append((rel, path, realpath(path), True))
        rel, path, real, linked = stack.pop()
        if linked:  # reached through a folder link
            if not bounds.followed(real):
                continue
            bounds.seen.add(real)
        listing = within is None or _inside(path, within)
        if not listing and not any(f.startswith(path + os.sep) for f in within or ()):
            continue
        try:
            if dirs is not None and listing:  # before listing, so a file added meanwhile is seen next time
                dirs[path] = os.stat(path).st_mtime_ns
            entries = list(os.scandir(path))
        except (FileNotFoundError, NotADirectoryError):
            continue  # a folder the team does not have, or one removed meanwhile
        except OSError as exc:
            if bounds.skipped is not None and listing:
                bounds.skipped.append(Skipped(path, exc.strerror or type(exc).__name__))
            continue
        for entry in entries:
            name = entry.name
            if name.startswith("."):
                continue
            if not (name.isascii() or utf8(name)):
                if bounds.skipped is not None and (name.endswith(".md") or _is_dir(entry)):
                    bounds.skipped.append(Skipped(entry.path))
                continue
            try:
                if entry.is_dir():
                    if entry.is_symlink():
                        links.append((rel + name + "/", entry.path))
                    else:
                        stack.append((rel + name + "/", entry.path, real + os.sep + name, linked))
                elif listing and name.endswith(".md") and entry.is_file():
                    if entry.is_symlink() and not bounds.readable(entry.path):
                        continue
                    st = entry.stat()
                    found.append((rel + name, entry.path, st.st_mtime_ns, st.st_size))
            except OSError:
                continue
    return found


def utf8(text: str) -> bool:
    """Whether a name the OS gave (undecodable bytes escaped as lone surrogates) is UTF-8 text."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def shown(path: str) -> str:
    """A path (or any name) as it can be printed: the bytes that are not UTF-8 written as ``\\xff``
    (a lone surrogate that stands for no byte, as ``\\ud800``)."""
    if utf8(path):
        return path
    try:
        return os.fsencode(path).decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:
        return path.encode("utf-8", "backslashreplace").decode("utf-8")


def walk(team: str, learnings_roots: tuple[str, ...], skipped: list[Skipped] | None = None) -> list[AssetFile]:
    """Every asset of one scope, in a stable order (by tree path); what the walk left out goes
    into ``skipped`` where it is given."""
    return walk_with_dirs(team, learnings_roots, skipped=skipped)[0]


def dir_mtime(path: str) -> int:
    """A folder's mtime, or -1 when it is gone: adding, removing or renaming a file changes it."""
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return -1


def walk_with_dirs(team: str, learnings_roots: tuple[str, ...], within: tuple[str, ...] | None = None,
                   skipped: list[Skipped] | None = None) -> tuple[list[AssetFile], dict[str, int]]:
    """Every asset of one scope, and every folder whose change would change that list (with its
    mtime). A root that does not exist is watched through its parent, so creating it is noticed.
    With ``within`` (folders), only the assets and folders inside them: the part of the tree a
    change of those folders can have changed. A team folder or learnings root whose own path is
    not UTF-8 is left out whole, as a name is."""
    assets: dict[str, AssetFile] = {}
    dirs: dict[str, int] = {}
    named = tuple(top for top in (team, *learnings_roots) if top.isascii() or utf8(top))
    if skipped is not None:
        skipped += [Skipped(top) for top in (team, *learnings_roots) if top not in named]
    if team not in named:
        return [], dirs
    learnings_roots = named[1:]
    skills = os.path.join(team, "skills")
    wiki = os.path.join(team, *WIKI_PREFIX.rstrip("/").split("/"))
    folders = (os.path.join(team, "rules"), os.path.join(team, "docs"), skills, wiki, *learnings_roots)
    bounds = _Bounds(tuple(realpath(a) for a in (team, *learnings_roots)), tuple(realpath(f) for f in folders),
                     skipped)
    for top in (team, *learnings_roots):
        mtime = dir_mtime(top)
        watched = top if mtime >= 0 else os.path.dirname(top)
        if within is None or _inside(watched, within):
            dirs[watched] = mtime if mtime >= 0 else dir_mtime(watched)
    for folder, kind in (("rules", RULE), ("docs", DOC)):
        for rel, path, mtime, size in _md_files(os.path.join(team, folder), bounds, dirs, within):
            tree_path = f"{folder}/{rel}"
            assets[tree_path] = AssetFile(kind, tree_path, rel[:-3], path, mtime, size)
    for rel, path, mtime, size in _md_files(skills, bounds, dirs, within):
        if rel.endswith("/SKILL.md"):
            directory = rel[: -len("/SKILL.md")]
            tree_path = f"skills/{directory}"
            assets[tree_path] = AssetFile(SKILL, tree_path, directory.rsplit("/", 1)[-1], path, mtime, size)
    for rel, path, mtime, size in _md_files(wiki, bounds, dirs, within):
        if "/" not in rel:
            continue  # a page lives inside a codebase folder
        tree_path = WIKI_PREFIX + rel
        assets[tree_path] = AssetFile(WIKI, tree_path, rel[:-3], path, mtime, size)
    for root in learnings_roots:
        for rel, path, mtime, size in _md_files(root, bounds, dirs, within):
            ident = rel[:-3]
            tree_path = f"learnings/{ident}"
            if tree_path not in assets:  # first root wins
                assets[tree_path] = AssetFile(LEARNING, tree_path, ident, path, mtime, size)
    for part in ("teamwiki", "teamwiki/evidence"):
        folder = os.path.join(team, part)
        if within is None or _inside(folder, within):
            dirs[folder] = dir_mtime(folder)
    return [assets[k] for k in sorted(assets)], dirs
