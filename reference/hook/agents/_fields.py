"""Type-safe reads of payload fields, shared by the agent modules.

Payload shapes differ by agent but their pieces repeat: a Claude-like ``tool_response`` object with
``stdout``, a plain string, a list of text parts, an exit code under one of several names. These
readers take each piece once, and treat a value of the wrong type as absent.
"""

from __future__ import annotations

from ...state import jsontext
from .. import categories
from ..toolcall import FAILURE, POST_TOOL_USE_FAILURE, SUCCESS, UNKNOWN, ToolCall

TYPE_CHECKING = False  # typing is imported only by type checkers: it costs a fresh process ~4 ms
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

# Input keys that name the file a tool read or the path it searched, in the order agents use them.
PATH_KEYS = ("file_path", "filePath", "path", "target_file", "notebook_path", "absolute_path", "file")
FOLDER_KEYS = ("working_directory", "workdir", "cwd")
TEXT_KEYS = ("stdout", "output", "content", "text", "textResultForLlm", "result")
EXIT_KEYS = ("exit_code", "exitCode", "returncode", "exit")


def string(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


# Where a payload names its session, in the order teamai's ``deriveSessionId`` reads them (#884 adds
# Cursor's ``conversation_id`` after ``sessionId``). One order for every agent: a payload that
# carries two of them that disagree means the same session whichever agent sent it.
SESSION_KEYS = ("session_id", "sessionId", "conversation_id")


def session_of(payload: Mapping[str, Any]) -> str | None:
    for key in SESSION_KEYS:
        value = string(payload.get(key))
        if value:
            return value
    return None


_PLAIN = (str, bytes, int, float, list, tuple, type(None))


def is_mapping(value: object) -> bool:
    """``isinstance(value, collections.abc.Mapping)``; payloads hold dicts, so the ABC (a cost to a
    fresh process) is imported only for a value of some other type."""
    if isinstance(value, dict):
        return True
    if isinstance(value, _PLAIN):
        return False
    from collections.abc import Mapping

    return isinstance(value, Mapping)


def mapping(value: object) -> Mapping[str, Any]:
    return value if is_mapping(value) else {}  # type: ignore[return-value]


def json_object(value: object) -> Mapping[str, Any]:
    """An object given either as an object or as a JSON-encoded string (Copilot, Cursor)."""
    if isinstance(value, str):
        try:
            value = jsontext.loads(value)
        except (ValueError, RecursionError):
            return {}
    return mapping(value)


def text(value: object, depth: int = 0) -> str:
    """The text a tool result showed: a string as is; stdout/output/content/... of an object; the
    text parts of a list."""
    if depth > 4:
        return ""
    if isinstance(value, str):
        return value
    if is_mapping(value):
        for key in TEXT_KEYS:
            if key in value:  # type: ignore[operator]
                found = text(value[key], depth + 1)  # type: ignore[index]
                if found:
                    return found
        return ""
    if isinstance(value, list):
        parts = []
        for item in value:
            if is_mapping(item) and item.get("type", "text") == "text":  # type: ignore[attr-defined]
                parts.append(text(item.get("text"), depth + 1))
            elif isinstance(item, str):
                parts.append(item)
        return "\n".join(p for p in parts if p)
    return ""


def exit_status(value: object) -> str | None:
    """success/failure from an exit code in a result object, None when there is none."""
    obj = mapping(value)
    for key in EXIT_KEYS:
        code = obj.get(key)
        if isinstance(code, int) and not isinstance(code, bool):
            return SUCCESS if code == 0 else FAILURE
    return None


def input_paths(tool_input: Mapping[str, Any]) -> tuple[str, ...]:
    for key in PATH_KEYS:
        value = tool_input.get(key)
        if isinstance(value, str) and value.strip():
            return (value,)
    many = tool_input.get("paths") or tool_input.get("files")
    if isinstance(many, list):
        return tuple(v for v in many if isinstance(v, str) and v.strip())
    return ()


def command(tool_input: Mapping[str, Any]) -> str | None:
    """The command line; an argv list is joined, and ``[sh, -c, script]`` gives the script."""
    value = tool_input.get("command", tool_input.get("cmd"))
    if isinstance(value, str):
        return value
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        if len(value) >= 3 and value[-2] in ("-c", "-lc", "-Command", "/c"):
            return str(value[-1])
        return " ".join(_quote(v) for v in value)
    return None


def _quote(word: str) -> str:
    """One argv word as a shell word that reads back as itself: exec never treats ``A=b`` as an
    assignment nor expands anything, so only words that no shell could read otherwise stay bare."""
    if word and all(c.isalnum() or c in "@%+:,./-_" for c in word):
        return word
    return "'" + word.replace("'", "'\"'\"'") + "'"


def actor(payload: Mapping[str, Any]) -> dict[str, str]:
    out: dict[str, str] = {}
    for key in ("agent_id", "agent_type"):
        value = string(payload.get(key))
        if value:
            out[key] = value
    return out


def count_mode(tool_input: Mapping[str, Any], response: Mapping[str, Any]) -> bool:
    return (tool_input.get("output_mode") == "count" or response.get("mode") == "count"
            or tool_input.get("-c") is True or tool_input.get("count") is True)


def filenames(response: Mapping[str, Any]) -> tuple[str, ...]:
    names = response.get("filenames")
    if isinstance(names, list):
        return tuple(n for n in names if isinstance(n, str))
    return ()


def search_root(tool_input: Mapping[str, Any], cwd: str | None) -> str | None:
    for key in FOLDER_KEYS:
        folder = string(tool_input.get(key))
        if folder and folder != cwd:
            return folder
    return None


def build(agent: str, event: str, payload: Mapping[str, Any], session: str | None, tool: object,
          tool_input: Mapping[str, Any], response: object, status: str, cwd: str | None,
          who: dict[str, str] | None = None, link: tuple[str, str] | None = None) -> ToolCall:
    """The ToolCall for a payload once its agent module has found each piece."""
    name = string(tool)
    obj = mapping(response)
    if event == POST_TOOL_USE_FAILURE:
        status = FAILURE
    return ToolCall(
        agent=agent, event=event, session=session, actor=actor(payload) if who is None else who,
        tool=name, category=categories.category(name), paths=input_paths(tool_input),
        command=command(tool_input), output=text(response), filenames=filenames(obj),
        count_mode=count_mode(tool_input, obj), status=status, cwd=cwd,
        search_root=search_root(tool_input, cwd), link=link,
    )


def claude_shaped(agent: str, payload: Mapping[str, Any], event: str, plain_string: str = SUCCESS) -> ToolCall:
    """Claude's PostToolUse shape, shared by the hosts that copy its protocol. There PostToolUse
    fires only when the tool worked (failures arrive as PostToolUseFailure), so the call succeeded
    unless the response says otherwise. Codex passes ``plain_string=UNKNOWN``: it fires PostToolUse
    for a failed command too, with only the output string."""
    response = payload.get("tool_response")
    if isinstance(response, str):
        status = plain_string
    elif mapping(response).get("interrupted") is True:
        status = UNKNOWN
    else:
        status = exit_status(response) or SUCCESS
    if str(payload.get("hook_event_name", "")).lower() == "posttoolusefailure":
        event = POST_TOOL_USE_FAILURE
    return build(agent, event, payload, session_of(payload), payload.get("tool_name"),
                 mapping(payload.get("tool_input")), response, status, string(payload.get("cwd")))
