"""Which cases a command acts on: one grammar for ``run --only``, ``list --only`` and ``show``.

A selector names cases by what they are:

=====================  ==========================================================
``attr-claude-read``   a case id, an area, a clause id or an agent (any of them)
``clause:REDUCE-*``    the same, only of one kind: ``case:``, ``area:``,
                       ``clause:`` or ``agent:``
``attr-*``             with ``*``, ``?`` or ``[...]``: a glob over those names
=====================  ==========================================================

Several selectors add up; ``--agent NAME`` (a name or glob) keeps only the cases concerning
that agent. Every selector must match at least one case, and so must the whole selection: a
typo is a usage error (exit 2) in every command, never an empty result.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from fnmatch import fnmatchcase
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .read import Corpus, Scenario

KINDS = ("case", "area", "clause", "agent")
GLOB = re.compile(r"[*?\[]")
HINT = "see teamai-conformance list"


class NoMatch(ValueError):
    """A selection that names no case (the message is one line, for ``error:``)."""


def _names(scenario: Scenario, kind: str) -> list[str]:
    if kind == "case":
        return [scenario.id]
    if kind == "area":
        return [scenario.area]
    if kind == "clause":
        return scenario.clauses
    return scenario.agents


def matches(selector: str, scenario: Scenario) -> bool:
    return _matcher(selector)(scenario)


def _matcher(selector: str) -> Callable[[Scenario], bool]:
    """The selector read once, as a test of one case: a selection asks it of every case, and a
    corpus has thousands."""
    kind, colon, name = selector.partition(":")
    kinds, pattern = ((kind,), name) if colon and kind in KINDS else (KINDS, selector)
    if GLOB.search(pattern):
        return lambda scenario: any(fnmatchcase(n, pattern) for k in kinds for n in _names(scenario, k))
    if len(kinds) == 1:
        only = kinds[0]
        return lambda scenario: pattern in _names(scenario, only)
    return lambda scenario: (pattern == scenario.id or pattern == scenario.area or pattern in scenario.clauses
                             or pattern in scenario.agents)


def select(corpus: Corpus, only: Sequence[str] = (), agent: str | None = None) -> list[Scenario]:
    """The cases ``only`` and ``agent`` select, in corpus order (all of them when both are empty)."""
    chosen = list(corpus.scenarios)
    if only:
        picked: set[int] = set()
        for selector in only:
            match = _matcher(selector)
            hits = [i for i, s in enumerate(chosen) if match(s)]
            if not hits:
                raise NoMatch(f"no case matches {selector!r} (a case id, area, clause id or agent, a glob of them, "
                              f"or kind:name); {HINT}")
            picked.update(hits)
        chosen = [s for i, s in enumerate(chosen) if i in picked]
    if agent is not None:
        concerns = _matcher(f"agent:{agent}")
        if not any(concerns(s) for s in corpus.scenarios):
            raise NoMatch(f"no case concerns --agent {agent!r}; {HINT}")
        chosen = [s for s in chosen if concerns(s)]
        if not chosen:
            raise NoMatch(f"no case matches both {', '.join(map(repr, only))} and --agent {agent!r}; {HINT}")
    return chosen
