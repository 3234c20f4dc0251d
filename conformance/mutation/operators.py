"""The mutants of one module: the small faults a real implementer makes, as edits of its syntax tree.

Each operator stands for a class of real mistakes, not for every syntactic possibility:

==========  ==========================================================================================
boundary    ``<`` and ``<=``, ``>`` and ``>=`` swapped: a window edge on the wrong side
flip        ``==``/``!=``, ``in``/``not in``, ``is``/``is not`` swapped
number      an integer or float constant one more or one less: an off-by-one limit or index
string      a string constant that carries meaning (a kind, a field name, a verb, an option, a
            format) misspelt; messages for people (warnings, notes, exceptions, help) are left alone
drop        one element left out of a literal tuple, list, set or dict of constants: a tool name,
            a field of a log line, a verb missing from a table
boolop      ``and`` and ``or`` swapped
operand     one operand of ``and``/``or`` left out: a forgotten condition or fallback
negate      a condition negated, or a ``not`` left out
remove      a statement left out: a call, an update, a re-assignment, a ``raise``, a ``continue``
jump        ``continue`` and ``break`` swapped
early       a ``break`` right after a loop collects something: stopping at the first match
return      ``return True`` and ``return False`` swapped
swap        the first two positional arguments of a call swapped
fold        ``lower()``/``upper()``/``casefold()`` left out, ``.lower()`` added to one side of a compare
            with a string, ``re.IGNORECASE`` left out: a case rule
strip       ``strip()``/``lstrip()``/``rstrip()`` left out
sort        ``sorted(x)`` without its sort (``list(x)``), its ``key=`` or ``reverse=`` left out,
            ``min`` and ``max`` swapped: an order by the wrong key
arith       ``+`` and ``-`` swapped on numbers
anyall      ``any`` and ``all`` swapped
==========  ==========================================================================================

Left alone: docstrings, imports, annotations, ``TYPE_CHECKING`` blocks, ``__slots__``/``__all__``,
``assert``, and the arguments of calls that only talk to people (:data:`MESSAGE_CALLS`).

A mutant's id survives unrelated edits: the module, the enclosing function's qualified name, the
operator and a hash of the mutated statement's text before and after (for an ``if`` or a ``def``,
only its header), plus ``~2``, ``~3``... when one function holds the same statement twice. Line
numbers are reported, never part of the id.
"""

from __future__ import annotations

import ast
import copy
import difflib
import hashlib
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from types import CodeType
from typing import Any

OPERATORS: tuple[str, ...] = ("boundary", "flip", "number", "string", "drop", "boolop", "operand", "negate",
                              "remove", "jump", "early", "return", "swap", "fold", "strip", "sort", "arith",
                              "anyall")

# Calls whose arguments are words for people (decision notes, warnings, argparse help): a change
# there is not a change of behaviour any scenario could see, so nothing inside them is mutated.
MESSAGE_CALLS = frozenset({"warn", "_warn", "note", "debug"})
MESSAGE_RECEIVERS = frozenset({"notes"})  # notes.append(...)
# argparse's words, and ``reason=``: the shell's decision in words (``Action.reason``), which only
# the hook's notes read. ``encoding``/``errors``/``newline`` name codecs, not behaviour to judge.
_MESSAGE_KEYWORDS = frozenset({"help", "description", "metavar", "prog", "usage", "epilog", "encoding", "errors",
                               "newline", "reason"})
_NO_SWAP = frozenset({"isinstance", "issubclass", "getattr", "hasattr", "setattr", "print", "super", "range",
                      "enumerate", "zip", "max", "min"})
_FOLDS = frozenset({"lower", "upper", "casefold"})
_STRIPS = frozenset({"strip", "lstrip", "rstrip"})
_COLLECTS = frozenset({"append", "add"})
_BOUNDARY = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt}
_FLIP = {ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.In: ast.NotIn, ast.NotIn: ast.In, ast.Is: ast.IsNot,
         ast.IsNot: ast.Is}
_BODIES = ("body", "orelse", "finalbody", "handlers")
_PLACEHOLDER = re.compile(r"^\s+pass$")
_WINDOW = 50  # characters of context around a change in a long statement

Path = tuple[tuple[str, int | None], ...]
Factory = Callable[[Any], Any]  # the node (a copy) -> its replacement: a node, or statements to splice in


