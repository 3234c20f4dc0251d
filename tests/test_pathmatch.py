"""Path normalization and the suffix match."""

from __future__ import annotations

import posixpath

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference import pathmatch


@pytest.mark.parametrize(("raw", "expected"), [
    (r"C:\Users\ana\team\x.md", "C:/Users/ana/team/x.md"),
    ("c:/Users/ana/x.md", "C:/Users/ana/x.md"),
    ("/home//ana///x.md", "/home/ana/x.md"),
    ("learnings\\x.md", "learnings/x.md"),
    ("/cc/x.md", "/cc/x.md"),
    ("/c/Users/ana/x.md", "/c/Users/ana/x.md"),  # a POSIX path, unless the roots are Windows paths
])
def test_normalize(raw: str, expected: str) -> None:
    assert pathmatch.normalize(raw) == expected


@pytest.mark.parametrize(("raw", "expected"), [
    ("/c/Users/ana/x.md", "C:/Users/ana/x.md"),
    ("/d", "D:"),
    ("/D/x.md", "D:/x.md"),
    ("/cc/x.md", "/cc/x.md"),
])
def test_normalize_git_bash_drives(raw: str, expected: str) -> None:
    assert pathmatch.normalize(raw, drives=True) == expected


@pytest.mark.parametrize(("raw", "base", "expected"), [
    ("learnings/x.md", "/proj/team", "/proj/team/learnings/x.md"),
    ("./learnings/../learnings/x.md", "/proj/team", "/proj/team/learnings/x.md"),
    ("../team/learnings/x.md", "/proj/src", "/proj/team/learnings/x.md"),
    ("/abs/x.md", None, "/abs/x.md"),
    ("/abs/./y/../x.md", "/ignored", "/abs/x.md"),
    (r"learnings\x.md", r"c:\proj\team", "C:/proj/team/learnings/x.md"),
    (r"C:\proj\..\team\x.md", None, "C:/team/x.md"),
])
def test_resolve_against_the_base(raw: str, base: str | None, expected: str) -> None:
    assert pathmatch.resolve(raw, base) == expected


def test_resolve_against_a_git_bash_base_beside_windows_roots() -> None:
    assert pathmatch.resolve("x.md", "/c/proj", drives=True) == "C:/proj/x.md"
    assert pathmatch.resolve("/c/proj/x.md", None, drives=True) == "C:/proj/x.md"


def test_a_relative_path_without_a_base_does_not_resolve() -> None:
    assert pathmatch.resolve("learnings/x.md", None) is None
    assert pathmatch.resolve("learnings/x.md", "relative/base") is None


def test_evidence_only_for_markdown_under_the_roots(tmp_path) -> None:  # type: ignore[no-untyped-def]
    root = str(tmp_path / "team")
    assert pathmatch.evidence_path("learnings/x.md", root, [root]) == (f"{root}/learnings/x.md", True)
    assert pathmatch.evidence_path("learnings/x.txt", root, [root]) is None
    assert pathmatch.evidence_path("/elsewhere/x.md", root, [root]) is None
    assert pathmatch.evidence_path(f"{root}/../team/X.MD", None, [root]) == (f"{root}/X.MD", True)
    assert pathmatch.evidence_path(f"{root}2/x.md", None, [root]) is None  # a sibling folder is not inside
    assert pathmatch.evidence_path("./learnings/x.md", None, [root]) == ("learnings/x.md", False)
    assert pathmatch.evidence_path(None, root, [root]) is None
    assert pathmatch.evidence_path("", root, [root]) is None


def test_symlinked_folders_resolve_to_the_real_root(tmp_path) -> None:  # type: ignore[no-untyped-def]
    real = tmp_path / "real"
    (real / "learnings").mkdir(parents=True)
    (tmp_path / "link").symlink_to(real)
    found = pathmatch.evidence_path(str(tmp_path / "link" / "learnings" / "x.md"), None, [str(real)])
    assert found == (str(real / "learnings" / "x.md"), True)


PRINTED = ["/home/ana/team/learnings/redis-timeout.md", "/home/ana/team/learnings/ops/deploy.md",
           "/home/ana/other/learnings/ops/deploy.md"]


