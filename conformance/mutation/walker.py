"""The mutants of one module: its syntax tree walked, and each node offered the operators that fit.

Why a module of its own: ``operators.py`` says what each fault is and what is left alone; this
module is where a module's code meets that catalogue, with what the walk knows on the way (the
enclosing function, whether a statement runs in a loop, which names are already bound, whether
an element belongs to a table of constants), and where each mutant gets its id.

A mutant's id survives unrelated edits: the module, the enclosing function's qualified name, the
operator and a hash of the mutated statement's text before and after (for an ``if`` or a ``def``,
only its header), plus ``~2``, ``~3``... when one function holds the same statement twice. Line
numbers are reported, never part of the id.
"""

from __future__ import annotations

import ast
import hashlib
from collections.abc import Iterator
from dataclasses import dataclass

from .operators import (
    _BODIES,
    _BOUNDARY,
    _FLIP,
    _FOLDS,
    _MESSAGE_KEYWORDS,
    _NO_SWAP,
    _STRIPS,
    Factory,
    Mutant,
    Path,
    _clone,
    _collects,
    _constant,
    _drop_arg,
    _drop_elt,
    _drop_item,
    _drop_keyword,
    _drop_operand,
    _foldable,
    _header,
    _ignorecase,
    _lower,
    _lower_receiver,
    _lowered,
    _misspelt,
    _negate,
    _quiet,
    _rename,
    _replace,
    _set_op,
    _side,
    _skipped,
    _strings_only,
    _stringy,
    _swap_args,
    _table,
    _text,
    _unpacked,
)


def mutants(source: str, module: str, path: str, only: tuple[str, ...] = ()) -> list[Mutant]:
    """Every mutant of ``source`` (the module ``module`` in file ``path``), in source order.
    ``only``: mutate just these top-level functions."""
    tree = ast.parse(source, filename=path)
    walker = _Walker(tree, module, path, only)
    walker.run()
    return walker.found


# -- walking the tree ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class _Ctx:
    scope: tuple[str, ...] = ()
    in_function: bool = False  # inside a function's (or lambda's) body: runs when called
    in_loop: bool = False  # directly inside a loop of the same function
    anchor: ast.AST | None = None  # the innermost statement (or except clause)
    anchor_path: Path = ()
    bound: frozenset[str] = frozenset()  # names a function already bound before this statement
    table: bool = False  # an element of a literal whose elements are dropped one by one


