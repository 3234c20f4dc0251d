"""The differential recall test: the main question set through the reference and teamai-cli
0.25.0 on real-team-a, every difference in their hit lists checked against the committed list
``bench/relevance/differences-real-team-a.yaml``.

A new difference fails until it is fixed or documented; a documented one that is gone fails too,
so the list stays true. Skipped where node or npm or the corpus is missing. teamai-cli's answers
come from one index build, cached by version, tree digest and questions (see
``bench/relevance/runs.py``), so after the first run only the reference runs.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

from relevance import differential, engines, questions, runs  # noqa: E402

REAL_TEAM = ROOT.parent / "shared" / "corpora" / "real-team-a"
MAIN = ROOT / "bench" / "relevance" / "questions-real-team-a.yaml"


@pytest.fixture(scope="module")
def both(teamai_cli: str):
    if not REAL_TEAM.is_dir():
        pytest.skip("real-team-a is not beside the repository")
    qs = questions.load(str(MAIN)).questions
    return qs, runs.run_reference(str(REAL_TEAM), qs), runs.run_teamai_cli(teamai_cli, str(REAL_TEAM), qs)


def test_both_tools_index_the_same_assets(both):
    _, ref, cli = both
    assert engines.asset_mismatch(ref.assets, cli.assets) == []


def test_every_difference_in_the_hit_lists_is_documented(both, tmp_path):
    qs, ref, cli = both
    diffs = differential.compare(qs, ref.hits, cli.hits)
    report = tmp_path / "differences-real-team-a.md"
    report.write_text(differential.report("real-team-a", qs, ref.hits, cli.hits, diffs), encoding="utf-8")
    documented = differential.load_documented(differential.DOCUMENTED)
    assert set(documented.values()) <= set(differential.CATEGORIES), "a documented difference needs a known category"
    new, stale = differential.check(diffs, documented)
    hint = (f"see {report}; fix the difference, or re-document with "
            "`python -m relevance.differential --update` (from bench/) and categorise it")
    assert not new, f"{len(new)} undocumented differences, first: {new[:5]}; {hint}"
    assert not stale, f"{len(stale)} documented differences are no longer seen, first: {stale[:5]}; {hint}"
