"""Cursor: the session is ``conversation_id`` (newer builds also send an equal ``session_id``, which
is read first, as teamai's ``deriveSessionId`` reads every payload: ``_fields.session_of``);
events are camelCase; ``tool_output`` is a JSON *string* (a shell call's holds ``exitCode`` and
``stdout``); ``postToolUseFailure`` is a failed call. The Shell tool may name its own
``working_directory``; an empty ``cwd`` falls back to the single workspace root."""

from __future__ import annotations

from ..toolcall import POST_TOOL_USE_FAILURE, SUCCESS, ToolCall
from ._fields import build, exit_status, json_object, mapping, session_of, string

TYPE_CHECKING = False  # typing is imported only by type checkers: it costs a fresh process ~4 ms
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any


def parse(payload: Mapping[str, Any], event: str) -> ToolCall:
    if str(payload.get("hook_event_name", "")).lower() == "posttoolusefailure":
        event = POST_TOOL_USE_FAILURE
    raw = payload.get("tool_output")
    parsed = json_object(raw)
    response: object = parsed if parsed else raw
    status = exit_status(parsed) or SUCCESS
    cwd = string(payload.get("cwd"))
    roots = payload.get("workspace_roots")
    if cwd is None and isinstance(roots, list) and len(roots) == 1:
        cwd = string(roots[0])
    session = session_of(payload)
    return build("cursor", event, payload, session, payload.get("tool_name"),
                 mapping(payload.get("tool_input")), response, status, cwd)
