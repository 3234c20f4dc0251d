"""Every write of shared state goes through here: an exclusive lock with a bounded wait, a single
``write(2)`` for appends, and temp-file-and-rename for whole files. Files are created 0600.

Why one module: the log and the ledger are written by many short processes at once (hooks,
recalls, reducers). Torn lines or half-written ledgers are exactly the bugs a conformance suite
must never have to explain away.
"""

from __future__ import annotations

import errno
import fcntl
import os
import time

TYPE_CHECKING = False  # collections.abc costs a fresh process (a hook) ~2 ms
if TYPE_CHECKING:
    from collections.abc import Mapping

DEFAULT_LOCK_WAIT = 10.0


class Busy(RuntimeError):
    """The lock stayed held for the whole bounded wait."""

    def __init__(self, what: str, path: str, waited: float) -> None:
        super().__init__(f"{what} is busy: {path} stayed locked for {waited:g}s; try again")
        self.what = what
        self.path = path


def ensure_dir(path: str) -> None:
    """Create ``path`` and every missing folder above it 0700 (``os.makedirs`` gives its mode only
    to the last folder, so the state home and ``workspaces/`` came out 0755); folders that already
    exist keep their mode."""
    missing: list[str] = []
    here = os.path.abspath(path)
    while not os.path.isdir(here):
        missing.append(here)
        parent = os.path.dirname(here)
        if parent == here:
            break
        here = parent
    for folder in reversed(missing):
        try:
            os.mkdir(folder, 0o700)
        except FileExistsError:
            pass


class locked:  # noqa: N801 - used as a function: ``with locked(path, what, wait):``
    """Hold ``lock_path`` exclusively, polling up to ``wait`` seconds, else raise :class:`Busy`.

    A class rather than a ``contextlib`` generator: ``contextlib`` costs a fresh process (every
    Stop) about as much as reading the log."""

    __slots__ = ("lock_path", "what", "wait", "fd")

    def __init__(self, lock_path: str, what: str, wait: float = DEFAULT_LOCK_WAIT) -> None:
        self.lock_path, self.what, self.wait = lock_path, what, wait
        self.fd = -1

    def __enter__(self) -> None:
        fd = open_creating(self.lock_path, os.O_RDWR)
        try:
            deadline = time.monotonic() + max(self.wait, 0.0)
            delay = 0.002
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except OSError as exc:
                    if exc.errno not in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                        raise
                    if time.monotonic() >= deadline:
                        raise Busy(self.what, self.lock_path, self.wait) from None
                    time.sleep(delay)
                    delay = min(delay * 2, 0.05)
        except BaseException:
            os.close(fd)
            raise
        self.fd = fd

    def __exit__(self, *exc: object) -> None:
        fd, self.fd = self.fd, -1
        try:
            fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)


def open_creating(path: str, flags: int) -> int:
    """``os.open`` with ``O_CREAT`` (mode 0600), creating the missing folders above ``path`` (as
    :func:`ensure_dir` does) only when the open says they are missing: a hook that appends to a
    log whose folder exists pays no look at the folder first."""
    try:
        return os.open(path, flags | os.O_CREAT, 0o600)
    except FileNotFoundError:
        ensure_dir(os.path.dirname(path))
        return os.open(path, flags | os.O_CREAT, 0o600)


def append_bytes(path: str, data: bytes) -> None:
    """Append ``data`` in one write on an O_APPEND descriptor (the caller holds the lock), creating
    the file and the folders above it when missing."""
    fd = open_creating(path, os.O_WRONLY | os.O_APPEND)
    try:
        view = memoryview(data)
        while view:
            written = os.write(fd, view)
            view = view[written:]
    finally:
        os.close(fd)


def write_at(fd: int, data: bytes, at: int) -> None:
    """Write ``data`` at byte ``at`` of an open file, for files whose reader counts the bytes it
    trusts (a header's lengths, the last whole line): what lies past them is never read, so a
    write cut short is only not there yet."""
    done = 0
    while done < len(data):
        done += os.pwrite(fd, data[done:], at + done)


def write_after(path: str, at: int, data: bytes, durable: bool = True) -> None:
    """Cut ``path`` at byte ``at`` and write ``data`` there (the caller holds the lock): an append
    that first drops what a write cut short left past the last whole line."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        os.ftruncate(fd, at)
        write_at(fd, data, at)
        if durable:
            os.fsync(fd)
    finally:
        os.close(fd)


def write_atomic(path: str, data: bytes, durable: bool = True) -> None:
    """Replace ``path`` with ``data`` so a reader sees the old file or the new one, never half.

    ``durable=False`` skips the fsync, for derived files (the reducer's checkpoint) that a reader
    checks and rebuilds when they do not match: after a power cut they may be empty, never wrong.
    """
    directory = os.path.dirname(path) or "."
    ensure_dir(directory)
    tmp = f"{path}.tmp-{os.getpid()}"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        if durable:
            os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)


def lock_wait(env: Mapping[str, str]) -> float:
    """Bounded wait for locks; ``TEAMAI_LOCK_WAIT`` (seconds) shortens it for tests."""
    raw = env.get("TEAMAI_LOCK_WAIT")
    if raw:
        try:
            return max(0.0, float(raw))
        except ValueError:
            pass
    return DEFAULT_LOCK_WAIT


def utf8(text: str) -> bytes:
    """Text as the state's JSON files spell it (the recall log, the per-session ledger, the
    reducer's checkpoint). A log line may escape a lone surrogate (a file name that is not UTF-8,
    as Python's ``json`` writes one); decoding gives the surrogate back, which has no UTF-8 form,
    so it is spelt as the JSON escape it came from rather than stop the writer or the reducer."""
    return text.encode("utf-8", "backslashreplace")