@dataclass
class Mutant:
    """One mutant of one module. ``apply`` edits a copy of the module's tree in place."""

    id: str
    module: str  # dotted import name
    short: str  # the module without ``reference.``
    path: str  # the file, relative to the repository root
    operator: str
    scope: str  # qualified name of the enclosing function or class, ``<module>`` outside any
    line: int
    end_line: int
    before: str  # the statement (or a compound statement's header) as written, normalized
    after: str  # the same, mutated
    lines: frozenset[int]  # executing any of these lines reaches the mutated code
    module_wide: bool  # evaluated when the module is imported (a table, a default, a decorator)
    node_path: Path = field(repr=False, default=())
    factory: Factory | None = field(repr=False, default=None)

    def tree(self, original: ast.Module) -> ast.Module:
        tree = _clone(original)
        _replace(tree, self.node_path, self.factory)
        return ast.fix_missing_locations(tree)

    def compile(self, original: ast.Module, filename: str) -> CodeType:
        return compile(self.tree(original), filename, "exec", dont_inherit=True)

    def diff(self) -> str:
        """The change, ``-`` before and ``+`` after; a long statement only around what changed."""
        before, after = self.before, self.after
        if len(before) > 3 * _WINDOW or before.count("\n") > 3:
            blocks = difflib.SequenceMatcher(None, before, after, autojunk=False).get_opcodes()
            changed = [b for b in blocks if b[0] != "equal"]
            lo = max(0, changed[0][1] - _WINDOW) if changed else 0
            hi_b = min(len(before), changed[-1][2] + _WINDOW) if changed else len(before)
            hi_a = hi_b + len(after) - len(before)
            before = ("…" if lo else "") + before[lo:hi_b] + ("…" if hi_b < len(self.before) else "")
            after = ("…" if lo else "") + after[lo:hi_a] + ("…" if hi_a < len(self.after) else "")
        return "\n".join([*("- " + s for s in before.splitlines()), *("+ " + s for s in after.splitlines())])


def mutants(source: str, module: str, path: str, only: tuple[str, ...] = ()) -> list[Mutant]:
    """Every mutant of ``source`` (the module ``module`` in file ``path``), in source order.
    ``only``: mutate just these top-level functions."""
    tree = ast.parse(source, filename=path)
    walker = _Walker(tree, module, path, only)
    walker.run()
    return walker.found


# -- applying an edit ----------------------------------------------------------------------------------

def _node_at(tree: ast.AST, path: Path) -> ast.AST:
    node = tree
    for name, index in path:
        value = getattr(node, name)
        node = value[index] if index is not None else value
    return node


def _replace(tree: ast.AST, path: Path, factory: Factory | None) -> None:
    assert factory is not None and path
    parent = _node_at(tree, path[:-1])
    name, index = path[-1]
    new = factory(_node_at(tree, path))
    if index is None:
        setattr(parent, name, new)
    elif isinstance(new, list):
        getattr(parent, name)[index:index + 1] = new
    else:
        getattr(parent, name)[index] = new


def _header(stmt: ast.AST) -> ast.AST:
    """A copy of a statement with its nested blocks emptied: what its "line" says."""
    clone = copy.copy(stmt)
    for name in _BODIES:
        if isinstance(getattr(clone, name, None), list):
            setattr(clone, name, [ast.Pass()] if name == "body" else [])
    return _clone(clone)


def _clone(value: Any) -> Any:
    """A deep copy of a syntax tree (or a list of them). ``copy.deepcopy`` did the same through its
    general machinery, a third of the time it took to find a module's mutants; the leaves (names,
    numbers, strings, ``None``) are never changed in place, so they are shared."""
    if isinstance(value, list):
        return [_clone(item) for item in value]
    if isinstance(value, ast.AST):
        new = type(value).__new__(type(value))
        new.__dict__.update({name: _clone(inner) for name, inner in value.__dict__.items()})
        return new
    return value


def _text(node: ast.AST | list[ast.stmt]) -> str:
    """The code as ``ast.unparse`` spells it, without the ``pass`` that stands for a header's body."""
    if isinstance(node, list):
        return "\n".join(_text(n) for n in node)
    return "\n".join(line for line in ast.unparse(node).splitlines() if not _PLACEHOLDER.match(line))


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


# -- the edits -------------------------------------------------------------------------------------------

def _ctx(ctx: _Ctx, **changes: object) -> _Ctx:
    return _Ctx(**{**ctx.__dict__, **changes})  # type: ignore[arg-type]


def _negate(node: ast.AST) -> ast.expr:
    assert isinstance(node, ast.expr)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return node.operand
    return ast.UnaryOp(op=ast.Not(), operand=node)