@pytest.mark.parametrize(("given_path", "expected"), [
    ("team/learnings/redis-timeout.md", PRINTED[0]),
    ("ana/team/learnings/redis-timeout.md", PRINTED[0]),
    ("../team/learnings/redis-timeout.md", PRINTED[0]),
    ("team\\learnings\\redis-timeout.md", PRINTED[0]),
    ("learnings/redis-timeout.md", PRINTED[0]),  # the base name and its folder: long enough
    ("./learnings/redis-timeout.md", PRINTED[0]),
    ("redis-timeout.md", None),  # a bare base name never matches, even a unique one
    ("./redis-timeout.md", None),
    ("../redis-timeout.md", None),
    ("ops/deploy.md", None),  # two printed paths end like this
    ("learnings/ops/deploy.md", None),
    ("team/learnings/ops/deploy.md", PRINTED[1]),
    ("x/team/learnings/redis-timeout.md", None),
    ("", None),
])
def test_suffix_match(given_path: str, expected: str | None) -> None:
    assert pathmatch.suffix_match(given_path, PRINTED) == expected


_segment = st.text(st.sampled_from("abcXYZ0-_."), min_size=1, max_size=6).filter(lambda s: s not in (".", ".."))


@settings(max_examples=200, deadline=None)
@given(st.lists(_segment, min_size=1, max_size=6), st.sampled_from(["/", "\\"]),
       st.sampled_from(["", "c:", "C:", "/c"]))
def test_normalize_is_idempotent_and_separator_blind(segs: list[str], sep: str, drive: str) -> None:
    raw = drive + sep + sep.join(segs)
    once = pathmatch.normalize(raw, drives=True)
    assert pathmatch.normalize(once, drives=True) == once
    assert "\\" not in once
    assert once == pathmatch.normalize(raw.replace("\\", "/"), drives=True)
    if drive:
        assert once.startswith("C:/")


@settings(max_examples=200, deadline=None)
@given(st.lists(_segment, min_size=1, max_size=5), st.lists(st.sampled_from([".", ".."]), max_size=3))
def test_a_relative_path_resolves_to_the_same_file_as_posix_does(segs: list[str], dots: list[str]) -> None:
    base = "/base/a/b/c"
    rel = "/".join(dots + segs)
    assert pathmatch.resolve(rel, base) == posixpath.normpath(posixpath.join(base, rel))


@settings(max_examples=150, deadline=None)
@given(st.lists(_segment, min_size=2, max_size=6), st.integers(min_value=2, max_value=6))
def test_a_long_enough_suffix_of_a_single_printed_path_matches_it(segs: list[str], k: int) -> None:
    printed = "/srv/" + "/".join(segs)
    suffix = "/".join(segs[-min(k, len(segs)):])
    assert pathmatch.suffix_match(suffix, [printed]) == printed
    assert pathmatch.suffix_match(suffix, [printed, "/other/" + "/".join(segs)]) is None


@settings(max_examples=150, deadline=None)
@given(st.lists(_segment, min_size=1, max_size=6), st.sampled_from(["", "./", "../", "../../"]))
def test_a_bare_base_name_never_matches(segs: list[str], prefix: str) -> None:
    printed = "/srv/" + "/".join(segs)
    assert pathmatch.suffix_match(prefix + segs[-1], [printed]) is None


# --- one-letter top folders: Git Bash drives only beside Windows roots ------------------------------

_letter = st.sampled_from([chr(c) for c in range(ord("a"), ord("z") + 1)] + [chr(c) for c in range(ord("A"), ord("Z") + 1)])


@settings(max_examples=200, deadline=None)
@given(_letter, st.lists(_segment, min_size=1, max_size=4))
def test_a_posix_path_under_a_one_letter_top_folder_stays_posix(letter: str, segs: list[str]) -> None:
    root = f"/{letter}/team"
    doc = f"{root}/learnings/{'/'.join(segs)}.md"
    assert pathmatch.normalize(doc) == doc
    assert pathmatch.canonical(doc) == doc  # the reducer's spelling of the printed path
    assert pathmatch.resolve(doc, None) == doc
    assert pathmatch.evidence_path(doc, None, [root]) == (doc, True)
    assert pathmatch.evidence_path(f"learnings/{'/'.join(segs)}.md", root, [root]) == (doc, True)
    assert pathmatch.evidence_path(f"/{letter}/../{letter}/team/learnings/{'/'.join(segs)}.md", "/", [root]) \
        == (doc, True)


