"""The pytest plugin for any implementation: ``--teamai-impl`` picks the driver,
``--teamai-expectations`` its expected failures, and an implementation's own test suite takes in
the corpus with one option; case ids stay the items' names, so ``-k`` and ``--lf`` work.

Every run is a real pytest process (``pytester.runpytest_subprocess``)."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
FAKE = HERE / "fakes" / "fake_driver.py"
pytest_plugins = ["pytester"]


def _fake(directive: str) -> str:
    return f"{sys.executable} {FAKE} {directive}"


def _fixture_corpus(pytester) -> None:
    for name in ("scenarios", "payloads"):
        shutil.copytree(HERE / "corpus" / name, pytester.path / name)
    pytester.makeini("[pytest]\n")


def test_the_reference_over_the_protocol_with_k_and_the_explanation(pytester):
    _fixture_corpus(pytester)
    some = pytester.runpytest_subprocess("--teamai-impl", "reference-subprocess", "-k", "fx-recall", "-p",
                                         "no:randomly")
    some.assert_outcomes(passed=2)
    failing = pytester.runpytest_subprocess("--teamai-impl", "reference-subprocess", "-k", "fx-designed-to-fail")
    failing.assert_outcomes(failed=1)
    failing.stdout.fnmatch_lines(["*FAIL fx-designed-to-fail*", "*why: every step left the same decisions*",
                                  "*rerun: pytest scenarios/*::fx-designed-to-fail --teamai-impl reference-subprocess"])
    # the printed node id is taken back, and names that one case
    reruns = {line.split("rerun: ", 1)[1].strip() for line in failing.stdout.lines if "rerun: pytest " in line}
    assert len(reruns) == 1, reruns  # one command, however often the report shows it
    again = pytester.runpytest_subprocess(*reruns.pop().split()[1:])
    again.assert_outcomes(failed=1)


def test_without_options_it_is_the_in_process_reference(pytester):
    _fixture_corpus(pytester)
    result = pytester.runpytest_subprocess("-q", "-k", "fx-designed-to-fail")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*rerun: pytest scenarios/*::fx-designed-to-fail"])
    assert "--teamai-impl" not in result.stdout.str()


def test_an_implementation_s_own_suite_takes_in_the_corpus_and_lf_reruns_its_failures(pytester):
    """A project of its own (no scenarios/ of its own): its tests and the project corpus, against a
    driver whose reducer has a 23 h window."""
    pytester.makeini("[pytest]\n")
    pytester.makepyfile(test_own="def test_own_behaviour():\n    assert True\n")
    impl = _fake("window-23h")
    first = pytester.runpytest_subprocess("--teamai-impl", impl, "-k", "(reduce-window and not one-second) or own_behaviour")
    first.assert_outcomes(passed=3, failed=1)
    first.stdout.fnmatch_lines(["*why: step 4 [[]hook claude/stop[]]: read not credited*",
                                "*FAILED reducer/window-at-24h.yaml::reduce-window-at-24h*"])
    again = pytester.runpytest_subprocess("--teamai-impl", impl, "--lf")
    again.assert_outcomes(failed=1, deselected=_corpus_size())
    again.stdout.fnmatch_lines(["run-last-failure: rerun previous 1 failure*"])


def test_expectations_become_xfail_and_an_xpass_fails_the_run(pytester):
    pytester.makeini("[pytest]\n")
    expected = pytester.path / "window.toml"
    expected.write_text('[reduce-window-at-24h]\nstatus = "fail"\nreason = "our window is 23 h"\n\n'
                        '[reduce-window-at-zero]\nstatus = "fail"\nreason = "listed, but it passes"\n\n'
                        '[reduce-window-past-24h]\nstatus = "skip"\nreason = "not today"\n', encoding="utf-8")
    result = pytester.runpytest_subprocess("--teamai-impl", _fake("window-23h"), "--teamai-expectations",
                                           str(expected), "--teamai-corpus", str(ROOT), "-k", "reduce-window and not one-second",
                                           "-rfxXs")
    result.assert_outcomes(xfailed=1, failed=1, skipped=1)
    result.stdout.fnmatch_lines(["[[]XPASS(strict)[]] listed, but it passes",
                                 "*FAILED*reduce-window-at-zero*",
                                 "*XFAIL*reduce-window-at-24h*our window is 23 h*",
                                 "*SKIPPED*not today*"])


def test_an_unusable_driver_is_a_usage_error(pytester):
    _fixture_corpus(pytester)
    result = pytester.runpytest_subprocess("--teamai-impl", _fake("bad-protocol"), "-k", "fx-recall-prints-hit")
    assert result.ret == 4  # pytest's usage error
    result.stdout.fnmatch_lines(["*--teamai-impl:*protocol 99*"])


def _corpus_size() -> int:
    from conformance.corpus import read as corpus

    return len(corpus.load(ROOT).scenarios)
