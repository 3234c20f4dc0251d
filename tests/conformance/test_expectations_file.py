"""The expectations file: updating it is an explicit action on a named file that exits 0, and a
case id the corpus does not have is reported on every run that reads the file."""

from __future__ import annotations

import io
import tomllib
from pathlib import Path

from conformance import cli
from conformance.corpus import lint
from conformance.corpus import read as corpus
from conformance.running import expectations

TRACKED = Path("conformance") / "expectations" / "reference.toml"
STALE = '[fx-designed-to-fail]\nstatus = "fail"\nreason = "counts once"\n'


def _main(root: Path, *argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(["--corpus", str(root), *argv], out, err)
    return code, out.getvalue(), err.getvalue()


def test_update_without_a_named_file_is_refused_and_writes_nothing(corpus_copy):
    tracked = corpus_copy / TRACKED
    tracked.parent.mkdir(parents=True)
    tracked.write_text("# the reference's expected failures\n")
    code, out, err = _main(corpus_copy, "run", "--update-expectations")
    assert code == cli.EXIT_USAGE
    assert "--update-expectations needs --expectations FILE" in err and out == ""
    assert tracked.read_text() == "# the reference's expected failures\n"


def test_update_writes_the_named_file_says_what_changed_and_exits_0(corpus_copy, tmp_path):
    exp = tmp_path / "mine.toml"
    code, out, err = _main(corpus_copy, "run", "--expectations", str(exp), "--update-expectations")
    assert code == cli.EXIT_OK, out + err
    assert list(tomllib.loads(exp.read_text())) == ["fx-designed-to-fail"]
    assert f"expectations: wrote {exp}: added 1 (fx-designed-to-fail), removed 0" in out
    # the report agrees with the file just written
    assert "xfail 1" in out and "FAIL fx-designed-to-fail" not in out and "all outcomes as expected" in out
    code, out, _ = _main(corpus_copy, "run", "--expectations", str(exp), "--update-expectations")
    assert code == cli.EXIT_OK and f"expectations: {exp} unchanged" in out


def test_update_drops_what_now_passes_and_keeps_hand_written_reasons(corpus_copy, tmp_path):
    exp = tmp_path / "mine.toml"
    exp.write_text(STALE + '\n[fx-recall-prints-hit]\nstatus = "fail"\nreason = "stale"\n')
    code, out, _ = _main(corpus_copy, "run", "--expectations", str(exp), "--update-expectations")
    assert code == cli.EXIT_OK
    assert "added 0, removed 1 (fx-recall-prints-hit)" in out and "XPASS" not in out
    assert tomllib.loads(exp.read_text()) == {"fx-designed-to-fail": {"status": "fail", "reason": "counts once"}}


def test_unknown_case_ids_are_warned_about_on_every_run(corpus_copy, tmp_path):
    exp = tmp_path / "mine.toml"
    exp.write_text(STALE + '\n[fx-no-such-case]\nstatus = "skip"\nreason = "typo"\n')
    code, out, err = _main(corpus_copy, "run", "--expectations", str(exp))
    assert code == cli.EXIT_OK
    assert f"teamai-conformance: warning: {exp} names 1 case the corpus does not have: fx-no-such-case" in err
    code, _, err = _main(corpus_copy, "run", "--only", "fx-recall-prints-hit", "--expectations", str(exp))
    assert code == cli.EXIT_OK and "fx-no-such-case" in err


def test_the_default_file_of_the_reference_is_checked_too(corpus_copy):
    tracked = corpus_copy / TRACKED
    tracked.parent.mkdir(parents=True)
    tracked.write_text(STALE + '\n[fx-gone]\nstatus = "fail"\nreason = "renamed"\n')
    code, _, err = _main(corpus_copy, "run")
    assert code == cli.EXIT_OK and "names 1 case the corpus does not have: fx-gone" in err


def test_corpus_lint_checks_the_tracked_expectations_files(corpus_copy):
    tracked = corpus_copy / TRACKED
    tracked.parent.mkdir(parents=True)
    tracked.write_text('[fx-gone]\nstatus = "fail"\nreason = "renamed"\n')
    (tracked.parent / "broken.toml").write_text('[fx-designed-to-fail]\nstatus = "maybe"\n')
    problems = lint.lint(corpus.load(corpus_copy))
    assert "conformance/expectations/reference.toml: [fx-gone] is not a case of the corpus" in problems
    assert any(p.startswith("conformance/expectations/broken.toml: ") and "status" in p for p in problems)


def test_the_project_expectations_name_only_real_cases():
    root = Path(__file__).resolve().parents[2]
    ids = {s.id for s in corpus.load(root).scenarios}
    for path in sorted((root / "conformance" / "expectations").glob("*.toml")):
        assert expectations.unknown(expectations.load(path), ids) == [], path.name


def test_an_update_keeps_the_comment_block_at_the_top_of_the_file(tmp_path):
    path = tmp_path / "peer.toml"
    path.write_text("# why these fail, and where the peer differs on a decision\n#   D-1: 3 cases\n\n"
                    '[a]\nstatus = "fail"\nreason = "r"\n', encoding="utf-8")
    expectations.save(path, {"b": expectations.Expected("fail", "s")})
    text = path.read_text(encoding="utf-8")
    assert text.startswith("# why these fail, and where the peer differs on a decision\n#   D-1: 3 cases\n\n[b]")
    assert list(tomllib.loads(text)) == ["b"]
    expectations.save(path, {}, header="# new words")
    assert path.read_text(encoding="utf-8").startswith("# new words\n")


def test_the_summary_counts_the_cases_that_differ_on_a_decision_and_names_the_most_differed_first():
    from conformance.running import outcomes

    def case(i: str, decisions: dict[str, str]) -> dict:
        return {"id": i, "outcome": "pass", "levels": {"spec": "pass", "decisions": decisions, "profile": "unchecked"}}

    runs = [case("a", {"D-X": "differ", "D-Y": "differ"}), case("b", {"D-Y": "differ"}), case("c", {"D-X": "agree"})]
    totals = outcomes.level_totals(runs)
    assert totals["decisions"]["cases_differ"] == 2
    assert totals["decisions"]["by_decision"] == {"D-Y": 2, "D-X": 1}
    line = outcomes.level_lines(runs)[1]
    assert "1 agree, 3 differ in 2 cases (D-Y 2, D-X 1)" in line
