"""The small extensions of the scenario format: ``output_matches``, ``stderr_matches``,
``log_lines``, ``repeat`` with ``${i}``, the ``spoil`` step, and clauses covered only by the
reference's unit tests (``unit_tests:``)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from conformance import cli
from conformance.corpus import capabilities, clauses, levels, lint, placement, schema, vacuity
from conformance.corpus import read as corpus
from conformance.reports import jsonl as report_jsonl
from conformance.reports import terminal as report_terminal
from conformance.running import outcomes, pool, protocol
from conformance.running.case_runner import _message
from conformance.running.expect import StepOutcome, evaluate
from conformance.running.normalize import Normalizer
from conformance.running.substitute import Context, with_index

FIXTURE = Path(__file__).resolve().parent / "corpus"
RUN = "5f0c2e1a-9b7d-4c1e-8a54-2f6d0b3e9c71"
UUID4 = r"run=[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$"
START = f"--- [teamai:recall:start] --- (1 result) run={RUN}\n[1/1] [learnings] A (b) [workspace]\n"


def _check(expect: dict, stdout: str = START, log: list | None = None, ctx: Context | None = None,
           stderr: str = "") -> list:
    step = StepOutcome(0, "recall", "r1", "2026-11-30T10:00:00.000Z", 0, stdout, stderr, RUN)
    ctx = ctx or Context(steps={"r1": {"run": RUN, "output": stdout}})
    return evaluate(expect, {"log": log or []}, [step], ctx, Normalizer.build({}, {}, {}, {}))


def test_output_matches_searches_each_line_and_names_the_miss():
    assert _check({"steps": {"r1": {"output_matches": [UUID4.replace("$", r"\n?$"), r"^\[1/1\] "]}}}) == []
    (miss,) = _check({"steps": {"r1": {"output_matches": [r"^\[1/1\] ", r"run=[A-Z]+$"]}}})
    assert miss.path == "expect.steps.r1.output_matches[1]" and miss.message == "stdout does not match it"
    (bad,) = _check({"steps": {"r1": {"output_matches": ["(unclosed"]}}})
    assert "not a regular expression" in bad.message


def test_substitutions_inside_a_pattern_match_literally():
    # the printed output holds regex characters ([1/1], parentheses): inserted escaped, it matches itself
    assert _check({"steps": {"r1": {"output_matches": [r"\A${r1.output}\Z"]}}}) == []
    assert _check({"steps": {"r1": {"output_matches": [r"\A(?![\s\S]*${r1.run})"]}}}) != []
    other = "0a0c2e1a-9b7d-4c1e-8a54-2f6d0b3e9c71"
    ctx = Context(steps={"r1": {"run": other, "output": ""}})
    assert _check({"steps": {"r1": {"output_matches": [r"\A(?![\s\S]*${r1.run})"]}}}, ctx=ctx) == []


WARNING = "teamai-ref: warning: index /s/index.db is corrupt (file is not a database); rebuilding it\n"


def test_stderr_matches_searches_what_the_step_printed_on_stderr():
    assert _check({"steps": {"r1": {"stderr_matches": [r"\A\Z"]}}}) == []
    assert _check({"steps": {"r1": {"stderr_matches": [r"^teamai-ref: warning: index .+ is corrupt"]}}},
                  stderr=WARNING) == []
    (miss,) = _check({"steps": {"r1": {"stderr_matches": [r"\A\Z"]}}}, stderr=WARNING)
    assert (miss.path, miss.message, miss.actual) == ("expect.steps.r1.stderr_matches[0]", "stderr does not match it",
                                                      WARNING)
    (miss,) = _check({"steps": {"r1": {"stderr_matches": ["run="]}}})  # stdout is not searched
    assert miss.path == "expect.steps.r1.stderr_matches[0]"


def test_stderr_matches_is_the_profiles_and_says_something_when_it_wants_a_warning():
    want = {"steps": {"r1": {"stderr_matches": [r"\A\Z", "warning"]}}}
    assert levels.spec_problems(want, {"r1": "recall"}) == ["expect.steps.r1.stderr_matches: not a spec-level observation"]
    assert placement.split(want, {"r1": "recall"}) == ({}, want)
    assert vacuity.positive(want, [{"recall": "q", "as": "r1"}]) == ["expect.steps.r1.stderr_matches[1]"]


def test_log_lines_counts_every_line():
    log = [{"kind": "run"}, {"kind": "claim"}]
    assert _check({"log_lines": 2}, log=log) == []
    (miss,) = _check({"log_lines": 3}, log=log)
    assert (miss.path, miss.expected, miss.actual) == ("expect.log_lines", 3, 2)


def test_with_index_replaces_every_i_and_nothing_else():
    message = {"query": "q ${i}", "env": {"S": "s-${i}"}, "payload": {"a": ["${i}/${i}", 7], "${i}": "${r1.run}"}}
    assert with_index(message, 12) == {"query": "q 12", "env": {"S": "s-12"},
                                       "payload": {"a": ["12/12", 7], "12": "${r1.run}"}}
    assert Context().apply("s-${i}") == "s-${i}"  # the harness leaves it for the driver


REPEATED = """id: fx-repeat-reads
title: Repeated reads each leave one log line
clauses: [FX-ADOPT-READ]
provenance: derived
agents: [claude]
team:
  learnings/redis-timeout.md: |
    ---
    title: Redis client times out under load
    ---
    redis
