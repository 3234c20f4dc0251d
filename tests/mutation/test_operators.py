"""The mutator's operators, ids and exclusions, on small real modules and on the reference itself."""

from __future__ import annotations

import ast
import random
import textwrap
from pathlib import Path

import pytest

from conformance.mutation import targets, walker
from conformance.mutation.operators import Mutant
from conformance.mutation.walker import mutants

ROOT = Path(__file__).resolve().parents[2]


def _of(source: str, only: tuple[str, ...] = ()) -> list[Mutant]:
    return mutants(textwrap.dedent(source), "reference.sample", "reference/sample.py", only)


def _afters(source: str, operator: str) -> set[str]:
    return {m.after for m in _of(source) if m.operator == operator}


def _run(mutant: Mutant, source: str, call: str) -> object:
    tree = ast.parse(textwrap.dedent(source))
    space: dict[str, object] = {}
    exec(mutant.compile(tree, "<mutant>"), space)  # noqa: S102
    return eval(call, space)  # noqa: S307


@pytest.mark.parametrize("source, operator, expected", [
    ("def f(a, b):\n    return a < b\n", "boundary", {"return a <= b"}),
    ("def f(a, b):\n    return a >= b\n", "boundary", {"return a > b"}),
    ("def f(a):\n    return a == 'x'\n", "flip", {"return a != 'x'"}),
    ("def f(a, s):\n    return a not in s\n", "flip", {"return a in s"}),
    ("def f(a):\n    return a is None\n", "flip", {"return a is not None"}),
    ("def f(p):\n    return p[:2]\n", "number", {"return p[:3]", "return p[:1]"}),
    ("def f(rec):\n    return rec.get('session')\n", "string", {"return rec.get('sessio')"}),
    ("def f(t):\n    return t.startswith('-')\n", "string", {"return t.startswith('_')"}),
    ("def f(v):\n    return v in ('a', 'b')\n", "drop", {"return v in ('b',)", "return v in ('a',)"}),
    ("def f(s):\n    return {'kind': 'run', 'ts': s}\n", "drop", {"return {'ts': s}", "return {'kind': 'run'}"}),
    ("def f(a, b):\n    return a and b\n", "boolop", {"return a or b"}),
    ("def f(a, b):\n    return a or b\n", "operand", {"return a", "return b"}),
    ("def f(a):\n    if a:\n        return 1\n    return 2\n", "negate", {"if not a:"}),
    ("def f(a):\n    return not a\n", "negate", {"return a"}),
    ("def f(a):\n    return 1 if a else 2\n", "negate", {"return 1 if not a else 2"}),
    ("def f(xs):\n    return [x for x in xs if x]\n", "negate", {"return [x for x in xs if not x]"}),
    ("def f(xs):\n    for x in xs:\n        if x:\n            continue\n        return x\n", "jump", {"break"}),
    ("def f(xs, out):\n    for x in xs:\n        out.append(x)\n", "early", {"out.append(x)\nbreak"}),
    ("def f():\n    return True\n", "return", {"return False"}),
    ("def f(a, b):\n    return g(a, b)\n", "swap", {"return g(b, a)"}),
    ("def f(a):\n    return a.lower()\n", "fold", {"return a"}),
    ("def f(a):\n    return a == 'read'\n", "fold", {"return a.lower() == 'read'"}),
    ("def f(a):\n    return a.startswith('Get')\n", "fold", {"return a.lower().startswith('Get')"}),
    ("import re\nX = re.compile('a', re.IGNORECASE)\n", "fold", {"X = re.compile('a')"}),
    ("def f(a):\n    return a.strip()\n", "strip", {"return a"}),
    ("def f(xs):\n    return sorted(xs)\n", "sort", {"return list(xs)"}),
    ("def f(xs):\n    return sorted(xs, key=len)\n", "sort", {"return sorted(xs)"}),
    ("def f(xs):\n    return min(xs, key=lambda r: (r.ts, r.run))\n", "sort",
     {"return max(xs, key=lambda r: (r.ts, r.run))", "return min(xs)", "return min(xs, key=lambda r: (r.run,))",
      "return min(xs, key=lambda r: (r.ts,))"}),
    ("def f(a, b):\n    return a + b\n", "arith", {"return a - b"}),
    ("def f(xs):\n    xs.sort(key=lambda i: -i)\n", "arith", {"xs.sort(key=lambda i: i)"}),
    ("def f(xs):\n    return any(xs)\n", "anyall", {"return all(xs)"}),
])
def test_each_operator_makes_its_fault(source: str, operator: str, expected: set[str]) -> None:
    assert _afters(source, operator) == expected


def test_statements_are_removed_only_where_the_program_still_runs() -> None:
    source = """
    def f(xs, d):
        total = 0
        fresh = 1
        total = total + 1
        d['k'] = 1
        xs.append(1)
        total += 2
        if not xs:
            raise ValueError('empty')
        return total
    """
    removed = {m.before for m in _of(source) if m.operator == "remove"}
    # a first binding is never removed (a NameError says nothing); a re-binding is
    assert removed == {"total = total + 1", "d['k'] = 1", "xs.append(1)", "total += 2", "raise ValueError('empty')"}


