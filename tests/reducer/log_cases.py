"""A log the reducer decided wrongly, written out as a scenario of the corpus.

The property in ``test_model_shortcuts`` holds the reducer's shortcuts to what decoding every line
decides. When it fails, the log it drew becomes a scenario (``conformance.comparison.counterexample``) whose
expectations are the full decode's decisions: the consumed line of every decided read, the votes of
every credited key, and the number of lines the log then holds. An implementation is judged by the
scenario through its own reduce, so the file outlives the shortcut that failed it.

Three ways to reduce, as an implementation meets them: ``pull`` (every session), a Stop with no
checkpoint (it reads the whole log, then keeps its own family's decisions), and a Stop through a
checkpoint that is neither stale nor due, which reads only what its family's sessions can need. For
the last, the checkpoint was written an hour before the log's first line and the Stop comes an hour
later, so the log's lines are all appended since and none reaches back past it.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from pathlib import Path
from typing import Any

from conformance.comparison import counterexample
from conformance.corpus import read as corpus

from .logs import T0

PULL, STOP, STOP_CHECKPOINT = "pull", "stop", "stop through the checkpoint"
AREA = "reducer"
_LATE = T0 + dt.timedelta(days=3)  # after every line the property draws
_EARLY = T0 - dt.timedelta(hours=2)
_MARK = ('{"kind":"link","ts":"' + (T0 - dt.timedelta(hours=3)).strftime("%Y-%m-%dT%H:%M:%S.000Z")
         + '","child":"s-mark-child","parent":"s-mark-parent","agent":"claude"}')


def _stamp(instant: dt.datetime) -> str:
    return instant.strftime("%Y-%m-%dT%H:%M:%SZ")


def consumed(decisions: list[Any]) -> list[dict[str, Any]]:
    """What the consumed lines of the decided reads must say, each once. A read written twice (the
    same ts, session and path) is one read to the per-session ledger: once one copy is credited,
    every copy's line says credited (``commit.write``)."""
    credited = {(d.match.read.ident, d.match.key) for d in decisions if d.credit}
    out: list[dict[str, Any]] = []
    for d in decisions:
        read_ts, session, path = d.match.read.ident
        line = {"kind": "consumed", "session": d.root, "key": d.match.key, "run": d.match.run.run,
                "credited": (d.match.read.ident, d.match.key) in credited,
                "evidence": {"ts": read_ts, "session": session, "path": path}}
        if line not in out:
            out.append(line)
    return out


def scenario(lines: tuple[bytes, ...], how: str, stopping: str | None, decisions: list[Any]) -> dict[str, Any]:
    """The scenario that reduces ``lines`` the way ``how`` names and expects ``decisions``."""
    log = [line.decode("utf-8") for line in lines]
    if how == STOP_CHECKPOINT:
        log.insert(0, _MARK)
    text = "".join(line + "\n" for line in log)
    credits = Counter(d.match.key for d in decisions if d.credit)
    reduced = "a pull" if how == PULL else f"a Stop of {stopping}" + (" through a checkpoint" if how == STOP_CHECKPOINT
                                                                      else "")
    data: dict[str, Any] = {
        "title": f"Generated log of {len(lines)} lines in mixed spellings, reduced by {reduced}: "
                 f"{sum(credits.values())} credit(s), {len(decisions) - sum(credits.values())} read(s) covered",
        "clauses": ["REDUCE-JOIN", "REDUCE-CONSUMED"] + (["REF-REDUCE-CHECKPOINT"] if how == STOP_CHECKPOINT else []),
        "provenance": counterexample.PROVENANCE,
        "agents": ["claude"],
        "team": {"docs/a.md": "# A\n", "docs/b.md": "# B\n", "learnings/c.md": "# C\n"},  # the log names /team
        "start": _stamp(_EARLY if how == STOP_CHECKPOINT else _LATE),
        "given": {"log": text, **({"checkpoint": {"read": _MARK + "\n", "replaced": False}}
                                  if how == STOP_CHECKPOINT else {})},
        "steps": [{"pull": {}}] if how == PULL else [{"hook": "claude/stop", "set": {"session_id": stopping}}],
        "expect": {"log_lines": len(log) + len(decisions),
                   **({"log_contains": consumed(decisions)} if decisions else {}),
                   **({"votes": {key: {"upvoted_count": n} for key, n in sorted(credits.items())}} if credits else {})},
    }
    data["id"] = counterexample.ident(data, "gen-log")
    return data


def write(lines: tuple[bytes, ...], how: str, stopping: str | None, decisions: list[Any], test: str,
          problem: str) -> str:
    """On Hypothesis's final example, write the scenario out; the line that names the file."""
    if not counterexample.final_example():
        return ""
    comments = [*counterexample.reproduction(test), f"Broken: {problem}.",
                "Review it; to keep it, move the file into scenarios/reducer/ and give it a real title."]
    payloads = corpus.load(Path(__file__).resolve().parents[2]).payloads
    path = counterexample.write(scenario(lines, how, stopping, decisions), AREA, payloads, comments)
    return f"counterexample written to {path}; run it with: {counterexample.rerun(path)}"
