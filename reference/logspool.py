"""Lines a hook could not append because the recall log stayed locked: kept aside, folded in later.

The log's lock guards its rewrite (``pull``'s prune reads the log and replaces it, so an append
meanwhile would be lost); appends themselves are single ``O_APPEND`` writes. Its legitimate holders
keep it for an append or one prune of at most ``retention.MAX_LINES`` lines: milliseconds. A hook
runs on every tool call and must neither hold up the agent nor lose the call, so it waits at most
:data:`HOOK_WAIT` for the lock; past that, the holder is stuck (a stopped or hung process), and the
hook's bytes go to a file of their own in ``<log>.spool/`` instead, written whole under a temporary
name and renamed, so a spool file is either complete or not there. The next process that holds the
lock (any append, a prune) folds every complete spool file into the log, oldest first, before it
writes: one ``listdir`` that fails when there is no spool, so the common case costs one call.

Folding is one append and one unlink per file. A crash between the two leaves a file whose bytes
already end the log; the next fold sees that and only unlinks it, so no line is written twice and
none is lost. The spooled lines reach the log later than their ``ts``: the reducer already takes
lines out of order (a new line reaching back past the checkpoint makes a Stop read the whole log).
A temporary file older than :data:`STALE_TMP` seconds belongs to a hook that died while writing
it (its call was never recorded, as before) and is removed.
"""

from __future__ import annotations

import os
import time

from .storage import Busy, append_bytes, locked

HOOK_WAIT = 0.05  # seconds a hook waits for the log's lock before it spools
STALE_TMP = 3600.0
_SUFFIX, _TMP = ".jsonl", ".tmp"


def folder(log_path: str) -> str:
    return log_path + ".spool"


def fold(log_path: str) -> int:
    """Append every complete spool file to the log, oldest first, and remove it; the caller holds
    the log's lock. Returns the number of files folded."""
    where = folder(log_path)
    try:
        names = os.listdir(where)
    except OSError:  # no spool (the common case), or one this process cannot read
        return 0
    done = 0
    for name in sorted(names):
        path = os.path.join(where, name)
        if name.endswith(_TMP):
            _drop_stale(path)
            continue
        if not name.endswith(_SUFFIX):
            continue
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
        except OSError:
            continue
        try:
            data = _read_all(fd)
        finally:
            os.close(fd)
        if data and not _ends_with(log_path, data):
            append_bytes(log_path, data if data.endswith(b"\n") else data + b"\n")
        os.unlink(path)
        done += 1
    return done


def spool(log_path: str, data: bytes) -> str:
    """Keep ``data`` (whole lines) aside for the next writer; returns the spool file's path."""
    where = folder(log_path)
    try:
        os.mkdir(where, 0o700)
    except FileExistsError:
        pass
    base = os.path.join(where, f"{time.time_ns():020d}-{os.getpid()}-{os.urandom(6).hex()}")
    fd = os.open(base + _TMP, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)
    os.rename(base + _TMP, base + _SUFFIX)
    return base + _SUFFIX


def append_or_spool(log_path: str, lock_path: str, data: bytes, wait: float) -> bool:
    """Append ``data`` under the log's lock (folding the spool first), waiting at most ``wait``;
    when the lock stays held, spool it. True when it reached the log itself."""
    if not data:
        return True
    try:
        with locked(lock_path, "the recall log", wait):
            fold(log_path)
            append_bytes(log_path, data)
        return True
    except Busy:
        spool(log_path, data)
        return False


def _read_all(fd: int) -> bytes:
    parts = []
    while chunk := os.read(fd, 1 << 20):
        parts.append(chunk)
    return b"".join(parts)


def _ends_with(log_path: str, data: bytes) -> bool:
    """Whether the log's last bytes are ``data`` (a fold that appended it and died before the unlink)."""
    try:
        fd = os.open(log_path, os.O_RDONLY)
    except OSError:
        return False
    try:
        size = os.fstat(fd).st_size
        want = data if data.endswith(b"\n") else data + b"\n"
        return size >= len(want) and os.pread(fd, len(want), size - len(want)) == want
    finally:
        os.close(fd)


def _drop_stale(path: str) -> None:
    try:
        if time.time() - os.lstat(path).st_mtime > STALE_TMP:
            os.unlink(path)
    except OSError:
        pass
