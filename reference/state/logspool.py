"""Lines a hook could not append because the recall log stayed locked: kept aside, folded in later.

The log's lock guards its rewrite (``pull``'s prune reads the log and replaces it, so an append
meanwhile would be lost); appends themselves are single ``O_APPEND`` writes. Its legitimate holders
keep it for an append or one prune of at most ``retention.MAX_LINES`` lines: milliseconds. A hook
runs on every tool call and must neither hold up the agent nor lose the call, so it waits at most
:data:`HOOK_WAIT` for the lock; past that, the holder is stuck (a stopped or hung process), and the
hook's bytes go to a file of their own in ``<log>.spool/`` instead, written whole under a temporary
name and renamed, so a spool file is either complete or not there. The next process that holds the
lock (any append, a prune) folds every complete spool file into the log, oldest first, before it
writes, and a Stop or pull folds it before it reads the log: one ``listdir`` that fails when there
is no spool, so the common case costs one call. A spooled call is recorded, not lost, so it leaves
no debug line; files that stay in the spool mean a holder that is stuck.

Folding renames a file to note the log's size, appends it and removes it; after a crash the next
fold reads the log at that offset to tell whether the append happened, so no line is written
twice and none is lost. The spooled lines reach the log later than their ``ts``: the reducer already takes
lines out of order (a new line reaching back past the checkpoint makes a Stop read the whole log).
A temporary file older than :data:`STALE_TMP` seconds belongs to a hook that died while writing
it (its call was never recorded, as before) and is removed.

The hook's wait is :data:`HOOK_WAIT` or ``TEAMAI_LOCK_WAIT`` when that is shorter. The writers that
fold are ``runlog.append``, ``retention.prune`` and the hook; a Stop and ``pull`` fold before they
read (:func:`fold_waiting`). Recall does not spool: it keeps the usual bounded wait and, past it,
prints its hits without a run id (scenario ``recall-busy-log-prints-without-run-id``).
``tests/hook/test_lock_spool.py`` holds all of it.
"""

from __future__ import annotations

import os
import time

from .storage import Busy, append_bytes, locked, read_unlinked

# Seconds a hook waits for the log's lock before it spools: well past what a holder that is working
# keeps it (an append, a prune's read and rewrite: milliseconds, plus being descheduled for a while
# on a loaded machine, where sixteen hooks at once kept one another waiting past 50 ms), and short
# enough that an agent's tool call is not held up noticeably when the holder is stuck.
HOOK_WAIT = 0.25
STALE_TMP = 3600.0
_SUFFIX, _TMP, _AT = ".jsonl", ".tmp", ".at-"


def folder(log_path: str) -> str:
    return log_path + ".spool"


def fold(log_path: str) -> int:
    """Append every complete spool file to the log, oldest first, and remove it; the caller holds
    the log's lock. Returns the number of files folded.

    Each file is first renamed to record the log's size before its append (``<name>.at-<size>``),
    then appended, then removed; a fold that died on the way left that name, and the bytes at that
    offset say whether its append happened, so the next fold finishes it exactly: never a second
    copy, never a line dropped (not even one that happens to repeat the log's last line)."""
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
        base, _, at = name.partition(_AT)
        if not base.endswith(_SUFFIX) or (at and not at.isdigit()):
            continue
        data = read_unlinked(path)
        if data is None:
            continue
        if data:
            data = data if data.endswith(b"\n") else data + b"\n"
            if not at:  # a new file: say where its bytes will start, then append them
                offset = _size(log_path)
                os.rename(path, f"{path}{_AT}{offset}")
                path = f"{path}{_AT}{offset}"
                append_bytes(log_path, data)
            elif not _holds(log_path, int(at), data):  # a fold died before this append
                append_bytes(log_path, data)
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


def fold_waiting(log_path: str, lock_path: str, wait: float) -> None:
    """Fold the spool in, if there is one, before the log is read (a Stop, a pull): a read kept
    aside is then reduced with the rest. When the lock stays held it stays spooled."""
    try:
        if not os.listdir(folder(log_path)):
            return
    except OSError:
        return
    try:
        with locked(lock_path, "the recall log", wait):
            fold(log_path)
    except Busy:
        pass


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


def _size(log_path: str) -> int:
    try:
        return os.stat(log_path).st_size
    except FileNotFoundError:
        return 0


def _holds(log_path: str, offset: int, data: bytes) -> bool:
    """Whether the log holds ``data`` at ``offset`` (the append of a fold that died happened)."""
    try:
        fd = os.open(log_path, os.O_RDONLY)
    except OSError:
        return False
    try:
        return os.pread(fd, len(data), offset) == data
    finally:
        os.close(fd)


def _drop_stale(path: str) -> None:
    try:
        if time.time() - os.lstat(path).st_mtime > STALE_TMP:
            os.unlink(path)
    except OSError:
        pass
