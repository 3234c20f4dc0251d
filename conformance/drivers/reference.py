"""The reference behind the driver protocol: one backend, two ways to run ``teamai-ref``.

:func:`in_process` calls ``reference.cli.run`` with an explicit environment (fast; what
``--impl reference`` and ``teamai-conformance driver reference`` use). :func:`as_subprocess` runs
``python -m reference`` as a real child process per command (``driver reference --exec cli``,
``--impl reference-cli``): slower, and the proof that the console command behaves as the entry
point does. Everything else, from the sandbox to how state is observed, is shared, so the ways
can only differ where running differs.

A step with ``repeat`` (thousands of hook events for the log's line backstop) runs as one batch:
in this process for :func:`in_process`, and in *one* child process for :func:`as_subprocess`,
because an interpreter start per repeat would turn a two-second case into minutes.

The sandbox's layout, the git repository for ``review`` included, is ``running/sandbox.py``'s. A
``hold`` takes the lock the reference itself takes (``storage.locked``; for the index, an open
SQLite write transaction), so it is busy for the reference in this same process too. A ``spoil``
damages the search index as the reference's own ways to fail would leave it (:func:`spoil_index`).
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import traceback
from collections.abc import Callable, Mapping
from contextlib import ExitStack
from typing import Any

from ..corpus import levels
from ..running import protocol, sandbox
from ..running.substitute import with_index

Runner = Callable[[list[str], dict[str, str], bytes, str], tuple[int, str, str]]
Job = tuple[list[str], dict[str, str], bytes]
Batch = Callable[[list[Job], str], list[tuple[int, str, str]]]

# The agents the reference has an adapter for: its registry is the one list (payloads/README.md,
# "Adding an agent"), so an agent added there is declared here without a second edit.
from reference.hook.agents import AGENTS  # noqa: E402

LOCK_WAIT = "0.2"  # seconds: a held ledger turns into Busy quickly, and nothing else waits
_PASS_ENV = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TMPDIR", "SYSTEMROOT", "PYTHONPATH")


def in_process(argv: list[str], env: dict[str, str], stdin: bytes, cwd: str) -> tuple[int, str, str]:
    """Run ``teamai-ref`` in this process. An uncaught exception ends like an uncaught one in a
    child process would (exit 1, traceback on stderr), so both runners report the same outcome."""
    from reference.cli import run
    from reference.streams import Io

    out, err = io.StringIO(), io.StringIO()
    try:
        code = run(argv, Io(env, io.BytesIO(stdin), out, err))
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except Exception:
        err.write(traceback.format_exc())
        code = 1
    return code, out.getvalue(), err.getvalue()


def as_subprocess(argv: list[str], env: dict[str, str], stdin: bytes, cwd: str) -> tuple[int, str, str]:
    proc = subprocess.run([sys.executable, "-m", "reference", *argv], input=stdin, capture_output=True,
                          env=env, cwd=cwd)
    return proc.returncode, proc.stdout.decode("utf-8", "replace"), proc.stderr.decode("utf-8", "replace")


def in_process_batch(jobs: list[Job], cwd: str) -> list[tuple[int, str, str]]:
    return [in_process(argv, env, stdin, cwd) for argv, env, stdin in jobs]


def subprocess_batch(jobs: list[Job], cwd: str) -> list[tuple[int, str, str]]:
    """Every job in one child interpreter (see :func:`batch_main`); its environment is each job's own."""
    body = json.dumps([{"argv": a, "env": e, "stdin": i.decode("utf-8", "surrogateescape")} for a, e, i in jobs],
                      ensure_ascii=False).encode("utf-8", "surrogateescape")
    child_env = jobs[0][1] if jobs else dict(os.environ)
    code = "import sys; from conformance.drivers.reference import batch_main; sys.exit(batch_main())"
    proc = subprocess.run([sys.executable, "-c", code], input=body, capture_output=True, env=child_env, cwd=cwd)
    if proc.returncode != 0:
        raise RuntimeError("the batch process failed: " + proc.stderr.decode("utf-8", "replace")[-2000:])
    return [(int(r[0]), str(r[1]), str(r[2])) for r in json.loads(proc.stdout)]


def batch_main() -> int:
    """The child side of :func:`subprocess_batch`: jobs as JSON on stdin, results as JSON on stdout."""
    jobs = json.loads(sys.stdin.buffer.read().decode("utf-8", "surrogateescape"))
    cwd = os.getcwd()
    results = [in_process(j["argv"], j["env"], j["stdin"].encode("utf-8", "surrogateescape"), cwd) for j in jobs]
    sys.stdout.write(json.dumps(results, ensure_ascii=False))
    return 0


