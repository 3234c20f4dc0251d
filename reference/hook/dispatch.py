"""``teamai-ref hook-dispatch <event> --tool <agent>``: the entry every agent hook calls.

It runs on every tool call of every agent, so it is short and it never breaks the agent: whatever
arrives on stdin (not JSON, the wrong types, missing fields, too large, no team configured), it
exits 0, prints nothing, and writes to the recall log only whole lines built by ``classify``. A
problem is noted in the debug log (``hook-debug.log`` in the active scope's state folder, or in the
state home when no team is configured) as agent, event and reason, never with payload content.

All lines of one call go to the active scope's log in one append under the log's lock, so a reader
never sees half a call. At Stop and SubagentStop the reducer runs (its failures are only noted).
Imports stay small on purpose: no YAML, no SQLite, no argparse, no index.

``--payload-file FILE`` is for people: it reads a saved payload (raw, or the corpus form
``{provenance, agent, event, payload}``, :func:`unwrap_corpus`, shared with ``replay``) instead of
stdin; the file's agent and event apply unless given, and any problem is said on stderr too.

Events are taken in every agent's spelling (``post-tool-use``, ``PostToolUse``, ``postToolUse``,
``...Failure``, ``stop``, ``subagent-stop``, ``session-start``). ``TEAMAI_RECALL_DISABLED`` turns
recording off. Dropped calls noted in the debug log (instant, agent, event, reason; the file stops
growing at 1 MiB): an unknown event or agent, no team, a bad or over-large payload (8 MiB of stdin),
a corpus file on stdin, a failing reducer. Known events that record nothing by design are not noted.
"""

from __future__ import annotations

import os

from .. import bounded
from ..state import clock, jsontext
from ..state.storage import append_bytes, lock_wait
from ..team import config
from .agents import AGENTS
from .toolcall import POST_TOOL_USE, POST_TOOL_USE_FAILURE, SESSION_START, STOP, SUBAGENT_STOP, ToolCall

TYPE_CHECKING = False  # typing is imported only by type checkers: it costs a fresh process ~4 ms
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence
    from typing import IO, Any

MAX_PAYLOAD = 8 * 1024 * 1024  # bytes of stdin parsed; a larger payload is noted and ignored
# How much more of a payload too large is read and dropped, so that an agent writing it does not
# fail on a closed pipe; past this the input never ends (``/dev/zero`` as the payload) and the
# hook stops reading rather than hold the agent's tool call for ever.
MAX_DRAIN = 256 * 1024 * 1024
MAX_DEBUG_LOG = 1024 * 1024  # the debug log stops growing here
MAX_ID = 512  # a session or agent id longer than this is not an id

_EVENTS = {
    "posttooluse": POST_TOOL_USE,
    "posttoolusefailure": POST_TOOL_USE_FAILURE,
    "stop": STOP,
    "subagentstop": SUBAGENT_STOP,
    "sessionstart": SESSION_START,
}


EVENTS = (POST_TOOL_USE, POST_TOOL_USE_FAILURE, STOP, SUBAGENT_STOP, SESSION_START)


def normalize_event(name: str) -> str | None:
    """``post-tool-use``, ``PostToolUse``, ``postToolUse`` ... as one name; None for events we ignore."""
    return _EVENTS.get(name.lower().replace("-", "").replace("_", ""))


USAGE = """usage: teamai-ref hook-dispatch EVENT --tool AGENT [--team DIR] [--user-team DIR] [--payload-file FILE]

The hook every agent calls: reads one payload (JSON) on stdin and records claims, evidence and
links in the active scope's recall log; at stop and subagent-stop it credits upvotes. It always
exits 0 and prints nothing: problems go to hook-debug.log in the scope's state folder (agent,
event and reason; never payload text).

  EVENT                post-tool-use, post-tool-use-failure, stop, subagent-stop or session-start
                       (also as agents spell them: PostToolUse, postToolUse, ...)
  --tool AGENT         AGENTS
  --team DIR           the workspace team tree (default: $TEAMAI_TEAM)
  --user-team DIR      the user-scope team tree (default: $TEAMAI_USER_TEAM)
  --payload-file FILE  read the payload from FILE instead of stdin: a raw payload or a file of the
                       corpus (payloads/<agent>/*.json); its agent and event are used when not given
  --matcher X          accepted and ignored (some hook settings pass it)

teamai-ref hook-command prints the fastest line for an agent's settings; teamai-ref doctor says
what a hook line would do here.
"""


class Args:
    """The hook's command line, read without argparse (a hook is a fresh process on every call)."""

    __slots__ = ("event", "agent", "team", "user_team", "payload_file", "help")

    def __init__(self) -> None:
        self.event = ""
        self.agent = ""
        self.team: str | None = None
        self.user_team: str | None = None
        self.payload_file: str | None = None
        self.help = False


