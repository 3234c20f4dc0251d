"""What the log says, as far as a decision needs it: settled runs per root session, the recall
subagent's actors, the credits already given and the reads still pending.

:func:`build` applies the rules of ``sessions`` and ``settle``, and which reads count
(``logread.counts``), to whatever lines it is given; the Stop path gives it the checkpoint's lines
and the new ones, ``pull`` and ``stats`` the whole log. Its outcome depends on the set of lines,
never on their order. The join (``join.matches``) and the credit decide on the model it builds.

What a reduce decodes: only what its pending reads can need (a few reads: the runs that print
their paths, and the recall subagent's runs of their sessions; many: the runs of their roots in the
24 h before them, found from the bytes). A Stop passes over every line in which no session of its
family can be a string value, and over runs that neither name one of them nor are claimed in a
line that does (why that is safe: ``reducer/__init__.py``); claims of a run line in another
spelling, and runs of claims in another spelling, are always read; ``stats`` reads everything.
``tests/reducer/test_model_shortcuts.py`` holds the shortcuts to decoding every line, over random
logs in mixed spellings; a log they fail on is written out as a scenario (``tests/reducer/log_cases.py``).
"""

from __future__ import annotations

from bisect import bisect_left

from ..state import jsontext
from ..state.storage import utf8
from .logread import (
    DAY,
    Lines,
    Read,
    agent_id,
    comparable,
    complete,
    consumed_identity,
    counts,
    identity,
    instant,
    maybe_recall_subagent,
    path_values,
    raw_ids,
    run_of,
    session_of,
    stamp_of,
    text,
)
from .sessions import Roots
from .settle import first_claims, settle

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ..team.config import Config
    from .checkpoint import Makers
    from .logread import EvidenceId, Maker, Record
    from .settle import ClaimOrder, Run


class Model:
    def __init__(self) -> None:
        self.runs: dict[str, list[Run]] = {}  # root -> settled runs, oldest first
        self.makers: dict[str, dict[Maker, int]] = {}  # root -> recall subagent actor -> its first run's ts
        self.consumed: dict[EvidenceId, list[Record]] = {}  # read -> its consumed lines (only_pending: some)
        self.credits: dict[tuple[str, str], list[int]] = {}  # (root, key) -> ts of the reads that credited
        self.reads: list[Read] = []  # reads with no consumed line
        self.records: dict[EvidenceId, Record] = {}  # pending read -> its line (for the checkpoint)
        self.first: dict[str, tuple[ClaimOrder, Record]] = {}  # run id -> its first claim
        self.roots = Roots([])
        self.all_runs = 0
        self.idle: list[bytes] = []  # pending reads left undecoded: exact paths no run of their root printed
        self.skipped = 0


def build(lines: Lines, only_pending: bool = False, stopping: str | None = None,
          makers: Makers | None = None) -> Model:
    """The settled runs, the consumed reads and the reads still pending.

    With ``only_pending`` (a reduce) only what pending reads need is decoded: the consumed lines
    and runs of the root sessions that have one, and not an exact read of a path no run of its
    root printed (it is kept in ``idle``, undecoded); nothing else is built when no read is
    pending. With ``stopping`` only the reads of that session's family (its root and every
    session linked under it) are pending: a Stop settles its own session, and ``pull`` drains the
    others. ``makers`` are recall subagent actors (with their first run's ts) whose runs are no
    longer among the lines (the checkpoint keeps them).
    """
    model = Model()
    if not only_pending:
        model.roots = Roots(lines.get("link"))
        for rec in lines.get("consumed"):
            _consumed(model, rec)
        model.first = first_claims(lines.get("claim"))
        _reads(model, lines.get("evidence"), None, set())
        _runs(model, lines.get("run"), makers)
        model.skipped = lines.bad
        return model

    return _build_pending(lines, stopping, makers)


