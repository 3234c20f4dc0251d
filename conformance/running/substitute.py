"""``${…}`` substitutions in scenario strings, and ``set:`` by dotted path into a payload.

=============================  =============================================================
``${r1.run}``                  the run id recall step ``r1`` printed
``${r1.output}``               everything step ``r1`` printed on stdout
``${path:learnings/x}``        the absolute path recall prints for that workspace asset
``${user:path:rules/x.md}``    the same for an asset of the user scope
``${root:team}``               the workspace team folder; also ``user_team`` and ``learnings``
                               (the first learnings root; ``learnings:2`` is the second)
``${link:team}``               a symbolic link to that folder, which the harness makes in the
                               case's sandbox the first time a case names it (a folder reached
                               through a link, as macOS's ``/tmp`` is one); any root's name
``${label:workspace}``         the word the implementation prints for a scope in a hit's line
                               (``[workspace]``); also ``label:user``. The driver names its
                               words in its ``open`` answer; the reference's are the default
``${i}``                       in a step with ``repeat: N``: 1, 2, … N; left as written here,
                               because the driver runs the repeats (one message, not N)
=============================  =============================================================

A path the implementation did not list as an asset (a learning a later step publishes, a
file that is not an asset) is placed where the tree-path table of the reference puts it, so
scenarios can name files that are not, or not yet, assets.

Blame: a run id the implementation never printed is its failure, never the scenario's.
:class:`NotPrinted` marks it, and the place that needed it fails there: a step in
``case_runner.py`` (the case stops, as no later step can be built) or one expectation in
``expect.py`` (the others are still judged; ``expect.unprinted`` words both). ``${name.run}`` of a
step that never prints one (a hook, a ``--check``) is the scenario's fault: :func:`silent_step` says
which steps, and ``lint`` refuses it before a run.
"""

from __future__ import annotations

import copy
import os
import posixpath
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

PATTERN = re.compile(r"\$\{([^}]*)\}")
STEP_REF = re.compile(r"^([A-Za-z_][A-Za-z0-9_-]*)\.(run|output)$")
REPEAT_INDEX = "i"
# The reference's scope words, used where a driver names none (``labels`` in its ``open`` answer).
DEFAULT_LABELS = {"workspace": "workspace", "user": "user"}


class SubstitutionError(ValueError):
    pass


class NotPrinted(SubstitutionError):
    """A reference to what a step should have printed but did not: the implementation's fault
    (a ``fail`` at the place that needed it), never the scenario's."""

    def __init__(self, message: str, step: str, what: str) -> None:
        super().__init__(message)
        self.step = step
        self.what = what


@dataclass
class Context:
    """What substitutions resolve against: earlier steps and the sandbox the driver answered."""

    steps: dict[str, dict[str, Any]] = field(default_factory=dict)  # name -> {"run", "output", "silent"}
    paths: dict[str, str] = field(default_factory=dict)
    user_paths: dict[str, str] = field(default_factory=dict)
    roots: dict[str, Any] = field(default_factory=dict)
    labels: dict[str, str] = field(default_factory=lambda: dict(DEFAULT_LABELS))
    sandbox: str = ""  # the case's folder, where ``${link:…}`` makes its links

    def resolve(self, ref: str) -> str:
        if ref == REPEAT_INDEX:
            return "${" + REPEAT_INDEX + "}"
        step = STEP_REF.match(ref)
        if step:
            name, what = step.groups()
            if name not in self.steps:
                raise SubstitutionError(f"${{{ref}}}: no earlier step is named {name!r}")
            silent = self.steps[name].get("silent") if what == "run" else None
            if silent:
                raise SubstitutionError(f"${{{ref}}}: step {name!r} is {silent} and prints no run id")
            value = self.steps[name].get(what)
            if value is None:
                raise NotPrinted(f"${{{ref}}}: step {name!r} printed no {'run id' if what == 'run' else what}",
                                 name, what)
            return str(value)
        if ref.startswith("path:"):
            return self._asset(ref[5:], self.paths, "team", learnings=True)
        if ref.startswith("user:path:"):
            return self._asset(ref[10:], self.user_paths, "user_team", learnings=False)
        if ref.startswith("root:"):
            return self._root(ref[5:])
        if ref.startswith("link:"):
            return self._link(ref[5:])
        if ref.startswith("label:"):
            if ref[6:] not in self.labels:
                raise SubstitutionError(f"${{{ref}}}: there is no such scope (workspace, user)")
            return self.labels[ref[6:]]
        raise SubstitutionError(f"${{{ref}}} is not a known substitution")

    def _root(self, name: str) -> str:
        base, _, nth = name.partition(":")
        value = self.roots.get(base)
        if isinstance(value, list):
            index = int(nth) - 1 if nth.isdigit() else 0
            if 0 <= index < len(value):
                return str(value[index])
            raise SubstitutionError(f"${{root:{name}}}: there is no such learnings root")
        if value is None or nth:
            raise SubstitutionError(f"${{root:{name}}}: the sandbox has no such folder")
        return str(value)

    def _link(self, name: str) -> str:
        """A symbolic link to the root ``name``, made once per case beside the sandbox's trees."""
        target = self._root(name)
        if not self.sandbox:
            raise SubstitutionError(f"${{link:{name}}}: there is no sandbox to make the link in")
        folder = os.path.join(self.sandbox, "links")
        link = os.path.join(folder, name.replace(":", "-"))
        if not os.path.islink(link):
            try:
                os.makedirs(folder, exist_ok=True)
                os.symlink(target, link, target_is_directory=True)
            except OSError as exc:
                raise SubstitutionError(f"${{link:{name}}}: this host cannot make a symbolic link "
                                        f"({exc.strerror or exc})") from exc
        return link

    def _asset(self, tree_path: str, known: Mapping[str, str], root: str, learnings: bool) -> str:
        if tree_path in known:
            return known[tree_path]
        base = self.roots.get(root)
        if not base:
            raise SubstitutionError(f"${{path:{tree_path}}}: the sandbox has no {root} folder")
        return where(tree_path, str(base), self.roots.get("learnings") if learnings else None)

    def apply(self, value: Any, escape: Callable[[str], str] | None = None) -> Any:
        """``value`` with every substitution resolved (strings inside lists and mappings too).

        ``escape`` wraps each inserted value (``re.escape`` for a regular expression, so a
        substituted path or output matches itself and nothing else).
        """
        if isinstance(value, str):
            wrap = escape or (lambda text: text)
            return PATTERN.sub(lambda m: wrap(self.resolve(m.group(1))), value)
        if isinstance(value, list):
            return [self.apply(v, escape) for v in value]
        if isinstance(value, dict):
            return {self.apply(k, escape) if isinstance(k, str) else k: self.apply(v, escape)
                    for k, v in value.items()}
        return value


