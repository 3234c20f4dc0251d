"""What the checkpoint keeps: the lines any later decision can still need, and what it notes about
the lines it drops (``checkpoint.py`` explains why that is enough).

For a horizon ``H`` an hour (``checkpoint.SLACK``) before the newest line:

- every link that counts (each child's earliest);
- every run from ``H`` - 24 h on, and every run inside the window of a kept older read (run lines
  keep only the doc fields a decision reads);
- the first claim of each kept run, and first claims of run ids the log has no run for (from
  ``H`` - 24 h on);
- pending reads whose status counts: all from ``H`` on, and older ones that adopt a doc now (a
  family whose Stop has not come yet);
- consumed lines whose read is within 24 h of a kept read or of ``H``, for the cover.

Of the runs it drops it notes the recall subagent's actors (with their first marked run's time)
and the first ``checkpoint.PREFIX`` characters of their ids; it counts the malformed lines and
the pending reads that can never count. Lines are decoded only where their bytes cannot say.

That this is enough is tested, not only argued (``checkpoint.py``): ``tests/reducer/test_properties.py``
compares every Stop through the checkpoint with a reduce of the whole log with every line decoded,
in logs that prunes cut and in which writes fail, with late lines, late first claims and late
links; ``tests/reducer/test_checkpoint_trust.py`` edits the log by hand before the checkpoint's
offset, which changes the digest of those bytes, so the checkpoint is not used.
"""

from __future__ import annotations

from bisect import bisect_left

from ..state import jsontext
from ..state.clock import stamp_micros
from .checkpoint import PREFIX, SLACK, Makers, View, dropped_ids, kind_of
from .join import matches
from .logread import (
    DAY,
    KINDS,
    Lines,
    consumed_identity,
    counts,
    encode,
    identity,
    instant,
    maybe_recall_subagent,
    raw_ids,
    run_of,
    stamp_of,
    text,
    well_formed,
)
from .sessions import Roots, best_links
from .settle import first_claims, settled_by

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from .logread import Maker, Record
    from .model import Model


def compact(lines: Lines, model: Model, now: int, base: View | None) -> tuple[dict[str, Any], bytes]:
    """The header fields and kept lines for the log ``lines`` hold. ``model`` is built from them
    for every session (``only_pending`` or not); ``base`` is the checkpoint they were read
    through, if any. Lines are decoded only where the bytes cannot say."""
    head_base = base.header if base is not None else None
    base_makers = base.makers if base is not None else None
    newest = _newest(lines, now)
    horizon = min(newest, now) - SLACK
    low, recent = stamp_micros(horizon - DAY), stamp_micros(horizon)
    kept_reads: list[Record] = []
    older: list[int] = []
    idle = 0
    for read in model.reads:
        if read.counts and (read.ts >= horizon or matches(model, read)):
            kept_reads.append(model.records[read.ident])
            if read.ts < horizon:
                older.append(read.ts)
        else:
            idle += 1
    late = [line for line in model.idle if (stamp_of(line, "evidence") or recent) >= recent]
    idle += len(model.idle) - len(late)
    for rec in lines.decode("evidence", late):  # from the horizon on, every read that counts
        if counts(rec.get("status"), rec.get("simple")) and identity(rec) is not None:
            kept_reads.append(rec)
        else:
            idle += 1
    older.sort()
    cover = (min(horizon, older[0]) if older else horizon) - DAY

    # Runs from the horizon's day on, and in the windows of the older reads kept.
    run_ids: set[str] = set()
    dropped: set[str] = set()
    kept_raw: list[bytes] = []
    dropped_raw: list[bytes] = []
    odd: list[bytes] = []
    for line in lines.raw["run"]:
        run_id, ts = run_of(line), stamp_of(line, "run")
        if run_id is None or ts is None:
            odd.append(line)
            continue
        run_ids.add(run_id)
        if ts >= low or _in_a_window(older, instant(ts) or 0):
            kept_raw.append(line)
        else:
            dropped.add(run_id)
            if maybe_recall_subagent(line, b'"caller":', absent=True):
                dropped_raw.append(line)
    kept_runs = lines.decode("run", kept_raw)
    dropped_runs = lines.decode("run", dropped_raw)
    for rec in lines.decode("run", odd) + lines.done["run"]:
        run_id, when = text(rec.get("run")), instant(rec.get("ts"))
        if run_id is None:
            continue  # no claim can name it, and it never settles
        run_ids.add(run_id)
        if when is not None and (when >= horizon - DAY or _in_a_window(older, when)):
            kept_runs.append(rec)
        else:
            dropped.add(run_id)
            dropped_runs.append(rec)
    runs = [_trimmed(rec) for rec in kept_runs]
    kept_ids = {rec["run"] for rec in runs}

    # Claims: the first of each kept run, the first of each run id no run line names (from the
    # horizon's day on), and those that name the recall subagent of a dropped run.
    marked = {run_of(line) for line in lines.raw["claim"] if maybe_recall_subagent(line, b'"agent_type":', absent=False)}
    # a claim whose run id the bytes cannot read may name the recall subagent too
    marked |= {text(rec.get("run")) for rec in lines.decode("claim", [line for line in lines.raw["claim"]
                                                                       if run_of(line) is None])}
    needed = kept_ids | {text(rec.get("run")) for rec in dropped_runs} | (marked & dropped)
    first = first_claims(lines.decode("claim", [line for line in lines.raw["claim"] if (run_id := run_of(line)) is None
                                                or run_id in needed or run_id not in run_ids])
                         + lines.done["claim"])
    claims: list[Record] = []
    for run_id, (order, rec) in first.items():
        if run_id in kept_ids or (run_id not in run_ids and order[0] >= horizon - DAY):
            claims.append(rec)
        elif run_id not in run_ids:
            dropped.add(run_id)
    makers: dict[Maker, int] = dict(base_makers.of()) if base_makers is not None else {}
    roots: list[Roots] = []  # built on first use: few logs drop a marked run nobody claimed

    def child(session: str) -> bool:
        if not roots:
            roots.append(Roots(lines.get("link")))
        return roots[0].root(session) != session

    for rec in dropped_runs + lines.decode("run", [line for line in lines.raw["run"] if run_of(line) in marked & dropped
                                                   and line not in dropped_raw]):
        run_id, when = text(rec.get("run")), instant(rec.get("ts"))
        settled = settled_by(rec, first[run_id][1] if run_id in first else None, child) if run_id is not None else None
        if when is not None and settled is not None and settled[1] is not None:
            makers[settled[1]] = min(makers.get(settled[1], when), when)
    floor = stamp_micros(cover).encode()
    consumed_ids = raw_ids(lines.raw["consumed"], "consumed")
    consumed = [line for line, raw_id in zip(lines.raw["consumed"], consumed_ids, strict=True)
                if raw_id is not None and raw_id[0] >= floor]
    odd = [line for line, raw_id in zip(lines.raw["consumed"], consumed_ids, strict=True) if raw_id is None]
    consumed.extend(encode(rec) for rec in lines.decode("consumed", odd) + lines.done["consumed"]
                    if (ident := consumed_identity(rec)) is not None and (w := instant(ident[0])) is not None
                    and w >= cover)
    links = [rec for _, _, rec in best_links(lines.get("link")).values()]
    digest = {run_id[:PREFIX] for run_id in dropped}
    if base is not None and head_base:
        digest.update(dropped_ids(base.digest))
    body = b"".join(line + b"\n" for line in [*(encode(rec) for rec in links + runs + claims), *consumed,
                                               *(encode(rec) for rec in kept_reads)])
    head = {"horizon": horizon, "newest": newest, "bad": (head_base["bad"] if head_base else 0) + lines.bad,
            "idle": (head_base["idle"] if head_base else 0) + idle,
            "makers": [Makers.line(maker, since) for maker, since in sorted(
                makers.items(), key=lambda m: (m[0][0], m[0][1] or "", m[1]))],
            "digest": "\n".join(sorted(digest)), "size": len(body)}
    return head, body


