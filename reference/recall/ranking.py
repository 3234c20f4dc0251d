"""How recall ranks: BM25 over a document's body plus BM25 over its heads, with teamai's idf.

Each asset is indexed twice (``index.py``, filled by ``index_build.py``): its body in the
``bodies`` table and its heads (title, tags, about, name; ``fields.py``) in the ``heads`` table.
A hit's score is

    ( sum over query concepts c of  best_body(c, d)  +  best_heads(c, d) ) / sqrt(n)
    best_view(c, d) = weight(c) * max over spellings s of c of  t(s) * idf_view(s) * tf_view(s, d)

where ``tf`` is BM25's saturated, length-normalised term frequency within that view: in the
heads, SQLite's ``bm25()`` as it is (k1 1.2, b 0.75); in the body, k1 ``BODY_K1`` (2.0) and b
``BODY_B`` (0.9). ``idf(s) = ln((N + 1) / (df(s) + 1)) + 1`` is teamai 0.25's own idf (``df``
counted in that view), and ``n`` is the number of query concepts, as teamai divides by the
number of words.

Why the body has its own k1 and b (issue 37): long, generic documents (changelogs, READMEs,
usage guides) mention nearly every word of a question, each several times, and with k1 1.2 and
b 0.75 each of those mentions already scored almost as much as in the page about it; so they
collected many weak matches and came first. With b 0.9 a term's frequency is judged more
strictly against the body's length, and with k1 2.0 the frequency saturates later, so a page
that keeps returning to the question's words (the page about them) stands out from one that
names them in passing. FTS5 fixes ``bm25()``'s k1 and b, so the frequency is taken back out of
it: each body's length in words, as FTS5 counted it, is stored in the index (``lengths``, with
their average in ``meta``), and from ``x = bm25 / idf_fts5 = (k1 + 1) tf / (tf + K)`` with
``K = k1 (1 - b + b dl / avgdl)`` the part is scored again with the body's k1 and b, in SQL.
Measured (MRR@5, ``nox -s relevance``): real-team-a 0.800 -> 0.803, held-out pydocs 0.736 ->
0.785, hatch 0.755 -> 0.796, ydoc 0.969 unchanged. A document-length prior (the body's score
divided by ``1 + a ln(dl / avgdl)``) was measured too and not kept: it helped pydocs and hatch
by about 0.02 and cost real-team-a's Chinese questions 0.02-0.05, since it also sinks the long
pages that are what a question asks for (an operations guide, a changelog asked about).
What else was measured and not kept is in ``bench/relevance/README.md``.

A concept (:func:`query_terms`, issue 37) is a query word with the other spellings it may have in a
document: a ``camelCase`` name and the phrase of its parts, a dotted name (``t.Run``) as the
phrase of its parts, an abbreviation and its full form, a British spelling and its American one
(``british_spellings.txt``), a Chinese word and its English words, an operator written as symbols and its
name (``glossary.py``). The best spelling counts, once:
a brand split into parts no longer counts three times, and "PR" finds "pull request". A
concept's weight is 1, but a two-character piece of a Chinese run weighs ``CJK_PIECE_WEIGHT``:
a run of n characters gives n - 1 overlapping pieces, so unweighted a Chinese question counted
each of its words about twice, and its rare pieces outweighed the one English term that
mattered. ``t(s)`` is 1, or ``TRANSLATED`` for the English words of a Chinese term: a
translation is weaker evidence than the question's own words, so where a tree holds a page in
both languages, the one in the question's language comes first. A Chinese word with English
spellings is one concept, weighing 1 as an English word does; where the glossary lacks the word,
those spellings are its everyday senses in CC-CEDICT (``TRANSLATED_LOOSELY``, weaker again). A
two-character piece that straddles two of the dictionary's words counts ``ACROSS_WORDS``
of a piece: it only tells the words' order.

Why two views: a title word and a body word are different evidence, and BM25 judges a term's
frequency against the length of the text it is in. Scored in one table, a title match is judged
against the length of the whole document and saturates at once; scored on its own, a short
title that says what the question asks counts as it should, and a long body does not win on
repetition. Why teamai's idf instead of SQLite's: SQLite's BM25 idf is negative (and clamped to
almost zero) for a word in more than half the assets, so in a small tree a clear single hit
printed ``Score: 0.0``; teamai's never falls below 1, so every matched word counts and the score
reads on the scale teamai users know (its own relevance floor is 4.0). FTS5 does not let a
query set its idf, so each word is queried on its own and its ``bm25()`` is rescaled by
``idf / idf_fts5``, which leaves exactly the term-frequency part (in the body, normalised again
as above); the sums are made in SQL.

There is no title-or-tag gate: teamai needs one because its scores are binary TF-IDF without
length normalisation (a word mentioned once in a long page would score like a page about it),
and it already exempts docs, the largest assets. BM25 saturates and normalises, so the gate
would only drop known items whose body answers the question. Ties break by tree path.

In large trees, a word in more than a fifth of the assets (and in over ``COMMON_FLOOR`` of them)
is dropped from the query, as a stop word, when a rarer word is left: it costs the most rows to
score and tells the least. Smaller trees keep every word.

Relations never change hits, their order or scores (a property test). Measured with
``nox -s relevance`` (known-item questions, ``bench/relevance/``) and checked on held-out trees
nobody tuned on; every choice is a rule, never a fix for one question.

Where this follows teamai 0.25's ``search()`` and where it departs on purpose (the differential
recall test names each difference in the hit lists by the names in brackets):

- gate: teamai needs a query word in the title or tags (docs and pages exempt); here no kind has a
  gate (``docs-body-match``), see above.
- fields and weights: teamai scores binary presence (title x3, tag x2, anywhere x1); here BM25 of
  the body (k1 2.0, b 0.9) plus BM25 of the heads (k1 1.2, b 0.75), equal weights, so skills are
  found by their description.
- title: teamai takes frontmatter ``title``, else a rule's, doc's or learning's id without ``.md``
  and a ``-YYYY-MM-DD…`` suffix (``-`` and ``_`` as spaces), never a ``# heading``, and a skill's
  folder name; here frontmatter ``title`` (a skill's ``name``), else the leading ``# heading``,
  else the key's last part (``title-source``; ``team/fields.py``).
- tokens: teamai uses ICU word segmentation for Chinese, bigrams of single-character runs,
  camelCase parts, no stemming; here every CJK run as two-character pieces, camelCase and
  snake_case parts, Porter stemming of English (``cjk-tokens``; ``words.py``); a question's
  pieces are grouped into CC-CEDICT's words, each looked for with its English too.
- stop words: teamai has none; here English question words and Chinese question words and
  particles.
- idf: the same ``ln((N+1)/(df+1)) + 1``, in each view, so the printed score reads on teamai's
  scale.
- score: teamai multiplies TF-IDF / sqrt(n) plus a vote bonus by domain and type multipliers and
  hotness; here BM25 with that idf / sqrt(n), and votes never change a ranking (a ledger is per
  user and local), no multipliers (``score-scale``).
- teamwiki pages: teamai searches them in a separate BM25 pass (at most 3, score
  ``min(10, 2·log2(s+1))``, printed as ``[docs]`` with a ``Snippet:``, keyed
  ``evidence/code/<slug>/<path>``); here they are ranked with everything else (``wiki-ranker``),
  keyed ``<slug>/<path>``.
- ties: teamai by date, newest first, dropping identical entries; here scope, then tree path,
  nothing dropped (``tie-order``).
- limit, scopes, shadowing: the same (5 per scope, merged, 5; a project entry hides a user entry
  of the same kind and key; ``run.py``).
- large trees: teamai scans every entry; here the common-word rule above.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from ..state import jsontext
from . import words
from ._sqlite import sqlite3
from .glossary import LOOSE

TYPE_CHECKING = False  # typing is imported only by type checkers: it costs a fresh process ~4 ms
if TYPE_CHECKING:
    from typing import Any

COMMON_SHARE = 0.2
COMMON_FLOOR = 1000
K1, B = 1.2, 0.75  # SQLite's bm25(): a term's part of the score stays below idf * (K1 + 1)
# The body view's own BM25 parameters (its frequencies are taken back out of bm25() and
# normalised again; see the module's docstring): a term's repeats count for more before they
# saturate, and are judged more strictly against the body's length.
BODY_K1, BODY_B = 2.0, 0.9
PRUNE_FROM = 3000  # rows to score before a search first scores only the documents of its rarest part
VIEWS = ("bodies", "heads")

ENGLISH_STOP = frozenset(
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
    return word in ENGLISH_STOP or word in _CJK_STOP or (len(word) <= 2 and any(c in _CJK_PARTICLES for c in word))


# A query term is a concept: its spellings, joined by ALT (``pr|pull request``). A spelling may
# carry a mark that says it is weaker evidence: ``glossary.LOOSE``, an everyday sense of a Chinese
# word (``显示|~show``), or ACROSS, a piece across two Chinese words (``^个显``).
ACROSS = "^"
ALT = "|"
CJK_PIECE_WEIGHT = 0.5  # a two-character piece of a Chinese run: each character stands in two of them
# A concept asked in Chinese and found through its English words (glossary.py) weighs this much
# of what its Chinese spelling would: a translation is weaker evidence than the question's own
# words, so where a tree has the page in both languages the one in the question's wins.
TRANSLATED = 0.6
# An everyday sense of a Chinese word (``glossary.LOOSE``, from CC-CEDICT's word list) weighs less
# again: it is the word's general meaning, not its meaning in software.
TRANSLATED_LOOSELY = 0.4
# A piece across two words of a Chinese run (marked ACROSS) counts this much of a piece: enough
# to put the page that has the words in the question's order first, too little to outweigh a word.
# Measured: from 0.1 to 0.5 no question of the four sets moves; at 1 (every piece alike) the
# Chinese questions of real-team-a fall from 0.845 to 0.830 and pydocs' from 0.805 to 0.802.
ACROSS_WORDS = 0.5


def _spelling(concept: Sequence[str], spelling: str) -> tuple[str, float]:
    """A spelling as the index is asked for it, and ``t(s)``: how much it counts."""
    if spelling.startswith(LOOSE):
        return spelling[len(LOOSE):], TRANSLATED_LOOSELY
    if spelling.startswith(ACROSS):
        return spelling[len(ACROSS):], ACROSS_WORDS
    return spelling, TRANSLATED if spelling.isascii() and not concept[0].isascii() else 1.0


def query_terms(query: str) -> list[str]:
    """The concepts of a query, each one or more spellings joined by :data:`ALT`, stop words
    dropped (all kept if all are stop words).

    A concept counts once however many of its spellings a document holds (:func:`search` takes
    the best of them): a ``camelCase`` name and its parts (``rocketmq|rocket mq``: a brand is one
    word, not three), an abbreviation and what it stands for (``pr|pull request``, either way
    round, from :mod:`glossary`), a British spelling and its American one (``colour|color``,
    :func:`glossary.american`), a Chinese word and its English words (``日志|log|logging``, or
    its everyday senses: ``显示|~show``), an operator standing alone and its name (``??`` ->
    ``nullish coalescing``). The rest of a Chinese run is cut into its two-character pieces, as
    the index cuts it, each weighing :data:`CJK_PIECE_WEIGHT`, a piece across two words less
    (:func:`_cjk_concepts`). Stop words are dropped as the question spells them: "怎么" goes
    although the dictionary translates it."""
    query = words.folded(query)
    found: list[tuple[str, ...]] = _operators(query)
    if query.isascii():
        found += _latin_concepts(query)
    else:
        at = 0
        for run in words.cjk_runs(query):
            found += _latin_concepts(query[at:run.start()])
            found += _cjk_concepts(run.group())
            at = run.end()
        found += _latin_concepts(query[at:])
    concepts = list(dict.fromkeys(ALT.join(dict.fromkeys(c)) for c in found))
    kept = [c for c in concepts if not _stop(c.split(ALT, 1)[0].lstrip(ACROSS))]  # as the question spells it
    return kept or concepts


def _operators(query: str) -> list[tuple[str, ...]]:
    """The named operators a query writes as symbols standing alone (``the ?? operator``,
    quoted or not), each a concept spelt by its name (:data:`glossary.OPERATORS`)."""
    if not any(c in query for c in "?|*=.<:&"):
        return []
    from . import glossary

    out: list[tuple[str, ...]] = []
    for token in query.split():
        name = glossary.OPERATORS.get(token.strip("`'\"()"))
        if name is not None:
            out.append((name,))
    return out


def _latin_concepts(text: str) -> list[tuple[str, ...]]:
    """The concepts of text without Chinese: a dotted name is one, the phrase of its parts
    (``t.Run`` -> ``t run``: the page that writes it, not every page with "t" and "run"), as a
    ``camelCase`` name is one; the other words as :func:`_plain_concepts` reads them."""
    out: list[tuple[str, ...]] = []
    at = 0
    for start, end in words.dotted_names(text):
        out += _plain_concepts(text[at:start])
        out.append((" ".join(w.lower() for w in words.plain_words(text[start:end])),))
        at = end
    return out + _plain_concepts(text[at:])


def _plain_concepts(text: str) -> list[tuple[str, ...]]:
    from . import glossary

    tokens = words.plain_words(text)
    out: list[tuple[str, ...]] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        low = token.lower()
        full = _full_form_at(tokens, i)
        if full is not None:
            phrase, abbreviations, length = full
            out.append((phrase, *abbreviations))
            i += length
            continue
        parts = words.name_parts(token)
        if len(parts) > 1:
            out.append((low, " ".join(p.lower() for p in parts)))
        elif low in glossary.ABBREVIATIONS:
            out.append((low, glossary.ABBREVIATIONS[low]))
        else:  # "customise" finds the page that says "customize"
            american = glossary.american(low)
            out.append((low,) if american is None else (low, american))
        i += 1
    return out


_full_forms: dict[tuple[str, ...], tuple[str, ...]] | None = None


def _full_form_at(tokens: list[str], i: int) -> tuple[str, tuple[str, ...], int] | None:
    """The full form of an abbreviation that starts at ``tokens[i]`` (longest first), with the
    abbreviations it is written as and how many tokens it spans."""
    global _full_forms
    if _full_forms is None:
        from . import glossary

        table: dict[tuple[str, ...], list[str]] = {}
        for short, long in glossary.ABBREVIATIONS.items():
            if " " in long:  # a single full word is not looked for as its abbreviation
                table.setdefault(tuple(long.split()), []).append(short)
        _full_forms = {k: tuple(v) for k, v in table.items()}
    for length in (4, 3, 2):
        key = tuple(t.lower() for t in tokens[i:i + length])
        if len(key) == length and key in _full_forms:
            return " ".join(key), _full_forms[key], length
    return None


def _cjk_concepts(run: str) -> list[tuple[str, ...]]:
    """A Chinese (or Japanese, Korean) run: its words that have English spellings, longest first
    from the left, each a concept with its English words (:func:`glossary.english`), and the
    run's two-character pieces that are not inside one of them.

    A piece that lies inside no dictionary word, while one of its characters belongs to one,
    straddles two words ("个显" in "一个显示", "示版" in "显示版本"): it says nothing the question
    asks, and a rare one outweighed the words that matter, matching only the long Chinese pages of
    a mostly English tree. It is kept, marked :data:`ACROSS`, only to tell the words' order (a page
    with "消息模型" before one with "模型消息"). Among characters no dictionary word holds (a
    team's own term, "刷盘"), every piece counts, as the index cuts them."""
    from . import glossary

    if len(run) < 2:
        return [(run,)]
    size = len(run)
    covered = [False] * size  # a character that a dictionary word in the run holds
    inside = [False] * size  # a piece (i, i + 1) that a dictionary word in the run holds whole
    spelled: dict[int, list[tuple[int, tuple[str, ...]]]] = {}  # start -> (length, English), longest first
    _, longest = glossary.chinese()
    for start in range(size - 1):
        for length in range(min(max(longest, glossary.LONGEST_WORD), size - start), 1, -1):
            english = glossary.english(run[start:start + length])
            if english is not None:
                covered[start:start + length] = [True] * length
                inside[start:start + length - 1] = [True] * (length - 1)
                if english:
                    spelled.setdefault(start, []).append((length, english))
    term_of = [-1] * size  # which concept each character belongs to
    terms: list[tuple[str, ...]] = []
    i = 0
    while i < size:
        found = spelled.get(i)
        if found:
            length, english = found[0]
            term_of[i:i + length] = [len(terms)] * length
            terms.append((words.pieces_phrase(run[i:i + length]), *english))
            i += length
        else:
            i += 1
    out: list[tuple[str, ...]] = []
    done: set[int] = set()
    for i in range(size - 1):
        term = term_of[i]
        if term >= 0 and term not in done:
            out.append(terms[term])
            done.add(term)
        if term >= 0 and term_of[i + 1] == term:
            continue  # inside the term
        across = not inside[i] and (covered[i] or covered[i + 1])
        out.append((ACROSS + run[i:i + 2],) if across else (run[i:i + 2],))
    return out


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


def _weight(spellings: Sequence[str]) -> float:
    """A lone piece of a Chinese run weighs less: a run of n characters gives n - 1 pieces."""
    only = spellings[0]
    return CJK_PIECE_WEIGHT if len(spellings) == 1 and not only.isascii() and " " not in only else 1.0


def search(conn: sqlite3.Connection, terms: Sequence[str], limit: int, total: int,
           withheld: frozenset[str] = frozenset(), average: float | None = None) -> list[tuple[Any, ...]]:
    """Rows (score, columns…) of the best ``limit`` assets; ``total`` is how many are indexed,
    ``average`` the bodies' average length in words (counted when not given).
    ``terms`` are concepts (:func:`query_terms`)."""
    if not terms or total <= 0:
        return []
    if average is None:
        average = conn.execute("SELECT avg(words) FROM lengths").fetchone()[0] or 1.0
    written = [t.split(ALT) for t in terms]
    concepts = [list(dict.fromkeys(_spelling(c, a) for a in c)) for c in written]  # (spelling, t(s))
    spellings = list(dict.fromkeys(a for c in concepts for a, _ in c))
    df = {(view, a): conn.execute(f"SELECT count(*) FROM {view} WHERE {view} MATCH ?", (_phrase(a),)).fetchone()[0]
          for view in VIEWS for a in spellings}
    kept = list(range(len(concepts)))
    if total > COMMON_FLOOR:
        common = max(COMMON_SHARE * total, COMMON_FLOOR)
        rare = [i for i in kept if max(df["bodies", a] for a, _ in concepts[i]) <= common]
        kept = rare or sorted(kept, key=lambda i: max(df["bodies", a] for a, _ in concepts[i]))[:1]
    scale = 1 / math.sqrt(len(terms))
    parts = []  # (view, spelling, factor, rows, group, cap), in the order their contributions are summed
    for view in VIEWS:
        for i in kept:
            weight = _weight(written[i])
            for a, t in concepts[i]:
                n = df[view, a]
                if n:
                    cap = weight * t * scale * idf(total, n)
                    parts.append((view, a, cap / _fts5_idf(total, n), n, f"{view}{i}", cap))
    if not parts:
        return []
    if sum(p[3] for p in parts) >= PRUNE_FROM and len(parts) > 1:
        # Score first only the documents holding the rarest part; the others can only make the
        # cut if what they may still gain beats the limit-th best score found.
        rarest = min(range(len(parts)), key=lambda i: (parts[i][3], i))
        rest = [p for i, p in enumerate(parts) if i != rarest]
        bound = sum(p[5] * ((BODY_K1 if p[0] == "bodies" else K1) + 1) for p in rest) * (1 + 1e-9)
        rows = _best(conn, parts, limit, withheld, frozenset({rarest}), average)
        if len(rows) == limit and rows[-1][0] > bound:
            return rows
    return _best(conn, parts, limit, withheld, None, average)


def _best(conn: sqlite3.Connection, parts: list[tuple[str, str, float, int, str, float]], limit: int,
          withheld: frozenset[str], among: frozenset[int] | None, average: float) -> list[tuple[Any, ...]]:
    """The best ``limit`` rows by the sum of the parts' scores; with ``among``, only over the
    documents that hold one of those parts (their sums are still whole: every part counts)."""
    bodies, heads, body_args, heads_args = [], [], [], []
    grouped = len({p[4] for p in parts}) < len(parts)  # a concept with more than one spelling
    for i, (view, t, factor, _, group, cap) in enumerate(parts):
        only = " AND +rowid IN (SELECT id FROM k)" if among is not None and i not in among else ""
        tag = f", '{group}'" if grouped else ""
        if view == "bodies":  # x: bm25()'s saturated frequency, in (0, K1 + 1); c: the part's cap
            bodies.append(f"SELECT rowid{tag}, {-factor / cap!r} * bm25(bodies), {cap!r} FROM bodies"
                          f" WHERE bodies MATCH ?{only}")
            body_args.append(_phrase(t))
        else:
            heads.append(f"SELECT rowid{tag}, {-factor!r} * bm25({view}) FROM {view} WHERE {view} MATCH ?{only}")
            heads_args.append(_phrase(t))
    head, head_args = "WITH ", []
    if among is not None:
        keys = [f"SELECT rowid FROM {parts[i][0]} WHERE {parts[i][0]} MATCH ?" for i in sorted(among)]
        head = f"WITH k(id) AS MATERIALIZED ({' UNION '.join(keys)}), "
        head_args = [_phrase(parts[i][1]) for i in sorted(among)]
    # A body part's score, normalised again by the body's length (see the module's docstring):
    # with r = words / average, bm25() gave x = (K1 + 1) tf / (tf + K), K = K1 (1 - B + B r), so
    # tf = x K / (K1 + 1 - x), and the part scores c (BODY_K1 + 1) tf / (tf + K'), K' as K with
    # BODY_K1 and BODY_B; below, the same without tf.
    r = f"coalesce(l.words * {1 / average!r}, 1.0)"
    k = f"({K1 * (1 - B)!r} + {K1 * B!r} * {r})"
    k2 = f"({BODY_K1 * (1 - BODY_B)!r} + {BODY_K1 * BODY_B!r} * {r})"
    body = f"b.c * {BODY_K1 + 1!r} * b.x * {k} / (b.x * {k} + {k2} * ({K1 + 1!r} - b.x))"
    # MATERIALIZED: bm25() may only run in a query on its own table, never inside a flattened one.
    g = ", g" if grouped else ""
    ctes, scored = [], []
    if bodies:
        ctes.append(f"b(id{g}, x, c) AS MATERIALIZED ({' UNION ALL '.join(bodies)})")
        scored.append(f"SELECT b.id{g}, {body} FROM b LEFT JOIN lengths l ON l.id = b.id")
    if heads:
        ctes.append(f"h(id{g}, s) AS MATERIALIZED ({' UNION ALL '.join(heads)})")
        scored.append(f"SELECT id{g}, s FROM h")
    ctes.append(f"m(id{g}, s) AS ({' UNION ALL '.join(scored)})")
    if grouped:  # a concept counts once: the best of its spellings, in each view
        summed = (f"{head}{', '.join(ctes)},"
                  " t(id, s) AS MATERIALIZED (SELECT id, sum(s) FROM"
                  " (SELECT id, max(s) AS s FROM m GROUP BY id, g) GROUP BY id)")
    else:
        summed = (f"{head}{', '.join(ctes)},"
                  " t(id, s) AS MATERIALIZED (SELECT id, sum(s) FROM m GROUP BY id)")
    hidden = " AND (a.codebase IS NULL OR a.codebase NOT IN (SELECT value FROM json_each(?)))" if withheld else ""
    extra = [jsontext.dumps(sorted(withheld))] if withheld else []
    # Only the rows that can make the cut are joined with their asset rows: those scoring at
    # least the limit-th best score (so every tie at the cut is there to be broken by tree path).
    cut = f"SELECT t.s FROM t JOIN assets a ON a.id = t.id WHERE 1{hidden}" if withheld else "SELECT s FROM t"
    sql = (f"{summed}, c(s) AS ({cut} ORDER BY 1 DESC LIMIT 1 OFFSET ?)"
           f" SELECT t.s AS score, {_COLUMNS} FROM t JOIN assets a ON a.id = t.id"
           f" WHERE t.s >= coalesce((SELECT s FROM c), -1e308){hidden}"
           " ORDER BY score DESC, a.tree_path ASC LIMIT ?")
    return conn.execute(sql, (*head_args, *body_args, *heads_args, *extra, limit - 1, *extra, limit)).fetchall()
