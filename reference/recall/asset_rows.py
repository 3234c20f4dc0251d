"""What one asset file adds to the index: read, parse, cut into words, find its relations.

This is all the per-file work of indexing, and none of it touches the index, so
``index_build.py`` writes the results in batches and a large build spreads the files over worker
processes: the work is Python and holds the interpreter's lock, so threads would not help, and
it is the bulk of a cold build. The parts come back in the order the files were given and every warning is
said by the calling process in that order, so a build says and stores exactly what it would
say and store file by file.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterator, Sequence

from ..team import fields, frontmatter, tree
from . import words

TYPE_CHECKING = False  # typing is imported only by type checkers: it costs a fresh process ~4 ms
if TYPE_CHECKING:
    from typing import Any

MAX_INDEXED_BYTES = 1 << 20  # a larger asset is indexed up to here, with a warning
# Below this many files a build stays in one process: starting workers costs tens of ms.
PARALLEL_FROM = 1000
MAX_WORKERS = 4
# How much lower the workers' priority is than the calling process's. The caller writes every
# row into the index, one writer that no worker can help, and a build takes as long as it does;
# so when the cores are all busy the writer goes first, and the workers use what it leaves.
WORKER_NICENESS = 5
# The stored JSON columns. ``json.dumps`` with any option builds a new encoder on every call,
# which a build of many files pays twice per file.
_json = json.JSONEncoder(ensure_ascii=False).encode
_sorted_json = json.JSONEncoder(ensure_ascii=False, sort_keys=True).encode

Warn = Callable[[str], None]


class FileProblem(str):
    """A warning about one asset file (unreadable, not UTF-8, too large, bad frontmatter). A command
    that indexes a whole tree sums these up in one line rather than one per file: a real tree can
    hold hundreds of them (``teamai-ref index --problems`` lists them)."""

    __slots__ = ()


class Prepared:
    """The rows one asset adds. (A plain class: a named tuple costs every recall's import more
    than this costs a build.)"""

    __slots__ = ("asset", "columns", "heads", "body", "targets")

    def __init__(self, asset: tree.AssetFile, columns: tuple[Any, ...] | None, heads: tuple[str, str, str, str],
                 body: str, targets: tuple[str, ...]) -> None:
        self.asset = asset
        self.columns = columns  # title, author, date, tags, relations, snippet; None: not readable
        self.heads = heads  # title, tags, about, name, cut into words
        self.body = body  # cut into words
        self.targets = targets  # tree paths its relations name, for the edges table


def _read(asset: tree.AssetFile, warn: Warn) -> frontmatter.Parsed | None:
    try:
        with open(asset.path, "rb") as fh:
            data = fh.read(MAX_INDEXED_BYTES + 1)
    except OSError as exc:
        warn(FileProblem(f"{asset.path}: cannot be read ({exc.strerror}); skipped. Check its permissions."))
        return None
    truncated = len(data) > MAX_INDEXED_BYTES
    if truncated:  # cut at the last line break, so no character is split
        data = data[:MAX_INDEXED_BYTES].rsplit(b"\n", 1)[0]
    try:
        text = frontmatter.decode(data)
    except UnicodeDecodeError:
        warn(FileProblem(f"{asset.path}: not UTF-8 text; skipped. Save it as UTF-8 or remove it."))
        return None
    if truncated:
        warn(FileProblem(f"{asset.path}: larger than {MAX_INDEXED_BYTES >> 20} MiB; only the start is indexed. "
                         "Split it into smaller assets."))
    return frontmatter.split(text)


def prepare(asset: tree.AssetFile, warn: Warn) -> Prepared:
    """The rows of one asset; a file that cannot be read is stored as not searchable."""
    parsed = _read(asset, warn)
    if parsed is None:
        return Prepared(asset, None, ("", "", "", ""), "", ())
    from ..relations import extract  # only indexing needs it

    if parsed.problem:
        warn(FileProblem(f"{asset.path}: {parsed.problem}; frontmatter skipped, body indexed. Fix the frontmatter."))
    meta = parsed.meta
    title = fields.title(asset, meta, parsed.body)
    tags = frontmatter.tags_field(meta)
    relations = extract.outgoing(asset.kind, asset.tree_path, meta if not parsed.problem else {}, parsed.body)
    columns = (title, frontmatter.text_field(meta, "author"), frontmatter.text_field(meta, "date"),
               _json(tags), _sorted_json(relations),
               fields.snippet(parsed.body) if asset.kind == tree.WIKI else None)
    cut = words.for_index
    about = fields.about(asset, meta if not parsed.problem else (parsed.salvaged or {}), parsed.body)
    heads = (cut(title), cut(" ".join(tags)), cut(about), cut(fields.name(asset)))
    targets = {t for _, t in relations.get("declared", ())} | set(relations.get("links", ()))
    return Prepared(asset, columns, heads, cut(parsed.body), tuple(sorted(targets)))


def left_out(skipped: tree.Skipped) -> FileProblem:
    """What is said of a file or folder the walk left out (``tree.walk``)."""
    if skipped.why is None:
        return FileProblem(f"{tree.shown(skipped.path)}: its name is not UTF-8; skipped. Rename it.")
    return FileProblem(f"{tree.shown(skipped.path)}: cannot be listed ({skipped.why}); skipped. Check its permissions.")


def problems(assets: Sequence[tree.AssetFile], skipped: Sequence[tree.Skipped] = ()) -> list[str]:
    """What indexing would say about each of these files, read again without indexing them, and
    about each file or folder the walk left out."""
    said: list[str] = [left_out(s) for s in skipped]
    for asset in assets:
        parsed = _read(asset, said.append)
        if parsed is not None and parsed.problem:
            said.append(f"{asset.path}: {parsed.problem}; frontmatter skipped, body indexed. Fix the frontmatter.")
    return said


def prepared(assets: Sequence[tree.AssetFile], warn: Warn) -> Iterator[Prepared]:
    """Every asset prepared, in order, in this process."""
    return (prepare(asset, warn) for asset in assets)


def workers(count: int) -> int:
    """How many worker processes a build of ``count`` files should spread over (1: none)."""
    if count < PARALLEL_FROM or sys.platform not in ("linux", "freebsd"):
        return 1  # elsewhere a worker would start a fresh interpreter and import all of this again
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return min(cores, MAX_WORKERS)


# Files per part handed to a worker. Small enough that the writer starts soon after the walk,
# large enough that a part's fixed costs (a message each way, a database to open) stay small.
PART = 256
Pack = Callable[[list[Prepared], int], bytes]
_parts_of: tuple[Sequence[tree.AssetFile], Pack] | None = None  # set in each worker by the fork


def _start_worker(assets: Sequence[tree.AssetFile], pack: Pack) -> None:
    global _parts_of
    _parts_of = (assets, pack)
    try:
        os.nice(WORKER_NICENESS)
    except OSError:  # a platform that refuses: the same build, only the order of work differs
        pass


def _packed_part(task: tuple[int, int, int]) -> tuple[bytes, list[str]]:
    """In a worker: one part's rows, packed, and the warnings, to be said by the calling process."""
    start, stop, first_id = task
    assert _parts_of is not None
    assets, pack = _parts_of
    said: list[str] = []
    return pack([prepare(asset, said.append) for asset in assets[start:stop]], first_id), said


def packed_parts(assets: Sequence[tree.AssetFile], warn: Warn, pack: Pack, first_id: int,
                 count: int) -> Iterator[bytes]:
    """The assets prepared across ``count`` worker processes, a part at a time, in order: each
    part's rows as ``pack`` gives them (with ids counting up from ``first_id``), after its
    warnings have been said. The workers are forked, so they have the list without a copy being
    sent, and what comes back is one packed value per part rather than a message per file: the
    calling process, which writes every row, then spends its time writing."""
    import multiprocessing

    from ..relations import extract  # noqa: F401 - imported before the workers start, not in each

    tasks = [(i, min(i + PART, len(assets)), first_id + i) for i in range(0, len(assets), PART)]
    context = multiprocessing.get_context("fork")
    with context.Pool(count, initializer=_start_worker, initargs=(assets, pack)) as pool:
        for data, said in pool.imap(_packed_part, tasks):
            for message in said:
                warn(message)
            yield data
        # Let the workers finish rather than be terminated on leaving the block: a process killed
        # while it exits can leave half-written files behind (a measuring tool's data, say).
        pool.close()
        pool.join()
