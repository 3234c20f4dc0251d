"""The held-out tree: a real Markdown documentation tree from a package registry, mapped into
the team layout at bench time and never committed, so tuning on real-team-a can be checked to
generalise to a tree nobody tuned on.

Source: the source distribution of ``hatch`` 1.18.2 on PyPI (MIT licence, copyright Ofek Lev;
the licence file is copied into the tree as ``LICENSE.txt``), fetched with pip and checked
against its sha256. Its ``docs/`` folder is a real MkDocs site of about eighty pages. Mapping:

- ``docs/how-to/<area>/<page>.md`` -> ``learnings/how-to/<area>-<page>.md`` (short task notes)
- ``docs/blog/posts/<post>.md`` -> ``learnings/blog/<post>.md``
- ``docs/community/contributing.md`` -> ``rules/hatch/contributing.md``; ``SECURITY.md`` ->
  ``rules/hatch/security.md``; ``docs/config/internal/<page>.md`` -> ``rules/hatch/internal/<page>.md``
  (the conventions hatch applies to its own development)
- every other ``docs/**.md`` -> ``docs/hatch/<same path>``

It has no Chinese pages, no skills and no teamwiki pages (no registry package with a Chinese
Markdown documentation tree of a useful size under a permissive licence was found; see the
relevance README).
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

from conformance.drivers import teamai_cli_home

HERE = os.path.dirname(os.path.abspath(__file__))
QUESTIONS = os.path.join(HERE, "questions-heldout-hatch.yaml")
PACKAGE, VERSION = "hatch", "1.18.2"
SHA256 = "7f365f1a5b8f1a8162813daed9bf9fce83f15dc933fc99c6d04cbb942e64f4d0"
TIMEOUT = 600.0


def tree_dir() -> str:
    return os.path.join(os.path.dirname(teamai_cli_home.cache_dir()), "relevance-heldout",
                        f"{PACKAGE}-{VERSION}", "tree")


def destination(rel: str) -> str | None:
    """Where a file of the sdist (path below its top folder) goes in the team tree, if anywhere."""
    if rel == "SECURITY.md":
        return "rules/hatch/security.md"
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


def build(say: Callable[[str], None] = lambda _m: None) -> str | None:
    """The held-out team tree, built once into the cache; ``None`` (with the reason said) when the
    package cannot be fetched."""
    tree = tree_dir()
    if os.path.isdir(tree):
        return tree
    with tempfile.TemporaryDirectory(prefix="relevance-heldout-") as work:
        say(f"fetching the {PACKAGE} {VERSION} source distribution from PyPI for the held-out tree")
        try:
            proc = subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                                   "--no-binary", ":all:", f"{PACKAGE}=={VERSION}", "-d", work],
                                  capture_output=True, text=True, timeout=TIMEOUT)
        except (OSError, subprocess.TimeoutExpired) as exc:
            say(f"pip download failed: {exc}")
            return None
        sdist = os.path.join(work, f"{PACKAGE}-{VERSION}.tar.gz")
        if proc.returncode != 0 or not os.path.exists(sdist):
            say(f"pip download failed: {(proc.stderr or proc.stdout).strip()[-300:]}")
            return None
        with open(sdist, "rb") as fh:
            digest = hashlib.sha256(fh.read()).hexdigest()
        if digest != SHA256:
            say(f"{sdist}: sha256 {digest} is not the expected {SHA256}")
            return None
        staging = tree + ".tmp"
        shutil.rmtree(staging, ignore_errors=True)
        with tarfile.open(sdist) as tar:
            for member in tar.getmembers():
                rel = member.name.split("/", 1)[1] if "/" in member.name else ""
                target = destination(rel) if member.isfile() else None
                if rel == "LICENSE.txt":
                    target = "LICENSE.txt"
                if target is None:
                    continue
                data = tar.extractfile(member)
                if data is None:
                    continue
                path = os.path.join(staging, *target.split("/"))
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "wb") as out:
                    out.write(data.read())
        os.makedirs(os.path.dirname(tree), exist_ok=True)
        os.replace(staging, tree)
    return tree