@settings(max_examples=200, deadline=None)
@given(_letter, st.lists(_segment, min_size=1, max_size=4), st.sampled_from(["\\", "/"]))
def test_git_bash_drive_folders_are_drives_beside_windows_roots(letter: str, segs: list[str], sep: str) -> None:
    drive = letter.upper()
    root = f"{drive}:{sep}team"
    doc = f"{drive}:/team/learnings/{'/'.join(segs)}.md"
    bash = f"/{letter}/team/learnings/{'/'.join(segs)}.md"
    assert pathmatch.evidence_path(bash, None, [root]) == (doc, True)
    assert pathmatch.evidence_path(f"learnings/{'/'.join(segs)}.md", f"/{letter}/team", [root]) == (doc, True)
    assert pathmatch.canonical(root.replace("/", "\\") + "\\learnings\\" + "\\".join(segs) + ".md") == doc


@pytest.mark.parametrize(("roots", "expected"), [
    (["/w/team"], False), (["/home/ana/team"], False), ([r"C:\team"], True), (["c:/team"], True),
    (["/w/team", r"D:\team"], True), ([r"\\server\share\team"], True), ([], False),
])
def test_windows_roots(roots: list[str], expected: bool) -> None:
    assert pathmatch.windows_roots(roots) is expected


@settings(max_examples=200, deadline=None)
@given(st.lists(_segment, min_size=1, max_size=4), st.sampled_from(["\\", "/"]))
def test_a_share_beside_share_roots_stays_a_share(segs: list[str], sep: str) -> None:
    # Beside Windows roots a path is a Windows path: this host's realpath would fold ``//fs01``.
    root = "\\\\fs01\\share\\team"
    doc = "//fs01/share/team/learnings/" + "/".join(segs) + ".md"
    spelt = sep * 2 + sep.join(["fs01", "share", "team", "learnings", *segs]) + ".md"
    assert pathmatch.evidence_path(spelt, None, [root]) == (doc, True)
    assert pathmatch.evidence_path(sep.join(["learnings", *segs]) + ".md", root, [root]) == (doc, True)


class _Counted:
    """Counts the questions a resolution puts to the file system (``open``, ``lstat``, ``stat``,
    ``readlink``): the measure of its cost that does not depend on the machine's speed."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        import os

        self.calls = 0
        for name in ("open", "lstat", "stat", "readlink"):
            real = getattr(os, name)

            def counted(*args, _real=real, **kwargs):  # type: ignore[no-untyped-def]
                self.calls += 1
                return _real(*args, **kwargs)

            monkeypatch.setattr(os, name, counted)


@pytest.mark.parametrize("segments", [5_000, 500_000])
def test_a_long_missing_path_costs_the_hook_a_bounded_number_of_lookups(tmp_path, monkeypatch, segments) -> None:  # type: ignore[no-untyped-def]
    """A path no tool could have opened (longer than the kernel takes) is not walked segment by
    segment: it asks the file system nothing and is no evidence, whatever its length (a 1 MB path
    cost a hook seconds of CPU)."""
    root = str(tmp_path)
    raw = root + "/docs/" + "a/" * segments + "x.md"
    counted = _Counted(monkeypatch)
    assert pathmatch.evidence_path(raw, None, (root,)) is None
    assert pathmatch.resolve(raw, None) is None
    assert counted.calls == 0


def test_a_path_the_kernel_takes_is_still_resolved_in_lookups_linear_in_its_segments(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The longest path still resolved (just under :data:`pathmatch.MAX_PATH`, every segment a
    missing folder): at most a lookup or two per segment."""
    root = str(tmp_path)
    segments = (pathmatch.MAX_PATH - len(root) - 16) // 2
    raw = root + "/docs/" + "a/" * segments + "x.md"
    assert len(raw) < pathmatch.MAX_PATH
    counted = _Counted(monkeypatch)
    assert pathmatch.evidence_path(raw, None, (root,)) == (raw, True)
    assert counted.calls <= 2 * (raw.count("/") + 2)