def _build_pending(lines: Lines, stopping: str | None, makers: Makers | None) -> Model:
    """:func:`build` with ``only_pending``: a reduce decodes only what its pending reads can need."""
    model = Model()
    model.skipped = lines.bad
    if not lines.raw["evidence"] and not lines.done["evidence"]:
        return model
    family: set[str] | None = None
    needles: list[bytes] | None = None
    evidence_raw, consumed_all = lines.raw["evidence"], lines.raw["consumed"]
    if stopping is not None:
        roots = model.roots = Roots(lines.get("link"))
        family = roots.family({roots.root(stopping)})
        needles = _mentioning(family)
        evidence_raw = _mentioned(evidence_raw, needles)
        consumed_all = _mentioned(consumed_all, needles)
    # Cheap first look, before decoding anything: only reads with no consumed line matter, and none
    # means nothing to do. Identities are read as bytes; an unsure one is decoded and judged.
    consumed_raw = raw_ids(consumed_all, "consumed")
    done_ids = {raw_id for raw_id in consumed_raw if raw_id is not None}
    unsure = lines.decode("consumed", [line for line, raw_id in zip(consumed_all, consumed_raw, strict=True)
                                       if raw_id is None]) + lines.done["consumed"]
    done_text: set[Any] = {ident for rec in unsure if (ident := consumed_identity(rec)) is not None}
    evidence_ids = raw_ids(evidence_raw, "evidence")
    unconsumed = [(line, raw_id) for line, raw_id in zip(evidence_raw, evidence_ids, strict=True)
                  if raw_id is None or raw_id not in done_ids]
    if family is not None:
        unconsumed = [(line, raw_id) for line, raw_id in unconsumed
                      if raw_id is None or raw_id[1].decode() in family]
    if not unconsumed and not lines.done["evidence"]:
        model.skipped = lines.bad
        return model
    if family is None:
        roots = model.roots = Roots(lines.get("link"))

    if len(unconsumed) + len(lines.done["evidence"]) <= FEW:
        # A Stop: a handful of reads. Decode them all, and only the runs that could matter to them.
        if done_ids and (lines.done["evidence"] or any(raw_id is None for _, raw_id in unconsumed)):
            done_text |= {tuple(part.decode() for part in raw_id) for raw_id in done_ids}
        _reads(model, lines.decode("evidence", [line for line, _ in unconsumed]) + lines.done["evidence"], family,
               done_text)
        times = _times(model)
        wanted = _runs_for_few(lines, model, times, needles)
    else:
        # An exact read of a path that no run of its root printed in the 24 h before it cannot adopt:
        # leave it undecoded. Which session a run belongs to is read from the bytes here. (A line
        # ``evidence_id`` reads has its actor as its one nested object; a second one could be the
        # object that says ``"exact":true``, and the line is then decoded.)
        if len(lines.raw["run"]) + len(lines.raw["evidence"]) > 2000:
            import datetime  # noqa: F401 - a long log: clock.micros then uses its C parser
        index = RunIndex(lines, roots)
        useful = []
        for line, raw_id in unconsumed:
            if raw_id is not None and b'"exact":true' in line and line.count(b"{") == 2:
                when = instant(raw_id[0].decode("ascii", "replace"))
                root = roots.root(raw_id[1].decode())
                if when is not None and not index.printed_within(raw_id[2].decode(), when, root):
                    model.idle.append(line)
                    continue
            useful.append(line)
        if done_ids and (lines.done["evidence"] or any(raw_id is None for _, raw_id in unconsumed)):
            # a read in another spelling than the log's own: compare it with every consumed line
            done_text |= {tuple(part.decode() for part in raw_id) for raw_id in done_ids}
        _reads(model, lines.decode("evidence", useful) + lines.done["evidence"], family, done_text)

        # The runs the counting reads can join (a run of their root in the 24 h before one of them)
        # or that can make their reader a maker (the recall subagent's runs of a reading session).
        times = _times(model)
        marked = index.marked_runs({r.session for r in model.reads if r.counts})
        wanted = [line for line, when, run_id, root in index.lines
                  if when is None or run_id is None or run_id in marked or _near(times.get(root, []), when)]
    # (a run line in another spelling was decoded when read: its claims are wanted as well)
    runs = lines.decode("run", wanted) + lines.done["run"]
    model.first = claims_for(lines, {rec["run"] for rec in runs if isinstance(rec.get("run"), str)})
    _runs(model, runs, makers)

    # The credits that can cover them: consumed lines of their roots within 24 h of one of them.
    near = []
    for line, raw_id in zip(consumed_all, consumed_raw, strict=True):
        if raw_id is None:
            continue
        credited = session_of(line)  # the root it was credited under, whose root may since have moved
        if _close(times.get(roots.root(credited) if isinstance(credited, str) else None, []),
                  instant(raw_id[0].decode("ascii", "replace"))):
            near.append(line)
    for rec in lines.decode("consumed", near) + unsure:
        _consumed(model, rec)
    model.skipped = lines.bad
    return model


