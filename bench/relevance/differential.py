"""The differential recall test: the same questions through both tools on the same tree, every
difference in their hit lists listed, and checked against a committed list of known differences.

A difference is keyed by (question id, kind, file); its detail (ranks, scores, titles) is shown
in the report but not part of the key, so a known difference whose numbers move stays known.
Kinds, always from the reference's side:

- ``missing``: teamai-cli printed the file, the reference did not;
- ``extra``: the reference printed the file, teamai-cli did not;
- ``reordered``: both printed it, at different ranks;
- ``score``: both printed it, with different printed scores;
- ``title``: both printed it, under different titles.

Every known difference carries a category: a first, rough reason, assigned by :func:`categorize`
from what the two tools are known to do differently, and meant to be refined by hand. A new
difference fails the test until it is fixed or documented (``python -m relevance.differential
--update`` from ``bench/`` re-documents, keeping categories already given); one no longer seen
fails it too, so the list stays true.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import NamedTuple

import yaml

from .engines import Hit
from .questions import CJK, Question

HERE = os.path.dirname(os.path.abspath(__file__))
DOCUMENTED = os.path.join(HERE, "differences-real-team-a.yaml")
KINDS = ("missing", "extra", "reordered", "score", "title")
CATEGORIES = {
    "cjk-tokens": "the question holds CJK text: teamai-cli indexes Intl.Segmenter words plus bigrams of "
                  "single-character runs, the reference every CJK run as two-character pieces",
    "docs-body-match": "a doc teamai-cli found with no meaningful query word in its title (its docs skip the "
                       "title/tag gate, so the body decides); the reference matches every kind by its body "
                       "too, and ranked this one otherwise",
    "wiki-ranker": "a teamwiki page: teamai-cli ranks pages in a separate BM25 pass over the page text "
                   "(at most 3, score min(10, 2·log2(s+1))) merged by score; the reference ranks them in its one index",
    "score-scale": "printed scores differ: binary TF-IDF with field weights, vote bonus and domain and type "
                   "multipliers (teamai-cli) against BM25 of body plus BM25 of heads with the same idf (reference)",
    "title-source": "teamai-cli titles by frontmatter title only, else the path under the kind's folder "
                    "(hyphens to spaces); the reference also reads a skill's name and a leading # heading",
    "stop-words": "teamai-cli matched the title only through common words (the, to, how...) that the reference "
                  "drops from a query",
    "stemming": "the reference matched a word form (Porter stemmer: deleting ~ delete) where teamai-cli "
                "needs the exact token",
    "tie-order": "equal scores: teamai-cli breaks ties by date (newest first), then index order; "
                 "the reference by tree path",
    "ranking": "otherwise: the two ranking functions select or order differently (fields, term frequency "
               "and length normalisation, no title/tag gate in the reference; ARCHITECTURE.md, Ranking)",
}


class Difference(NamedTuple):
    question: str
    kind: str
    file: str
    detail: str
    category: str

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.question, self.kind, self.file)


_WORD = re.compile(r"\w+")
# Common English words a query carries without meaning; written for this rough categorisation.
_COMMON = frozenset(
    "a an and are as at be but by can could did do does for from how i if in into is it its me my no not of "
    "on or our should so that the their then there these this to was we what when where which who why will "
    "with would you your".split())


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if not CJK.search(w)}


def _stem(word: str) -> str:
    """A crude stem, enough to tell word forms apart from different words."""
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            break
    return word[:-1] if word.endswith("e") and len(word) > 3 else word


def _overlap(query: str, title: str) -> tuple[set[str], set[str]]:
    """(query words in the title, the same leaving out common words)."""
    shared = _words(query) & _words(title)
    return shared, shared - _COMMON


def categorize(q: Question, kind: str, file: str, ref: Sequence[Hit], cli: Sequence[Hit]) -> str:
    """A first, rough reason for one difference (see :data:`CATEGORIES`)."""
    if kind == "title":
        return "title-source"
    if file.startswith("teamwiki/"):
        return "wiki-ranker"
    if kind == "score":
        return "score-scale"
    if q.cjk:
        return "cjk-tokens"
    cli_by_file = {h.file: h for h in cli}
    ref_by_file = {h.file: h for h in ref}
    if kind == "missing":
        shared, meaningful = _overlap(q.q, cli_by_file[file].title)
        if not meaningful and file.startswith("docs/"):
            return "docs-body-match"
        if shared and not meaningful:
            return "stop-words"
    if kind == "extra":
        title = ref_by_file[file].title
        if not _overlap(q.q, title)[1] and {_stem(w) for w in _words(q.q) - _COMMON} & \
                {_stem(w) for w in _words(title)}:
            return "stemming"
    if kind == "reordered":
        mine, ref_mine = cli_by_file[file].score, ref_by_file[file].score
        if [h.score for h in cli].count(mine) > 1 or [h.score for h in ref].count(ref_mine) > 1:
            return "tie-order"
    return "ranking"


def compare(questions: Sequence[Question], ref: Mapping[str, Sequence[Hit]],
            cli: Mapping[str, Sequence[Hit]]) -> list[Difference]:
    out: list[Difference] = []
    for q in questions:
        r, c = list(ref.get(q.id, ())), list(cli.get(q.id, ()))
        rf, cf = [h.file for h in r], [h.file for h in c]

        def add(kind: str, file: str, detail: str) -> None:
            out.append(Difference(q.id, kind, file, detail, categorize(q, kind, file, r, c)))  # noqa: B023

        for i, h in enumerate(c, 1):
            if h.file not in rf:
                add("missing", h.file, f"teamai-cli #{i}")
        for i, h in enumerate(r, 1):
            if h.file not in cf:
                add("extra", h.file, f"reference #{i}")
        for i, h in enumerate(r, 1):
            if h.file not in cf:
                continue
            j = cf.index(h.file) + 1
            other = c[j - 1]
            if i != j:
                add("reordered", h.file, f"reference #{i}, teamai-cli #{j}")
            if h.score != other.score:
                add("score", h.file, f"reference {h.score}, teamai-cli {other.score}")
            if h.title != other.title:
                add("title", h.file, f"reference {h.title!r}, teamai-cli {other.title!r}")
    return out


def count_by_category(diffs: Sequence[Difference]) -> dict[str, int]:
    counts = Counter(d.category for d in diffs)
    return {c: counts[c] for c in CATEGORIES if counts[c]}


def load_documented(path: str) -> dict[tuple[str, str, str], str]:
    """The committed list: key -> category."""
    with open(path, encoding="utf-8") as fh:
        data = yaml.safe_load(fh) or {}
    out: dict[tuple[str, str, str], str] = {}
    for row in data.get("differences") or ():
        out[(str(row["question"]), str(row["kind"]), str(row["file"]))] = str(row.get("category") or "")
    return out


def check(diffs: Sequence[Difference], documented: Mapping[tuple[str, str, str], str]
          ) -> tuple[list[Difference], list[tuple[str, str, str]]]:
    """(differences not documented, documented keys no longer seen)."""
    seen = {d.key for d in diffs}
    return [d for d in diffs if d.key not in documented], sorted(k for k in documented if k not in seen)


def write_documented(path: str, diffs: Sequence[Difference],
                     previous: Mapping[tuple[str, str, str], str] | None = None) -> None:
    """Rewrite the committed list from ``diffs``, keeping any category already given by hand."""
    previous = previous or {}
    lines = [
        "# Every known difference between the reference's and teamai-cli 0.25.0's hit lists for the",
        "# questions of questions-real-team-a.yaml on real-team-a (see differential.py for the kinds).",
        "# Each has a category: a first, rough reason, to be refined by hand; the engine's owner fixes a",
        "# difference or justifies it in ARCHITECTURE.md. Categories:",
        *(f"#   {name}: {text}" for name, text in CATEGORIES.items()),
        "differences:",
    ]
    for d in sorted(diffs, key=lambda d: (d.question, KINDS.index(d.kind), d.file)):
        category = previous.get(d.key) or d.category
        lines.append(f"  - {{question: {d.question}, kind: {d.kind}, file: {yaml_str(d.file)}, "
                     f"category: {category}}}")
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")


def yaml_str(text: str) -> str:
    return text if re.fullmatch(r"[\w./-]+", text) else '"' + text.replace('"', '\\"') + '"'


def report(label: str, questions: Sequence[Question], ref: Mapping[str, Sequence[Hit]],
           cli: Mapping[str, Sequence[Hit]], diffs: Sequence[Difference]) -> str:
    """A readable Markdown report: counts, then each question with both hit lists side by side."""
    by_q: dict[str, list[Difference]] = {}
    for d in diffs:
        by_q.setdefault(d.question, []).append(d)
    out = [f"# Differential recall: reference vs teamai-cli 0.25.0 ({label})", "",
           f"{len(questions)} questions, {len(diffs)} differences, {len(by_q)} questions with at least one.", "",
           "| category | " + " | ".join(KINDS) + " | total |", "|---" * (len(KINDS) + 2) + "|"]
    table = Counter((d.category, d.kind) for d in diffs)
    for cat in CATEGORIES:
        row = [table[(cat, k)] for k in KINDS]
        if sum(row):
            out.append(f"| {cat} | " + " | ".join(map(str, row)) + f" | {sum(row)} |")
    out += ["", "Categories:", *(f"- **{c}**: {t}" for c, t in CATEGORIES.items()), ""]
    for q in questions:
        found = by_q.get(q.id)
        if not found:
            continue
        out += [f"## {q.id}", "", f"> {q.q}", "", f"target: `{q.target}`", "",
                "| # | reference | score | teamai-cli | score |", "|---|---|---|---|---|"]
        r, c = list(ref.get(q.id, ())), list(cli.get(q.id, ()))
        for i in range(max(len(r), len(c))):
            a = r[i] if i < len(r) else None
            b = c[i] if i < len(c) else None
            out.append(f"| {i + 1} | {_cell(a, q.target)} | {a.score if a else ''} | {_cell(b, q.target)} | "
                       f"{b.score if b else ''} |")
        out.append("")
        out += [f"- {d.kind} `{d.file}`: {d.detail} [{d.category}]" for d in found]
        out.append("")
    return "\n".join(out) + "\n"


def _cell(hit: Hit | None, target: str) -> str:
    if hit is None:
        return ""
    return f"**{hit.file}**" if hit.file == target else hit.file


def main(argv: list[str] | None = None) -> int:
    """``--update``: run both tools (teamai-cli answers from the cache when present) and rewrite the
    committed list, keeping categories already given."""
    import argparse

    from conformance.drivers import teamai_cli_home

    from . import runs
    from .questions import load

    p = argparse.ArgumentParser(description="re-document the differential recall differences")
    p.add_argument("--update", action="store_true", required=True)
    p.add_argument("--corpus", default=os.path.join(HERE, "..", "..", "..", "shared", "corpora", "real-team-a"))
    args = p.parse_args(argv)
    entry = teamai_cli_home.install()
    if entry is None or not os.path.isdir(args.corpus):
        print("needs node, npm and the real-team-a corpus")
        return 2
    qs = load(os.path.join(HERE, "questions-real-team-a.yaml")).questions
    ref = runs.run_reference(args.corpus, qs)
    cli = runs.run_teamai_cli(entry, args.corpus, qs)
    diffs = compare(qs, ref.hits, cli.hits)
    previous = load_documented(DOCUMENTED) if os.path.exists(DOCUMENTED) else {}
    write_documented(DOCUMENTED, diffs, previous)
    print(f"{len(diffs)} differences written to {DOCUMENTED}: {count_by_category(diffs)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
