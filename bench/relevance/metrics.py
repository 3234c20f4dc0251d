"""Known-item scores: a hit is the target among the first five printed files.

MRR@5 is the mean of 1/rank of the target (0 when it is not in the first five); hit@1 and hit@5
are the shares of questions whose target is first, or in the first five.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from typing import NamedTuple

from .questions import CJK, KINDS, Question

_LATIN_WORD = re.compile(r"[A-Za-z]{2,}")

DEPTH = 5


class Stats(NamedTuple):
    n: int
    mrr: float
    hit1: float
    hit5: float


def rank(target: str, files: Sequence[str]) -> int | None:
    """1-based rank of ``target`` in the first five files, else ``None``."""
    for i, f in enumerate(files[:DEPTH], 1):
        if f == target:
            return i
    return None


def mixed(q: Question) -> bool:
    """A CJK question that also holds an English word (two Latin letters or more)."""
    return q.cjk and _LATIN_WORD.search(q.q) is not None


def slices(questions: Sequence[Question], cjk_docs: Collection[str] | None = None) -> dict[str, list[Question]]:
    """The slices reported, in this order, empty ones left out: all; cjk (any Chinese, Japanese or
    Korean in the question), then the same split three ways: en (none), zh (no English word
    either) and mixed (both); with ``cjk_docs`` (the targets written mostly in those scripts),
    cjk>en, the CJK questions about the other documents; then one slice per asset kind."""
    out: dict[str, list[Question]] = {"all": list(questions), "cjk": [q for q in questions if q.cjk],
                                      "en": [q for q in questions if not q.cjk],
                                      "zh": [q for q in questions if q.cjk and not mixed(q)],
                                      "mixed": [q for q in questions if mixed(q)]}
    if cjk_docs is not None:
        out["cjk>en"] = [q for q in questions if q.cjk and q.target not in cjk_docs]
    for kind in KINDS:
        out[kind] = [q for q in questions if q.kind == kind]
    return {name: qs for name, qs in out.items() if qs}


def stats(questions: Sequence[Question], hits: Mapping[str, Sequence[str]]) -> Stats:
    ranks = [rank(q.target, hits.get(q.id, ())) for q in questions]
    n = len(ranks)
    if not n:
        return Stats(0, 0.0, 0.0, 0.0)
    return Stats(n, sum(1 / r for r in ranks if r) / n, sum(r == 1 for r in ranks) / n,
                 sum(r is not None for r in ranks) / n)


def by_slice(questions: Sequence[Question], hits: Mapping[str, Sequence[str]],
             cjk_docs: Collection[str] | None = None) -> dict[str, Stats]:
    return {name: stats(qs, hits) for name, qs in slices(questions, cjk_docs).items()}


def cjk_documents(tree: str, targets: Collection[str]) -> frozenset[str]:
    """Those targets written mostly in CJK scripts: at least a tenth of their letters (a CJK
    character says as much as an English word of several letters, and such pages hold code)."""
    import os

    found = set()
    for target in targets:
        try:
            with open(os.path.join(tree, *target.split("/")), encoding="utf-8", errors="replace") as fh:
                text = fh.read()
        except OSError:
            continue
        letters = sum(ch.isalpha() for ch in text)
        if letters and len(CJK.findall(text)) >= letters / 10:
            found.add(target)
    return frozenset(found)


def table(title: str, results: Mapping[str, Mapping[str, Stats]]) -> str:
    """One row per slice, one column group (MRR@5, hit@1, hit@5) per tool."""
    tools = list(results)
    names = list(next(iter(results.values()))) if results else []
    head = f"{'slice':<10} {'n':>4}" + "".join(f" | {t[:26]:^26}" for t in tools)
    sub = f"{'':<10} {'':>4}" + "".join(f" | {'MRR@5':>8} {'hit@1':>8} {'hit@5':>7}" for _ in tools)
    lines = [title, head, sub, "-" * len(sub)]
    for name in names:
        n = results[tools[0]][name].n
        cells = "".join(f" | {s.mrr:8.3f} {s.hit1:8.3f} {s.hit5:7.3f}"
                        for s in (results[t][name] for t in tools))
        lines.append(f"{name:<10} {n:>4}{cells}")
    return "\n".join(lines) + "\n"
