"""SQLite for the recall path, without ``import sqlite3``'s date adapters.

``import sqlite3`` runs ``sqlite3.dbapi2``, which registers adapters and converters for
``datetime`` values and so imports ``datetime``: about 2 ms of every recall, a fifth of the
interpreter's own start, for adapters the reference never uses (the index stores no dates).
Every name the package exports that the reference uses (``connect``, ``Connection``, the
exception classes) is the C module's own object, so ``_sqlite3`` is the same API; where an
interpreter has no such module, the package is used::

    from ._sqlite import sqlite3
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3
else:
    try:
        import _sqlite3 as sqlite3
    except ImportError:  # another interpreter: the package it ships
        import sqlite3

__all__ = ["sqlite3"]
