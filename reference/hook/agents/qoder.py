"""Qoder CLI: Claude's shape, with `agent_id`/`agent_type` "when available".
PostToolUse means the call worked, as in Claude's protocol, which this host copies."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..toolcall import ToolCall
from ._fields import claude_shaped


def parse(payload: Mapping[str, Any], event: str) -> ToolCall:
    return claude_shaped("qoder", payload, event)
