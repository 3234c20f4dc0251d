"""Known-item scores: a hit is the target among the first five printed files.

MRR@5 is the mean of 1/rank of the target (0 when it is not in the first five); hit@1 and hit@5
are the shares of questions whose target is first, or in the first five.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

from .questions import KINDS, Question

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


def slices(questions: Sequence[Question]) -> dict[str, list[Question]]:
    """The slices reported: all, CJK, and one per asset kind (in that order, empty ones left out)."""
    out: dict[str, list[Question]] = {"all": list(questions), "cjk": [q for q in questions if q.cjk]}
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


def by_slice(questions: Sequence[Question], hits: Mapping[str, Sequence[str]]) -> dict[str, Stats]:
    return {name: stats(qs, hits) for name, qs in slices(questions).items()}


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
