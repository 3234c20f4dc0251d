"""Which scenarios can notice a mutant: those that execute its code, or use what it built at import.

A mutant inside a function is reached by the scenarios that execute one of its lines. A mutant of
module-level code (a table, a constant, a class attribute) runs once, at import; what it changes
is seen wherever the names it binds are read. So for those the plan follows the names: the names
the statement binds, the module-level statements that build on them, and every line in a
function body that reads one of them. A public name can be read from another module, so then
every scenario that uses the module is taken. Code that also ran at import (a helper that builds
a table) is judged by every scenario that uses the module as well.
"""

from __future__ import annotations

import ast
from typing import Any

from .operators import Mutant
from .tracing import IMPORT


class ModulePlan:
    """The names of one module: what each top-level statement binds, and where functions read it."""

    def __init__(self, source: str) -> None:
        tree = ast.parse(source)
        self.binds = [_bound(stmt) for stmt in tree.body]
        self.loads = [_module_loads(stmt) for stmt in tree.body]
        self.readers: dict[str, set[int]] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                body = node.body if isinstance(node.body, list) else [node.body]
                for stmt in body:
                    for inner in ast.walk(stmt):
                        if isinstance(inner, ast.Name) and isinstance(inner.ctx, ast.Load):
                            self.readers.setdefault(inner.id, set()).add(inner.lineno)

    def affected(self, index: int) -> set[str]:
        """The names top-level statement ``index`` binds, and those built from them at import."""
        names = set(self.binds[index])
        grew = True
        while grew:
            grew = False
            for j, loads in enumerate(self.loads):
                if j != index and loads & names and not self.binds[j] <= names:
                    names |= self.binds[j]
                    grew = True
        return names


def _bound(stmt: ast.stmt) -> set[str]:
    out: set[str] = set()
    if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        out.add(stmt.name)
    local = {id(n) for c in ast.walk(stmt) if isinstance(c, _COMPREHENSIONS)
             for g in c.generators for n in ast.walk(g.target)}  # a comprehension's names are its own
    for node in _outside_functions(stmt):
        if id(node) in local:
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            out.add(node.id)
        elif isinstance(node, ast.Subscript | ast.Attribute) and isinstance(node.ctx, ast.Store):
            base = node.value
            if isinstance(base, ast.Name):
                out.add(base.id)
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) \
                and isinstance(node.value.func, ast.Attribute) and isinstance(node.value.func.value, ast.Name):
            out.add(node.value.func.value.id)  # a statement TABLE.update(...), NAMES.add(...)
    return out


_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)


def _module_loads(stmt: ast.stmt) -> set[str]:
    return {n.id for n in _outside_functions(stmt) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _outside_functions(stmt: ast.stmt) -> list[ast.AST]:
    """The nodes of a statement that run when the module is imported (not function bodies)."""
    out: list[ast.AST] = []
    todo: list[ast.AST] = [stmt]
    while todo:
        node = todo.pop()
        out.append(node)
        for name, value in ast.iter_fields(node):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) and name == "body":
                continue
            items = value if isinstance(value, list) else [value]
            todo.extend(v for v in items if isinstance(v, ast.AST))
    return out


class Plan:
    """The scenarios that can notice each mutant, from the traced run."""

    def __init__(self, traces: dict[str, dict[str, Any]], sources: dict[str, str]) -> None:
        self.by_line: dict[str, dict[int, set[str]]] = {}
        self.users: dict[str, set[str]] = {}
        self.imported: dict[str, set[int]] = {}
        for case_id, data in traces.items():
            for path, lines in data["lines"].items():
                if case_id == IMPORT:
                    self.imported[path] = set(lines)
                    continue
                self.users.setdefault(path, set()).add(case_id)
                rows = self.by_line.setdefault(path, {})
                for line in lines:
                    rows.setdefault(line, set()).add(case_id)
        self.modules = {path: ModulePlan(source) for path, source in sources.items()}

    def covering(self, mutant: Mutant) -> set[str]:
        rows = self.by_line.get(mutant.path, {})
        users = self.users.get(mutant.path, set())
        found: set[str] = set()
        for line in mutant.lines:
            found |= rows.get(line, set())
        if mutant.module_wide:
            names = self.modules[mutant.path].affected(mutant.node_path[0][1] or 0)
            if any(not n.startswith("_") for n in names):
                return set(users)
            readers = self.modules[mutant.path].readers
            for name in names:
                for line in readers.get(name, ()):
                    found |= rows.get(line, set())
        elif mutant.lines & self.imported.get(mutant.path, set()):
            return set(users)
        return found
