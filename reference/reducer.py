"""Turn the recall log into upvotes, exactly once.

The reducer runs at Stop, SubagentStop and ``pull``. It always looks at the whole log of the
active scope (a Stop may find the evidence of a session whose own Stop never came, or one that
found the ledger busy), and its outcome depends only on the set of lines, never on their order.

Rules, in the order they apply:

1. **Settling a run.** A run belongs to the session of its first claim: the claim with the
   earliest ``ts`` naming that run (ties broken by session, then agent id, so the choice never
   depends on line order). A claim for a run id the log does not hold settles nothing. A run
   with no claim belongs to the session its environment named, but only when ``via`` is ``env``
   and ``unambiguous`` is true. Every other run is unsettled and never votes. Later claims stay
   in the log and change nothing.
2. **The recall subagent.** A run is the recall subagent's when its caller is ``teamai-recall``
   or its first claim's actor has ``agent_type`` ``teamai-recall``. Its maker is the settled
   session plus the claim's ``agent_id``; with no agent id (an env-settled run, or an agent such
   as Cursor or Copilot whose hooks name no subagent) the maker is the session's anonymous actor,
   so every read without an agent id in that session is treated as the subagent's. That errs
   towards no vote: Frank's recall subagent on Cursor must not upvote what it found itself.
   A maker's reads never count, against any run of the same root session.
3. **Sessions.** ``link`` lines lead from a child session to its parent; each child keeps its
   earliest link. Following them gives the root session; a cycle's sessions share the smallest
   id in the cycle as their root. Runs and reads count for the root; the actor stays the child's.
4. **Joining.** A read (an ``evidence`` line) counts for a doc when a settled run of the same root
   printed that doc, the read's ``ts`` lies in ``[run ts, run ts + 24 h]`` (both edges included),
   the doc is ``eligible``, the read is not by a maker (rule 2), and its status counts
   (``success``; ``unknown`` only for a ``simple`` read). ``exact`` evidence must equal the
   printed path (both in ``pathmatch.canonical`` spelling); other evidence uses the suffix
   match of ``pathmatch.suffix_match`` (the base name and two folders, one candidate only).
5. **Crediting.** Each (root session, doc key) is credited at most once in any 24 h of read
   time: a matched read within 24 h of a read that already credited the pair is *covered*. A
   new credit adds one to ``upvoted_count`` in the votes ledger unless the per-session ledger
   (``upvoted.py``) says the pair was credited less than 24 h ago. Both ledgers are edited under
   the votes ledger's lock, per-session ledger first; then a ``consumed`` line is appended for
   every matched read, credited or covered, so no read is ever weighed twice.

A ``consumed`` line::

    {"kind": "consumed", "ts": <when>, "session": <root>, "key": <vote key>, "run": <run id>,
     "credited": true|false, "evidence": {"ts": ..., "session": ..., "path": ...}}

``evidence`` names the read it settles (a read is known by its ts, session and path);
``credited`` is true for the read that credited the pair (or that the per-session ledger shows
was already counted) and false for a covered read. A busy votes ledger writes nothing, so the
next trigger retries; a failed append of consumed lines after the ledgers were written is caught
by the per-session ledger.

Speed: a Stop pays for a fresh interpreter, so lines are classified by their first bytes and only
the kinds (and runs) a decision needs are decoded.
"""

from __future__ import annotations

import json
import re
from datetime import datetime

from . import upvoted
from .clock import ClockError, now, parse_instant, stamp
from .pathmatch import canonical, suffix_match
from .storage import Busy, lock_wait

TYPE_CHECKING = False  # typing is not imported at run time: a Stop pays for every import
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from .config import Config

    Record = dict[str, Any]
    EvidenceId = tuple[str, str, str]  # (ts, session, path) as written

DAY = 24 * 3600.0
RECALL_SUBAGENT = "teamai-recall"
KINDS = ("run", "claim", "evidence", "link", "consumed")
_PREFIX = {f'{{"kind":"{k}",'.encode(): k for k in KINDS}



class ReduceResult:
    """What one reduce did. (Plain classes rather than dataclasses: a Stop pays for every import.)"""

    __slots__ = ("credited", "consumed", "pending", "skipped", "busy")

    def __init__(self, skipped: int = 0) -> None:
        self.credited: list[tuple[str, str]] = []  # (root session, key) newly counted
        self.consumed = 0  # consumed lines appended
        self.pending = 0  # reads with no consumed line after this reduce
        self.skipped = skipped  # malformed lines met while reading
        self.busy = False


