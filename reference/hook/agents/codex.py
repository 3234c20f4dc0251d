"""Codex CLI: Claude-like fields plus ``turn_id``; inside a subagent ``session_id`` is the root's and
``agent_id``/``agent_type`` name the child. The shell tool is reported as ``Bash`` and its
``tool_response`` is a plain string with no exit code, so its status is unknown."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..toolcall import UNKNOWN, ToolCall
from ._fields import claude_shaped


def parse(payload: Mapping[str, Any], event: str) -> ToolCall:
    return claude_shaped("codex", payload, event, plain_string=UNKNOWN)
