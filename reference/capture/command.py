"""``teamai-ref capture EVENT --tool AGENT [--out DIR] [--keep] [-- COMMAND ...]``: a hook command
that records what the agent sent, then lets the hook happen as usual.

An adapter author puts it into a real agent's hook settings in place of (or around) the usual
hook line. For each call it appends one line to the session's capture file (``store.py``): the
instant (the one clock), the agent and event, the session, the agent's version where the payload
or the environment tells it (Cursor's ``cursor_version``/``CURSOR_VERSION``, else
``--agent-version``), the knowledge roots of the reference's configuration, and the payload,
scrubbed (``scrub.py``) unless ``--keep`` is given. Then it passes the payload on: to the
reference's ``hook-dispatch`` in this process (at the same instant), or, after ``--``, to the
given command as a real process whose stdin is the payload and whose stdout, stderr and exit
status become this command's, so the agent sees what it would have seen without the capture.

It never fails the agent: a capture that cannot be written (a busy or unwritable folder, a bad
command line) is dropped with a line in the debug log (``hook-debug.log`` in the state home) and
the payload is still passed on. Without ``--`` it exits 0, as ``hook-dispatch`` does.
"""

from __future__ import annotations

import io as _io
import os
import subprocess
from collections.abc import Mapping

from .. import bounded
from ..state import clock
from ..state.storage import append_bytes, ensure_dir, lock_wait
from ..team import config
from . import store

TYPE_CHECKING = False  # typing is imported only by type checkers: it costs a fresh process ~4 ms
if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable
    from typing import IO, Any

    from ..streams import Io

USAGE = "teamai-ref capture EVENT --tool AGENT [--out DIR] [--keep] [--agent-version V] [-- COMMAND ...]"
KEEP_NOTICE = ("teamai-ref capture: --keep: payloads are stored as the agent sent them, with file contents, "
               "prompts, tool output, transcript paths, user names and any secrets they hold; keep {out} private\n")
VERSION_KEYS = ("cursor_version", "agent_version", "version")
VERSION_ENV = ("CURSOR_VERSION",)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.usage = USAGE
    parser.epilog = ("After --, a hook command to pass each payload to (stdin, stdout, stderr and exit status "
                     "pass through); without it the reference's hook-dispatch runs. Files: one JSON-lines file "
                     "per session in --out (default: teamai-ref-captures/ in your home folder, outside the state home).")
    parser.add_argument("event", help="the hook event (post-tool-use, stop, PostToolUse, postToolUse, ...)")
    parser.add_argument("--tool", required=True, help="the agent sending the payloads (claude, codex, cursor, ...)")
    parser.add_argument("--out", metavar="DIR", help="the capture folder (default: teamai-ref-captures/ in your home folder)")
    parser.add_argument("--keep", action="store_true",
                        help="store payloads unscrubbed (private use only; says on stderr what it keeps)")
    parser.add_argument("--agent-version", metavar="V", help="the agent's version, when its payloads do not say")


def run(args: argparse.Namespace, io: Io, inner: list[str] | None = None) -> int:
    raw = _read_all(io.stdin)
    if raw is None:
        return _endless(io, args.tool or "", args.event or "")
    return _capture(args, inner or [], io, raw)


def main(argv: list[str], io: Io, build_parser: Callable[[str, IO[str]], argparse.ArgumentParser]) -> int:
    """The command line after ``capture``; everything after the first ``--`` is the inner hook.
    ``build_parser`` is the command line's own (``cli.build_parser``), which parses this command's
    options as ``teamai-ref capture`` and says its help."""
    cut = argv.index("--") if "--" in argv else len(argv)
    front, inner = argv[:cut], argv[cut + 1:]
    if "-h" in front or "--help" in front:
        try:
            build_parser("capture", io.stdout).parse_args(["capture", "--help"])
        except SystemExit:
            pass
        return 0
    try:
        args = build_parser("capture", io.stdout).parse_args(["capture", *front])
    except Exception as exc:  # noqa: BLE001 - a bad hook line must not fail the agent
        raw = _read_all(io.stdin)
        if raw is None:
            return _endless(io, "", "")
        io.stderr.write(f"{exc}; the payload is passed on, nothing is recorded\n")
        _debug(io.env, "", "", "capture: bad command line: nothing recorded")
        return _pass_on(None, inner, io, raw)
    return run(args, io, inner)


