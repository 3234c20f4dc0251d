"""The two commands that compare rather than judge: ``diff`` (two implementations, one corpus)
and ``shrink`` (one failing case, made as small as it can be while it fails the same way).
``cli`` parses their arguments and hands them here; exit codes are ``cli``'s."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import IO

from ..corpus import lint
from ..corpus.read import Corpus, Scenario
from ..corpus.scenario_file import dump
from ..implementations import connect
from ..running.driver import Driver, DriverUnusable
from . import candidates, diff_run, shrink
from .observation import implementation

EXIT_OK, EXIT_DIFFER, EXIT_USAGE, EXIT_CORPUS, EXIT_DRIVER = 0, 1, 2, 3, 4


def add_parsers(sub: argparse._SubParsersAction, selector_help: str, agent_help: str) -> None:
    diff = sub.add_parser("diff", help="run cases against two implementations and list where they differ")
    diff.add_argument("--impl", action="append", default=[], required=True, metavar="IMPL",
                      help="an implementation, as for run --impl; give it twice (A, then B)")
    diff.add_argument("--only", action="append", default=[], metavar="SELECTOR", help=selector_help)
    diff.add_argument("--agent", help=agent_help)
    diff.add_argument("--timeout", type=float, default=60.0, metavar="SECONDS", help="per case and side (default 60)")
    diff.add_argument("--json", action="store_true", help="one JSON object per case instead of the text")
    diff.add_argument("--write-candidates", type=Path, metavar="DIR",
                      help="write each disagreement as a candidate scenario (provenance differential) into DIR")
    sh = sub.add_parser("shrink", help="cut a failing case down to the smallest scenario that fails the same way")
    sh.add_argument("case", metavar="ID", help="the case id")
    sh.add_argument("--impl", required=True, help="the implementation it fails against, as for run --impl")
    sh.add_argument("--out", type=Path, metavar="FILE",
                    help="where to write it (default: beside the case, <file>-shrunk.yaml; never overwrites)")
    sh.add_argument("--max-trials", type=int, default=shrink.DEFAULT_TRIALS, metavar="N",
                    help=f"runs of the case to spend at most (default {shrink.DEFAULT_TRIALS})")
    sh.add_argument("--timeout", type=float, default=60.0, metavar="SECONDS", help="per run (default 60)")
    sh.add_argument("--oracle", default="reference", metavar="IMPL",
                    help="every cut must keep the case passing against this implementation (default: reference)")
    sh.add_argument("--no-oracle", action="store_true", help="keep any cut that fails the same way")


def _connect(impl: str, err: IO[str]) -> Driver | None:
    try:
        return connect(impl)
    except DriverUnusable as exc:
        err.write(f"teamai-conformance: error: {exc}\n")
        return None


def _blocking(chosen: list[Scenario], corpus: Corpus, err: IO[str]) -> bool:
    problems = [f"{s.rel}: {p}" for s in chosen for p in lint.blocking(s, corpus)]
    for problem in problems:
        err.write(f"{problem}\n")
    if problems:
        err.write(f"teamai-conformance: the corpus has {len(problems)} problem(s); see teamai-conformance lint\n")
    return bool(problems)


def run_diff(corpus: Corpus, chosen: list[Scenario], args: argparse.Namespace, out: IO[str], err: IO[str]) -> int:
    if len(args.impl) != 2:
        err.write("teamai-conformance: error: diff needs --impl twice: A, then B\n")
        return EXIT_USAGE
    if args.timeout <= 0:
        err.write("teamai-conformance: error: --timeout must be positive\n")
        return EXIT_USAGE
    if _blocking(chosen, corpus, err):
        return EXIT_CORPUS
    a = _connect(args.impl[0], err)
    if a is None:
        return EXIT_DRIVER
    b = _connect(args.impl[1], err)
    if b is None:
        a.stop()
        return EXIT_DRIVER
    try:
        cases = diff_run.run(a, b, chosen, corpus.payloads, args.timeout)
        label_a = f"{implementation(a)} (--impl {args.impl[0]})"
        label_b = f"{implementation(b)} (--impl {args.impl[1]})"
    finally:
        a.stop()
        b.stop()
    if args.json:
        for line in diff_run.as_json(cases):
            out.write(json.dumps(line, ensure_ascii=False) + "\n")
    else:
        out.write(diff_run.render(cases, label_a, label_b))
    if args.write_candidates:
        by_id = corpus.by_id()
        written = [candidates.write(args.write_candidates, by_id[c.id], c) for c in cases
                   if c.status == diff_run.DIFFER]
        err.write(f"teamai-conformance: {len(written)} candidate scenario(s) written to {args.write_candidates}\n")
    return EXIT_DIFFER if any(c.status == diff_run.DIFFER for c in cases) else EXIT_OK


def run_shrink(corpus: Corpus, args: argparse.Namespace, out: IO[str], err: IO[str]) -> int:
    scenario = corpus.by_id().get(args.case)
    if scenario is None:
        err.write(f"teamai-conformance: error: no case has the id {args.case!r} (see teamai-conformance list)\n")
        return EXIT_USAGE
    if args.max_trials < 1 or args.timeout <= 0:
        err.write("teamai-conformance: error: --max-trials must be at least 1 and --timeout positive\n")
        return EXIT_USAGE
    target = args.out or scenario.path.with_name(f"{scenario.path.stem}{shrink.SUFFIX}.yaml")
    if target.exists():
        err.write(f"teamai-conformance: error: {target} exists; shrink never overwrites (pass --out FILE)\n")
        return EXIT_USAGE
    if _blocking([scenario], corpus, err):
        return EXIT_CORPUS
    driver = _connect(args.impl, err)
    if driver is None:
        return EXIT_DRIVER
    oracle = None if args.no_oracle else _connect(args.oracle, err)
    if oracle is None and not args.no_oracle:
        driver.stop()
        return EXIT_DRIVER
    try:
        result = shrink.shrink(driver, scenario, corpus.payloads, args.timeout, args.max_trials, oracle)
    except shrink.CannotShrink as exc:
        err.write(f"teamai-conformance: error: {exc}\n")
        return EXIT_USAGE
    finally:
        driver.stop()
        if oracle is not None:
            oracle.stop()
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(dump(result.data), encoding="utf-8")
    except OSError as exc:
        err.write(f"teamai-conformance: error: {target}: cannot be written: {exc.strerror or exc}\n")
        return EXIT_USAGE
    kept = "" if args.no_oracle else f", and still passes against {args.oracle}"
    out.write(f"shrunk {scenario.id} against {args.impl} in {result.trials} trials: {result.summary()}\n"
              f"  still fails as: {result.signature}{kept}\n  written to {target} (id {result.data['id']}, "
              f"provenance regression, shrunk_from {scenario.id})\n")
    return EXIT_OK
