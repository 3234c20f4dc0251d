"""``teamai-ref hook-dispatch <event> --tool <agent>``: the entry every agent hook calls.

It runs on every tool call of every agent, so it is short and it never breaks the agent: whatever
arrives on stdin (not JSON, the wrong types, missing fields, too large, no team configured), it
exits 0, prints nothing, and writes to the recall log only whole lines built by ``classify``. A
problem is noted in the scope's debug log as agent, event and reason, never with payload content.

All lines of one call go to the active scope's log in one append under the log's lock, so a reader
never sees half a call. At Stop and SubagentStop the reducer runs (its failures are only noted).
Imports stay small on purpose: no YAML, no SQLite, no argparse, no index.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence

from .. import clock, config
from ..storage import append_bytes, ensure_dir, lock_wait
from .agents import AGENTS
from .toolcall import POST_TOOL_USE, POST_TOOL_USE_FAILURE, SESSION_START, STOP, SUBAGENT_STOP, ToolCall

TYPE_CHECKING = False  # typing is imported only by type checkers: it costs a fresh process ~4 ms
if TYPE_CHECKING:
    from typing import IO, Any

MAX_PAYLOAD = 8 * 1024 * 1024  # bytes of stdin parsed; a larger payload is noted and ignored
MAX_DEBUG_LOG = 1024 * 1024  # the debug log stops growing here
MAX_ID = 512  # a session or agent id longer than this is not an id

_EVENTS = {
    "posttooluse": POST_TOOL_USE,
    "posttoolusefailure": POST_TOOL_USE_FAILURE,
    "stop": STOP,
    "subagentstop": SUBAGENT_STOP,
    "sessionstart": SESSION_START,
}


def normalize_event(name: str) -> str | None:
    """``post-tool-use``, ``PostToolUse``, ``postToolUse`` ... as one name; None for events we ignore."""
    return _EVENTS.get(name.lower().replace("-", "").replace("_", ""))


def parse_argv(argv: Sequence[str]) -> tuple[str, str]:
    """(event, agent) from ``<event> --tool <agent> [--matcher X]``; unknown words are ignored."""
    event, agent = "", ""
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg in ("--tool", "--matcher") and i + 1 < len(argv):
            if arg == "--tool":
                agent = argv[i + 1]
            i += 2
            continue
        if arg.startswith("--tool="):
            agent = arg[len("--tool="):]
        elif not arg.startswith("-") and not event:
            event = arg
        i += 1
    return event, agent.strip().lower()


def _safe(word: str) -> str:
    return "".join(c if c.isprintable() and not c.isspace() else "?" for c in word[:64]) or "-"


class _Debug:
    """The debug log: one line per problem, capped in size, never raising."""

    def __init__(self, env: Mapping[str, str], agent: str, event: str) -> None:
        self.env = env
        self.agent = _safe(agent)
        self.event = _safe(event)
        self.path = os.path.join(config.home_dir(env), "hook-debug.log")

    def __call__(self, reason: str) -> None:
        try:
            try:
                ts = clock.now_stamp(self.env)
            except clock.ClockError:
                ts = clock.now_stamp({})
            line = f"{ts} agent={self.agent} event={self.event} {reason}".replace("\n", " ") + "\n"
            ensure_dir(os.path.dirname(self.path))
            try:
                if os.path.getsize(self.path) >= MAX_DEBUG_LOG:
                    return
            except OSError:
                pass
            append_bytes(self.path, line.encode("utf-8", "replace"))
        except Exception:  # noqa: BLE001 - the debug log is best effort
            pass


def _read(stdin: IO[bytes] | IO[str]) -> bytes | None:
    """Up to MAX_PAYLOAD bytes of stdin (the rest is drained and dropped); None when larger."""
    stream: Any = getattr(stdin, "buffer", stdin)
    data = stream.read(MAX_PAYLOAD + 1)
    raw = data.encode("utf-8", "surrogateescape") if isinstance(data, str) else bytes(data or b"")
    if len(raw) <= MAX_PAYLOAD:
        return raw
    while stream.read(1 << 20):
        pass
    return None


def _parse_payload(raw: bytes, debug: Callable[[str], None]) -> dict[str, Any] | None:
    import json

    if not raw.strip():
        debug("empty payload")
        return None
    try:
        payload = json.loads(raw)
    except (ValueError, RecursionError):
        debug("payload is not JSON")
        return None
    if not isinstance(payload, dict):
        debug(f"payload is a JSON {type(payload).__name__}, not an object")
        return None
    return payload


def to_toolcall(agent: str, payload: Mapping[str, Any], event: str) -> ToolCall:
    module = __import__(f"reference.hook.agents.{agent}", fromlist=["parse"])
    call: ToolCall = module.parse(payload, event)
    return call


def _plausible_ids(call: ToolCall) -> bool:
    values = [call.session or "", *call.actor.values(), *(call.link or ())]
    return all(len(v) <= MAX_ID for v in values)


def _stopping_session(agent: str, raw: bytes | None, event: str) -> str | None:
    """The session a Stop payload names, if it can be read; None reduces every session."""
    if raw is None or agent not in AGENTS:
        return None
    try:
        import json

        payload = json.loads(raw)
        return to_toolcall(agent, payload, event).session if isinstance(payload, dict) else None
    except Exception:  # noqa: BLE001 - a payload we cannot read just means a wider reduce
        return None


def _reduce(cfg: config.Config, debug: Callable[[str], None], session: str | None) -> None:
    try:
        from .. import reducer
    except ImportError:
        debug("the reducer is not available")
        return
    try:
        reducer.reduce(cfg, lambda message: debug(f"reducer: {message}"), session)
    except Exception as exc:  # noqa: BLE001 - a Stop hook must not fail the agent
        debug(f"reducer failed: {type(exc).__name__}")


def _dispatch(agent: str, event_name: str, env: Mapping[str, str], stdin: IO[bytes] | IO[str],
              debug: _Debug) -> None:
    raw = _read(stdin)
    if config.recording_disabled(env):
        return
    event = normalize_event(event_name)
    if event is None or event == SESSION_START:
        return
    try:
        cfg = config.load(env)
    except config.ConfigError:
        debug("no team configured")
        return
    debug.path = cfg.active.debug_log_path
    if event in (STOP, SUBAGENT_STOP):
        _reduce(cfg, debug, _stopping_session(agent, raw, event))
        return
    if agent not in AGENTS:
        debug("unknown agent")
        return
    if raw is None:
        debug(f"payload larger than {MAX_PAYLOAD} bytes: ignored")
        return
    payload = _parse_payload(raw, debug)
    if payload is None:
        return
    from ..runlog import append
    from . import classify

    call = to_toolcall(agent, payload, event)
    if not _plausible_ids(call):
        debug("an id in the payload is implausibly long: ignored")
        return
    ts = clock.now_stamp(env)
    outcome = classify.classify(call, cfg.knowledge_roots(), ts, env.get("HOME") or env.get("USERPROFILE"))
    if not outcome.records:
        return
    scope = cfg.active
    try:  # every line is encoded before the lock is taken, so a bad one writes nothing
        append(scope.log_path, scope.log_lock, outcome.records, lock_wait(env))
    except UnicodeError:
        debug("the payload holds text that is not valid Unicode: ignored")


def main(argv: list[str], env: Mapping[str, str], stdin: IO[bytes] | IO[str], stderr: IO[str]) -> int:
    """Always 0: nothing a payload can do makes the agent's tool call fail."""
    try:
        event_name, agent = parse_argv(argv)
        debug = _Debug(env, agent, event_name)
    except Exception:  # noqa: BLE001
        return 0
    try:
        _dispatch(agent, event_name, env, stdin, debug)
    except Exception as exc:  # noqa: BLE001 - the one place every failure ends
        debug(_reason(exc))
    return 0


def _reason(exc: Exception) -> str:
    from ..storage import Busy

    if isinstance(exc, Busy):
        return "the recall log stayed locked: the call was not recorded"
    if isinstance(exc, clock.ClockError):
        return "TEAMAI_NOW is not an ISO 8601 instant"
    return f"unexpected {type(exc).__name__}: the call was not recorded"