class _Lines:
    """The log split by kind; a line is decoded only when its kind is asked for."""

    def __init__(self, data: bytes) -> None:
        self.raw: dict[str, list[bytes]] = {k: [] for k in KINDS}
        self.done: dict[str, list[Record]] = {k: [] for k in KINDS}
        self.bad = 0
        for line in data.split(b"\n"):
            if not line.strip():
                continue
            cut = line.find(b'",')
            kind = _PREFIX.get(line[:cut + 2]) if cut > 0 else None
            if kind is not None:
                self.raw[kind].append(line)
                continue
            rec = self._decode(line)
            if rec is not None:
                self.done[rec["kind"]].append(rec)

    def _decode(self, line: bytes) -> Record | None:
        try:
            rec = json.loads(line)
        except ValueError:
            self.bad += 1
            return None
        if isinstance(rec, dict) and rec.get("kind") in KINDS and isinstance(rec.get("ts"), str):
            return rec
        self.bad += 1
        return None

    def get(self, kind: str, keep: Callable[[bytes], bool] | None = None) -> list[Record]:
        """Every record of ``kind``; ``keep`` may skip raw lines cheaply before decoding."""
        raw = self.raw[kind] if keep is None else [line for line in self.raw[kind] if keep(line)]
        out = list(self.done[kind])
        try:  # one decode for the whole batch is much cheaper than one per line
            batch = json.loads(b"[" + b",".join(raw) + b"]")
        except ValueError:
            batch = None
        if batch is not None and len(batch) == len(raw):
            for rec in batch:
                if isinstance(rec, dict) and rec.get("kind") == kind and isinstance(rec.get("ts"), str):
                    out.append(rec)
                else:
                    self.bad += 1
            return out
        for line in raw:
            rec = self._decode(line)
            if rec is not None and rec["kind"] == kind:
                out.append(rec)
        return out


_EPOCHS: dict[str, float] = {}
_fromiso = datetime.fromisoformat


def epoch(text: Any) -> float | None:
    """Seconds since the epoch for a ts as written, or None when it is not an instant."""
    if not isinstance(text, str):
        return None
    value = _EPOCHS.get(text)
    if value is None:
        try:
            if len(text) == 24 and text[-1] == "Z":  # clock.stamp's spelling: one fast parse
                value = _fromiso(text).timestamp()
            else:
                value = parse_instant(text).timestamp()
        except (ClockError, ValueError):
            return None
        _EPOCHS[text] = value
    return value


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _agent_id(actor: Any) -> str | None:
    return _text(actor.get("agent_id")) if isinstance(actor, dict) else None


def _agent_type(actor: Any) -> str | None:
    return _text(actor.get("agent_type")) if isinstance(actor, dict) else None


# --- the model ---------------------------------------------------------------------------------

class Run:
    """A settled run."""

    __slots__ = ("run", "ts", "session", "root", "agent", "maker", "docs", "printed", "eligible")

    def __init__(self, run: str, ts: float, session: str, root: str, agent: str | None,
                 maker: tuple[str, str | None] | None, docs: list[Record]) -> None:
        self.run, self.ts, self.session, self.root, self.agent = run, ts, session, root, agent
        self.maker = maker  # (session, agent id) when the recall subagent made it
        self.docs = docs
        self.printed: set[str] = set()  # every path it printed
        self.eligible: dict[str, list[str]] = {}  # printed path -> eligible keys


class Read:
    """A pending read (an evidence line with no consumed line)."""

    __slots__ = ("ident", "ts", "session", "root", "actor", "path", "exact", "counts")

    def __init__(self, ident: EvidenceId, ts: float, session: str, root: str, actor: tuple[str, str | None],
                 path: str, exact: bool, counts: bool) -> None:
        self.ident, self.ts, self.session, self.root, self.actor = ident, ts, session, root, actor
        self.path, self.exact = path, exact
        self.counts = counts  # its status lets it count


class Model:
    """What the log says, as far as a decision needs it."""

    def __init__(self) -> None:
        self.runs: dict[str, list[Run]] = {}  # root -> settled runs, oldest first
        self.makers: dict[str, set[tuple[str, str | None]]] = {}  # root -> recall subagent actors
        self.consumed: dict[EvidenceId, list[Record]] = {}
        self.credits: dict[tuple[str, str], list[float]] = {}  # (root, key) -> ts of crediting reads
        self.reads: list[Read] = []  # reads with no consumed line
        self.roots = Roots([])
        self.all_runs = 0
        self.idle = 0  # pending reads not decoded: exact paths no run of their root printed
        self.skipped = 0


