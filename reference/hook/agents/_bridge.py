"""The payload TeamAI's generated bridges send for hosts without settings-file hooks (OpenCode, Pi,
OMP): ``cwd``, ``session_id``, ``tool_name``, ``tool_input``, ``tool_response`` (the tool's output),
``tool_status`` (success/failure/unknown, as the bridge could tell), and ``session_link`` or
``agent_id``/``agent_type`` where the host gives them."""

from __future__ import annotations

from ..toolcall import FAILURE, SUCCESS, UNKNOWN, ToolCall
from ._fields import actor, build, mapping, session_of, string

TYPE_CHECKING = False  # typing is imported only by type checkers: it costs a fresh process ~4 ms
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

_STATUS = {SUCCESS: SUCCESS, FAILURE: FAILURE, UNKNOWN: UNKNOWN}


def link_of(value: object) -> tuple[str, str] | None:
    obj = mapping(value)
    child, parent = string(obj.get("child")), string(obj.get("parent"))
    if child and parent and child != parent:
        return child, parent
    return None


def parse(agent: str, payload: Mapping[str, Any], event: str, who: dict[str, str] | None = None,
          link: tuple[str, str] | None = None) -> ToolCall:
    status = _STATUS.get(str(payload.get("tool_status", "")).lower(), UNKNOWN)
    return build(agent, event, payload, session_of(payload), payload.get("tool_name"),
                 mapping(payload.get("tool_input")), payload.get("tool_response"), status,
                 string(payload.get("cwd")), who=actor(payload) if who is None else who,
                 link=link or link_of(payload.get("session_link")))
