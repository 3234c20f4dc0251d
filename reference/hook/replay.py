"""``teamai-ref replay --tool <agent> [--event E] FILE...``: explain what the hook would record.

For each payload (a raw payload file, a file in the corpus form with ``provenance``/``agent``/
``event``/``payload``, or a capture file ``teamai-ref capture`` wrote, one JSON line per hook
call) it prints the normalized tool call, every decision in words, and the lines the hook would
append, without writing anything: one block per payload, headed ``== FILE`` (``== FILE:LINE`` for
a capture's line). It is how an adapter author checks a newly captured payload against the rules.
A capture line carries its agent, its event and the team folder the hook saw (spelt as the
capture spells its paths, scrubbed alike), which replay uses; ``--tool``, ``--event`` and
``--team`` win over them.
"""

from __future__ import annotations

import argparse
import json

from .. import bounded
from ..state import clock
from ..team import config
from . import classify, dispatch
from .toolcall import POST_TOOL_USE, POST_TOOL_USE_FAILURE

TYPE_CHECKING = False  # typing is imported only by type checkers: it costs a fresh process ~4 ms
if TYPE_CHECKING:
    from typing import Any


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="+", metavar="FILE", help="payload files (raw or corpus form)")
    parser.add_argument("--tool", help="the agent that sent them (default: the corpus file's agent)")
    parser.add_argument("--event", help="the hook event (default: the corpus file's, else post-tool-use)")


Loaded = tuple[str, "dict[str, Any]", "str | None", "str | None", "tuple[str, ...]"]


def _load(path: str) -> list[Loaded]:
    """(where, payload, agent, event, roots) per payload the file holds."""
    raw = bounded.read_file(path, bounded.SAVED_PAYLOADS)
    try:
        data = json.loads(raw)
    except ValueError:
        lines = [line for line in raw.decode("utf-8", "replace").splitlines()]
        if sum(1 for line in lines if line.strip()) < 2:
            raise
        return _capture_lines(path, lines)  # a capture file: JSON lines
    if not isinstance(data, dict):
        raise ValueError("not a JSON object")
    if _is_capture_line(data):
        return _capture_lines(path, [raw.decode("utf-8", "replace")])
    corpus = dispatch.unwrap_corpus(data)
    if corpus is not None:
        return [(path, corpus[0], corpus[1] or None, corpus[2] or None, ())]
    return [(path, data, None, None, ())]


def _is_capture_line(data: dict[str, Any]) -> bool:
    return isinstance(data.get("ts"), str) and isinstance(data.get("agent"), str) and "payload" in data


def _capture_lines(path: str, lines: list[str]) -> list[Loaded]:
    out: list[Loaded] = []
    for number, text in enumerate(lines, 1):
        if not text.strip():
            continue
        where = f"{path}:{number}"
        try:
            line = json.loads(text)
        except ValueError as exc:
            raise ValueError(f"line {number} is not JSON ({exc})") from None
        if not isinstance(line, dict) or not _is_capture_line(line):
            raise ValueError(f"line {number} is not a capture line (teamai-ref capture writes ts, agent, event, payload)")
        if not isinstance(line.get("payload"), dict):
            out.append((where, {}, line["agent"], None, ()))  # said as such below
            continue
        roots: dict = line["roots"] if isinstance(line.get("roots"), dict) else {}
        known = [roots.get("team"), *(roots.get("learnings") or []), roots.get("user_team")]
        event = line.get("event") or line.get("event_name")
        out.append((where, line["payload"], line["agent"], event if isinstance(event, str) else None,
                    tuple(r for r in known if isinstance(r, str) and r)))
    return out


def _roots(args: argparse.Namespace, io: Any) -> tuple[str, ...]:
    try:
        cfg = config.load(io.env, getattr(args, "team", None), getattr(args, "user_team", None))
    except config.ConfigError:
        return ()
    return cfg.knowledge_roots()


def run(args: argparse.Namespace, io: Any) -> int:
    roots = _roots(args, io)
    out = io.stdout
    if not roots and not _captures(args.files):
        out.write("no team configured: no path is under the knowledge roots, so no exact evidence\n")
    ts = clock.stamp(clock.now(io.env))
    failed = False
    for path in args.files:
        try:
            loaded = _load(path)
        except (OSError, ValueError, RecursionError) as exc:
            out.write(f"== {path}\n")
            io.error(f"{path}: cannot read a JSON payload: {exc}")
            failed = True
            continue
        for where, payload, file_agent, file_event, file_roots in loaded:
            # A capture's paths are spelt as its recorded roots are (scrubbed alike): those, unless --team says otherwise.
            mine = roots if getattr(args, "team", None) or not file_roots else file_roots
            failed = _one(args, io, where, payload, file_agent, file_event, mine, ts) or failed
    return 3 if failed else 0


def _captures(files: list[str]) -> bool:
    """Whether every file is a capture (whose lines name the team folder the hook saw)."""
    try:
        for path in files:
            first = bounded.first_line(path, bounded.SAVED_PAYLOADS)
            if not _is_capture_line(json.loads(first)):
                return False
    except (OSError, ValueError, AttributeError, RecursionError):
        return False
    return True


def _one(args: argparse.Namespace, io: Any, path: str, payload: dict[str, Any], file_agent: str | None,
         file_event: str | None, roots: tuple[str, ...], ts: str) -> bool:
    """One payload's block; True when it could not be explained."""
    out = io.stdout
    out.write(f"== {path}\n")
    if not payload:
        out.write("the capture kept no payload for this call (it was not a JSON object)\n")
        return False
    agent = (args.tool or file_agent or "").strip().lower()
    if agent not in dispatch.AGENTS:
        io.error(f"{path}: the reference has no adapter for the agent {agent or '(none)'}; pass --tool, one of "
                 f"{', '.join(dispatch.AGENTS)}, or add one (payloads/README.md, \"Adding an agent\")")
        return True
    event_name = args.event or file_event or str(payload.get("hook_event_name") or payload.get("hookEventName")
                                                 or POST_TOOL_USE)
    event = dispatch.normalize_event(event_name)
    if event not in (POST_TOOL_USE, POST_TOOL_USE_FAILURE):
        out.write(f"event {event_name!r}: the hook records nothing for it"
                  + (" (it runs the reducer)\n" if event in ("stop", "subagent-stop") else "\n"))
        return False
    call = dispatch.to_toolcall(agent, payload, event)
    out.write("tool call:\n")
    for key, value in call.describe().items():
        out.write(f"  {key}: {value!r}\n")
    outcome = classify.classify(call, roots, ts, io.env.get("HOME") or io.env.get("USERPROFILE"))
    out.write("decisions:\n")
    for note in outcome.notes:
        out.write(f"  - {note}\n")
    out.write("would append:\n" if outcome.records else "would append nothing\n")
    for record in outcome.records:
        out.write("  " + json.dumps(record, ensure_ascii=False) + "\n")
    return False
