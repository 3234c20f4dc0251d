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

import collections

_SKIP = frozenset({"__annotations__", "__module__", "__qualname__", "__doc__", "__orig_bases__"})


class _Maker(type):
    def __new__(mcls, name, bases, namespace):  # type: ignore[no-untyped-def]
        if not bases:  # the NamedTuple stand-in itself
            return super().__new__(mcls, name, bases, namespace)
        fields = list(namespace.get("__annotations__", {}))
        defaults = [namespace[f] for f in fields if f in namespace]
        base = collections.namedtuple(name, fields, defaults=defaults, module=namespace.get("__module__"))
        body = {k: v for k, v in namespace.items() if k not in _SKIP and k not in fields}
        body["__slots__"] = ()
        body["__doc__"] = namespace.get("__doc__")
        cls = type(name, (base,), body)
        cls.__module__ = namespace.get("__module__", cls.__module__)
        cls.__qualname__ = namespace.get("__qualname__", name)
        return cls


class NamedTuple(metaclass=_Maker):
    pass
