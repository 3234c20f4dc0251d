"""The recall log of one scope: JSON lines, appended under the log's lock in one write.

The file is ``<scope state>/recall-log.jsonl``. One line per event; every line has ``kind`` and
``ts``. The kinds and their fields:

- ``run`` (``recall.run.record``, built by ``run_record``): a recall that searched: ``run``,
  ``session`` (or null), ``via`` (``env``/``none``), ``unambiguous``, ``agent``, ``actor`` (``{}``
  unless recall's environment names one), ``caller`` (or null), ``docs[]``: ``key``, ``type``
  (``rule``/``doc``/``learning``/``skill``/``wiki``), ``scope``, ``path`` (as printed), ``score``,
  ``eligible``.
- ``claim`` (``hook/classify.py``): a shell call that ran ``teamai recall`` printed this run id:
  ``run``, ``session``, ``agent``, ``actor`` (``agent_id``, ``agent_type`` when known).
- ``evidence`` (``hook/classify.py``): a tool call read (or showed content of) a file under the
  knowledge roots: ``session``, ``agent``, ``actor``, ``path``, ``exact`` (true: ``path`` is
  absolute, resolved against the call's cwd or search root; false: the path as given, for the
  reducer's suffix match), ``via`` (``read``/``shell``/``search``), ``simple`` (a plain read, not a
  search or pipeline), ``status`` (``success``/``unknown``).
- ``link`` (``hook/classify.py``): a child session belongs to a parent session: ``child``,
  ``parent``, ``agent``.
- ``consumed`` (``reducer/commit.py``): a read the reducer decided: ``session`` (the root session
  credited), ``key``, ``run`` (the run the read joined), ``credited`` (true: this read credited the
  pair; false: covered by an earlier credit), ``evidence`` (``ts``, ``session``, ``path`` of the read
  it settles).

Never a query, a prompt, a command line or file content; the corpus checks this in every scenario.
Reading skips (and counts) lines that are not JSON objects with a known ``kind``: a torn or
hand-edited line must not stop a reducer; pruning drops them. A lone surrogate in a line is
written as its escape (``storage.utf8``).
"""

from __future__ import annotations

from . import jsontext
from .logspool import fold
from .storage import append_bytes, locked, utf8

TYPE_CHECKING = False  # typing is imported only by type checkers: it costs a fresh process ~4 ms
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping
    from typing import Any

KINDS = frozenset({"run", "claim", "evidence", "link", "consumed"})


def encode(record: Mapping[str, Any], strict: bool = False) -> bytes:
    """One line; ``strict`` refuses text with no UTF-8 form (``UnicodeEncodeError``) instead of
    writing it escaped as ``storage.utf8`` does."""
    text = jsontext.dumps(record) + "\n"
    return text.encode("utf-8") if strict else utf8(text)


def append(log_path: str, lock_path: str, records: Iterable[Mapping[str, Any]], wait: float,
           strict: bool = False) -> None:
    """Append ``records`` as one write under the log's lock. The hook appends ``strict``ly: a
    payload holding text that is not valid Unicode is not an agent's, and nothing of it is written;
    the reducer writes back what the log already holds, escaped."""
    data = b"".join(encode(r, strict) for r in records)
    if not data:
        return
    with locked(lock_path, "the recall log", wait):
        fold(log_path)  # lines a hook spooled while the lock was stuck (logspool.py)
        append_bytes(log_path, data)


def parse_lines(data: bytes) -> tuple[list[dict[str, Any]], int]:
    """(records, number of malformed lines skipped)."""
    records: list[dict[str, Any]] = []
    bad = 0
    for raw in data.split(b"\n"):
        if not raw.strip():
            continue
        try:
            rec = jsontext.loads(raw)
        except ValueError:
            bad += 1
            continue
        if isinstance(rec, dict) and rec.get("kind") in KINDS and isinstance(rec.get("ts"), str):
            records.append(rec)
        else:
            bad += 1
    return records, bad


def read(log_path: str) -> tuple[list[dict[str, Any]], int]:
    try:
        with open(log_path, "rb") as fh:
            data = fh.read()
    except FileNotFoundError:
        return [], 0
    return parse_lines(data)
