"""``teamai-conformance``: run the scenario corpus against an implementation.

Exit codes:

=====  ==============================================================
0      every outcome as expected (pass, xfail, skip, not-applicable)
1      at least one unexpected outcome (fail, error, crash, timeout, xpass)
2      usage: unknown command or option, bad argument
3      the corpus (or the expectations file, or a table) is invalid; ``lint`` found problems
4      the driver is unusable: it did not start or failed the handshake
=====  ==============================================================

``diff`` exits 1 when the two implementations differ in a case; ``shrink`` exits 0 when it wrote
the smaller scenario and 2 when the case does not fail on a mismatch.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import shlex
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import IO

from . import pipes
from .comparison import cli_compare
from .corpus import clauses as clause_catalogue
from .corpus import lint, selection
from .corpus import read as corpus_mod
from .corpus.capabilities import needs
from .implementations import connect
from .reports import (
    html as report_html,
)
from .reports import (
    jsonl as report_jsonl,
)
from .reports import (
    junit as report_junit,
)
from .reports import (
    terminal as report_terminal,
)
from .running import expectations, outcomes, pool
from .running.driver import DriverUnusable

EXIT_OK, EXIT_UNEXPECTED, EXIT_USAGE, EXIT_CORPUS, EXIT_DRIVER = 0, 1, 2, 3, 4
DEFAULT_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_IMPL = "reference"
DEFAULT_TIMEOUT = 60.0
SELECTOR_HELP = ("a case id, area, clause id or agent; kind:name (case:, area:, clause:, agent:) for one kind; "
                 "* ? [..] glob them; repeatable, the selections add up")
AGENT_HELP = "only the cases concerning this agent (a name or glob)"


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        sys.stderr.write(f"{self.prog}: error: {message}\n")
        raise SystemExit(EXIT_USAGE)


CORPUS_ENV = "TEAMAI_CONFORMANCE_CORPUS"


def corpus_root(given: Path | None) -> Path:
    """The corpus folder: ``--corpus``, else ``$TEAMAI_CONFORMANCE_CORPUS``, else the project this
    package was run from (a clone, or an editable install of one)."""
    if given is not None:
        return given.resolve()
    if os.environ.get(CORPUS_ENV):
        return Path(os.environ[CORPUS_ENV]).resolve()
    return DEFAULT_ROOT


def _corpus_option(parser: argparse.ArgumentParser, top: bool = False) -> None:
    """``--corpus`` before the command or after it (``run --corpus DIR``), one meaning."""
    parser.add_argument("--corpus", type=Path, metavar="DIR", default=None if top else argparse.SUPPRESS,
                        help=f"the folder holding scenarios/ and payloads/ (default: ${CORPUS_ENV}, else this "
                             "project)")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="teamai-conformance", description="Run TeamAI's conformance corpus.")
    _corpus_option(parser, top=True)
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)
    run = sub.add_parser("run", help="run the corpus against an implementation")
    run.add_argument("--impl", default=DEFAULT_IMPL,
                     help="reference (in-process, default), reference-subprocess (the protocol, through a driver "
                          "process), reference-cli (the protocol, each command a real teamai-ref process), "
                          "or a driver command line")
    run.add_argument("--only", action="append", default=[], metavar="SELECTOR", help=SELECTOR_HELP)
    run.add_argument("--agent", help=AGENT_HELP)
    run.add_argument("--expectations", type=Path, metavar="FILE", help="expected failures (TOML)")
    run.add_argument("--update-expectations", action="store_true",
                     help="rewrite the --expectations FILE from this run (exits 0: the run is judged by what it wrote)")
    run.add_argument("--report", type=Path, metavar="FILE", help="write the JSON-lines report")
    run.add_argument("--junit", type=Path, metavar="FILE", help="write JUnit XML")
    run.add_argument("--html", type=Path, metavar="FILE", help="write the results page (one self-contained HTML file)")
    run.add_argument("--jobs", type=int, default=1, metavar="N", help="worker processes (default 1)")
    run.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, metavar="SECONDS", help="per case (default 60)")
    listing = sub.add_parser("list", help="list the cases")
    listing.add_argument("--only", action="append", default=[], metavar="SELECTOR", help=SELECTOR_HELP)
    listing.add_argument("--agent", help=AGENT_HELP)
    listing.add_argument("--json", action="store_true", help="one JSON object per line")
    show = sub.add_parser("show", help="show cases with their clauses and needs")
    show.add_argument("selectors", nargs="*", metavar="SELECTOR", help=SELECTOR_HELP)
    show.add_argument("--agent", help=AGENT_HELP)
    check = sub.add_parser("lint", help="check the corpus (schemas, ids, references, duplicates, isolating pairs)")
    check.add_argument("--require-pairs", action="store_true",
                       help="fail when a clause has no isolating pair (isolates:/twin:) yet")
    from .capture.import_capture import add_parser as add_import_capture

    add_import_capture(sub)
    from .corpus import honesty
    from .generate import sync as generate

    generate.add_parser(sub)
    honesty.add_parser(sub)
    page = sub.add_parser("report", help="build the results page from JSON-lines reports, one column each "
                                          "(without --html: print each report's terminal summary again)")
    page.add_argument("reports", nargs="+", type=Path, metavar="RUN.jsonl")
    page.add_argument("--html", type=Path, metavar="OUT.html",
                      help="the page to write; without it, each report's terminal summary is printed again")
    cli_compare.add_parsers(sub, SELECTOR_HELP, AGENT_HELP)
    drv = sub.add_parser("driver", help="serve the protocol on stdin/stdout")
    drv.add_argument("name", choices=["reference"])
    drv.add_argument("--exec", dest="exec_mode", choices=["in-driver", "cli"], default="in-driver",
                     help="run teamai-ref inside the driver process (default), or as a real process per command")
    for command in sub.choices.values():
        if not any("--corpus" in action.option_strings for action in command._actions):
            _corpus_option(command)
    return parser


def main(argv: Sequence[str] | None = None, stdout: IO[str] | None = None, stderr: IO[str] | None = None) -> int:
    if stdout is not None and stderr is not None:
        return _main(argv, stdout, stderr)
    # The process's own streams: a reader that goes away early (``| head``) is not an error.
    saved = sys.stdout, sys.stderr
    out, err = pipes.Sink(stdout or sys.stdout), pipes.Sink(stderr or sys.stderr)
    sys.stdout, sys.stderr = out, err  # argparse's --help writes there
    try:
        code = _main(argv, out, err)  # type: ignore[arg-type]
        out.flush()
        if out.failed is not None:  # the work is done (reports written); only the output is lost
            err.write(f"teamai-conformance: error: the output cannot be written: {out.failed.strerror or out.failed}\n")
            return code or EXIT_UNEXPECTED
        return code
    finally:
        out.flush()
        err.flush()
        sys.stdout, sys.stderr = saved


def _main(argv: Sequence[str] | None, out: IO[str], err: IO[str]) -> int:
    try:
        args = build_parser().parse_args(sys.argv[1:] if argv is None else list(argv))
    except SystemExit as exc:
        return int(exc.code or 0) if isinstance(exc.code, int) else EXIT_USAGE
    if args.command is None:
        build_parser().print_help(out)
        return EXIT_USAGE
    if args.command == "driver":
        from .drivers.reference import ReferenceBackend, as_subprocess, in_process
        from .server import serve

        return serve(ReferenceBackend(as_subprocess if args.exec_mode == "cli" else in_process))
    if args.command == "report":
        return _report(args, out, err)
    if args.command == "import-capture":
        from .capture import import_capture

        return import_capture.run(args, corpus_root(args.corpus), out, err)
    root = corpus_root(args.corpus)
    if args.command == "generate":
        from .generate import sync as generate

        return generate.run(args, root, out, err)
    if not (root / "scenarios").is_dir():
        err.write(f"teamai-conformance: error: {root} has no scenarios/ folder. An installed package carries no "
                  f"corpus: pass --corpus DIR (a clone of the project, the folder holding scenarios/ and "
                  f"payloads/) or set {CORPUS_ENV}\n")
        return EXIT_USAGE
    corpus = corpus_mod.load(root)
    if args.command == "lint":
        return _lint(corpus, out, err, args.require_pairs)
    if args.command == "list":
        return _list(corpus, args.only, args.agent, args.json, out, err)
    if args.command == "show":
        return _show(corpus, args.selectors, args.agent, out, err)
    if args.command == "honesty":
        from .corpus import honesty

        return honesty.run(args, corpus, out, err)
    if args.command == "shrink":
        return cli_compare.run_shrink(corpus, args, out, err)
    if args.command == "diff":
        chosen = _select(corpus, args.only, args.agent, err)
        return EXIT_USAGE if chosen is None else cli_compare.run_diff(corpus, chosen, args, out, err)
    return _run(corpus, args, out, err)


def _select(corpus: corpus_mod.Corpus, only: list[str], agent: str | None,
            err: IO[str]) -> list[corpus_mod.Scenario] | None:
    """The selected cases, or None after saying on ``err`` why none is (the same words everywhere)."""
    try:
        return selection.select(corpus, only, agent)
    except selection.NoMatch as exc:
        err.write(f"teamai-conformance: error: {exc}\n")
        return None


def _lint(corpus: corpus_mod.Corpus, out: IO[str], err: IO[str], require_pairs: bool = False) -> int:
    from .corpus import pairs, recorded_shapes

    problems = lint.lint(corpus)
    try:
        unpaired = pairs.unpaired(corpus, clause_catalogue.load(corpus.clauses_path))
    except clause_catalogue.CatalogueError:
        unpaired = []  # lint.lint has said why
    reasons = pairs.listed(corpus)[0]
    missing = [clause for clause in unpaired if clause not in reasons]
    if require_pairs:
        problems += [f"{clause}: no isolating pair (isolates:/twin:)" for clause in missing]
    elif missing:
        out.write(f"corpus-lint: {len(missing)} clause(s) without an isolating pair:\n")
        out.writelines(f"  {clause}\n" for clause in missing)
    if reasons:
        out.write(f"corpus-lint: {len(reasons)} clause(s) listed as having none, with the reason, in "
                  f"{'/'.join(pairs.LISTED_FILE)}\n")
    for problem in problems:
        err.write(f"{problem}\n")
    out.write(recorded_shapes.describe(recorded_shapes.tally(
        (p.agent, p.event, p.payload, p.data.get("provenance") or {}) for p in corpus.payloads.values())) + "\n")
    if problems:
        err.write(f"corpus-lint: {len(problems)} problem(s)\n")
        return EXIT_CORPUS
    out.write(f"corpus-lint: {len(corpus.scenarios)} scenarios and {len(corpus.payloads)} payloads are valid\n")
    return EXIT_OK


def _list(corpus: corpus_mod.Corpus, only: list[str], agent: str | None, as_json: bool, out: IO[str],
          err: IO[str]) -> int:
    chosen = _select(corpus, only, agent, err)
    if chosen is None:
        return EXIT_USAGE
    for s in chosen:
        if as_json:
            out.write(json.dumps({"id": s.id, "area": s.area, "title": s.title, "clauses": s.clauses,
                                  "agents": s.agents, "path": s.rel, "fingerprint": lint.fingerprint(s)},
                                 ensure_ascii=False) + "\n")
        else:
            out.write(f"{s.id}\t{s.area}\t{','.join(s.agents) or '-'}\t{s.title}\n")
    return EXIT_OK


def _show(corpus: corpus_mod.Corpus, selectors: list[str], agent: str | None, out: IO[str], err: IO[str]) -> int:
    """Each case's file under comments naming its clauses and needs; several cases are
    separated by ``---``, so the output stays a YAML stream."""
    if not selectors and agent is None:
        err.write("teamai-conformance: error: show needs a SELECTOR (or --agent); see teamai-conformance list\n")
        return EXIT_USAGE
    chosen = _select(corpus, selectors, agent, err)
    if chosen is None:
        return EXIT_USAGE
    try:
        catalogue = {c.id: c for c in clause_catalogue.load(corpus.clauses_path)}
    except clause_catalogue.CatalogueError:
        catalogue = {}
    for index, scenario in enumerate(chosen):
        if index:
            out.write("---\n")
        out.write(f"# {scenario.rel}  (fingerprint {lint.fingerprint(scenario)})\n")
        for cid in scenario.clauses:
            clause = catalogue.get(cid)
            out.write(f"# {cid}: {clause.text if clause else '(not in the catalogue)'}\n")
        need = needs(scenario, corpus.payloads)
        out.write("# needs: " + ", ".join(f"{k}={sorted(v) if isinstance(v, set) else v}"
                                          for k, v in need.items()) + "\n")
        text = scenario.path.read_text(encoding="utf-8")
        out.write(text if text.endswith("\n") else text + "\n")
    return EXIT_OK


def _report(args: argparse.Namespace, out: IO[str], err: IO[str]) -> int:
    """The page from finished reports. Reports written before they carried the clause texts and
    each case's scenario facts get them from the corpus (``--corpus``, or this project's)."""
    try:
        runs = [report_jsonl.read(path) for path in args.reports]
    except report_jsonl.ReportError as exc:
        err.write(f"teamai-conformance: error: {exc}\n")
        return EXIT_USAGE
    for path, (head, cases, _foot) in zip(args.reports, runs, strict=True):
        if not head and not cases:
            err.write(f"teamai-conformance: error: {path}: not a teamai-conformance report (no header, no case)\n")
            return EXIT_USAGE
    if args.html is None:
        return _reprint(runs, out)
    texts: dict[str, dict[str, str]] = {}
    facts: dict[str, dict[str, object]] = {}
    root = (args.corpus or DEFAULT_ROOT).resolve()
    if (root / "scenarios").is_dir():
        corpus = corpus_mod.load(root)
        try:
            texts = report_jsonl.clause_texts(clause_catalogue.load(corpus.clauses_path))
        except clause_catalogue.CatalogueError:
            pass
        facts = report_jsonl.facts(corpus.scenarios, corpus.payloads)
    try:
        report_html.write(args.html, runs, texts, facts)
    except OSError as exc:
        err.write(f"teamai-conformance: error: {args.html}: cannot be written: {exc.strerror or exc}\n")
        return EXIT_USAGE
    out.write(f"results page written to {args.html}\n")
    return EXIT_OK


def _reprint(runs: list[report_jsonl.Run], out: IO[str]) -> int:
    """Each report's terminal summary, as its run printed it (exit 1 when any holds an unexpected
    outcome). The corpus's clause coverage is shown only for a run of the whole corpus."""
    code = EXIT_OK
    for n, (head, cases, foot) in enumerate(runs):
        impl = head.get("implementation") or {}
        name = f"{impl.get('name', '?')} {impl.get('version', '?')} via {impl.get('impl', '?')}"
        results = [outcomes.from_json(line) for line in cases]
        rerun = {str(line.get("id")): str(line.get("rerun") or "") for line in cases}
        whole = (head.get("corpus") or {}).get("scenarios") == len(cases)
        coverage = (foot or {}).get("clauses") if whole else None
        if n:
            out.write("\n")
        out.write(report_terminal.render(results, coverage, name, rerun.__getitem__))
        if foot is None:
            out.write("(this report has no footer: the run was cut short)\n")
        if any(r.outcome in outcomes.UNEXPECTED for r in results):
            code = EXIT_UNEXPECTED
    return code