steps:
  - hook: claude/post-tool-use-read
    repeat: 7
    set: {session_id: "ses-${i}", cwd: "${root:team}", tool_input.file_path: "${path:learnings/redis-timeout}"}
expect:
  log_contains:
    - {kind: evidence, session: ses-1}
    - {kind: evidence, session: ses-7}
  log_absent:
    - {kind: evidence, session: ses-8}
profile:
  log_lines: 7
"""


def test_repeat_runs_in_the_driver_in_process_and_as_real_processes(corpus_copy, scenario_writer):
    scenario_writer(corpus_copy, "attribution", "fx-repeat-reads", REPEATED)
    loaded = corpus.load(corpus_copy)
    assert lint.lint(loaded) == []
    (chosen,) = [s for s in loaded.scenarios if s.id == "fx-repeat-reads"]
    assert capabilities.needs(chosen, loaded.payloads)["repeat"] is True
    for impl in ("reference", "reference-cli"):
        (result,) = pool.run_all(impl, loaded, [chosen], {}, timeout=60.0)
        assert result.outcome == outcomes.PASS, (impl, result.message, result.mismatches)
        assert len(result.observed["log"]) == 7


def test_repeat_is_not_applicable_for_a_driver_that_does_not_declare_it(corpus_copy, scenario_writer, fake):
    scenario_writer(corpus_copy, "recall", "fx-repeat-recall", REPEATED.replace("fx-repeat-reads", "fx-repeat-recall")
                    .replace("  - hook: claude/post-tool-use-read\n    repeat: 7\n    set: {session_id: \"ses-${i}\", "
                             "cwd: \"${root:team}\", tool_input.file_path: \"${path:learnings/redis-timeout}\"}\n",
                             "  - recall: redis ${i}\n    repeat: 2\n"))
    loaded = corpus.load(corpus_copy)
    (chosen,) = [s for s in loaded.scenarios if s.id == "fx-repeat-recall"]
    assert capabilities.missing(capabilities.needs(chosen, loaded.payloads),
                                {"commands": ["recall"], "agents": [], "log": True, "hold": []}) == ["repeat"]
    (result,) = pool.run_all(fake("few"), loaded, [chosen], {}, timeout=10.0)
    assert result.outcome == outcomes.NOT_APPLICABLE and "repeat" in result.message


@pytest.mark.parametrize("old, new, expected", [
    ("    repeat: 7\n", "", "${i} is known only in a step with repeat"),
    ("    repeat: 7\n", "    repeat: 0\n", "steps.0"),
    ("  log_lines: 7\n", "  log_lines: 7\n  steps: {r1: {output_matches: ['(open']}}\n", None),
])
def test_lint_finds_faults_of_the_extensions(corpus_copy, scenario_writer, old, new, expected):
    text = REPEATED.replace(old, new)
    if expected is None:  # a pattern that does not compile, on a named step
        text = text.replace("    repeat: 7\n", "    repeat: 7\n    as: r1\n")
        expected = "output_matches[0]: not a regular expression"
    scenario_writer(corpus_copy, "attribution", "fx-repeat-reads", text)
    problems = "\n".join(lint.lint(corpus.load(corpus_copy)))
    assert expected in problems, problems


def _with_unit_tests(root: Path, node: str) -> None:
    catalogue = root / "clauses.yaml"
    text = (FIXTURE / "clauses.yaml").read_text()
    old = 'text: "No fixture scenario tests this clause."}'
    assert old in text
    catalogue.write_text(text.replace(old, old[:-1] + f", unit_tests: [{node}]}}"))
    (root / "tests").mkdir(exist_ok=True)
    (root / "tests" / "test_fixture_units.py").write_text(
        "def test_covers_it():\n    assert True\n\n\nclass TestGroup:\n    def test_inside(self):\n        assert True\n")


@pytest.mark.parametrize("node", ["tests/test_fixture_units.py::test_covers_it",
                                  "tests/test_fixture_units.py::TestGroup::test_inside"])
def test_named_unit_tests_must_exist(corpus_copy, node):
    _with_unit_tests(corpus_copy, node)
    assert lint.lint(corpus.load(corpus_copy)) == []
    _with_unit_tests(corpus_copy, "tests/test_fixture_units.py::test_gone")
    assert any("defines no test_gone" in p for p in lint.lint(corpus.load(corpus_copy)))
    _with_unit_tests(corpus_copy, "tests/test_nowhere.py::test_covers_it")
    assert any("there is no file tests/test_nowhere.py" in p for p in lint.lint(corpus.load(corpus_copy)))


def test_unit_tests_must_be_node_ids(tmp_path):
    path = tmp_path / "clauses.yaml"
    path.write_text("version: 1\nclauses:\n  - {id: A, spec: ref, section: s, text: t, unit_tests: [just-a-name]}\n")
    with pytest.raises(clauses.CatalogueError, match="pytest node ids"):
        clauses.load(path)


def test_reports_tell_unit_test_coverage_from_scenario_coverage(corpus_copy, tmp_path):
    _with_unit_tests(corpus_copy, "tests/test_fixture_units.py::test_covers_it")
    report = tmp_path / "report.jsonl"
    out = io.StringIO()
    code = cli.main(["--corpus", str(corpus_copy), "run", "--report", str(report)], out, io.StringIO())
    assert code == cli.EXIT_UNEXPECTED  # the fixture corpus fails one case on purpose
    text = out.getvalue()
    assert "clauses: 5/6 tested by at least one scenario" in text
    assert "tested only by the reference's unit tests (1): FX-UNTESTED" in text
    assert "untested clauses" not in text
    _, _, foot = report_jsonl.read(report)
    assert foot is not None
    assert foot["clauses"] == {"total": 6, "by_scenarios": 5, "unit_tests_only": ["FX-UNTESTED"], "untested": []}


def test_summary_and_render_agree_on_a_mixed_catalogue():
    catalogue = [clauses.Clause("A", "884", "s", "t"), clauses.Clause("B", "ref", "s", "t", ("tests/x.py::t",)),
                 clauses.Clause("C", "884", "s", "t"), clauses.Clause("D", "ref", "s", "t", ("tests/x.py::t",))]
    counts = {"A": 2, "B": 0, "C": 0, "D": 1}
    summary = clauses.summary(catalogue, counts)
    assert summary == {"total": 4, "by_scenarios": 2, "unit_tests_only": ["B"], "untested": ["C"]}
    text = report_terminal.render([], summary, "x", str)  # the terminal shows the footer's summary as it is
    assert "clauses: 2/4 tested by at least one scenario" in text
    assert "tested only by the reference's unit tests (1): B" in text and "untested clauses: C" in text
    assert json.dumps(summary)  # what the JSON-lines footer carries is plain JSON


def test_a_given_log_spelt_as_a_repeated_line_is_spelt_out_for_the_driver():
    from conformance.running.case_runner import seed_message

    ctx = Context(paths={"learnings/a": "/t/learnings/a.md"})
    given = {"log": {"before": '{"path":"${path:learnings/a}"}\n', "repeat": "{}\n", "times": 3, "after": "x\n"}}
    message = seed_message(given, "2026-11-30T10:00:00.000Z", ctx)
    assert message["log"] == '{"path":"/t/learnings/a.md"}\n{}\n{}\n{}\nx\n'
    assert seed_message({"log": "as written\n"}, "2026-11-30T10:00:00.000Z", ctx)["log"] == "as written\n"


SPOILED = """id: fx-spoiled-index
title: A recall after the index is spoiled still prints its hit
clauses: [FX-RUN-RECORD]
provenance: derived
agents: []
team:
  learnings/redis-timeout.md: "---\\ntitle: Redis timeout\\n---\\nredis\\n"
