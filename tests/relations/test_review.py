"""``review --branch`` against a real git repository: main plus a branch that changes the rule."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

GIT_ENV = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull, "GIT_AUTHOR_NAME": "t",
           "GIT_AUTHOR_EMAIL": "t@example.invalid", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.invalid"}

BAD_RULE = """---
related:
  GOVERNS: teamwiki/evidence/code/pay/modules/ledger-receipts.md
  IMPLEMENTS: docs/payments-overview.md
  REFERENCES: docs/payment-overview.md
---
Every payment goes through ledger receipts; no direct writes to ledger.
"""
USE = "Use MAPS_TO, REFERENCES, SUPERSEDES or CONFLICTS_WITH."


def git(repo: Path, *args: str) -> str:
    proc = subprocess.run(["git", *args], cwd=repo, env={**os.environ, **GIT_ENV}, check=True,
                          capture_output=True, text=True)
    return proc.stdout


def branch(repo: Path, name: str, files: dict[str, str | None]) -> None:
    git(repo, "checkout", "-q", "-b", name, "main")
    for rel, text in files.items():
        path = repo / rel
        if text is None:
            path.unlink()
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", name)
    git(repo, "checkout", "-q", "main")


@pytest.fixture
def repo(team: Path) -> Path:
    git(team, "init", "-q", "-b", "main")
    git(team, "add", "-A")
    git(team, "commit", "-q", "-m", "team")
    return team


def finding_lines(out: str) -> list[str]:
    return [line for line in out.splitlines() if line.startswith("  ")]


def test_spec_example_branch(cli, repo) -> None:  # type: ignore[no-untyped-def]
    branch(repo, "fix/payments", {"rules/payments.md": BAD_RULE})
    before = git(repo, "status", "--porcelain"), git(repo, "rev-parse", "HEAD")
    res = cli("review", "--branch", "fix/payments", "--repo", str(repo))
    assert res.code == 1, res.err
    assert finding_lines(res.out) == [
        f'  ✖ [relations] rules/payments.md: "GOVERNS" is not a relation. {USE}',
        f"  ✖ [relations] rules/payments.md: IMPLEMENTS relates code to code and cannot be declared on a rule. {USE}",
        "  ! [relations] rules/payments.md: REFERENCES docs/payment-overview.md names no team asset on this branch.",
    ]
    assert (git(repo, "status", "--porcelain"), git(repo, "rev-parse", "HEAD")) == before
    assert (repo / "rules" / "payments.md").read_text().startswith("---\nrelated:\n  MAPS_TO:")


def test_main_is_clean_and_team_defaults_to_the_repo(cli, repo) -> None:  # type: ignore[no-untyped-def]
    res = cli("review", "--branch", "main")
    assert res.code == 0, res.err
    assert finding_lines(res.out) == []


def test_targets_exist_on_the_branch_not_in_the_work_tree(cli, repo) -> None:  # type: ignore[no-untyped-def]
    rule = "---\nrelated:\n  REFERENCES: [docs/new.md, skills/release, learnings/anything/at-all]\n---\nx\n"
    branch(repo, "add-doc", {"docs/new.md": "# new\n", "rules/r.md": rule})
    branch(repo, "drop-skill", {"skills/release/SKILL.md": None, "rules/r.md": rule})
    assert cli("review", "--branch", "add-doc", "--repo", str(repo)).code == 0
    res = cli("review", "--branch", "drop-skill", "--repo", str(repo))
    assert res.code == 0  # warnings only
    assert finding_lines(res.out) == [
        "  ! [relations] rules/payments.md: REFERENCES skills/release names no team asset on this branch.",
        "  ! [relations] rules/r.md: REFERENCES docs/new.md names no team asset on this branch.",
        "  ! [relations] rules/r.md: REFERENCES skills/release names no team asset on this branch.",
    ]


def test_learnings_targets_are_checked_for_shape_only(cli, repo) -> None:  # type: ignore[no-untyped-def]
    doc = "---\nrelated:\n  SUPERSEDES: [learnings/never-seen, learnings/]\n---\nx\n"
    branch(repo, "learn", {"docs/d.md": doc})
    res = cli("review", "--branch", "learn", "--repo", str(repo))
    assert res.code == 1
    assert len(finding_lines(res.out)) == 1
    assert finding_lines(res.out)[0].startswith("  ✖ [relations] docs/d.md: SUPERSEDES learnings/ is not a path")


def test_team_in_a_subfolder_of_the_repo(cli, tmp_path, team) -> None:  # type: ignore[no-untyped-def]
    outer = tmp_path / "outer"
    (outer / "knowledge").parent.mkdir(parents=True)
    team.rename(outer / "knowledge")
    git(outer, "init", "-q", "-b", "main")
    git(outer, "add", "-A")
    git(outer, "commit", "-q", "-m", "team")
    branch(outer, "fix/payments", {"knowledge/rules/payments.md": BAD_RULE})
    res = cli("review", "--branch", "fix/payments", "--repo", str(outer / "knowledge"))
    assert res.code == 1 and len(finding_lines(res.out)) == 3


def test_unknown_branch_and_not_a_repository(cli, repo, tmp_path) -> None:  # type: ignore[no-untyped-def]
    res = cli("review", "--branch", "nope", "--repo", str(repo))
    assert res.code == 3 and res.err.count("\n") == 1 and "nope" in res.err
    res = cli("review", "--branch", "--upload-pack=x", "--repo", str(repo))
    assert res.code in (2, 3)
    plain = tmp_path / "plain"
    plain.mkdir()
    res = cli("review", "--branch", "main", "--repo", str(plain))
    assert res.code == 3 and "not a git repository" in res.err and res.err.count("\n") == 1


def test_cli_as_a_real_process(cli, repo) -> None:  # type: ignore[no-untyped-def]
    branch(repo, "fix/payments", {"rules/payments.md": BAD_RULE})
    res = cli.subprocess("review", "--branch", "fix/payments")
    assert res.code == 1 and res.out.count("[relations]") == 3
