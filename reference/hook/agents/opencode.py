"""OpenCode, through TeamAI's plugin. Tool ids are lower case (``bash``, ``read``, ``grep``, ``glob``,
``task``); only bash reports an exit code, which the plugin turns into ``tool_status``. A ``task``
call starts a child session: the plugin sends ``session_link``; when it forwards the raw output
metadata instead, ``metadata.sessionId`` is the child and ``metadata.parentSessionId`` (else the
calling session) the parent."""

from __future__ import annotations

from ..toolcall import ToolCall
from . import _bridge
from ._fields import mapping, session_of, string

TYPE_CHECKING = False  # typing is imported only by type checkers: it costs a fresh process ~4 ms
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any


def _task_link(payload: Mapping[str, Any]) -> tuple[str, str] | None:
    if str(payload.get("tool_name", "")).lower() != "task":
        return None
    meta = mapping(payload.get("metadata")) or mapping(mapping(payload.get("tool_response")).get("metadata"))
    child = string(meta.get("sessionId"))
    parent = string(meta.get("parentSessionId")) or session_of(payload)
    return (child, parent) if child and parent and child != parent else None


def parse(payload: Mapping[str, Any], event: str) -> ToolCall:
    link = _bridge.link_of(payload.get("session_link")) or _task_link(payload)
    return _bridge.parse("opencode", payload, event, link=link)