class Roots:
    """Child -> parent links followed to the root session, safe against cycles."""

    def __init__(self, links: list[Record]) -> None:
        best: dict[str, tuple[float, str]] = {}
        for rec in links:
            child, parent, ts = _text(rec.get("child")), _text(rec.get("parent")), epoch(rec.get("ts"))
            if child is None or parent is None or ts is None or child == parent:
                continue
            if child not in best or (ts, parent) < best[child]:
                best[child] = (ts, parent)
        self.parent = {c: p for c, (_, p) in best.items()}
        self._cache: dict[str, str] = {}

    def root(self, session: str) -> str:
        cached = self._cache.get(session)
        if cached is not None:
            return cached
        path: list[str] = []
        where: dict[str, int] = {}
        node = session
        while node in self.parent and node not in where and node not in self._cache:
            where[node] = len(path)
            path.append(node)
            node = self.parent[node]
        if node in self._cache:
            top = self._cache[node]
        elif node in where:
            top = min(path[where[node]:])
        else:
            top = node
        for item in path:
            self._cache[item] = top
        self._cache[session] = top
        return top

    def chain(self, session: str) -> list[str]:
        """``session`` and every session above it, each once."""
        out = [session]
        while out[-1] in self.parent and self.parent[out[-1]] not in out:
            out.append(self.parent[out[-1]])
        return out

    def family(self, roots: set[str]) -> set[str]:
        """Every session known to belong to one of ``roots``."""
        out = set(roots)
        for child in self.parent:
            if self.root(child) in roots:
                out.add(child)
        return out


def _identity(rec: Record) -> EvidenceId | None:
    ts, session, path = rec.get("ts"), rec.get("session"), rec.get("path")
    if isinstance(ts, str) and isinstance(session, str) and isinstance(path, str):
        return (ts, session, path)
    return None


def _consumed_identity(rec: Record) -> EvidenceId | None:
    ev = rec.get("evidence")
    return _identity(ev) if isinstance(ev, dict) else None


_EVIDENCE_ID = re.compile(rb'\{"kind":"evidence","ts":"([^"\\\n]*)","session":"([^"\\\n]*)",'
                          rb'"agent":(?:"[^"\\\n]*"|null),"actor":\{[^{}\n]*\},"path":"([^"\\\n]*)"')
_CONSUMED_ID = re.compile(rb'"evidence":\{"ts":"([^"\\\n]*)","session":"([^"\\\n]*)","path":"([^"\\\n]*)"\}')


def _raw_ids(raw: list[bytes], pattern: re.Pattern[bytes]) -> list[tuple[bytes, ...] | None]:
    """The (ts, session, path) of each raw line as bytes, in one pass over them all; None where the
    line is not in the plain spelling (it is decoded and compared properly later)."""
    found = pattern.findall(b"\n".join(raw))
    if len(found) == len(raw):
        return found
    return [(m.groups() if (m := pattern.search(line)) else None) for line in raw]


def _session_of(line: bytes) -> str | bytes | None:
    """The ``session`` value of a raw run line without decoding it: a str, None for null, or the
    raw line itself when the cheap read is not sure (then the caller decodes it)."""
    at = line.find(b'"session":')
    if at < 0:
        return line
    rest = line[at + 10:at + 14]
    if rest == b"null":
        return None
    if not rest.startswith(b'"'):
        return line
    end = line.find(b'"', at + 11)
    value = line[at + 11:end]
    if end < 0 or b"\\" in value:
        return line
    return value.decode("utf-8", "replace")


