"""The votes ledger: teamai's YAML shape, written atomically, never overwritten when corrupt."""

from __future__ import annotations

import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference import ledger

TEAMAI_WRITTEN = """version: 2
votes:
  flaky-upstream-2026-11-01-abc:
    recalled_count: 1
    upvoted_count: 1
    last_recalled_at: 2026-11-30T12:00:00.000Z
    last_upvoted_at: 2026-11-30T12:00:00.000Z
  retry-policy:
    recalled_count: 3
deltas: {}
"""


def test_reads_the_ledger_teamai_writes():
    votes = ledger.parse(TEAMAI_WRITTEN)
    assert votes["flaky-upstream-2026-11-01-abc"] == {
        "recalled_count": 1, "upvoted_count": 1,
        "last_recalled_at": "2026-11-30T12:00:00.000Z", "last_upvoted_at": "2026-11-30T12:00:00.000Z"}
    assert votes["retry-policy"] == {"recalled_count": 3, "upvoted_count": 0, "last_recalled_at": None,
                                     "last_upvoted_at": None}


@pytest.mark.parametrize("text", [
    "version: 2\nvotes: [1, 2]\n",
    "version: 2\nvotes:\n  a: 3\n",
    "version: 2\nvotes:\n  a:\n    recalled_count: -1\n",
    "version: 2\nvotes:\n  a:\n    upvoted_count: many\n",
    "- just\n- a list\n",
    "votes: {a: {recalled_count: 1}\n",
])
def test_what_is_not_a_ledger_is_corrupt(text):
    with pytest.raises(ledger.CorruptLedger):
        ledger.parse(text)


def test_empty_file_is_an_empty_ledger():
    assert ledger.parse("") == {}


keys = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=30)
entries = st.fixed_dictionaries({
    "recalled_count": st.integers(0, 10**6), "upvoted_count": st.integers(0, 10**6),
    "last_recalled_at": st.none() | st.just("2026-11-30T10:00:00.000Z"),
    "last_upvoted_at": st.none() | st.just("2026-11-30T11:00:00.000Z")})


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(keys, entries, max_size=8))
def test_dump_then_parse_is_identity_and_yaml_agrees(votes):
    import yaml

    text = ledger.dump(votes)
    assert ledger.parse(text) == votes
    assert ledger._coerce(yaml.safe_load(text)) == votes


def test_editing_writes_atomically_and_private(tmp_path):
    path, lock = str(tmp_path / "votes.yaml"), str(tmp_path / "votes.lock")
    with ledger.editing(path, lock, 1.0, "2026-11-30T10:00:00.000Z", print) as votes:
        votes["a"] = {**ledger.empty_entry(), "recalled_count": 2}
    assert ledger.read(path)["a"]["recalled_count"] == 2
    assert oct(os.stat(path).st_mode & 0o777) == "0o600"
    assert not [p for p in os.listdir(tmp_path) if ".tmp-" in p]


def test_corrupt_ledger_is_moved_aside_and_named(tmp_path):
    path, lock = str(tmp_path / "votes.yaml"), str(tmp_path / "votes.lock")
    with open(path, "w") as fh:
        fh.write("version: 2\nvotes: [broken\n")
    warnings: list[str] = []
    with ledger.editing(path, lock, 1.0, "2026-11-30T10:00:00.000Z", warnings.append) as votes:
        votes["a"] = ledger.empty_entry()
    aside = [p for p in os.listdir(tmp_path) if p.startswith("votes.yaml.corrupt-")]
    assert len(aside) == 1
    assert (tmp_path / aside[0]).read_text() == "version: 2\nvotes: [broken\n"
    assert len(warnings) == 1 and aside[0] in warnings[0]
    assert ledger.read(path) == {"a": ledger.empty_entry()}


def test_non_utf8_ledger_is_corrupt(tmp_path):
    path = tmp_path / "votes.yaml"
    path.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(ledger.CorruptLedger):
        ledger.read(str(path))


def test_busy_ledger_raises_after_the_bounded_wait(tmp_path):
    from reference.storage import Busy, locked

    path, lock = str(tmp_path / "votes.yaml"), str(tmp_path / "votes.lock")
    with locked(lock, "the votes ledger", 1.0):
        with pytest.raises(Busy, match="votes ledger is busy"):
            with ledger.editing(path, lock, 0.05, "2026-11-30T10:00:00.000Z", print):
                pass
