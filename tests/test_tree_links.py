"""Links in a team tree: the walk reads each real folder once and nothing outside the team.

A team tree is a checkout, and a link in it can point anywhere: back up the tree (which made the
walk list every doc again under a new name per level, and two such links made it never end), or
out of the team (a ``.md`` name on a link to a private file was indexed and printed by recall).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reference.realpath import realpath
from reference.team import tree
from tests.conftest import EXAMPLE_TEAM, Cli


def _team(tmp_path: Path) -> Path:
    dest = tmp_path / "team"
    shutil.copytree(EXAMPLE_TEAM, dest)
    return Path(realpath(str(dest)))


def _walk(team: Path) -> list[tree.AssetFile]:
    return tree.walk(str(team), (str(team / "learnings"),))


def _keys(assets: list[tree.AssetFile]) -> list[tuple[str, str]]:
    return [(a.kind, a.tree_path) for a in assets]


def test_a_link_back_up_the_tree_indexes_nothing_twice(tmp_path):
    team = _team(tmp_path)
    before = _keys(_walk(team))
    os.symlink(".", team / "learnings" / "a")
    os.symlink("..", team / "docs" / "up")
    assert _keys(_walk(team)) == before


def test_two_links_back_up_the_tree_end_and_recall_answers(tmp_path):
    team = _team(tmp_path)
    before = _keys(_walk(team))
    os.symlink(".", team / "learnings" / "a")
    os.symlink(".", team / "learnings" / "b")
    os.symlink("../..", team / "learnings" / "ops" / "c")
    assert _keys(_walk(team)) == before
    cli = Cli(tmp_path / "home", team)
    result = cli("recall", "redis timeout")
    assert result.code == 0, result.err
    assert result.out.count("learnings/a/") == 0 and result.out.count("learnings/b/") == 0


def test_nothing_outside_the_team_is_read_through_a_link(tmp_path):
    team = _team(tmp_path)
    before = _keys(_walk(team))
    private = tmp_path / "private"
    (private / "notes").mkdir(parents=True)
    (private / "secret.txt").write_text("quokka passphrase\n", encoding="utf-8")
    (private / "notes" / "diary.md").write_text("# Diary\nquokka passphrase\n", encoding="utf-8")
    os.symlink(private / "secret.txt", team / "docs" / "secret.md")
    os.symlink(private / "notes", team / "docs" / "notes")
    os.symlink(private / "notes", team / "learnings" / "notes")
    assert _keys(_walk(team)) == before
    result = Cli(tmp_path / "home", team)("recall", "quokka passphrase")
    assert result.code == 0, result.err
    assert "quokka" not in result.out.replace("quokka passphrase", "") and "secret" not in result.out
    assert "diary" not in result.out.lower()


def test_a_link_to_a_folder_elsewhere_in_the_team_is_walked_once_under_its_name(tmp_path):
    team = _team(tmp_path)
    shared = team / "shared"
    shared.mkdir()
    (shared / "glossary.md").write_text("# Glossary\n", encoding="utf-8")
    os.symlink("../shared", team / "docs" / "shared")
    os.symlink("../shared", team / "docs" / "zz-shared-again")
    os.symlink("..", shared / "loop")
    found = [a for a in _walk(team) if "glossary" in a.tree_path]
    assert _keys(found) == [("doc", "docs/shared/glossary.md")]


def test_a_file_link_inside_the_team_is_an_asset(tmp_path):
    team = _team(tmp_path)
    os.symlink("../rules/payments.md", team / "docs" / "payments-rule.md")
    assert ("doc", "docs/payments-rule.md") in _keys(_walk(team))


FOLDERS = ("rules", "docs", "learnings", "learnings/ops", "docs/sub", "shared", "shared/deep")
TARGETS = (".", "..", "../..", "../../..", "/", "shared", "docs", "learnings", "outside", "missing")


@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(links=st.lists(st.tuples(st.sampled_from(FOLDERS), st.sampled_from(TARGETS), st.booleans()),
                      max_size=6))
def test_any_links_give_a_walk_that_ends_inside_the_team_with_each_real_folder_once(tmp_path_factory, links):
    """Links of every kind (up the tree, to the file system's root, across the team, out of it,
    dangling): the walk ends, every asset's real file is inside the team, and no real file is
    listed twice through folder links (only a file link names a file twice)."""
    base = Path(realpath(str(tmp_path_factory.mktemp("links"))))
    team = base / "team"
    for folder in FOLDERS:
        (team / folder).mkdir(parents=True, exist_ok=True)
        (team / folder / f"{folder.replace('/', '-')}.md").write_text("# x\n", encoding="utf-8")
    (base / "outside").mkdir()
    (base / "outside" / "leak.md").write_text("# leak\n", encoding="utf-8")
    for n, (folder, target, absolute) in enumerate(links):
        where = team / folder
        if target == "outside":
            target = str(base / "outside") if absolute else os.path.relpath(base / "outside", where)
        elif target in ("shared", "docs", "learnings"):
            target = str(team / target) if absolute else os.path.relpath(team / target, where)
        os.symlink(target, where / f"l{n}")
    assets = _walk(team)
    reals = [realpath(a.path) for a in assets]
    assert all(r.startswith(str(team) + os.sep) for r in reals)
    assert len(reals) == len(set(reals))
