"""Names that are not UTF-8 in a team tree: left out and said, never a crash.

Linux lets a file or folder be named by any bytes but ``/`` and NUL, and a checkout or an unzip
from another system can leave such a name. Python gives it back with the bad bytes as lone
surrogates, which SQLite, JSON and a UTF-8 terminal all refuse: one such file made every recall
and every ``teamai-ref index`` of its tree fail with a traceback.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reference.realpath import realpath
from reference.team import tree
from tests.conftest import EXAMPLE_TEAM, Cli

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="only Linux names files by any bytes")

BAD = os.fsdecode(b"caf\xe9")  # Latin-1 "café": the bytes are not UTF-8


def _team(tmp_path: Path) -> Path:
    dest = tmp_path / "team"
    shutil.copytree(EXAMPLE_TEAM, dest)
    return Path(realpath(str(dest)))


def _make(path: str, text: str = "kafka rebalance storm\n") -> None:
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
    except OSError as exc:  # a file system that only takes UTF-8 names
        pytest.skip(f"this file system refuses the name: {exc}")


def test_recall_and_index_leave_a_misnamed_file_out_and_index_says_so(tmp_path):
    team = _team(tmp_path)
    _make(os.path.join(team, "docs", f"{BAD}.md"))
    _make(os.path.join(team, "docs", BAD, "inside.md"))
    _make(os.path.join(team, "docs", "kafka.md"))
    cli = Cli(tmp_path / "home", team)

    recall = cli.subprocess("recall", "kafka rebalance storm")
    assert recall.code == 0, recall.err
    assert "docs/kafka.md" in recall.out and "caf" not in recall.out
    assert "Traceback" not in recall.err

    index = cli.subprocess("index")
    assert index.code == 0, index.err
    assert "name is not UTF-8" in index.err and "Traceback" not in index.err

    problems = cli.subprocess("index", "--problems")
    assert problems.code == 0, problems.err
    listed = [line for line in problems.out.splitlines() if "name is not UTF-8" in line]
    assert sorted(listed) == sorted(f"{team}/docs/{name}: its name is not UTF-8; skipped. Rename it."
                                    for name in ("caf\\xe9.md", "caf\\xe9"))
    for log in (tmp_path / "home").rglob("recall-log.jsonl"):
        assert tree.utf8(log.read_text(encoding="utf-8"))


def test_a_team_folder_whose_path_is_not_utf8_is_refused_in_one_line(tmp_path):
    team = os.path.join(str(tmp_path), BAD)
    _make(os.path.join(team, "docs", "kafka.md"))
    result = Cli(tmp_path / "home", Path(team)).subprocess("recall", "kafka")
    assert result.code == 3 and "Traceback" not in result.err
    assert result.err.strip().splitlines() == [
        f"teamai-ref: error: team folder {tmp_path}/caf\\xe9 has a path that is not UTF-8, so its files' paths"
        " could not be stored or printed; rename it"]


def test_a_learnings_root_whose_path_is_not_utf8_is_left_out(tmp_path):
    team = _team(tmp_path)
    root = os.path.join(str(tmp_path), BAD)
    _make(os.path.join(root, "kafka.md"))
    cli = Cli(tmp_path / "home", team)
    result = cli.subprocess("recall", "redis timeout", env={"TEAMAI_LEARNINGS": f"{team}/learnings:{root}"})
    assert result.code == 0, result.err
    assert "redis" in result.out.lower() and "caf" not in result.out
    skipped: list[tree.Skipped] = []
    tree.walk(str(team), (str(team / "learnings"), root), skipped)
    assert skipped == [tree.Skipped(root)]


_BYTES = st.binary(min_size=1, max_size=6).filter(lambda b: b"/" not in b and b"\0" not in b
                                                  and not b.startswith(b"."))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(names=st.lists(_BYTES, min_size=1, max_size=6, unique=True), folder=st.booleans())
def test_the_walk_lists_every_utf8_name_and_leaves_out_the_rest(tmp_path_factory, names, folder):
    team = Path(realpath(str(tmp_path_factory.mktemp("team"))))
    made = []
    for raw in names:
        name = os.fsdecode(raw)
        path = os.path.join(team, "docs", name, "page.md") if folder else os.path.join(team, "docs", name + ".md")
        _make(path)
        made.append((name, path))
    skipped: list[tree.Skipped] = []
    found = tree.walk(str(team), (str(team / "learnings"),), skipped)
    assert all(s.why is None for s in skipped)
    left_out = [s.path for s in skipped]
    assert all(tree.utf8(a.tree_path) and tree.utf8(a.path) for a in found)
    listed = {a.path for a in found}
    for name, path in made:
        if tree.utf8(name):
            assert path in listed
        else:
            assert path not in listed
            assert (os.path.dirname(path) if folder else path) in left_out
    assert all(not tree.utf8(p) for p in left_out)
    assert all(tree.utf8(tree.shown(p)) for p in left_out)


def test_contribute_refuses_a_title_or_a_learnings_root_that_is_not_utf8(tmp_path):
    team = _team(tmp_path)
    note = tmp_path / "note.md"
    note.write_text("kafka rebalance storm\n", encoding="utf-8")
    cli = Cli(tmp_path / "home", team)
    before = sorted(os.listdir(team / "learnings"))

    title = cli.subprocess("contribute", "--file", str(note), "--title", f"kafka {BAD}")
    assert title.code == 2 and "Traceback" not in title.err
    assert "the title kafka caf\\xe9 is not UTF-8 text" in title.err

    root = os.path.join(str(tmp_path), BAD)
    os.makedirs(root)
    elsewhere = cli.subprocess("contribute", "--file", str(note), "--title", "kafka",
                               env={"TEAMAI_LEARNINGS": root})
    assert elsewhere.code == 3 and "Traceback" not in elsewhere.err
    assert f"the learnings root {tmp_path}/caf\\xe9 has a path that is not UTF-8" in elsewhere.err
    assert os.listdir(root) == [] and sorted(os.listdir(team / "learnings")) == before


@given(st.text(alphabet=st.characters(codec=None, exclude_categories=())))
def test_what_is_shown_can_always_be_printed_and_is_the_name_when_it_is_utf8(text):
    printed = tree.shown(text)
    assert tree.utf8(printed)
    assert printed == text if tree.utf8(text) else "\\" in printed


def test_a_folder_that_cannot_be_listed_is_left_out_and_named_by_index(tmp_path, monkeypatch):
    """Its permissions shut it (faked here: these tests may run as root, whom no mode stops)."""
    team = _team(tmp_path)
    _make(os.path.join(team, "docs", "locked", "secret.md"))
    _make(os.path.join(team, "docs", "kafka.md"))
    locked = os.path.join(team, "docs", "locked")
    real_scandir = os.scandir

    def scandir(path: str = ".") -> object:
        if os.fspath(path) == locked:
            raise PermissionError(13, "Permission denied", path)
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    cli = Cli(tmp_path / "home", team)
    recall = cli("recall", "kafka rebalance storm")
    assert recall.code == 0, recall.err
    assert "docs/kafka.md" in recall.out and "secret" not in recall.out and recall.err == ""
    said = f"{locked}: cannot be listed (Permission denied); skipped. Check its permissions."
    assert said in cli("index", "--problems").out.splitlines()
    index = cli("index")
    assert index.code == 0 and said in index.err