FEW = 64  # pending reads up to which a reduce looks for their runs by the bytes of their paths
_PATH_KEY = b'"path":"'


def _unusual(line: bytes) -> bool:
    """Whether a raw run line may print a path whose comparable spelling differs from its bytes."""
    return b"\\" in line or b"/." in line or b"//" in line or _drive_path(line)


def _drive_path(line: bytes) -> bool:
    """Whether a ``"path"`` value starts with a drive letter and its colon (``C:``)."""
    at = line.find(_PATH_KEY)
    while at >= 0:
        letter = line[at + 8:at + 9]
        if letter.isalpha() and line[at + 9:at + 10] == b":":
            return True
        at = line.find(_PATH_KEY, at + 1)
    return False


def _times(model: Model) -> dict[str | None, list[int]]:
    """The counting reads' ts per root (and all of them under None), sorted."""
    times: dict[str | None, list[int]] = {}
    for read in model.reads:
        if read.counts:
            times.setdefault(read.root, []).append(read.ts)
            times.setdefault(None, []).append(read.ts)
    for found in times.values():
        found.sort()
    return times


def _mentioning(sessions: set[str]) -> list[bytes]:
    """Needles that find every raw line in which one of ``sessions`` may be a string value
    (``_mentioned``)."""
    return [utf8(jsontext.quote(session)) for session in sessions]


def _mentioned(lines: list[bytes], needles: list[bytes]) -> list[bytes]:
    """The lines in which one of the sessions the ``needles`` quote may be a string value.

    In JSON without a backslash every string is spelt as its own characters between quotes, so a
    line that holds neither a backslash nor one of the sessions quoted names none of them, in any
    field, however its keys are spelt. A Stop passes over the other lines of the log unread: what
    it decides is about its own family's reads, their runs and credits."""
    blob = b"\n".join(lines)
    starts: list[int] = []  # where each needle is found, in one pass of bytes.find per needle
    for needle in (b"\\", *needles):
        at = blob.find(needle)
        while at >= 0:
            starts.append(at)
            at = blob.find(needle, at + 1)
    out: list[bytes] = []
    number, before, last = 0, 0, -1
    for at in sorted(starts):  # each place to the number of its line, counting newlines onwards
        number += blob.count(b"\n", before, at)
        before = at
        if number != last:
            out.append(lines[number])
            last = number
    return out


