"""Builders for recall log lines, shaped as recall and the hooks write them (every field is in
``reference/state/runlog.py``)."""

from __future__ import annotations

import datetime as dt
import json
import random
from pathlib import Path
from typing import Any

T0 = dt.datetime(2026, 11, 30, 10, 0, tzinfo=dt.UTC)


def ts(seconds: float = 0.0) -> str:
    instant = T0 + dt.timedelta(seconds=seconds)
    return instant.strftime("%Y-%m-%dT%H:%M:%S.") + f"{instant.microsecond // 1000:03d}Z"


def doc(key: str, path: str, eligible: bool = True, scope: str = "workspace") -> dict[str, Any]:
    return {"key": key, "type": "learning", "scope": scope, "path": path, "score": 1.0, "eligible": eligible}


def run(at: float, run_id: str, session: str | None, docs: list[dict[str, Any]], *, unambiguous: bool = True,
        via: str | None = None, agent: str | None = "claude", caller: str | None = None) -> dict[str, Any]:
    return {"kind": "run", "ts": ts(at), "run": run_id, "session": session,
            "via": via or ("env" if session else "none"), "unambiguous": unambiguous if session else False,
            "agent": agent if session else None, "actor": {}, "caller": caller, "docs": docs}


def claim(at: float, run_id: str, session: str, agent_id: str | None = None, agent_type: str | None = None,
          agent: str = "claude") -> dict[str, Any]:
    actor = {k: v for k, v in (("agent_id", agent_id), ("agent_type", agent_type)) if v}
    return {"kind": "claim", "ts": ts(at), "run": run_id, "session": session, "agent": agent, "actor": actor}


def evidence(at: float, session: str, path: str, agent_id: str | None = None, *, exact: bool = True,
             status: str = "success", simple: bool = True, via: str = "read", agent: str = "claude") -> dict[str, Any]:
    actor = {"agent_id": agent_id} if agent_id else {}
    return {"kind": "evidence", "ts": ts(at), "session": session, "agent": agent, "actor": actor, "path": path,
            "exact": exact, "via": via, "simple": simple, "status": status}


def link(at: float, child: str, parent: str) -> dict[str, Any]:
    return {"kind": "link", "ts": ts(at), "child": child, "parent": parent, "agent": "opencode"}


def encode(records: list[dict[str, Any]]) -> bytes:
    return b"".join((json.dumps(r, separators=(",", ":")) + "\n").encode() for r in records)


def write(path: Path, records: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(encode(records))


def busy_log(team: Path, sessions: int = 200, lines: int = 5000, seed: int = 7) -> list[dict[str, Any]]:
    """A log like a month of use: per session a few runs with claims, reads of recalled docs and of
    other docs, spread over 20 days."""
    rnd = random.Random(seed)
    out: list[dict[str, Any]] = []
    keys = [f"topic-{i:03d}" for i in range(300)]
    n = 0
    while len(out) < lines:
        s = f"ses-{n % sessions:04d}"
        base = (n % sessions) * 8640.0 + (n // sessions) * 600.0
        picked = rnd.sample(keys, 3)
        docs = [doc(k, str(team / "learnings" / f"{k}.md")) for k in picked]
        rid = f"{n:08d}-0000-4000-8000-000000000000"
        out.append(run(base, rid, s, docs))
        out.append(claim(base + 1, rid, s))
        for j in range(rnd.randint(2, 5)):
            k = rnd.choice(picked + keys[:20])
            out.append(evidence(base + 30 + j, s, str(team / "learnings" / f"{k}.md")))
        n += 1
    return out[:lines]
