"""A working teamai-cli 0.25.0 in a throwaway HOME, shared by its conformance driver and the
benchmarks so both set it up the same way.

``teamai init`` refuses a local remote, so the set-up is written by hand, as observed: a bare
team repository whose first commit holds ``teamai.yaml`` (without it recall finds nothing), a
clone of it as ``~/.teamai/team-repo``, a ``config.yaml`` in user scope that never updates
itself, then ``teamai pull``. Every process runs offline: npm points at a closed port and the
remote commands are switched off, so the Stop hook's update check cannot reach the network.
"""

from __future__ import annotations

import os
import shutil
import subprocess

VERSION = "0.25.0"
ENTRY_VARIABLE = "TEAMAI_CLI_ENTRY"  # a teamai-cli entry script to use instead of installing one
INSTALL_TIMEOUT = 600.0
STEP_TIMEOUT = 120.0
# Variables through which a calling agent's session would leak into teamai's attribution.
CALLER_PREFIXES = ("CLAUDE", "CODEX", "CURSOR", "COPILOT", "CODEBUDDY", "WORKBUDDY", "QODER", "OPENCODE",
                   "OMP_", "PI_", "TEAMAI_")
_IDENTITY = {"GIT_AUTHOR_NAME": "conformance", "GIT_AUTHOR_EMAIL": "conformance@example.invalid",
             "GIT_COMMITTER_NAME": "conformance", "GIT_COMMITTER_EMAIL": "conformance@example.invalid",
             "GIT_CONFIG_NOSYSTEM": "1", "GIT_TERMINAL_PROMPT": "0"}


def cache_dir() -> str:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "teamai-conformance", f"teamai-cli-{VERSION}")


def install() -> str | None:
    """Path of teamai-cli's entry script, installing it on first use; ``None`` when node or npm is
    missing or the package cannot be installed. ``TEAMAI_CLI_ENTRY`` names one to use instead."""
    given = os.environ.get(ENTRY_VARIABLE)
    if given:
        return given if os.path.isfile(given) and shutil.which("node") else None
    if not (shutil.which("node") and shutil.which("npm")):
        return None
    folder = cache_dir()
    entry = os.path.join(folder, "node_modules", "teamai-cli", "dist", "index.js")
    if not os.path.exists(entry):
        os.makedirs(folder, exist_ok=True)
        try:
            proc = subprocess.run(["npm", "install", "--silent", "--no-audit", "--no-fund",
                                   f"teamai-cli@{VERSION}"], cwd=folder, capture_output=True,
                                  timeout=INSTALL_TIMEOUT)
        except (OSError, subprocess.TimeoutExpired):
            return None
        if proc.returncode != 0 or not os.path.exists(entry):
            return None
    return entry


def offline_env(home: str) -> dict[str, str]:
    """The caller's environment without its agent session, with HOME moved and the network shut."""
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith(CALLER_PREFIXES)}
    env.update(_IDENTITY)
    env.update({"HOME": home, "TEAMAI_DISABLE_REMOTE_CMD": "1", "npm_config_offline": "true",
                "NO_UPDATE_NOTIFIER": "1", "npm_config_update_notifier": "false",
                "npm_config_registry": "http://127.0.0.1:9/"})
    return env


def _git(args: list[str], cwd: str | None = None) -> None:
    env = {**os.environ, **_IDENTITY, "GIT_CONFIG_GLOBAL": os.devnull}
    subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, timeout=STEP_TIMEOUT)


def make_home(team: str, workdir: str, username: str = "bench") -> str:
    """Lay out the team remote, its clone and ``config.yaml`` under ``workdir``; returns HOME.

    ``team`` is a folder holding the team tree; it is copied, never changed.
    """
    home = os.path.join(workdir, "home")
    bare = os.path.join(workdir, "team.git")
    seed = os.path.join(workdir, "seed")
    os.makedirs(home, exist_ok=True)
    _git(["init", "-q", "--bare", "-b", "main", bare])
    shutil.copytree(team, seed, ignore=shutil.ignore_patterns(".git"))
    with open(os.path.join(seed, "teamai.yaml"), "w", encoding="utf-8") as fh:
        fh.write(f"team: {username}\nrepo: {bare}\nprovider: github\n")
    _git(["init", "-q", "-b", "main"], seed)
    _git(["add", "-A"], seed)
    _git(["commit", "-qm", "seed"], seed)
    _git(["push", "-q", bare, "main"], seed)
    repo = os.path.join(home, ".teamai", "team-repo")
    _git(["clone", "-q", "-b", "main", bare, repo])
    with open(os.path.join(home, ".teamai", "config.yaml"), "w", encoding="utf-8") as fh:
        fh.write(f"repo:\n  localPath: {repo}\n  remote: {bare}\nusername: {username}\n"
                 "scope: user\nupdatePolicy: skip\n")
    return home


def set_up(entry: str, team: str, workdir: str) -> dict[str, str]:
    """A throwaway HOME in which teamai-cli recalls over ``team``; returns its environment."""
    env = offline_env(make_home(team, workdir))
    subprocess.run(["node", entry, "pull"], env=env, capture_output=True, timeout=1800)
    return env