def _read_all(stdin: Any) -> bytes | None:
    """The payload, whole, to keep and pass on; None when it is larger than the hook would read
    and drain (``dispatch.MAX_PAYLOAD`` and ``MAX_DRAIN``): an input that never ends."""
    from ..hook import dispatch

    try:
        return bounded.payload(stdin, dispatch.MAX_PAYLOAD + dispatch.MAX_DRAIN)
    except bounded.TooLarge:
        return None


def _endless(io: Io, agent: str, event: str) -> int:
    _debug(io.env, agent, event, "capture: the payload did not end: nothing recorded or passed on")
    return 0


def _env(args: argparse.Namespace, env: Mapping[str, str]) -> dict[str, str]:
    out = dict(env)
    if getattr(args, "team", None):
        out["TEAMAI_TEAM"] = args.team
    if getattr(args, "user_team", None):
        out["TEAMAI_USER_TEAM"] = args.user_team
    return out


def _capture(args: argparse.Namespace, inner: list[str], io: Io, raw: bytes) -> int:
    env = _env(args, io.env)
    try:
        instant = clock.now_stamp(env)
    except clock.ClockError:
        instant = clock.now_stamp({})
        _debug(env, args.tool, args.event, "capture: TEAMAI_NOW is not an ISO 8601 instant; the system clock is used")
    if args.keep:
        io.stderr.write(KEEP_NOTICE.format(out=_folder(args, env)))
    try:
        problem = _record(args, env, raw, instant)
        if problem:
            _debug(env, args.tool, args.event, f"capture: the payload is {problem}; recorded without it")
    except Exception as exc:  # noqa: BLE001 - dropped, never raised into the agent
        _debug(env, args.tool, args.event, f"capture dropped: {_reason(exc)}")
    return _pass_on(args, inner, io, raw, {**env, "TEAMAI_NOW": instant})


DEFAULT_FOLDER = "teamai-ref-captures"


def _folder(args: argparse.Namespace, env: Mapping[str, str]) -> str:
    """``--out``, else ``teamai-ref-captures`` in the user's home folder: beside the state home,
    never in it. A captured recall call holds its command line, query and all (the claim rule
    reads it), and the spec keeps the query out of local state; captures are a record an adapter
    author asked for, not the reference's state."""
    if args.out:
        return os.path.abspath(args.out)
    home = env.get("HOME") or env.get("USERPROFILE") or os.path.expanduser("~")
    return os.path.join(home, DEFAULT_FOLDER)


def _record(args: argparse.Namespace, env: Mapping[str, str], raw: bytes, instant: str) -> str | None:
    """Append the capture line; returns why the payload itself could not be kept, if it could not."""
    import json

    from ..hook import dispatch
    from .scrub import Scrubber

    agent = args.tool.strip().lower()
    event = dispatch.normalize_event(args.event) or args.event
    payload: Any = None
    if len(raw) <= dispatch.MAX_PAYLOAD:  # what the hook would not read is not kept either
        try:
            payload = json.loads(raw)
        except (ValueError, RecursionError):
            pass
    scrubber = None if args.keep else Scrubber.from_env(env)
    line: dict[str, Any] = {"ts": instant, "agent": agent, "event": event, "event_name": args.event,
                            "session": None, "agent_version": args.agent_version, "scrubbed": scrubber is not None,
                            "roots": _roots(env, scrubber), "payload": None}
    if isinstance(payload, dict):
        line["session"] = _session(agent, event, payload)
        line["agent_version"] = _version(payload, env) or args.agent_version
        line["payload"] = scrubber.payload(payload) if scrubber else payload
    elif len(raw) > dispatch.MAX_PAYLOAD:
        line["problem"] = f"larger than {dispatch.MAX_PAYLOAD} bytes"
    else:
        line["problem"] = "not a JSON object" if payload is not None or raw.strip() else "empty"
    name = store.file_name(agent, line["session"], instant[:10])
    store.append(_folder(args, env), name, line, lock_wait(env))
    return line.get("problem")