def _side(name: str) -> Factory:
    return lambda n: getattr(n, name)


def _constant(value: int | float) -> Factory:
    return lambda n: ast.Constant(value)


def _set_op(i: int, op: type[ast.cmpop]) -> Factory:
    def edit(n: ast.AST) -> ast.AST:
        assert isinstance(n, ast.Compare)
        ops = list(n.ops)
        ops[i] = op()
        return ast.Compare(left=n.left, ops=ops, comparators=n.comparators)
    return edit


def _drop_operand(i: int) -> Factory:
    def edit(n: ast.AST) -> ast.AST:
        assert isinstance(n, ast.BoolOp)
        values = [v for j, v in enumerate(n.values) if j != i]
        return values[0] if len(values) == 1 else ast.BoolOp(op=n.op, values=values)
    return edit


def _drop_elt(i: int) -> Factory:
    def edit(n: ast.AST) -> ast.AST:
        assert isinstance(n, ast.Tuple | ast.List | ast.Set)
        elts = [e for j, e in enumerate(n.elts) if j != i]
        if isinstance(n, ast.Set):
            return ast.Set(elts=elts)
        return ast.List(elts=elts, ctx=ast.Load()) if isinstance(n, ast.List) else ast.Tuple(elts=elts, ctx=ast.Load())
    return edit


def _drop_item(i: int) -> Factory:
    def edit(n: ast.AST) -> ast.AST:
        assert isinstance(n, ast.Dict)
        return ast.Dict(keys=[k for j, k in enumerate(n.keys) if j != i],
                        values=[v for j, v in enumerate(n.values) if j != i])
    return edit


def _drop_arg(i: int) -> Factory:
    def edit(n: ast.AST) -> ast.AST:
        assert isinstance(n, ast.Call)
        return ast.Call(func=n.func, args=[a for j, a in enumerate(n.args) if j != i], keywords=n.keywords)
    return edit


def _drop_keyword(i: int) -> Factory:
    def edit(n: ast.AST) -> ast.AST:
        assert isinstance(n, ast.Call)
        return ast.Call(func=n.func, args=n.args, keywords=[k for j, k in enumerate(n.keywords) if j != i])
    return edit


def _swap_args(n: ast.AST) -> ast.AST:
    assert isinstance(n, ast.Call)
    return ast.Call(func=n.func, args=[n.args[1], n.args[0], *n.args[2:]], keywords=n.keywords)


def _rename(name: str) -> Factory:
    def edit(n: ast.AST) -> ast.AST:
        assert isinstance(n, ast.Call)
        return ast.Call(func=ast.Name(name, ast.Load()), args=n.args, keywords=n.keywords)
    return edit


def _lower(node: ast.expr) -> ast.expr:
    return ast.Call(func=ast.Attribute(value=node, attr="lower", ctx=ast.Load()), args=[], keywords=[])


def _lower_receiver(n: ast.AST) -> ast.AST:
    assert isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
    return ast.Call(func=ast.Attribute(value=_lower(n.func.value), attr=n.func.attr, ctx=ast.Load()),
                    args=n.args, keywords=n.keywords)


# -- what may be mutated -----------------------------------------------------------------------------

def _skipped(stmt: ast.stmt, docstring: bool) -> bool:
    if docstring and isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) \
            and isinstance(stmt.value.value, str):
        return True
    if isinstance(stmt, ast.Import | ast.ImportFrom | ast.Assert | ast.Global | ast.Nonlocal | ast.Pass):
        return True
    if isinstance(stmt, ast.If) and isinstance(stmt.test, ast.Name) and stmt.test.id == "TYPE_CHECKING":
        return True
    if isinstance(stmt, ast.Assign | ast.AnnAssign):
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        names = {t.id for t in targets if isinstance(t, ast.Name)}
        if names & {"TYPE_CHECKING", "__slots__", "__all__", "__hash__"}:
            return True
        if isinstance(stmt, ast.AnnAssign) and stmt.value is None:
            return True
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and _is_message(stmt.value):
        return True
    return False


def _is_message(call: ast.Call) -> bool:
    func = call.func
    if isinstance(func, ast.Name):
        return func.id in MESSAGE_CALLS
    if isinstance(func, ast.Attribute):
        if func.attr in MESSAGE_CALLS:
            return True
        return func.attr == "append" and isinstance(func.value, ast.Name) and func.value.id in MESSAGE_RECEIVERS
    return False


