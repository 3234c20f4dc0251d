"""The relevance benchmark's own parts: question files, scoring, output parsing, the differential
comparison and the held-out mapping. Checks that need real-team-a skip when it is absent."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

from relevance import differential, engines, heldout, metrics, questions  # noqa: E402
from relevance.engines import Hit  # noqa: E402

REAL_TEAM = ROOT.parent / "shared" / "corpora" / "real-team-a"
MAIN = ROOT / "bench" / "relevance" / "questions-real-team-a.yaml"
HELDOUT = Path(heldout.QUESTIONS)
HELDOUT_CJK = Path(heldout.SOURCES["ydoc"].questions)
HELDOUT_PYDOCS = Path(heldout.SOURCES["pydocs"].questions)


def count(qs: list[questions.Question]) -> dict[str, int]:
    out = {"all": len(qs), "cjk": sum(q.cjk for q in qs)}
    for q in qs:
        out[q.kind] = out.get(q.kind, 0) + 1
    return out


def test_the_main_question_set_has_the_slices_the_benchmark_reports():
    n = count(questions.load(str(MAIN)).questions)
    assert n["all"] >= 150 and n["cjk"] >= 40
    assert n["doc"] >= 25 and n["skill"] >= 20 and n["rule"] >= 15 and n["learning"] > 0 and n["wiki"] > 0


def test_the_held_out_sets_are_large_enough_and_disjoint_from_the_main_one():
    main, held = questions.load(str(MAIN)).questions, questions.load(str(HELDOUT)).questions
    cjk = questions.load(str(HELDOUT_CJK)).questions
    pydocs = questions.load(str(HELDOUT_PYDOCS)).questions
    assert len(held) >= 40 and len(cjk) >= 15 and all(q.cjk for q in cjk)
    ids = [q.id for q in main + held + cjk + pydocs]
    assert len(ids) == len(set(ids))
    assert len({q.q for q in main + held + cjk + pydocs}) == len(ids)


def test_the_pydocs_set_is_larger_and_asks_in_chinese_mostly_about_english_pages():
    qs = questions.load(str(HELDOUT_PYDOCS)).questions
    chinese = [q for q in qs if q.cjk]
    about_english = [q for q in chinese if not q.target.startswith("docs/pypinyin/")]  # its only Chinese pages
    assert len(qs) >= 80 and len(chinese) >= 30 and len(about_english) >= len(chinese) / 2
    assert sum(metrics.mixed(q) for q in chinese) >= 10 and sum(not metrics.mixed(q) for q in chinese) >= 10


def test_a_bad_question_file_is_a_clear_error(tmp_path):
    bad = tmp_path / "q.yaml"
    bad.write_text("questions:\n  - {id: a, q: x, target: docs/a.md}\n  - {id: a, q: y, target: docs/b.md}\n")
    with pytest.raises(questions.BadQuestions, match="used twice"):
        questions.load(str(bad))
    bad.write_text("questions:\n  - {id: a, q: x, target: src/a.md}\n")
    with pytest.raises(questions.BadQuestions, match="not under docs/"):
        questions.load(str(bad))
    bad.write_text("questions:\n  - {id: a, q: '', target: docs/a.md}\n")
    with pytest.raises(questions.BadQuestions, match="non-empty"):
        questions.load(str(bad))


def _title(path: Path) -> str | None:
    text = path.read_text(encoding="utf-8", errors="replace")
    if text.startswith("---"):
        end = text.find("\n---", 3)
        try:
            meta = yaml.safe_load(text[3:end]) if end > 0 else None
        except yaml.YAMLError:
            meta = None
        if isinstance(meta, dict):
            for key in ("title", "name"):
                if isinstance(meta.get(key), str):
                    return meta[key]
        text = text[end + 4:] if end > 0 else text
    m = re.search(r"^# (.+)$", text, re.M)
    return m.group(1).strip() if m else None


def _norm(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


@pytest.mark.skipif(not REAL_TEAM.is_dir(), reason="real-team-a is not beside the repository")
def test_every_target_exists_and_no_question_repeats_its_title():
    qs = questions.load(str(MAIN)).questions
    assert questions.missing_targets(qs, str(REAL_TEAM)) == []
    for q in qs:
        title = _title(REAL_TEAM / q.target)
        if title and len(_norm(title).split()) > 1:
            assert _norm(title) not in _norm(q.q), (q.id, title)


def test_ranks_and_slice_scores():
    qs = [questions.Question("a", "x", "docs/a.md", "doc", False),
          questions.Question("b", "中文", "rules/b.md", "rule", True),
          questions.Question("c", "y", "docs/c.md", "doc", False)]
    hits = {"a": ["docs/a.md"], "b": ["x", "x2", "rules/b.md"], "c": ["1", "2", "3", "4", "5", "docs/c.md"]}
    assert metrics.rank("docs/c.md", hits["c"]) is None  # the sixth file is not a hit
    table = metrics.by_slice(qs, hits)
    assert list(table) == ["all", "cjk", "en", "zh", "doc", "rule"]
    assert list(metrics.by_slice(qs, hits, {"rules/b.md"})) == ["all", "cjk", "en", "zh", "doc", "rule"]
    assert metrics.by_slice(qs, hits, set())["cjk>en"] == metrics.Stats(1, 1 / 3, 0.0, 1.0)
    assert table["all"] == metrics.Stats(3, (1 + 1 / 3) / 3, 1 / 3, 2 / 3)
    assert table["cjk"] == metrics.Stats(1, 1 / 3, 0.0, 1.0)
    text = metrics.table("t", {"ref": table, "peer": table})
    assert "cjk" in text and text.count("MRR@5") == 2


REF_OUT = """--- [teamai:recall:start] --- (2 results) run=6b0f
[1/2] [docs] Add a best bet [workspace]
Author: unknown | Date: unknown | Score: 20.0
File: /t/docs/a.md
Related: → REFERENCES /t/docs/b.md

