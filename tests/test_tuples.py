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