_VALUED = {"--tool": "agent", "--team": "team", "--user-team": "user_team", "--payload-file": "payload_file",
           "--matcher": ""}


def parse_args(argv: Sequence[str]) -> Args:
    """``<event> --tool <agent> [--team DIR] [--user-team DIR] [--payload-file FILE] [--matcher X]``;
    ``--flag=value`` too; unknown words are ignored."""
    args = Args()
    i = 0
    while i < len(argv):
        arg = argv[i]
        name, eq, value = arg.partition("=")
        if name in _VALUED and (eq or i + 1 < len(argv)):
            if not eq:
                value = argv[i + 1]
                i += 1
            if _VALUED[name]:
                setattr(args, _VALUED[name], value)
        elif arg in ("--help", "-h"):
            args.help = True
        elif not arg.startswith("-") and not args.event:
            args.event = arg
        i += 1
    args.agent = args.agent.strip().lower()
    return args


def _safe(word: str) -> str:
    return "".join(c if c.isprintable() and not c.isspace() else "?" for c in word[:64]) or "-"


class _Debug:
    """The debug log: one line per problem, capped in size, never raising."""

    def __init__(self, env: Mapping[str, str], agent: str, event: str) -> None:
        self.env = env
        self.agent = _safe(agent)
        self.event = _safe(event)
        self.path: str | None = None  # the active scope's, once known; else the state home's
        self.echo: IO[str] | None = None

    def __call__(self, reason: str) -> None:
        if self.echo is not None:
            try:
                self.echo.write(f"teamai-ref hook-dispatch: {' '.join(reason.split())}\n")
            except Exception:  # noqa: BLE001 - best effort
                pass
        try:
            try:
                ts = clock.now_stamp(self.env)
            except clock.ClockError:
                ts = clock.now_stamp({})
            line = f"{ts} agent={self.agent} event={self.event} {reason}".replace("\n", " ") + "\n"
            path = self.path or os.path.join(config.home_dir(self.env), "hook-debug.log")
            try:
                if os.path.getsize(path) >= MAX_DEBUG_LOG:
                    return
            except OSError:
                pass
            append_bytes(path, line.encode("utf-8", "replace"))
        except Exception:  # noqa: BLE001 - the debug log is best effort
            pass


def _read(stdin: IO[bytes] | IO[str]) -> bytes | None:
    """Up to MAX_PAYLOAD bytes of stdin (the rest, up to MAX_DRAIN, is drained and dropped); None
    when larger."""
    try:
        return bounded.payload(stdin, MAX_PAYLOAD)
    except bounded.TooLarge:
        bounded.drain(stdin, MAX_DRAIN)
        return None


def _parse_payload(raw: bytes, debug: Callable[[str], None]) -> dict[str, Any] | None:
    if not raw.strip():
        debug("empty payload")
        return None
    try:
        payload = jsontext.loads(raw)
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


def _stopping_session(agent: str, raw: bytes | None, payload: Mapping[str, Any] | None,
                      event: str) -> str | None:
    """The session a Stop payload names, if it can be read; None reduces every session."""
    if agent not in AGENTS:
        return None
    try:
        if payload is None and raw is not None:
            payload = jsontext.loads(raw)
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
        from ..state.logspool import HOOK_WAIT, fold_waiting

        scope = cfg.active  # lines a hook spooled belong to what this Stop reduces
        fold_waiting(scope.log_path, scope.log_lock, min(lock_wait(cfg.env), HOOK_WAIT))
        reducer.reduce(cfg, lambda message: debug(f"reducer: {message}"), session)
    except Exception as exc:  # noqa: BLE001 - a Stop hook must not fail the agent
        from ..state.ledger_read import YamlUnavailable

        if isinstance(exc, YamlUnavailable):
            debug(f"{exc}: nothing was credited, the reads stay pending (install PyYAML there, or run "
                  "teamai-ref pull)")
        elif isinstance(exc, OSError):
            debug(f"reducer failed: {exc}; the reads stay pending")
        else:
            debug(f"reducer failed: {type(exc).__name__}")


def unwrap_corpus(payload: dict[str, Any]) -> tuple[dict[str, Any], str, str] | None:
    """(payload, agent, event) of a file in the corpus form (``payloads/<agent>/*.json``:
    ``{provenance, agent, event, payload}``); None for a raw payload."""
    if "provenance" in payload and isinstance(payload.get("payload"), dict):
        agent, event = payload.get("agent"), payload.get("event")
        return payload["payload"], agent if isinstance(agent, str) else "", event if isinstance(event, str) else ""
    return None


def _read_file(path: str) -> bytes | None:
    with open(path, "rb") as fh:
        return _read(fh)


