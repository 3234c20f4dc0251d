"""``python -m conformance.mutation`` (``nox -s mutation``): the corpus's mutation score.

Steps: list the mutants of the target modules (:mod:`.targets`, :mod:`.walker` with
:mod:`.operators`); trace the scenarios the cache does not know yet (:mod:`.tracing`); give each
mutant the scenarios that can notice it (:mod:`.plan`), likeliest killers first; take every
verdict the cache still holds (:mod:`.cache`) and judge the rest in forked processes
(:mod:`.judge`); write the report (:mod:`.report`) against the committed equivalents
(:mod:`.equivalents`).

Exit codes: 0 the score reached ``--fail-under`` (default: no threshold), 1 it did not, 2 usage,
3 the corpus or the equivalents file is invalid, 4 the unmutated reference fails a scenario
(nothing can be judged against it).
"""

from __future__ import annotations

import argparse
import ast
import os
import random
import sys
import time
import types
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..corpus import read as corpus_mod
from . import equivalents, operators, report, targets, tracing, walker
from .cache import Cache, mutant_key
from .judge import KILLED, LISTED, SURVIVED, TIMEOUT, UNCOVERED, Job, Verdict, dependents, run_jobs
from .operators import Mutant
from .plan import Plan

ROOT = Path(__file__).resolve().parent.parent.parent
EXIT_OK, EXIT_BELOW, EXIT_USAGE, EXIT_INVALID, EXIT_BASELINE = 0, 1, 2, 3, 4
# A case's time limit, from its duration in the traced run (under coverage, so already slower than
# a judging run): an endless loop costs the limit each time it is met, and there are dozens.
MIN_CASE_TIMEOUT = 5.0
CASE_TIMEOUT_FACTOR = 10.0
MAX_BUDGET = 600.0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m conformance.mutation",
                                description="Mutate the reference's rule modules and judge each mutant by the corpus.")
    p.add_argument("--sample", type=int, metavar="N", help="judge N mutants drawn at random (with --seed)")
    p.add_argument("--seed", type=int, default=0, help="the seed of --sample (default 0)")
    p.add_argument("--module", action="append", default=[], metavar="NAME",
                   help="only these modules (short names such as hook.shell or relations.*; repeatable)")
    p.add_argument("--operator", action="append", default=[], choices=operators.OPERATORS,
                   help="only these operators (repeatable)")
    p.add_argument("--only", action="append", default=[], metavar="ID",
                   help="only these mutants (ids as --list prints them; repeatable): the lines a change touched")
    p.add_argument("--jobs", type=int, default=2, help="processes judging at once (default 2)")
    p.add_argument("--corpus", type=Path, default=None, metavar="DIR",
                   help="the folder holding scenarios/ and payloads/ (default: this repository)")
    p.add_argument("--no-cache", action="store_true", help="neither read nor write the cache")
    p.add_argument("--cache-dir", type=Path, default=None, help="default: .mutation-cache/ at the repository root")
    p.add_argument("--report-dir", type=Path, default=None, help="default: reports/mutation/")
    p.add_argument("--fail-under", type=float, default=None, metavar="PERCENT",
                   help="exit 1 when the overall score is below this")
    p.add_argument("--list", action="store_true", help="list the mutants (id, place, change) and judge nothing")
    p.add_argument("--show", metavar="ID", help="print one mutant's change and the scenarios that reach it")
    p.add_argument("--skip-equivalents", action="store_true",
                   help="leave a mutant listed as equivalent unjudged when the cache has no verdict for this code "
                        "(faster; by default it is judged, so no listed id is taken on trust)")
    p.add_argument("--no-nice", action="store_true", help="do not lower this process's priority")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as exc:
        return EXIT_OK if exc.code == 0 else EXIT_USAGE
    if not args.no_nice and hasattr(os, "nice"):
        os.nice(10)
    root = ROOT
    out = sys.stdout
    started = time.monotonic()

    chosen = targets.select(targets.resolve(root), args.module)
    if not chosen:
        sys.stderr.write("mutation: no target module matches --module\n")
        return EXIT_USAGE
    sources = {t.path: (root / t.path).read_text(encoding="utf-8") for t in chosen}
    trees = {t.path: ast.parse(sources[t.path], filename=t.path) for t in chosen}
    every: list[Mutant] = []
    for t in chosen:
        every += walker.mutants(sources[t.path], t.module, t.path, t.only)
    if args.operator:
        every = [m for m in every if m.operator in args.operator]
    if args.only:
        named = set(args.only)
        unknown = sorted(named - {m.id for m in every})
        if unknown:
            sys.stderr.write("mutation: no mutant " + ", ".join(unknown) + "\n")
            return EXIT_USAGE
        every = [m for m in every if m.id in named]
    mutants = every
    if args.sample is not None:
        pool = sorted(every, key=lambda m: m.id)
        mutants = sorted(random.Random(args.seed).sample(pool, min(args.sample, len(pool))),
                         key=lambda m: (m.path, m.line, m.id))

    if args.list:
        for m in mutants:
            out.write(f"{m.id}  {m.path}:{m.line}\n{m.diff()}\n\n")
        return EXIT_OK

    try:
        listed = equivalents.load()
    except equivalents.EquivalentsError as exc:
        sys.stderr.write(f"mutation: {exc}\n")
        return EXIT_INVALID
    corpus = corpus_mod.load(args.corpus or root)
    if corpus.problems:
        sys.stderr.write("mutation: the corpus is invalid (run teamai-conformance lint)\n")
        return EXIT_INVALID

    cache = Cache(None if args.no_cache else (args.cache_dir or root / ".mutation-cache"), tracing.code_hash(root),
                  tracing.code_hash(root, layout=True))
    traces = _traces(root, corpus, chosen, cache, args.no_cache)
    hashes = {s.id: tracing.scenario_hash(s, corpus) for s in corpus.scenarios}
    by_case = {s.id: traces[hashes[s.id]] for s in corpus.scenarios}
    broken = sorted(c for c, t in by_case.items() if t["outcome"] != "pass")
    if broken:
        sys.stderr.write("mutation: the unmutated reference does not pass: " + ", ".join(broken[:10]) + "\n")
        return EXIT_BASELINE
    plan = Plan({**by_case, tracing.IMPORT: traces[tracing.IMPORT]}, sources)

    if args.show:
        found = [m for m in every if m.id == args.show]
        if not found:
            sys.stderr.write(f"mutation: no mutant {args.show}\n")
            return EXIT_USAGE
        m = found[0]
        reach = sorted(plan.covering(m))
        out.write(f"{m.id}  {m.path}:{m.line}  ({m.operator})\n{m.diff()}\n\n{len(reach)} scenario(s) reach it:\n")
        out.writelines(f"  {c}\n" for c in reach)
        return EXIT_OK

    rows, seconds = _judge(root, mutants, trees, sources, plan, by_case, hashes, cache, listed, corpus, args.jobs,
                           not args.skip_equivalents)
    cache.compact()
    elapsed = time.monotonic() - started
    kind = (f"sample of {len(mutants)} of {len(every)} mutants (seed {args.seed})" if args.sample is not None
            else f"{len(mutants)} mutants" + (f" of {', '.join(args.module)}" if args.module else ""))
    header = f"Mutation score of the scenario corpus against the reference: {kind}."
    names = {m.id for m in every}
    whole = not args.module and not args.operator and not args.only
    stale = sorted(i for i in listed if i not in names) if whole else []
    killed_eq = [r for r in rows if r.equivalent is not None and r.killed]
    folder = args.report_dir or root / "reports" / "mutation"
    folder.mkdir(parents=True, exist_ok=True)
    stem = "sample" if args.sample is not None else ("report" if whole else "partial")
    md = folder / f"{stem}.md"
    md.write_text(report.markdown(rows, header, stale, killed_eq, elapsed), encoding="utf-8")
    (folder / f"{stem}.jsonl").write_text(report.jsonl(rows), encoding="utf-8")
    out.write(report.terminal(rows, header, stale, killed_eq, elapsed, _shown(md, root)))
    _, total = report.tallies(rows)
    if args.fail_under is not None and (total.score or 0.0) * 100 < args.fail_under:
        out.write(f"the score is below {args.fail_under:g}%\n")
        return EXIT_BELOW
    return EXIT_OK


