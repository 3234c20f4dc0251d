"""What the log says, as far as a decision needs it: settled runs per root session, the recall
subagent's actors, the credits already given and the reads still pending.

:func:`build` applies the rules of ``sessions``, ``settle`` and ``join`` to whatever lines it is
given; the Stop path gives it the checkpoint's lines and the new ones, ``pull`` and ``stats`` the
whole log. Its outcome depends on the set of lines, never on their order.
"""

from __future__ import annotations

from .join import Read, comparable, counts
from .logread import (
    CONSUMED_ID,
    EVIDENCE_ID,
    Lines,
    agent_id,
    complete,
    consumed_identity,
    identity,
    instant,
    path_values,
    raw_ids,
    run_of,
    session_of,
    text,
)
from .sessions import Roots
from .settle import first_claims, settle

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from ..config import Config
    from .logread import EvidenceId, Record
    from .settle import ClaimOrder, Maker, Run


class Model:
    def __init__(self) -> None:
        self.runs: dict[str, list[Run]] = {}  # root -> settled runs, oldest first
        self.makers: dict[str, dict[Maker, int]] = {}  # root -> recall subagent actor -> its first run's ts
        self.consumed: dict[EvidenceId, list[Record]] = {}
        self.credits: dict[tuple[str, str], list[int]] = {}  # (root, key) -> ts of the reads that credited
        self.reads: list[Read] = []  # reads with no consumed line
        self.records: dict[EvidenceId, Record] = {}  # pending read -> its line (for the checkpoint)
        self.first: dict[str, tuple[ClaimOrder, Record]] = {}  # run id -> its first claim
        self.roots = Roots([])
        self.all_runs = 0
        self.idle = 0  # pending reads not decoded: exact paths no run of their root printed
        self.skipped = 0


def build(lines: Lines, only_pending: bool = False, stopping: str | None = None,
          makers: list[tuple[Maker, int]] | None = None) -> Model:
    """The settled runs, the consumed reads and the reads still pending.

    With ``only_pending`` (the Stop path) runs are decoded only for root sessions that have a
    pending read, and nothing else is built when there is none. With ``stopping`` only the reads
    of that session's family (its root and every session linked under it) are pending: a Stop
    settles its own session, and ``pull`` drains the others. ``makers`` are recall subagent
    actors (with their first run's ts) whose runs are no longer among the lines (the checkpoint
    keeps them).
    """
    model = Model()
    if only_pending:
        # Cheap first look, before decoding anything: only reads with no consumed line matter, and
        # none means nothing to do. Identities are read as bytes; an unsure one counts as pending.
        done_ids = set(raw_ids(lines.raw["consumed"], CONSUMED_ID))
        evidence_ids = raw_ids(lines.raw["evidence"], EVIDENCE_ID)
        unconsumed = [(line, raw_id) for line, raw_id in zip(lines.raw["evidence"], evidence_ids, strict=True)
                      if raw_id is None or raw_id not in done_ids]
        if not unconsumed and not lines.done["evidence"]:
            model.skipped = lines.bad
            return model
    for rec in lines.get("consumed"):
        ident = consumed_identity(rec)
        if ident is None:
            continue
        model.consumed.setdefault(ident, []).append(rec)
        key, root, when = text(rec.get("key")), text(rec.get("session")), instant(ident[0])
        if rec.get("credited") is True and key and root and when is not None:
            model.credits.setdefault((root, key), []).append(when)
    roots = model.roots = Roots(lines.get("link"))
    family: set[str] | None = None
    if stopping is not None:
        family = roots.family({roots.root(stopping)})
        if only_pending:
            unconsumed = [(line, raw_id) for line, raw_id in unconsumed
                          if raw_id is None or raw_id[1].decode("utf-8", "replace") in family]
            if not unconsumed and not lines.done["evidence"]:
                model.skipped = lines.bad
                return model
    first = model.first = first_claims(lines.get("claim"))

    if only_pending:
        # An exact read of a path that no run of its root printed cannot adopt: leave it undecoded.
        printed = _printed_by_root(lines, first, roots, roots.root(stopping) if stopping is not None else None)
        anywhere = printed.get(None, set())
        useful = []
        for line, raw_id in unconsumed:
            if raw_id is None or b'"exact":true' not in line:
                useful.append(line)
                continue
            path = raw_id[2].decode("utf-8", "replace")
            if path in anywhere or path in printed.get(roots.root(raw_id[1].decode("utf-8", "replace")), ()):
                useful.append(line)
            else:
                model.idle += 1
        lines.raw["evidence"] = useful

    for rec in lines.get("evidence"):
        ident, when, session = identity(rec), instant(rec.get("ts")), text(rec.get("session"))
        if ident is None or when is None or session is None or ident in model.consumed:
            continue
        if family is not None and session not in family:
            continue
        model.reads.append(Read(ident, when, session, roots.root(session), (session, agent_id(rec.get("actor"))),
                                ident[2], rec.get("exact") is True, counts(rec.get("status"), rec.get("simple"))))
        model.records[ident] = rec

    keep: Callable[[bytes], bool] | None = None
    if only_pending:
        wanted = roots.family({r.root for r in model.reads if r.counts})
        wanted_runs = {run_id for run_id, (_, rec) in first.items() if rec["session"] in wanted}

        def keep(line: bytes) -> bool:
            session = session_of(line)
            if isinstance(session, bytes) or session in wanted:
                return True
            if not wanted_runs:
                return False
            run_id = run_of(line)
            return run_id is None or run_id in wanted_runs

    for rec in lines.get("run", keep):
        model.all_runs += 1
        run_id = rec.get("run")
        claim = first[run_id][1] if isinstance(run_id, str) and run_id in first else None
        run = settle(rec, claim, roots, comparable)
        if run is None:
            continue
        model.runs.setdefault(run.root, []).append(run)
        if run.maker is not None:
            _made(model, run.root, run.maker, run.ts)
    for maker, since in makers or ():
        _made(model, roots.root(maker[0]), maker, since)
    for runs in model.runs.values():
        runs.sort(key=lambda r: (r.ts, r.run))
    model.skipped = lines.bad
    return model