def _session(agent: str, event: str, payload: Mapping[str, Any]) -> str | None:
    from ..hook import dispatch

    if agent in dispatch.AGENTS:
        try:
            parse_as = event if dispatch.normalize_event(event) else "post-tool-use"
            return dispatch.to_toolcall(agent, payload, parse_as).session
        except Exception:  # noqa: BLE001 - an odd payload still gets recorded, in the no-session file
            return None
    for key in ("session_id", "conversation_id", "sessionId"):
        if isinstance(payload.get(key), str) and payload[key]:
            return str(payload[key])
    return None


def _version(payload: Mapping[str, Any], env: Mapping[str, str]) -> str | None:
    for key in VERSION_KEYS:
        if isinstance(payload.get(key), str) and payload[key]:
            return str(payload[key])
    return next((env[k] for k in VERSION_ENV if env.get(k)), None)


def _roots(env: Mapping[str, str], scrubber: Any) -> dict[str, Any] | None:
    """The knowledge roots the hook resolves against, so an import can place the team's files."""
    try:
        cfg = config.load(env)
    except config.ConfigError:
        return None
    spell = scrubber.text if scrubber else (lambda p: p)
    user = cfg.user.team if cfg.user is not None and cfg.user is not cfg.active else None
    return {"team": spell(cfg.active.team), "learnings": [spell(p) for p in cfg.active.learnings_roots],
            "user_team": spell(user) if user else None}


def _pass_on(args: argparse.Namespace | None, inner: list[str], io: Io, raw: bytes,
             env: Mapping[str, str] | None = None) -> int:
    """The hook the agent would have run: the inner command, else the reference's own."""
    if inner:
        try:
            proc = subprocess.run(inner, input=raw, capture_output=True, env=dict(io.env))
        except OSError as exc:
            io.stderr.write(f"teamai-ref capture: cannot run {inner[0]}: {exc.strerror or exc}\n")
            _debug(io.env, getattr(args, "tool", ""), getattr(args, "event", ""),
                   f"capture: the inner command could not be run ({type(exc).__name__})")
            return 0
        _write(io.stdout, proc.stdout)
        _write(io.stderr, proc.stderr)
        return proc.returncode if proc.returncode >= 0 else 128 - proc.returncode
    if args is None:
        return 0
    from ..hook import dispatch

    dispatch.main([args.event, "--tool", args.tool], env or io.env, _io.BytesIO(raw), io.stderr)
    return 0


def _write(stream: Any, data: bytes) -> None:
    if not data:
        return
    binary = getattr(stream, "buffer", None)
    if binary is not None:
        stream.flush()
        binary.write(data)
        binary.flush()
    else:
        stream.write(data.decode("utf-8", "replace"))


def _reason(exc: Exception) -> str:
    from ..state.storage import Busy

    if isinstance(exc, Busy):
        return "the capture folder stayed locked"
    if isinstance(exc, OSError):
        return f"the capture folder cannot be written ({exc.strerror or type(exc).__name__})"
    return f"unexpected {type(exc).__name__}"


def _debug(env: Mapping[str, str], agent: str, event: str, reason: str) -> None:
    """One line in the hook's debug log, in the hook's own format; never raises."""
    try:
        def safe(word: str) -> str:
            return "".join(c if c.isprintable() and not c.isspace() else "?" for c in word[:64]) or "-"

        try:
            ts = clock.now_stamp(env)
        except clock.ClockError:
            ts = clock.now_stamp({})
        try:  # the hook's own debug log: the active scope's, else the state home's
            path = config.load(env).active.debug_log_path
        except config.ConfigError:
            path = os.path.join(config.home_dir(env), "hook-debug.log")
        ensure_dir(os.path.dirname(path))
        append_bytes(path, f"{ts} agent={safe(agent)} event={safe(event)} {reason}\n".encode("utf-8", "replace"))
    except Exception:  # noqa: BLE001 - the debug log is best effort
        pass
