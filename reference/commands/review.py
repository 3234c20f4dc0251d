"""``teamai-ref review --branch NAME``: check the relations a branch of the team repo declares.

The branch is read through git (``git archive`` of the commit, streamed into a temporary
folder), so the work tree, the index and HEAD are never touched and an unclean checkout does not
matter. Every rule and doc of the branch is checked, not a diff against a base.

Targets are verified for the kinds that live on the branch (rules, docs, skills, teamwiki
pages). A ``learnings/`` target is checked for its shape only: learnings live on their own
branch. Findings print as ``  ✖ [relations] <file>: <text>`` (fail) or ``  ! [relations] ...``
(warn), two spaces in, file by file in tree order and in file order within a file, then one
summary line. Exit 1 when any finding is a fail, 0 otherwise, 3 when the folder is not a git
repository or the branch is unknown.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import tarfile
import tempfile
from typing import TYPE_CHECKING

from ..realpath import realpath
from ..relations import check, paths
from ..relations.declarations import FAIL, Finding
from ..team import tree

if TYPE_CHECKING:
    from ..streams import Io

FAIL_MARK, WARN_MARK = "✖", "!"
INDENT = "  "  # as in the spec's example of review output
_GIT_VARS = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_CEILING_DIRECTORIES")


class ReviewError(Exception):
    """The repository or the branch cannot be used."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--branch", required=True, metavar="NAME", help="the branch to review")
    parser.add_argument("--repo", metavar="DIR",
                        help="the team repository (default: --team, else $TEAMAI_TEAM)")


def _git(repo: str, env: dict[str, str], *argv: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(["git", "-C", repo, *argv], capture_output=True, env=env, check=False)


def _materialize(repo: str, branch: str, env: dict[str, str], dest: str) -> str:
    """Extract the branch's team tree into ``dest``; returns the commit it came from."""
    top = _git(repo, env, "rev-parse", "--show-toplevel", "--show-prefix")
    if top.returncode != 0:
        raise ReviewError(f"{repo} is not a git repository; pass the team repository with --repo DIR")
    toplevel, prefix = (top.stdout.decode().split("\n") + ["", ""])[:2]
    resolved = _git(repo, env, "rev-parse", "--verify", "--quiet", f"{branch}^{{commit}}") \
        if branch and not branch.startswith("-") else None
    if resolved is None or resolved.returncode != 0:
        raise ReviewError(f"branch {branch!r} is not in {repo}; check the name with git branch --all")
    commit = resolved.stdout.decode().strip()
    # from the top: in a subfolder, git archive would look for the prefix inside the prefix
    proc = subprocess.Popen(["git", "-C", toplevel, "archive", "--format=tar", f"{commit}:{prefix}"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    assert proc.stdout is not None
    try:
        with tarfile.open(fileobj=proc.stdout, mode="r|") as archive:
            for member in archive:
                if member.isfile() and member.name.endswith(".md") and \
                        member.name.startswith(("rules/", "docs/", "skills/", tree.WIKI_PREFIX)):
                    archive.extract(member, dest, filter="data")
    except (tarfile.TarError, OSError) as exc:
        proc.kill()
        proc.wait()
        raise ReviewError(f"branch {branch!r} of {repo} cannot be read: {exc}") from exc
    finally:
        err = proc.stderr.read() if proc.stderr else b""
        proc.wait()
    if proc.returncode != 0:
        reason = err.decode(errors="replace").strip().splitlines()
        raise ReviewError(f"branch {branch!r} of {repo} cannot be read: {reason[-1] if reason else 'git failed'}")
    return commit


def review_tree(folder: str) -> list[tuple[str, Finding]]:
    """(tree path, finding) for every rule and doc under ``folder``, in tree order."""
    assets = tree.walk(folder, ())
    present = {a.tree_path for a in assets}

    def exists(target: paths.Target) -> bool:
        return target.kind == tree.LEARNING or target.tree_path in present

    out: list[tuple[str, Finding]] = []
    for asset in assets:
        if asset.kind not in (tree.RULE, tree.DOC):
            continue
        try:
            with open(asset.path, encoding="utf-8") as fh:
                text = fh.read()
        except (OSError, UnicodeDecodeError):
            continue  # not text: nothing it declares can be read, and other checks report it
        for finding in check.findings(asset.kind, asset.tree_path, text.lstrip("\ufeff"), exists,
                                      "names no team asset on this branch"):
            out.append((asset.tree_path, finding))
    return out


def finding_line(tree_path: str, finding: Finding) -> str:
    mark = FAIL_MARK if finding.severity == FAIL else WARN_MARK
    return f"{INDENT}{mark} [relations] {tree_path}: {finding.review_text()}"


def run(args: argparse.Namespace, io: Io) -> int:
    from ..cli import EXIT_INPUT, EXIT_NO, EXIT_OK

    repo_raw = args.repo or args.team or io.env.get("TEAMAI_TEAM")
    if not repo_raw:
        io.error("no team repository: pass --repo DIR (or --team DIR, or set TEAMAI_TEAM)")
        return EXIT_INPUT
    repo = realpath(os.path.expanduser(repo_raw))
    if not os.path.isdir(repo):
        io.error(f"{repo} does not exist; pass the team repository with --repo DIR")
        return EXIT_INPUT
    env = {k: v for k, v in io.env.items() if k not in _GIT_VARS}
    env.setdefault("PATH", os.environ.get("PATH", os.defpath))
    with tempfile.TemporaryDirectory(prefix="teamai-review-") as tmp:
        try:
            _materialize(repo, args.branch, env, tmp)
        except ReviewError as exc:
            io.error(str(exc))
            return EXIT_INPUT
        found = review_tree(tmp)
        checked = sum(1 for a in tree.walk(tmp, ()) if a.kind in (tree.RULE, tree.DOC))
    for tree_path, finding in found:
        io.stdout.write(finding_line(tree_path, finding) + "\n")
    fails = sum(1 for _, f in found if f.severity == FAIL)
    warns = len(found) - fails
    io.stdout.write(f"review {args.branch}: relations checked in {checked} rules and docs, "
                    f"{fails} fail{'s' if fails != 1 else ''}, {warns} warning{'s' if warns != 1 else ''}\n")
    return EXIT_NO if fails else EXIT_OK
