"""How recall ranks: BM25 over a document's body plus BM25 over its heads, with teamai's idf.

Each asset is indexed twice (``index.py``): its body in the ``bodies`` table and its heads (title,
tags, about, name; ``fields.py``) in the ``heads`` table. A hit's score is

    ( sum over query words w of  idf_body(w) * tf_body(w, d)  +  idf_heads(w) * tf_heads(w, d) ) / sqrt(n)

where ``tf`` is BM25's saturated, length-normalised term frequency (SQLite's ``bm25()``, k1 1.2,
b 0.75) within that view, ``idf(w) = ln((N + 1) / (df(w) + 1)) + 1`` is teamai 0.25's own idf
(``df`` counted in that view), and ``n`` is the number of query words, as teamai divides by it.

Why two views: a title word and a body word are different evidence, and BM25 judges a term's
frequency against the length of the text it is in. Scored in one table, a title match is judged
against the length of the whole document and saturates at once; scored on its own, a short
title that says what the question asks counts as it should, and a long body does not win on
repetition. Why teamai's idf instead of SQLite's: SQLite's BM25 idf is negative (and clamped to
almost zero) for a word in more than half the assets, so in a small tree a clear single hit
printed ``Score: 0.0``; teamai's never falls below 1, so every matched word counts and the score
reads on the scale teamai users know (its own relevance floor is 4.0). FTS5 does not let a
query set its idf, so each word is queried on its own and its ``bm25()`` is rescaled by
``idf / idf_fts5``, which leaves exactly the term-frequency part; the sums are made in SQL.

There is no title-or-tag gate: teamai needs one because its scores are binary TF-IDF without
length normalisation (a word mentioned once in a long page would score like a page about it),
and it already exempts docs, the largest assets. BM25 saturates and normalises, so the gate
would only drop known items whose body answers the question. Ties break by tree path.

In large trees, a word in more than a fifth of the assets (and in over ``COMMON_FLOOR`` of them)
is dropped from the query, as a stop word, when a rarer word is left: it costs the most rows to
score and tells the least. Smaller trees keep every word.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence

from . import words
from ._sqlite import sqlite3

TYPE_CHECKING = False  # typing is imported only by type checkers: it costs a fresh process ~4 ms
if TYPE_CHECKING:
    from typing import Any

COMMON_SHARE = 0.2
COMMON_FLOOR = 1000
K1 = 1.2  # SQLite's bm25(): a term's part of the score stays below idf * (K1 + 1)
PRUNE_FROM = 3000  # rows to score before a search first scores only the documents of its rarest part
VIEWS = ("bodies", "heads")

_STOP = frozenset(
    "a an and are as at be but by for from how i if in into is it its me my of on or our so that the "
    "their then there these this to was we what when where which who why will with you your do does did "
    "can could should would".split()
)
# Chinese question words and particles, as the two-character pieces ``words`` cuts: "怎么",
# "哪些", "是否" say how a question is asked, not what it is about, like "how", "which" and
# "whether" above. A piece holding a particle that stands in no content word is one too.
_CJK_STOP = frozenset(
    "怎么 什么 如何 哪些 哪个 哪里 为什 为何 是否 可以 可能 能不 不能 能否 是不 不是 有没 没有 一个 一下 "
    "这个 那个 这些 那些 这样 那样 我们 你们 他们 自己 如果 然后 还是 或者 以及 因为 所以 但是 就是 已经 "
    "时候 之后 以后 之前 以前 的话 应该 怎样 多少 一些 某个 其他 要怎 想要 请问 用什".split())
_CJK_PARTICLES = frozenset("的么吗呢吧啊")


def _stop(word: str) -> bool:
    return word in _STOP or word in _CJK_STOP or (len(word) <= 2 and any(c in _CJK_PARTICLES for c in word))


def query_terms(query: str) -> list[str]:
    """Distinct lower-case words of a query, stop words dropped (all kept if all are stop words)."""
    found = words.query_words(query)
    kept = [w for w in found if not _stop(w)]
    return kept or found


def idf(total: int, df: int) -> float:
    """teamai 0.25's idf: never below 1, so every matched word counts."""
    return math.log((total + 1) / (df + 1)) + 1


def _fts5_idf(total: int, df: int) -> float:
    """The idf SQLite's ``bm25()`` multiplies by (clamped as SQLite clamps it)."""
    return max(1e-6, math.log((total - df + 0.5) / (df + 0.5)))


def _phrase(word: str) -> str:
    quoted = '"' + word.replace('"', '""') + '"'
    return quoted + " *" if words.is_single_cjk(word) else quoted