def _runs_for_few(lines: Lines, model: Model, times: dict[str | None, list[int]],
                  family: list[bytes] | None = None) -> list[bytes]:
    """The raw run lines a few pending reads can need: those that print one of their exact paths
    (or print paths in a spelling the bytes cannot compare), those in the 24 h before one of their
    inexact reads, and the recall subagent's runs of a reading session. With ``family`` (a Stop's
    needles, ``_mentioning``), only runs that may settle in the stopping family are looked at:
    those whose line or one of whose claims mentions one of its sessions."""
    counting = [read for read in model.reads if read.counts]
    if not counting:
        return []
    needles = {utf8(jsontext.quote(read.path)) for read in counting if read.exact}
    inexact = sorted(read.ts for read in counting if not read.exact)
    readers = {read.session for read in counting}
    claims, runs = lines.raw["claim"], lines.raw["run"]
    if family is not None:
        claims = _mentioned(claims, family)
        claimed = {run_of(line) for line in claims}
        claimed.update(rec["run"] if isinstance(rec.get("run"), str) else None for rec in lines.done["claim"])
        if None not in claimed:  # else a claim of the family names its run in another spelling
            # (a run line holds its id as a string, however its key is spelt; one with a backslash is
            # always looked at)
            named = [utf8(jsontext.quote(run_id)) for run_id in claimed if run_id is not None]
            runs = _mentioned(runs, family + named)
    # the runs of claims in another spelling were decoded when read: each may mark a maker
    # (a run that is not a string, such as a list in a hand-edited line, names no run line)
    marked: set[str | None] = {run if isinstance(run := rec.get("run"), str) else None for rec in lines.done["claim"]}
    unread: list[bytes] = []  # claims that may mark a maker, whose run id the bytes cannot read
    for line in claims:
        session = session_of(line)
        if (isinstance(session, bytes) or session in readers) and maybe_recall_subagent(line, b'"agent_type":',
                                                                                        absent=False):
            run_id = run_of(line)
            if run_id is None:
                unread.append(line)
            marked.add(run_id)
    marked.update(rec["run"] for rec in lines.decode("claim", unread) if isinstance(rec.get("run"), str))
    out = []
    for line in runs:
        if any(needle in line for needle in needles) or _unusual(line):
            out.append(line)
        elif maybe_recall_subagent(line, b'"caller":', absent=True) or (run_id := run_of(line)) in marked:
            out.append(line)
        elif run_id is None and marked:  # a run whose id the bytes cannot read may be a marked one
            out.append(line)
        elif inexact:
            ts = stamp_of(line, "run")
            when = instant(ts) if ts is not None else None
            if when is None or _near(inexact, when):
                out.append(line)
    return out


def _near(times: list[int], run_at: int) -> bool:
    """Whether a read at one of the (sorted) ``times`` lies in the window of a run at ``run_at``."""
    at = bisect_left(times, run_at)
    return at < len(times) and times[at] <= run_at + DAY


def _close(times: list[int], read_at: int | None) -> bool:
    """Whether a credit by a read at ``read_at`` can cover a read at one of the (sorted) ``times``."""
    if read_at is None:
        return True
    at = bisect_left(times, read_at - DAY + 1)
    return at < len(times) and times[at] < read_at + DAY


class RunIndex:
    """What the raw run and claim lines say without being decoded: each run line's ts, run id and
    root session (None when the bytes cannot tell, or when no one settled it), and when each path
    was printed by a run of which root. Lines in another spelling count for every root."""

    def __init__(self, lines: Lines, roots: Roots) -> None:
        self._raw = lines.raw
        first: dict[str, tuple[str, str | None]] = {}  # run id -> (ts, session or None: unclear)
        odd: list[bytes] = []  # claims whose run id the bytes cannot read
        for line in lines.raw["claim"]:
            run_id, ts, session = run_of(line), stamp_of(line, "claim"), session_of(line)
            if run_id is None:
                odd.append(line)
                continue
            if ts is None or not isinstance(session, str):
                ts, session = "", None  # unclear: it may be the first claim
            if run_id not in first or (ts, session or "") < (first[run_id][0], first[run_id][1] or ""):
                first[run_id] = (ts, session)
        # claims in another spelling, and those whose run id the bytes cannot read, decoded
        self._done_claims = lines.done["claim"] + lines.decode("claim", odd)
        for rec in self._done_claims:
            if isinstance(rec.get("run"), str):
                first[rec["run"]] = ("", None)
        self.lines: list[tuple[bytes, int | None, str | None, str | None]] = []  # (line, ts, run id, root)
        self.printed: dict[tuple[str, str | None], list[int]] = {}  # (path, root or None) -> when
        self.unclear = bool(lines.done["run"])
        for line in lines.raw["run"]:
            ts = stamp_of(line, "run")
            when = instant(ts) if ts is not None else None
            run_id = run_of(line) if when is not None else None
            if when is None or run_id is None:
                self.lines.append((line, None, None, None))
                self.unclear = True
                continue
            if run_id in first:
                session = first[run_id][1]
            elif b'"via":"env"' in line and b'"unambiguous":true' in line:
                named = session_of(line)
                session = named if isinstance(named, str) else None
            else:
                continue  # unsettled: no read can join it now, and it makes no maker
            root = roots.root(session) if session is not None else None
            self.lines.append((line, when, run_id, root))
            for path in path_values(line, comparable):
                self.printed.setdefault((path, root), []).append(when)
        for found in self.printed.values():
            found.sort()

    def printed_within(self, path: str, read_at: int, root: str) -> bool:
        """Whether a run of ``root`` (or of a root the bytes cannot tell) printed ``path`` in the
        24 h before ``read_at``."""
        if self.unclear:
            return True
        for key in ((path, root), (path, None)):
            found = self.printed.get(key, ())
            at = bisect_left(found, read_at - DAY)
            if at < len(found) and found[at] <= read_at:
                return True
        return False

    def marked_runs(self, sessions: set[str]) -> set[str]:
        """Run ids the recall subagent may have run for one of ``sessions`` (by its caller flag or
        its claim's agent type); a line the bytes cannot tell about is included, and so is the run
        of every claim in another spelling."""
        out: set[str] = {rec["run"] for rec in self._done_claims if isinstance(rec.get("run"), str)}
        claimed: set[str] = set()
        for line in self._raw["claim"]:
            session, run_id = session_of(line), run_of(line)
            if run_id is None or not (isinstance(session, bytes) or session in sessions):
                continue
            claimed.add(run_id)
            if maybe_recall_subagent(line, b'"agent_type":', absent=False):
                out.add(run_id)
        for line, _, run_id, _ in self.lines:
            if run_id is None or not maybe_recall_subagent(line, b'"caller":', absent=True):
                continue
            session = session_of(line)
            if isinstance(session, bytes) or session in sessions or run_id in claimed:
                out.add(run_id)
        return out


