"""Each traced scenario starts from the module state importing left (``tracing.Pristine``)."""

from __future__ import annotations

from pathlib import Path

from conformance.corpus import read as corpus_mod
from conformance.mutation import targets, tracing
from reference.reducer import logread
from reference.state import ledger_read, upvoted

ROOT = Path(__file__).resolve().parents[2]


def test_restore_puts_memos_loaders_and_new_names_back(monkeypatch):
    monkeypatch.setattr(ledger_read, "_LOADER", None)  # as importing leaves it, whatever ran before here
    before_instants = dict(upvoted._INSTANTS)
    pristine = tracing.Pristine()
    upvoted._when("2026-11-30T10:00:00.000Z")  # a memo filled in place
    logread.comparable("/tmp/x/../y.md")
    ledger_read._loader(ledger_read.yaml_module())  # a loader built on first use and kept in a global
    ledger_read.__dict__["_added_since"] = 1
    assert ledger_read._LOADER is not None and "2026-11-30T10:00:00.000Z" in upvoted._INSTANTS
    pristine.restore()
    assert ledger_read._LOADER is None
    assert upvoted._INSTANTS == before_instants
    assert "/tmp/x/../y.md" not in logread._COMPARABLE
    assert "_added_since" not in ledger_read.__dict__


def test_a_line_run_on_first_use_is_credited_to_every_scenario_that_needs_it():
    """PyYAML's loader is built once per process: each ledger read through PyYAML must still run it."""
    corpus = corpus_mod.load(ROOT)
    wanted = ["ledger-spelling-anchors-and-tags", "ledger-explicit-tags-kept-as-text"]
    chosen = [s for s in corpus.scenarios if s.id in wanted]
    assert len(chosen) == 2
    traced = tracing.trace(ROOT, corpus, chosen, targets.select(targets.resolve(ROOT), ["state.ledger_read"]))
    builds = {n for n, line in enumerate(Path(ROOT / "reference/state/ledger_read.py").read_text().splitlines(), 1)
              if "Core12.yaml_implicit_resolvers = {}" in line}
    assert len(builds) == 1
    for case in wanted:
        assert builds <= set(traced[case]["lines"].get("reference/state/ledger_read.py", [])), case