[2/2] [learnings] Note [workspace]
Author: ana | Date: 2026-01-01 | Score: 3.5
Tags: x
File: /t/learnings/n/x.md

--- [teamai:recall:end] ---
"""
CLI_OUT = """--- [teamai:recall:start] --- (1 result)

[1/1] [rules] cursor/gitflow ★3 [user]
Author: unknown | Date: unknown | Score: 7.3
Matched: git | Missing: hotfix
File: /h/.teamai/team-repo/rules/cursor/gitflow.md
Snippet: text

--- [teamai:recall:end] ---
"""


def test_both_output_formats_parse_to_files_titles_and_scores():
    ref = engines.parse(REF_OUT, lambda p: p[len("/t/"):] if p.startswith("/t/") else None)
    assert ref == [Hit("docs/a.md", "Add a best bet", "20.0", "docs"),
                   Hit("learnings/n/x.md", "Note", "3.5", "learnings")]
    cli = engines.parse(CLI_OUT, lambda p: None)
    assert cli == [Hit("/h/.teamai/team-repo/rules/cursor/gitflow.md", "cursor/gitflow", "7.3", "rules")]
    assert engines.parse('No matching learnings found for "x". run=1\n', lambda p: p) == []


def test_differences_are_listed_by_kind_and_categorised():
    qs = [questions.Question("q1", "deploy freeze", "docs/a.md", "doc", False),
          questions.Question("q2", "冻结 deploy", "docs/a.md", "doc", True)]
    ref = {"q1": [Hit("docs/a.md", "A", "2.0", "docs"), Hit("docs/b.md", "B", "1.0", "docs")],
           "q2": []}
    cli = {"q1": [Hit("docs/b.md", "B", "1.0", "docs"), Hit("docs/a.md", "a", "5.0", "docs"),
                  Hit("docs/c.md", "Other", "0.5", "docs"), Hit("teamwiki/p.md", "P", "0.2", "docs")],
           "q2": [Hit("docs/a.md", "A", "1.0", "docs")]}
    diffs = differential.compare(qs, ref, cli)
    got = {(d.question, d.kind, d.file): d.category for d in diffs}
    assert got == {
        ("q1", "missing", "docs/c.md"): "docs-body-match",
        ("q1", "missing", "teamwiki/p.md"): "wiki-ranker",
        ("q1", "reordered", "docs/a.md"): "ranking",
        ("q1", "reordered", "docs/b.md"): "ranking",
        ("q1", "score", "docs/a.md"): "score-scale",
        ("q1", "title", "docs/a.md"): "title-source",
        ("q2", "missing", "docs/a.md"): "cjk-tokens"}
    assert set(differential.count_by_category(diffs)) <= set(differential.CATEGORIES)
    report = differential.report("t", qs, ref, cli, diffs)
    assert "## q1" in report and "**docs/a.md**" in report and "reference #1, teamai-cli #2" in report


def test_common_words_and_word_forms_get_their_own_categories():
    q = questions.Question("q", "how to delete the rows", "docs/t.md", "doc", False)
    ref = [Hit("learnings/deleting.md", "Deleting Records", "3.0", "learnings")]
    cli = [Hit("learnings/top.md", "Scroll To The Top", "9.0", "learnings")]
    assert differential.categorize(q, "missing", "learnings/top.md", ref, cli) == "stop-words"
    assert differential.categorize(q, "extra", "learnings/deleting.md", ref, cli) == "stemming"


def test_the_documented_list_round_trips_and_keeps_hand_given_categories(tmp_path):
    diffs = [differential.Difference("q1", "missing", "docs/a b.md", "teamai-cli #1", "ranking"),
             differential.Difference("q2", "score", "rules/r.md", "reference 1, teamai-cli 2", "score-scale")]
    path = tmp_path / "d.yaml"
    differential.write_documented(str(path), diffs, {("q1", "missing", "docs/a b.md"): "docs-body-match"})
    documented = differential.load_documented(str(path))
    assert documented == {("q1", "missing", "docs/a b.md"): "docs-body-match",
                          ("q2", "score", "rules/r.md"): "score-scale"}
    assert differential.check(diffs, documented) == ([], [])
    new = differential.Difference("q3", "extra", "docs/z.md", "reference #1", "ranking")
    assert differential.check([*diffs[1:], new], documented) == ([new], [("q1", "missing", "docs/a b.md")])


def test_the_held_out_mappings_put_each_page_in_the_team_layout():
    assert heldout.ydoc_destination("docs/documents/hooks.md") == "docs/ydoc/hooks.md"
    assert heldout.ydoc_destination("docs/standard/style-guide.md") == "rules/ydoc/style-guide.md"
    assert heldout.ydoc_destination("docs/documents/SUMMARY.md") is None
    assert heldout.ydoc_destination("examples/init/docs/index.md") is None
    assert heldout.ydoc_destination("LICENSE") == "LICENSE"
    assert heldout.hatch_destination("docs/how-to/publish/auth.md") == "learnings/how-to/publish-auth.md"
    assert heldout.hatch_destination("docs/blog/posts/release-hatch-180.md") == "learnings/blog/release-hatch-180.md"
    assert heldout.hatch_destination("docs/community/contributing.md") == "rules/hatch/contributing.md"
    assert heldout.hatch_destination("docs/config/internal/testing.md") == "rules/hatch/internal/testing.md"
    assert heldout.hatch_destination("SECURITY.md") == "rules/hatch/security.md"
    assert heldout.hatch_destination("docs/plugins/builder/wheel.md") == "docs/hatch/plugins/builder/wheel.md"
    assert heldout.hatch_destination("src/hatch/cli/__init__.py") is None
    assert heldout.hatch_destination("docs/assets/logo.svg") is None
    click, pinyin = heldout.pydocs_destination("click"), heldout.pydocs_destination("pypinyin")
    assert click("docs/options.md") == "docs/click/options.md"
    assert click("docs/faqs.md") == "learnings/click/faqs.md"
    assert click("CHANGES.md") == "docs/click/changelog.md"
    assert click("docs/changes.md") is None and click("docs/license.md") is None
    assert click("LICENSE.txt") == "licences/click-LICENSE.txt"
    assert heldout.pydocs_destination("structlog")(".github/PULL_REQUEST_TEMPLATE.md") == \
        "rules/structlog/pull-request-template.md"
    assert pinyin("README.rst") == "docs/pypinyin/README.md" and pinyin("docs/index.rst") is None
    assert heldout.rst_headings("Title\n=====\n\ntext\n\nPart\n----\nmore\n") == "# Title\n\ntext\n\n## Part\nmore\n"


@pytest.mark.skipif(not REAL_TEAM.is_dir(), reason="real-team-a is not beside the repository")
def test_the_reference_in_process_answers_as_the_teamai_ref_process_does(tmp_path):
    qs = questions.load(str(MAIN)).questions[::37]
    inproc = engines.Reference(str(REAL_TEAM), str(tmp_path / "a"))
    proc = engines.Reference(str(REAL_TEAM), str(tmp_path / "b"), mode="process")
    for q in qs:
        assert inproc.recall(q.q) == proc.recall(q.q), q.id


def test_an_asset_mismatch_names_the_kind_and_the_differing_paths():
    ours = {"learning": {"learnings/a", "learnings/ns/b"}, "doc": {"docs/x.md"}}
    peer = {"learning": {"learnings/a"}, "doc": {"docs/x.md"}}
    (line,) = engines.asset_mismatch(ours, peer)
    assert line.startswith("learning: reference 2, teamai-cli 1") and "learnings/ns/b" in line
    assert engines.asset_mismatch(ours, ours) == []
