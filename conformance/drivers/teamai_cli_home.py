"""A working teamai-cli 0.25.0 in a throwaway HOME, shared by its conformance driver and the
benchmarks so both set it up the same way.

``teamai init`` refuses a local remote, so the set-up is written by hand, as observed: a bare
team repository whose first commit holds ``teamai.yaml`` (without it recall finds nothing), a
clone of it as ``~/.teamai/team-repo``, a ``config.yaml`` in user scope that never updates
itself, then ``teamai pull``. :func:`make_project` adds a workspace in project scope that
inherits that user scope (the conformance driver's layout; the benchmarks use the user scope
alone). Every process runs offline: npm points at a closed port and the
remote commands are switched off, so the Stop hook's update check cannot reach the network.

What 0.25 indexes, and how the set-up makes it index what the reference indexes:

- ``rules/**`` and ``docs/**`` are read recursively, keyed and (without a frontmatter ``title``)
  titled by their path under the folder; ``skills/<dir>/SKILL.md`` by the folder name.
- Learnings: only the files directly under ``learnings/``, plus every file below the folders a
  *projects manifest* activates (``manifest/projects.yaml`` in the team repository, its projects'
  ``resources.learnings``; ``projects:`` in ``config.yaml`` names the active ones). The set-up
  writes one project, ``TEAM_PROJECT``, listing every folder under ``learnings/``, and activates
  it. When the tree has exactly one such folder a second, absent one is listed too: with one
  namespace 0.25's ``contribute`` would publish into it, and the reference publishes at the top.
- teamwiki pages are not in 0.25's search index: each recall reads
  ``teamwiki/evidence/code/<slug>/`` again and keeps, at its default depth, ``overview.md``,
  ``modules/**.md`` and ``docs/**.md`` files (never ``index.md``, ``router.md``, ``hot.md`` at the
  top of a codebase); :func:`indexed_assets` counts pages by that rule.

:func:`indexed_assets` answers which assets 0.25 indexed, by tree path, so a caller can compare
them with the reference's and treat a difference as an error.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess

VERSION = "0.25.0"
ENTRY_VARIABLE = "TEAMAI_CLI_ENTRY"  # a teamai-cli entry script to use instead of installing one
TEAM_PROJECT = "team-tree"  # the one project of the manifest the set-up writes
LEARNINGS_WORKTREE = "learnings-wt"  # beside a scope's clone: 0.25's worktree of its learnings branch
_ABSENT_NAMESPACE = "no-such-learnings-folder"
_IGNORED = frozenset({"__pycache__", ".DS_Store", "node_modules", ".git"})  # names 0.25's walks skip
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


def learnings_namespaces(team: str) -> list[str]:
    """The folders directly under ``learnings/`` (0.25 calls them namespaces), sorted."""
    top = os.path.join(team, "learnings")
    try:
        names = [e.name for e in os.scandir(top) if e.is_dir() and e.name not in _IGNORED]
    except OSError:
        return []
    return sorted(names)


def projects_manifest(namespaces: list[str]) -> str:
    """``manifest/projects.yaml`` with one project whose learnings are ``namespaces``."""
    listed = list(namespaces) + ([_ABSENT_NAMESPACE] if len(namespaces) == 1 else [])
    lines = ["version: 1", "projects:", f"  - id: {TEAM_PROJECT}",
             "    description: every learnings folder of the team tree", "    resources:",
             "      learnings:"]
    lines += [f"        - {json.dumps(ns, ensure_ascii=False)}" for ns in listed]
    return "\n".join(lines) + "\n"


def _remote(team: str, workdir: str, username: str) -> tuple[str, list[str]]:
    """A bare team repository under ``workdir`` whose first commit is ``team`` plus ``teamai.yaml``
    (and the projects manifest when it has namespace folders); (its path, the namespaces)."""
    bare = os.path.join(workdir, "team.git")
    seed = os.path.join(workdir, "seed")
    os.makedirs(workdir, exist_ok=True)
    _git(["init", "-q", "--bare", "-b", "main", bare])
    shutil.copytree(team, seed, ignore=shutil.ignore_patterns(".git"))
    with open(os.path.join(seed, "teamai.yaml"), "w", encoding="utf-8") as fh:
        fh.write(f"team: {username}\nrepo: {bare}\nprovider: github\n")
    namespaces = learnings_namespaces(seed)
    if namespaces:
        os.makedirs(os.path.join(seed, "manifest"), exist_ok=True)
        with open(os.path.join(seed, "manifest", "projects.yaml"), "w", encoding="utf-8") as fh:
            fh.write(projects_manifest(namespaces))
    _git(["init", "-q", "-b", "main"], seed)
    _git(["add", "-A"], seed)
    _git(["commit", "-qm", "seed", "--allow-empty"], seed)
    _git(["push", "-q", bare, "main"], seed)
    return bare, namespaces


def _config(repo: str, bare: str, username: str, namespaces: list[str], scope: str) -> str:
    return (f"repo:\n  localPath: {repo}\n  remote: {bare}\nusername: {username}\nscope: {scope}\n"
            "updatePolicy: skip\n" + ("inheritUserScope: true\n" if scope == "project" else "")
            + (f"projects:\n  - {TEAM_PROJECT}\n" if namespaces else ""))


def make_home(team: str, workdir: str, username: str = "bench") -> str:
    """Lay out the team remote, its clone and ``config.yaml`` under ``workdir``; returns HOME.

    ``team`` is a folder holding the team tree; it is copied, never changed. Learnings in folders
    under ``learnings/`` are switched on through a projects manifest (see the module docstring).
    """
    home = os.path.join(workdir, "home")
    os.makedirs(home, exist_ok=True)
    bare, namespaces = _remote(team, workdir, username)
    repo = os.path.join(home, ".teamai", "team-repo")
    _git(["clone", "-q", "-b", "main", bare, repo])
    with open(os.path.join(home, ".teamai", "config.yaml"), "w", encoding="utf-8") as fh:
        fh.write(_config(repo, bare, username, namespaces, "user"))
    return home


def make_project(team: str, workdir: str, username: str = "bench") -> str:
    """A workspace in 0.25's *project scope* that inherits the user scope; returns its folder.

    0.25 finds a project by the folder it runs in: ``<folder>/.teamai/config.yaml`` with ``scope:
    project`` (outside any git repository, so no partition is looked for). With
    ``inheritUserScope: true`` its recall searches the project's team first and the user scope's
    after it, prints ``[project]`` and ``[user]``, hides a user entry that a project entry of the
    same type and file name shadows, and counts only the project's hits. That is the reference's
    workspace over an inherited user scope, so the workspace team goes here and the user team into
    :func:`make_home`. Run 0.25 with this folder as its working directory.
    """
    project = os.path.join(workdir, "project")
    os.makedirs(os.path.join(project, ".teamai"), exist_ok=True)
    bare, namespaces = _remote(team, workdir, username)
    repo = os.path.join(project, ".teamai", "team-repo")
    _git(["clone", "-q", "-b", "main", bare, repo])
    with open(os.path.join(project, ".teamai", "config.yaml"), "w", encoding="utf-8") as fh:
        fh.write(_config(repo, bare, username, namespaces, "project"))
    return project


def set_up(entry: str, team: str, workdir: str) -> dict[str, str]:
    """A throwaway HOME in which teamai-cli recalls over ``team``; returns its environment."""
    env = offline_env(make_home(team, workdir))
    subprocess.run(["node", entry, "pull"], env=env, capture_output=True, timeout=1800)
    return env


def _walk_md(top: str) -> list[str]:
    """``.md`` files under ``top`` as relative posix paths, skipping what 0.25's walks skip."""
    found: list[str] = []
    for folder, dirs, files in os.walk(top):
        dirs[:] = [d for d in dirs if d not in _IGNORED]
        rel = os.path.relpath(folder, top)
        for name in files:
            if name.endswith(".md") and name not in _IGNORED:
                found.append(name if rel == "." else f"{rel.replace(os.sep, '/')}/{name}")
    return sorted(found)


