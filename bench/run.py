"""``nox -s bench``: speed as ratios measured in one run.

Every figure is the median wall time of fresh processes, divided by an interpreter floor measured
in the same run on the same machine, so shared, noisy machines still give comparable numbers.
Where node and npm are present, teamai-cli 0.25.0 runs the same work as a peer.

    python bench/run.py [--sizes 1000,10000,50000] [--runs 15] [--skip-peer] [--only recall,hook,...]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import logsynth  # noqa: E402
import peer  # noqa: E402
import synth  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PY = sys.executable
SECTIONS = ("recall", "hook", "reduce", "conformance")


def ref_cmd() -> list[str]:
    script = shutil.which("teamai-ref", path=os.path.dirname(PY)) or shutil.which("teamai-ref")
    return [script] if script else [PY, "-m", "reference"]


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("CLAUDE", "CODEX", "CURSOR", "COPILOT", "CODEBUDDY", "PI_", "TEAMAI_"))}
    env.update(extra)
    return env


def timed(cmd: list[str], env: dict[str, str] | None = None, stdin: bytes = b"", cwd: str | None = None) -> float:
    start = time.perf_counter()
    proc = subprocess.run(cmd, input=stdin, capture_output=True, env=env, cwd=cwd)
    elapsed = (time.perf_counter() - start) * 1000
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"{cmd[:3]} exited {proc.returncode}: {proc.stderr.decode()[-400:]}")
    return elapsed


def median(samples: list[float]) -> float:
    return statistics.median(samples)


FLOOR = [PY, "-I", "-S", "-c", "pass"]
JSON_FLOOR = [PY, "-I", "-S", "-c", "import json"]


def paired(floor: list[str], runs: int, sample: object) -> tuple[float, float]:
    """Medians of the floor and of ``sample()`` taken in alternation, so that a machine that gets
    busier or quieter during the run moves both alike."""
    floors, samples = [], []
    for _ in range(runs):
        floors.append(timed(floor))
        samples.append(sample())  # type: ignore[operator]
    return median(floors), median(samples)


class Report:
    def __init__(self) -> None:
        self.rows: list[dict[str, object]] = []

    def add(self, section: str, what: str, ms: float, floor_ms: float | None = None,
            goal: str = "", peer_ms: float | None = None, ok: bool | None = None) -> None:
        row: dict[str, object] = {"section": section, "what": what, "median_ms": round(ms, 1)}
        text = f"{section:<12} {what:<44} {ms:9.1f} ms"
        if floor_ms:
            row["x_floor"] = round(ms / floor_ms, 2)
            text += f"  {ms / floor_ms:6.2f}x floor"
        if peer_ms:
            row["peer_over_ref"] = round(peer_ms / ms, 1)
            text += f"  teamai-cli is {peer_ms / ms:5.1f}x slower"
        if goal:
            row["goal"] = goal
            row["met"] = ok
            text += f"  [goal {goal}: {'met' if ok else 'NOT met'}]"
        self.rows.append(row)
        print(text, flush=True)


def floors(runs: int) -> tuple[float, float]:
    bare = median([timed([PY, "-I", "-S", "-c", "pass"]) for _ in range(runs * 2)])
    js = median([timed([PY, "-I", "-S", "-c", "import json"]) for _ in range(runs * 2)])
    return bare, js


def bench_recall(rep: Report, work: str, sizes: list[int], runs: int, entry: str | None) -> None:
    cmd = ref_cmd()
    for size in sizes:
        team = os.path.join(work, f"team-{size}")
        if not os.path.isdir(team):
            synth.generate(team, size)
        home = os.path.join(work, f"home-{size}")
        shutil.rmtree(home, ignore_errors=True)
        env = clean_env(TEAMAI_HOME=home, TEAMAI_TEAM=team)
        rep.add("recall", f"{size} assets: cold index build", timed([*cmd, "index"], env))
        queries = synth.queries(runs + 3)
        for q in queries[:3]:
            timed([*cmd, "recall", q], env)
        it = iter(queries[3:])
        floor_ms, warm = paired(FLOOR, len(queries) - 3, lambda it=it, env=env: timed([*cmd, "recall", next(it)], env))
        goal = {10_000: 6.0, 50_000: 12.0}.get(size)
        peer_ms = None
        if entry is not None and size <= 10_000:
            peer_dir = os.path.join(work, f"peer-{size}")
            shutil.rmtree(peer_dir, ignore_errors=True)
            penv = peer.set_up(entry, team, peer_dir)
            for q in queries[:2]:
                timed(["node", entry, "recall", q], penv)
            peer_ms = median([timed(["node", entry, "recall", q], penv) for q in queries[3:3 + max(5, runs // 2)]])
        ok = None
        goal_text = ""
        if goal:
            ok = warm / floor_ms <= goal and (peer_ms is None or size != 10_000 or peer_ms / warm >= 5)
            goal_text = f"<= {goal:g}x floor" + (", >= 5x faster than teamai-cli"
                                                 if size == 10_000 and peer_ms else "")
        rep.add("recall", f"{size} assets: warm recall", warm, floor_ms, goal_text, peer_ms, ok)
        changed = []
        victims = sorted(os.listdir(os.path.join(team, "learnings", "ns0")))[:7]
        for i, victim in enumerate(victims):
            path = os.path.join(team, "learnings", "ns0", victim)
            with open(path + ".tmp", "w", encoding="utf-8") as out, open(path, encoding="utf-8") as src:
                out.write(src.read() + f"\nchanged {time.time()}\n")
            os.replace(path + ".tmp", path)  # saved the way git and most editors save
            changed.append(timed([*cmd, "recall", queries[i]], env))
        rep.add("recall", f"{size} assets: recall after one asset changed", median(changed), floor_ms)


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
    return {"Read": json.dumps(read).encode(), "Bash with recall output": json.dumps(bash).encode()}


def bench_hook(rep: Report, work: str, runs: int, entry: str | None) -> None:
    env, output, doc = _recall_output(work)
    payloads = hook_payloads(output, doc, os.path.dirname(doc))
    cmd = [*ref_cmd(), "hook-dispatch", "post-tool-use", "--tool", "claude"]
    peer_env = None
    if entry is not None:
        peer_env = peer.offline_env(os.path.join(work, "peer-hook-home"))
        os.makedirs(peer_env["HOME"], exist_ok=True)
    fast = [PY, "-I", "-S", os.path.join(_package_dir(), "hook", "fast.py"), "post-tool-use", "--tool", "claude"]
    for name, data in payloads.items():
        json_floor, ms = paired(JSON_FLOOR, runs * 2, lambda data=data: timed(cmd, env, data))
        fast_floor, fast_ms = paired(JSON_FLOOR, runs * 2, lambda data=data: timed(fast, env, data))
        rep.add("hook", f"post-tool-use, {name} (hook-command line)", fast_ms, fast_floor,
                "<= 2x floor(import json)", ok=fast_ms / fast_floor <= 2.0)
        peer_ms = None
        if peer_env is not None:
            peer_ms = median([timed(["node", entry or "", "hook-dispatch", "post-tool-use", "--tool", "claude"],
                                    peer_env, data) for _ in range(5)])
        ok = ms / json_floor <= 2.0 and (peer_ms is None or peer_ms / ms >= 10)
        goal = "<= 2x floor(import json)" + (", >= 10x faster than teamai-cli" if peer_ms else "")
        rep.add("hook", f"post-tool-use, {name}", ms, json_floor, goal, peer_ms, ok)


# Log sizes for the reducer (lines) and the days of use each spans.
LOG_SIZES = ((500, 1), (5000, 7), (50_000, 30))


def _reduced_log(work: str, size: int, days: int) -> tuple[dict[str, str], object, int]:
    """A team member's log of ``size`` lines over ``days`` days up to a few minutes ago, reduced at
    the end of each day as Stops and pulls would have (consumed lines and per-session ledger as
    they would be), with no checkpoint."""
    sys.path.insert(0, ROOT)
    from reference import config, reducer

    team = os.path.join(work, "reduce-team")
    os.makedirs(team, exist_ok=True)
    home = os.path.join(work, f"reduce-home-{size}")
    shutil.rmtree(home, ignore_errors=True)
    env = clean_env(TEAMAI_HOME=home, TEAMAI_TEAM=team)
    scope = config.load(env).active
    os.makedirs(scope.state_dir, exist_ok=True)
    end = time.time() - 900
    records = logsynth.month(team, size, end, days)
    for day in range(days, -1, -1):
        until = end - day * 86400
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(until))
        with open(scope.log_path, "ab") as fh:
            fh.write(logsynth.encode([r for r in records if str(r["ts"]) < stamp]))
        records = [r for r in records if str(r["ts"]) >= stamp]
        reducer.reduce(config.load({**env, "TEAMAI_NOW": stamp}), lambda message: None)
    if os.path.exists(scope.checkpoint_path):
        os.unlink(scope.checkpoint_path)
    with open(scope.log_path, "rb") as fh:
        lines = fh.read().count(b"\n")
    return env, scope, lines


class _LogState:
    """One scope's reducer state (log, checkpoint, ledgers), saved once and put back before each sample."""

    def __init__(self, env: dict[str, str], scope: object, size: int) -> None:
        self.env, self.scope = env, scope
        self.paths = tuple(getattr(scope, name) for name in ("log_path", "checkpoint_path", "upvoted_path",
                                                             "ledger_path"))
        self.rng = __import__("random").Random(size)
        self.pool = logsynth.docs(env["TEAMAI_TEAM"])
        self.saved: dict[str, bytes] = {}
        self.save()

    def save(self) -> None:
        self.saved = {}
        for path in self.paths:
            if os.path.exists(path):
                with open(path, "rb") as fh:
                    self.saved[path] = fh.read()

    def put_back_with_a_turn(self) -> None:
        """The saved state, and one more agent turn just now: a recall, its claim, reads of two of
        its docs and of one other."""
        for path in self.paths:
            if os.path.exists(path):
                os.unlink(path)
        for path, data in self.saved.items():
            with open(path, "wb") as fh:
                fh.write(data)
        run_id = f"b{self.rng.randrange(16**7):07x}-0000-4000-8000-{self.rng.randrange(16**12):012x}"
        lines = logsynth.turn_lines(STOP_SESSION, time.time() - 30, run_id, self.rng.sample(self.pool[:40], 3),
                                    self.rng, reads=2, others=[self.rng.choice(self.pool)])
        with open(self.paths[0], "ab") as fh:
            fh.write(logsynth.encode(lines))

    def timed(self, cmd: list[str], stdin: bytes = b"") -> float:
        self.put_back_with_a_turn()
        return timed(cmd, self.env, stdin)


