"""What one asset says about its relations, computed once when the asset is indexed.

Placeholder contract: ``outgoing`` returns a JSON-serialisable value stored on the asset's
index entry. The relations package owns its content.
"""

from __future__ import annotations

from typing import Any


def outgoing(kind: str, tree_path: str, meta: dict[str, Any], body: str) -> dict[str, Any]:
    return {}