def _quiet(tree: ast.Module) -> set[int]:
    """The nodes that only make words for people (by ``id``): message calls and their arguments,
    message keywords, arguments given to a parameter that is only used in messages, assignments
    to names only used in messages, and ``if`` statements whose branches only make messages."""
    quiet: set[int] = set()

    def mark(node: ast.AST) -> None:
        quiet.update(id(n) for n in ast.walk(node))

    functions = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _is_message(node):
            mark(node)
        elif isinstance(node, ast.keyword) and node.arg in _MESSAGE_KEYWORDS:
            mark(node)
    grew = True
    while grew:
        grew = False
        # parameters and local names whose every use is a message
        message_params: dict[str, set[int]] = {}
        for func in functions:
            loads: dict[str, list[ast.Name]] = {}
            for n in ast.walk(func):
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
                    loads.setdefault(n.id, []).append(n)
            params = [a.arg for a in [*func.args.posonlyargs, *func.args.args]]
            message_params[func.name] = {i for i, name in enumerate(params) if _only_messages(loads, name, quiet)}
            for stmt in ast.walk(func):
                if isinstance(stmt, ast.Assign) and id(stmt) not in quiet and len(stmt.targets) == 1 \
                        and isinstance(stmt.targets[0], ast.Name) \
                        and _only_messages(loads, stmt.targets[0].id, quiet):
                    mark(stmt)
                    grew = True
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and id(node) not in quiet:
                for i in message_params.get(node.func.id, ()):
                    if i < len(node.args) and id(node.args[i]) not in quiet:
                        mark(node.args[i])
                        grew = True
        # an if whose branches only make messages
        for node in ast.walk(tree):
            if isinstance(node, ast.Expr) and id(node) not in quiet and id(node.value) in quiet:
                quiet.add(id(node))
        for node in ast.walk(tree):
            if isinstance(node, ast.If) and id(node) not in quiet \
                    and all(id(s) in quiet or isinstance(s, ast.Pass) for s in [*node.body, *node.orelse]):
                mark(node)
                grew = True
    return quiet


def _only_messages(loads: dict[str, list[ast.Name]], name: str, quiet: set[int]) -> bool:
    uses = loads.get(name, [])
    return bool(uses) and all(id(u) in quiet for u in uses)


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


def _collects(value: ast.expr) -> bool:
    return (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)
            and value.func.attr in _COLLECTS)


def _unpacked(node: ast.AST, path: Path, tree: ast.Module) -> bool:
    """A literal on the right of ``a, b = ...`` (dropping one fails at import, which says nothing),
    or a subscript's tuple."""
    name, _ = path[-1]
    if name == "slice":
        return True
    if name != "value":
        return False
    parent = _node_at(tree, path[:-1])
    return isinstance(parent, ast.Assign) and any(isinstance(t, ast.Tuple | ast.List) for t in parent.targets)


def _misspelt(text: str) -> str:
    """A string with its last character left out (a flag missing from ``"lveK"``, ``"ru"`` for
    ``"run"``); a one-character string becomes another character."""
    if len(text) >= 2:
        return text[:-1]
    return "-" if text == "_" else "_"


def _table(node: ast.AST) -> bool:
    """A literal of at least two constants (a dict: constant or named keys), whose elements are
    dropped one at a time rather than misspelt."""
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return len(node.elts) >= 2 and all(isinstance(e, ast.Constant) for e in node.elts)
    if isinstance(node, ast.Dict):
        return len(node.keys) >= 2 and all(isinstance(k, ast.Constant | ast.Name) for k in node.keys)
    return False


def _stringy(node: ast.expr) -> bool:
    return isinstance(node, ast.JoinedStr) or (isinstance(node, ast.Constant) and isinstance(node.value, str | bytes))


def _strings_only(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str) and node.value.lower() != node.value.upper()
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return bool(node.elts) and all(_strings_only(e) for e in node.elts)
    return False


def _lowered(node: ast.expr) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _FOLDS


def _foldable(node: ast.expr) -> bool:
    return isinstance(node, ast.Name | ast.Attribute | ast.Subscript | ast.Call) and not _lowered(node)


def _ignorecase(node: ast.expr) -> bool:
    return isinstance(node, ast.Attribute) and node.attr in ("IGNORECASE", "I") and \
        isinstance(node.value, ast.Name) and node.value.id == "re"


def walk_ids(found: list[Mutant]) -> Iterator[str]:
    """The ids in order (for tests and listings)."""
    return (m.id for m in found)
