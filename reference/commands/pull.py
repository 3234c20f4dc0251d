"""``teamai-ref pull``: settle every session's reads, then prune the recall log.

The reducer credits whatever is pending, for every session, so pull drains the sessions whose Stop
never came and those whose Stop found the votes ledger busy; it reads the log through the
checkpoint the last Stop left when that still matches. Pruning runs only here, after the reducer,
so it sees the consumed lines the reducer has just written, and it leaves a fresh checkpoint.
Exit 4 when the votes ledger was busy (the reads stay pending for the next Stop or pull).
"""

from __future__ import annotations

import argparse

from .. import reducer
from ..cli import EXIT_BUSY, EXIT_OK, _load_config
from ..state import logspool, retention
from ..state.storage import lock_wait
from ..streams import Io


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = "Credit the upvotes the recall log has earned, then prune the log."


def run(args: argparse.Namespace, io: Io) -> int:
    cfg = _load_config(args, io, reads_tree=False)
    logspool.fold_waiting(cfg.active.log_path, cfg.active.log_lock, lock_wait(io.env))  # reads a hook spooled
    reduced = reducer.reduce(cfg, io.warn)
    pruned = retention.prune(cfg, io.warn)
    io.stdout.write(
        f"pull: {len(reduced.credited)} upvote(s) credited, {reduced.consumed} read(s) consumed, "
        f"{reduced.pending} read(s) pending\n"
        f"recall log: {pruned.after} of {pruned.before} line(s) kept ({pruned.old} older than "
        f"{retention.MAX_AGE_DAYS} days, {pruned.over} over {retention.MAX_LINES} lines, "
        f"{pruned.malformed} malformed)\n")
    return EXIT_BUSY if reduced.busy else EXIT_OK