def claims_for(lines: Lines, run_ids: set[Any]) -> dict[str, tuple[ClaimOrder, Record]]:
    """The first claim of each of ``run_ids`` (claims in another spelling are always read)."""
    raw = [line for line in lines.raw["claim"] if (run_id := run_of(line)) is None or run_id in run_ids]
    return first_claims(lines.decode("claim", raw) + lines.done["claim"])


def _consumed(model: Model, rec: Record) -> None:
    ident = consumed_identity(rec)
    if ident is None:
        return
    model.consumed.setdefault(ident, []).append(rec)
    key, root, when = text(rec.get("key")), text(rec.get("session")), instant(ident[0])
    if rec.get("credited") is True and key and root and when is not None:
        # A credit covers the root its session has now: a child credited as a root of its own
        # before its link arrived covers its new root's reads of that doc for the same 24 h.
        model.credits.setdefault((model.roots.root(root), key), []).append(when)


def _reads(model: Model, records: list[Record], family: set[str] | None, consumed: set[Any]) -> None:
    roots = model.roots
    for rec in records:
        ident, when, session = identity(rec), instant(rec.get("ts")), text(rec.get("session"))
        if ident is None or when is None or session is None or ident in consumed or ident in model.consumed:
            continue
        if family is not None and session not in family:
            continue
        model.reads.append(Read(ident, when, session, roots.root(session), (session, agent_id(rec.get("actor"))),
                                ident[2], rec.get("exact") is True, counts(rec.get("status"), rec.get("simple"))))
        model.records[ident] = rec


def _runs(model: Model, records: list[Record], makers: Makers | None) -> None:
    roots, first = model.roots, model.first
    for rec in records:
        model.all_runs += 1
        run_id = rec.get("run")
        claim = first[run_id][1] if isinstance(run_id, str) and run_id in first else None
        run = settle(rec, claim, roots, comparable)
        if run is None:
            continue
        model.runs.setdefault(run.root, []).append(run)
        if run.maker is not None:
            _made(model, run.root, run.maker, run.ts)
    if makers is not None:  # a maker's reads are those of its own session
        for maker, since in makers.of({read.session for read in model.reads}):
            _made(model, roots.root(maker[0]), maker, since)
    for runs in model.runs.values():
        runs.sort(key=lambda r: (r.ts, r.run))


def _made(model: Model, root: str, maker: Maker, since: int) -> None:
    known = model.makers.setdefault(root, {})
    if maker not in known or since < known[maker]:
        known[maker] = since


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
