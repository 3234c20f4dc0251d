"""``unchanged_without_relations``: a step's output compared with the same implementation's
output for the same step when the trees hold no relation at all.

A clause such as "relations never change the result of ``recall --check``" is about one
implementation against itself, so the only fair yardstick is that implementation's own answer
without relations, never the reference's words. The harness runs the case a second time, in a
fresh sandbox, with every ``related:`` block and every Markdown link between assets taken out
of the trees (:func:`twin`), and compares the named steps' stdout (run ids and sandbox paths
normalized on both sides, so two sandboxes compare equal).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from ..corpus.read import Scenario
from .expect import Mismatch

KEY = "unchanged_without_relations"
_FRONTMATTER = re.compile(r"\A(---\r?\n)(.*?)(\r?\n---\r?\n)", re.DOTALL)
_RELATED_BLOCK = re.compile(r"^related:[^\n]*\n(?:[ \t]+[^\n]*\n|[ \t]*\n)*", re.MULTILINE)
_INLINE_LINK = re.compile(r"(?<!!)\[([^\]\n]*)\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
_REFERENCE_DEF = re.compile(r"^[ ]{0,3}\[[^\]\n]+\]:[ \t]+\S+.*(?:\n|\Z)", re.MULTILINE)
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def wanted(expect: Mapping[str, Any]) -> list[str]:
    """The names of the steps whose expectations ask for the comparison."""
    return [name for name, want in (expect.get("steps") or {}).items() if (want or {}).get(KEY)]


def strip_text(text: str) -> str:
    """``text`` without a ``related:`` block in its frontmatter and without links to other files
    (a link keeps its words and its target as plain text; links with a scheme, such as ``https:``,
    stay)."""
    match = _FRONTMATTER.match(text)
    if match:
        head = _RELATED_BLOCK.sub("", match.group(2) + "\n").rstrip("\n")
        text = match.group(1) + head + match.group(3) + text[match.end():]
    # A link keeps its words and its target's, as plain text: only the relation goes, so a score
    # that counts the target's words (recall prints it in --check's line) stays as it was.
    text = _INLINE_LINK.sub(lambda m: m.group(0) if _SCHEME.match(m.group(2)) else f"{m.group(1)} {m.group(2)}",
                            text)
    return _REFERENCE_DEF.sub("", text)


def strip_tree(tree: Mapping[str, Any] | None) -> dict[str, Any] | None:
    if tree is None:
        return None
    return {path: strip_text(text) if isinstance(text, str) else text for path, text in tree.items()}


def twin(scenario: Scenario) -> Scenario:
    """The same case with no relation in any tree and nothing to judge."""
    data = dict(scenario.data)
    for key in ("team", "user_team"):
        if key in data:
            data[key] = strip_tree(data[key])
    if data.get("learnings_roots"):
        data["learnings_roots"] = [strip_tree(tree) for tree in data["learnings_roots"]]
    for key in ("expect", "decide", "profile"):
        data.pop(key, None)
    return replace(scenario, data=data)


def judge(expect: Mapping[str, Any], steps: list[dict[str, Any]], twin_steps: list[dict[str, Any]],
          block: str = "expect") -> list[Mismatch]:
    """A mismatch for every asked step whose stdout differs from the twin run's."""
    mine = {s.get("name"): s for s in steps if s.get("name")}
    theirs = {s.get("name"): s for s in twin_steps if s.get("name")}
    out = []
    for name in wanted(expect):
        where = f"{block}.steps.{name}.{KEY}"
        if name not in mine or name not in theirs:
            out.append(Mismatch(where, "the step did not run in both runs", name, None))
            continue
        if mine[name].get("stdout") != theirs[name].get("stdout"):
            out.append(Mismatch(where, "the output differs from this implementation's output without relations",
                                theirs[name].get("stdout"), mine[name].get("stdout")))
    return out


def without_key(expect: Mapping[str, Any]) -> dict[str, Any]:
    """``expect`` without the comparison key, for the judge that does not know it."""
    steps = {name: {k: v for k, v in (want or {}).items() if k != KEY}
             for name, want in (expect.get("steps") or {}).items()}
    return {**expect, **({"steps": steps} if "steps" in expect else {})}
