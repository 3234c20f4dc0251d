from __future__ import annotations

import typing

import pytest

from reference._tuples import NamedTuple


class Light(NamedTuple):
    """a record"""

    a: str
    b: int = 2
    c: tuple[str, ...] = ()

    @property
    def both(self) -> str:
        return f"{self.a}{self.b}"


class Heavy(typing.NamedTuple):
    a: str
    b: int = 2
    c: tuple[str, ...] = ()


def test_behaves_like_typing_namedtuple():
    light, heavy = Light("x"), Heavy("x")
    assert tuple(light) == tuple(heavy) == ("x", 2, ())
    assert Light._fields == Heavy._fields
    assert light._replace(b=5) == Light("x", 5)
    assert light._asdict() == heavy._asdict()
    assert light.both == "x2"
    assert Light.__doc__ == "a record"
    assert Light.__name__ == "Light" and Light.__module__ == __name__
    with pytest.raises(AttributeError):
        light.d = 1  # type: ignore[attr-defined]
    with pytest.raises(TypeError):
        Light()  # type: ignore[call-arg]


def test_pickles_copies_and_repr_like_typing_namedtuple():
    import copy
    import pickle

    from reference.hook.toolcall import ToolCall

    light, heavy = Light("x", 3, ("y",)), Heavy("x", 3, ("y",))
    assert repr(light) == repr(heavy).replace("Heavy", "Light")
    assert pickle.loads(pickle.dumps(light)) == light and type(pickle.loads(pickle.dumps(light))) is Light
    assert copy.deepcopy(light) == light
    assert Light._make(["z", 1, ()]) == Light("z", 1)
    assert Light._field_defaults == Heavy._field_defaults
    with pytest.raises(TypeError):
        Light._make(["z"])
    with pytest.raises(ValueError):
        light._replace(d=1)
    call = ToolCall._make(range(len(ToolCall._fields)))
    assert pickle.loads(pickle.dumps(call)) == call


def test_imports_neither_typing_nor_collections():
    import subprocess
    import sys

    root = str(__import__("pathlib").Path(__file__).resolve().parents[1])
    code = (f"import sys; sys.path.insert(0, {root!r}); from reference._tuples import NamedTuple\n"
            "class A(NamedTuple):\n    a: int\n"
            "print(','.join(sorted(m for m in ('typing', 'collections', 'operator') if m in sys.modules)))")
    out = subprocess.run([sys.executable, "-I", "-S", "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
