"""The driver protocol's wire format: one JSON object per line, a schema per message.

See PROTOCOL.md for the contract in prose. This module only encodes, decodes and checks
messages; it knows nothing about scenarios.
"""

from __future__ import annotations

import json
from typing import Any

from ..corpus import schema

VERSION = 1
STEP_COMMANDS = ("recall", "hook", "pull", "stats", "review", "contribute")
SEEDABLE = ("votes", "upvoted", "log", "checkpoint")  # what a scenario's given: block may set up
HOLDABLE = ("votes-ledger", "recall-log", "search-index")  # what a hold step may keep busy
SPOILABLE = ("search-index",)  # what a spoil step may damage
SPOILS = ("garbage", "truncated", "other-version")  # how: not the file's format at all, cut short, another version
COMMANDS = ("start", "open", "seed", *STEP_COMMANDS, "hold", "release", "spoil", "observe", "close", "stop")


class ProtocolViolation(ValueError):
    """A message that is not what the protocol allows (garbage, wrong seq, wrong shape)."""


def encode(message: dict[str, Any]) -> bytes:
    """One UTF-8 line. A lone surrogate (a log line may carry one escaped: a file name that is not
    UTF-8) has no UTF-8 form, so it goes as the JSON escape it is, which decodes back to it."""
    text = json.dumps(message, ensure_ascii=False, separators=(",", ":")) + "\n"
    return text.encode("utf-8", "backslashreplace")


def decode(line: bytes) -> dict[str, Any]:
    try:
        message = json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise ProtocolViolation(f"not a JSON line: {line[:200]!r}") from exc
    except RecursionError as exc:  # a driver's answer nested past the parser's depth: broken, not fatal
        raise ProtocolViolation(f"a JSON line nested too deeply to read: {line[:200]!r}") from exc
    if not isinstance(message, dict):
        raise ProtocolViolation(f"not a JSON object: {line[:200]!r}")
    return message


def check(message: dict[str, Any], cmd: str, direction: str) -> None:
    """Raise :class:`ProtocolViolation` unless ``message`` fits the schema of ``cmd`` (request/response)."""
    if direction == "response" and message.get("ok") is False:
        name = "error.response"
    else:
        name = f"{cmd}.{direction}"
    error = schema.best_error(message, f"protocol/{name}.json")
    if error is not None:
        where = "/".join(str(p) for p in error.absolute_path) or "(top)"
        raise ProtocolViolation(f"{cmd} {direction} at {where}: {error.message}")
