"""Settling a run: which session ran it, and whether the recall subagent did.

- A run belongs to the session of its first claim: the claim with the earliest ``ts`` naming the
  run (ties: session, agent id, then the recall subagent's claim before any other, then agent
  type and agent, so the choice never depends on line order). A claim for a
  run id the log does not hold settles nothing. A run with no claim belongs to the session its
  environment named, but only when ``via`` is ``env`` and ``unambiguous`` is true. Every other
  run is unsettled and never votes. Later claims stay in the log and change nothing.
- A run is the recall subagent's (marked) when its caller is ``teamai-recall`` or its first
  claim's actor has ``agent_type`` ``teamai-recall``. Its maker is the actor that ran it:
  - claimed: the claim's session plus the claim's ``agent_id``. A claim with no agent id (an agent
    such as Cursor or Copilot whose hooks name no subagent) names the session's anonymous actor,
    so every read without an agent id in that session is treated as the subagent's. That errs
    towards no vote: Frank's recall subagent on Cursor must not upvote what it found itself, and
    on such an agent the hook cannot tell the main agent from the subagent.
  - never claimed (settled by its environment): the session plus the ``agent_id`` the run line's
    ``actor`` names (recall's own environment told it, as Codex's thread id does). When the run
    line names none, the maker is the session's anonymous actor only when that session is a child
    session (linked under a parent), or when the run's agent runs every subagent in a session of
    its own (:data:`OWN_SESSION_SUBAGENTS`: OpenCode's task): that actor is the subagent. OpenCode
    links the task's session to its parent only when the task has finished, after the subagent's
    reads and its Stops; waiting for the link, its own reads were credited as a root's. In any
    other root session the anonymous actor is the main agent, whose reads the spec says count, so
    nobody is the maker: the reducer does not know which actor ran it (a named decision, clause
    REF-MAKER-UNCLAIMED).
  The maker's reads from the run's ``ts`` on are kept out (``join.matches``); its reads before it
  ran the recall are its own business and count like anyone's, so a marked run never takes back a
  credit already given, and the votes do not depend on when the reducer ran.
"""

from __future__ import annotations

from .logread import agent_id, agent_type, instant, text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from .logread import Maker, Record
    from .sessions import Roots

    ClaimOrder = tuple[int, str, str, bool, str, str]

RECALL_SUBAGENT = "teamai-recall"
# Agents whose subagents each run in a session of their own (OpenCode's task tool), as recall's
# environment names them (``recall/session_env.py``): there, a session that ran a marked run
# nobody claimed is the subagent's, whether its link to the parent has come yet or not.
OWN_SESSION_SUBAGENTS = frozenset({"opencode"})


class Run:
    """A settled run. (Plain classes rather than dataclasses: a Stop pays for every import.)"""

    __slots__ = ("run", "ts", "session", "root", "agent", "maker", "docs", "printed", "eligible")

    def __init__(self, run: str, ts: int, session: str, root: str, agent: str | None,
                 maker: Maker | None, docs: list[Record]) -> None:
        self.run, self.ts, self.session, self.root, self.agent = run, ts, session, root, agent
        self.maker = maker  # (session, agent id) when the recall subagent made it
        self.docs = docs
        self.printed: set[str] = set()  # every path it printed
        self.eligible: dict[str, list[str]] = {}  # printed path (both spellings) -> eligible keys


def claim_order(rec: Record) -> ClaimOrder | None:
    """How claims of one run are ordered (earliest first); None for a claim that settles nothing."""
    session, when = text(rec.get("session")), instant(rec.get("ts"))
    if text(rec.get("run")) is None or session is None or when is None:
        return None
    actor = rec.get("actor")
    kind = agent_type(actor)
    return (when, session, agent_id(actor) or "", kind != RECALL_SUBAGENT, kind or "", text(rec.get("agent")) or "")


def first_claims(claims: list[Record]) -> dict[str, tuple[ClaimOrder, Record]]:
    """Each run id's first claim."""
    first: dict[str, tuple[ClaimOrder, Record]] = {}
    for rec in claims:
        order = claim_order(rec)
        if order is None:
            continue
        run_id = rec["run"]
        if run_id not in first or order < first[run_id][0]:
            first[run_id] = (order, rec)
    return first


def settled_by(rec: Record, claim: Record | None,
               child: Callable[[str], bool] | None = None) -> tuple[str, Maker | None] | None:
    """(the session a run line belongs to, its maker or None), or None when it is unsettled.
    ``child`` says whether a session is linked under a parent (None: it never is)."""
    actor = None
    if claim is not None:
        session: str = claim["session"]
        actor = claim.get("actor")
    elif rec.get("via") == "env" and rec.get("unambiguous") is True and text(rec.get("session")):
        session = rec["session"]
    else:
        return None
    marked = rec.get("caller") == RECALL_SUBAGENT or agent_type(actor) == RECALL_SUBAGENT
    if not marked:
        return session, None
    if claim is not None:
        return session, (session, agent_id(actor))
    known = agent_id(rec.get("actor"))  # what recall's environment told it, if anything
    if known is not None or rec.get("agent") in OWN_SESSION_SUBAGENTS or (child is not None and child(session)):
        return session, (session, known)
    return session, None


def settle(rec: Record, claim: Record | None, roots: Roots, comparable: Callable[[str], str]) -> Run | None:
    """The settled run a run line describes, or None when it is unsettled or malformed."""
    run_id, when = text(rec.get("run")), instant(rec.get("ts"))
    if run_id is None or when is None:
        return None
    settled = settled_by(rec, claim, lambda session: roots.root(session) != session)
    if settled is None:
        return None
    session, maker = settled
    agent = (text(claim.get("agent")) if claim is not None else None) or text(rec.get("agent"))
    raw_docs = rec.get("docs")
    docs = [d for d in raw_docs if isinstance(d, dict)] if isinstance(raw_docs, list) else []
    run = Run(run_id, when, session, roots.root(session), agent, maker, docs)
    for doc in docs:
        key, path = text(doc.get("key")), text(doc.get("path"))
        if path is None:
            continue
        run.printed.add(path)
        if key is not None and doc.get("eligible") is True:
            for form in {path, comparable(path)}:
                run.eligible.setdefault(form, []).append(key)
    return run
