"""Where a team's knowledge and the reference's state live, read from the environment once.

A *scope* is one team tree with its learnings roots and its own state folder. The user scope
comes from ``TEAMAI_USER_TEAM``; the workspace (project) scope from ``TEAMAI_TEAM`` (or
``--team``). When a workspace is given it is the active scope, and the user scope is only
inherited. This module reads only ``os``-level facts so the hook path can use it cheaply.

:func:`load` is the one reader of ``TEAMAI_HOME``, ``TEAMAI_TEAM``, ``TEAMAI_USER_TEAM``,
``TEAMAI_LEARNINGS``, ``TEAMAI_USER_LEARNINGS`` and ``TEAMAI_WITHHELD_FILE``. State lives under
``TEAMAI_HOME`` (default ``~/.teamai-ref``): ``user/`` for the user scope and
``workspaces/<sha256 of the team path>/`` for each workspace. Nothing is written into a team tree,
with one deliberate exception: ``contribute`` publishes a learning into the first learnings root
of the active scope (by default ``<team>/learnings``), as teamai's contribute does.

Every folder here is made real (``realpath.py``), with one exception: a team folder spelt as a
Windows path (a drive or a share) on a POSIX host is kept as spelt (:func:`_foreign`), with
``<team>\\learnings`` as its learnings root, and ``pathmatch.resolve`` makes no path real beside
such roots. That is what lets the corpus judge Windows attribution on Linux (``windows_team``,
PROTOCOL.md). ``pull`` and ``stats``, which never read the tree, accept such a folder; ``recall``
says it cannot read it (:func:`team_problem`, which words what is wrong with a team folder for
every command; ``tests/test_config.py``).
"""

from __future__ import annotations

import os

from ..realpath import realpath

TYPE_CHECKING = False  # collections.abc costs a fresh process (a hook) ~2 ms
if TYPE_CHECKING:
    from collections.abc import Mapping

WORKSPACE = "workspace"
USER = "user"
# The end of every warning about a state folder that cannot be written (read-only, not a folder,
# full): a recall says it once, however many of its files meet it (``cli.OneWarningPerCause``).
WRITABLE_HINT = "set TEAMAI_HOME to a writable folder"


class ConfigError(ValueError):
    """No team folder was given, or the one given cannot be used."""


class Scope:
    """One team tree, its learnings roots and its state folder. (A plain class: ``dataclasses``
    would cost the hook path the import of ``inspect``.)"""

    __slots__ = ("name", "team", "learnings_roots", "state_dir")

    def __init__(self, name: str, team: str, learnings_roots: tuple[str, ...], state_dir: str) -> None:
        self.name = name  # "workspace" or "user"
        self.team = team  # absolute, real path of the team tree
        self.learnings_roots = learnings_roots
        self.state_dir = state_dir

    def __repr__(self) -> str:
        return f"Scope({self.name!r}, {self.team!r})"

    @property
    def log_path(self) -> str:
        return os.path.join(self.state_dir, "recall-log.jsonl")

    @property
    def log_lock(self) -> str:
        return os.path.join(self.state_dir, "recall-log.lock")

    @property
    def checkpoint_path(self) -> str:
        return os.path.join(self.state_dir, "recall-log.checkpoint")

    @property
    def ledger_path(self) -> str:
        return os.path.join(self.state_dir, "votes.yaml")

    @property
    def ledger_lock(self) -> str:
        return os.path.join(self.state_dir, "votes.lock")

    @property
    def upvoted_path(self) -> str:
        return os.path.join(self.state_dir, "upvoted-sessions.json")

    @property
    def index_path(self) -> str:
        return os.path.join(self.state_dir, "index.db")

    @property
    def debug_log_path(self) -> str:
        return os.path.join(self.state_dir, "hook-debug.log")

    def knowledge_roots(self) -> tuple[str, ...]:
        return (self.team, *self.learnings_roots)


class Config:
    """The scopes of one invocation, with the environment they were read from."""

    __slots__ = ("home", "active", "user", "withheld_file", "env")

    def __init__(self, home: str, active: Scope, user: Scope | None, withheld_file: str | None = None,
                 env: Mapping[str, str] | None = None) -> None:
        self.home = home
        self.active = active
        self.user = user
        self.withheld_file = withheld_file
        self.env: Mapping[str, str] = env if env is not None else {}

    @property
    def scopes(self) -> tuple[Scope, ...]:
        """Every scope, active first."""
        if self.user is None or self.user is self.active:
            return (self.active,)
        return (self.active, self.user)

    def knowledge_roots(self) -> tuple[str, ...]:
        roots: list[str] = []
        for scope in self.scopes:
            roots.extend(scope.knowledge_roots())
        return tuple(roots)


