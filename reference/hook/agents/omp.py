"""OMP (oh-my-pi), through TeamAI's extension: Pi's events, plus ``agent_id``/``agent_type`` taken
from ``ctx.agent`` when its ``kind`` is ``sub``. The extension may also forward ``ctx.agent`` as
``agent``; a ``main`` agent has no actor fields. OMP's grep output has no adapter yet
(``categories.adapted``)."""

from __future__ import annotations

from ..toolcall import ToolCall
from . import _bridge
from ._fields import actor, mapping, string

TYPE_CHECKING = False  # typing is imported only by type checkers: it costs a fresh process ~4 ms
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any


def _actor(payload: Mapping[str, Any]) -> dict[str, str]:
    who = actor(payload)
    agent = mapping(payload.get("agent"))
    if not who and agent.get("kind") == "sub":
        if string(agent.get("id")):
            who["agent_id"] = agent["id"]
        if string(agent.get("name")):
            who["agent_type"] = agent["name"]
    return who


def parse(payload: Mapping[str, Any], event: str) -> ToolCall:
    return _bridge.parse("omp", payload, event, who=_actor(payload))