def build(lines: _Lines, only_pending: bool = False, stopping: str | None = None) -> Model:
    """The settled runs, the consumed reads and the reads still pending.

    With ``only_pending`` (the Stop path) runs are decoded only for root sessions that have a
    pending read, and nothing else is built when there is none. With ``stopping`` only the reads
    of that session's family (its root and every session linked under it) are pending: a Stop
    settles its own session, and ``pull`` drains the others.
    """
    model = Model()
    if only_pending:
        # Cheap first look, before decoding anything: only reads with no consumed line matter, and
        # none means nothing to do. Identities are read as bytes; an unsure one counts as pending.
        done_ids = set(_raw_ids(lines.raw["consumed"], _CONSUMED_ID))
        evidence_ids = _raw_ids(lines.raw["evidence"], _EVIDENCE_ID)
        unconsumed = [(line, raw_id) for line, raw_id in zip(lines.raw["evidence"], evidence_ids, strict=True)
                      if raw_id is None or raw_id not in done_ids]
        if not unconsumed and not lines.done["evidence"]:
            model.skipped = lines.bad
            return model
    for rec in lines.get("consumed"):
        ident = _consumed_identity(rec)
        if ident is None:
            continue
        model.consumed.setdefault(ident, []).append(rec)
        key, root, when = _text(rec.get("key")), _text(rec.get("session")), epoch(ident[0])
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
    first: dict[str, tuple[tuple[float, str, str], Record]] = {}
    for rec in lines.get("claim"):
        run_id, session, when = _text(rec.get("run")), _text(rec.get("session")), epoch(rec.get("ts"))
        if run_id is None or session is None or when is None:
            continue
        order = (when, session, _agent_id(rec.get("actor")) or "")
        if run_id not in first or order < first[run_id][0]:
            first[run_id] = (order, rec)

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
        ident, when, session = _identity(rec), epoch(rec.get("ts")), _text(rec.get("session"))
        if ident is None or when is None or session is None or ident in model.consumed:
            continue
        if family is not None and session not in family:
            continue
        status = rec.get("status")
        counts = status == "success" or (status == "unknown" and rec.get("simple") is True)
        model.reads.append(Read(ident, when, session, roots.root(session), (session, _agent_id(rec.get("actor"))),
                                ident[2], rec.get("exact") is True, counts))

    keep: Callable[[bytes], bool] | None = None
    if only_pending:
        wanted = roots.family({r.root for r in model.reads if r.counts})
        wanted_runs = {run_id for run_id, (_, rec) in first.items() if rec["session"] in wanted}

        def keep(line: bytes) -> bool:
            session = _session_of(line)
            if isinstance(session, bytes) or session in wanted:
                return True
            if not wanted_runs:
                return False
            run_id = _run_of(line)
            return run_id is None or run_id in wanted_runs

    for rec in lines.get("run", keep):
        model.all_runs += 1
        run_id, when = _text(rec.get("run")), epoch(rec.get("ts"))
        if run_id is None or when is None:
            continue
        claim = first.get(run_id, (None, None))[1]
        actor: Any = {}
        if claim is not None:
            settled: str = claim["session"]
            actor = claim.get("actor")
            agent = _text(claim.get("agent")) or _text(rec.get("agent"))
        elif rec.get("via") == "env" and rec.get("unambiguous") is True and _text(rec.get("session")):
            settled, agent = rec["session"], _text(rec.get("agent"))
        else:
            continue
        marked = rec.get("caller") == RECALL_SUBAGENT or _agent_type(actor) == RECALL_SUBAGENT
        maker = (settled, _agent_id(actor)) if marked else None
        raw_docs = rec.get("docs")
        docs = [d for d in raw_docs if isinstance(d, dict)] if isinstance(raw_docs, list) else []
        root = roots.root(settled)
        item = Run(run_id, when, settled, root, agent, maker, docs)
        for doc in docs:
            doc_key, doc_path = _text(doc.get("key")), _text(doc.get("path"))
            if doc_path is None:
                continue
            item.printed.add(doc_path)
            if doc_key is not None and doc.get("eligible") is True:
                for form in {doc_path, _comparable(doc_path)}:
                    item.eligible.setdefault(form, []).append(doc_key)
        model.runs.setdefault(root, []).append(item)
        if maker is not None:
            model.makers.setdefault(root, set()).add(maker)
    for runs in model.runs.values():
        runs.sort(key=lambda r: (r.ts, r.run))
    model.skipped = lines.bad
    return model


def _path_values(blob: bytes) -> list[str]:
    """Every ``"path"`` value in some raw run lines, in both spellings (``bytes.find`` is far
    quicker than a regular expression over a megabyte of lines)."""
    out: list[str] = []
    needle = b'"path":"'
    at = blob.find(needle)
    while at >= 0:
        start = at + 8
        end = blob.find(b'"', start)
        raw = blob[start:end]
        if end < 0 or b"\\" in raw:  # an escaped path somewhere: let the JSON decoder spell them
            return _decoded_paths(blob)
        path = raw.decode("utf-8", "replace")
        out.append(path)
        out.append(_comparable(path))
        at = blob.find(needle, end)
    return out