def _shown(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root).as_posix()
    except ValueError:
        return str(path)


def _traces(root: Path, corpus: corpus_mod.Corpus, chosen: list[targets.Target], cache: Cache,
            no_cache: bool) -> dict[str, dict[str, Any]]:
    """Traces of every scenario by scenario hash (and ``IMPORT``), tracing only what is missing.
    Every target module is traced, whichever were chosen, so the stored traces serve any run."""
    every_target = targets.resolve(root)
    known = {} if no_cache else cache.traces()
    hashes = {s.id: tracing.scenario_hash(s, corpus) for s in corpus.scenarios}
    missing = [s for s in corpus.scenarios if hashes[s.id] not in known]
    if missing or tracing.IMPORT not in known:
        sys.stderr.write(f"mutation: tracing {len(missing)} scenario(s) ...\n")
        fresh = tracing.trace(root, corpus, missing, every_target)
        for s in missing:
            known[hashes[s.id]] = fresh[s.id]
        known[tracing.IMPORT] = fresh[tracing.IMPORT]
        current = set(hashes.values()) | {tracing.IMPORT}
        known = {h: t for h, t in known.items() if h in current}
        if not no_cache:
            cache.save_traces(known)
    return known


def _judge(root: Path, mutants: list[Mutant], trees: dict[str, ast.Module], sources: dict[str, str], plan: Plan,
           by_case: dict[str, dict[str, Any]], hashes: dict[str, str], cache: Cache, listed: dict[str, str],
           corpus: corpus_mod.Corpus, workers: int, recheck: bool = False) -> tuple[list[report.Row], float]:
    started = time.monotonic()
    baseline = {c: str(t["outcome"]) for c, t in by_case.items()}
    duration = {c: float(t["duration"]) for c, t in by_case.items()}
    verdicts: dict[str, tuple[Verdict, bool]] = {}
    jobs: list[Job] = []
    judged_before: dict[str, dict[str, str]] = {}
    for m in mutants:
        key = mutant_key(m, sources[m.path])
        reach = plan.covering(m)
        if not reach:
            verdicts[m.id] = (Verdict(UNCOVERED), False)
            continue
        old = cache.verdict(key)
        if old is None and m.id in listed and not recheck:
            verdicts[m.id] = (Verdict(LISTED), False)  # a reviewed equivalent: judging it would run every scenario
            continue
        todo = sorted(reach)
        if old is not None:
            judged: dict[str, str] = dict(old.get("judged") or {})
            if old["status"] in (KILLED, TIMEOUT):
                by = old.get("by")
                if by is None or judged.get(by) == hashes.get(by):
                    verdicts[m.id] = (Verdict.from_json(old), True)
                    continue
            elif old["status"] == SURVIVED:
                todo = [c for c in todo if judged.get(c) != hashes[c]]
                if not todo:
                    verdicts[m.id] = (Verdict.from_json(old), True)
                    continue
                judged_before[m.id] = {c: h for c, h in judged.items() if hashes.get(c) == h and c in reach}
        timeouts = {c: max(MIN_CASE_TIMEOUT, CASE_TIMEOUT_FACTOR * duration[c]) for c in todo}
        jobs.append(Job(m, todo, min(MAX_BUDGET, 30.0 + sum(timeouts.values())), timeouts))

    kills: Counter[tuple[str, str, str]] = Counter()

    def order(job: Job) -> Job:
        """The scenarios that killed mutants of the same function, then of the same module, first."""
        m = job.mutant
        job.scenarios.sort(key=lambda c: (-kills[(m.path, m.scope, c)], -kills[(m.path, "", c)], duration[c], c))
        return job

    def compile_mutant(m: Mutant) -> types.CodeType:
        return m.compile(trees[m.path], str((root / m.path).resolve()))

    stale: dict[str, set[str]] = {}

    def stale_for(module: str) -> set[str]:
        if module not in stale:
            stale[module] = dependents(root, module)
        return stale[module]

    if jobs:
        tracing.import_reference()  # each judging process inherits it, re-importing only what depends on its mutant
        cached = sum(1 for _, from_cache in verdicts.values() if from_cache)
        unjudged = sum(1 for verdict, _ in verdicts.values() if verdict.status == LISTED)
        sys.stderr.write(f"mutation: judging {len(jobs)} mutant(s) with {workers} process(es); {cached} from the "
                         f"cache, {len(verdicts) - cached - unjudged} reached by no scenario, {unjudged} listed as "
                         "equivalent\n")
    done = 0
    for job, verdict in run_jobs(jobs, compile_mutant, stale_for, corpus, baseline, workers, order):
        m = job.mutant
        done += 1
        if verdict.status in (KILLED, TIMEOUT) and verdict.by:
            kills[(m.path, m.scope, verdict.by)] += 1
            kills[(m.path, "", verdict.by)] += 1
        judged = dict(judged_before.get(m.id, {}))
        if verdict.status == SURVIVED:
            judged.update({c: hashes[c] for c in job.scenarios})
        elif verdict.by:
            judged = {verdict.by: hashes[verdict.by]}
        cache.store(mutant_key(m, sources[m.path]), {**verdict.to_json(), "judged": judged, "id": m.id})
        verdicts[m.id] = (verdict, False)
        if done % 50 == 0 or done == len(jobs):
            sys.stderr.write(f"  [{done}/{len(jobs)}] {time.monotonic() - started:.0f}s\n")
    rows = [report.Row(m, verdicts[m.id][0], listed.get(m.id), verdicts[m.id][1]) for m in mutants]
    return rows, time.monotonic() - started