def recording_disabled(env: Mapping[str, str]) -> bool:
    """``TEAMAI_RECALL_DISABLED`` turns off both recall's and the hooks' recording."""
    return env.get("TEAMAI_RECALL_DISABLED", "").strip().lower() in ("1", "true", "yes", "on")


def _foreign(path: str) -> bool:
    """A Windows folder named on a POSIX host. Which path rules apply (Git Bash's ``/c/`` as a
    drive, the shell of a Windows host) is decided by how the roots are spelt, never by the host
    (``pathmatch``); such a folder is kept as spelt, not joined to this host's working folder, so
    a team on Windows is attributed alike wherever the rules run (the corpus runs them on Linux)."""
    if os.sep != "/" or path.lstrip()[:1] in ("/", "~", ""):
        return False  # the usual POSIX folder, told without importing pathmatch (a hook pays for it)
    from ..pathmatch import windows_roots

    return windows_roots((path,))


def _real(path: str) -> str:
    if _foreign(path):
        return path.strip()
    return realpath(os.path.abspath(os.path.expanduser(path)))


def _roots(raw: str | None, team: str) -> tuple[str, ...]:
    if raw:
        return tuple(_real(p) for p in raw.split(os.pathsep) if p)
    if _foreign(team):
        return (team.rstrip("\\/") + "\\learnings",)
    return (os.path.join(team, "learnings"),)


def _digest(path: str) -> str:
    try:  # the built-in module, without loading OpenSSL through hashlib (a hook pays for that)
        from _sha256 import sha256  # type: ignore[import-not-found]
    except ImportError:  # pragma: no cover - other Python builds
        from hashlib import sha256
    return str(sha256(path.encode("utf-8", "surrogateescape")).hexdigest()[:16])


def team_problem(path: str, reads_tree: bool = True) -> str | None:
    """What makes ``path`` unusable as a team folder, in one line; None when it can be used.
    A command that never reads the tree (pull, stats) can use a Windows folder on any host."""
    if _foreign(path):
        return f"team folder {path} is a Windows path, which this host cannot read" if reads_tree else None
    if os.path.isdir(path):
        if not os.access(path, os.R_OK | os.X_OK):
            return f"team folder {path} cannot be read; check its permissions"
        if reads_tree and not path.isascii():
            from .tree import shown, utf8

            if not utf8(path):
                return (f"team folder {shown(path)} has a path that is not UTF-8, so its files' paths could not be"
                        " stored or printed; rename it")
        return None
    if os.path.exists(path):
        what = "is a file, not a folder" if os.path.isfile(path) else "is not a folder"
        return f"team folder {path} {what}: give --team (or TEAMAI_TEAM) the team tree's folder"
    return f"the team folder {path} does not exist: check the path given to --team (or TEAMAI_TEAM)"


def home_dir(env: Mapping[str, str]) -> str:
    raw = env.get("TEAMAI_HOME") or os.path.join(os.path.expanduser("~"), ".teamai-ref")
    return _real(raw)


def load(env: Mapping[str, str], team: str | None = None, user_team: str | None = None) -> Config:
    """Resolve the scopes; ``team``/``user_team`` (command-line flags) beat the environment."""
    home = home_dir(env)
    user_raw = user_team or env.get("TEAMAI_USER_TEAM")
    team_raw = team or env.get("TEAMAI_TEAM")
    user_scope = None
    if user_raw:
        user_path = _real(user_raw)
        user_scope = Scope(USER, user_path, _roots(env.get("TEAMAI_USER_LEARNINGS"), user_path),
                           os.path.join(home, "user"))
    if team_raw:
        team_path = _real(team_raw)
        active = Scope(WORKSPACE, team_path, _roots(env.get("TEAMAI_LEARNINGS"), team_path),
                       os.path.join(home, "workspaces", _digest(team_path)))
    elif user_scope is not None:
        active = user_scope
    else:
        raise ConfigError("no team folder: pass --team DIR or set TEAMAI_TEAM (or TEAMAI_USER_TEAM)")
    return Config(home=home, active=active, user=user_scope,
                  withheld_file=env.get("TEAMAI_WITHHELD_FILE") or None, env=env)
