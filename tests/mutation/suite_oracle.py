"""Review aid for listed mutation equivalents: hold each to the suite's own properties.

    python tests/mutation/suite_oracle.py --module 'reducer.*' --sample 60 --seed 1 --out audit.jsonl

The corpus judges a mutant by what scenarios show; an entry in ``equivalents.toml`` says the mutant
shows nothing any input could. The unit suite's properties feed what no scenario does: hand-spelt
and corrupt log lines (``test_byte_readers``, ``test_log_counterexamples``), damaged checkpoints
(``test_checkpoint_trust``), generated histories against a model (``tests/sessions``). So each
listed mutant is served under its module's name (the working tree is never touched) to a pytest
run of the tests that feed its module, stopping at the first failure. ``same`` keeps the entry's
claim standing; a failure names the test and its message, for a person to judge: a property that
compares what a user sees (votes, credits, a log line) makes the entry a survivor to count or a
scenario to write; one that pins a private detail (a debug note, a checkpoint's byte layout)
leaves the reason standing.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import random
import subprocess
import sys
import tempfile
import time
import tomllib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# Which tests feed which modules' inputs; the first pattern a module matches wins.
FEEDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("reducer.logread", ("tests/reducer/test_byte_readers.py", "tests/reducer/test_robustness.py",
                         "tests/reducer/test_log_counterexamples.py", "tests/reducer/test_rules.py")),
    ("reducer.checkpoint", ("tests/reducer/test_checkpoint_trust.py", "tests/reducer/test_checkpoint.py",
                            "tests/reducer/test_properties.py")),
    ("reducer.keep", ("tests/reducer/test_checkpoint.py", "tests/reducer/test_properties.py",
                      "tests/reducer/test_retention.py")),
    ("state.retention", ("tests/reducer/test_retention.py", "tests/reducer/test_stats_pull.py")),
    ("state.upvoted*", ("tests/reducer/test_upvoted.py", "tests/reducer/test_crash_points.py")),
    ("commands.stats", ("tests/reducer/test_stats_pull.py",)),
    ("reducer*", ("tests/reducer/test_rules.py", "tests/reducer/test_model_shortcuts.py",
                  "tests/reducer/test_stop_family.py", "tests/reducer/test_robustness.py",
                  "tests/sessions/test_session_invariants.py")),
    ("hook.shell*", ("tests/hook/test_shell.py", "tests/hook/test_shell_forms.py", "tests/hook/test_claims.py",
                     "tests/hook/test_classify.py")),
    ("hook.categories", ("tests/hook/test_categories.py", "tests/hook/test_tool_names.py",
                         "tests/hook/test_classify.py")),
    ("hook.search", ("tests/hook/test_search.py", "tests/hook/test_classify.py")),
    ("hook.claims", ("tests/hook/test_claims.py", "tests/hook/test_claims_forgery.py")),
    ("hook.*", ("tests/hook/test_agents.py", "tests/hook/test_classify.py", "tests/hook/test_dispatch.py")),
    ("relations.*", ("tests/relations",)),
    ("recall.*", ("tests/test_recall.py", "tests/relations")),
    ("pathmatch", ("tests/test_pathmatch.py", "tests/hook/test_classify.py")),
)

# Run in the child before pytest imports anything of the reference: serve the mutant.
_BOOT = """
import ast, sys
sys.path[:0] = [{root!r}]
from conformance.mutation import walker
from conformance.mutation.judge import _Serve
path = {path!r}
source = open(path, encoding="utf-8").read()
found = [m for m in walker.mutants(source, {module!r}, {rel!r}) if m.id == {ident!r}]
if not found:
    sys.exit(99)
