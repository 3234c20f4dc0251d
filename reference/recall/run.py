"""One recall: search every scope, shadow, attach relations, record the run, count the recall.

Data flows one way: tree -> index -> hits -> relations -> render -> run record. The run record
holds what attribution needs later (vote keys, scopes, printed paths, eligibility) and never the
query.

Scopes and shadowing. With a workspace team the workspace is the active scope and the user scope
is inherited: its hits print ``[user]``, carry ``eligible: false`` and never vote. Each scope gives
its best five; they are merged by score (then scope, then tree path) and cut to five, leaving out a
user entry that a workspace entry of the same kind and vote key shadows (:func:`search`).

Recall always answers: an agent must get its hits, so neither a busy nor an unwritable state folder
fails a recall (``scope_index.py`` owns the ways the index is used, :func:`record` the run line).
``recall --check`` writes nothing at all: no index, no log, no ledger, not even the state folder (a
check on a tree never indexed pays a cold build in memory each time; ``teamai-ref index`` avoids
that). A run line that cannot be written leaves the hits printed without a run id and one line on
stderr. The hits still count as recalled, since they were shown: the counts are left pending
(``ledger.defer``) before the run line is written, then the ledger, and when recall stops in between
(killed, a busy or full disk) the next recall, Stop or pull makes them, once. Other commands that
need the state folder fail with one line and exit 3 (``cli.run``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping

from ..relations import visibility
from ..state import ledger, ledger_read, runlog
from ..state.clock import now_seconds, now_stamp
from ..state.storage import Busy, lock_wait
from ..team import tree
from ..team.config import WORKSPACE, WRITABLE_HINT, Config, Scope
from . import index, index_build, ranking, session_env
from .scope_index import ScopeIndex

TYPE_CHECKING = False  # typing is imported only by type checkers: it costs a fresh process ~4 ms
if TYPE_CHECKING:
    from typing import Any

LIMIT = 5


class Hit:
    """One recall hit. (Plain classes here: recall is on the agent's path, and ``dataclasses``
    costs the import of ``inspect``.)"""

    __slots__ = ("scope_name", "eligible", "entry", "related")

    def __init__(self, scope_name: str, eligible: bool, entry: index.Entry, related: tuple[str, ...] = ()) -> None:
        self.scope_name = scope_name  # "workspace" or "user": which scope the asset came from
        self.eligible = eligible
        self.entry = entry
        self.related = related

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Hit) and (self.scope_name, self.eligible, self.entry, self.related) == \
            (other.scope_name, other.eligible, other.entry, other.related)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Hit({self.scope_name!r}, {self.entry.tree_path!r}, score={self.entry.score})"

    @property
    def kind(self) -> str:
        return self.entry.kind

    @property
    def type_label(self) -> str:
        return tree.TYPE_LABEL[self.entry.kind]

    @property
    def title(self) -> str:
        return self.entry.title

    @property
    def scope(self) -> str:
        return self.scope_name

    @property
    def author(self) -> str | None:
        return self.entry.author

    @property
    def date(self) -> str | None:
        return self.entry.date

    @property
    def score(self) -> float:
        return self.entry.score

    @property
    def tags(self) -> tuple[str, ...]:
        return self.entry.tags

    @property
    def path(self) -> str:
        return self.entry.path

    @property
    def snippet(self) -> str | None:
        return self.entry.snippet


class Searched:
    """What a search found, plus each scope's index, which relations resolve against."""

    __slots__ = ("hits", "indexes")

    def __init__(self, hits: list[Hit], indexes: dict[str, ScopeIndex] | None = None) -> None:
        self.hits = hits
        self.indexes = indexes if indexes is not None else {}

    def close(self) -> None:
        for handle in self.indexes.values():
            handle.close()


class EmptyQuery(ValueError):
    pass


