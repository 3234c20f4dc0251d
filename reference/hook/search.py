"""When a search showed a doc's content, rather than only its name, a number or a message.

A search is evidence of reading only when its output carries text from the doc:

- it did not run in a count mode or a files-only mode (``-c``, ``--count``, ``-l``, output mode
  ``count`` or ``files_with_matches``): those print numbers or names;
- an output line belongs to the doc: it starts with the doc's path and ``:`` (``path:line:text``,
  the form every grep prints for several files), or it follows a line that is only ``path:`` and is
  indented under it (a tool that groups matches by file), or the search's one input was the doc (a
  search of a single file prints ``line:text`` without the path, or with a path that names that
  file, as Pi's grep prints its base name: ``redis-timeout.md:5:text``);
- and what that line shows, once the path, the line number (``12:``, ``12-``, ``Line 12:``) and a
  truncation mark at its end (``...``, ``…``, ``[truncated]``) are taken off, is text from the doc:
  a non-empty part of one of its lines. The hook reads the doc to tell (a regular file of at most
  :data:`MAX_DOC_BYTES`, under the knowledge roots; ``locate`` says where it is).

So a tool that reports success but prints "No matches found" (Pi), "No files found" (OpenCode) or
any other message shows nothing from the doc, whatever the agent: the rule is about the text, not
about a list of messages. A line holding only a path is a listing, structured file-name lists
(``filenames[]``) are listings too, and context lines (``path-12-text``) never count on their own.

When the doc cannot be read (no base folder is known and the path is kept for the suffix match,
the file is gone, unreadable, not a regular file or too large), only the form can decide: a line
that starts with the doc's path and carries text after its prefixes counts, since a message does
not begin with the path of a file it found nothing in; output that does not name the path (the
single-file form) does not, since it cannot be told from a message.
"""

from __future__ import annotations

import os
import re
import stat

from .. import pathmatch

TYPE_CHECKING = False  # typing is imported only by type checkers: it costs a fresh process ~4 ms
if TYPE_CHECKING:
    from collections.abc import Callable

# A doc larger than this is not read (treated as unreadable): knowledge docs are a few KiB.
MAX_DOC_BYTES = 1 << 20
# At most this many output lines are weighed per doc; one line from the doc is enough.
MAX_LINES = 2000

_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_PATH_LINE = re.compile(r"^(.+?\.md):(.*)$", re.IGNORECASE | re.MULTILINE)
_DRIVE_PREFIX = re.compile(r"^[A-Za-z]:")
_NUMBER = re.compile(r"^\s*(?:[-*]\s*)?(?:line\s+)?\d+\s*[:-]\s?", re.IGNORECASE)
_TRUNCATED = re.compile(r"\s*(?:\[[^\]]*\]|\.\.\.|…)\s*$")


def _plausible(candidate: str) -> bool:
    """Reject what only looks like a path: text after a ``line:`` prefix, or a sentence."""
    rest = candidate[2:] if _DRIVE_PREFIX.match(candidate) else candidate
    return ":" not in rest and ": " not in candidate and candidate.strip() == candidate


def fragment(line: str) -> str:
    """What an output line shows of a file once its line-number prefixes and a truncation mark at its
    end are taken off (the path, if any, is already gone)."""
    text = line
    for _ in range(3):  # 12:  and  12:7:  (--column)
        m = _NUMBER.match(text)
        if not m:
            break
        text = text[m.end():]
    text = text.strip()
    for _ in range(3):  # "... [truncated]"
        cut = _TRUNCATED.sub("", text)
        if cut == text:
            break
        text = cut
    return text.strip()


def _read(path: str) -> str | None:
    """The doc's text, or None when it is not a small regular file that can be read."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))  # a FIFO must not block the hook
    except (OSError, ValueError):
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_DOC_BYTES:
            return None
        chunks = []
        size = 0
        while size <= MAX_DOC_BYTES:
            chunk = os.read(fd, MAX_DOC_BYTES + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > MAX_DOC_BYTES:
            return None
    except OSError:
        return None
    finally:
        os.close(fd)
    return b"".join(chunks).decode("utf-8", "replace")


def _groups(text: str) -> dict[str, list[str]]:
    """Output lines by the path they belong to (``path:`` lines and the lines indented under a heading
    ``path:``), as fragments; in the order the paths first appear."""
    groups: dict[str, list[str]] = {}
    for m in _PATH_LINE.finditer(text):
        candidate, rest = m.group(1), m.group(2)
        if not _plausible(candidate):
            continue
        lines = groups.setdefault(candidate, [])
        if rest.strip():
            lines.append(fragment(rest))
            continue
        following = text[m.end() + 1:].split("\n", MAX_LINES)[:MAX_LINES]
        for line in following:  # a heading: the indented lines under it are its matches
            if not line[:1].isspace() or not line.strip():
                break
            lines.append(fragment(line))
    return groups


def _names(raw: str, single: str) -> bool:
    """Whether a path as an output line writes it names the one file a search ran on: the same
    path, or its trailing part (a base name, or a path relative to a folder above it)."""
    raw, single = raw.replace("\\", "/"), single.replace("\\", "/")
    return raw == single or single.endswith("/" + raw.lstrip("./"))


def shown(output: str, input_paths: tuple[str, ...], mode: str,
          locate: Callable[[str], str | None] | None = None) -> list[tuple[str, str]]:
    """The paths (as written) whose content the output shows, each with the rule that found it.
    ``locate`` gives the file to read for a path as written (None: it cannot be read)."""
    if mode != "content" or not output.strip():
        return []
    text = _ANSI.sub("", output) if "\x1b" in output else output
    if "\r" in text:
        text = text.replace("\r\n", "\n")

    def doc(raw: str) -> str | None:
        path = locate(raw) if locate is not None else None
        return _read(path) if path else None

    def from_doc(content: str, fragments: list[str]) -> bool:
        content = content.replace("\r\n", "\n")
        return any(f and "\n" not in f and f in content for f in fragments[:MAX_LINES])

    found: list[tuple[str, str]] = []
    groups = _groups(text)
    single = input_paths[0] if len(input_paths) == 1 and pathmatch.is_markdown(input_paths[0]) else None
    if single is not None:
        lines = [fragment(line) for line in text.split("\n", MAX_LINES)[:MAX_LINES]]
        # a tool that names the one file it searched before each match (Pi: ``name.md:5: text``)
        lines += [f for raw, fragments in groups.items() if _names(raw, single) for f in fragments]
        content = doc(single)
        if content is not None and from_doc(content, lines):
            found.append((single, "the search ran on this one file and printed text from it"))
    for raw, fragments in groups.items():
        if any(raw == path for path, _ in found) or (single is not None and _names(raw, single)):
            continue
        content = doc(raw)
        if content is None:
            if any(fragments):
                found.append((raw, "an output line starts with this path and ':' and shows text (the file "
                                   "could not be read to compare)"))
        elif from_doc(content, fragments):
            found.append((raw, "an output line starts with this path and ':' and shows text from it"))
    return found
