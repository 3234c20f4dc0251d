"""Recall over one team tree, the reference and teamai-cli 0.25.0 side by side.

Like is compared with like:
- both index the same assets: after the cold builds each tool's index is read back (the
  reference's SQLite index, 0.25's ``search-index.json`` and the teamwiki pages its recall reads)
  and compared path by path; a difference is an error and the peer's figures for that tree are
  left out, since they would time other work;
- both do the same work per sample: a cold build is the first recall on an empty state (the
  reference's state folder removed, 0.25's search index removed), a warm recall is one recall
  of a question over a built index;
- both are measured in the same rounds: each round runs the floor, the reference and the peer
  in turn with the same question, so a machine that gets busier moves all three alike, and each
  gets the same number of samples.
"""

from __future__ import annotations

import os
import random
import shutil
import time
from typing import NamedTuple

import peer
import synth
from commands import FLOOR, clean_env, ref_cmd
from measure import Tool, rounds, timed
from relevance import engines, questions
from table import Report

PEER_NAME = f"teamai-cli {peer.VERSION}"
WARM_UPS = 2
WARM_GOALS = {10_000: 4.0, 50_000: 7.0}  # warm recall, times the floor (10k: issue 37's)
CHANGED_GOALS = {10_000: 8.0}  # recall right after one asset changed, times the floor
COLD_GOALS_S = {"50000": 10.0, "real-real-team-a": 1.5}  # cold index build, seconds, by tree key
PEER_GOAL_SIZE, PEER_GOAL = 10_000, 5.0  # at 10k, the peer takes at least this many times longer
QUESTIONS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "relevance")


class Tree(NamedTuple):
    label: str  # how the report names it
    key: str  # names its work folders
    path: str
    queries: list[str]  # warm-ups first
    size: int | None  # assets, for a synthetic tree; None for a real one


def synthetic(work: str, size: int, samples: int) -> Tree:
    path = os.path.join(work, f"team-{size}")
    if not os.path.isdir(path):
        synth.generate(path, size)
    return Tree(f"{size} synthetic assets", str(size), path, synth.queries(samples + WARM_UPS), size)


def real(path: str, samples: int) -> Tree:
    """A real team tree; its questions are the relevance bench's when it has a question file for
    it (``questions-<folder name>.yaml``), a fixed sample of them, else synthetic ones."""
    name = os.path.basename(os.path.normpath(path))
    qfile = os.path.join(QUESTIONS_DIR, f"questions-{name}.yaml")
    wanted = samples + WARM_UPS
    if os.path.isfile(qfile):
        qs = [q.q for q in questions.load(qfile).questions]
        picked = random.Random(5).sample(qs, min(wanted, len(qs)))
        queries = [picked[i % len(picked)] for i in range(wanted)]
    else:
        queries = synth.queries(wanted)
    return Tree(name, f"real-{name}", os.path.realpath(path), queries, None)


def counts(assets: dict[str, set[str]]) -> str:
    total = sum(len(v) for v in assets.values())
    return f"{total} ({', '.join(f'{k} {len(v)}' for k, v in sorted(assets.items()) if v)})"


def same_assets(rep: Report, label: str, ours: dict[str, set[str]], theirs: dict[str, set[str]] | None) -> bool:
    """Print how many assets each tool indexed; a difference is an error naming the paths."""
    rep.note(f"assets indexed: reference {counts(ours)}")
    if theirs is None:
        return False
    rep.note(f"assets indexed: {PEER_NAME} {counts(theirs)}")
    mismatch = engines.asset_mismatch(ours, theirs)
    if mismatch:
        rep.error(f"{label}: reference and {PEER_NAME} did not index the same assets, so their times "
                  "are not compared:\n    " + "\n    ".join(mismatch))
        return False
    return True


def leftovers_note(tool: Tool) -> tuple[str, ...]:
    text = tool.leftovers.describe(tool.limit)
    return (f"{tool.name} {text}",) if text else ()


