"""Reading the files ``teamai-ref capture`` writes: JSON lines, one per hook call, in time order.

A line the importer cannot use (not JSON, no payload, an event the hook does not act on) is
skipped with a reason, so the author sees what was left out instead of a failed import.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reference import bounded

# A capture file's payloads are each at most the hook's limit; a larger file, or one that never
# ends (``/dev/zero``), is refused rather than read until the memory runs out.
MAX_FILE = 64 << 20

# The events a hook acts on; the others (pre-tool-use, prompts, session ends) were recorded but
# there is nothing for a scenario to replay in them.
REPLAYED = ("post-tool-use", "post-tool-use-failure", "stop", "subagent-stop")


class CaptureError(ValueError):
    """The capture cannot be imported at all."""


@dataclass
class Call:
    """One captured hook call."""

    ts: str
    agent: str
    event: str
    payload: dict[str, Any]
    session: str | None = None
    agent_version: str | None = None
    scrubbed: bool = True
    roots: dict[str, Any] | None = None
    where: str = ""  # file:line, for messages


@dataclass
class Capture:
    calls: list[Call] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)

    @property
    def agents(self) -> list[str]:
        return sorted({c.agent for c in self.calls})

    def roots(self) -> dict[str, Any] | None:
        return next((c.roots for c in self.calls if c.roots and c.roots.get("team")), None)


def read(paths: list[Path]) -> Capture:
    out = Capture()
    for path in paths:
        try:
            text = bounded.read_file(str(path), MAX_FILE).decode("utf-8")
        except (OSError, UnicodeDecodeError, bounded.TooLarge) as exc:
            raise CaptureError(f"{path}: cannot be read: {exc}") from exc
        for number, raw in enumerate(text.splitlines(), 1):
            where = f"{path.name}:{number}"
            if not raw.strip():
                continue
            try:
                line = json.loads(raw)
            except (ValueError, RecursionError):  # (nested past the parser's depth)
                out.skipped.append(f"{where}: not a JSON line")
                continue
            call = _call(line, where)
            if isinstance(call, str):
                out.skipped.append(f"{where}: {call}")
            else:
                out.calls.append(call)
    if not out.calls:
        raise CaptureError("the capture holds no hook call to replay" +
                           (f" ({'; '.join(out.skipped[:3])})" if out.skipped else ""))
    out.calls.sort(key=lambda c: c.ts)  # stable: calls at one instant keep the order they were written in
    return out


def _call(line: Any, where: str) -> Call | str:
    if not isinstance(line, dict) or not isinstance(line.get("ts"), str) or not isinstance(line.get("agent"), str):
        return "not a capture line (no ts or agent)"
    if not isinstance(line.get("payload"), dict):
        return f"no payload ({line.get('problem') or 'missing'})"
    event = str(line.get("event") or "")
    if event not in REPLAYED:
        return f"event {line.get('event_name') or event!r}: the hook acts on nothing in it, so it is not replayed"
    roots = line.get("roots") if isinstance(line.get("roots"), dict) else None
    version = line.get("agent_version") if isinstance(line.get("agent_version"), str) else None
    return Call(line["ts"], line["agent"], event, line["payload"], line.get("session"), version,
                line.get("scrubbed") is not False, roots, where)
