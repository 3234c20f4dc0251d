"""Judging for real: forked processes running real scenarios against a mutated reference, the plan
that picks the scenarios, the cache that remembers verdicts, and the equivalents file."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from conformance.corpus import read as corpus_mod
from conformance.mutation import equivalents, judge, targets, walker
from conformance.mutation.cache import Cache
from conformance.mutation.judge import Job, run_jobs
from conformance.mutation.operators import Mutant
from conformance.mutation.plan import ModulePlan, Plan
from conformance.mutation.tracing import IMPORT, code_hash

ROOT = Path(__file__).resolve().parents[2]
RENDER = "reference/recall/render.py"
START_CASE = "recall-start-line-run-id"  # checks the start line, with a short query
CAPPED_CASE = "recall-no-hit-query-capped"  # a 240-character query, cut at 200


@pytest.fixture(scope="module")
def corpus() -> corpus_mod.Corpus:
    return corpus_mod.load(ROOT)


def _render_mutants() -> tuple[list[Mutant], ast.Module]:
    source = (ROOT / RENDER).read_text(encoding="utf-8")
    return walker.mutants(source, "reference.recall.render", RENDER), ast.parse(source)


def _one(found: list[Mutant], before: str, after: str) -> Mutant:
    [m] = [m for m in found if m.before == before and m.after == after]
    return m


def _judge(corpus: corpus_mod.Corpus, tree: ast.Module, jobs: list[Job]) -> dict[str, judge.Verdict]:
    def compile_mutant(m: Mutant):  # type: ignore[no-untyped-def]
        return m.compile(tree, str(ROOT / m.path))

    def stale_for(module: str) -> set[str]:
        return judge.dependents(ROOT, module)

    baseline = {s.id: "pass" for s in corpus.scenarios}
    return {job.mutant.id: v for job, v in run_jobs(jobs, compile_mutant, stale_for, corpus, baseline, 2)}


def _loop_forever(ignore_alarm: bool) -> Mutant:
    """A hand-made mutant: recall's text never comes (optionally deaf to the harness's alarm)."""
    prefix = "import signal\nsignal.signal(signal.SIGALRM, signal.SIG_IGN)\n" if ignore_alarm else ""
    loop = ast.parse(prefix + "while True:\n    pass\n").body
    source = (ROOT / RENDER).read_text(encoding="utf-8")
    tree = ast.parse(source)
    index = next(i for i, s in enumerate(tree.body) if isinstance(s, ast.FunctionDef) and s.name == "render")
    return Mutant(id=f"recall.render:render:loop:{ignore_alarm}", module="reference.recall.render", short="recall.render", path=RENDER,
                  operator="remove", scope="render", line=1, end_line=1, before="", after="", lines=frozenset(),
                  module_wide=False, node_path=(("body", index), ("body", 0)), factory=lambda n: loop)


def test_killed_survived_and_hung_mutants_get_their_verdicts(corpus: corpus_mod.Corpus) -> None:
    found, tree = _render_mutants()
    start = _one(found, "START = '--- [teamai:recall:start] ---'", "START = '--- [teamai:recall:start] --'")
    cap = _one(found, "MAX_QUERY_ECHO = 200", "MAX_QUERY_ECHO = 201")
    loop, deaf = _loop_forever(False), _loop_forever(True)
    jobs = [Job(start, [START_CASE], 60, {}),
            Job(cap, [START_CASE], 60, {}),  # a short query never reaches the cap
            Job(loop, [START_CASE], 60, {START_CASE: 3.0}),  # the harness's alarm ends it
            Job(deaf, [START_CASE], 4.0, {START_CASE: 60.0})]  # only killing the process ends it
    verdicts = _judge(corpus, tree, jobs)
    assert verdicts[start.id].status == judge.KILLED and verdicts[start.id].by == START_CASE
    assert verdicts[start.id].outcome == "fail"
    assert verdicts[cap.id].status == judge.SURVIVED and verdicts[cap.id].ran == 1
    assert verdicts[loop.id].status == judge.TIMEOUT and verdicts[loop.id].by == START_CASE
    assert verdicts[deaf.id].status == judge.TIMEOUT and "killed" in verdicts[deaf.id].message
    # the working tree was never touched
    assert (ROOT / RENDER).read_text(encoding="utf-8").count("MAX_QUERY_ECHO = 200") == 1


def test_the_long_query_case_kills_the_cap_shift(corpus: corpus_mod.Corpus) -> None:
    found, tree = _render_mutants()
    cap = _one(found, "MAX_QUERY_ECHO = 200", "MAX_QUERY_ECHO = 199")
    verdicts = _judge(corpus, tree, [Job(cap, [START_CASE, CAPPED_CASE], 60, {})])
    assert verdicts[cap.id].status == judge.KILLED and verdicts[cap.id].by == CAPPED_CASE
    assert verdicts[cap.id].ran == 2  # stops at the first failure, which came second


def test_dependents_are_those_that_import_the_module() -> None:
    users = judge.dependents(ROOT, "reference.pathmatch")
    assert {"reference.pathmatch", "reference.hook.classify", "reference.reducer"} <= users
    assert "reference.hook.shell" not in users  # shell does not import pathmatch
    assert "reference.hook.claims" in judge.dependents(ROOT, "reference.recall.render")


def test_plan_follows_a_table_to_the_lines_that_read_it() -> None:
    source = "_NAMES = ('a', 'b')\n_SET = frozenset(_NAMES)\nOTHER = 1\n\ndef f(x):\n    return x in _SET\n"
    found = walker.mutants(source, "reference.m", "reference/m.py")
    plan = Plan({"case-f": {"lines": {"reference/m.py": [6]}, "outcome": "pass", "duration": 0.1},
                 "case-g": {"lines": {"reference/m.py": [3]}, "outcome": "pass", "duration": 0.1},
                 IMPORT: {"lines": {"reference/m.py": [1, 2, 3, 5]}, "outcome": "pass", "duration": 0.0}},
                {"reference/m.py": source})
    drop = next(m for m in found if m.operator == "drop")
    assert ModulePlan(source).affected(0) == {"_NAMES", "_SET"}
    assert plan.covering(drop) == {"case-f"}  # not case-g, which never reads the table
    public = next(m for m in found if m.after == "OTHER = 2")
    assert plan.covering(public) == {"case-f", "case-g"}  # a public name: every user of the module


def test_cache_keeps_verdicts_per_code_version(tmp_path: Path) -> None:
    cache = Cache(tmp_path, "code-1")
    cache.store("k", {"status": "survived", "judged": {"a": "h1"}})
    cache.compact()
    assert Cache(tmp_path, "code-1").verdict("k") == {"key": "k", "code": "code-1", "status": "survived",
                                                      "judged": {"a": "h1"}}
    assert Cache(tmp_path, "code-2").verdict("k") is None
    assert Cache(None, "code-1").verdict("k") is None


def test_equivalents_file_is_checked(tmp_path: Path) -> None:
    good = tmp_path / "eq.toml"
    good.write_text('[[equivalent]]\nid = "render:x:string:1"\nwhy = "never printed"\n', encoding="utf-8")
    assert equivalents.load(good) == {"render:x:string:1": "never printed"}
    twice = tmp_path / "twice.toml"
    twice.write_text(good.read_text() * 2, encoding="utf-8")
    with pytest.raises(equivalents.EquivalentsError, match="twice"):
        equivalents.load(twice)
    bare = tmp_path / "bare.toml"
    bare.write_text('[[equivalent]]\nid = "render:x:string:1"\n', encoding="utf-8")
    with pytest.raises(equivalents.EquivalentsError, match="needs an id and a why"):
        equivalents.load(bare)


def test_the_committed_equivalents_name_real_mutants() -> None:
    listed = equivalents.load()
    ids: set[str] = set()
    for t in targets.resolve(ROOT):
        ids |= {m.id for m in walker.mutants((ROOT / t.path).read_text(encoding="utf-8"), t.module, t.path, t.only)}
    assert not set(listed) - ids


def test_targets_follow_patterns(tmp_path: Path) -> None:
    (tmp_path / "reference" / "reducer").mkdir(parents=True)
    (tmp_path / "reference" / "relations").mkdir(parents=True)
    (tmp_path / "reference" / "recall").mkdir(parents=True)
    for name in ("reference/reducer/__init__.py", "reference/reducer/settle.py", "reference/relations/__init__.py",
                 "reference/relations/links.py", "reference/recall/run.py"):
        (tmp_path / name).write_text("X = 1\n", encoding="utf-8")
    found = {t.path: t for t in targets.resolve(tmp_path)}
    # a package's __init__ only when a pattern names it: the reducer's, not the one relations/* finds
    assert set(found) == {"reference/reducer/__init__.py", "reference/reducer/settle.py",
                          "reference/relations/links.py", "reference/recall/run.py"}
    assert found["reference/reducer/__init__.py"].module == "reference.reducer"
    assert found["reference/recall/run.py"].only == ("run_record", "record")
    assert found["reference/reducer/settle.py"].module == "reference.reducer.settle"
    assert [t.short for t in targets.select(list(found.values()), ["reducer.*"])] == ["reducer.settle"]
    assert [t.short for t in targets.select(list(found.values()), ["reducer"])] == ["reducer"]


def test_a_mutated_package_is_served_with_its_submodules_still_found(tmp_path: Path) -> None:
    import importlib
    import sys

    package = tmp_path / "served_pkg"
    package.mkdir()
    (package / "__init__.py").write_text("from .sub import VALUE\nDOUBLED = VALUE * 2\n", encoding="utf-8")
    (package / "sub.py").write_text("VALUE = 21\n", encoding="utf-8")
    code = compile("from .sub import VALUE\nDOUBLED = VALUE * 3\n", str(package / "__init__.py"), "exec")
    serve = judge._Serve("served_pkg", str(package / "__init__.py"), code)
    sys.meta_path.insert(0, serve)
    try:
        module = importlib.import_module("served_pkg")
        assert module.DOUBLED == 63  # the mutated code ran, and found its submodule next to it
        assert importlib.import_module("served_pkg.sub").VALUE == 21
    finally:
        sys.meta_path.remove(serve)
        for name in ("served_pkg", "served_pkg.sub"):
            sys.modules.pop(name, None)


def test_a_run_reports_and_a_rerun_judges_only_what_a_new_scenario_reaches(tmp_path: Path, capsys) -> None:
    """The whole command on a two-scenario corpus: the report, then the cache at work."""
    from conformance.mutation import run

    corpus_dir = tmp_path / "corpus"
    (corpus_dir / "scenarios" / "recall").mkdir(parents=True)
    (corpus_dir / "payloads").mkdir()
    source = ROOT / "scenarios" / "recall"
    for name in ("start-line-run-id.yaml", "end-and-footer.yaml"):
        (corpus_dir / "scenarios" / "recall" / name).write_text((source / name).read_text(encoding="utf-8"),
                                                                 encoding="utf-8")
    argv = ["--module", "recall.render", "--operator", "number", "--corpus", str(corpus_dir), "--no-nice",
            "--cache-dir", str(tmp_path / "cache"), "--report-dir", str(tmp_path / "report")]
    assert run.main(argv) == 0
    first = capsys.readouterr().out
    assert "recall.render" in first and "overall" in first
    lines = (tmp_path / "report" / "partial.jsonl").read_text(encoding="utf-8").splitlines()
    verdicts = {json_id(line): json_status(line) for line in lines}
    echo = (ROOT / RENDER).read_text(encoding="utf-8")
    capped = [m.id for m in walker.mutants(echo, "reference.recall.render", "reference/recall/render.py", None)
              if m.operator == "number" and m.before.startswith("MAX_QUERY_ECHO")]
    assert capped and set(capped) <= set(verdicts)
    assert capped and all(verdicts[i] != "killed" for i in capped)  # no long query in this corpus
    report = (tmp_path / "report" / "partial.md").read_text(encoding="utf-8")
    assert "## Survivors" in report and "MAX_QUERY_ECHO = 201" in report

    assert run.main(argv) == 0
    assert "0 judged now" in capsys.readouterr().out  # everything from the cache

    (corpus_dir / "scenarios" / "recall" / "no-hit-query-capped.yaml").write_text(
        (source / "no-hit-query-capped.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    assert run.main(argv) == 0
    third = capsys.readouterr().out
    judged_now = int(third.split(" judged now")[0].rsplit(",", 1)[-1].strip())
    survivors_before = sum(1 for s in verdicts.values() if s in ("survived",))
    assert 0 < judged_now <= survivors_before  # only survivors the new case reaches are run again
    lines = (tmp_path / "report" / "partial.jsonl").read_text(encoding="utf-8").splitlines()
    after = {json_id(line): json_status(line) for line in lines}
    assert all(after[i] == "killed" for i in capped), {i: after[i] for i in capped}


def test_a_listed_equivalent_is_judged_unless_asked_not_to(tmp_path: Path, capsys, monkeypatch) -> None:
    """A listed equivalent is judged like any mutant, so a fresh clone takes no listed id on trust;
    ``--skip-equivalents`` leaves one with no verdict for this code unjudged (counted as equivalent)."""
    from conformance.mutation import run

    corpus_dir = tmp_path / "corpus"
    (corpus_dir / "scenarios" / "recall").mkdir(parents=True)
    (corpus_dir / "payloads").mkdir()
    (corpus_dir / "scenarios" / "recall" / "end-and-footer.yaml").write_text(
        (ROOT / "scenarios" / "recall" / "end-and-footer.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    capped = "recall.render:<module>:number:"
    listed = [m.id for m in walker.mutants((ROOT / RENDER).read_text(encoding="utf-8"),
                                              "reference.recall.render", "reference/recall/render.py", ())
              if m.id.startswith(capped)][:1]
    assert listed
    monkeypatch.setattr(run.equivalents, "load", lambda: {listed[0]: "checked by hand"})

    def statuses(*extra: str) -> dict[str, str]:
        argv = ["--module", "recall.render", "--operator", "number", "--corpus", str(corpus_dir), "--no-nice", *extra,
                "--cache-dir", str(tmp_path / "cache"), "--report-dir", str(tmp_path / "report")]
        assert run.main(argv) == 0
        lines = (tmp_path / "report" / "partial.jsonl").read_text(encoding="utf-8").splitlines()
        return {json_id(line): json_status(line) for line in lines}

    first = statuses("--skip-equivalents")
    assert first[listed[0]] == "listed"
    assert "1 listed as equivalent and not judged" in capsys.readouterr().out
    assert statuses()[listed[0]] == "survived"
    assert statuses("--skip-equivalents")[listed[0]] == "survived"  # once judged, its verdict is kept


def json_id(line: str) -> str:
    import json

    return str(json.loads(line)["id"])


def json_status(line: str) -> str:
    import json

    return str(json.loads(line)["status"])


def test_a_comprehension_at_module_level_binds_no_module_name() -> None:
    source = "_NAMES = frozenset(n.lower() for n in ('A', 'B'))\n\ndef f(x):\n    return x in _NAMES\n"
    assert ModulePlan(source).affected(0) == {"_NAMES"}  # not n: a private table stays private


def test_a_comment_keeps_the_verdicts_and_renews_the_traces(tmp_path: Path) -> None:
    module = tmp_path / "reference" / "rule.py"
    module.parent.mkdir(parents=True)
    module.write_text("def rule(x):\n    return x > 1\n")
    before = code_hash(tmp_path), code_hash(tmp_path, layout=True)
    module.write_text("# why the bound is 1\ndef rule(x):\n    return (x > 1)\n")
    commented = code_hash(tmp_path), code_hash(tmp_path, layout=True)
    assert commented[0] == before[0] and commented[1] != before[1]
    module.write_text("# why the bound is 1\ndef rule(x):\n    return x >= 1\n")
    assert code_hash(tmp_path) != before[0]


def test_only_judges_the_mutants_named(tmp_path: Path, capsys) -> None:
    """After a change to a few lines, their mutants can be judged alone; an unknown id is refused."""
    from conformance.mutation import run

    named = [m.id for m in walker.mutants((ROOT / RENDER).read_text(encoding="utf-8"),
                                             "reference.recall.render", "reference/recall/render.py", ())][:2]
    argv = ["--module", "recall.render", "--no-nice", "--list", *[a for i in named for a in ("--only", i)]]
    assert run.main(argv) == 0
    listed = [line.split()[0] for line in capsys.readouterr().out.splitlines() if line.startswith("recall.render:")]
    assert len(listed) == 2 and set(listed) == set(named)
    assert run.main(["--module", "recall.render", "--no-nice", "--list", "--only", "recall.render:nowhere:x:0"]) == run.EXIT_USAGE
    assert "no mutant recall.render:nowhere:x:0" in capsys.readouterr().err
