"""The mutation operators: the small faults a real implementer makes, as edits of a syntax tree.

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

This module is the catalogue: each operator's edit (a factory from a node to what replaces it),
the tests a node must pass to take one, what is left alone, and :class:`Mutant`, one edit of one
module, which applies itself to a copy of the module's syntax tree. Which node of a module is
offered which operator, and each mutant's id, are ``walker.py``'s, which imports this module;
this one never imports it.
"""

from __future__ import annotations

import ast
import copy
import difflib
import re
from collections.abc import Callable
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



# -- the edits -------------------------------------------------------------------------------------------

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
