"""A path's real form (every symbolic link followed), asked of the kernel where it can answer.

Every hook event resolves the state home, the team folder and the path its tool named. Python's
``os.path.realpath`` (3.11) walks a path one component at a time, an ``lstat`` and a little string
work each; under a deep temporary folder that walk was nearly half of what an event cost. On Linux
the kernel already knows the answer: open the path without reading it (``O_PATH``, which needs
only the right to search its folders) and read back the name of the open file from
``/proc/self/fd``. One call answers for the whole path.

Only an answer that means what ``os.path.realpath`` means is taken: a path that does not exist, a
dangling or looping link, a name the kernel marks as gone, no ``/proc``, another system: each is
left to ``os.path.realpath``, so the result never depends on which way was taken
(``tests/test_realpath.py``).

Every path that is compared or keyed is made real here: the state home, team folders and
learnings roots (``team/config.py``, which also owns the one exception, a Windows team folder on a
POSIX host), a tool's path (``pathmatch.resolve``), ``--team`` in ``hook/command.py``, and review's
repository.
"""

from __future__ import annotations

import os

_O_PATH = getattr(os, "O_PATH", 0)
_FDS = "/proc/self/fd/"
_GONE = " (deleted)"
_KERNEL = bool(_O_PATH) and os.sep == "/" and os.path.isdir(_FDS)


def realpath(path: str) -> str:
    """``os.path.realpath(path)``, by one question to the kernel when the path exists."""
    if _KERNEL and path:
        try:
            fd = os.open(path, _O_PATH | os.O_CLOEXEC)
        except (OSError, ValueError):  # missing, a dangling link, a loop, a NUL in the name
            return os.path.realpath(path)
        try:
            answer = os.readlink(f"{_FDS}{fd}")
        except OSError:
            answer = ""
        finally:
            os.close(fd)
        if answer.startswith("/") and not answer.endswith(_GONE):
            return answer
    return os.path.realpath(path)
