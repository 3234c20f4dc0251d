"""A generated scenario as YAML text: keys in the order a person writes them, multi-line text as
block literals, short records (a log line, a vote) on one line, and a header comment naming the
table row the file comes from. The same scenario always gives the same bytes, which is what
``generate --check`` compares."""

from __future__ import annotations

import pickle
from typing import Any

import yaml

from ..corpus import placement


class Flow(dict[str, Any]):
    """A mapping written on one line: ``{kind: claim, run: ..., session: ...}``."""


class _Dumper(yaml.SafeDumper):
    def increase_indent(self, flow: bool = False, indentless: bool = False) -> Any:
        return super().increase_indent(flow, False)  # lists indented under their key


def _text(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    if "\n" in value.rstrip("\n"):
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|")
    return dumper.represent_scalar("tag:yaml.org,2002:str", value)


def _flow(dumper: yaml.SafeDumper, value: Flow) -> yaml.MappingNode:
    return dumper.represent_mapping("tag:yaml.org,2002:map", value, flow_style=True)


_Dumper.add_representer(str, _text)
_Dumper.add_representer(Flow, _flow)

ORDER = ("id", "title", "clauses", "provenance", "agents", "start", "team", "user_team", "learnings_roots",
         "withheld", "repo", "env", "steps", "expect", "decide", "profile")


# Texts already written in this process, by their exact input (pickled, so a ``Flow`` and a plain
# mapping of the same items stay apart). PyYAML's emitter is nearly all of a ``generate`` run, and
# a process that plans more than once (a check, then a write; the tests, a dozen times) need only
# emit the cells that changed in between. Bounded, for a process that generates for ever.
_RENDERED: dict[bytes, str] = {}
_RENDERED_MAX = 20_000


def render(scenario: dict[str, Any], header: list[str]) -> str:
    key = pickle.dumps((scenario, header), protocol=pickle.HIGHEST_PROTOCOL)
    text = _RENDERED.get(key)
    if text is None:
        if len(_RENDERED) >= _RENDERED_MAX:
            _RENDERED.clear()
        text = _RENDERED[key] = _emit(scenario, header)
    return text


def _emit(scenario: dict[str, Any], header: list[str]) -> str:
    scenario = placement.place(scenario)  # each expectation at its level, as a hand-written case
    ordered = {k: scenario[k] for k in ORDER if k in scenario}
    ordered.update({k: v for k, v in scenario.items() if k not in ordered})
    body = yaml.dump(ordered, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=1_000_000,
                     default_flow_style=False)
    return "".join(f"# {line}".rstrip() + "\n" for line in header) + body
