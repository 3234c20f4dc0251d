"""``NamedTuple`` for the hot paths, without importing ``typing``.

A hook is a fresh process on every tool call of every agent, and ``import typing`` costs it about
4 ms, a tenth of its whole budget. Modules on the hook and recall paths write their records in the
usual class syntax against this stand-in; type checkers see ``typing.NamedTuple`` instead::

    TYPE_CHECKING = False
    if TYPE_CHECKING:
        from typing import NamedTuple
    else:
        from ._tuples import NamedTuple
"""

from __future__ import annotations

from _operator import itemgetter  # the C module: ``operator`` and ``collections`` cost a fresh process ~2 ms

_SKIP = frozenset({"__annotations__", "__module__", "__qualname__", "__doc__", "__orig_bases__"})


def _base(name: str, fields: tuple[str, ...], defaults: tuple[object, ...]) -> type:
    """A tuple class with ``collections.namedtuple``'s behaviour as the reference uses it: named
    fields with defaults, ``_fields``, ``_field_defaults``, ``_make``, ``_replace``, ``_asdict``,
    its ``repr`` and pickling. Its ``__new__`` is compiled from the field names, as
    ``namedtuple`` compiles its own, so building one costs what a plain tuple costs."""
    for field in fields:
        if not field.isidentifier() or field.startswith("_"):
            raise ValueError(f"{name}: {field!r} cannot be a field name")
    args = ", ".join(fields)
    new = eval(f"lambda _cls, {args}: _tuple_new(_cls, ({args}{',' if len(fields) == 1 else ''}))",  # noqa: S307
               {"_tuple_new": tuple.__new__})
    new.__defaults__ = defaults or None
    new.__name__, new.__qualname__ = "__new__", f"{name}.__new__"

    def _make(cls: type, iterable: object) -> tuple[object, ...]:
        made: tuple[object, ...] = tuple.__new__(cls, iterable)  # type: ignore[arg-type]
        if len(made) != len(fields):
            raise TypeError(f"Expected {len(fields)} arguments, got {len(made)}")
        return made

    def _replace(self: tuple[object, ...], **changes: object) -> tuple[object, ...]:
        made = _make(type(self), [changes.pop(f, v) for f, v in zip(fields, self, strict=True)])
        if changes:
            raise ValueError(f"Got unexpected field names: {list(changes)!r}")
        return made

    def _asdict(self: tuple[object, ...]) -> dict[str, object]:
        return dict(zip(fields, self, strict=True))

    def __repr__(self: tuple[object, ...]) -> str:
        return f"{type(self).__name__}({', '.join(f'{f}={v!r}' for f, v in zip(fields, self, strict=True))})"

    def __getnewargs__(self: tuple[object, ...]) -> tuple[object, ...]:
        return tuple(self)

    body: dict[str, object] = {
        "__slots__": (), "__new__": new, "_fields": fields, "__match_args__": fields,
        "_field_defaults": dict(zip(fields[len(fields) - len(defaults):], defaults, strict=True)),
        "_make": classmethod(_make), "_replace": _replace, "_asdict": _asdict, "__repr__": __repr__,
        "__getnewargs__": __getnewargs__,
    }
    for at, field in enumerate(fields):
        body[field] = property(itemgetter(at), doc=f"Alias for field number {at}")
    return type(name, (tuple,), body)


class _Maker(type):
    def __new__(mcls, name, bases, namespace):  # type: ignore[no-untyped-def]
        if not bases:  # the NamedTuple stand-in itself
            return super().__new__(mcls, name, bases, namespace)
        fields = tuple(namespace.get("__annotations__", {}))
        defaults = tuple(namespace[f] for f in fields if f in namespace)
        base = _base(name, fields, defaults)
        body = {k: v for k, v in namespace.items() if k not in _SKIP and k not in fields}
        body["__slots__"] = ()
        body["__doc__"] = namespace.get("__doc__")
        cls = type(name, (base,), body)
        cls.__module__ = base.__module__ = namespace.get("__module__", cls.__module__)
        cls.__qualname__ = namespace.get("__qualname__", name)
        return cls


class NamedTuple(metaclass=_Maker):
    pass
