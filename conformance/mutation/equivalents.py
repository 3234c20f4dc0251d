"""The committed list of equivalent mutants: changes no implementation could show.

``equivalents.toml`` next to this module holds one ``[[equivalent]]`` table per mutant, with its
stable ``id`` and a one-line ``why``. A listed mutant is left out of the score. The report names
entries that match no mutant any more (the code moved on) and entries the corpus kills (they were
not equivalent after all), so the list cannot rot silently. Where reading the code is not
evidence enough, an entry's reason names an oracle run with the mutant applied
(``tests/mutation/ledger_oracles.py``: the ledger's in-place raise against the whole write, its
readers against the unmutated parse).
"""

from __future__ import annotations

import tomllib
from pathlib import Path

DEFAULT = Path(__file__).with_name("equivalents.toml")


class EquivalentsError(ValueError):
    pass


def load(path: Path = DEFAULT) -> dict[str, str]:
    """``{mutant id: why}``; a missing file is an empty list."""
    if not path.is_file():
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise EquivalentsError(f"{path.name}: {exc}") from exc
    out: dict[str, str] = {}
    for i, entry in enumerate(data.get("equivalent", [])):
        ident, why = entry.get("id"), entry.get("why")
        if not isinstance(ident, str) or not isinstance(why, str) or not why.strip():
            raise EquivalentsError(f"{path.name}: entry {i + 1} needs an id and a why")
        if ident in out:
            raise EquivalentsError(f"{path.name}: {ident} is listed twice")
        out[ident] = why.strip()
    return out