def _made(model: Model, root: str, maker: Maker, since: int) -> None:
    known = model.makers.setdefault(root, {})
    if maker not in known or since < known[maker]:
        known[maker] = since


def _printed_by_root(lines: Lines, first: dict[str, tuple[Any, Record]],
                     roots: Roots, only: str | None = None) -> dict[str | None, set[str]]:
    """Which paths the runs of each root session may have printed, read from the raw lines without
    decoding them. A read of a path no run of its root printed cannot adopt anything, so its
    session needs no runs decoded. Runs whose session is unclear count for every root (None).
    With ``only``, the runs of other roots are passed over."""
    grouped: dict[str | None, list[bytes]] = {}
    for line in lines.raw["run"]:
        run_id = run_of(line)
        session: str | bytes | None = first[run_id][1]["session"] if run_id in first else session_of(line)
        root = roots.root(session) if isinstance(session, str) else None
        if only is not None and root is not None and root != only:
            continue
        grouped.setdefault(root, []).append(line)
    out: dict[str | None, set[str]] = {root: set(path_values(b"\n".join(group), comparable))
                                       for root, group in grouped.items()}
    for rec in lines.done["run"]:
        docs = rec.get("docs")
        out.setdefault(None, set()).update(
            p for d in (docs if isinstance(docs, list) else []) if isinstance(d, dict) and text(d.get("path"))
            for p in (d["path"], comparable(d["path"])))
    return out


def read_log(path: str) -> bytes:
    """The whole lines of a log file (none when it does not exist)."""
    try:
        with open(path, "rb") as fh:
            return complete(fh.read())
    except FileNotFoundError:
        return b""


def load(cfg: Config) -> Model:
    """The whole log of the active scope, every session (``stats`` reads this)."""
    return build(Lines(read_log(cfg.active.log_path)))