def _newest(lines: Lines, now: int) -> int:
    """The latest ``ts`` among the lines (``now`` when there is none)."""
    texts = [ts for kind in KINDS for line in lines.raw[kind] if (ts := stamp_of(line, kind)) is not None]
    best = instant(max(texts)) if texts else None
    others = [rec["ts"] for kind in KINDS for rec in lines.done[kind]]
    others += [rec["ts"] for kind in KINDS
               for rec in lines.decode(kind, [line for line in lines.raw[kind] if stamp_of(line, kind) is None])]
    stamps = [w for ts in others if (w := instant(ts)) is not None] + ([best] if best is not None else [])
    if texts and best is None:  # the greatest text is not an instant: judge every one
        stamps += [w for ts in texts if (w := instant(ts)) is not None]
    return max(stamps, default=now)


def _in_a_window(older: list[int], when: int) -> bool:
    """Whether a run at ``when`` lies in the 24 h window of one of the (sorted) read times."""
    at = bisect_left(older, when)
    return at < len(older) and older[at] <= when + DAY


def _trimmed(rec: Record) -> Record:
    """A run line with only the doc fields a decision reads."""
    docs = rec.get("docs")
    if not isinstance(docs, list):
        return rec
    short = [{k: d[k] for k in ("key", "path", "eligible") if k in d} if isinstance(d, dict) else d for d in docs]
    return {k: (short if k == "docs" else v) for k, v in rec.items()}


def grown(view: View) -> tuple[dict[str, Any], bytes]:
    """The header fields, and the lines to add after the kept ones, when the new lines are simply
    added (malformed ones are counted instead)."""
    head = view.header
    assert head is not None
    fields = {k: head[k] for k in ("horizon", "idle", "size", "bad")}
    delta_newest = max([stamp_of(line, kind) or "" for line in view.delta.split(b"\n")
                        if (kind := kind_of(line)) is not None], default="")
    fields["newest"] = max(head["newest"], (instant(delta_newest) or 0) if delta_newest else 0)
    good = []
    for raw in view.delta.split(b"\n"):
        if not raw.strip():
            continue
        try:
            rec = jsontext.loads(raw)
        except ValueError:
            rec = None
        if well_formed(rec):
            good.append(raw + b"\n")
        else:
            fields["bad"] += 1
    return fields, b"".join(good)
