"""Pi, through TeamAI's extension: the session is ``ctx.sessionManager.getSessionId()``, the status
comes from ``isError``; tools ``bash``, ``read`` (``path``), ``grep``, ``find``, ``ls``. Core Pi has no
subagents, so there is no actor."""

from __future__ import annotations

from ..toolcall import ToolCall
from . import _bridge

TYPE_CHECKING = False  # typing is imported only by type checkers: it costs a fresh process ~4 ms
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any


def parse(payload: Mapping[str, Any], event: str) -> ToolCall:
    return _bridge.parse("pi", payload, event)
