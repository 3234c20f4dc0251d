"""Codex CLI: Claude-like fields plus ``turn_id``; inside a subagent ``session_id`` is the root's and
``agent_id``/``agent_type`` name the child. The shell tool is reported as ``Bash`` and its
``tool_response`` is a plain string with no exit code, so its status is unknown."""

from __future__ import annotations

from ..toolcall import UNKNOWN, ToolCall
from ._fields import claude_shaped

TYPE_CHECKING = False  # typing is imported only by type checkers: it costs a fresh process ~4 ms
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any


def parse(payload: Mapping[str, Any], event: str) -> ToolCall:
    return claude_shaped("codex", payload, event, plain_string=UNKNOWN)