def where(tree_path: str, team: str, learnings_roots: Any = None) -> str:
    """Where the reference's tree-path table puts ``tree_path`` (for files that are not assets)."""
    if tree_path.startswith("learnings/"):
        ident = tree_path[len("learnings/"):]
        roots = learnings_roots if isinstance(learnings_roots, list) and learnings_roots else None
        base = str(roots[0]) if roots else posixpath.join(team, "learnings")
        return posixpath.join(base, ident if ident.endswith(".md") else ident + ".md")
    if tree_path.startswith("skills/") and not tree_path.endswith(".md"):
        return posixpath.join(team, tree_path, "SKILL.md")
    return posixpath.join(team, tree_path)


def silent_step(action: str | None, check: Any = False) -> str | None:
    """What a step is, when it is one that never prints a run id (so ``${name.run}`` naming it is
    a fault of the scenario); ``None`` for a recall that searched, which must print one."""
    if action != "recall":
        return f"a {action} step"
    return "a --check recall (not a run)" if check else None


def references(value: Any) -> list[str]:
    """Every ``${…}`` body in ``value``, in order (for the linter)."""
    found: list[str] = []
    if isinstance(value, str):
        found.extend(m.group(1) for m in PATTERN.finditer(value))
    elif isinstance(value, list):
        for v in value:
            found.extend(references(v))
    elif isinstance(value, dict):
        for k, v in value.items():
            found.extend(references(k))
            found.extend(references(v))
    return found


def is_known_form(ref: str) -> bool:
    if ref.startswith("label:"):
        return ref[6:] in DEFAULT_LABELS
    return ref == REPEAT_INDEX or bool(STEP_REF.match(ref)) or ref.startswith(("path:", "user:path:", "root:", "link:"))


def step_name(ref: str) -> str | None:
    match = STEP_REF.match(ref)
    return match.group(1) if match else None


def set_paths(payload: Any, assignments: Mapping[str, Any]) -> Any:
    """A copy of ``payload`` with each dotted path set, creating missing objects on the way.

    A segment that is a number indexes into an existing list; the payload's other values are
    never reshaped.
    """
    result = copy.deepcopy(payload)
    for dotted, value in assignments.items():
        if not isinstance(result, dict):
            raise SubstitutionError("set: the payload is not an object")
        parts = str(dotted).split(".")
        node: Any = result
        for i, part in enumerate(parts):
            last = i == len(parts) - 1
            if isinstance(node, list):
                if not part.isdigit() or int(part) >= len(node):
                    raise SubstitutionError(f"set {dotted}: {part!r} is not an index of the list there")
                if last:
                    node[int(part)] = copy.deepcopy(value)
                else:
                    node = node[int(part)]
                continue
            if not isinstance(node, dict):
                raise SubstitutionError(f"set {dotted}: {'.'.join(parts[:i])} is not an object")
            if last:
                node[part] = copy.deepcopy(value)
            else:
                if part not in node or node[part] is None:
                    node[part] = {}
                node = node[part]
    return result


def unset_paths(payload: Any, dotted_paths: list[str]) -> Any:
    """A copy of ``payload`` without each dotted path (a path that is not there is no error: the
    step says what the payload must not hold, whatever the payload file holds)."""
    result = copy.deepcopy(payload)
    for dotted in dotted_paths:
        parts = str(dotted).split(".")
        node: Any = result
        for part in parts[:-1]:
            if isinstance(node, list) and part.isdigit() and int(part) < len(node):
                node = node[int(part)]
            elif isinstance(node, dict) and part in node:
                node = node[part]
            else:
                node = None
                break
        if isinstance(node, dict):
            node.pop(parts[-1], None)
        elif isinstance(node, list) and parts[-1].isdigit() and int(parts[-1]) < len(node):
            del node[int(parts[-1])]
    return result


def with_index(value: Any, i: int) -> Any:
    """``value`` with every ``${i}`` in its strings replaced by ``i`` (a driver's side of ``repeat``)."""
    if isinstance(value, str):
        return value.replace("${" + REPEAT_INDEX + "}", str(i))
    if isinstance(value, list):
        return [with_index(v, i) for v in value]
    if isinstance(value, dict):
        return {with_index(k, i) if isinstance(k, str) else k: with_index(v, i) for k, v in value.items()}
    return value
