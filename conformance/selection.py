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
from collections.abc import Sequence
from fnmatch import fnmatchcase
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .corpus import Corpus, Scenario

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
    kind, colon, name = selector.partition(":")
    kinds, pattern = ((kind,), name) if colon and kind in KINDS else (KINDS, selector)
    if GLOB.search(pattern):
        return any(fnmatchcase(n, pattern) for k in kinds for n in _names(scenario, k))
    return any(pattern in _names(scenario, k) for k in kinds)


def select(corpus: Corpus, only: Sequence[str] = (), agent: str | None = None) -> list[Scenario]:
    """The cases ``only`` and ``agent`` select, in corpus order (all of them when both are empty)."""
    chosen = list(corpus.scenarios)
    for selector in only:
        if not any(matches(selector, s) for s in chosen):
            raise NoMatch(f"no case matches {selector!r} (a case id, area, clause id or agent, a glob of them, "
                          f"or kind:name); {HINT}")
    if only:
        chosen = [s for s in chosen if any(matches(selector, s) for selector in only)]
    if agent is not None:
        if not any(matches(f"agent:{agent}", s) for s in corpus.scenarios):
            raise NoMatch(f"no case concerns --agent {agent!r}; {HINT}")
        chosen = [s for s in chosen if matches(f"agent:{agent}", s)]
        if not chosen:
            raise NoMatch(f"no case matches both {', '.join(map(repr, only))} and --agent {agent!r}; {HINT}")
    return chosen
