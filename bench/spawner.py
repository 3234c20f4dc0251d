"""Starts the bench's samples from a small process, run as ``python -I -S spawner.py``.

Linux records, at exec, the peak memory of the image being replaced, and a child forked from the
bench carries the bench's own (tens to hundreds of MB once it has read an index): every sample
would weigh at least that much. A child forked from this small process starts from a few MB, so
the max RSS that ``wait4`` returns is the sample's own.

Protocol on stdin/stdout, one request at a time: a 4-byte little-endian length, then a ``marshal``
of ``(argv, env, cwd, (stdin_path, stdout_path, stderr_path))``; the answer is framed the same
way, ``(milliseconds, exit_code, max_rss_kb)``, timed from just before the fork to the reaping.
Only built-in modules are imported, to stay small.
"""

from __future__ import annotations

import marshal
import os
import sys
import time

CANNOT_START = 127


def _child(argv: list[str], env: dict[str, str], cwd: str | None, paths: tuple[str, str, str]) -> None:
    try:
        for fd, (path, flags) in enumerate(((paths[0], os.O_RDONLY),
                                            (paths[1], os.O_WRONLY | os.O_TRUNC),
                                            (paths[2], os.O_WRONLY | os.O_TRUNC))):
            opened = os.open(path, flags)
            os.dup2(opened, fd)
            os.close(opened)
        if cwd:
            os.chdir(cwd)
        os.execvpe(argv[0], argv, env)
    except BaseException as exc:  # noqa: BLE001 - anything here means the command never started
        os.write(2, f"cannot start {argv[0]}: {exc}\n".encode())
    os._exit(CANNOT_START)


def main() -> None:
    inp, out = sys.stdin.buffer, sys.stdout.buffer
    while True:
        head = inp.read(4)
        if len(head) < 4:
            return
        argv, env, cwd, paths = marshal.loads(inp.read(int.from_bytes(head, "little")))
        start = time.perf_counter()
        pid = os.fork()
        if pid == 0:
            _child(argv, env, cwd, paths)
        _, status, usage = os.wait4(pid, 0)
        ms = (time.perf_counter() - start) * 1000
        reply = marshal.dumps((ms, os.waitstatus_to_exitcode(status), usage.ru_maxrss))
        out.write(len(reply).to_bytes(4, "little") + reply)
        out.flush()


if __name__ == "__main__":
    main()