def _dispatch(args: Args, env: Mapping[str, str], stdin: IO[bytes] | IO[str], debug: _Debug) -> None:
    payload: dict[str, Any] | None = None
    raw = _read(stdin) if args.payload_file is None else None
    if config.recording_disabled(env):
        return
    try:
        cfg = config.load(env, args.team, args.user_team)
    except config.ConfigError:
        debug("no team configured")
        return
    debug.path = cfg.active.debug_log_path
    if args.payload_file is not None:
        try:
            raw = _read_file(args.payload_file)
        except OSError as exc:
            debug(f"the payload file cannot be read ({exc.strerror or type(exc).__name__})")
            return
        if raw is not None:
            payload = _parse_payload(raw, debug)
            if payload is None:
                return
            corpus = unwrap_corpus(payload)
            if corpus is not None:
                payload, file_agent, file_event = corpus
                args.agent = args.agent or file_agent.strip().lower()
                args.event = args.event or file_event
            if not args.event:  # as replay does: the payload's own event name, else post-tool-use
                named = payload.get("hook_event_name") or payload.get("hookEventName")
                args.event = named if isinstance(named, str) and named else POST_TOOL_USE
            debug.agent, debug.event = _safe(args.agent), _safe(args.event)
    agent, event_name = args.agent, args.event
    event = normalize_event(event_name)
    if event is None:
        debug("unknown event: ignored" if event_name else "no event given: ignored")
        return
    stopping = event in (STOP, SUBAGENT_STOP)
    if agent not in AGENTS:
        if not agent and args.payload_file is not None:
            debug("the payload file names no agent: pass --tool AGENT")
        else:
            debug("unknown agent: its Stop reduces every session" if stopping else "unknown agent")
        if not stopping:
            return
    if stopping:
        _reduce(cfg, debug, _stopping_session(agent, raw, payload, event))
        return
    if event == SESSION_START:
        return
    if raw is None:
        debug(f"payload larger than {MAX_PAYLOAD} bytes: ignored")
        return
    if payload is None:
        payload = _parse_payload(raw, debug)
        if payload is None:
            return
        if unwrap_corpus(payload) is not None:
            debug("the payload is in the corpus form ({provenance, agent, event, payload}): "
                  "pass such a file with --payload-file")
            return
    from ..state.logspool import HOOK_WAIT, append_or_spool
    from ..state.runlog import encode
    from . import classify

    call = to_toolcall(agent, payload, event)
    if not _plausible_ids(call):
        debug("an id in the payload is implausibly long: ignored")
        return
    ts = clock.now_stamp(env)
    outcome = classify.classify(call, cfg.knowledge_roots(), ts, env.get("HOME") or env.get("USERPROFILE"))
    said = debug.echo if args.payload_file is not None else None  # a person at the keyboard: say what was done
    if not outcome.records:
        if said is not None:
            why = outcome.notes[-1] if outcome.notes else "nothing in it is a claim, evidence or a link"
            said.write(f"teamai-ref hook-dispatch: recorded nothing: {why} "
                       f"(teamai-ref replay {args.payload_file} gives every decision)\n")
        return
    scope = cfg.active
    try:  # every line is encoded before the lock is taken, so a bad one writes nothing
        data = b"".join(encode(r, strict=True) for r in outcome.records)
    except UnicodeError:
        debug("the payload holds text that is not valid Unicode: ignored")
        return
    # A short wait, then the spool: a stuck holder of the log's lock neither holds up the agent
    # nor loses the call (logspool.py).
    append_or_spool(scope.log_path, scope.log_lock, data, min(lock_wait(env), HOOK_WAIT))
    if said is not None:
        kinds = ", ".join(str(r.get("kind")) for r in outcome.records)
        said.write(f"teamai-ref hook-dispatch: recorded {kinds} in {scope.log_path}\n")


def main(argv: list[str], env: Mapping[str, str], stdin: IO[bytes] | IO[str], stderr: IO[str],
         stdout: IO[str] | None = None) -> int:
    """Always 0: nothing a payload can do makes the agent's tool call fail."""
    try:
        args = parse_args(argv)
        if args.help:
            if stdout is not None:
                stdout.write(USAGE.replace("AGENTS", ", ".join(AGENTS)))
            return 0
        debug = _Debug(env, args.agent, args.event)
        if args.payload_file is not None:
            debug.echo = stderr  # a person is running it: say problems there too
    except Exception as exc:  # noqa: BLE001
        _Debug(env, "", "")(_reason(exc))
        return 0
    try:
        _dispatch(args, env, stdin, debug)
    except Exception as exc:  # noqa: BLE001 - the one place every failure ends
        debug(_reason(exc))
    return 0


def _reason(exc: Exception) -> str:
    from ..state.storage import Busy

    if isinstance(exc, Busy):
        return "the recall log stayed locked: the call was not recorded"
    if isinstance(exc, clock.ClockError):
        return "TEAMAI_NOW is not an ISO 8601 instant"
    if isinstance(exc, OSError):
        return f"the recall log cannot be written ({exc}): the call was not recorded"
    return f"unexpected {type(exc).__name__}: the call was not recorded"
