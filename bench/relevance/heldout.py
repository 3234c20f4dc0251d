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

Each archive is checked against its sha256 and its licence file is copied into the tree.
"""

from __future__ import annotations

import hashlib
import os
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


class Source(NamedTuple):
    name: str
    package: str
    version: str
    sha256: str
    fetch: Callable[[str, str, str, Say], str | None]
    destination: Callable[[str], str | None]
    questions: str


SOURCES = {
    "hatch": Source("hatch", "hatch", "1.18.2", "7f365f1a5b8f1a8162813daed9bf9fce83f15dc933fc99c6d04cbb942e64f4d0",
                    _pip_sdist, hatch_destination, os.path.join(HERE, "questions-heldout-hatch.yaml")),
    "ydoc": Source("ydoc", "ydoc", "4.1.3", "960bf47d0ff9e710580ac654d1e9ae8c0d191dddd64aa6d6c5ba0cbc42b2da3c",
                   _npm_pack, ydoc_destination, os.path.join(HERE, "questions-heldout-ydoc.yaml")),
}
QUESTIONS = SOURCES["hatch"].questions


def tree_dir(source: Source) -> str:
    return os.path.join(os.path.dirname(teamai_cli_home.cache_dir()), "relevance-heldout",
                        f"{source.package}-{source.version}", "tree")


def build(name: str = "hatch", say: Say = lambda _m: None) -> str | None:
    """The held-out team tree ``name``, built once into the cache; ``None`` (with the reason said)
    when its package cannot be fetched."""
    source = SOURCES[name]
    tree = tree_dir(source)
    if os.path.isdir(tree):
        return tree
    with tempfile.TemporaryDirectory(prefix="relevance-heldout-") as work:
        say(f"fetching {source.package} {source.version} for the held-out tree")
        archive = source.fetch(source.package, source.version, work, say)
        if archive is None:
            return None
        with open(archive, "rb") as fh:
            digest = hashlib.sha256(fh.read()).hexdigest()
        if digest != source.sha256:
            say(f"{os.path.basename(archive)}: sha256 {digest} is not the expected {source.sha256}")
            return None
        staging = tree + ".tmp"
        shutil.rmtree(staging, ignore_errors=True)
        with tarfile.open(archive) as tar:
            for member in tar.getmembers():
                rel = member.name.split("/", 1)[1] if "/" in member.name else ""
                target = source.destination(rel) if member.isfile() else None
                data = tar.extractfile(member) if target else None
                if target is None or data is None:
                    continue
                path = os.path.join(staging, *target.split("/"))
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "wb") as out:
                    out.write(data.read())
        os.makedirs(os.path.dirname(tree), exist_ok=True)
        os.replace(staging, tree)
    return tree
