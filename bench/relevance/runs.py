"""Running a question set through both tools on one tree, with teamai-cli's answers cached.

teamai-cli 0.25.0 is a fixed published version: for the same tree and the same questions its
answers cannot change, and a fresh run costs about a second a question plus a minute of set-up.
Its answers (and what it indexed) are kept in the user cache, keyed by the version, a digest of
every file of the tree and the questions' text; ``fresh=True`` runs it again. The reference is
always run.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Callable, Sequence
from typing import NamedTuple

from conformance.drivers import teamai_cli_home

from . import engines
from .questions import Question

Answers = dict[str, list[engines.Hit]]


class ToolRun(NamedTuple):
    name: str
    hits: Answers
    assets: dict[str, set[str]]
    cached: bool = False


def tree_digest(tree: str) -> str:
    """sha256 over every file's path and content: a changed, added or removed file changes it."""
    h = hashlib.sha256()
    for folder, dirs, files in sorted(os.walk(tree)):
        dirs.sort()
        for name in sorted(files):
            path = os.path.join(folder, name)
            h.update(os.path.relpath(path, tree).replace(os.sep, "/").encode() + b"\0")
            with open(path, "rb") as fh:
                h.update(hashlib.sha256(fh.read()).digest())
    return h.hexdigest()


def run_reference(tree: str, questions: Sequence[Question], mode: str = "inprocess") -> ToolRun:
    with tempfile.TemporaryDirectory(prefix="relevance-ref-") as state:
        ref = engines.Reference(tree, state, mode)
        assets = ref.assets()
        hits = {q.id: ref.recall(q.q) for q in questions}
    return ToolRun(ref.name, hits, assets)


def _cache_path(tree: str, questions: Sequence[Question]) -> str:
    key = hashlib.sha256(json.dumps([teamai_cli_home.VERSION, tree_digest(tree), sorted(q.q for q in questions)],
                                    ensure_ascii=False).encode()).hexdigest()[:24]
    return os.path.join(teamai_cli_home.cache_dir(), "relevance", f"{key}.json")


def run_teamai_cli(entry: str, tree: str, questions: Sequence[Question], fresh: bool = False,
                   progress: Callable[[str], None] = lambda _m: None) -> ToolRun:
    cache = _cache_path(tree, questions)
    by_text: dict[str, list[engines.Hit]] = {}
    if not fresh and os.path.exists(cache):
        with open(cache, encoding="utf-8") as fh:
            data = json.load(fh)
        by_text = {q: [engines.Hit(*h) for h in hits] for q, hits in data["hits"].items()}
        assets = {k: set(v) for k, v in data["assets"].items()}
        if all(q.q in by_text for q in questions):
            return ToolRun(f"teamai-cli {teamai_cli_home.VERSION}", {q.id: by_text[q.q] for q in questions},
                           assets, cached=True)
    with tempfile.TemporaryDirectory(prefix="relevance-cli-") as work:
        progress(f"setting up teamai-cli {teamai_cli_home.VERSION} on {tree} (about a minute)")
        cli = engines.TeamaiCli(entry, tree, work)
        assets = cli.assets()
        for i, q in enumerate(questions, 1):
            if i % 25 == 0:
                progress(f"teamai-cli: {i}/{len(questions)} questions")
            by_text[q.q] = cli.recall(q.q)
    os.makedirs(os.path.dirname(cache), exist_ok=True)
    with open(cache + ".tmp", "w", encoding="utf-8") as fh:
        json.dump({"version": teamai_cli_home.VERSION, "tree": tree,
                   "assets": {k: sorted(v) for k, v in assets.items()},
                   "hits": {q: [list(h) for h in hits] for q, hits in by_text.items()}}, fh, ensure_ascii=False)
    os.replace(cache + ".tmp", cache)
    return ToolRun(cli.name, {q.id: by_text[q.q] for q in questions}, assets)
