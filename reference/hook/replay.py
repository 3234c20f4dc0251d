"""``teamai-ref replay --tool <agent> [--event E] FILE...``: explain what the hook would record.

For each payload file (a raw payload, or the corpus form with ``provenance``/``agent``/``event``/
``payload``) it prints the normalized tool call, every decision in words, and the lines the hook
would append, without writing anything. It is how an adapter author checks a newly captured
payload against the rules.
"""

from __future__ import annotations

import argparse
import json

from .. import clock, config
from . import classify, dispatch
from .toolcall import POST_TOOL_USE, POST_TOOL_USE_FAILURE

TYPE_CHECKING = False  # typing is imported only by type checkers: it costs a fresh process ~4 ms
if TYPE_CHECKING:
    from typing import Any


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="+", metavar="FILE", help="payload files (raw or corpus form)")
    parser.add_argument("--tool", help="the agent that sent them (default: the corpus file's agent)")
    parser.add_argument("--event", help="the hook event (default: the corpus file's, else post-tool-use)")


def _load(path: str) -> tuple[dict[str, Any], str | None, str | None]:
    with open(path, "rb") as fh:
        data = json.loads(fh.read())
    if not isinstance(data, dict):
        raise ValueError("not a JSON object")
    corpus = dispatch.unwrap_corpus(data)
    if corpus is not None:
        return corpus[0], corpus[1] or None, corpus[2] or None
    return data, None, None


def _roots(args: argparse.Namespace, io: Any) -> tuple[str, ...]:
    try:
        cfg = config.load(io.env, getattr(args, "team", None), getattr(args, "user_team", None))
    except config.ConfigError:
        return ()
    return cfg.knowledge_roots()


def run(args: argparse.Namespace, io: Any) -> int:
    roots = _roots(args, io)
    out = io.stdout
    if not roots:
        out.write("no team configured: no path is under the knowledge roots, so no exact evidence\n")
    ts = clock.stamp(clock.now(io.env))
    failed = False
    for path in args.files:
        out.write(f"== {path}\n")
        try:
            payload, file_agent, file_event = _load(path)
        except (OSError, ValueError, RecursionError) as exc:
            io.error(f"{path}: cannot read a JSON payload: {exc}")
            failed = True
            continue
        agent = (args.tool or file_agent or "").strip().lower()
        if agent not in dispatch.AGENTS:
            io.error(f"{path}: unknown agent {agent or '(none)'}; pass --tool, one of {', '.join(dispatch.AGENTS)}")
            failed = True
            continue
        event_name = args.event or file_event or str(payload.get("hook_event_name") or payload.get("hookEventName")
                                                     or POST_TOOL_USE)
        event = dispatch.normalize_event(event_name)
        if event not in (POST_TOOL_USE, POST_TOOL_USE_FAILURE):
            out.write(f"event {event_name!r}: the hook records nothing for it"
                      + (" (it runs the reducer)\n" if event in ("stop", "subagent-stop") else "\n"))
            continue
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
    return 3 if failed else 0
