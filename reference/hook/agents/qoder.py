"""Qoder CLI: Claude's shape, with `agent_id`/`agent_type` "when available".
PostToolUse means the call worked, as in Claude's protocol, which this host copies."""

from __future__ import annotations

from ..toolcall import ToolCall
from ._fields import claude_shaped

TYPE_CHECKING = False  # typing is imported only by type checkers: it costs a fresh process ~4 ms
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any


def parse(payload: Mapping[str, Any], event: str) -> ToolCall:
    return claude_shaped("qoder", payload, event)
