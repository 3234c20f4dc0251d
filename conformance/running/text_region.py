"""Where in a command's output an expected text comes closest, so a miss shows a diff against
those lines and not the whole output."""

from __future__ import annotations

from difflib import SequenceMatcher

MAX_LINES = 5000  # an output longer than this is searched in its first lines only


def closest(expected: str, text: str) -> tuple[str, int, int]:
    """(the lines of ``text`` most like ``expected``, first line number, last line number), as
    many lines as ``expected`` has; ``("", 0, 0)`` when ``text`` is empty."""
    lines = text.splitlines()[:MAX_LINES]
    if not lines:
        return "", 0, 0
    want = "\n".join(expected.splitlines() or [expected])
    size = min(len(lines), max(1, len(expected.splitlines())))
    best, at = -1.0, 0
    for i in range(len(lines) - size + 1):
        matcher = SequenceMatcher(None, want, "\n".join(lines[i:i + size]), autojunk=False)
        if matcher.real_quick_ratio() <= best or matcher.quick_ratio() <= best:
            continue
        ratio = matcher.ratio()
        if ratio > best:
            best, at = ratio, i
    return "\n".join(lines[at:at + size]), at + 1, at + size
