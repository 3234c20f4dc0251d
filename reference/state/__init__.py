"""The local state: the recall log, the votes ledger and its file, the per-session upvote ledger,
retention, the one clock, and the one way all of them are written.

One way to write shared state. The recall log, the votes ledger, the per-session upvote ledger and
the reducer's checkpoint are written only through ``storage.py`` (its docstring has the rules every
writer follows; this is the rest, kept here because that module is near the length limit):

- ``locked()``: an ``flock`` with a bounded wait that ends in ``Busy``; the wait is 10 s, and
  ``TEAMAI_LOCK_WAIT`` (seconds) shortens it for tests. ``append_bytes()``: one ``write(2)`` on an
  ``O_APPEND`` descriptor. ``write_atomic()``: temp file, fsync, rename; the checkpoint, derived and
  checked whenever it is read, skips the fsync. ``write_at()`` / ``write_after()``: in place, for
  files whose reader trusts only the bytes it can count (the per-session ledger's whole lines, the
  checkpoint's parts as its header gives their lengths).
- Folders of state are made when an open says they are missing (``open_creating``), not looked at
  before every append.
- Writes to several files that must land together go under an intent (``write_intent``, used by
  ``ledger.raising.together``): recorded durably first, then made, then removed; whoever next holds
  the lock finishes an intent it finds.
- Changes left for a file's next writer (a recall's recalled counts, ``ledger.defer``) are files
  of their own, ``<file>.pending-<name>``, made whole by a rename without an fsync (a power cut may
  lose a recall's count, a crash of the process never does), and taken by the next writer in the
  order of their instants.
- A line may escape a lone surrogate (a file name that is not UTF-8, as Python's ``json`` writes
  one). Decoding gives the surrogate back, and it has no UTF-8 form, so every write of the state's
  JSON (log lines, the byte needles the reducer searches the log with, the checkpoint, the
  per-session ledger) spells it as the escape it came from (``storage.utf8``).
- The search index is SQLite's own file and is no part of this: ``recall/index.py`` refuses
  ``index.db`` and its ``-wal``, ``-shm`` and ``-journal`` names when they are links, the same way,
  and then searches as for a folder it cannot write; it waits for SQLite's locks as long as
  ``locked()`` waits (``recall/index.py`` and ``recall/index_build.py`` say how it is written:
  WAL with ``synchronous=NORMAL``, a cold build through the rollback journal, one writer).

The tests: ``tests/reducer/test_crash_points.py`` and ``tests/test_recall_counts.py`` stop a Stop, a
pull and a recall at every write, fsync, truncate, rename or unlink (``TEAMAI_FAULT``);
``tests/test_planted_links.py`` checks links, temp names and modes; ``tests/test_storage_writes.py``
appends, sweeps and intents.
"""