def test_what_is_left_alone() -> None:
    source = '''
    """The module's docstring."""
    from __future__ import annotations
    import os
    TYPE_CHECKING = False
    if TYPE_CHECKING:
        from typing import Any
    __all__ = ["f", "g"]

    class Rec:
        __slots__ = ("a", "b")
        a: int

    def f(x: "Any", notes: list[str], warn) -> "int":
        """A docstring."""
        assert x
        notes.append(f"x is {x}: it counts")
        warn("a message with 'quotes'")
        return 0
    '''
    found = _of(source)
    assert [m.before for m in found] == ["return 0", "return 0"]  # only the number shifts of the return


def test_messages_for_people_keep_their_words_but_calls_around_them_still_mutate() -> None:
    source = """
    def f(parser):
        parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    """
    afters = {m.after for m in _of(source)}
    assert "parser.add_argument('--jso', action='store_true', help='print the rows as JSON')" in afters
    assert not any("as JSO'" in a for a in afters)


def test_a_table_element_is_dropped_not_misspelt() -> None:
    found = _of("NAMES = frozenset({'cat', 'head'})\n")
    assert {m.operator for m in found} == {"drop"}
    assert len(found) == 2


def test_unpacking_keeps_its_length() -> None:
    found = _of("READ, SHELL = 'read', 'shell'\n")
    assert {m.operator for m in found} == {"string"}


def test_ids_survive_unrelated_edits_and_follow_the_statement() -> None:
    base = "def f(a, b):\n    return a < b\n\ndef g(x):\n    return x + 1\n"
    moved = "import os\n\n\ndef h():\n    return os.sep\n\n\n" + base.replace("return x + 1", "# a comment\n    return x + 1")
    ids = {m.id: m.line for m in _of(base)}
    moved_ids = {m.id: m.line for m in _of(moved)}
    assert set(ids) <= set(moved_ids)
    assert all(moved_ids[i] != line for i, line in ids.items())  # the lines moved, the ids did not
    changed = {m.id for m in _of(base.replace("return a < b", "return a < b + 0"))}
    assert not {i for i in ids if i.startswith("sample:f:")} & changed


def test_the_same_statement_twice_in_one_function_gets_two_ids() -> None:
    found = [m for m in _of("def f(a):\n    a.pop()\n    a.pop()\n") if m.operator == "remove"]
    assert [m.id.rsplit(":", 1)[-1].count("~") for m in found] == [0, 1]
    assert found[1].id.endswith("~2")


def test_only_restricts_to_named_functions() -> None:
    source = "def keep(a):\n    return a + 1\n\ndef skip(a):\n    return a + 1\n\nX = 1\n"
    assert {m.scope for m in _of(source, only=("keep",))} == {"keep"}


def test_scope_lines_and_reach() -> None:
    source = "LIMIT = 5\n\nclass C:\n    def m(self, a=3):\n        return a\n"
    by_op = {(m.scope, m.after): m for m in _of(source)}
    table = by_op[("<module>", "LIMIT = 6")]
    assert table.module_wide
    default = by_op[("C.m", "def m(self, a=4):")]
    assert not default.module_wide and default.lines == frozenset({5})  # judged where the body runs


def test_a_mutant_changes_behaviour_exactly_as_it_says() -> None:
    source = "def inside(ts, start, end):\n    return start <= ts and ts <= end\n"
    found = {m.after: m for m in _of(source)}
    assert _run(found["return start < ts and ts <= end"], source, "inside(1, 1, 2)") is False
    assert _run(found["return start <= ts or ts <= end"], source, "inside(5, 1, 2)") is True


def test_diff_of_a_long_statement_shows_the_change() -> None:
    names = ", ".join(f"'name{i}'" for i in range(40))
    found = [m for m in _of(f"NAMES = ({names})\n") if "'name20', " not in m.after]
    text = found[0].diff()
    assert "'name19', 'name20', 'name21'" in text.splitlines()[0] and "'name19', 'name21'" in text.splitlines()[1]
    assert len(text) < 300


def test_every_target_module_is_mutated_and_a_sample_of_its_mutants_compiles() -> None:
    chosen = targets.resolve(ROOT)
    assert {"hook.shell", "pathmatch", "recall.render", "relations.links"} <= {t.short for t in chosen}
    every: list[tuple[Mutant, ast.Module]] = []
    for t in chosen:
        source = (ROOT / t.path).read_text(encoding="utf-8")
        tree = ast.parse(source)
        found = walker.mutants(source, t.module, t.path, t.only)
        assert found, t.short
        ids = [m.id for m in found]
        assert len(ids) == len(set(ids)), t.short
        every += [(m, tree) for m in found]
    for m, tree in random.Random(3).sample(every, 60):
        original = ast.unparse(tree)
        mutated = ast.unparse(m.tree(tree))
        assert mutated != original, m.id
        m.compile(tree, m.path)