class _Walker:
    def __init__(self, tree: ast.Module, module: str, path: str, only: tuple[str, ...]) -> None:
        self.tree = tree
        self.module = module
        self.short = module.removeprefix("reference.")
        self.path = path
        self.only = only
        self.found: list[Mutant] = []
        self._ids: dict[str, int] = {}
        self._before: dict[int, str] = {}

    def run(self) -> None:
        self.quiet = _quiet(self.tree)
        for i, stmt in enumerate(self.tree.body):
            if self.only and not (isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef) and stmt.name in self.only):
                continue
            self._stmt(stmt, (("body", i),), _Ctx(), docstring=i == 0)

    # statements ------------------------------------------------------------------------------------
    def _block(self, body: list[ast.stmt], path: Path, ctx: _Ctx, name: str = "body", owner: bool = False) -> None:
        bound = set(ctx.bound)
        for i, stmt in enumerate(body):
            self._stmt(stmt, (*path, (name, i)), _ctx(ctx, bound=frozenset(bound)), docstring=owner and i == 0)
            if ctx.in_function:
                bound.update(_binds(stmt))

    def _stmt(self, stmt: ast.stmt, path: Path, ctx: _Ctx, docstring: bool = False) -> None:
        if _skipped(stmt, docstring) or id(stmt) in self.quiet:
            return
        ctx = _ctx(ctx, anchor=stmt, anchor_path=path)
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
            self._fields(stmt, path, _ctx(ctx, scope=(*ctx.scope, stmt.name)), skip=("body", "returns"))
            args = {a.arg for a in [*stmt.args.posonlyargs, *stmt.args.args, *stmt.args.kwonlyargs]}
            args |= {a.arg for a in (stmt.args.vararg, stmt.args.kwarg) if a is not None}
            inner = _Ctx(scope=(*ctx.scope, stmt.name), in_function=True, bound=frozenset(args))
            self._block(stmt.body, path, inner, owner=True)
            return
        if isinstance(stmt, ast.ClassDef):
            self._fields(stmt, path, ctx, skip=("body",))
            self._block(stmt.body, path, _Ctx(scope=(*ctx.scope, stmt.name), in_function=ctx.in_function), owner=True)
            return
        self._offer_statement(stmt, path, ctx)
        loop = isinstance(stmt, ast.For | ast.While | ast.AsyncFor)
        self._fields(stmt, path, ctx, skip=_BODIES)
        for name in _BODIES:
            body = getattr(stmt, name, None)
            if not isinstance(body, list):
                continue
            inner = _ctx(ctx, in_loop=ctx.in_loop or (loop and name == "body"))
            if name == "handlers":
                for i, handler in enumerate(body):
                    hpath = (*path, ("handlers", i))
                    hctx = _ctx(inner, anchor=handler, anchor_path=hpath)
                    self._fields(handler, hpath, hctx, skip=("body",))
                    self._block(handler.body, hpath, inner)
            else:
                self._block(body, path, inner, name=name)

    def _fields(self, node: ast.AST, path: Path, ctx: _Ctx, skip: tuple[str, ...] = ()) -> None:
        for name, value in ast.iter_fields(node):
            if name in skip or name in ("annotation", "returns", "type_comment"):
                continue
            if isinstance(value, list):
                for i, item in enumerate(value):
                    if isinstance(item, ast.expr | ast.keyword | ast.comprehension | ast.arguments | ast.arg
                                  | ast.withitem):
                        self._expr(item, (*path, (name, i)), ctx)
            elif isinstance(value, ast.expr | ast.arguments | ast.arg):
                self._expr(value, (*path, (name, None)), ctx)

    # expressions ----------------------------------------------------------------------------------
    def _expr(self, node: ast.AST, path: Path, ctx: _Ctx) -> None:
        if id(node) in self.quiet:
            return
        if isinstance(node, ast.keyword) and node.arg in _MESSAGE_KEYWORDS:
            return
        if isinstance(node, ast.Lambda):
            self._fields(node, path, _ctx(ctx, in_function=True, in_loop=False))
            return
        if isinstance(node, ast.keyword) and node.arg == "key" and isinstance(node.value, ast.Lambda) \
                and isinstance(node.value.body, ast.Tuple) and len(node.value.body.elts) >= 2:
            lam = (*path, ("value", None), ("body", None))
            for i in range(len(node.value.body.elts)):
                self._add("sort", node.value.body, lam, ctx, _drop_elt(i))
        self._offer_expr(node, path, ctx)
        inner = _ctx(ctx, table=False)
        if _table(node) and not _unpacked(node, path, self.tree):
            self._fields(node, path, _ctx(ctx, table=True))
            return
        if isinstance(node, ast.Dict) and _table(node):
            for i, key in enumerate(node.keys):
                assert key is not None
                self._expr(key, (*path, ("keys", i)), _ctx(ctx, table=True))
            for i, value in enumerate(node.values):
                self._expr(value, (*path, ("values", i)), inner)
            return
        self._fields(node, path, inner, skip=("format_spec",))

    # offering mutants ---------------------------------------------------------------------------------
    def _add(self, op: str, node: ast.AST, path: Path, ctx: _Ctx, factory: Factory,
             lines: set[int] | None = None) -> None:
        anchor = ctx.anchor
        assert anchor is not None
        key = id(anchor)
        if key not in self._before:
            self._before[key] = _text(_header(anchor))
        before = self._before[key]
        rel = path[len(ctx.anchor_path):]
        if rel:
            clone = _header(anchor)
            _replace(clone, rel, factory)
            after = _text(clone)
        else:
            after = _text(factory(_clone(node)))
        if after == before:
            return
        scope = ".".join(ctx.scope) or "<module>"
        digest = hashlib.sha256(f"{before}\0{after}".encode()).hexdigest()[:8]
        base = f"{self.short}:{scope}:{op}:{digest}"
        seen = self._ids.get(base, 0) + 1
        self._ids[base] = seen
        start = getattr(node, "lineno", getattr(anchor, "lineno", 1))
        end = getattr(node, "end_lineno", None) or start
        covered = set(range(start, end + 1)) | {getattr(anchor, "lineno", start)} if lines is None else lines
        wide = not ctx.in_function
        if isinstance(anchor, ast.FunctionDef | ast.AsyncFunctionDef) and rel:
            # a default or a decorator: evaluated at definition, seen when the function runs
            covered = set(range(anchor.body[0].lineno, (anchor.end_lineno or anchor.lineno) + 1))
            wide = False
        self.found.append(Mutant(
            id=base if seen == 1 else f"{base}~{seen}", module=self.module, short=self.short, path=self.path,
            operator=op, scope=scope, line=start, end_line=end, before=before, after=after,
            lines=frozenset(covered), module_wide=wide, node_path=path, factory=factory))

    def _offer_statement(self, stmt: ast.stmt, path: Path, ctx: _Ctx) -> None:
        whole = set(range(stmt.lineno, (stmt.end_lineno or stmt.lineno) + 1))
        if isinstance(stmt, ast.Continue | ast.Break):
            self._add("remove", stmt, path, ctx, lambda n: ast.Pass(), whole)
            other: type[ast.stmt] = ast.Break if isinstance(stmt, ast.Continue) else ast.Continue
            self._add("jump", stmt, path, ctx, lambda n: other(), whole)
            return
        if _removable(stmt, ctx):
            self._add("remove", stmt, path, ctx, lambda n: ast.Pass(), whole)
        if ctx.in_loop and isinstance(stmt, ast.Expr) and _collects(stmt.value):
            self._add("early", stmt, path, ctx, lambda n: [n, ast.Break()], whole)
        if isinstance(stmt, ast.Return) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, bool):
            flipped = not stmt.value.value
            self._add("return", stmt, path, ctx, lambda n: ast.Return(value=ast.Constant(flipped)), whole)
        if isinstance(stmt, ast.If | ast.While):
            self._add("negate", stmt.test, (*path, ("test", None)), ctx, _negate)

    def _offer_expr(self, node: ast.AST, path: Path, ctx: _Ctx) -> None:
        if isinstance(node, ast.Compare):
            for i, op in enumerate(node.ops):
                for table, name in ((_BOUNDARY, "boundary"), (_FLIP, "flip")):
                    if type(op) in table:
                        self._add(name, node, path, ctx, _set_op(i, table[type(op)]))
            self._offer_fold_compare(node, path, ctx)
        elif isinstance(node, ast.BoolOp):
            other_op: ast.boolop = ast.Or() if isinstance(node.op, ast.And) else ast.And()
            self._add("boolop", node, path, ctx, lambda n: ast.BoolOp(op=other_op, values=n.values))
            for i in range(len(node.values)):
                self._add("operand", node, path, ctx, _drop_operand(i))
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            if path[-1][0] not in ("test", "ifs"):  # a condition's own negation is offered there
                self._add("negate", node, path, ctx, lambda n: n.operand)
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and not isinstance(node.operand, ast.Constant):
            self._add("arith", node, path, ctx, lambda n: n.operand)
        elif isinstance(node, ast.IfExp):
            self._add("negate", node.test, (*path, ("test", None)), ctx, _negate)
        elif isinstance(node, ast.comprehension):
            for i in range(len(node.ifs)):
                self._add("negate", node.ifs[i], (*path, ("ifs", i)), ctx, _negate)
        elif isinstance(node, ast.Constant):
            if not ctx.table:
                self._offer_constant(node, path, ctx)
        elif isinstance(node, ast.Tuple | ast.List | ast.Set) and not _unpacked(node, path, self.tree):
            if _table(node):
                for i in range(len(node.elts)):
                    self._add("drop", node, path, ctx, _drop_elt(i))
        elif isinstance(node, ast.Dict):
            if _table(node):
                for i in range(len(node.keys)):
                    self._add("drop", node, path, ctx, _drop_item(i))
        elif isinstance(node, ast.BinOp):
            if isinstance(node.op, ast.Add | ast.Sub) and not (_stringy(node.left) or _stringy(node.right)):
                new_op: ast.operator = ast.Sub() if isinstance(node.op, ast.Add) else ast.Add()
                self._add("arith", node, path, ctx, lambda n: ast.BinOp(left=n.left, op=new_op, right=n.right))
            if isinstance(node.op, ast.BitOr):
                for side in ("left", "right"):
                    if _ignorecase(getattr(node, side)):
                        keep = "right" if side == "left" else "left"
                        self._add("fold", node, path, ctx, _side(keep))
        elif isinstance(node, ast.Call):
            self._offer_call(node, path, ctx)

    def _offer_constant(self, node: ast.Constant, path: Path, ctx: _Ctx) -> None:
        value = node.value
        if isinstance(value, bool) or value is None:
            return
        if isinstance(value, int | float):
            for delta in (1, -1):
                shifted = value + delta
                self._add("number", node, path, ctx, _constant(shifted))
        elif isinstance(value, str) and value:
            self._add("string", node, path, ctx, lambda n: ast.Constant(_misspelt(n.value)))

    def _offer_call(self, node: ast.Call, path: Path, ctx: _Ctx) -> None:
        func = node.func
        name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
        plain = [a for a in node.args if not isinstance(a, ast.Starred)]
        if (name not in _NO_SWAP and len(plain) == len(node.args) >= 2
                and ast.unparse(node.args[0]) != ast.unparse(node.args[1])):
            self._add("swap", node, path, ctx, _swap_args)
        if isinstance(func, ast.Attribute) and not node.args and not node.keywords and func.attr in _FOLDS:
            self._add("fold", node, path, ctx, lambda n: n.func.value)
        if isinstance(func, ast.Attribute) and func.attr in _STRIPS:
            self._add("strip", node, path, ctx, lambda n: n.func.value)
        if (isinstance(func, ast.Attribute) and func.attr in ("startswith", "endswith") and node.args
                and _strings_only(node.args[0]) and not _lowered(func.value)):
            self._add("fold", node, path, ctx, _lower_receiver)
        for i, arg in enumerate(node.args):
            if _ignorecase(arg):
                self._add("fold", node, path, ctx, _drop_arg(i))
        for i, kw in enumerate(node.keywords):
            if kw.arg == "flags" and _ignorecase(kw.value):
                self._add("fold", node, path, ctx, _drop_keyword(i))
        if isinstance(func, ast.Name) and func.id in ("any", "all"):
            self._add("anyall", node, path, ctx, _rename("all" if func.id == "any" else "any"))
        if isinstance(func, ast.Name) and func.id in ("min", "max"):
            self._add("sort", node, path, ctx, _rename("max" if func.id == "min" else "min"))
        if name in ("sorted", "sort", "min", "max"):
            for i, kw in enumerate(node.keywords):
                if kw.arg in ("key", "reverse"):
                    self._add("sort", node, path, ctx, _drop_keyword(i))
            if name == "sorted" and len(node.args) == 1 and not node.keywords:
                self._add("sort", node, path, ctx, lambda n: ast.Call(func=ast.Name("list", ast.Load()),
                                                                         args=n.args, keywords=[]))

    def _offer_fold_compare(self, node: ast.Compare, path: Path, ctx: _Ctx) -> None:
        if len(node.ops) != 1 or not isinstance(node.ops[0], ast.Eq | ast.NotEq | ast.In | ast.NotIn):
            return
        left, right = node.left, node.comparators[0]
        if _strings_only(right) and _foldable(left):
            self._add("fold", node, path, ctx, lambda n: ast.Compare(left=_lower(n.left), ops=n.ops,
                                                                     comparators=n.comparators))
        elif _strings_only(left) and _foldable(right) and isinstance(node.ops[0], ast.Eq | ast.NotEq):
            self._add("fold", node, path, ctx, lambda n: ast.Compare(left=n.left, ops=n.ops,
                                                                     comparators=[_lower(n.comparators[0])]))


def _ctx(ctx: _Ctx, **changes: object) -> _Ctx:
    return _Ctx(**{**ctx.__dict__, **changes})  # type: ignore[arg-type]


def _binds(stmt: ast.stmt) -> set[str]:
    out: set[str] = set()
    for node in ast.walk(stmt):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            out.add(node.id)
    return out


def _removable(stmt: ast.stmt, ctx: _Ctx) -> bool:
    """A statement whose absence leaves a running program: a call, an update, a ``raise``, a
    re-assignment (the name was bound before, so the old value flows on)."""
    if isinstance(stmt, ast.Expr):
        return isinstance(stmt.value, ast.Call | ast.Await)
    if isinstance(stmt, ast.AugAssign | ast.Raise | ast.Delete):
        return True
    if isinstance(stmt, ast.Assign):
        if all(isinstance(t, ast.Subscript | ast.Attribute) for t in stmt.targets):
            return True
        names = {t.id for t in stmt.targets if isinstance(t, ast.Name)}
        return bool(names) and len(names) == len(stmt.targets) and names <= ctx.bound
    return False


def walk_ids(found: list[Mutant]) -> Iterator[str]:
    """The ids in order (for tests and listings)."""
    return (m.id for m in found)
