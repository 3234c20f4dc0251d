"""teamai-cli 0.25.0 as a peer in the benchmarks: installed from npm into a cache folder and set
up headless on the same team tree, following the observed set-up (a bare team repo holding
``teamai.yaml``, a clone as ``~/.teamai/team-repo``, a hand-written ``config.yaml``, ``pull``)."""

from __future__ import annotations

import os
import shutil
import subprocess

VERSION = "0.25.0"


def cache_dir() -> str:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "teamai-conformance", f"teamai-cli-{VERSION}")


def install() -> str | None:
    """Path of teamai-cli's entry script, installing it on first use; ``None`` without node/npm."""
    if not (shutil.which("node") and shutil.which("npm")):
        return None
    folder = cache_dir()
    entry = os.path.join(folder, "node_modules", "teamai-cli", "dist", "index.js")
    if not os.path.exists(entry):
        os.makedirs(folder, exist_ok=True)
        proc = subprocess.run(["npm", "install", "--silent", "--no-audit", "--no-fund", f"teamai-cli@{VERSION}"],
                              cwd=folder, capture_output=True, timeout=600)
        if proc.returncode != 0 or not os.path.exists(entry):
            return None
    return entry


def offline_env(home: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("CLAUDE", "CODEX", "CURSOR", "COPILOT", "CODEBUDDY", "PI_", "TEAMAI_"))}
    env.update({"HOME": home, "TEAMAI_DISABLE_REMOTE_CMD": "1", "GIT_TERMINAL_PROMPT": "0",
                "npm_config_offline": "true", "NO_UPDATE_NOTIFIER": "1", "npm_config_update_notifier": "false",
                "npm_config_registry": "http://127.0.0.1:9/"})
    return env


def _git(args: list[str], cwd: str) -> None:
    subprocess.run(["git", "-c", "user.email=bench@example.invalid", "-c", "user.name=bench", *args],
                   cwd=cwd, check=True, capture_output=True)


def set_up(entry: str, team: str, workdir: str) -> dict[str, str]:
    """A throwaway HOME in which teamai-cli recalls over ``team``; returns its environment."""
    home = os.path.join(workdir, "home")
    bare = os.path.join(workdir, "team.git")
    seed = os.path.join(workdir, "seed")
    os.makedirs(home, exist_ok=True)
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", bare], check=True)
    shutil.copytree(team, seed, ignore=shutil.ignore_patterns(".git"))
    with open(os.path.join(seed, "teamai.yaml"), "w") as fh:
        fh.write(f"team: bench\nrepo: {bare}\nprovider: github\n")
    _git(["init", "-q", "-b", "main"], seed)
    _git(["add", "-A"], seed)
    _git(["commit", "-qm", "seed"], seed)
    _git(["push", "-q", bare, "main"], seed)
    repo = os.path.join(home, ".teamai", "team-repo")
    subprocess.run(["git", "clone", "-q", "-b", "main", bare, repo], check=True)
    with open(os.path.join(home, ".teamai", "config.yaml"), "w") as fh:
        fh.write(f"repo:\n  localPath: {repo}\n  remote: {bare}\nusername: bench\nscope: user\nupdatePolicy: skip\n")
    env = offline_env(home)
    subprocess.run(["node", entry, "pull"], env=env, capture_output=True, timeout=1800)
    return env
