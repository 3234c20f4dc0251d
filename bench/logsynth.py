"""Deterministic synthetic recall logs for the reducer's benchmarks.

A log is what a team member's agents write between two pulls: sessions of a few turns each; in
a turn the agent usually recalls (a run line, and the claim of the shell call that ran it, or a
session named by the environment) and then reads one or two of the docs it found (sometimes a
subagent does, sometimes the recall subagent itself), and reads other docs under the knowledge
roots that no recall printed; now and then an OpenCode child session is linked to its parent.
Doc popularity is skewed, as it is in a real tree. Each doc has one vote key and one path.
The reduce benchmark then reduces the log once, so that it holds the consumed lines that the
Stops after each turn would have written.
"""

from __future__ import annotations

import json
import random

RECALL_SUBAGENT = "teamai-recall"


def _stamp(seconds: float) -> str:
    import time

    whole = int(seconds)
    return time.strftime("%Y-%m-%dT%H:%M:%S.", time.gmtime(whole)) + f"{int((seconds - whole) * 1000):03d}Z"


def docs(root: str, count: int = 600) -> list[tuple[str, str]]:
    """(vote key, printed path) of the docs a team tree offers."""
    out = []
    for i in range(count):
        kind = ("learnings", "learnings", "docs", "rules", "learnings")[i % 5]
        key = f"ns{i % 12}/note-{i:04d}" if kind == "learnings" else f"topic-{i:04d}"
        out.append((key, f"{root}/{kind}/{key}.md"))
    return out


def _doc(key: str, path: str, rng: random.Random) -> dict[str, object]:
    return {"key": key, "type": "learning", "scope": "workspace", "path": path, "score": round(rng.uniform(2, 9), 1),
            "eligible": True}


def turn_lines(session: str, start: float, run_id: str, printed: list[tuple[str, str]],
               rng: random.Random, reads: int = 2, others: list[tuple[str, str]] | None = None,
               claimed: bool = True, recall_subagent: str | None = None) -> list[dict[str, object]]:
    """The lines one turn writes: a run, its claim, reads of what it printed and of other docs."""
    t = start
    lines: list[dict[str, object]] = [{
        "kind": "run", "ts": _stamp(t), "run": run_id, "session": session, "via": "env", "unambiguous": True,
        "agent": "claude", "actor": {"agent_id": recall_subagent} if recall_subagent else {},
        "caller": RECALL_SUBAGENT if recall_subagent else None,
        "docs": [_doc(key, path, rng) for key, path in printed]}]
    if claimed:
        t += 1
        actor = {"agent_id": recall_subagent, "agent_type": RECALL_SUBAGENT} if recall_subagent else {}
        lines.append({"kind": "claim", "ts": _stamp(t), "run": run_id, "session": session, "agent": "claude",
                      "actor": actor})
    chosen = [printed[rng.randrange(len(printed))] for _ in range(reads)] if printed else []
    for _, path in chosen + (others or []):
        t += rng.uniform(5, 90)
        who = rng.random()
        actor = {"agent_id": recall_subagent} if recall_subagent and who < 0.5 else (
            {"agent_id": f"sub-{rng.randrange(10**6):06d}"} if who < 0.2 else {})
        lines.append({"kind": "evidence", "ts": _stamp(t), "session": session, "agent": "claude", "actor": actor,
                      "path": path, "exact": True, "via": "read", "simple": True, "status": "success"})
    return lines


def month(root: str, lines: int, end: float, days: float, seed: int = 7) -> list[dict[str, object]]:
    """The last ``lines`` log lines of about ``days`` days of use before ``end`` (seconds since the
    epoch), in the order they were written (sessions overlap, as they do)."""
    rng = random.Random(seed)
    pool = docs(root)
    weights = [1 / (i + 1) ** 0.9 for i in range(len(pool))]
    out: list[dict[str, object]] = []
    gap = (days * 86400 - 7200) / max(4, lines / 14)  # a session writes about 17 lines
    n = 0
    for s in range(10**6):
        t = end - days * 86400 + s * gap
        if t > end - 3600:
            break
        session = f"ses-{s:05d}"
        if s and rng.random() < 0.03:  # an OpenCode child session of an earlier one
            out.append({"kind": "link", "ts": _stamp(t), "child": session, "parent": f"ses-{rng.randrange(s):05d}",
                        "agent": "opencode"})
        for _ in range(rng.randint(2, 8)):
            t += rng.uniform(60, 900)
            others = rng.choices(pool, weights, k=rng.randint(0, 3))
            if rng.random() < 0.7:
                printed = list(dict.fromkeys(rng.choices(pool, weights, k=rng.randint(2, 5))))
                n += 1
                run_id = (f"{n:08x}-{rng.randrange(16**4):04x}-4{rng.randrange(16**3):03x}-"
                          f"8{rng.randrange(16**3):03x}-{rng.randrange(16**12):012x}")
                marked = f"agent-{n:06d}" if rng.random() < 0.25 else None
                out.extend(turn_lines(session, t, run_id, printed, rng, reads=rng.choice((0, 1, 1, 2)),
                                      others=others, claimed=rng.random() < 0.8, recall_subagent=marked))
            else:
                for _, path in others:
                    t += rng.uniform(5, 90)
                    out.append({"kind": "evidence", "ts": _stamp(t), "session": session, "agent": "claude",
                                "actor": {}, "path": path, "exact": True, "via": "read", "simple": True,
                                "status": "success"})
    out.sort(key=lambda rec: str(rec["ts"]))
    return [rec for rec in out if str(rec["ts"]) < _stamp(end)][-lines:]


def encode(records: list[dict[str, object]]) -> bytes:
    return b"".join(json.dumps(r, ensure_ascii=False, separators=(",", ":")).encode() + b"\n" for r in records)
