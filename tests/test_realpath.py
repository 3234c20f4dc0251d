"""The kernel's answer for a path's real form is taken only where it means what Python's does."""

from __future__ import annotations

import os
import sys

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from reference import realpath as realpath_module
from reference.realpath import realpath
from tests.conftest import skip_unless_in_ci

NAMES = ("a", "b", "f", "l1", "l2", ".", "..", "")
# What the folder holds: folders a/ and a/b/, a file f and a/f, and links of every kind that bends
# a resolution: to a folder, to a file, relative and absolute, up the tree, dangling, a loop.
LINKS = {
    "l1": "a/b",
    "a/l2": "..",
    "a/b/l1": "../f",
    "dangling": "nowhere/at/all",
    "loop": "loop2",
    "loop2": "loop",
}


def _tree(root: str) -> None:
    os.makedirs(os.path.join(root, "a", "b"))
    for name in ("f", "a/f", "a/b/f"):
        with open(os.path.join(root, name), "w", encoding="utf-8") as out:
            out.write("x")
    for name, target in LINKS.items():
        os.symlink(target, os.path.join(root, name))
    os.symlink(os.path.join(root, "a"), os.path.join(root, "abs"))


@pytest.fixture(scope="module")
def tree(tmp_path_factory) -> str:
    root = str(tmp_path_factory.mktemp("real"))
    _tree(root)
    return root


@settings(max_examples=300, deadline=None)
@given(parts=st.lists(st.sampled_from((*NAMES, "abs", "missing", "dangling", "loop")), max_size=3),
       relative=st.booleans(), trailing=st.booleans())
def test_every_path_resolves_as_os_path_realpath_resolves_it(tree, parts, relative, trailing):
    path = "/".join(parts) + ("/" if trailing and parts else "")
    if not relative:
        path = tree + "/" + path
    here = os.getcwd()
    os.chdir(tree)
    try:
        event("exists" if os.path.exists(path) else "missing")
        assert realpath(path) == os.path.realpath(path)
    finally:
        os.chdir(here)


def test_an_existing_path_is_answered_by_the_kernel_alone(tree, monkeypatch):
    """Through a link and up past it, a real path comes back without Python's walk."""
    if not realpath_module._KERNEL:  # CI runs on Linux, where this must not skip
        skip_unless_in_ci("the kernel's answer needs Linux's /proc/self/fd")
    def walk(path):
        raise AssertionError(f"os.path.realpath was asked for {path}")

    monkeypatch.setattr(realpath_module.os.path, "realpath", walk)
    assert realpath(os.path.join(tree, "l1", "..", "f")) == os.path.join(tree, "a", "f")
    assert realpath(os.path.join(tree, "abs", "b", "l1")) == os.path.join(tree, "a", "f")


def test_what_the_kernel_cannot_answer_goes_to_python(tree, monkeypatch):
    """A missing path, a dangling link and a loop still get os.path.realpath's answer."""
    asked: list[str] = []
    real = os.path.realpath

    def walk(path):
        asked.append(path)
        return real(path)

    monkeypatch.setattr(realpath_module.os.path, "realpath", walk)
    for name in ("nothing/here", "dangling", "loop"):
        path = os.path.join(tree, name)
        assert realpath(path) == real(path)
    assert len(asked) == 3
    if sys.platform.startswith("linux"):
        assert realpath(os.path.join(tree, "f")) == os.path.join(tree, "f")
        assert len(asked) == 3
