"""The one shape every agent's payload is turned into, so the rules never look at a payload.

An agent module fills what its payload says and leaves the rest empty; a rule that needs a field
the agent does not send simply does not apply. Status is one of ``success``, ``failure`` or
``unknown`` (the payload does not say whether the tool worked, as with Codex's shell output).
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing is imported only by type checkers: it costs a fresh process ~4 ms
if TYPE_CHECKING:
    from typing import Any, NamedTuple
else:
    from .._tuples import NamedTuple

SUCCESS, FAILURE, UNKNOWN = "success", "failure", "unknown"

# Normalized event names. Everything an agent sends is mapped onto these by dispatch.
POST_TOOL_USE = "post-tool-use"
POST_TOOL_USE_FAILURE = "post-tool-use-failure"
STOP = "stop"
SUBAGENT_STOP = "subagent-stop"
SESSION_START = "session-start"


class ToolCall(NamedTuple):
    agent: str
    event: str
    session: str | None
    actor: dict[str, str]  # agent_id and/or agent_type when the payload names them
    tool: str | None  # the agent's own tool name
    category: str | None  # read / shell / search / list, or None
    paths: tuple[str, ...] = ()  # input paths (the file read, the path searched)
    command: str | None = None  # the command line of a shell call
    output: str = ""  # the text the tool showed the model (stdout for a shell call)
    filenames: tuple[str, ...] = ()  # structured file names of a search result (never evidence)
    count_mode: bool = False  # the search only counted matches
    status: str = UNKNOWN
    cwd: str | None = None
    search_root: str | None = None  # the folder the tool ran in, when it says so and differs from cwd
    link: tuple[str, str] | None = None  # (child session, parent session)

    @property
    def base(self) -> str | None:
        """The folder relative paths of this call are resolved against."""
        return self.search_root or self.cwd

    def describe(self) -> dict[str, Any]:
        """A plain dict for printing; command and output are summarized, never copied whole."""
        out = self._asdict()
        out["output"] = f"{len(self.output)} characters" if self.output else ""
        out["base"] = self.base
        return out
