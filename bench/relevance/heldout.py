"""The held-out trees: real Markdown documentation trees from package registries, mapped into the
team layout at bench time and never committed, so tuning on real-team-a can be checked to
generalise to trees nobody tuned on.

``hatch`` (English): the source distribution of hatch 1.18.2 on PyPI (MIT licence, © Ofek Lev),
fetched with pip. Its ``docs/`` folder is a real MkDocs site of about eighty pages. Mapping:

- ``docs/how-to/<area>/<page>.md`` -> ``learnings/how-to/<area>-<page>.md`` (short task notes)
- ``docs/blog/posts/<post>.md`` -> ``learnings/blog/<post>.md``
- ``docs/community/contributing.md`` -> ``rules/hatch/contributing.md``; ``SECURITY.md`` ->
  ``rules/hatch/security.md``; ``docs/config/internal/<page>.md`` -> ``rules/hatch/internal/<page>.md``
  (the conventions hatch applies to its own development)
- every other ``docs/**.md`` -> ``docs/hatch/<same path>``

``ydoc`` (Chinese): the npm package ydoc 4.1.3 (Apache-2.0, YMFE), fetched with ``npm pack``
(so only where npm is present). It ships its own Chinese documentation, about twenty pages:

- ``docs/documents/<page>.md`` -> ``docs/ydoc/<page>.md``; ``README.md`` -> ``docs/ydoc/README.md``
- ``docs/standard/<page>.md`` -> ``rules/ydoc/<page>.md`` (its documentation and design standards)
- the ``SUMMARY.md`` tables of contents and the example stubs are left out

``pydocs`` (English, with two Chinese pages): the source distributions of four PyPI packages
in one tree, as a team that keeps its libraries' manuals beside its own notes would have them.
It is the third held-out tree, written for issue 37 and frozen before any ranking change:

- click 8.5.1 (BSD-3-Clause), structlog 26.1.0 (MIT or Apache-2.0), attrs 26.1.0 (MIT): their
  Markdown ``docs/`` become ``docs/<package>/``, except the how-to pages (FAQ, upgrade guides,
  recipes, best practices), which become ``learnings/<package>/``; their contribution guides,
  security policies, AI policies, codes of conduct and pull request templates (``.github/``)
  become ``rules/<package>/``; the README and the changelog stay as long, generic docs. The
  pages that only include another file (``docs/changes.md``, ``docs/license.md``,
  ``docs/changelog.md``) are left out.
- pypinyin 0.55.0 (MIT): its README and changelog, written in Chinese in reStructuredText,
  become ``docs/pypinyin/README.md`` and ``docs/pypinyin/changelog.md``, their section titles
  rewritten as Markdown headings (:func:`rst_headings`): the few long Chinese pages of a mostly
  English tree.

Each archive is checked against its sha256 and its licence file is copied into the tree.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Callable
from typing import NamedTuple

from conformance.drivers import teamai_cli_home

HERE = os.path.dirname(os.path.abspath(__file__))
TIMEOUT = 600.0
Say = Callable[[str], None]


def hatch_destination(rel: str) -> str | None:
    """Where a file of the hatch sdist (path below its top folder) goes in the team tree."""
    if rel == "SECURITY.md":
        return "rules/hatch/security.md"
    if rel == "LICENSE.txt":
        return rel
    if not rel.startswith("docs/") or not rel.endswith(".md"):
        return None
    page = rel[len("docs/"):]
    if page.startswith("how-to/"):
        return "learnings/how-to/" + page[len("how-to/"):].replace("/", "-")
    if page.startswith("blog/posts/"):
        return "learnings/blog/" + page[len("blog/posts/"):]
    if page == "community/contributing.md":
        return "rules/hatch/contributing.md"
    if page.startswith("config/internal/"):
        return "rules/hatch/internal/" + page[len("config/internal/"):]
    return "docs/hatch/" + page


def ydoc_destination(rel: str) -> str | None:
    """Where a file of the ydoc npm package (path below ``package/``) goes in the team tree."""
    if rel == "LICENSE":
        return rel
    if rel == "README.md":
        return "docs/ydoc/README.md"
    name = rel.rsplit("/", 1)[-1]
    if not rel.endswith(".md") or name == "SUMMARY.md" or rel.count("/") != 2:
        return None
    if rel.startswith("docs/documents/"):
        return "docs/ydoc/" + name
    if rel.startswith("docs/standard/"):
        return "rules/ydoc/" + name
    return None


_PYDOCS_RULES = {".github/CONTRIBUTING.md": "contributing.md", ".github/SECURITY.md": "security.md",
                 ".github/AI_POLICY.md": "ai-policy.md", ".github/CODE_OF_CONDUCT.md": "code-of-conduct.md",
                 ".github/PULL_REQUEST_TEMPLATE.md": "pull-request-template.md",
                 "docs/contributing.md": "contributing.md"}
_PYDOCS_LEARNINGS = frozenset({"faqs", "upgrade-guides", "support-multiple-versions", "wincmd", "virtualenv",
                               "recipes", "logging-best-practices"})
_PYDOCS_SKIPPED = frozenset({"docs/changes.md", "docs/license.md", "docs/changelog.md", "docs/contrib.md"})
_LICENCES = frozenset({"LICENSE", "LICENSE.txt", "LICENSE.md", "LICENSE-MIT", "LICENSE-APACHE"})


def pydocs_destination(package: str) -> Callable[[str], str | None]:
    """Where a file of one of the pydocs sdists (path below its top folder) goes in the team tree."""
    def destination(rel: str) -> str | None:
        if rel in _LICENCES:
            return f"licences/{package}-{rel}"
        if package == "pypinyin":
            return {"README.rst": "docs/pypinyin/README.md", "CHANGELOG.rst": "docs/pypinyin/changelog.md"}.get(rel)
        if rel in _PYDOCS_RULES:
            return f"rules/{package}/{_PYDOCS_RULES[rel]}"
        if rel == "README.md":
            return f"docs/{package}/README.md"
        if rel in ("CHANGES.md", "CHANGELOG.md"):
            return f"docs/{package}/changelog.md"
        if not rel.startswith("docs/") or not rel.endswith(".md") or rel.count("/") != 1 or rel in _PYDOCS_SKIPPED:
            return None
        page = rel[len("docs/"):-len(".md")]
        folder = "learnings" if page in _PYDOCS_LEARNINGS else "docs"
        return f"{folder}/{package}/{page}.md"
    return destination


_RST_UNDERLINE = re.compile(r"^([=\-+~^*#])\1{2,}\s*$")


def rst_headings(text: str) -> str:
    """reStructuredText section titles (a line underlined with ``=``, ``-``, ``+``...) as Markdown
    headings, the level by the order the underline characters first appear; the rest is kept."""
    lines = text.split("\n")
    levels: list[str] = []
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        under = lines[i + 1] if i + 1 < len(lines) else ""
        m = _RST_UNDERLINE.match(under)
        if line.strip() and not _RST_UNDERLINE.match(line) and m:
            mark = m.group(1)
            if mark not in levels:
                levels.append(mark)
            out.append("#" * min(6, levels.index(mark) + 1) + " " + line.strip())
            i += 2
            continue
        out.append(line)
        i += 1
    return "\n".join(out)


def _pip_sdist(package: str, version: str, work: str, say: Say) -> str | None:
    try:
        proc = subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary",
                               ":all:", f"{package}=={version}", "-d", work],
                              capture_output=True, text=True, timeout=TIMEOUT)
    except (OSError, subprocess.TimeoutExpired) as exc:
        say(f"pip download {package}=={version} failed: {exc}")
        return None
    path = os.path.join(work, f"{package}-{version}.tar.gz")
    if proc.returncode != 0 or not os.path.exists(path):
        say(f"pip download {package}=={version} failed: {(proc.stderr or proc.stdout).strip()[-300:]}")
        return None
    return path


def _npm_pack(package: str, version: str, work: str, say: Say) -> str | None:
    if not shutil.which("npm"):
        say(f"npm is not installed, so the {package} tree cannot be fetched")
        return None
    try:
        proc = subprocess.run(["npm", "pack", "--silent", f"{package}@{version}", "--pack-destination", work],
                              capture_output=True, text=True, timeout=TIMEOUT, cwd=work)
    except (OSError, subprocess.TimeoutExpired) as exc:
        say(f"npm pack {package}@{version} failed: {exc}")
        return None
    path = os.path.join(work, f"{package}-{version}.tgz")
    if proc.returncode != 0 or not os.path.exists(path):
        say(f"npm pack {package}@{version} failed: {(proc.stderr or proc.stdout).strip()[-300:]}")
        return None
    return path


class Part(NamedTuple):
    package: str
    version: str
    sha256: str
    fetch: Callable[[str, str, str, Say], str | None]
    destination: Callable[[str], str | None]
    rewrite: Callable[[str], str] | None = None  # applied to a page's text (reStructuredText headings)


class Source(NamedTuple):
    name: str
    parts: tuple[Part, ...]
    questions: str

    @property
    def package(self) -> str:
        return self.parts[0].package

    @property
    def version(self) -> str:
        return self.parts[0].version


SOURCES = {
    "hatch": Source("hatch", (Part("hatch", "1.18.2", "7f365f1a5b8f1a8162813daed9bf9fce83f15dc933fc99c6d04cbb942e64f4d0",
                                   _pip_sdist, hatch_destination),),
                    os.path.join(HERE, "questions-heldout-hatch.yaml")),
    "ydoc": Source("ydoc", (Part("ydoc", "4.1.3", "960bf47d0ff9e710580ac654d1e9ae8c0d191dddd64aa6d6c5ba0cbc42b2da3c",
                                 _npm_pack, ydoc_destination),),
                   os.path.join(HERE, "questions-heldout-ydoc.yaml")),
    "pydocs": Source("pydocs", (
        Part("click", "8.5.1", "9bbfada76703fd1d784b83eea012e3e8c6a001a876543ef104fa56aaaeb072b4",
             _pip_sdist, pydocs_destination("click")),
        Part("structlog", "26.1.0", "f63a716cbd1b1291cf7661de7794b455acfa4c43c5bcf1630e6ad5ddc1adb3b7",
             _pip_sdist, pydocs_destination("structlog")),
        Part("attrs", "26.1.0", "d03ceb89cb322a8fd706d4fb91940737b6642aa36998fe130a9bc96c985eff32",
             _pip_sdist, pydocs_destination("attrs")),
        Part("pypinyin", "0.55.0", "b5711b3a0c6f76e67408ec6b2e3c4987a3a806b7c528076e7c7b86fcf0eaa66b",
             _pip_sdist, pydocs_destination("pypinyin"), rst_headings)),
        os.path.join(HERE, "questions-heldout-pydocs.yaml")),
}
QUESTIONS = SOURCES["hatch"].questions


def tree_dir(source: Source) -> str:
    label = "+".join(f"{p.package}-{p.version}" for p in source.parts)
    return os.path.join(os.path.dirname(teamai_cli_home.cache_dir()), "relevance-heldout", label, "tree")


def build(name: str = "hatch", say: Say = lambda _m: None) -> str | None:
    """The held-out team tree ``name``, built once into the cache; ``None`` (with the reason said)
    when its package cannot be fetched."""
    source = SOURCES[name]
    tree = tree_dir(source)
    if os.path.isdir(tree):
        return tree
    staging = tree + ".tmp"
    shutil.rmtree(staging, ignore_errors=True)
    with tempfile.TemporaryDirectory(prefix="relevance-heldout-") as work:
        for part in source.parts:
            if not _unpack(part, work, staging, say):
                shutil.rmtree(staging, ignore_errors=True)
                return None
    os.makedirs(os.path.dirname(tree), exist_ok=True)
    os.replace(staging, tree)
    return tree


def _unpack(part: Part, work: str, staging: str, say: Say) -> bool:
    """Fetch one package, check its digest and lay its mapped files into ``staging``."""
    say(f"fetching {part.package} {part.version} for the held-out tree")
    archive = part.fetch(part.package, part.version, work, say)
    if archive is None:
        return False
    with open(archive, "rb") as fh:
        digest = hashlib.sha256(fh.read()).hexdigest()
    if digest != part.sha256:
        say(f"{os.path.basename(archive)}: sha256 {digest} is not the expected {part.sha256}")
        return False
    with tarfile.open(archive) as tar:
        for member in tar.getmembers():
            rel = member.name.split("/", 1)[1] if "/" in member.name else ""
            target = part.destination(rel) if member.isfile() else None
            data = tar.extractfile(member) if target else None
            if target is None or data is None:
                continue
            path = os.path.join(staging, *target.split("/"))
            os.makedirs(os.path.dirname(path), exist_ok=True)
            content = data.read()
            if part.rewrite is not None and target.endswith(".md"):
                content = part.rewrite(content.decode("utf-8")).encode("utf-8")
            with open(path, "wb") as out:
                out.write(content)
    return True
