"""``teamai-ref contribute --file F --title T``: publish a learning, warning about its relations.

A learning is published without review, so the relations check only warns here: the file is
published whatever it declares, and the index later keeps only the declarations the vocabulary
table allows. A target exists if it is an asset of the active scope on disk: a rule, doc, skill
or teamwiki page of the team tree, or a learning in one of the learnings roots.

The file goes into the first learnings root of the active scope, named
``<slug of the title>-<YYYY-MM-DD>-<6 hex of the content's SHA-256>.md`` (the date from the one
clock). An existing file is never overwritten. The title given becomes the ``title:`` of the
frontmatter when the file has none; nothing else of the file changes.

Frontmatter that cannot be read (not YAML, not a mapping, no closing ``---``) is published too,
as written, with a ``⚠ frontmatter:`` warning: contribute only warns, as it does for
relations (the spec has contribute warn and still publish), and teamai's own contribute publishes
such a file as it is; refusing would lose an agent's learning at the end of its session, while the
index already copes with such a file. It is left unedited
because a line added to a block that does not parse could change what the block means once it
is fixed; until then the index reads its body (and titles it from a heading or its file name).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import tempfile
from typing import TYPE_CHECKING

from .. import bounded
from ..relations import check, paths
from ..state.clock import now
from ..team import config, frontmatter, tree

if TYPE_CHECKING:
    from ..streams import Io

SLUG_CHARS = 60
_TITLE_LINE = re.compile(r"^title[ \t]*:.*$", re.MULTILINE)


class ContributeError(Exception):
    """The file cannot be published; nothing was written."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--file", required=True, metavar="F", help="the learning to publish (Markdown)")
    parser.add_argument("--title", required=True, metavar="T", help="its title")


def slug(title: str) -> str:
    words = re.sub(r"[\W_]+", "-", title.lower()).strip("-")
    short = words[:SLUG_CHARS].rstrip("-")
    return short or "learning"


def with_title(text: str, title: str) -> str:
    """``text`` with ``title:`` set in its frontmatter when it has no usable title (a frontmatter
    that cannot be read is left as it is)."""
    parsed = frontmatter.split(text)
    if parsed.problem:
        return text
    if frontmatter.text_field(parsed.meta, "title") is not None:
        return text
    line = "title: " + json.dumps(title, ensure_ascii=False)
    lines = text.split("\n")
    if lines[0].strip() != "---":
        return f"---\n{line}\n---\n{text}"
    close = next(i for i in range(1, len(lines)) if lines[i].rstrip() in ("---", "..."))
    for i in range(1, close):
        if "title" in parsed.meta and _TITLE_LINE.match(lines[i]):
            lines[i] = line  # an empty ``title:`` is replaced, never duplicated
            break
    else:
        lines.insert(1, line)
    return "\n".join(lines)


def _publish(root: str, name: str, data: bytes) -> str:
    """Write ``root/name`` only if it does not exist yet (a hard link from a temporary file)."""
    os.makedirs(root, exist_ok=True)
    final = os.path.join(root, name)
    fd, tmp = tempfile.mkstemp(prefix=".contribute-", dir=root)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o644)
        try:
            os.link(tmp, final)
        except FileExistsError as exc:
            raise ContributeError(f"{final} already exists; nothing was written") from exc
    finally:
        os.unlink(tmp)
    return final


def run(args: argparse.Namespace, io: Io) -> int:
    from ..cli import EXIT_INPUT, EXIT_OK, EXIT_USAGE

    title = " ".join(str(args.title).split())
    if not title:
        io.error("the title is empty; give the learning a title with --title")
        return EXIT_USAGE
    if not tree.utf8(title):  # bytes the terminal's encoding could not read: the learning's name and frontmatter
        io.error(f"the title {tree.shown(title)} is not UTF-8 text; give it again as UTF-8")
        return EXIT_USAGE
    cfg = config.load(io.env, args.team, args.user_team)
    scope = cfg.active
    problem = config.team_problem(scope.team)
    if problem:
        raise config.ConfigError(problem)
    if not tree.utf8(scope.learnings_roots[0]):  # recall's walk leaves it out: the learning would never be found
        io.error(f"the learnings root {tree.shown(scope.learnings_roots[0])} has a path that is not UTF-8, so"
                 " recall cannot find what it holds; rename it; nothing was published")
        return EXIT_INPUT
    try:
        text = with_title(frontmatter.decode(bounded.read_file(args.file, bounded.LEARNING)), title)
    except OSError as exc:
        io.error(f"{args.file}: cannot be read ({exc.strerror}); nothing was published")
        return EXIT_INPUT
    except bounded.TooLarge as exc:
        io.error(f"{args.file}: {exc}, too large for a learning; nothing was published")
        return EXIT_INPUT
    except UnicodeDecodeError:
        io.error(f"{args.file}: not UTF-8 text; save it as UTF-8 and contribute again")
        return EXIT_INPUT
    problem = frontmatter.split(text).problem
    data = text.encode("utf-8")
    name = f"{slug(title)}-{now(io.env).date().isoformat()}-{hashlib.sha256(data).hexdigest()[:6]}"
    present = {a.tree_path for a in tree.walk(scope.team, scope.learnings_roots)}

    def exists(target: paths.Target) -> bool:
        return target.tree_path in present

    found = check.findings(tree.LEARNING, f"learnings/{name}", text, exists, "names no team asset")
    try:
        path = _publish(scope.learnings_roots[0], name + ".md", data)
    except ContributeError as exc:
        io.error(str(exc))
        return EXIT_INPUT
    except OSError as exc:
        io.error(f"{scope.learnings_roots[0]}: cannot write the learning ({exc.strerror}); nothing was published")
        return EXIT_INPUT
    if problem:
        io.stdout.write(f"⚠ frontmatter: {problem}; published as written, so its title, tags and related: "
                        "are not read until the frontmatter is fixed\n")
    for finding in found:
        io.stdout.write(f"⚠ related: {finding.contribute_text()}\n")
    io.stdout.write(f"Published learnings/{name} to {path}\n")
    return EXIT_OK
