"""The post-tool-use hook, per payload: the reference's hook-command line and its full
``hook-dispatch``, and teamai-cli 0.25.0's hook, in the same rounds beside the ``import json``
floor, with the same payload and the same number of samples.

0.25's hook is not the same work. It predates recall attribution (#884): its post-tool-use only
appends a tool-use event, with no run, claim or evidence, and it returns while a detached
background process it started is still running. Its row is named for what it does, and that
process is waited for (then killed, past a bound) before the next sample starts, so it never
runs during another tool's sample.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Mapping, Sequence

import peer
from commands import JSON_FLOOR
from measure import Tool, rounds, timed
from table import Report

PEER_ROW = f"teamai-cli {peer.VERSION}: hook call, no attribution"
GOAL_X_FLOOR = 2.0  # times the ``import json`` floor
WHAT_THE_PEER_DOES = (f"teamai-cli {peer.VERSION} does other work: it predates attribution (#884), so its "
                      "post-tool-use appends a tool-use event and no run, claim or evidence")


def bench_hook(rep: Report, work: str, team: str, env: Mapping[str, str], payloads: Mapping[str, bytes],
               dispatch: Sequence[str], fast: Sequence[str], samples: int, entry: str | None) -> None:
    rep.title("post-tool-use hook")
    peer_env = None
    if entry is not None:
        rep.note(f"setting teamai-cli {peer.VERSION} up on the same team...")
        home = os.path.join(work, "peer-hook")
        shutil.rmtree(home, ignore_errors=True)  # a work folder kept from an earlier run holds the last one
        peer_env = peer.set_up(entry, team, home)
    for name, data in payloads.items():
        one_payload(rep, name, data, env, dispatch, fast, samples, entry, peer_env)


def one_payload(rep: Report, name: str, data: bytes, env: Mapping[str, str], dispatch: Sequence[str],
                fast: Sequence[str], samples: int, entry: str | None, peer_env: Mapping[str, str] | None) -> None:
    ours_fast = Tool("reference, hook-command line", fast, env)
    ours = Tool("reference, hook-dispatch", dispatch, env)
    tools: list[Callable[[int], float]] = [lambda i: timed(JSON_FLOOR), lambda i: ours_fast(stdin=data),
                                           lambda i: ours(stdin=data)]
    theirs = None
    if entry is not None and peer_env is not None:
        theirs = Tool(PEER_ROW, ["node", entry, "hook-dispatch", "post-tool-use", "--tool", "claude"], peer_env)
        tools.append(lambda i: theirs(stdin=data))
    figs = rounds(samples, *tools)
    floor, fast_ms, ms = figs[:3]
    rep.figure("hook", f"post-tool-use, {name}, hook-command line", fast_ms, floor,
               tool=ours_fast.name, floor_name="floor (import json)", goal=f"<= {GOAL_X_FLOOR:g}x floor",
               ok=fast_ms / floor <= GOAL_X_FLOOR)
    # No goal is set against the peer's figure: it times other work.
    peer_ms = figs[3] if theirs is not None else None
    notes: tuple[str, ...] = ()
    if theirs is not None:
        left = theirs.leftovers.describe(theirs.limit)
        notes = (WHAT_THE_PEER_DOES, *((f"its hook {left}",) if left else ()))
    rep.figure("hook", f"post-tool-use, {name}, hook-dispatch", ms, floor, peer_ms, tool=ours.name,
               floor_name="floor (import json)", peer_name=PEER_ROW, goal=f"<= {GOAL_X_FLOOR:g}x floor",
               ok=ms / floor <= GOAL_X_FLOOR, notes=notes)
