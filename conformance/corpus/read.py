"""Reading the corpus: scenarios (``scenarios/<area>/*.yaml``, and ``scenarios/<area>/generated/*.yaml``
written by ``teamai-conformance generate``) and payloads (``payloads/<agent>/*.json``).

Loading never raises on a bad file: a file that cannot be read becomes a :class:`Problem`, so
``lint`` can report every fault at once and ``run`` can refuse to start with a clear list.
Timestamps stay strings (the YAML loader does not turn ``2026-11-30T10:00:00Z`` into a
``datetime``), because the time rules and the JSON Schemas work on the text the author wrote.
``SCENARIOS.md`` is the format's contract; ``schemas/scenario.schema.json`` and
``schemas/payload.schema.json`` are its machine form.

One read of the corpus per process: what each scenario's text parsed to is kept (``_PARSED``, keyed
by the text, so an edit is never missed), and ``lint.blocking`` keeps the schema errors of that
shared data. A loaded corpus is therefore read-only: nothing in the harness changes a scenario's
data.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

SCENARIO_GLOB = "*.yaml"
GENERATED = "generated"  # the folder of an area that ``teamai-conformance generate`` owns
PAYLOAD_GLOB = "*.json"


class _Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """Safe YAML without implicit timestamps (they stay the strings the author wrote), refusing a
    key written twice in one mapping: YAML keeps the last, so the first would vanish unseen.

    libyaml's parser where PyYAML has it (the construction below stays Python): every run, lint
    and test reads the whole corpus, and the pure-Python parser made that take seconds."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            if isinstance(key, str | int | float | bool) and key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"{key!r} appears twice in one mapping", key_node.start_mark)
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


_Loader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def load_yaml(text: str) -> Any:
    return yaml.load(text, Loader=_Loader)  # noqa: S506 - a SafeLoader subclass


# A scenario's text to what it parses to, for this process. The suite, ``lint`` and ``run`` read
# the same corpus several times in one process, and the YAML construction (in Python) was most of
# each read; keying by the text itself, not by a file's times, means an edit is never missed. The
# data is shared between loads, so a loaded corpus is read-only; ``_SHARED`` holds the ids of
# that data, so that ``lint`` may keep what it worked out about it.
_PARSED: dict[str, Any] = {}
_SHARED: set[int] = set()


def _scenario_data(text: str) -> Any:
    if text not in _PARSED:
        data = _PARSED[text] = load_yaml(text)
        _SHARED.add(id(data))
    return _PARSED[text]


def is_shared(data: Any) -> bool:
    """Whether ``data`` is a scenario's parsed text as :func:`load` shares it (so never changes)."""
    return id(data) in _SHARED


@dataclass(frozen=True)
class Problem:
    """A corpus file that cannot be used, with the reason in one line."""

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


@dataclass(frozen=True)
class Scenario:
    path: Path
    rel: str  # path relative to the corpus root, for messages
    area: str
    data: dict[str, Any]

    @property
    def id(self) -> str:
        return str(self.data.get("id", ""))

    @property
    def title(self) -> str:
        return str(self.data.get("title", ""))

    @property
    def clauses(self) -> list[str]:
        return [str(c) for c in self.data.get("clauses") or []]

    @property
    def agents(self) -> list[str]:
        return [str(a) for a in self.data.get("agents") or []]

    @property
    def steps(self) -> list[dict[str, Any]]:
        return list(self.data.get("steps") or [])

    @property
    def expect(self) -> dict[str, Any]:
        return dict(self.data.get("expect") or {})


@dataclass(frozen=True)
class Payload:
    name: str  # "<agent>/<file stem>", as a hook step names it
    path: Path
    rel: str
    data: dict[str, Any]

    @property
    def agent(self) -> str:
        return str(self.data.get("agent") or self.name.split("/", 1)[0])

    @property
    def event(self) -> str:
        return str(self.data.get("event", ""))

    @property
    def payload(self) -> Any:
        return self.data.get("payload")


@dataclass
class Corpus:
    root: Path
    scenarios: list[Scenario] = field(default_factory=list)
    payloads: dict[str, Payload] = field(default_factory=dict)
    clauses_path: Path | None = None
    problems: list[Problem] = field(default_factory=list)

    def by_id(self) -> dict[str, Scenario]:
        return {s.id: s for s in self.scenarios}


def find_clauses(root: Path) -> Path | None:
    for candidate in (root / "conformance" / "clauses.yaml", root / "clauses.yaml"):
        if candidate.is_file():
            return candidate
    return None


def load(root: Path) -> Corpus:
    """The corpus under ``root`` (the folder holding ``scenarios/`` and ``payloads/``)."""
    root = root.resolve()
    corpus = Corpus(root, clauses_path=find_clauses(root))
    scenarios = root / "scenarios"
    for path in sorted([*scenarios.glob(f"*/{SCENARIO_GLOB}"), *scenarios.glob(f"*/{GENERATED}/{SCENARIO_GLOB}")]):
        rel = path.relative_to(root).as_posix()
        try:
            data = _scenario_data(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
            corpus.problems.append(Problem(rel, f"cannot be read as YAML: {_one_line(exc)}"))
            continue
        if not isinstance(data, dict):
            corpus.problems.append(Problem(rel, "is not a mapping"))
            continue
        area = path.parent.parent.name if path.parent.name == GENERATED else path.parent.name
        corpus.scenarios.append(Scenario(path, rel, area, data))
    for path in sorted((root / "payloads").glob(f"*/{PAYLOAD_GLOB}")):
        rel = path.relative_to(root).as_posix()
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            corpus.problems.append(Problem(rel, f"cannot be read as JSON: {_one_line(exc)}"))
            continue
        if not isinstance(data, dict):
            corpus.problems.append(Problem(rel, "is not a JSON object"))
            continue
        name = f"{path.parent.name}/{path.stem}"
        corpus.payloads[name] = Payload(name, path, rel, data)
    return corpus


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())
