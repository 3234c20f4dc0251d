"""Read a ``related:`` block into declarations, and say what is wrong with it.

One parser serves the index, ``review --branch`` and ``contribute``, so a declaration outside the
table never becomes a relation whichever way the file arrived. Findings come out in file order;
each carries the fact (``body``) and what happens to the input (``consequence``), because review
states the fact and contribute, which publishes anyway, also says what it ignored.

Matrix (severity is review's; contribute prints every finding as a warning):

=====================================================  ===========================  ========
input                                                  kept                         severity
=====================================================  ===========================  ========
unknown key                                            nothing of that key          fail
DEPENDS_ON / CONTAINS / IMPLEMENTS, pair outside table nothing of that declaration  fail
``related`` not a mapping                              nothing at all               fail
value neither a string nor a list                      nothing of that key          fail
list mixing strings and other values                   the strings                  fail
absolute path, ``..`` after normalising, no prefix     nothing of that path         fail
path that names no asset                               nothing of that path         warn
relation to itself                                     nothing of that path         warn
the same relation and target twice                     one                          none
two relations to the same target                       both                         none
=====================================================  ===========================  ========

An empty ``related:`` (no value) declares nothing and is not a finding.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Mapping

from . import paths, vocabulary
from .vocabulary import NOUN, USE_DECLARABLE

TYPE_CHECKING = False  # typing is imported only by type checkers: it costs a fresh process ~4 ms
if TYPE_CHECKING:
    from typing import Any, NamedTuple
else:  # indexing one edited file runs this: dataclasses would cost it the import of inspect
    from .._tuples import NamedTuple

FAIL, WARN = "fail", "warn"

Exists = Callable[[paths.Target], bool]


class Declaration(NamedTuple):
    relation: str
    target: str  # tree path
    target_kind: str


class Finding(NamedTuple):
    severity: str  # FAIL or WARN, as review --branch grades it
    body: str
    consequence: str

    def review_text(self) -> str:
        return self.body + "."

    def contribute_text(self) -> str:
        return f"{self.body}; {self.consequence}."


class Result(NamedTuple):
    declarations: list[Declaration]
    findings: list[Finding]


_REL_IGNORED = "this relation is ignored"


def _describe(value: Any) -> str:
    if value is None:
        return "empty"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, (int, float)):
        return "a number"
    dates = sys.modules.get("datetime")  # only YAML makes dates, and it has imported datetime by then
    if dates is not None and isinstance(value, dates.date):  # a datetime is a date too
        return "a date"
    if isinstance(value, Mapping):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return "a string"  # a single path where a mapping was due: the likeliest slip
    return f"a {type(value).__name__}"


_PATH_HINT = "Use the asset's path in the team tree, starting with " \
             "rules/, docs/, learnings/, skills/ or teamwiki/evidence/code/"


def _bad_path(relation: str, raw: str, reason: str) -> Finding:
    shown = raw if raw and raw.isprintable() and raw.strip() == raw else json.dumps(raw, ensure_ascii=False)
    if reason == paths.ABSOLUTE:
        body = f"{relation} {shown} is an absolute path. {_PATH_HINT}"
    elif reason == paths.LEAVES_TREE:
        body = f"{relation} {shown} leaves the team tree. {_PATH_HINT}"
    else:
        body = f"{relation} {shown} is not a path to a team asset. {_PATH_HINT}"
    return Finding(FAIL, body, _REL_IGNORED)


def parse(kind: str, tree_path: str, meta: Mapping[str, Any], exists: Exists | None = None,
          missing: str = "names no team asset") -> Result:
    """Declarations of an asset of ``kind`` at ``tree_path``, and the findings, in file order.

    ``exists`` answers whether a well-formed target is an asset (``None``: do not check);
    ``missing`` is how a finding says it is not ("names no team asset on this branch").
    """
    decls: list[Declaration] = []
    findings: list[Finding] = []
    if not vocabulary.declares(kind) or "related" not in meta:
        return Result(decls, findings)
    block = meta["related"]
    if block is None:
        return Result(decls, findings)
    if not isinstance(block, Mapping):
        findings.append(Finding(
            FAIL, f"related: is {_describe(block)}, not a mapping of relation to path or paths",
            "all of it is ignored"))
        return Result(decls, findings)
    seen: set[tuple[str, str]] = set()
    noun = NOUN[kind]
    for key, value in block.items():
        relation = str(key)
        if relation in vocabulary.CODE_TO_CODE:
            findings.append(Finding(
                FAIL, f"{relation} relates code to code and cannot be declared on {noun}. {USE_DECLARABLE}",
                _REL_IGNORED))
            continue
        if relation not in vocabulary.DECLARABLE:
            name = json.dumps(relation, ensure_ascii=False)
            findings.append(Finding(FAIL, f"{name} is not a relation. {USE_DECLARABLE}", _REL_IGNORED))
            continue
        if isinstance(value, str):
            raws = [value]
        elif isinstance(value, list):
            raws = [v for v in value if isinstance(v, str)]
            others = [v for v in value if not isinstance(v, str)]
            if others:
                what = ", ".join(dict.fromkeys(_describe(v) for v in others))
                count = "1 value that is not a path" if len(others) == 1 \
                    else f"{len(others)} values that are not paths"
                findings.append(Finding(FAIL, f"{relation} lists {count} ({what})", "only its paths are kept"))
        else:
            findings.append(Finding(
                FAIL, f"{relation} is {_describe(value)}, not a path or a list of paths",
                "this key is ignored"))
            continue
        for raw in raws:
            try:
                found = paths.target(paths.normalise(raw.strip()))
            except paths.BadPath as exc:
                findings.append(_bad_path(relation, raw, exc.reason))
                continue
            if (relation, found.tree_path) in seen:
                continue
            seen.add((relation, found.tree_path))
            if not vocabulary.allowed(kind, relation, found.kind):
                other = vocabulary.instead(kind, relation, found.kind)
                use = f"Use {other}" if other else USE_DECLARABLE
                findings.append(Finding(
                    FAIL, f"{noun} cannot {relation} {NOUN[found.kind]} ({found.tree_path}). {use}",
                    _REL_IGNORED))
                continue
            if found.tree_path == tree_path:
                findings.append(Finding(WARN, f"{relation} {found.tree_path} is this asset itself",
                                        _REL_IGNORED))
                continue
            if exists is not None and not exists(found):
                findings.append(Finding(WARN, f"{relation} {found.tree_path} {missing}", _REL_IGNORED))
                continue
            decls.append(Declaration(relation, found.tree_path, found.kind))
    return Result(decls, findings)
