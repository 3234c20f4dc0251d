"""The scenario's git repository: what ``review --branch`` reads must be what the scenario says."""

from __future__ import annotations

import os
import subprocess

from conformance.running import sandbox


def _git(repo, *args):
    env = {**os.environ, **sandbox._GIT_ENV}
    return subprocess.run(["git", *args], cwd=repo, env=env, capture_output=True, check=True).stdout


def test_branches_are_commits_on_main_and_the_work_tree_is_main(tmp_path):
    repo = str(tmp_path / "repo")
    team = {"rules/a.md": "alpha\n", 'docs/odd "name" é.md': "odd\n", "docs/gone.md": "old\n", "skip.md": None}
    branches = {"add-doc": {"docs/new.md": "new\n", "docs/gone.md": None, "rules/a.md": "changed\n"},
                "empty": {}}
    sandbox.make_repo(repo, team, branches)

    assert _git(repo, "show", "main:rules/a.md") == b"alpha\n"
    assert _git(repo, "show", 'main:docs/odd "name" é.md') == b"odd\n"
    assert _git(repo, "show", "add-doc:rules/a.md") == b"changed\n"
    assert _git(repo, "show", "add-doc:docs/new.md") == b"new\n"
    on_branch = _git(repo, "ls-tree", "-r", "--name-only", "-z", "add-doc").split(b"\0")
    assert b"docs/gone.md" not in on_branch and b"skip.md" not in on_branch
    assert _git(repo, "rev-parse", "add-doc~1") == _git(repo, "rev-parse", "main")
    assert _git(repo, "rev-parse", "empty^{tree}") == _git(repo, "rev-parse", "main^{tree}")
    assert _git(repo, "log", "-1", "--format=%s|%an|%cI", "add-doc") == b"add-doc|conformance|2026-11-30T10:00:00+00:00\n"
    # Checked out on main, nothing staged or changed: the branch's files are only in its commit.
    assert _git(repo, "symbolic-ref", "HEAD") == b"refs/heads/main\n"
    assert _git(repo, "status", "--porcelain") == b""
    assert not os.path.exists(os.path.join(repo, "docs", "new.md"))
