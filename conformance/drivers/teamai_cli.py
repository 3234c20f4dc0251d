"""The driver for teamai-cli 0.25.0, the published TypeScript CLI (``--impl teamai-cli``).

It is the worked example of plugging a non-Python implementation into the harness: every step
is a real ``node`` process of the published package, in a throwaway HOME laid out the way that
version expects (see :mod:`.teamai_cli_home`). 0.25.0 predates #884 and #1552, so most of the
corpus fails against it; the point is that the report says so truthfully, case by case.

How the protocol maps onto 0.25.0:

- ``start`` installs the package into a cache folder (or takes ``TEAMAI_CLI_ENTRY``) and declares
  only what that version has: ``recall``, ``hook``, ``pull``, ``stats`` and ``contribute``; no
  ``review --branch``, no way to hold its ledger, no recall log.
- ``open`` writes the scenario's workspace team into 0.25's *project scope* (a project folder
  with its own team remote and clone, ``inheritUserScope: true``) and its user team into the user
  scope (``~/.teamai``, an empty team when the scenario has none), then runs ``teamai pull`` in
  the project folder, which pulls both. Learnings roots fold into the one ``learnings/`` folder
  0.25 knows (the first root that has an id wins); the withheld list has no counterpart. The
  answer names each asset where 0.25 prints it after that pull, and 0.25's scope words
  (``labels``: the workspace is ``project``).
- Each step runs ``node <entry> ...`` in the project folder with the step's ``env`` over an
  offline environment, and the step's ``now`` pinned by a Node preload (:mod:`.fixed_clock`).
  Hooks may leave detached children behind; the driver waits a bounded time for them before it
  answers.
- A hook payload's folders (``cwd``, ``workspace_roots``) must exist, for 0.25 as for a real
  agent: 0.25 changes into ``cwd`` and spawns its background work there, and a folder that is not
  there ends the hook before it does anything. A folder inside the sandbox is created; one outside
  it (a payload's recorded ``/home/ana/proj``) stands for the agent's workspace and is replaced by
  the project folder, where 0.25 finds the workspace as a real agent's hook would.
- ``seed`` writes a given votes ledger where 0.25 keeps it; 0.25 has no recall log, per-session
  ledger or checkpoint, so ``seed`` declares ``votes`` only.
- ``observe`` reads the votes ledger (``~/.teamai/votes/<username>.yaml``); the log is always
  empty; asked for stats, it runs ``teamai stats`` and turns what it prints into rows where it
  can (:func:`stats_rows`), else answers null with ``stats_note`` saying why.

A case's set-up must not fail 0.25 outside the feature under test, so the corpus puts its assets
where both implementations read them (the relation tables' skill folder holds the query word, as
0.25 titles a skill by its folder; a teamwiki page lies under ``modules/``, which 0.25 reads).
``conformance/expectations/teamai-cli-0.25.toml`` lists its spec failures only (it declares no
profile), each with its reason, under a comment block that says where it differs on decisions.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import signal
import subprocess
import time
import uuid
from collections.abc import Mapping
from typing import Any

import yaml

from ..running import protocol, sandbox, timeline
from ..server import serve
from . import fixed_clock, teamai_cli_home

USERNAME = "conformance"
LABELS = {"workspace": "project", "user": "user"}  # the words 0.25 prints for the two scopes
AGENTS = ("claude", "codebuddy", "codex", "copilot", "cursor", "omp", "opencode", "qoder", "workbuddy")
COMMANDS = ("recall", "hook", "pull", "stats", "contribute")
STEP_TIMEOUT = 20.0     # a step's own process; hook-dispatch ends by itself within 7 s
CHILDREN_WAIT = 5.0     # detached hook children get this long to finish before the answer
MARK = "CONFORMANCE_DRIVER_MARK"  # tags every process of a case, so its detached children are found
_STATE_PARTS = ("votes", "dashboard", "sessions", "state.json", "debug.log")


class TeamaiCliBackend:
    """Answers protocol messages with teamai-cli 0.25.0; one scenario at a time."""

    def __init__(self) -> None:
        self.entry: str | None = None
        self.preload = ""
        self.root = ""
        self.home = ""
        self.project = ""
        self.env: dict[str, str] = {}
        self.mark = ""
        self.contributions = 0

    def __call__(self, message: dict[str, Any]) -> dict[str, Any]:
        answer = getattr(self, f"do_{message['cmd']}")(message)
        return {"seq": message["seq"], "ok": True, **answer}

    # -- lifecycle -------------------------------------------------------------------------
    def do_start(self, message: dict[str, Any]) -> dict[str, Any]:
        self.entry = teamai_cli_home.install()
        if self.entry is None:
            raise RuntimeError(f"teamai-cli {teamai_cli_home.VERSION} is not available: it needs node and npm "
                               f"(or {teamai_cli_home.ENTRY_VARIABLE} naming its dist/index.js)")
        self.preload = fixed_clock.write(teamai_cli_home.cache_dir())
        return {"protocol": protocol.VERSION,
                "implementation": {"name": "teamai-cli", "version": teamai_cli_home.VERSION},
                "capabilities": {"commands": list(COMMANDS), "agents": list(AGENTS), "log": False, "hold": [],
                                 "seed": ["votes"]}}

    def do_open(self, message: dict[str, Any]) -> dict[str, Any]:
        self.close_all()
        self.root = os.path.realpath(message["sandbox"])
        team, user_team = os.path.join(self.root, "team"), os.path.join(self.root, "user_team")
        sandbox.write_tree(team, team_tree(message))
        os.makedirs(user_team, exist_ok=True)
        sandbox.write_tree(user_team, dict(message.get("user_team") or {}))
        work = os.path.join(self.root, "teamai-cli")
        self.home = teamai_cli_home.make_home(user_team, os.path.join(work, "user"), USERNAME)
        self.project = teamai_cli_home.make_project(team, os.path.join(work, "workspace"), USERNAME)
        self.mark = uuid.uuid4().hex
        self.env = {**teamai_cli_home.offline_env(self.home), MARK: self.mark,
                    "NODE_OPTIONS": fixed_clock.node_options(self.preload)}
        self.contributions = 0
        result = self._exec(["pull"], message)
        if result["exit"] != 0:
            raise RuntimeError(f"teamai pull failed while opening the case (exit {result['exit']}): "
                               f"{(result['stderr'] or result['stdout']).strip()[:300]}")
        clone = os.path.join(self.project, ".teamai", "team-repo")
        synced = os.path.join(self.project, ".teamai", "learnings")
        user_clone = os.path.join(self.home, ".teamai", "team-repo")
        user_synced = os.path.join(self.home, ".teamai", "learnings")
        # 0.25 reads a project's learnings from its learnings branch's worktree first (where its
        # contribute publishes), then from the clone.
        published = os.path.join(self.project, ".teamai", teamai_cli_home.LEARNINGS_WORKTREE, "learnings")
        return {"paths": printed_paths(team_tree(message), clone, synced),
                "user_paths": printed_paths(dict(message.get("user_team") or {}), user_clone, user_synced),
                "roots": {"team": clone, "user_team": user_clone if message.get("user_team") else None,
                          "learnings": [published, os.path.join(clone, "learnings")]},
                "labels": LABELS}

    def do_close(self, message: dict[str, Any]) -> dict[str, Any]:
        self.close_all()
        return {}

    def do_stop(self, message: dict[str, Any]) -> dict[str, Any]:
        self.close_all()
        return {}

    def close_all(self) -> None:
        if self.mark:
            for pid in marked_processes(self.mark):
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
        self.mark = ""
        self.home = ""
        self.project = ""

    # -- steps -----------------------------------------------------------------------------
    def _env(self, message: Mapping[str, Any]) -> dict[str, str]:
        env = {**self.env, fixed_clock.VARIABLE: str(message["now"])}
        env.update({str(k): str(v) for k, v in (message.get("env") or {}).items()})
        return env

    def _exec(self, argv: list[str], message: Mapping[str, Any], stdin: bytes = b"") -> dict[str, Any]:
        if not self.home or self.entry is None:
            raise RuntimeError("no scenario is open")
        code, out, err = run_bounded(["node", self.entry, *argv], self._env(message), stdin, self.project,
                                     STEP_TIMEOUT)
        return {"exit": code, "stdout": out, "stderr": err}

    def do_recall(self, message: dict[str, Any]) -> dict[str, Any]:
        argv = ["recall", message["query"]]
        if message.get("caller"):
            argv += ["--caller", message["caller"]]  # 0.25 has no such option; its answer is the finding
        if message.get("check"):
            argv.append("--check")
        return self._exec(argv, message)

    def do_hook(self, message: dict[str, Any]) -> dict[str, Any]:
        payload = agent_folders(message["payload"], self.root, self.project)
        stdin = json.dumps(payload, ensure_ascii=False).encode("utf-8")
        answer = self._exec(["hook-dispatch", message["event"], "--tool", message["agent"]], message, stdin)
        wait_for(self.mark, CHILDREN_WAIT)
        return answer

    def do_pull(self, message: dict[str, Any]) -> dict[str, Any]:
        return self._exec(["pull"], message)

    def do_stats(self, message: dict[str, Any]) -> dict[str, Any]:
        return self._exec(["stats", "--json"] if message.get("json") else ["stats"], message)

    def do_contribute(self, message: dict[str, Any]) -> dict[str, Any]:
        self.contributions += 1
        path = os.path.join(self.root, f"contribution-{self.contributions}.md")
        with open(path, "w", encoding="utf-8", newline="") as fh:
            fh.write(message["text"])
        return self._exec(["contribute", "--file", path, "--title", message["title"]], message)

    def do_seed(self, message: dict[str, Any]) -> dict[str, Any]:
        """0.25 keeps the same votes ledger file, so a given one is written where it reads it; it
        keeps no recall log, per-session ledger or checkpoint, so the driver declares only ``votes``."""
        if not self.home:
            raise RuntimeError("no scenario is open")
        if message.get("votes") is not None:
            folder = os.path.join(self.home, ".teamai", "votes")
            os.makedirs(folder, exist_ok=True)
            with open(os.path.join(folder, f"{USERNAME}.yaml"), "w", encoding="utf-8", newline="") as fh:
                fh.write(message["votes"])
        return {}

    # -- state -----------------------------------------------------------------------------
    def do_observe(self, message: dict[str, Any]) -> dict[str, Any]:
        if not self.home:
            raise RuntimeError("no scenario is open")
        wait_for(self.mark, CHILDREN_WAIT)
        state = os.path.join(self.home, ".teamai")
        answer: dict[str, Any] = {"votes": {}, "log": [], "stats": None, "raw": {}}
        ledger = os.path.join(state, "votes", f"{USERNAME}.yaml")
        try:
            answer["votes"] = read_votes(ledger)
        except (OSError, ValueError, yaml.YAMLError) as exc:
            answer["raw"]["votes-error"] = f"{type(exc).__name__}: {exc}"
        want = set(message.get("want") or ())
        if "ledger" in want:
            try:
                with open(ledger, encoding="utf-8", errors="replace") as fh:
                    answer["ledger"] = fh.read()
            except FileNotFoundError:
                answer["ledger"] = None
        if "raw" in want:
            answer["raw"].update(state_files(state))
        if "stats" in want:
            shown = self._exec(["stats"], message)
            answer["stats"], note = stats_rows(shown["stdout"]) if shown["exit"] == 0 else \
                (None, f"teamai stats exited {shown['exit']}: {shown['stderr'].strip()[:200]}")
            if note:
                answer["stats_note"] = note
        return answer


# -- helpers -------------------------------------------------------------------------------
def team_tree(message: Mapping[str, Any]) -> dict[str, Any]:
    """The scenario's team tree with its learnings roots folded into ``learnings/``, the one
    learnings folder 0.25 reads; the first root that has an id wins, as the scenarios assume."""
    team = dict(message.get("team") or {})
    roots = message.get("learnings_roots")
    if roots:
        team = {k: v for k, v in team.items() if not str(k).startswith("learnings/")}
        for tree in roots:
            for rel, text in (tree or {}).items():
                team.setdefault(f"learnings/{rel}", text)
    return team


def printed_paths(tree: Mapping[str, Any], clone: str, synced: str) -> dict[str, str]:
    """Tree path -> the path 0.25 prints for it: ``pull`` copies a scope's top-level learnings to
    ``synced`` when it syncs them (the user scope's ``~/.teamai/learnings``); everything else is
    printed where it sits in the scope's team-repo clone."""
    paths: dict[str, str] = {}
    for rel in sorted(tree):
        parts = str(rel).split("/")
        if not rel.endswith(".md") or any(p.startswith(".") for p in parts):
            continue
        on_disk = os.path.join(clone, *parts)
        if parts[0] == "learnings" and len(parts) > 1:
            ident = rel[len("learnings/"):-len(".md")]
            copy = os.path.join(synced, *parts[1:])
            paths[f"learnings/{ident}"] = copy if os.path.exists(copy) else on_disk
        elif parts[0] == "skills" and len(parts) == 3 and parts[2] == "SKILL.md":
            paths[f"skills/{parts[1]}"] = on_disk
        elif parts[0] in ("rules", "docs") or rel.startswith("teamwiki/evidence/code/"):
            paths[rel] = on_disk
    return paths


def agent_folders(payload: Any, sandbox_root: str, workspace: str) -> Any:
    """The payload with its folders (``cwd``, ``workspace_roots``) made real: one inside the
    sandbox is created, one elsewhere, or a link to a folder not made yet (``${link:learnings}``
    names 0.25's publishing folder, which only its contribute makes), is replaced by the workspace
    folder (see the module docstring). Other fields are left as they are."""
    if not isinstance(payload, dict):
        return payload

    def real(folder: Any) -> Any:
        if not isinstance(folder, str) or not folder.strip():
            return folder
        if os.path.isabs(folder) and os.path.isdir(folder):
            return folder
        if os.path.islink(folder):  # a link to nothing yet (0.25 makes its publishing folder itself)
            return workspace
        if os.path.isabs(folder) and os.path.realpath(folder).startswith(sandbox_root + os.sep):
            os.makedirs(folder, exist_ok=True)
            return folder
        return workspace

    out = dict(payload)
    if "cwd" in out:
        out["cwd"] = real(out["cwd"])
    if isinstance(out.get("workspace_roots"), list):
        out["workspace_roots"] = [real(x) for x in out["workspace_roots"]]
    return out


_STATS_TOTAL = re.compile(r"^\s*(Sessions|Conversation turns):\s*(\d+)\s*$", re.MULTILINE)


def stats_rows(stdout: str) -> tuple[list[dict[str, Any]] | None, str]:
    """(rows, note) from what 0.25's ``stats`` printed. It keeps no session of recalls: with no use
    at all it says so (no session, so no row: ``[]``); otherwise it prints totals (sessions,
    conversation turns) and skill uses, which cannot be turned into a row per session (``None``,
    and the note says what it printed instead)."""
    if "No usage data yet" in stdout:
        return [], ""
    totals = ", ".join(f"{name} {count}" for name, count in _STATS_TOTAL.findall(stdout))
    shown = f"totals ({totals})" if totals else "no session totals"
    skills = " and skill uses" if "Skill Usage Statistics" in stdout else ""
    return None, f"teamai-cli 0.25 stats prints {shown}{skills}, no row per session with its recalls"


def read_votes(path: str) -> dict[str, dict[str, Any]]:
    """The ledger's ``votes`` map with the harness's counter names; its unquoted instants (which
    YAML reads as datetimes) are spelled back in UTC with milliseconds."""
    try:
        with open(path, encoding="utf-8") as fh:
            data = yaml.safe_load(fh)
    except FileNotFoundError:
        return {}
    votes = (data or {}).get("votes") if isinstance(data, dict) else None
    if not isinstance(votes, dict):
        return {}
    out: dict[str, dict[str, Any]] = {}
    for key, entry in votes.items():
        entry = entry if isinstance(entry, dict) else {}
        out[str(key)] = {"recalled_count": int(entry.get("recalled_count") or 0),
                         "upvoted_count": int(entry.get("upvoted_count") or 0),
                         "last_recalled_at": _stamp(entry.get("last_recalled_at")),
                         "last_upvoted_at": _stamp(entry.get("last_upvoted_at"))}
    return out


def _stamp(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, dt.datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=dt.UTC)
        value = value.astimezone(dt.UTC)
        return timeline.spell(value)
    return str(value)


def state_files(state: str) -> dict[str, str]:
    """The text of everything 0.25 writes about its use (not the team's own files or caches)."""
    found: dict[str, str] = {}
    for part in _STATE_PARTS:
        top = os.path.join(state, part)
        files = [top] if os.path.isfile(top) else [os.path.join(d, f) for d, _, fs in os.walk(top) for f in fs]
        for path in sorted(files):
            try:
                with open(path, encoding="utf-8", errors="replace") as fh:
                    found[os.path.relpath(path, state).replace(os.sep, "/")] = fh.read()
            except OSError:
                continue
    return found


def run_bounded(argv: list[str], env: dict[str, str], stdin: bytes, cwd: str,
                timeout: float) -> tuple[int, str, str]:
    """Run ``argv`` in its own process group; past ``timeout`` the group is killed and the step
    answers exit 124 with the reason on stderr."""
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=env, cwd=cwd, start_new_session=True)
    try:
        out, err = proc.communicate(stdin, timeout=timeout)
        code = proc.returncode
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            proc.kill()
        out, err = proc.communicate()
        code = 124
        err += f"\n(killed by the driver after {timeout:g}s)\n".encode()
    return code, out.decode("utf-8", "replace"), err.decode("utf-8", "replace")


def marked_processes(mark: str) -> list[int]:
    """Processes whose environment carries this case's mark (Linux; elsewhere none are found)."""
    needle = f"{MARK}={mark}\0".encode()
    pids: list[int] = []
    try:
        names = os.listdir("/proc")
    except OSError:
        return pids
    for name in names:
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as fh:
                if needle in fh.read():
                    pids.append(int(name))
        except OSError:
            continue
    return pids


def wait_for(mark: str, limit: float) -> None:
    """Wait until no process of the case is left, at most ``limit`` seconds."""
    deadline = time.monotonic() + limit
    while mark and marked_processes(mark) and time.monotonic() < deadline:
        time.sleep(0.05)


def main() -> int:
    return serve(TeamaiCliBackend())


if __name__ == "__main__":
    raise SystemExit(main())
