"""When a search showed a doc's content, rather than only its name.

A search is evidence of reading only when its output carries text from the doc:

- it did not run in a count mode or a files-only mode (``-c``, ``--count``, ``-l``, output mode
  ``count`` or ``files_with_matches``): those print numbers or names;
- either its one input path is the doc and it printed something (a search of a single file prints
  ``line:text`` without the path), or an output line starts with the doc's path followed by ``:``
  (``path:line:text``, the form every grep prints for several files).

A line holding only a path is a listing, and structured file-name lists (``filenames[]``) are
listings too: neither counts. Context lines (``path-12-text``) do not count on their own either.
"""

from __future__ import annotations

import re

from .. import pathmatch

_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_LINE = re.compile(r"^(.+?\.md):", re.IGNORECASE | re.MULTILINE)
_DRIVE_PREFIX = re.compile(r"^[A-Za-z]:")


def _plausible(candidate: str) -> bool:
    """Reject what only looks like a path: text after a ``line:`` prefix, or a sentence."""
    rest = candidate[2:] if _DRIVE_PREFIX.match(candidate) else candidate
    return ":" not in rest and ": " not in candidate and candidate.strip() == candidate


def shown(output: str, input_paths: tuple[str, ...], mode: str) -> list[tuple[str, str]]:
    """The paths (as written) whose content the output shows, each with the rule that found it."""
    if mode != "content":
        return []
    found: list[tuple[str, str]] = []
    text = _ANSI.sub("", output) if "\x1b" in output else output
    if len(input_paths) == 1 and pathmatch.is_markdown(input_paths[0]) and text.strip():
        found.append((input_paths[0], "the search ran on this one file and printed matches"))
    for m in _LINE.finditer(text):
        candidate = m.group(1)
        if _plausible(candidate):
            found.append((candidate, "an output line starts with this path and ':'"))
    return found