STOP_SESSION = "ses-bench"
STOP_PAYLOAD = json.dumps({"session_id": STOP_SESSION, "transcript_path": "/tmp/t.jsonl", "cwd": "/tmp",
                           "hook_event_name": "Stop", "stop_hook_active": False}).encode()


def bench_reduce(rep: Report, work: str, runs: int) -> None:
    """The Stop as agents run it (``hook-command``'s line), at each log length: once with no
    checkpoint (it reads the whole log and writes one), then in the steady state (the last Stop
    left a checkpoint; one more turn arrives); and ``pull`` over the longest log."""
    stop = [PY, "-I", "-S", os.path.join(_package_dir(), "hook", "fast.py"), "stop", "--tool", "claude"]
    script = [*ref_cmd(), "hook-dispatch", "stop", "--tool", "claude"]
    for size, days in LOG_SIZES:
        env, scope, lines = _reduced_log(work, size, days)
        state = _LogState(env, scope, size)
        floor_ms, ms = paired(FLOOR, max(3, runs // 3), lambda state=state: state.timed(stop, STOP_PAYLOAD))
        rep.add("reduce", f"Stop, {lines}-line log, no checkpoint (reads it all)", ms, floor_ms)
        state.put_back_with_a_turn()
        timed(stop, env, STOP_PAYLOAD)  # the steady state: the last Stop left a checkpoint
        state.save()
        floor_ms, ms = paired(FLOOR, runs, lambda state=state: state.timed(stop, STOP_PAYLOAD))
        rep.add("reduce", f"Stop after one more turn, {lines}-line log", ms, floor_ms, "<= 3x floor",
                ok=ms / floor_ms <= 3.0)
        if size == 5000:
            floor_ms, ms = paired(FLOOR, runs, lambda state=state: state.timed(script, STOP_PAYLOAD))
            rep.add("reduce", f"the same Stop, console script, {lines}-line log", ms, floor_ms)
        if size == LOG_SIZES[-1][0]:
            pulls = [state.timed([*ref_cmd(), "pull"]) for _ in range(max(3, runs // 3))]
            rep.add("reduce", f"pull over a {lines}-line log (prunes it)", median(pulls), goal="< 1 s",
                    ok=median(pulls) < 1000)


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
    parser.add_argument("--sizes", default="1000,10000,50000")
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--only", default=",".join(SECTIONS))
    parser.add_argument("--skip-peer", action="store_true", help="do not install or time teamai-cli")
    parser.add_argument("--work", help="folder for generated teams (kept between runs)")
    parser.add_argument("--json", help="also write the rows to this file")
    args = parser.parse_args()
    only = set(args.only.split(","))
    work = args.work or os.path.join(tempfile.gettempdir(), "teamai-conformance-bench")
    os.makedirs(work, exist_ok=True)
    entry = None if args.skip_peer else peer.install()
    rep = Report()
    floor_ms, json_floor = floors(args.runs)
    rep.add("floor", "python3 -I -S -c pass", floor_ms)
    rep.add("floor", "python3 -I -S -c 'import json'", json_floor)
    print(f"{'':12} (each ratio below is against a floor re-measured alongside it)", flush=True)
    if entry is None and not args.skip_peer:
        print("teamai-cli: node/npm not available or install failed; peer ratios are left out")
    failures = []
    for section, fn in (("recall", lambda: bench_recall(rep, work, [int(s) for s in args.sizes.split(",")],
                                                        args.runs, entry)),
                        ("hook", lambda: bench_hook(rep, work, args.runs, entry)),
                        ("reduce", lambda: bench_reduce(rep, work, args.runs)),
                        ("conformance", lambda: bench_conformance(rep))):
        if section in only:
            try:
                fn()
            except Exception as exc:  # one broken section must not hide the others' figures
                failures.append(section)
                print(f"{section:<12} failed: {exc}", flush=True)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(rep.rows, fh, indent=2)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
