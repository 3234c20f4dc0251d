"""Which modules of the reference are mutated: the ones that carry the rules the corpus exists for.

One list, of glob patterns relative to the repository root, so a module that is split or renamed
is followed by editing one line. ``path::name,name`` restricts a module to some of its top-level
functions (recall's run record, not its search). Modules that only move bytes (storage, the CLI,
the index) are left out: their faults show up as crashes of every scenario, which says nothing
about the corpus. So are the reference's own file formats (the per-session ledger's file,
``upvoted_file``): a scenario gives state only in the formats the spec defines (SCENARIOS.md,
"Existing state"), so no scenario can spell a spoilt or older file of one implementation; the
unit tests judge those. ``yaml_strict`` is left out too: it holds PyYAML's Python reader to
libyaml's answer, so where PyYAML has libyaml (as here) none of its faults can show; its unit tests
compare the two readers.
"""

from __future__ import annotations

import fnmatch
from pathlib import Path
from typing import NamedTuple

PATTERNS: tuple[str, ...] = (
    # the hook: classification, shell lines (their syntax, the read rules), the search rule, run ids,
    # tool categories, field readers
    "reference/hook/classify.py",
    "reference/hook/shell.py",
    "reference/hook/shell_syntax.py",
    "reference/hook/search.py",
    "reference/hook/claims.py",
    "reference/hook/categories.py",
    "reference/hook/agents/*.py",
    "reference/pathmatch.py",
    # the reducer, one rule per module (its package's __init__ plans which sessions a run reduces),
    # and what it writes
    "reference/reducer/__init__.py",
    "reference/reducer/*.py",
    "reference/state/upvoted.py",  # its rule; its file (upvoted_file.py) is the reference's own format, as storage is
    "reference/state/ledger.py",
    # the votes ledger's file: teamai's format, which scenarios spell (given ledgers, ``ledger_file``)
    "reference/state/ledger_read.py",
    "reference/state/ledger_write.py",
    "reference/state/retention.py",
    # recall's run record and its text
    "reference/recall/run.py::run_record,record",
    "reference/recall/render.py",
    "reference/recall/session_env.py",
    "reference/commands/stats.py",
    # relations
    "reference/relations/*.py",
    "reference/recall/relations_view.py",
)


class Target(NamedTuple):
    path: str  # relative to the repository root, with forward slashes
    module: str  # dotted import name
    only: tuple[str, ...]  # top-level functions to mutate; empty: the whole module

    @property
    def short(self) -> str:
        """The module's name without ``reference.``, as ids and reports spell it."""
        return self.module.removeprefix("reference.")


def resolve(root: Path, patterns: tuple[str, ...] = PATTERNS) -> list[Target]:
    """The target modules that exist under ``root``, in pattern order, each once. A package's
    ``__init__`` is taken only when a pattern names it: most hold no rules, the reducer's does."""
    found: dict[str, Target] = {}
    for pattern in patterns:
        glob, _, names = pattern.partition("::")
        only = tuple(n.strip() for n in names.split(",") if n.strip())
        for path in sorted(root.glob(glob)):
            rel = path.relative_to(root).as_posix()
            if (path.name == "__init__.py" and glob != rel) or not path.is_file() or rel in found:
                continue
            found[rel] = Target(rel, rel.removesuffix(".py").replace("/", ".").removesuffix(".__init__"), only)
    return list(found.values())


def select(targets: list[Target], wanted: list[str] | None) -> list[Target]:
    """The targets whose short name matches one of ``wanted`` (shell-style patterns)."""
    if not wanted:
        return targets
    return [t for t in targets if any(fnmatch.fnmatchcase(t.short, w) or t.short == w for w in wanted)]
