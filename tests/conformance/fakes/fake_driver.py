"""A driver for the harness's own tests, steered by a directive on its command line.

It answers like the reference (it wraps the in-process reference backend) except where the
directive says otherwise:

- ``crash``: exits while answering the first recall whose query contains ``boom``, its last
  words on stderr;
- ``hang``: never answers a recall whose query contains ``boom``;
- ``chatter``: never answers such a recall, writing to stderr without end instead;
- ``garbage``: answers a recall whose query contains ``boom`` with a line that is not JSON;
- ``flood``: answers a recall whose query contains ``boom`` with bytes that never end their line;
- ``deep``: answers a recall whose query contains ``boom`` with JSON nested 100,000 deep;
- ``few``: declares only the recall command, no agents, no log and no hold;
- ``bad-protocol``: answers the handshake with protocol 99;
- ``no-stop``: a Stop hook does nothing (the session is never reduced, so nothing is upvoted);
- ``no-related``: recall prints no ``Related:`` line;
- ``project-words``: names the workspace scope ``project`` in hit lines and says so in ``open``;
- ``check-related``: ``recall --check`` adds one line per relation the team declares;
- ``ok``: behaves.

Broken implementations, each wrong in one decision, for the explanations of a failure:

- ``drop-claims``: its hooks never claim a run (no run id is read from a shell call's output);
- ``ignore-subagent-reads``: a Read by a subagent (a payload with ``agent_id``) records nothing;
- ``window-23h`` (any number of hours): its reducer joins reads to runs within 23 hours, not 24;
- ``no-env``: recall ignores the step's environment, so a run names no session;
- ``no-log``: declares no recall log (its votes are all the harness can compare).

Several directives join with commas (``no-log,window-23h``).
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any

from conformance.drivers.reference import ReferenceBackend, in_process
from conformance.running import protocol
from conformance.server import serve


def _break(directives: set[str]) -> None:
    """Make the in-process reference wrong in the decisions ``directives`` name."""
    if "drop-claims" in directives:
        from reference.hook import claims

        claims.run_ids = lambda output: []
    for hours in [d[len("window-"):-1] for d in directives if d.startswith("window-") and d.endswith("h")]:
        from reference.reducer import join

        join.DAY = int(float(hours) * 3600 * 1_000_000)  # the window rule's own constant, in microseconds


def main(directive: str) -> int:
    directives = set(directive.split(","))
    _break(directives)
    backend = ReferenceBackend(in_process)

    def handle(message: dict[str, Any]) -> dict[str, Any]:
        cmd = message.get("cmd")
        boom = cmd == "recall" and "boom" in str(message.get("query", ""))
        if cmd == "start":
            answer = backend(message)
            if directive == "few":
                answer["capabilities"] = {"commands": ["recall"], "agents": [], "log": False, "hold": []}
            if directive == "bad-protocol":
                answer["protocol"] = 99
            if "no-log" in directives:
                answer["capabilities"]["log"] = False
            return answer
        payload = message.get("payload") if isinstance(message.get("payload"), dict) else {}
        if cmd == "hook" and "ignore-subagent-reads" in directives and payload.get("agent_id") \
                and payload.get("tool_name") == "Read":
            return {"seq": message.get("seq"), "ok": True, "exit": 0, "stdout": "", "stderr": ""}
        if cmd == "recall" and "no-env" in directives:
            message = {**message, "env": {}}
        if boom and directive == "crash":
            sys.stderr.write("fake driver: falling over on boom\n")
            sys.stderr.flush()
            os._exit(3)
        if boom and directive == "chatter":
            line = b"fake driver: still thinking\n" * 4096
            while True:
                sys.stderr.buffer.write(line)
        if boom and directive == "hang":
            while True:
                time.sleep(60)
        if boom and directive == "flood":
            block = b"x" * (1 << 20)
            while True:
                sys.stdout.buffer.write(block)
        if boom and directive == "deep":
            sys.stdout.buffer.write(b"[" * 100_000 + b"]" * 100_000 + b"\n")
            sys.stdout.buffer.flush()
            return {"seq": message.get("seq"), "ok": True, "exit": 0, "stdout": "", "stderr": ""}
        if boom and directive == "garbage":
            sys.stdout.buffer.write(b"this is not json\n")
            sys.stdout.buffer.flush()
            return {"seq": message.get("seq"), "ok": True, "exit": 0, "stdout": "", "stderr": ""}
        if directive == "no-stop" and cmd == "hook" and message.get("event") in ("stop", "Stop"):
            return {"seq": message.get("seq"), "ok": True, "exit": 0, "stdout": "", "stderr": ""}
        answer = backend(message)
        if cmd == "open":
            related.clear()
            related.extend(p for p, t in (message.get("team") or {}).items() if "related:" in str(t))
            if directive == "project-words":
                answer["labels"] = {"workspace": "project", "user": "user"}
        if cmd == "recall" and directive == "no-related":
            answer["stdout"] = "".join(x for x in answer["stdout"].splitlines(True) if not x.startswith("Related: "))
        if cmd == "recall" and directive == "project-words":
            answer["stdout"] = answer["stdout"].replace(" [workspace]\n", " [project]\n")
        if cmd == "recall" and directive == "check-related" and message.get("check"):
            answer["stdout"] += "".join(f"related: {p}\n" for p in related)
        return answer

    related: list[str] = []
    assert protocol.VERSION == 1
    return serve(handle)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "ok"))
