"""GitHub Copilot, in two shapes.

- The CLI (``.github/hooks``): ``toolName``, ``toolArgs`` (a JSON string in file hooks, an object
  from the SDK), ``toolResult: {resultType: success|failure|denied, textResultForLlm}``, ``cwd``;
  a session field is not documented, so ``session_id``/``sessionId`` are read when present
  (``_fields.session_of``: the one order for every agent).
- VS Code agent hooks: ``hookEventName``, ``sessionId``, ``tool_name``, ``tool_input``,
  ``tool_response``, ``cwd``: Claude's shape with camelCase common fields.
"""

from __future__ import annotations

from ..toolcall import FAILURE, POST_TOOL_USE_FAILURE, SUCCESS, UNKNOWN, ToolCall
from ._fields import build, exit_status, json_object, mapping, session_of, string

TYPE_CHECKING = False  # typing is imported only by type checkers: it costs a fresh process ~4 ms
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

_RESULT = {"success": SUCCESS, "failure": FAILURE, "denied": FAILURE, "rejected": FAILURE}


def parse(payload: Mapping[str, Any], event: str) -> ToolCall:
    session = session_of(payload)
    hook_name = str(payload.get("hookEventName", payload.get("hook_event_name", ""))).lower()
    # The SDK's failure variant carries ``error`` instead of a result.
    if hook_name == "posttoolusefailure" or ("error" in payload and "toolResult" not in payload
                                             and "tool_response" not in payload):
        event = POST_TOOL_USE_FAILURE
    cwd = string(payload.get("cwd")) or string(payload.get("workingDirectory"))
    if "toolName" in payload or "toolArgs" in payload:
        result = mapping(payload.get("toolResult"))
        status = _RESULT.get(str(result.get("resultType", "")).lower(), UNKNOWN)
        return build("copilot", event, payload, session, payload.get("toolName"),
                     json_object(payload.get("toolArgs")), result.get("textResultForLlm"), status, cwd)
    response = payload.get("tool_response")
    status = exit_status(response) or SUCCESS  # Claude's protocol: PostToolUse follows a call that worked
    return build("copilot", event, payload, session, payload.get("tool_name"),
                 mapping(payload.get("tool_input")), response, status, cwd)
