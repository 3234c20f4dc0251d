"""``nox -s relevance``: known-item questions on real team trees, scored per slice for the
reference and, where node and npm are present, teamai-cli 0.25.0 set up to index the same assets.

    python bench/relevance/run.py [--corpus DIR] [--heldout] [--only NAME[,NAME]] [--skip-peer] [--fresh]
                                  [--ref-mode inprocess|process] [--ranks] [--out DIR]

Exit 0 when the tables were printed (or the corpus is absent: a clear message, nothing run);
2 when the two tools did not index the same assets (the comparison would be meaningless).
The differential recall report (every difference in the hit lists) is written to ``--out``.
"""

from __future__ import annotations

import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path[:0] = [ROOT, os.path.dirname(HERE)]

from conformance.drivers import teamai_cli_home  # noqa: E402
from relevance import differential, engines, heldout, metrics, questions, runs  # noqa: E402

DEFAULT_CORPUS = os.path.join(os.path.dirname(ROOT), "shared", "corpora", "real-team-a")
QUESTIONS = os.path.join(HERE, "questions-real-team-a.yaml")


def say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def bench_tree(label: str, tree: str, qfile: str, args: argparse.Namespace, entry: str | None,
               documented: str | None) -> int:
    loaded = questions.load(qfile)
    missing = questions.missing_targets(loaded.questions, tree)
    if missing:
        say(f"{label}: {len(missing)} question targets are not in {tree} (first: {missing[0]}); "
            "the question file and the tree disagree")
        return 2
    say(f"{label}: {len(loaded.questions)} questions on {tree}")
    tools = [runs.run_reference(tree, loaded.questions, args.ref_mode)]
    if entry:
        tools.append(runs.run_teamai_cli(entry, tree, loaded.questions, args.fresh, say))
    print(f"\n{label}: assets indexed")
    for tool in tools:
        counts = ", ".join(f"{k} {len(v)}" for k, v in sorted(tool.assets.items()))
        print(f"  {tool.name:<18} {sum(len(v) for v in tool.assets.values()):>6}  ({counts})"
              + ("  [answers from the cache]" if tool.cached else ""))
    if len(tools) == 2:
        mismatch = engines.asset_mismatch(tools[0].assets, tools[1].assets)
        if mismatch:
            print("error: the two tools did not index the same assets:\n  " + "\n  ".join(mismatch))
            return 2
    cjk_docs = metrics.cjk_documents(tree, {q.target for q in loaded.questions})
    results = {t.name: metrics.by_slice(loaded.questions, {k: [h.file for h in v] for k, v in t.hits.items()},
                                        cjk_docs)
               for t in tools}
    print()
    print(metrics.table(f"{label} (MRR@5, hit@1, hit@5 per slice)", results))
    if args.ranks:
        print(f"{label}: rank of each target (- when not in the first five), " + ", ".join(t.name for t in tools))
        for q in loaded.questions:
            ranks = [metrics.rank(q.target, [h.file for h in t.hits.get(q.id, [])]) for t in tools]
            top = tools[0].hits.get(q.id, [])
            print(f"  {q.id:<28} " + " ".join(f"{r or '-':>2}" for r in ranks)
                  + f"  {q.q}  -> {top[0].file if top else '(none)'}")
    if len(tools) == 2:
        diffs = differential.compare(loaded.questions, tools[0].hits, tools[1].hits)
        os.makedirs(args.out, exist_ok=True)
        path = os.path.join(args.out, f"differences-{label}.md")
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(differential.report(label, loaded.questions, tools[0].hits, tools[1].hits, diffs))
        counts = differential.count_by_category(diffs)
        print(f"differential recall: {len(diffs)} differences "
              f"({', '.join(f'{c} {n}' for c, n in counts.items())}); report: {path}")
        if documented:
            new, stale = differential.check(diffs, differential.load_documented(documented))
            print(f"  against {os.path.relpath(documented, ROOT)}: {len(new)} undocumented, {len(stale)} no longer seen")
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--corpus", default=DEFAULT_CORPUS, help="the real-team-a tree")
    p.add_argument("--heldout", action="store_true", help="also run the held-out question sets on their trees")
    p.add_argument("--only", default="", help="run only these sets (comma-separated: real-team-a, "
                   + ", ".join(heldout.SOURCES) + "); implies --heldout for the held-out ones")
    p.add_argument("--ranks", action="store_true", help="also print each question's target rank")
    p.add_argument("--skip-peer", action="store_true", help="the reference only")
    p.add_argument("--fresh", action="store_true", help="run teamai-cli again instead of using its cached answers")
    p.add_argument("--ref-mode", choices=("inprocess", "process"), default="inprocess",
                   help="the reference in-process (default) or as a teamai-ref process per question")
    p.add_argument("--out", default=os.path.join(teamai_cli_home.cache_dir(), "relevance", "reports"),
                   help="where the differential reports go")
    args = p.parse_args(argv)
    entry = None if args.skip_peer else teamai_cli_home.install()
    if entry is None and not args.skip_peer:
        say(f"teamai-cli {teamai_cli_home.VERSION} is not available (node and npm needed): the reference only")
    only = {name.strip() for name in args.only.split(",") if name.strip()}
    code = 0
    if only and "real-team-a" not in only:
        pass
    elif os.path.isdir(args.corpus):
        code = bench_tree("real-team-a", args.corpus, QUESTIONS, args, entry, differential.DOCUMENTED)
    else:
        print(f"relevance: skipped real-team-a: the corpus is not at {args.corpus} "
              "(it lives beside the repository in shared/corpora/real-team-a)")
    if args.heldout or only:
        for name, source in heldout.SOURCES.items():
            if only and name not in only:
                continue
            tree = heldout.build(name, say)
            if tree is None:
                print(f"relevance: skipped the held-out set {name}: its tree could not be built (see above)")
                continue
            code = max(code, bench_tree(f"held-out-{name}", tree, source.questions, args, entry, None))
    return code


if __name__ == "__main__":
    raise SystemExit(main())