sys.meta_path.insert(0, _Serve({module!r}, path, found[0].compile(ast.parse(source), path)))
sys.dont_write_bytecode = True
import importlib
importlib.import_module({module!r})  # now, before pytest's assertion rewriter puts its finder in front
import pytest
sys.exit(pytest.main({args!r}))
"""


def feeds(short: str) -> tuple[str, ...]:
    for pattern, tests in FEEDS:
        if fnmatch.fnmatchcase(short, pattern):
            return tests
    return ()


def judge(ident: str, seed: int, timeout: float) -> dict[str, object]:
    short = ident.split(":", 1)[0]
    tests = feeds(short)
    if not tests:
        return {"id": ident, "verdict": "no feeding tests"}
    rel = "reference/" + short.replace(".", "/")
    rel = rel + "/__init__.py" if (ROOT / rel).is_dir() else rel + ".py"
    module = ("reference." + short) if short != "reducer" else "reference.reducer"
    args = [*(str(ROOT / t) for t in tests), "--rootdir", str(ROOT), "-c", str(ROOT / "pyproject.toml"), "-x", "-q", "--tb=line", "-p", "no:cacheprovider", "-W", "ignore", "--no-header",
            f"--hypothesis-seed={seed}", "-o", "addopts="]
    boot = _BOOT.format(root=str(ROOT), path=str(ROOT / rel), module=module, rel=rel, ident=ident, args=args)
    started = time.monotonic()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    # A mutant may write where it should not (a path and its content swapped, a relative name): the
    # child works in a folder of its own, so nothing lands in the working tree.
    with tempfile.TemporaryDirectory(prefix="teamai-oracle-") as scratch:
        try:
            done = subprocess.run([sys.executable, "-c", boot], cwd=scratch, env=env, capture_output=True,
                                  text=True, timeout=timeout, check=False)
        except subprocess.TimeoutExpired:
            return {"id": ident, "verdict": "timeout", "seconds": round(time.monotonic() - started, 1)}
    seconds = round(time.monotonic() - started, 1)
    if done.returncode == 0:
        return {"id": ident, "verdict": "same", "seconds": seconds}
    if done.returncode == 99:
        return {"id": ident, "verdict": "no such mutant"}
    lines = [ln for ln in done.stdout.splitlines() if ln.strip()]
    failed = [ln for ln in lines if ln.startswith(("FAILED", "ERROR"))]
    where = [ln for ln in lines if ": " in ln and ln.startswith(("/", "tests/", "E "))]
    return {"id": ident, "verdict": "fails", "test": failed[0] if failed else "",
            "message": (where[0] if where else "\n".join(lines[-5:]))[:600], "seconds": seconds}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--module", action="append", default=[], help="short module patterns (repeatable)")
    parser.add_argument("--sample", type=int, default=0, help="judge N entries drawn at random")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=600.0)
    parser.add_argument("--out", type=Path, required=True, help="JSON lines, one per entry, appended")
    args = parser.parse_args(argv)

    listed = tomllib.loads((ROOT / "conformance/mutation/equivalents.toml").read_text(encoding="utf-8"))
    ids = [e["id"] for e in listed["equivalent"]]
    if args.module:
        ids = [i for i in ids if any(fnmatch.fnmatchcase(i.split(":", 1)[0], p) for p in args.module)]
    done = set()
    if args.out.exists():
        done = {json.loads(ln)["id"] for ln in args.out.read_text(encoding="utf-8").splitlines() if ln.strip()}
    rnd = random.Random(args.seed)
    rnd.shuffle(ids)  # any prefix of the run is a random sample
    if args.sample:
        ids = ids[:args.sample]
    ids = [i for i in ids if i not in done]
    print(f"suite oracle: {len(ids)} entries, {args.jobs} at a time", flush=True)
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool, open(args.out, "a", encoding="utf-8") as out:
        for row in pool.map(lambda i: judge(i, args.seed, args.timeout), ids):
            out.write(json.dumps(row) + "\n")
            out.flush()
            print(f"{row['id']}  {row['verdict']}  {row.get('test', '')} {row.get('message', '')}"[:400], flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