def base_env(layout: sandbox.Layout) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k in _PASS_ENV or k.startswith("COVERAGE_")}
    env.update({"HOME": layout.home, "TEAMAI_HOME": layout.state, "TEAMAI_TEAM": layout.team,
                "TEAMAI_LOCK_WAIT": LOCK_WAIT})
    if layout.user_team:
        env["TEAMAI_USER_TEAM"] = layout.user_team
    if layout.learnings:
        env["TEAMAI_LEARNINGS"] = os.pathsep.join(layout.learnings)
    if layout.withheld_file:
        env["TEAMAI_WITHHELD_FILE"] = layout.withheld_file
    return env


def stats_rows(parsed: Any) -> list[Any] | None:
    """The rows of ``stats --json``: the list itself, or the first list under a known key."""
    if isinstance(parsed, list):
        return parsed
    if isinstance(parsed, dict):
        for key in ("rows", "sessions", "recall"):
            value = parsed.get(key)
            if isinstance(value, list):
                return value
            if isinstance(value, dict) and isinstance(value.get("sessions"), list):
                return list(value["sessions"])
    return None


class ReferenceBackend:
    """Answers protocol messages for ``teamai-ref``; one scenario at a time."""

    def __init__(self, runner: Runner, batch: Batch | None = None) -> None:
        self.run = runner
        self.batch = batch or (subprocess_batch if runner is as_subprocess else in_process_batch)
        self.layout: sandbox.Layout | None = None
        self.env: dict[str, str] = {}
        self.holds = ExitStack()
        self.contributions = 0

    def __call__(self, message: dict[str, Any]) -> dict[str, Any]:
        cmd = message["cmd"]
        answer = getattr(self, f"do_{cmd}")(message)
        return {"seq": message["seq"], "ok": True, **answer}

    # -- lifecycle -------------------------------------------------------------------------
    def do_start(self, message: dict[str, Any]) -> dict[str, Any]:
        from reference import __version__

        return {"protocol": protocol.VERSION,
                "implementation": {"name": "teamai-ref", "version": str(__version__)},
                "capabilities": {"commands": list(protocol.STEP_COMMANDS), "agents": list(AGENTS),
                                 "log": True, "hold": list(protocol.HOLDABLE), "spoil": list(protocol.SPOILABLE),
                                 "repeat": True, "seed": list(protocol.SEEDABLE), "windows_team": True,
                                 "credited": True, "profile": levels.REFERENCE_PROFILE}}

    def do_open(self, message: dict[str, Any]) -> dict[str, Any]:
        from reference.team import config, tree

        self.close_all()
        self.layout = layout = sandbox.materialize(message["sandbox"], message)
        self.env = base_env(layout)
        self.contributions = 0
        cfg = config.load(self.env)
        answer: dict[str, Any] = {"paths": {}, "user_paths": {},
                                  "roots": {"team": cfg.active.team, "user_team": None,
                                            "learnings": list(cfg.active.learnings_roots)}}
        scopes = () if message.get("windows_team") else cfg.scopes  # a team on Windows: no tree here
        for scope in scopes:
            target = "paths" if scope is cfg.active else "user_paths"
            answer[target] = {a.tree_path: a.path for a in tree.walk(scope.team, scope.learnings_roots)}
            if scope is not cfg.active:
                answer["roots"]["user_team"] = scope.team
        return answer

    def do_close(self, message: dict[str, Any]) -> dict[str, Any]:
        self.close_all()
        return {}

    def do_stop(self, message: dict[str, Any]) -> dict[str, Any]:
        self.close_all()
        return {}

    def close_all(self) -> None:
        self.holds.close()
        self.holds = ExitStack()
        self.layout = None

    def do_seed(self, message: dict[str, Any]) -> dict[str, Any]:
        """Put the state a user's machine already holds where ``teamai-ref`` keeps it: the votes
        ledger and the log as the texts given, the per-session credits in its own file, and the
        checkpoint of a reduce that read the log when it held ``checkpoint.read``."""
        from reference.team import config

        cfg = config.load(self._env(message))
        scope = cfg.active
        os.makedirs(scope.state_dir, exist_ok=True)
        if message.get("votes") is not None:
            _write(scope.ledger_path, message["votes"].encode("utf-8"))
        if message.get("upvoted") is not None:
            sessions: dict[str, dict[str, Any]] = {}
            for e in message["upvoted"]:
                # a credit without its read's time is spelled as the file's version 1 spelled every
                # credit, one instant that stands for both
                sessions.setdefault(e["session"], {})[e["key"]] = (
                    {"read": e["read"], "credited": e["credited"]} if "read" in e else e["credited"])
            # as one document, the spelling of versions 1 to 3, which teamai-ref reads and writes again as lines
            _write(scope.upvoted_path, json.dumps({"version": 3, "sessions": sessions}).encode())
        log = message.get("log")
        mark = message.get("checkpoint")
        if mark is not None:
            _write(scope.log_path, mark["read"].encode("utf-8"))
            _checkpoint(cfg, str(message["now"]))
        if log is not None or mark is not None:
            data = (log or "").encode("utf-8")
            read = mark["read"].encode("utf-8") if mark is not None else b""
            if mark is not None and not mark["replaced"] and data.startswith(read):
                with open(scope.log_path, "ab") as fh:  # appended to since
                    fh.write(data[len(read):])
            elif mark is not None and mark["replaced"]:
                _write(scope.log_path + ".new", data)  # a new file takes the log's name
                os.replace(scope.log_path + ".new", scope.log_path)
            else:
                _write(scope.log_path, data)  # rewritten in place (the same file)
        return {}

    # -- steps -----------------------------------------------------------------------------
    def _env(self, message: Mapping[str, Any]) -> dict[str, str]:
        env = {**self.env, "TEAMAI_NOW": str(message["now"])}
        env.update({str(k): str(v) for k, v in (message.get("env") or {}).items()})
        return env

    def _sandbox(self) -> sandbox.Layout:
        if self.layout is None:
            raise RuntimeError("no scenario is open")
        return self.layout

    def _exec(self, argv: list[str], message: Mapping[str, Any], stdin: bytes = b"") -> dict[str, Any]:
        code, out, err = self.run(argv, self._env(message), stdin, self._sandbox().root)
        return {"exit": code, "stdout": out, "stderr": err}

    def _repeated(self, message: dict[str, Any], command: Callable[[dict[str, Any]], tuple[list[str], bytes]]
                  ) -> dict[str, Any]:
        """Run the step once, or ``repeat`` times with ``${i}`` = 1, 2, …; the answer is the first
        run that exited non-zero, else the last run."""
        count = message.get("repeat")
        if count is None:
            argv, stdin = command(message)
            return self._exec(argv, message, stdin)
        jobs: list[Job] = []
        for i in range(1, int(count) + 1):
            one = with_index(message, i)
            argv, stdin = command(one)
            jobs.append((argv, self._env(one), stdin))
        results = self.batch(jobs, self._sandbox().root)
        code, out, err = next((r for r in results if r[0] != 0), results[-1])
        return {"exit": code, "stdout": out, "stderr": err}

    def do_recall(self, message: dict[str, Any]) -> dict[str, Any]:
        return self._repeated(message, _recall_command)

    def do_hook(self, message: dict[str, Any]) -> dict[str, Any]:
        return self._repeated(message, _hook_command)

    def do_pull(self, message: dict[str, Any]) -> dict[str, Any]:
        return self._exec(["pull"], message)

    def do_stats(self, message: dict[str, Any]) -> dict[str, Any]:
        return self._exec(["stats", "--json"] if message.get("json") else ["stats"], message)

    def do_review(self, message: dict[str, Any]) -> dict[str, Any]:
        repo = self._sandbox().repo
        if repo is None:
            raise RuntimeError("review needs the scenario's repo")
        return self._exec(["review", "--branch", message["branch"], "--repo", repo], message)

    def do_contribute(self, message: dict[str, Any]) -> dict[str, Any]:
        self.contributions += 1
        path = os.path.join(self._sandbox().root, f"contribution-{self.contributions}.md")
        with open(path, "w", encoding="utf-8", newline="") as fh:
            fh.write(message["text"])
        return self._exec(["contribute", "--file", path, "--title", message["title"]], message)

    def do_hold(self, message: dict[str, Any]) -> dict[str, Any]:
        from reference.state import storage
        from reference.team import config

        cfg = config.load(self._env(message))
        what = message["what"]
        if what == "search-index":  # a writer in the middle of a transaction, as another recall's refresh is
            from reference.recall._sqlite import sqlite3

            holder = sqlite3.connect(self._index(message), isolation_level=None)
            holder.execute("BEGIN IMMEDIATE")
            self.holds.callback(holder.close)
            self.holds.callback(holder.execute, "ROLLBACK")
            return {}
        lock, name = {"votes-ledger": (cfg.active.ledger_lock, "the votes ledger"),
                      "recall-log": (cfg.active.log_lock, "the recall log")}[what]
        self.holds.enter_context(storage.locked(lock, name, 0))
        return {}

    def do_release(self, message: dict[str, Any]) -> dict[str, Any]:
        self.holds.close()
        self.holds = ExitStack()
        return {}

    def do_spoil(self, message: dict[str, Any]) -> dict[str, Any]:
        spoil_index(self._index(message), message["how"])
        return {}

    def _index(self, message: Mapping[str, Any]) -> str:
        """The active scope's search index file, made first when no recall has made it yet (a hold
        or a spoil acts on the file as any recall leaves it)."""
        from reference.recall import index
        from reference.team import config

        scope = config.load(self._env(message)).active
        index.open_index(scope).close()
        return scope.index_path

    # -- state -----------------------------------------------------------------------------
    def do_observe(self, message: dict[str, Any]) -> dict[str, Any]:
        from reference.state import ledger, ledger_read, runlog
        from reference.team import config

        env = self._env(message)
        cfg = config.load(env)
        want = set(message.get("want") or ())
        answer: dict[str, Any] = {"votes": {}, "log": [], "stats": None, "raw": {}}
        try:
            answer["votes"] = ledger.read(cfg.active.ledger_path)
        except ledger_read.CorruptLedger as exc:
            answer["votes"] = {}
            answer["raw"]["votes-error"] = str(exc)
        answer["log"] = runlog.read(cfg.active.log_path)[0]
        if "credited" in want:
            answer["credited"] = credits(answer["log"])
        if "ledger" in want:
            try:
                with open(cfg.active.ledger_path, encoding="utf-8", errors="replace") as fh:
                    answer["ledger"] = fh.read()
            except FileNotFoundError:
                answer["ledger"] = None
        if "raw" in want:
            for scope in cfg.scopes:
                for name, path in (("log", scope.log_path), ("votes", scope.ledger_path),
                                   ("upvoted", scope.upvoted_path)):
                    if os.path.exists(path):
                        with open(path, encoding="utf-8", errors="replace") as fh:
                            answer["raw"][f"{scope.name}/{name}"] = fh.read()
        if "stats" in want:
            code, out, _err = self.run(["stats", "--json"], env, b"", self._sandbox().root)
            if code == 0:
                try:
                    answer["stats"] = stats_rows(json.loads(out))
                except ValueError:
                    answer["stats"] = None
        return answer