steps:
  - recall: redis
  - spoil: {what: search-index, how: garbage}
  - recall: redis
    as: r2
expect:
  steps:
    r2: {output_contains: ["[1/1] [learnings] Redis timeout"]}
"""


def test_a_spoil_step_needs_its_capability_and_is_not_applicable_without_it(corpus_copy, scenario_writer, fake):
    scenario_writer(corpus_copy, "recall", "fx-spoiled-index", SPOILED)
    loaded = corpus.load(corpus_copy)
    assert lint.lint(loaded) == []
    chosen = loaded.by_id()["fx-spoiled-index"]
    need = capabilities.needs(chosen, loaded.payloads)
    assert need["spoil"] == {"search-index"} and need["hold"] == set() and need["commands"] == {"recall"}
    few = {"commands": ["recall"], "agents": [], "log": True, "hold": ["search-index"]}
    assert capabilities.missing(need, few) == ["spoil search-index"]
    assert capabilities.missing(need, {**few, "spoil": ["search-index"]}) == []
    (result,) = pool.run_all(fake("few"), loaded, [chosen], {}, timeout=10.0)
    assert result.outcome == outcomes.NOT_APPLICABLE and "spoil search-index" in result.message


@pytest.mark.parametrize("old, new, expected", [
    ("how: garbage", "how: burnt", "steps.1"),
    ("how: garbage", "how: garbage, when: now", "steps.1"),
    ("what: search-index, how: garbage", "what: search-index", "steps.1"),
    ("what: search-index", "what: votes-ledger", "steps.1"),
    ("r2: {output_contains:", "r2: {stderr_matches: ['(open'], output_contains:",
     "profile.steps.r2.stderr_matches[0]: not a regular expression"),
])
def test_lint_finds_faults_of_a_spoil_step_and_of_stderr_matches(corpus_copy, scenario_writer, old, new, expected):
    text = SPOILED.replace(old, new)
    if "stderr_matches" in new:
        text = text.replace("expect:\n", "profile:\n")
    scenario_writer(corpus_copy, "recall", "fx-spoiled-index", text)
    problems = "\n".join(lint.lint(corpus.load(corpus_copy)))
    assert expected in problems, problems


def test_a_spoil_step_goes_to_the_driver_as_what_and_how():
    step = {"spoil": {"what": "search-index", "how": "truncated"}}
    message = _message("spoil", step, "2026-11-30T10:00:00.000Z", {}, Context(), {}, "steps[0]")
    assert message == {"cmd": "spoil", "now": "2026-11-30T10:00:00.000Z", "what": "search-index", "how": "truncated"}
    protocol.check({**message, "seq": 1}, "spoil", "request")
    assert _message("hold", {"hold": "recall-log"}, "t", {}, Context(), {}, "steps[0]") == {
        "cmd": "hold", "now": "t", "what": "recall-log"}


def test_the_protocol_names_what_the_schemas_allow():
    def enum(name: str, *path: str) -> list[str]:
        node = schema._schema(name)
        for key in path:
            node = node[key]
        return list(node["enum"])

    assert enum("protocol/spoil.request.json", "properties", "what") == list(protocol.SPOILABLE)
    assert enum("protocol/spoil.request.json", "properties", "how") == list(protocol.SPOILS)
    assert enum("protocol/start.response.json", "properties", "capabilities", "properties", "spoil", "items") == list(
        protocol.SPOILABLE)
    assert enum("protocol/hold.request.json", "properties", "what") == list(protocol.HOLDABLE)
    steps = schema._schema("scenario.schema.json")["properties"]["steps"]["items"]["oneOf"]
    (spoil,) = [s["properties"]["spoil"]["properties"] for s in steps if "spoil" in s["properties"]]
    assert (spoil["what"]["enum"], spoil["how"]["enum"]) == (list(protocol.SPOILABLE), list(protocol.SPOILS))