def _decoded_paths(blob: bytes) -> list[str]:
    paths: list[str] = []
    for line in blob.split(b"\n"):
        try:
            docs = json.loads(line).get("docs")
        except (ValueError, AttributeError):
            continue
        if isinstance(docs, list):
            paths.extend(d["path"] for d in docs if isinstance(d, dict) and _text(d.get("path")))
    return [p for path in paths for p in (path, _comparable(path))]


def _printed_by_root(lines: _Lines, first: dict[str, tuple[Any, Record]],
                     roots: Roots, only: str | None = None) -> dict[str | None, set[str]]:
    """Which paths the runs of each root session may have printed, read from the raw lines without
    decoding them. A read of a path no run of its root printed cannot adopt anything, so its
    session needs no runs decoded. Runs whose session is unclear count for every root (None).
    With ``only``, the runs of other roots are passed over."""
    grouped: dict[str | None, list[bytes]] = {}
    for line in lines.raw["run"]:
        run_id = _run_of(line)
        session: str | bytes | None = first[run_id][1]["session"] if run_id in first else _session_of(line)
        root = roots.root(session) if isinstance(session, str) else None
        if only is not None and root is not None and root != only:
            continue
        grouped.setdefault(root, []).append(line)
    out: dict[str | None, set[str]] = {root: set(_path_values(b"\n".join(group)))
                                       for root, group in grouped.items()}
    for rec in lines.done["run"]:
        docs = rec.get("docs")
        out.setdefault(None, set()).update(
            p for d in (docs if isinstance(docs, list) else []) if isinstance(d, dict) and _text(d.get("path"))
            for p in (d["path"], _comparable(d["path"])))
    return out


def _run_of(line: bytes) -> str | None:
    at = line.find(b'"run":"')
    if at < 0:
        return None
    end = line.find(b'"', at + 7)
    return line[at + 7:end].decode("utf-8", "replace") if end > 0 else None


class Match:
    """A read that adopts one vote key, through the earliest run in its window that printed it."""

    __slots__ = ("read", "key", "run")

    def __init__(self, read: Read, key: str, run: Run) -> None:
        self.read, self.key, self.run = read, key, run


def matches(model: Model, read: Read) -> list[Match]:
    """The docs this read adopts, one match per vote key (the earliest run that printed it)."""
    if not read.counts or read.actor in model.makers.get(read.root, ()):
        return []
    window = [r for r in model.runs.get(read.root, ()) if r.ts <= read.ts <= r.ts + DAY]
    if not window:
        return []
    target = read.path if read.exact else suffix_match(read.path, {p for r in window for p in r.printed})
    if target is None:
        return []
    found: dict[str, Match] = {}
    for run in window:
        for key in run.eligible.get(target, ()):
            if key not in found:
                found[key] = Match(read, key, run)
    return list(found.values())


_COMPARABLE: dict[str, str] = {}


def _comparable(path: str) -> str:
    """The printed path in the spelling exact evidence uses (``pathmatch.canonical``); a plain
    POSIX path is already in it, so the costly fold runs only for unusual spellings."""
    if "\\" not in path and "/." not in path and "//" not in path and path[1:2] != ":":
        return path
    value = _COMPARABLE.get(path)
    if value is None:
        value = _COMPARABLE[path] = canonical(path)
    return value


class Decision:
    __slots__ = ("match", "credit")

    def __init__(self, match: Match, credit: bool) -> None:
        self.match = match
        self.credit = credit  # a new credit (False: covered by an earlier one)


def decide(model: Model) -> list[Decision]:
    """Every pending read that matched, in a fixed order, marked as a new credit or as covered."""
    groups: dict[tuple[str, str], list[Match]] = {}
    for read in model.reads:
        for m in matches(model, read):
            groups.setdefault((read.root, m.key), []).append(m)
    out: list[Decision] = []
    for pair in sorted(groups):
        events = list(model.credits.get(pair, ()))
        for m in sorted(groups[pair], key=lambda m: (m.read.ts, m.read.ident, m.run.ts, m.run.run)):
            covered = any(abs(m.read.ts - t) < DAY for t in events)
            if not covered:
                events.append(m.read.ts)
            out.append(Decision(m, not covered))
    return out


