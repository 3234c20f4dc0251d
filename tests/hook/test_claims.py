"""Claims: the run ids a shell call printed, only when the call itself invoked recall."""

from __future__ import annotations

import uuid

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference.hook import claims
from reference.recall import render

RUN = "5f0c2e1a-9b7d-4c1e-8a54-2f6d0b3e9c71"
RUN2 = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"


def test_the_start_line_and_the_no_hit_line_carry_run_ids() -> None:
    out = (f"--- [teamai:recall:start] --- (3 results) run={RUN}\n\n[1/3] ...\n--- [teamai:recall:end] ---\n"
           f'No matching learnings found for "redis timeout". run={RUN2}\r\n')
    assert claims.run_ids(out) == [RUN, RUN2]


def test_the_render_module_and_the_claims_module_agree() -> None:
    class Hit:
        type_label, title, scope, author, date, score = "learnings", "T", "workspace", None, None, 1.0
        tags, path, related, snippet = (), "/t/x.md", (), None

    assert claims.run_ids(render.render("q", [Hit()], RUN)) == [RUN]  # type: ignore[list-item]
    assert claims.run_ids(render.render("q", [], RUN2)) == [RUN2]
    assert claims.run_ids(render.render("q", [], None)) == []


def test_ids_elsewhere_in_the_output_are_not_runs() -> None:
    assert claims.run_ids(f"run={RUN}\nsee run={RUN2} later\n") == []
    assert claims.run_ids(f"--- [teamai:recall:start] --- (1 result) run={RUN} trailing\n") == []


def test_repeated_ids_are_claimed_once_in_lower_case() -> None:
    out = f"--- [teamai:recall:start] --- (1 result) run={RUN.upper()}\n" * 2
    assert claims.run_ids(out) == [RUN]


@settings(max_examples=100, deadline=None)
@given(st.uuids(), st.integers(min_value=0, max_value=50), st.text(max_size=30))
def test_every_printed_run_id_is_found(run: uuid.UUID, n: int, query: str) -> None:
    out = (f"noise\n--- [teamai:recall:start] --- ({n} results) run={run}\nmore\n"
           + render.render(query, [], str(run)))
    assert claims.run_ids(out) == [str(run)]


@pytest.mark.parametrize("command", [
    "teamai recall redis timeout",
    'teamai recall "redis timeout"',
    "/usr/local/bin/teamai recall redis",
    "teamai.cmd recall redis",
    "teamai.exe recall redis",
    "npx teamai recall redis",
    "npx -y teamai recall redis",
    "npx --yes teamai-cli recall redis",
    "npx teamai-cli@0.26.0 recall redis",
    "npx -p teamai-cli teamai recall redis",
    "bunx teamai-cli recall redis",
    "A=1 teamai recall redis",
    "TEAMAI_TEAM=/x B='y z' teamai recall redis",
    "env FOO=1 teamai recall redis",
    "command teamai recall redis",
    "teamai --scope user recall redis",
    "teamai --team /x --verbose recall redis",
    "teamai recall --caller teamai-recall redis",
    "teamai recall redis | head -40",
    "teamai recall redis 2>&1",
    "cd /proj && teamai recall redis",
    "teamai recall a; teamai recall b",
    "teamai-ref recall redis",
    "/opt/venv/bin/teamai-ref --team t recall redis",
    "python -m reference recall redis",
    "python3 -I -X importtime -m reference recall redis",
    "/usr/bin/python3.11 -mreference recall redis",
    "teamai --verbose recall redis",  # an unknown root option takes no value
])
def test_commands_that_invoke_recall(command: str) -> None:
    assert claims.invokes_recall(command)


@pytest.mark.parametrize("command", [
    'codex exec "run teamai recall redis and return its stdout"',
    "codex exec 'teamai recall redis'",
    "echo teamai recall redis",
    'bash -c "teamai recall redis"',
    "echo $(teamai recall redis)",
    "out=`teamai recall redis`",
    "teamai recall-check redis",
    "teamai search redis",
    "teamai",
    "npx -c 'teamai recall redis'",
    "npx other-tool recall redis",
    "python script.py -m reference recall",
    "python -c 'import reference' recall",
    "python -m pip recall",
    "myteamai recall redis",
    "grep 'teamai recall' notes.md",
    "teamai recall 'unterminated",
    "$TEAMAI recall redis",
])
def test_commands_that_do_not_invoke_recall(command: str) -> None:
    assert not claims.invokes_recall(command)


def test_windows_paths_to_the_binary_in_powershell() -> None:
    assert claims.invokes_recall(r"C:\Users\ana\AppData\Roaming\npm\teamai.cmd recall redis", "powershell")
    assert claims.invokes_recall(r'& "C:\Program Files\nodejs\teamai.cmd" recall redis', "powershell")


def test_dans_nested_codex_run_is_not_claimed_by_the_outer_shell() -> None:
    outer = 'codex exec "run teamai recall redis timeout and return its stdout"'
    output = f"--- [teamai:recall:start] --- (1 result) run={RUN}\n"
    assert claims.run_ids(output) == [RUN]
    assert not claims.invokes_recall(outer)


def test_run_ids_in_a_large_output_among_look_alike_lines() -> None:
    noise = 'No matching learnings found for "x" ' * 2000 + "\n"
    out = noise * 20 + f'No matching learnings found for "a \\"quoted\\" query". run={RUN}\n' + noise
    assert claims.run_ids(out) == [RUN]
