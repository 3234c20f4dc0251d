"""The reducer's figures: a Stop as agents run it at three log lengths, and ``pull``.

The log is built as a team member's month would leave it: reduced at the end of every day (as
Stops and pulls would have), so the consumed lines and the per-session ledger are what a real
state holds. A Stop is timed twice per length: once with no checkpoint (it reads the whole log and
writes one), then in the steady state (the last Stop left a checkpoint and one more turn arrived).
"""

from __future__ import annotations

import json
import os
import random
import shutil
import sys
import time

import logsynth
from commands import FLOOR, PY, clean_env, ref_cmd
from measure import median, paired, timed
from table import Report

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Log sizes for the reducer (lines) and the days of use each spans.
LOG_SIZES = ((500, 1), (5000, 7), (50_000, 30))
STOP_GOAL, PULL_GOAL_MS = 3.0, 1000
STOP_SESSION = "ses-bench"
STOP_PAYLOAD = json.dumps({"session_id": STOP_SESSION, "transcript_path": "/tmp/t.jsonl", "cwd": "/tmp",
                           "hook_event_name": "Stop", "stop_hook_active": False}).encode()


def package_dir() -> str:
    import reference

    return os.path.dirname(os.path.abspath(reference.__file__))


def _reduced_log(work: str, size: int, days: int) -> tuple[dict[str, str], object, int]:
    """A log of ``size`` lines over ``days`` days up to a few minutes ago, reduced at the end of
    each day, with no checkpoint."""
    sys.path.insert(0, ROOT)
    from reference import reducer
    from reference.team import config

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
    """One scope's reducer state (log, checkpoint, ledgers), saved once and put back before each
    sample, so every sample does the same work."""

    def __init__(self, env: dict[str, str], scope: object, size: int) -> None:
        self.env = env
        # The ledger's lock file too: it holds the digest of the ledger as last written, which lets
        # a Stop rewrite only the entries it raises.
        self.paths = tuple(getattr(scope, name) for name in ("log_path", "checkpoint_path", "upvoted_path",
                                                             "ledger_path", "ledger_lock"))
        self.rng = random.Random(size)
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
            if path not in self.saved and os.path.exists(path):
                os.unlink(path)
        for path, data in self.saved.items():
            # In place: the log keeps its inode, as a real log does between Stops (the checkpoint
            # names the file it describes, and a replaced log means a full read).
            with open(path, "r+b" if os.path.exists(path) else "wb") as fh:
                fh.write(data)
                fh.truncate()
        self._same_log()
        run_id = f"b{self.rng.randrange(16**7):07x}-0000-4000-8000-{self.rng.randrange(16**12):012x}"
        lines = logsynth.turn_lines(STOP_SESSION, time.time() - 30, run_id, self.rng.sample(self.pool[:40], 3),
                                    self.rng, reads=2, others=[self.rng.choice(self.pool)])
        with open(self.paths[0], "ab") as fh:
            fh.write(logsynth.encode(lines))

    def _same_log(self) -> None:
        """A ``pull`` replaces the log file (it prunes it): the saved checkpoint then names a file
        that is gone. It is made to name the log put back, as it named the saved one."""
        from reference.reducer import checkpoint

        log, path = self.paths[0], self.paths[1]
        if path not in self.saved or not os.path.exists(log):
            return
        data = self.saved[path]
        try:
            fields = json.loads(data[:checkpoint.HEAD])
        except ValueError:
            return
        st = os.stat(log)
        if not isinstance(fields, dict) or (fields.get("dev"), fields.get("ino")) == (st.st_dev, st.st_ino):
            return
        fields.pop("check", None)
        fields.update(dev=st.st_dev, ino=st.st_ino)
        line = checkpoint.header_line(fields)  # the header checks its own bytes: written as the reference does
        if line is not None:
            with open(path, "r+b") as fh:
                fh.write(line)

    def timed(self, cmd: list[str], stdin: bytes = b"") -> float:
        self.put_back_with_a_turn()
        return timed(cmd, self.env, stdin)


def bench_reduce(rep: Report, work: str, runs: int) -> None:
    """The Stop as agents run it (``hook-command``'s line) at each log length, the console
    script's Stop at 5000 lines, and ``pull`` over the longest log."""
    stop = [PY, "-I", "-S", os.path.join(package_dir(), "hook", "fast.py"), "stop", "--tool", "claude"]
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
        rep.add("reduce", f"Stop after one more turn, {lines}-line log", ms, floor_ms, f"<= {STOP_GOAL:g}x floor",
                ok=ms / floor_ms <= STOP_GOAL)
        if size == 5000:
            floor_ms, ms = paired(FLOOR, runs, lambda state=state: state.timed(script, STOP_PAYLOAD))
            rep.add("reduce", f"the same Stop, console script, {lines}-line log", ms, floor_ms)
        if size == LOG_SIZES[-1][0]:
            pulls = median([state.timed([*ref_cmd(), "pull"]) for _ in range(max(3, runs // 3))])
            rep.add("reduce", f"pull over a {lines}-line log (prunes it)", pulls, goal="< 1 s",
                    ok=pulls < PULL_GOAL_MS)
