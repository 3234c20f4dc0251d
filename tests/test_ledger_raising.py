"""Raising counts rewrites only the raised entries of a ledger this module wrote last, and must give
the very bytes a whole read and write gives; any other file is read and written whole."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import event, given, settings
from hypothesis import strategies as st
from test_ledger_spelling import deltas, entries, instants, keys, values

from reference.state import ledger, ledger_write

RAISES = (("recalled_count", "last_recalled_at"), ("upvoted_count", "last_upvoted_at"))
delta_entries = deltas | st.fixed_dictionaries({"upvoted_delta": st.integers(-5, 5)}) | deltas.map(
    lambda d: {**d, "pushed_at": "2026-11-30T10:00:00.000Z"})


@st.composite
def ledgers(draw: st.DrawFn) -> str:
    """A ledger as this module writes it: the top-level keys in any order, some entries without a
    delta, deltas without an entry, keys neither tool knows."""
    votes = draw(st.dictionaries(keys, entries(), max_size=6))
    delta = draw(st.dictionaries(st.sampled_from(sorted(votes)) | keys, delta_entries, max_size=4)) if votes else {}
    top: list[tuple[str, Any]] = [("version", 2), ("votes", votes), ("deltas", delta)]
    top += [(k, v) for k, v in draw(st.dictionaries(keys, values, max_size=2)).items()
            if k not in ("version", "votes", "deltas")]
    order = draw(st.permutations(top))
    return ledger_write.dump(ledger.parse(ledger_write.dump(dict(order))))


@st.composite
def raised(draw: st.DrawFn, text: str) -> list[tuple[str, str, str, str]]:
    known = sorted(ledger.parse(text)["votes"])
    key = st.sampled_from(known) | keys if known else keys
    return draw(st.lists(st.tuples(key, st.sampled_from(RAISES), instants).map(lambda r: (r[0], *r[1], r[2])),
                         max_size=5))


def test_raising_in_place_writes_what_a_whole_write_writes() -> None:
    seen = {"spliced": 0, "new key": 0, "whole": 0}

    @settings(max_examples=400, deadline=None)
    @given(st.data())
    def check(data: st.DataObject) -> None:
        text = data.draw(ledgers())
        assert ledger_write.dump(ledger.parse(text)) == text  # what this module writes, it reads back unchanged
        raises = data.draw(raised(text))
        whole = ledger_write.dump(ledger._raised(ledger.parse(text), raises))
        try:
            spliced = ledger_write._splice(text.encode(), raises).decode()
        except ValueError:
            event("an entry only the whole read reads")
            seen["whole"] += 1
            return
        seen["spliced"] += 1
        if any(r[0] not in ledger.parse(text)["votes"] for r in raises):
            seen["new key"] += 1
        assert spliced == whole

    check()
    # The examples reach what they exist for: most are spliced, many with a key the ledger lacked.
    total = sum(v for k, v in seen.items() if k != "new key")
    assert seen["spliced"] >= 0.6 * total and seen["new key"] >= 0.2 * total, seen


def test_a_large_ledger_is_raised_in_place(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Through files: the second edit finds the seal of the first and splices; a file written by
    someone else since is read whole; every result is what a whole write gives."""
    path, lock = str(tmp_path / "votes.yaml"), str(tmp_path / "votes.lock")
    doc = ledger.new_document()
    for n in range(300):
        doc["votes"][f"ns{n % 7}/note-{n:04d}"] = {"recalled_count": n, "upvoted_count": n // 3,
                                                   "last_recalled_at": "2026-11-29T10:00:00.000Z"}
        if n % 2:
            doc["deltas"][f"ns{n % 7}/note-{n:04d}"] = {"recalled_delta": 1, "upvoted_delta": 0}
    doc["synced_at"] = "2026-11-28T00:00:00.000Z"
    with open(path, "w") as fh:
        fh.write(ledger_write.dump(doc))
    expected = copy.deepcopy(doc)
    stamp = "2026-11-30T10:00:00.000Z"

    def raise_some(keys: list[str]) -> None:
        with ledger.raising(path, lock, 1.0, stamp, print) as tally:
            for key in keys:
                tally.add(key, "upvoted_count", "last_upvoted_at", stamp)
        ledger._raised(expected, [(k, "upvoted_count", "last_upvoted_at", stamp) for k in keys])
        assert open(path).read() == ledger_write.dump(expected)

    spliced: list[str] = []
    real = ledger._splice  # the name ``raising`` calls (``ledger_write._splice``, imported)
    ledger._splice = lambda data, raises: spliced.append("x") or real(data, raises)  # type: ignore[assignment]
    try:
        raise_some(["ns1/note-0001", "new/key"])  # no seal yet: read whole
        assert spliced == []
        raise_some(["ns2/note-0002", "ns1/note-0001", "another"])  # sealed: in place
        assert spliced == ["x"]
        with open(path, "a") as fh:  # someone else's write: the seal no longer matches
            fh.write("pushed_by: teamai\n")
        expected["pushed_by"] = "teamai"
        raise_some(["ns3/note-0003"])
        assert spliced == ["x"]
        raise_some(["ns3/note-0003"])
        assert spliced == ["x", "x"]
    finally:
        ledger._splice = real  # type: ignore[assignment]
    assert ledger.read(path)["ns3/note-0003"]["upvoted_count"] == 3 // 3 + 2
    assert ledger.parse(open(path).read())["deltas"]["ns3/note-0003"] == {"recalled_delta": 1, "upvoted_delta": 2}
