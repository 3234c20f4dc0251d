"""The `write` step: the harness changes the team tree in place between two commands."""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path

import pytest

from conformance.corpus import lint
from conformance.corpus.read import load
from conformance.running import tree_write

AT = dt.datetime(2026, 11, 30, 10, 0, 5, tzinfo=dt.UTC)


def test_an_existing_file_is_rewritten_in_place_and_dated_by_the_step(tmp_path: Path):
    target = tmp_path / "rules" / "r.md"
    target.parent.mkdir()
    target.write_text("old text\n")
    inode, folder = target.stat().st_ino, target.parent.stat().st_mtime_ns
    tree_write.apply(str(tmp_path), {"rules/r.md": "new text\n"}, AT)
    assert target.read_text() == "new text\n"
    assert target.stat().st_ino == inode  # the same file, as an editor saving in place leaves it
    assert target.parent.stat().st_mtime_ns == folder
    assert target.stat().st_mtime_ns == int(AT.timestamp()) * 10**9


def test_an_edit_that_keeps_the_size_and_the_instant_still_moves_the_mtime(tmp_path: Path):
    target = tmp_path / "a.md"
    target.write_text("aaaa")
    stamp = int(AT.timestamp()) * 10**9
    os.utime(target, ns=(stamp, stamp))
    tree_write.apply(str(tmp_path), {"a.md": "bbbb"}, AT)
    assert target.stat().st_mtime_ns == stamp + 10**9


def test_a_new_file_and_its_folders_are_made_and_null_deletes(tmp_path: Path):
    tree_write.apply(str(tmp_path), {"learnings/ns/new.md": "x\n"}, AT)
    assert (tmp_path / "learnings" / "ns" / "new.md").read_text() == "x\n"
    tree_write.apply(str(tmp_path), {"learnings/ns/new.md": None, "docs/never-there.md": None}, AT)
    assert not (tmp_path / "learnings" / "ns" / "new.md").exists()


@pytest.mark.parametrize("bad", ["", "/etc/passwd", "../outside.md", "docs/../../x.md", "docs\\x.md", "docs//x.md",
                                 "./x.md"])
def test_a_path_outside_the_tree_is_refused(tmp_path: Path, bad: str):
    with pytest.raises(tree_write.WriteError):
        tree_write.apply(str(tmp_path), {bad: "x"}, AT)
    assert list(tmp_path.iterdir()) == []


def test_without_a_team_root_nothing_is_written(tmp_path: Path):
    with pytest.raises(tree_write.WriteError, match="roots.team"):
        tree_write.apply(None, {"a.md": "x"}, AT)


def test_the_lint_refuses_a_write_outside_the_tree(corpus_copy: Path):
    path = corpus_copy / "scenarios" / "recall" / "fx-designed-to-fail.yaml"
    path.write_text(path.read_text().replace("expect:\n", "  - write: {../escape.md: x}\nexpect:\n"))
    problems = lint.lint(load(corpus_copy))
    assert any("fx-designed-to-fail" in p and "steps" in p for p in problems), problems