def search(cfg: Config, query: str, warn: Callable[[str], None], limit: int = LIMIT,
           write: bool = True) -> Searched:
    """The hits of every scope, shadowed and cut to ``limit``. With ``write`` false (``--check``)
    nothing is written anywhere, the index included (see ``scope_index``)."""
    terms = ranking.query_terms(query)
    if not terms:
        raise EmptyQuery("the query has no words to search for")
    found: list[tuple[Scope, index.Entry]] = []
    handles: dict[str, ScopeIndex] = {}
    now_s = now_seconds(cfg.env)
    wait = lock_wait(cfg.env)
    scan_limit = index_build.full_scan_limit(cfg.env)
    hidden = visibility.hidden_from_hits(cfg)  # a withheld codebase's pages are never hits
    for scope in cfg.scopes:
        handle = handles[scope.name] = ScopeIndex(scope, warn, now_s, wait, write, scan_limit)
        entries = handle.fresh_search(terms, limit, hidden)
        if index.changed_paths(handle.conn, [e.path for e in entries]):  # an in-place edit of a hit
            handle.refresh(force=True)
            entries = handle.search(terms, limit, hidden)
        found.extend((scope, e) for e in entries)
    active = handles[cfg.active.name].conn
    hits: list[Hit] = []
    order = {s.name: i for i, s in enumerate(cfg.scopes)}
    for scope, entry in sorted(found, key=lambda se: (-se[1].score, order[se[0].name], se[1].tree_path)):
        if scope is not cfg.active and index.has_key(active, entry.kind, entry.key):
            continue  # a workspace entry of the same kind and key shadows it, hit or not
        hits.append(Hit(scope.name, scope is cfg.active, entry))
        if len(hits) == limit:
            break
    return Searched(hits, handles)


def new_run_id() -> str:
    """A random (version 4) UUID, as ``crypto.randomUUID()`` makes them; built from ``os.urandom``
    directly because importing ``uuid`` costs more than the rest of this function."""
    raw = bytearray(os.urandom(16))
    raw[6] = (raw[6] & 0x0F) | 0x40
    raw[8] = (raw[8] & 0x3F) | 0x80
    h = raw.hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def run_record(run_id: str, ts: str, env: Mapping[str, str], caller: str | None,
               hits: list[Hit]) -> dict[str, Any]:
    ses = session_env.from_env(env)
    return {
        "kind": "run", "ts": ts, "run": run_id, "session": ses.session, "via": ses.via,
        "unambiguous": ses.unambiguous, "agent": ses.agent, "actor": session_env.actor(env, ses), "caller": caller,
        "docs": [{"key": h.entry.key, "type": h.kind, "scope": h.scope_name, "path": h.path,
                  "score": round(h.score, 3), "eligible": h.eligible} for h in hits],
    }


def record(cfg: Config, hits: list[Hit], caller: str | None, warn: Callable[[str], None]) -> str | None:
    """Append the run line, count the recall in the ledger, return the run id.

    An agent must get its hits whatever the state folder does, so nothing here fails the recall.
    When the run line cannot be written (the log stayed busy past the wait, or the state folder
    cannot be written) the run id is ``None``: the hits are printed without one, because a run id
    on screen promises a run line that a hook's claim can settle, and this run has none.
    """
    env = cfg.env
    ts = now_stamp(env)
    new_id = new_run_id()
    run_id: str | None = new_id
    scope = cfg.active
    wait = lock_wait(env)
    eligible = [h for h in hits if h.eligible]
    raises = [(h.entry.key, "recalled_count", "last_recalled_at", ts) for h in eligible]
    deferred = False
    if raises:  # left pending first: a recall that stops after its run line still counts (ledger.defer)
        try:
            ledger.defer(scope.ledger_path, new_id, raises)
            deferred = True
        except OSError:
            pass  # counted directly below, when the ledger can be written
    try:
        runlog.append(scope.log_path, scope.log_lock, [run_record(new_id, ts, env, caller, hits)], wait)
    except Busy as exc:
        warn(f"the recall log is busy ({exc.path} stayed locked for {wait:g}s); this run was not recorded, "
             "so reads of its hits earn no votes")
        run_id = None
    except OSError as exc:
        warn(f"the recall log cannot be written ({exc.strerror or exc}: {exc.filename or scope.log_path}); "
             f"this run was not recorded; {WRITABLE_HINT}")
        return None
    if raises:  # the hits were shown, so they count as recalled even when the run line is missing
        later = "; the next recall, Stop or pull counts it" if deferred else ""
        try:
            with ledger.raising(scope.ledger_path, scope.ledger_lock, wait, ts, warn) as tally:
                if not deferred:
                    for raise_ in raises:
                        tally.add(*raise_)
        except (Busy, ledger_read.YamlUnavailable) as exc:
            warn(f"{exc}; recalled_count was not updated for this run{later}")
        except OSError as exc:
            warn(f"the votes ledger cannot be written ({exc.strerror or exc}); recalled_count was not updated"
                 f"{later}; {WRITABLE_HINT}")
    return run_id


def with_related(hits: list[Hit], lines: list[tuple[str, ...]]) -> list[Hit]:
    return [Hit(h.scope_name, h.eligible, h.entry, r) for h, r in zip(hits, lines, strict=True)]


def scope_label(name: str) -> str:
    return "workspace" if name == WORKSPACE else name
