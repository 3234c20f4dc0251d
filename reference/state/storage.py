"""Every write of shared state goes through here: an exclusive lock with a bounded wait, a single
``write(2)`` for appends, temp-file-and-rename for whole files, and an intent record for writes
to several files that must all land or none. Files are created 0600, folders 0700.

Why one module: the log and the ledgers are written by many short processes at once (hooks,
recalls, reducers). Torn lines, half-written ledgers and files written through a link someone
planted are exactly the bugs a conformance suite must never have to explain away.

The rules every writer here follows:

- **Never through a link.** Files are opened with ``O_NOFOLLOW``; a whole-file write refuses a
  target that is a link; a file with another hard link is refused too. The refusal is an
  ``OSError`` (:class:`Refused`) whose text says what was refused, in one line, so every caller's
  existing handling of a failed write reports it.
- **Temp files are made exclusively, under names nobody can guess** (``<file>.tmp-<16 hex>``,
  ``O_EXCL``), and held under an ``flock`` while they are written: the next writer of the same
  file removes the temps no live process holds (a crashed write's leftovers).
- **An append starts on a fresh line.** A write cut short (a full disk, a killed process) leaves a
  last line without its newline; the next append puts the newline first, so the good line that
  follows is never glued to the torn one (the torn one stays a malformed line, which readers skip
  and count).
- **Faults can be injected** for tests: ``TEAMAI_FAULT=<n>:<before|after>:<kill|enospc>`` (read
  once, from the process environment) makes the n-th write, fsync, truncate, rename or unlink of
  this process kill it (``SIGKILL``) before or after that step, or fail with ``ENOSPC`` (a write
  then lands half its bytes first, as a full disk does); a line on stderr says the point was met.
"""

from __future__ import annotations

import errno
import fcntl
import os
import stat
import time

TYPE_CHECKING = False  # collections.abc costs a fresh process (a hook) ~2 ms
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any

DEFAULT_LOCK_WAIT = 10.0
MAX_LOCK_WAIT = 86400.0  # a day: TEAMAI_LOCK_WAIT beyond it is cut to it
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
TEMP = ".tmp-"  # between a file's name and its temp's random part


class Busy(RuntimeError):
    """The lock stayed held for the whole bounded wait."""

    def __init__(self, what: str, path: str, waited: float) -> None:
        super().__init__(f"{what} is busy: {path} stayed locked for {waited:g}s; try again")
        self.what = what
        self.path = path


class Refused(OSError):
    """A state file that is a link (or has another name): it is never written through."""

    def __init__(self, path: str, why: str) -> None:
        super().__init__(errno.ELOOP, f"{why}; refusing to write through it", path)

    def __str__(self) -> str:
        return f"{self.filename} {self.strerror}"


# --- fault injection (tests) --------------------------------------------------------------------

def _fault_plan(raw: str | None) -> tuple[int, str, str] | None:
    if not raw:
        return None
    try:
        n, when, action = raw.split(":")
        plan = (int(n), when, action)
    except ValueError:
        return None
    return plan if when in ("before", "after") and action in ("kill", "enospc") else None


_FAULT = _fault_plan(os.environ.get("TEAMAI_FAULT"))
_steps = 0