_WIKI_KEPT = (re.compile(r"overview\.md$"), re.compile(r"modules/.+\.md$"), re.compile(r"docs/.+\.md$"))
_WIKI_NAVIGATION = frozenset({"router.md", "index.md", "hot.md"})
_WIKI_MAX_DEPTH = 10


def wiki_pages(clone: str) -> list[str]:
    """Tree paths of the teamwiki pages a 0.25 recall reads at its default depth (``context``)."""
    code = os.path.join(clone, "teamwiki", "evidence", "code")
    try:
        slugs = sorted(e.name for e in os.scandir(code) if e.is_dir())
    except OSError:
        return []
    pages = []
    for slug in slugs:
        for rel in _walk_md(os.path.join(code, slug)):
            page = f"evidence/code/{slug}/{rel}"
            parts = page.split("/")
            if len(parts) - 3 > _WIKI_MAX_DEPTH or not any(p.search(page) for p in _WIKI_KEPT):
                continue
            if len(parts) - 3 <= 1 and parts[-1] in _WIKI_NAVIGATION:
                continue
            pages.append(f"teamwiki/{page}")
    return pages


# 0.25's type names -> the reference's kinds
KINDS = {"rules": "rule", "docs": "doc", "learnings": "learning", "skills": "skill"}


def tree_path(home: str, printed: str) -> str | None:
    """The tree path (``rules/…md``, ``docs/…md``, ``learnings/<id>``, ``skills/<dir>``,
    ``teamwiki/…md``) of a file 0.25 printed, or ``None`` for one outside the team's folders."""
    state = os.path.join(home, ".teamai")
    synced, clone = os.path.join(state, "learnings") + os.sep, os.path.join(state, "team-repo") + os.sep
    if printed.startswith(synced):
        rel = "learnings/" + printed[len(synced):].replace(os.sep, "/")
    elif printed.startswith(clone):
        rel = printed[len(clone):].replace(os.sep, "/")
    else:
        return None
    if rel.startswith("learnings/") and rel.endswith(".md"):
        return rel[:-3]
    if rel.startswith("skills/") and rel.endswith("/SKILL.md"):
        return rel[: -len("/SKILL.md")]
    if rel.startswith(("rules/", "docs/", "teamwiki/")):
        return rel
    return None


def indexed_assets(home: str) -> dict[str, set[str]]:
    """What 0.25 indexed in this HOME, by kind (the reference's names) and tree path: the entries
    of its search index (``~/.teamai/search-index.json``, written by ``pull``) and the teamwiki
    pages its recall reads. A path 0.25 indexed outside the team's folders is kept as printed."""
    found: dict[str, set[str]] = {kind: set() for kind in (*KINDS.values(), "wiki")}
    with open(os.path.join(home, ".teamai", "search-index.json"), encoding="utf-8") as fh:
        index = json.load(fh)
    for entry in index.get("entries") or ():
        kind = KINDS.get(str(entry.get("type")), str(entry.get("type")))
        path = str(entry.get("path") or "")
        found.setdefault(kind, set()).add(tree_path(home, path) or path)
    found["wiki"].update(wiki_pages(os.path.join(home, ".teamai", "team-repo")))
    return found