def load(cfg: Config, only_pending: bool = False, session: str | None = None) -> Model:
    scope = cfg.active
    try:
        with open(scope.log_path, "rb") as fh:
            data = fh.read()
    except FileNotFoundError:
        data = b""
    if session is not None:
        data = family_slice(data, session)
    return build(_Lines(data), only_pending, session)


_LINK_PREFIX = b'{"kind":"link",'
_RUN_PREFIXES = (b'{"kind":"run",', b'{"kind":"claim",')


def family_slice(data: bytes, session: str) -> bytes:
    """The lines a Stop of ``session`` can need, found with byte searches before anything is
    decoded: every link; every line that names a session of the family (its root and all linked
    under it); and every run and claim line of a run id those lines name, so that a first claim
    by another session still settles the run (Dan's case). Lines it keeps by mistake are harmless:
    :func:`build` applies the rules to whatever it is given. Lines that are not in the plain
    spelling are kept, so they are judged, not lost."""
    lines = data.split(b"\n")
    links = [line for line in lines if line.startswith(_LINK_PREFIX)]
    roots = Roots([rec for rec in (_loads(line) for line in links) if rec is not None])
    family = roots.family({roots.root(session)})
    needles = [json.dumps(member, ensure_ascii=False).encode() for member in family]
    kept: list[bytes] = []
    rest: list[bytes] = []
    run_ids: set[str] = set()
    for line in lines:
        if not line or line.startswith(_LINK_PREFIX):
            continue
        if not line.startswith(b'{"kind":"') or any(needle in line for needle in needles):
            kept.append(line)
            found = _run_of(line)
            if found is not None:
                run_ids.add(found)
        elif line.startswith(_RUN_PREFIXES):
            rest.append(line)
    kept.extend(line for line in rest if _run_of(line) in run_ids)
    return b"\n".join(links + kept)


def _loads(line: bytes) -> Record | None:
    try:
        rec = json.loads(line)
    except ValueError:
        return None
    return rec if isinstance(rec, dict) else None


def _consumed_line(d: Decision, credited: bool, ts: str) -> Record:
    ts_, session, path = d.match.read.ident
    return {"kind": "consumed", "ts": ts, "session": d.match.read.root, "key": d.match.key,
            "run": d.match.run.run, "credited": credited,
            "evidence": {"ts": ts_, "session": session, "path": path}}


def reduce(cfg: Config, warn: Callable[[str], None], session: str | None = None) -> ReduceResult:
    """Credit every pending read that adopts a recalled doc (of ``session``'s family only, when a
    Stop names its session); safe to run any number of times."""
    model = load(cfg, only_pending=True, session=session)
    result = ReduceResult(model.skipped)
    decisions = decide(model) if model.reads else []
    result.pending = len(model.reads) + model.idle
    if not decisions:
        return result
    scope = cfg.active
    instant = now(cfg.env)
    ts = stamp(instant)
    now_epoch = instant.timestamp()
    wait = lock_wait(cfg.env)
    lines: list[Record] = []
    credits = [d for d in decisions if d.credit]
    try:
        if credits:
            from . import ledger

            with ledger.editing(scope.ledger_path, scope.ledger_lock, wait, ts, warn) as votes:
                sessions = upvoted.load(scope.upvoted_path, ts, warn)
                for d in credits:
                    root, key = d.match.read.root, d.match.key
                    if not upvoted.active(sessions, root, key, now_epoch):
                        sessions.setdefault(root, {})[key] = ts
                        entry = votes.setdefault(key, ledger.empty_entry())
                        entry["upvoted_count"] += 1
                        entry["last_upvoted_at"] = ts
                        result.credited.append((root, key))
                upvoted.save(scope.upvoted_path, sessions, now_epoch)
    except Busy as exc:
        warn(f"{exc.what} stayed locked for {wait:g}s; the reads stay pending and the next Stop or pull "
             "credits them")
        result.busy = True
        return result
    lines = [_consumed_line(d, d.credit, ts) for d in decisions]
    from . import runlog

    try:
        runlog.append(scope.log_path, scope.log_lock, lines, wait)
    except (Busy, OSError) as exc:
        warn(f"could not mark reads as consumed ({exc}); the per-session ledger keeps them from counting twice")
        return result
    result.consumed = len(lines)
    result.pending -= len({d.match.read.ident for d in decisions})
    return result