def credits(log: list[Any]) -> list[dict[str, str]]:
    """The reads the reference credited, from its own marks: a ``consumed`` line with
    ``credited: true`` names the session credited (a subagent's read credits its root session),
    the doc's key and the read's path; one that is not credited only records a read an earlier
    credit already covered."""
    out = []
    for line in log:
        if isinstance(line, dict) and line.get("kind") == "consumed" and line.get("credited") is True:
            read: dict[str, Any] = line["evidence"] if isinstance(line.get("evidence"), dict) else {}
            out.append({"session": str(line.get("session", "")), "key": str(line.get("key", "")),
                        "path": str(read.get("path", ""))})
    return out


def spoil_index(path: str, how: str) -> None:
    """Damage the reference's search index at ``path`` the way it can really be found: ``garbage``,
    bytes that are no SQLite file at all (another program wrote there; SQLite says "not a
    database"); ``truncated``, cut to half its size (a full disk, a copy cut short; SQLite says
    "malformed"); ``other-version``, a well-formed index whose stored format version is the one
    before the reference's own, as an older ``teamai-ref`` left it. Each is a different path
    through ``reference/recall/index.py``, which the scenarios that spoil it tell apart."""
    if how == "garbage":
        _write(path, b"not a search index\n" * 256)
    elif how == "truncated":
        os.truncate(path, os.path.getsize(path) // 2)
    elif how == "other-version":
        from reference.recall import index
        from reference.recall._sqlite import sqlite3

        conn = sqlite3.connect(path, isolation_level=None)
        try:
            conn.execute("UPDATE meta SET value = ? WHERE name = 'version'", (str(int(index.INDEX_VERSION) - 1),))
        finally:
            conn.close()
    else:
        raise ValueError(f"no way to spoil the index: {how!r}")


def _write(path: str, data: bytes) -> None:
    with open(path, "wb") as fh:
        fh.write(data)


def _checkpoint(cfg: Any, now: str) -> None:
    """The checkpoint a reduce at ``now`` writes for the log as it is on disk."""
    from reference.reducer import Lines, build, checkpoint, keep
    from reference.state.clock import micros

    scope = cfg.active
    with open(scope.log_path, "rb") as fh:
        data = fh.read()
    st = os.stat(scope.log_path)
    lines = Lines(data)
    fields, body = keep.compact(lines, build(lines, only_pending=True), micros(now), None)
    checkpoint.save(scope, checkpoint.whole_view((st.st_dev, st.st_ino), data), fields, body)


def _recall_command(message: Mapping[str, Any]) -> tuple[list[str], bytes]:
    argv = ["recall", message["query"]]
    if message.get("caller"):
        argv += ["--caller", message["caller"]]
    if message.get("check"):
        argv.append("--check")
    return argv, b""


def _hook_command(message: Mapping[str, Any]) -> tuple[list[str], bytes]:
    stdin = json.dumps(message["payload"], ensure_ascii=False).encode("utf-8")
    return ["hook-dispatch", message["event"], "--tool", message["agent"]], stdin
