"""Which agent session a recall runs in, as far as its environment can tell.

The variables are those the agents export into their shells (see the payload research notes).
A value is *unambiguous* only when exactly one distinct session is named: nesting (an agent
running another agent) leaves several variables set, and then only a hook claim can settle it.
"""

from __future__ import annotations

from collections.abc import Mapping

TYPE_CHECKING = False  # typing is imported only by type checkers: it costs a fresh process ~4 ms
if TYPE_CHECKING:
    from typing import NamedTuple
else:
    from .._tuples import NamedTuple

# (variable, agent) in the order teamai checks them.
SESSION_ENV: tuple[tuple[str, str], ...] = (
    ("CLAUDE_CODE_SESSION_ID", "claude"),
    ("CODEX_SESSION_ID", "codex"),
    ("CODEBUDDY_SESSION_ID", "codebuddy"),
    ("COPILOT_AGENT_SESSION_ID", "copilot"),
    ("CURSOR_CONVERSATION_ID", "cursor"),
    ("CLAUDE_SESSION_ID", "codebuddy"),
    ("TEAMAI_AGENT_SESSION_ID", "opencode"),
    ("PI_SESSION_ID", "pi"),
)


class EnvSession(NamedTuple):
    session: str | None
    agent: str | None
    via: str  # "env" or "none"
    unambiguous: bool


# Codex exports the thread a shell runs in: a thread-spawned subagent's own id, or the session's
# id for the main agent (CODEX_SESSION_ID, its hooks' session_id, is the root's in both).
CODEX_THREAD = "CODEX_THREAD_ID"


def actor(env: Mapping[str, str], ses: EnvSession) -> dict[str, str]:
    """The actor recall can tell from its environment: a Codex subagent's thread id when it is
    not the session's own and the session is settled (a nested ``codex exec`` inherits its
    parent's thread, and names a second session); else ``{}``, left to the claim."""
    thread = env.get(CODEX_THREAD, "").strip()
    if ses.agent == "codex" and ses.unambiguous and thread and thread != ses.session:
        return {"agent_id": thread}
    return {}


def from_env(env: Mapping[str, str]) -> EnvSession:
    named = [(env[var].strip(), agent) for var, agent in SESSION_ENV if env.get(var, "").strip()]
    if not named:
        return EnvSession(None, None, "none", False)
    distinct = {value for value, _ in named}
    session, agent = named[0]
    return EnvSession(session, agent, "env", len(distinct) == 1)