def bench_tree(rep: Report, work: str, tree: Tree, runs: int, cold_runs: int, entry: str | None) -> None:
    rep.title(f"recall, {tree.label}")
    home = os.path.join(work, f"home-{tree.key}")
    ours = Tool("reference", ref_cmd(), clean_env(TEAMAI_HOME=home, TEAMAI_TEAM=tree.path))
    theirs: Tool | None = None
    if entry is not None:
        peer_dir = os.path.join(work, f"peer-{tree.key}")
        shutil.rmtree(peer_dir, ignore_errors=True)
        rep.note(f"setting {PEER_NAME} up on a copy of the tree...")
        theirs = Tool(PEER_NAME, ["node", entry], peer.set_up(entry, tree.path, peer_dir))
    floor = lambda i: timed(FLOOR)  # noqa: E731
    q = tree.queries

    def our_cold(i: int) -> float:
        shutil.rmtree(home, ignore_errors=True)
        return ours("recall", q[i % WARM_UPS])

    tools = [floor, our_cold]
    if theirs is not None:
        index = os.path.join(theirs.env["HOME"], ".teamai", "search-index.json")

        def their_cold(i: int) -> float:
            if os.path.exists(index):
                os.unlink(index)
            return theirs("recall", q[i % WARM_UPS])

        tools.append(their_cold)
    cold = rounds(cold_runs, *tools)
    ours_assets = engines.Reference(tree.path, home, mode="process").assets()
    theirs_assets = peer_assets(theirs)
    compared = same_assets(rep, tree.label, ours_assets, theirs_assets)
    peer_cold = cold[2] if compared and theirs is not None else None
    cold_goal = COLD_GOALS_S.get(tree.key)
    rep.figure("recall", f"{tree.label}: cold index build (first recall on an empty state), {cold_runs} runs",
               cold[1], cold[0], peer_cold, peer_name=PEER_NAME, goal=f"< {cold_goal:g} s" if cold_goal else "",
               ok=cold[1] < cold_goal * 1000 if cold_goal else None)

    for warm_up in q[:WARM_UPS]:
        ours("recall", warm_up)
        if compared and theirs is not None:
            theirs("recall", warm_up)
    measured = q[WARM_UPS:]
    tools = [floor, lambda i: ours("recall", measured[i])]
    if compared and theirs is not None:
        tools.append(lambda i: theirs("recall", measured[i]))
    warm = rounds(len(measured), *tools)
    peer_warm = warm[2] if len(warm) > 2 else None
    goal, ok = _warm_goal(tree.size, warm[1], warm[0], peer_warm)
    notes = leftovers_note(theirs) if theirs is not None and peer_warm is not None else ()
    rep.figure("recall", f"{tree.label}: warm recall, {len(measured)} questions", warm[1], warm[0], peer_warm,
               peer_name=PEER_NAME, goal=goal, ok=ok, notes=notes)
    if tree.size is not None:
        changed(rep, tree, ours, runs)


def peer_assets(theirs: Tool | None) -> dict[str, set[str]] | None:
    if theirs is None:
        return None
    from conformance.drivers import teamai_cli_home

    found = teamai_cli_home.indexed_assets(theirs.env["HOME"])
    return {kind: paths for kind, paths in found.items() if paths}


def _warm_goal(size: int | None, warm: float, floor: float, peer_warm: float | None) -> tuple[str, bool | None]:
    goal = WARM_GOALS.get(size or 0)
    if not goal:
        return "", None
    ok = warm / floor <= goal
    text = f"<= {goal:g}x floor"
    if size == PEER_GOAL_SIZE and peer_warm:
        ok = ok and peer_warm / warm >= PEER_GOAL
        text += f", >= {PEER_GOAL:g}x faster than {PEER_NAME}"
    return text, ok


def _learnings(root: str) -> list[str]:
    """Every learning file of a tree in a fixed order, whichever folders the seed put them in."""
    found = []
    for folder, _dirs, files in os.walk(os.path.join(root, "learnings")):
        found += [os.path.join(folder, name) for name in files if name.endswith(".md")]
    return sorted(found)


HUB_PAGES = 3000


def hub(rep: Report, work: str, runs: int, pages: int = HUB_PAGES) -> None:
    """Recall of a page at the centre of ``pages`` relations (``synth.hub``): the cost of a hit's
    ``Related:`` lines grows with its relations, and must grow no faster (a step that compared
    each line with every earlier one made such a page take twice as long)."""
    path = os.path.join(work, f"team-hub-{pages}")
    if not os.path.isdir(path):
        synth.hub(path, pages)
    ours = Tool("reference", ref_cmd(), clean_env(TEAMAI_HOME=os.path.join(work, f"home-hub-{pages}"),
                                                  TEAMAI_TEAM=path))
    for _ in range(WARM_UPS):
        ours("recall", synth.HUB_QUERY)
    floor, ms = rounds(runs, lambda i: timed(FLOOR), lambda i: ours("recall", synth.HUB_QUERY))
    rep.title(f"recall, a page related to {pages} others")
    rep.figure("recall", f"warm recall of the page at the centre, {runs} runs", ms, floor)


def changed(rep: Report, tree: Tree, ours: Tool, runs: int) -> None:
    """Recall right after one learning was saved again (the way git and most editors save: a new
    file renamed over the old one); the reference only, since 0.25 reindexes on ``pull`` alone."""
    victims = _learnings(tree.path)[:runs]

    def one(i: int) -> float:
        path = victims[i]
        with open(path + ".tmp", "w", encoding="utf-8") as out, open(path, encoding="utf-8") as src:
            out.write(src.read() + f"\nchanged {time.time()}\n")
        os.replace(path + ".tmp", path)
        return ours("recall", tree.queries[i % len(tree.queries)])

    floor, ms = rounds(len(victims), lambda i: timed(FLOOR), one)
    goal = CHANGED_GOALS.get(tree.size or 0)
    rep.figure("recall", f"{tree.label}: recall after one asset changed, {len(victims)} runs", ms, floor,
               goal=f"<= {goal:g}x floor" if goal else "", ok=ms / floor <= goal if goal else None)