def _step(op: str, fn: Callable[..., Any], *args: Any) -> Any:
    """Run one write, fsync, truncate, rename or unlink, through the fault plan when there is one."""
    if _FAULT is None:
        return fn(*args)
    global _steps
    _steps += 1
    n, when, action = _FAULT
    if _steps == n:
        os.write(2, f"teamai-ref: fault injected {when} {op} {n}\n".encode())
    if _steps == n and when == "before":
        if action == "kill":
            _die()
        if op == "write" and fn is os.write and len(args[1]) > 1:
            os.write(args[0], bytes(args[1][:len(args[1]) // 2]))  # a full disk takes what fits
        elif op == "write" and fn is os.pwrite and len(args[1]) > 1:
            os.pwrite(args[0], bytes(args[1][:len(args[1]) // 2]), args[2])
        raise OSError(errno.ENOSPC, f"injected fault at {op} {n}")
    result = fn(*args)
    if _steps == n and when == "after":
        if action == "kill":
            _die()
        raise OSError(errno.ENOSPC, f"injected fault after {op} {n}")
    return result


def _die() -> None:
    import signal

    os.kill(os.getpid(), signal.SIGKILL)


def _fsync(fd: int) -> None:
    _step("fsync", os.fsync, fd)


def _truncate(fd: int, size: int) -> None:
    _step("truncate", os.ftruncate, fd, size)


def rename(src: str, dst: str) -> None:
    """``os.replace``, counted for fault injection."""
    _step("rename", os.replace, src, dst)


def unlink(path: str) -> None:
    """``os.unlink``, counted for fault injection."""
    _step("unlink", os.unlink, path)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[_step("write", os.write, fd, view):]


# --- folders, locks, opening --------------------------------------------------------------------

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


def _open(path: str, flags: int) -> int:
    try:
        return os.open(path, flags | os.O_CREAT | _NOFOLLOW | _CLOEXEC, 0o600)
    except OSError as exc:
        if exc.errno == errno.ELOOP or (exc.errno == errno.EMLINK and _NOFOLLOW):  # EMLINK: FreeBSD's spelling
            raise Refused(path, "is a symbolic link") from None
        raise


def open_creating(path: str, flags: int) -> int:
    """``os.open`` with ``O_CREAT`` (mode 0600) and ``O_NOFOLLOW``, creating the missing folders
    above ``path`` (as :func:`ensure_dir` does) only when the open says they are missing: a hook
    that appends to a log whose folder exists pays no look at the folder first. A link, something
    that is not a regular file, or a file with another hard link is refused (:class:`Refused`)."""
    try:
        fd = _open(path, flags)
    except FileNotFoundError:
        ensure_dir(os.path.dirname(path))
        fd = _open(path, flags)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise Refused(path, "is not a regular file")
        if st.st_nlink > 1:
            raise Refused(path, "has another hard link")
    except BaseException:
        os.close(fd)
        raise
    return fd


def refuse_link(path: str) -> None:
    """Raise :class:`Refused` when ``path`` is a link (a whole-file write would otherwise replace
    what someone put there on purpose, or a reader would follow it)."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    if stat.S_ISLNK(st.st_mode):
        raise Refused(path, "is a symbolic link")


# --- appends and writes in place ----------------------------------------------------------------

def append_bytes(path: str, data: bytes) -> None:
    """Append ``data`` in one write on an O_APPEND descriptor (the caller holds the lock), creating
    the file and the folders above it when missing; a last line left without its newline (a write
    cut short) gets it first, so ``data`` starts on a line of its own."""
    fd = open_creating(path, os.O_RDWR | os.O_APPEND)
    try:
        size = os.fstat(fd).st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":
            data = b"\n" + data
        _write_all(fd, data)
    finally:
        os.close(fd)


def write_at(fd: int, data: bytes, at: int) -> None:
    """Write ``data`` at byte ``at`` of an open file, for files whose reader counts the bytes it
    trusts (a header's lengths, the last whole line): what lies past them is never read, so a
    write cut short is only not there yet."""
    done = 0
    while done < len(data):
        done += _step("write", os.pwrite, fd, memoryview(data)[done:], at + done)


def truncate(fd: int, size: int) -> None:
    """``os.ftruncate``, counted for fault injection."""
    _truncate(fd, size)


def write_after(path: str, at: int, data: bytes, durable: bool = True) -> None:
    """Cut ``path`` at byte ``at`` and write ``data`` there (the caller holds the lock): an append
    that first drops what a write cut short left past the last whole line (and the temps a
    crashed whole write of the same file left)."""
    sweep(path)
    fd = open_creating(path, os.O_WRONLY)
    try:
        _truncate(fd, at)
        write_at(fd, data, at)
        if durable:
            _fsync(fd)
    finally:
        os.close(fd)


# --- whole files --------------------------------------------------------------------------------

def write_atomic(path: str, data: bytes, durable: bool = True) -> None:
    """Replace ``path`` with ``data`` so a reader sees the old file or the new one, never half.

    The temp file is created exclusively under a name nobody can guess and held under an
    ``flock`` while it is written; temps of ``path`` that no live process holds (a crashed
    write's) are removed first. ``durable=False`` skips the fsync, for derived files (the
    reducer's checkpoint) that a reader checks and rebuilds when they do not match: after a
    power cut they may be empty, never wrong.
    """
    directory = os.path.dirname(path) or "."
    ensure_dir(directory)
    refuse_link(path)
    sweep(path)
    for _attempt in range(3):
        tmp = f"{path}{TEMP}{os.urandom(8).hex()}"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)  # a live write: no sweep takes it away
            _write_all(fd, data)
            if durable:
                _fsync(fd)
            rename(tmp, path)
            return
        except FileNotFoundError:
            continue  # a sweep that raced the flock took it: write it again
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise
        finally:
            os.close(fd)
    raise OSError(errno.EAGAIN, "the temp file kept disappearing", path)


def sweep(path: str, prefix: str | None = None) -> None:
    """Remove the temp files of ``path`` that no live writer holds (a write that crashed), and
    anything else planted under a temp's name (a link is removed, never followed); with
    ``prefix``, the temps of every file of the folder whose name starts with it."""
    folder, base = os.path.split(path)
    try:
        if prefix is None:
            names = [n for n in os.listdir(folder or ".") if n.startswith(base + TEMP)]
        else:
            names = [n for n in os.listdir(folder or ".") if n.startswith(prefix) and TEMP in n]
    except OSError:
        return
    for name in names:
        stale = os.path.join(folder, name)
        try:
            fd = os.open(stale, os.O_RDONLY | _NOFOLLOW | _CLOEXEC | os.O_NONBLOCK)
        except OSError:
            _quiet_unlink(stale)  # a link, or something that is no file of ours
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            continue  # a live write
        finally:
            os.close(fd)
        _quiet_unlink(stale)


def _quiet_unlink(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def fsync_dir(folder: str) -> None:
    """Make a rename in ``folder`` durable (a no-op where folders cannot be opened)."""
    try:
        fd = os.open(folder or ".", os.O_RDONLY | _CLOEXEC)
    except OSError:
        return
    try:
        _fsync(fd)
    except OSError as exc:
        if exc.errno not in (errno.EINVAL, errno.EBADF):
            raise
    finally:
        os.close(fd)


# --- intents: writes to several files that land together ------------------------------------------

_INTENT = b"teamai-intent 1\n"


def intent_path(path: str) -> str:
    """Where the intent of a write of ``path`` (and the files written with it) is recorded."""
    return path + ".intent"


PENDING = ".pending-"  # between a file's name and the name of a change left for its next writer


def pending(path: str, temps: bool = False) -> list[str]:
    """The changes of ``path`` left for its next writer (whole files only, unless ``temps``: then
    also the temps of those a crash left half made), oldest name first."""
    folder, base = os.path.split(path)
    prefix = base + PENDING
    try:
        names = os.listdir(folder or ".")
    except OSError:
        return []
    return sorted(os.path.join(folder, n) for n in names if n.startswith(prefix) and (temps or TEMP not in n))


def unfinished(path: str) -> bool:
    """Whether a write of ``path`` was left to its next writer: an intent a crash left, pending
    changes, or the temp of one."""
    return os.path.lexists(intent_path(path)) or bool(pending(path, temps=True))


def write_intent(path: str, parts: list[bytes]) -> None:
    """Record ``parts`` durably at ``path`` before the writes they describe are made: whoever next
    holds the same lock finds them (:func:`read_intent`) and finishes the writes. The file ends
    with a digest of what precedes it, so a file that is not a whole intent reads as none."""
    body = _INTENT + b" ".join(str(len(p)).encode() for p in parts) + b"\n" + b"".join(parts)
    write_atomic(path, body + _sha256(body) + b"\n")
    fsync_dir(os.path.dirname(path))


def read_unlinked(path: str) -> bytes | None:
    """The whole of a state file, never through a link (None: there is none, or it is a link)."""
    try:
        fd = os.open(path, os.O_RDONLY | _NOFOLLOW | _CLOEXEC)
    except OSError:
        return None
    try:
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
    finally:
        os.close(fd)
    return b"".join(chunks)


def read_intent(path: str) -> list[bytes] | None:
    """The parts of an intent left at ``path`` (None: there is none, or it is not whole)."""
    data = read_unlinked(path)
    if data is None:
        return None
    body, digest = data[:-65], data[-65:-1]
    if not data.endswith(b"\n") or _sha256(body) != digest or not body.startswith(_INTENT):
        return None
    head, newline, rest = body[len(_INTENT):].partition(b"\n")
    try:
        sizes = [int(n) for n in head.split()]
    except ValueError:
        return None
    if not newline or sum(sizes) != len(rest):
        return None
    parts, at = [], 0
    for size in sizes:
        parts.append(rest[at:at + size])
        at += size
    return parts


def _sha256(data: bytes) -> bytes:
    try:
        from _sha256 import sha256  # type: ignore[import-not-found]
    except ImportError:  # pragma: no cover - CPython builds _sha256
        from hashlib import sha256
    return sha256(data).hexdigest().encode()


def lock_wait(env: Mapping[str, str]) -> float:
    """Bounded wait for locks; ``TEAMAI_LOCK_WAIT`` (seconds) shortens it for tests. A value that
    is no number of seconds (``abc``, ``nan``, ``inf``) is ignored; one past :data:`MAX_LOCK_WAIT`
    is cut to it (an endless wait is no bound, and SQLite's busy timeout is an ``int`` of ms)."""
    raw = env.get("TEAMAI_LOCK_WAIT")
    if raw:
        try:
            value = float(raw)
        except ValueError:
            return DEFAULT_LOCK_WAIT
        if value == value and value != float("inf"):  # not nan, not inf
            return min(MAX_LOCK_WAIT, max(0.0, value))
    return DEFAULT_LOCK_WAIT


def utf8(text: str) -> bytes:
    """Text as the state's JSON files spell it (the recall log, the per-session ledger, the
    reducer's checkpoint). A log line may escape a lone surrogate (a file name that is not UTF-8,
    as Python's ``json`` writes one); decoding gives the surrogate back, which has no UTF-8 form,
    so it is spelt as the JSON escape it came from rather than stop the writer or the reducer."""
    return text.encode("utf-8", "backslashreplace")
