"""Every example in the harness's docs is checked, so a doc cannot name a payload, a clause, a
field or an option that does not exist:

- SCENARIOS.md: the complete example is a scenario file of the corpus (the suite runs it), copied
  verbatim; the block that shows every key is linted like a scenario against the project's
  payloads and catalogue; the payload block is valid against the payload schema; the clause
  block is the catalogue's own entry; every ``${…}`` it explains is a known form;
- PROTOCOL.md: the message table names exactly the fields of the message schemas (``?`` marks
  the optional ones, ``[]`` an array, ``{…}`` an object's own fields);
- README.md, docs/*.md, SCENARIOS.md and PROTOCOL.md: every ``teamai-conformance`` command line parses, its
  selectors select, and a file it names exists.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path
from typing import Any

import project
import pytest

from conformance import cli
from conformance.corpus import clauses, lint, selection
from conformance.corpus import read as corpus
from conformance.corpus.capabilities import ACTIONS, action_of
from conformance.running.substitute import PATTERN, is_known_form

ROOT = Path(__file__).resolve().parents[2]
PROJECT = project.load()
SCENARIOS_MD = (ROOT / "conformance" / "SCENARIOS.md").read_text(encoding="utf-8")
PROTOCOL_MD = (ROOT / "conformance" / "PROTOCOL.md").read_text(encoding="utf-8")
README_MD = (ROOT / "README.md").read_text(encoding="utf-8")
GUIDES = {f"docs/{p.name}": p.read_text(encoding="utf-8") for p in sorted((ROOT / "docs").glob("*.md"))}
FENCE = re.compile(r"^(?:<!-- (?P<source>\S+) -->\n)?```(?P<lang>\w*)\n(?P<body>.*?)^```$", re.MULTILINE | re.DOTALL)


def _blocks(text: str, lang: str) -> list[tuple[str | None, str]]:
    return [(m.group("source"), m.group("body")) for m in FENCE.finditer(text) if m.group("lang") == lang]


def _scenario_blocks() -> list[tuple[str | None, str]]:
    return [(src, body) for src, body in _blocks(SCENARIOS_MD, "yaml") if body.startswith("id: ")]


def test_the_complete_example_is_a_scenario_of_the_corpus_copied_verbatim():
    included = [(src, body) for src, body in _scenario_blocks() if src]
    assert included, "SCENARIOS.md shows no scenario file of the corpus"
    for src, body in included:
        path = ROOT / str(src)
        assert path.is_file() and path.parent.parent.name == "scenarios", src
        assert body == path.read_text(encoding="utf-8"), f"SCENARIOS.md's copy of {src} differs from the file"
        assert any(s.path == path for s in PROJECT.scenarios)


def test_the_block_of_every_key_lints_as_a_scenario_of_this_corpus():
    sketches = [body for src, body in _scenario_blocks() if not src]
    assert sketches, "SCENARIOS.md has no block showing every key"
    catalogue = {c.id for c in clauses.load(PROJECT.clauses_path)}
    for body in sketches:
        data = corpus.load_yaml(body)
        scenario = corpus.Scenario(ROOT / "scenarios" / "doc" / "example.yaml", "SCENARIOS.md", "doc", data)
        assert lint.blocking(scenario, PROJECT) == []
        assert [c for c in scenario.clauses if c not in catalogue] == []
        assert {action_of(step) for step in scenario.steps} == set(ACTIONS)  # it does show every action


def test_the_payload_example_is_valid():
    (body,) = [body for _, body in _blocks(SCENARIOS_MD, "json")]
    assert lint.schema_errors(json.loads(body), "payload.schema.json") == []


def test_the_clause_example_is_the_catalogue_entry():
    (body,) = [body for _, body in _blocks(SCENARIOS_MD, "yaml") if body.lstrip().startswith("- id: ")]
    (shown,) = corpus.load_yaml(body)
    entries = corpus.load_yaml(PROJECT.clauses_path.read_text(encoding="utf-8"))["clauses"]
    assert shown == next(e for e in entries if e["id"] == shown["id"])
    assert clauses.missing_unit_tests(clauses.load(PROJECT.clauses_path), ROOT) == []


def test_every_substitution_the_doc_explains_is_a_known_form():
    explained = {m.group(1) for m in PATTERN.finditer(SCENARIOS_MD)}
    assert {"r1.run", "r1.output", "i", "root:team"} <= explained
    assert sorted(ref for ref in explained if not is_known_form(ref)) == []


# --- PROTOCOL.md's message table -------------------------------------------------------------

FIELD = re.compile(r"^(?P<name>[a-z_]+)(?P<array>\[\])?(?P<optional>\?)?(?: \{(?P<inner>.*)\})?$")


def _split(text: str) -> list[str]:
    """Split at the commas outside braces."""
    parts, depth, current = [], 0, ""
    for ch in text:
        depth += ch == "{"
        depth -= ch == "}"
        if ch == "," and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += ch
    return [p for p in [*parts, current.strip()] if p]


def _check_fields(specs: list[str], schema: dict[str, Any], skip: set[str], where: str) -> None:
    props = {k: v for k, v in schema.get("properties", {}).items() if k not in skip}
    required = set(schema.get("required", [])) - skip
    seen = {}
    for spec in specs:
        m = FIELD.match(spec)
        assert m, f"{where}: cannot read {spec!r}"
        name = m.group("name")
        seen[name] = m
        assert name in props, f"{where}: {name} is not in the schema"
        assert bool(m.group("optional")) == (name not in required), f"{where}: {name} optional?"
        types = props[name].get("type")
        types = types if isinstance(types, list) else [types]
        if m.group("array"):
            assert "array" in types, f"{where}: {name} is not an array"
        inner = m.group("inner")
        if inner is not None and ":" not in inner and inner not in ("", "…"):
            _check_fields(_split(inner), props[name], set(), f"{where}.{name}")
    assert set(seen) == set(props), f"{where}: the doc names {sorted(seen)}, the schema {sorted(props)}"


def _schema(name: str) -> dict[str, Any]:
    return json.loads((ROOT / "conformance" / "schemas" / "protocol" / name).read_text(encoding="utf-8"))


def _table_rows() -> list[tuple[str, str]]:
    section = PROTOCOL_MD.split("## Messages", 1)[1]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    return [(cells[1].strip(), cells[2].strip()) for cells in (row.split("|") for row in rows)]


def test_the_message_table_names_exactly_the_fields_of_the_schemas():
    rows = _table_rows()
    cmds = []
    for request, answer in rows:
        m = re.fullmatch(r"`(?P<cmd>[a-z]+) \{(?P<fields>.*)\}`", request)
        assert m, request
        cmd = m.group("cmd")
        cmds.append(cmd)
        _check_fields(_split(m.group("fields")), _schema(f"{cmd}.request.json"), {"cmd", "seq"}, f"{cmd} request")
        specs = re.findall(r"`([^`]+)`", answer)
        if answer.startswith("nothing else"):
            specs = []
        _check_fields(specs, _schema(f"{cmd}.response.json"), {"seq", "ok"}, f"{cmd} answer")
    files = {p.name.split(".")[0] for p in (ROOT / "conformance" / "schemas" / "protocol").glob("*.request.json")}
    assert sorted(cmds) == sorted(files)


# --- command lines in the docs ---------------------------------------------------------------


def _command_lines() -> list[tuple[str, str]]:
    found = []
    for doc, text in (("README.md", README_MD), ("SCENARIOS.md", SCENARIOS_MD), ("PROTOCOL.md", PROTOCOL_MD),
                      *GUIDES.items()):
        for _, body in [*_blocks(text, "sh"), *_blocks(text, "")]:
            for line in body.splitlines():
                if line.startswith("teamai-conformance"):
                    found.append((doc, re.split(r"\s#\s", line, maxsplit=1)[0].strip()))
    return found


COMMANDS = _command_lines()


def test_the_docs_show_command_lines():
    assert len(COMMANDS) >= 8 and {doc for doc, _ in COMMANDS} >= {"README.md", "PROTOCOL.md", "docs/harness.md",
                                                                    "docs/results-page.md"}


@pytest.mark.parametrize("doc, line", COMMANDS, ids=[line for _, line in COMMANDS])
def test_every_command_line_in_the_docs_parses_and_selects(doc, line):
    argv = shlex.split(line)[1:]
    assert "|" not in argv, f"{doc}: {line} is not one command"
    args = cli.build_parser().parse_args(argv)  # a usage error exits here
    if args.command in ("run", "list", "show"):
        only = args.selectors if args.command == "show" else args.only
        assert selection.select(PROJECT, only, args.agent)
    if getattr(args, "expectations", None) and not str(args.expectations).startswith("my-"):
        assert (ROOT / args.expectations).is_file(), f"{doc}: {args.expectations} does not exist"
