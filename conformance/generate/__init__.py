"""Scenarios generated from the spec's tables (``teamai-conformance generate``).

Where the spec gives a rule as a table, every cell of it is a scenario. The tables are data
(``conformance/tables/*.yaml``, written from the spec in the project's words); one module per
table turns cells into scenarios:

==================  ======================================  =====================================
module              table                                   files
==================  ======================================  =====================================
``adoption``        shell verbs x agents x statuses (#884)  ``attribution/generated/gen-verb-*``
``search_modes``    the search rule's modes x agents        ``attribution/generated/gen-search-*``
``vocabulary``      relation x declarer x target (#1552)    ``relations/generated/gen-vocab-*``
``malformed``       the malformed-input matrix (#1552)      ``review|contribute/generated/gen-malformed-*``
==================  ======================================  =====================================

Rules the command keeps (``sync.py``):

- An id is made from its cell (``gen-verb-cat-codex-unknown``), never from a position, so adding
  or removing a cell never renames another case; the file is ``scenarios/<area>/generated/<id>.yaml``.
- Every file is an ordinary scenario (``provenance: generated``, runnable alone with
  ``run --only <id>``) whose header names the table row it comes from.
- A file whose cell is gone is kept until the command runs with ``--prune``; ``--check`` fails while
  any file differs from what the tables give, is missing, or has no cell.
"""

from __future__ import annotations

from pathlib import Path

from . import adoption, malformed, search_modes, vocabulary
from .model import FOLDER, PREFIX, Generated
from .tables import TableError, Tables

GENERATORS = (adoption, search_modes, vocabulary, malformed)

__all__ = ["FOLDER", "PREFIX", "Generated", "TableError", "produce"]


def produce(root: Path) -> list[Generated]:
    """Every scenario the tables under ``root`` give, in table order; raises TableError."""
    tables = Tables(root)
    out: list[Generated] = []
    seen: dict[str, str] = {}
    for module in GENERATORS:
        for case in module.cells(tables):
            if case.id in seen:
                raise TableError(f"two cells give the id {case.id}: {seen[case.id]} and {case.row}")
            seen[case.id] = case.row
            out.append(case)
    return out
