"""``nox -s bench``: speed as ratios measured in one run.

Every figure is the median wall time of fresh processes with its spread (min–max) and max RSS,
divided by an interpreter floor measured in the same rounds, so shared, noisy machines still give
comparable numbers. Where node and npm are present, teamai-cli 0.25.0 runs in the same rounds,
with the same questions and sample count, on the same assets (a difference is an error).

    python bench/run.py [--sizes 1000,10000,50000] [--peer-sizes 1000,10000] [--runs 15]
                        [--cold-runs 3] [--real DIR,...] [--skip-peer]
                        [--only recall,real,hook,reduce,conformance] [--work DIR] [--json FILE]

Exit 0 when every section ran, 1 when one failed, 2 when the two tools did not index the same
assets (their figures would time different work).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import hook_bench  # noqa: E402
import peer  # noqa: E402
import recall_bench  # noqa: E402
import reduce_bench  # noqa: E402
from commands import FLOOR, JSON_FLOOR, PY, clean_env, ref_cmd  # noqa: E402
from measure import rounds, timed  # noqa: E402
from table import Report  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SECTIONS = ("recall", "real", "hook", "reduce", "conformance")
MIN_SAMPLES, MIN_COLD = 10, 3
REAL_TREES = os.path.join(os.path.dirname(ROOT), "shared", "corpora", "real-team-a")


def floors(runs: int) -> tuple[float, float]:
    bare, js = rounds(runs * 2, lambda _: timed(FLOOR), lambda _: timed(JSON_FLOOR))
    return bare, js


def bench_recall(rep: Report, work: str, sizes: list[int], runs: int, cold_runs: int, entry: str | None,
                 peer_sizes: set[int]) -> None:
    for size in sizes:
        tree = recall_bench.synthetic(work, size, runs)
        recall_bench.bench_tree(rep, work, tree, runs, cold_runs, entry if size in peer_sizes else None)
    recall_bench.hub(rep, work, runs)


def bench_real(rep: Report, work: str, trees: list[str], runs: int, cold_runs: int, entry: str | None) -> None:
    for path in trees:
        if not os.path.isdir(path):
            rep.say(f"\nrecall, real trees: skipped {path}: no such folder "
                    "(real-team-a lives beside the repository, in shared/corpora/)")
            continue
        recall_bench.bench_tree(rep, work, recall_bench.real(path, runs), runs, cold_runs, entry)


def _package_dir() -> str:
    """Where the ``reference`` package this interpreter imports is installed."""
    out = subprocess.run([PY, "-c", "import reference, os; print(os.path.dirname(reference.__file__))"],
                         capture_output=True, check=True)
    return out.stdout.decode().strip()


def _recall_output(work: str) -> tuple[dict[str, str], str, str]:
    team = os.path.join(work, "hook-team")
    if not os.path.isdir(team):
        shutil.copytree(os.path.join(ROOT, "examples", "team"), team)
    home = os.path.join(work, "hook-home")
    shutil.rmtree(home, ignore_errors=True)
    env = clean_env(TEAMAI_HOME=home, TEAMAI_TEAM=team, CLAUDE_CODE_SESSION_ID="bench-session")
    out = subprocess.run([*ref_cmd(), "recall", "redis timeout"], env=env, capture_output=True, check=True)
    return env, out.stdout.decode(), os.path.join(team, "learnings", "redis-timeout.md")


def hook_payloads(output: str, doc: str, cwd: str) -> dict[str, bytes]:
    common = {"session_id": "bench-session", "transcript_path": "/tmp/t.jsonl", "cwd": cwd,
              "permission_mode": "default", "hook_event_name": "PostToolUse", "tool_use_id": "toolu_bench"}
    read = {**common, "tool_name": "Read", "tool_input": {"file_path": doc},
            "tool_response": {"type": "text", "file": {"filePath": doc, "content": "…", "numLines": 1,
                                                        "startLine": 1, "totalLines": 1}}}
    bash = {**common, "tool_name": "Bash", "tool_input": {"command": 'teamai recall "redis timeout"'},
            "tool_response": {"stdout": output, "stderr": "", "interrupted": False, "isImage": False}}
    # A content search over the whole team: the hook reads every doc a line names to check that the line
    # is text from it (hook/search.py), so this is the costliest search it sees.
    team = os.path.dirname(os.path.dirname(doc))
    lines: list[str] = []
    for folder, _, files in sorted(os.walk(team)):
        for name in sorted(files):
            if name.endswith(".md"):
                path = os.path.join(folder, name)
                with open(path, encoding="utf-8") as fh:
                    text = fh.read().splitlines()
                lines += [f"{path}:{i}:{line}" for i, line in enumerate(text, 1) if line.strip()][-3:]
    grep = {**common, "tool_name": "Grep", "tool_input": {"pattern": "e", "path": team, "output_mode": "content"},
            "tool_response": {"mode": "content", "numFiles": 0, "filenames": [], "content": "\n".join(lines),
                              "numLines": len(lines)}}
    return {"Read": json.dumps(read).encode(), "Bash with recall output": json.dumps(bash).encode(),
            f"Grep content, {len(lines)} lines over the team": json.dumps(grep).encode()}


def bench_hook(rep: Report, work: str, runs: int, entry: str | None) -> None:
    env, output, doc = _recall_output(work)
    payloads = hook_payloads(output, doc, os.path.dirname(doc))
    dispatch = [*ref_cmd(), "hook-dispatch", "post-tool-use", "--tool", "claude"]
    fast = [PY, "-I", "-S", os.path.join(_package_dir(), "hook", "fast.py"), "post-tool-use", "--tool", "claude"]
    team = os.path.dirname(os.path.dirname(doc))
    hook_bench.bench_hook(rep, work, team, env, payloads, dispatch, fast, max(runs * 2, MIN_SAMPLES), entry)


def bench_conformance(rep: Report) -> None:
    exe = shutil.which("teamai-conformance", path=os.path.dirname(PY)) or "teamai-conformance"
    exe_args = [exe, "--corpus", ROOT]
    inproc = timed([*exe_args, "run", "--jobs", "2"], cwd=ROOT)
    rep.add("conformance", "whole corpus, in-process, --jobs 2", inproc, goal="< 60 s", ok=inproc < 60_000)
    sub = timed([*exe_args, "run", "--jobs", "2", "--impl", "reference-subprocess"], cwd=ROOT)
    rep.add("conformance", "whole corpus, subprocess protocol, --jobs 2", sub, goal="<= 3x in-process",
            ok=sub / inproc <= 3.0)
    print(f"{'':12} subprocess / in-process = {sub / inproc:.2f}", flush=True)
    cli = timed([*exe_args, "run", "--jobs", "2", "--impl", "reference-cli"], cwd=ROOT)
    rep.add("conformance", "whole corpus, protocol + a teamai-ref process per step", cli)
    print(f"{'':12} (per-step processes) / in-process = {cli / inproc:.2f}", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1000,10000,50000", help="synthetic tree sizes, in assets")
    parser.add_argument("--runs", type=int, default=15,
                        help=f"samples per figure (at least {MIN_SAMPLES}; the hook takes twice as many)")
    parser.add_argument("--cold-runs", type=int, default=MIN_COLD, help=f"cold index builds per tool (at least {MIN_COLD})")
    parser.add_argument("--only", default=",".join(SECTIONS), help=f"some of {','.join(SECTIONS)}")
    parser.add_argument("--skip-peer", action="store_true", help="do not install or time teamai-cli")
    parser.add_argument("--peer-sizes", default="1000,10000",
                        help="the synthetic sizes at which teamai-cli runs too (50k adds over ten minutes)")
    parser.add_argument("--real", default=REAL_TREES, help="real team trees for the 'real' section, comma-separated")
    parser.add_argument("--work", help="folder for generated teams (kept between runs)")
    parser.add_argument("--json", help="also write the rows to this file")
    args = parser.parse_args()
    only = set(args.only.split(","))
    unknown = only - set(SECTIONS)
    if unknown:
        parser.error(f"--only: unknown section {', '.join(sorted(unknown))} (known: {', '.join(SECTIONS)})")
    runs, cold_runs = max(args.runs, MIN_SAMPLES), max(args.cold_runs, MIN_COLD)
    work = args.work or os.path.join(tempfile.gettempdir(), "teamai-conformance-bench")
    os.makedirs(work, exist_ok=True)
    entry = None if args.skip_peer else peer.install()
    rep = Report()
    rep.say(f"Medians of fresh processes over {runs} samples ({cold_runs} for cold builds), with the spread "
            "(min–max), the ratio to an interpreter floor measured in the same rounds, and max RSS (the process "
            "and its children). teamai-cli runs in the same rounds with the same questions.")
    if (args.runs, args.cold_runs) != (runs, cold_runs):
        rep.say(f"(--runs/--cold-runs raised to {runs}/{cold_runs}: fewer samples give no usable spread)")
    if entry is None and not args.skip_peer:
        rep.say("teamai-cli: node/npm not available or install failed; peer figures are left out")
    rep.title("floors")
    floor_ms, json_floor = floors(runs)
    rep.figure("floor", "python3 -I -S -c pass", floor_ms, tool="floor")
    rep.figure("floor", "python3 -I -S -c 'import json'", json_floor, tool="floor (import json)")
    sizes = [int(s) for s in args.sizes.split(",") if s]
    peer_sizes = {int(s) for s in args.peer_sizes.split(",") if s}
    failures = []
    for section, fn in (("recall", lambda: bench_recall(rep, work, sizes, runs, cold_runs, entry, peer_sizes)),
                        ("real", lambda: bench_real(rep, work, [p for p in args.real.split(",") if p], runs,
                                                    cold_runs, entry)),
                        ("hook", lambda: bench_hook(rep, work, runs, entry)),
                        ("reduce", lambda: reduce_bench.bench_reduce(rep, work, runs)),
                        ("conformance", lambda: bench_conformance(rep))):
        if section in only:
            if section in ("reduce", "conformance"):
                rep.title(section)
            try:
                fn()
            except Exception as exc:  # one broken section must not hide the others' figures
                failures.append(section)
                rep.say(f"{section:<12} failed: {type(exc).__name__}: {exc}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump({"rows": rep.rows, "errors": rep.errors, "failed": failures}, fh, indent=2)
    if rep.errors:
        rep.say(f"\n{len(rep.errors)} error(s): the tools did not do the same work; see above")
        return 2
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
