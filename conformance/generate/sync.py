"""``teamai-conformance generate [--check] [--prune]``: bring the generated files in line with the
tables, or (``--check``) say where they differ without writing.

Files under ``scenarios/<area>/generated/`` belong to this command. One that no cell gives any
more is *stale*: it is deleted only with ``--prune``, so removing a row never silently drops a case
someone may be pointing at; ``--check`` fails while one is left.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from . import produce
from .model import FOLDER
from .tables import TableError

EXIT_OK, EXIT_DIFFERS, EXIT_USAGE, EXIT_TABLE = 0, 1, 2, 3


@dataclass
class Plan:
    """What writing would do: file paths relative to the corpus root."""

    texts: dict[str, str] = field(default_factory=dict)  # every generated file and its text
    new: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)
    per_table: dict[str, int] = field(default_factory=dict)

    @property
    def clean(self) -> bool:
        return not (self.new or self.changed or self.stale)


def on_disk(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in (root / "scenarios").glob(f"*/{FOLDER}/*.yaml"))


def plan(root: Path) -> Plan:
    out = Plan()
    for case in produce(root):
        out.texts[case.rel] = case.text()
        out.per_table[case.table] = out.per_table.get(case.table, 0) + 1
    for rel, text in out.texts.items():
        path = root / rel
        if not path.exists():
            out.new.append(rel)
        elif path.read_text(encoding="utf-8") != text:
            out.changed.append(rel)
        else:
            out.unchanged.append(rel)
    out.stale = [rel for rel in on_disk(root) if rel not in out.texts]
    return out


def write(root: Path, todo: Plan, prune: bool) -> None:
    for rel in todo.new + todo.changed:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(todo.texts[rel], encoding="utf-8", newline="")
    if prune:
        for rel in todo.stale:
            (root / rel).unlink()


def add_parser(sub: Any) -> None:
    parser = sub.add_parser("generate", help="write the scenarios the spec's tables give (conformance/tables/)")
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 when a generated file is missing, differs or has no cell")
    parser.add_argument("--prune", action="store_true", help="also delete generated files no cell gives any more")


def run(args: argparse.Namespace, root: Path, out: IO[str], err: IO[str]) -> int:
    if args.check and args.prune:
        err.write("teamai-conformance generate: error: --check writes nothing, so it cannot --prune\n")
        return EXIT_USAGE
    try:
        todo = plan(root)
    except TableError as exc:
        err.write(f"teamai-conformance generate: error: {exc}\n")
        return EXIT_TABLE
    counts = ", ".join(f"{table} {n}" for table, n in todo.per_table.items())
    if args.check:
        for label, rels in (("missing", todo.new), ("differs from its table", todo.changed),
                            ("has no cell any more (generate --prune deletes it)", todo.stale)):
            for rel in rels:
                err.write(f"{rel}: {label}\n")
        if not todo.clean:
            err.write("generate --check: the generated scenarios are not what the tables give; "
                      "run teamai-conformance generate\n")
            return EXIT_DIFFERS
        out.write(f"generate --check: {len(todo.texts)} generated scenarios match the tables ({counts})\n")
        return EXIT_OK
    write(root, todo, args.prune)
    out.write(f"generate: {len(todo.texts)} scenarios ({counts}): {len(todo.new)} new, {len(todo.changed)} "
              f"rewritten, {len(todo.unchanged)} unchanged\n")
    if todo.stale:
        verb = "deleted" if args.prune else "kept (no cell gives them; --prune deletes them)"
        out.write(f"generate: {len(todo.stale)} stale file(s) {verb}: {', '.join(todo.stale)}\n")
    return EXIT_OK