def _expectations_path(args: argparse.Namespace, root: Path) -> Path | None:
    if args.expectations:
        return Path(args.expectations)
    if args.impl in ("reference", "reference-subprocess", "reference-cli"):
        return root / "conformance" / "expectations" / "reference.toml"
    return None


def _rerun(args: argparse.Namespace, root: Path, case_id: str) -> str:
    parts = ["teamai-conformance"]
    if args.corpus is not None:
        parts += ["--corpus", str(root)]
    parts += ["run", "--only", case_id]
    if args.impl != DEFAULT_IMPL:
        parts += ["--impl", args.impl]
    if args.expectations:
        parts += ["--expectations", str(args.expectations)]
    if args.timeout != DEFAULT_TIMEOUT:
        parts += ["--timeout", f"{args.timeout:g}"]
    return shlex.join(parts)


def _shown_path(path: Path | None, root: Path) -> str | None:
    """A file of the corpus by its path in the corpus (a report is read on other machines too)."""
    if path is None:
        return None
    resolved = path.resolve()
    return resolved.relative_to(root).as_posix() if resolved.is_relative_to(root) else str(path)


def _now() -> str:
    return dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _commit(root: Path) -> str | None:
    try:
        proc = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return proc.stdout.strip() or None if proc.returncode == 0 else None


