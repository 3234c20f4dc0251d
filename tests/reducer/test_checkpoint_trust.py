"""A checkpoint is used only when it describes these bytes of this log: any corruption of the
checkpoint, any edit of the part of the log it covers, or a checkpoint of another log given this
log's header, and a Stop decides exactly what a reduce of the whole log decides, and says once that
it did not use the checkpoint.

Each example: a log of random runs and reads, a Stop that leaves a checkpoint, lines appended, a
Stop that grows the checkpoint in place, more lines, then one corruption; the next Stop is compared
with the same Stop on a copy of the state with no checkpoint at all (real files, the reducer
in-process).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from reference import reducer
from reference.reducer import checkpoint
from reference.state import ledger, upvoted_file
from reference.team import config

from .logs import claim, doc, evidence, run, ts

HOUR = 3600.0
SESSIONS = ("ses-a", "ses-b", "ses-c")
DOCS = ("d0", "d1", "d2", "d3")

events = st.lists(st.tuples(st.sampled_from(SESSIONS), st.sampled_from(["run", "read", "read"]),
                            st.sets(st.sampled_from(DOCS), min_size=1, max_size=3),
                            st.integers(min_value=1, max_value=int(3 * HOUR))), min_size=4, max_size=30)


def _lines(team: Path, drawn: list[Any], start: float, tag: str) -> tuple[list[dict[str, Any]], float]:
    out, at = [], start
    for n, (session, kind, keys, step) in enumerate(drawn):
        at += step
        paths = {k: str(team / "learnings" / f"{k}.md") for k in sorted(keys)}
        if kind == "run":
            rid = f"{tag}-{n:03d}"
            out.append(run(at, rid, session, [doc(k, p) for k, p in paths.items()]))
            out.append(claim(at + 1, rid, session))
        else:
            out.extend(evidence(at + i, session, p) for i, p in enumerate(paths.values()))
    return out, at


def _append(path: Path, records: list[dict[str, Any]]) -> None:
    with open(path, "ab") as fh:
        fh.write(b"".join((json.dumps(r, separators=(",", ":")) + "\n").encode() for r in records))


class Home:
    def __init__(self, root: Path, team: Path) -> None:
        self.root, self.team = root, team
        self.warnings: list[str] = []

    def cfg(self, at: float) -> config.Config:
        return config.load({"TEAMAI_HOME": str(self.root), "TEAMAI_TEAM": str(self.team), "TEAMAI_NOW": ts(at),
                            "TEAMAI_LOCK_WAIT": "1"})

    @property
    def scope(self) -> config.Scope:
        return self.cfg(0).active

    def stop(self, at: float, session: str = "ses-a") -> reducer.ReduceResult:
        return reducer.reduce(self.cfg(at), self.warnings.append, session)

    def outcome(self) -> dict[str, Any]:
        scope = self.scope
        consumed = []
        for raw in Path(scope.log_path).read_bytes().split(b"\n"):
            try:
                rec = json.loads(raw)
            except ValueError:
                continue
            if isinstance(rec, dict) and rec.get("kind") == "consumed":
                consumed.append(json.dumps(rec, sort_keys=True))
        credits = upvoted_file.load(scope.upvoted_path, "x", lambda m: None)
        return {"votes": ledger.read(scope.ledger_path), "consumed": sorted(consumed),
                "guards": credits.sessions, "reads": credits.reads}


def _reheadered(cp: bytes, log: Path) -> bytes:
    """``cp`` (another log's checkpoint) with this log's device, inode, offset and tail, its own
    check made again: the header matches, the rest is the other log's."""
    head = json.loads(cp[:checkpoint.HEAD])
    head.pop("check")
    data = log.read_bytes()
    st_ = os.stat(log)
    offset = min(head["offset"], len(data))
    offset = data.rfind(b"\n", 0, offset) + 1
    head.update(dev=st_.st_dev, ino=st_.st_ino, offset=offset, tail=data[max(0, offset - checkpoint.TAIL):offset].hex())
    line = checkpoint.header_line(head)
    assert line is not None
    return line + cp[checkpoint.HEAD:]


def _rewrite_in_place(path: Path, data: bytes) -> None:
    """The same file (inode) with other bytes, as an editor that saves in place leaves it."""
    with open(path, "r+b") as fh:
        fh.write(data)
        fh.truncate()


corruptions = st.one_of(
    st.tuples(st.just("flip"), st.floats(0, 1, exclude_max=True), st.integers(1, 255)),
    st.tuples(st.just("cut"), st.floats(0, 1, exclude_max=True), st.just(0)),
    st.tuples(st.just("edit-log"), st.floats(0, 1, exclude_max=True), st.integers(1, 255)),
    st.tuples(st.just("drop-log-line"), st.floats(0, 1, exclude_max=True), st.just(0)),
    st.tuples(st.just("repeat-log-line"), st.floats(0, 1, exclude_max=True), st.just(0)),
    st.tuples(st.just("other-log"), st.just(0.0), st.just(0)),
)


@settings(max_examples=80)
@given(first=events, second=events, third=events, other=events, corruption=corruptions)
def test_a_checkpoint_that_does_not_describe_the_log_is_never_trusted(tmp_path_factory, first, second, third, other,
                                                                        corruption):
    root = tmp_path_factory.mktemp("trust")
    team = root / "team"
    (team / "learnings").mkdir(parents=True)
    home = Home(root / "a", team)
    log = Path(home.scope.log_path)
    log.parent.mkdir(parents=True)
    lines, at = _lines(team, first, 0.0, "r1")
    _append(log, lines)
    home.stop(at + 10)
    lines, at = _lines(team, second, at + 20, "r2")
    _append(log, lines)
    home.stop(at + 10)  # grows the checkpoint in place (or works it out again)
    lines, at = _lines(team, third, at + 20, "r3")
    _append(log, lines)
    cp_path = Path(home.scope.checkpoint_path)
    assert cp_path.exists()
    cp = cp_path.read_bytes()
    covered = json.loads(cp[:checkpoint.HEAD])["offset"]

    kind, where, value = corruption
    if kind == "flip":
        at_byte = int(where * len(cp))
        _rewrite_in_place(cp_path, cp[:at_byte] + bytes([cp[at_byte] ^ value]) + cp[at_byte + 1:])
    elif kind == "cut":
        _rewrite_in_place(cp_path, cp[:int(where * len(cp))])
    elif kind == "other-log":
        other_home = Home(root / "other", team)
        other_log = Path(other_home.scope.log_path)
        other_log.parent.mkdir(parents=True)
        _append(other_log, _lines(team, other, 0.0, "o")[0])
        other_home.stop(10 * 24 * HOUR)
        other_cp = Path(other_home.scope.checkpoint_path).read_bytes()
        other_covered = json.loads(other_cp[:checkpoint.HEAD])["offset"]
        # Drawn from reads alone (no run ids), the other log can be these very bytes: its
        # checkpoint then describes this log too, and using it is right.
        foreign = other_log.read_bytes()[:other_covered] != log.read_bytes()[:other_covered]
        _rewrite_in_place(cp_path, _reheadered(other_cp, log))
    else:
        data = before = log.read_bytes()
        if covered == 0:
            return
        at_byte = int(where * covered)
        if kind == "edit-log":
            data = data[:at_byte] + bytes([data[at_byte] ^ value]) + data[at_byte + 1:]
        else:
            start = data.rfind(b"\n", 0, at_byte) + 1
            end = data.index(b"\n", start) + 1
            data = data[:start] + (data[start:end] * 2 if kind == "repeat-log-line" else b"") + data[end:]
        _rewrite_in_place(log, data)

    # the same state with no checkpoint at all: a reduce of the whole log
    fresh = Home(root / "b", team)
    shutil.copytree(home.root, fresh.root)
    os.unlink(fresh.scope.checkpoint_path)
    home.warnings.clear()
    got = home.stop(at + 3 * HOUR)
    want = fresh.stop(at + 3 * HOUR)
    assert sorted(got.credited) == sorted(want.credited)
    assert home.outcome() == fresh.outcome()
    said = [w for w in home.warnings if "checkpoint does not describe" in w]
    assert len(said) <= 1
    # a copy of the last covered line right after it leaves the covered bytes as they were: that is
    # an append, and a reduce from the checkpoint is then the same as a whole read
    if kind == "other-log":
        moved = foreign
    else:
        moved = kind != "flip" and kind != "cut" and log.read_bytes()[:covered] != before[:covered]
    if moved:
        assert said, "an edited or foreign log was not noticed"
    home.warnings.clear()
    home.stop(at + 3 * HOUR + 1)
    assert not [w for w in home.warnings if "checkpoint does not describe" in w]  # said once
