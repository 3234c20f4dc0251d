"""Claude Code: ``session_id``; ``agent_id``/``agent_type`` inside a subagent (whose ``session_id`` is
the parent's); Bash ``{stdout, stderr, interrupted}``, Grep ``{mode, filenames, content}``.
PostToolUse fires only on success; PostToolUseFailure is the failure."""

from __future__ import annotations

from ..toolcall import ToolCall
from ._fields import claude_shaped

TYPE_CHECKING = False  # typing is imported only by type checkers: it costs a fresh process ~4 ms
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any


def parse(payload: Mapping[str, Any], event: str) -> ToolCall:
    return claude_shaped("claude", payload, event)