def _run(corpus: corpus_mod.Corpus, args: argparse.Namespace, out: IO[str], err: IO[str]) -> int:
    if args.jobs < 1 or args.timeout <= 0:
        err.write("teamai-conformance: error: --jobs must be at least 1 and --timeout positive\n")
        return EXIT_USAGE
    if args.update_expectations and not args.expectations:
        err.write("teamai-conformance: error: --update-expectations needs --expectations FILE "
                  "(the file to write is always named)\n")
        return EXIT_USAGE
    chosen = _select(corpus, args.only, args.agent, err)
    if chosen is None:
        return EXIT_USAGE
    root = corpus.root
    ids: dict[str, str] = {}
    problems = [str(p) for p in corpus.problems]
    for scenario in chosen:
        if scenario.id in ids:
            problems.append(f"{scenario.rel}: id {scenario.id!r} is also used by {ids[scenario.id]}")
        ids.setdefault(scenario.id, scenario.rel)
        problems += [f"{scenario.rel}: {p}" for p in lint.blocking(scenario, corpus)]
    if problems:
        for problem in problems:
            err.write(f"{problem}\n")
        err.write(f"teamai-conformance: the corpus has {len(problems)} problem(s); see teamai-conformance lint\n")
        return EXIT_CORPUS
    exp_path = _expectations_path(args, root)
    try:
        expected = expectations.load(exp_path) if exp_path else {}
    except expectations.ExpectationsError as exc:
        err.write(f"teamai-conformance: error: {exc}\n")
        return EXIT_CORPUS
    strangers = expectations.unknown(expected, corpus.by_id())
    if strangers and exp_path is not None:
        err.write(f"teamai-conformance: warning: {expectations.unknown_warning(exp_path, strangers)}\n")
    try:
        driver = connect(args.impl)
    except DriverUnusable as exc:
        err.write(f"teamai-conformance: error: {exc}\n")
        return EXIT_DRIVER
    info = driver.info.get("implementation") or {}
    impl_name = f"{info.get('name', '?')} {info.get('version', '?')} via {args.impl}"
    started = _now()
    progress = report_terminal.Progress(err, len(chosen))
    try:
        results = pool.run_all(args.impl, corpus, chosen, expected, args.jobs, args.timeout,
                               driver if args.jobs <= 1 else None, progress)
    finally:
        driver.stop()
        progress.finish()
    try:
        catalogue = clause_catalogue.load(corpus.clauses_path)
    except clause_catalogue.CatalogueError:
        catalogue = []
    coverage = clause_catalogue.coverage(catalogue, corpus.scenarios)
    clause_summary = clause_catalogue.summary(catalogue, coverage)
    written = ""
    if args.update_expectations and exp_path is not None:
        written = _update_expectations(exp_path, expected, results)
    rerun = {r.id: _rerun(args, root, r.id) for r in results}
    whole = len(chosen) == len(corpus.scenarios)  # a selection cannot speak for the corpus's coverage
    out.write(report_terminal.render(results, clause_summary if whole else None, impl_name, rerun.__getitem__))
    out.write(written)
    code = EXIT_UNEXPECTED if any(r.outcome in outcomes.UNEXPECTED for r in results) else EXIT_OK
    if args.report or args.html:
        head = report_jsonl.header({**info, "impl": args.impl}, {"root": str(root), "commit": _commit(root),
                                                               "scenarios": len(corpus.scenarios)}, started,
                                   catalogue, _shown_path(exp_path, root))
        foot = report_jsonl.footer(results, _now(), code, clause_summary)
        facts = report_jsonl.facts(chosen, corpus.payloads)
        if args.report:
            report_jsonl.write(args.report, head, results, foot, rerun, facts)
        if args.html:
            report_html.write(args.html, [report_jsonl.build(head, results, foot, rerun, facts)])
    if args.junit:
        report_junit.write(args.junit, results, args.impl, rerun)
    return code


def _update_expectations(path: Path, before: dict[str, expectations.Expected],
                         results: list[outcomes.CaseResult]) -> str:
    """Write the file from this run, judge the run by it, and say what changed."""
    after = expectations.updated(before, results)
    expectations.rejudge(results, after)
    added, removed = expectations.changes(before, after)
    if not added and not removed and path.is_file():
        return f"expectations: {path} unchanged\n"
    expectations.save(path, after)

    def listed(ids: list[str]) -> str:
        return f"{len(ids)} ({', '.join(ids)})" if ids else "0"

    return f"expectations: wrote {path}: added {listed(added)}, removed {listed(removed)}\n"