_COLUMNS = "a.kind, a.tree_path, a.key, a.path, a.title, a.author, a.date, a.tags, a.relations, a.snippet"


def search(conn: sqlite3.Connection, terms: Sequence[str], limit: int, total: int,
           withheld: frozenset[str] = frozenset()) -> list[tuple[Any, ...]]:
    """Rows (score, columns…) of the best ``limit`` assets; ``total`` is how many are indexed."""
    if not terms or total <= 0:
        return []
    df = {(view, t): conn.execute(f"SELECT count(*) FROM {view} WHERE {view} MATCH ?", (_phrase(t),)).fetchone()[0]
          for view in VIEWS for t in terms}
    kept = list(terms)
    if total > COMMON_FLOOR:
        common = max(COMMON_SHARE * total, COMMON_FLOOR)
        rare = [t for t in terms if df["bodies", t] <= common]
        kept = rare or sorted(terms, key=lambda t: df["bodies", t])[:1]
    scale = 1 / math.sqrt(len(terms))
    parts = []  # (view, word, factor, rows), in the order their contributions are summed
    for view in VIEWS:
        for t in kept:
            n = df[view, t]
            if n:
                parts.append((view, t, scale * idf(total, n) / _fts5_idf(total, n), n))
    if not parts:
        return []
    if sum(p[3] for p in parts) >= PRUNE_FROM and len(parts) > 1:
        # Score first only the documents holding the rarest part; the others can only make the
        # cut if what they may still gain beats the limit-th best score found.
        rarest = min(range(len(parts)), key=lambda i: (parts[i][3], i))
        rest = [p for i, p in enumerate(parts) if i != rarest]
        bound = sum(scale * idf(total, p[3]) for p in rest) * (K1 + 1) * (1 + 1e-9)
        rows = _best(conn, parts, limit, withheld, frozenset({rarest}))
        if len(rows) == limit and rows[-1][0] > bound:
            return rows
    return _best(conn, parts, limit, withheld, None)


def _best(conn: sqlite3.Connection, parts: list[tuple[str, str, float, int]], limit: int,
          withheld: frozenset[str], among: frozenset[int] | None) -> list[tuple[Any, ...]]:
    """The best ``limit`` rows by the sum of the parts' scores; with ``among``, only over the
    documents that hold one of those parts (their sums are still whole: every part counts)."""
    sql_parts, args = [], []
    for i, (view, t, factor, _) in enumerate(parts):
        only = " AND +rowid IN (SELECT id FROM k)" if among is not None and i not in among else ""
        sql_parts.append(f"SELECT rowid, {-factor!r} * bm25({view}) FROM {view} WHERE {view} MATCH ?{only}")
        args.append(_phrase(t))
    head, head_args = "WITH ", []
    if among is not None:
        keys = [f"SELECT rowid FROM {parts[i][0]} WHERE {parts[i][0]} MATCH ?" for i in sorted(among)]
        head = f"WITH k(id) AS MATERIALIZED ({' UNION '.join(keys)}), "
        head_args = [_phrase(parts[i][1]) for i in sorted(among)]
    # MATERIALIZED: bm25() may only run in a query on its own table, never inside a flattened one.
    summed = (f"{head}m(id, s) AS MATERIALIZED ({' UNION ALL '.join(sql_parts)}),"
              " t(id, s) AS MATERIALIZED (SELECT id, sum(s) FROM m GROUP BY id)")
    hidden = " AND (a.codebase IS NULL OR a.codebase NOT IN (SELECT value FROM json_each(?)))" if withheld else ""
    extra = [json.dumps(sorted(withheld))] if withheld else []
    # Only the rows that can make the cut are joined with their asset rows: those scoring at
    # least the limit-th best score (so every tie at the cut is there to be broken by tree path).
    cut = f"SELECT t.s FROM t JOIN assets a ON a.id = t.id WHERE 1{hidden}" if withheld else "SELECT s FROM t"
    sql = (f"{summed}, c(s) AS ({cut} ORDER BY 1 DESC LIMIT 1 OFFSET ?)"
           f" SELECT t.s AS score, {_COLUMNS} FROM t JOIN assets a ON a.id = t.id"
           f" WHERE t.s >= coalesce((SELECT s FROM c), -1e308){hidden}"
           " ORDER BY score DESC, a.tree_path ASC LIMIT ?")
    return conn.execute(sql, (*head_args, *args, *extra, limit - 1, *extra, limit)).fetchall()
