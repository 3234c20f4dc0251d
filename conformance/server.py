"""The implementation side of the protocol: read a message per line, answer a line.

Used by ``teamai-conformance driver reference`` and by the harness's own fake drivers. A
message that cannot be handled gets an ``ok: false`` answer with the traceback; the loop only
ends at ``stop``, at end of input, or when nobody reads the answers any more.
"""

from __future__ import annotations

import sys
import traceback
from collections.abc import Callable
from typing import IO, Any

from . import pipes
from .running import protocol


def serve(handler: Callable[[dict[str, Any]], dict[str, Any]], stdin: IO[bytes] | None = None,
          stdout: IO[bytes] | None = None) -> int:
    source = stdin or sys.stdin.buffer
    sink = stdout or sys.stdout.buffer
    for line in source:
        if not line.strip():
            continue
        seq: Any = None
        message: Any = None
        try:
            message = protocol.decode(line)
            seq = message.get("seq")
            answer = handler(message)
        except Exception as exc:
            answer = {"seq": seq, "ok": False,
                      "error": {"message": f"{type(exc).__name__}: {exc}", "traceback": traceback.format_exc()}}
        try:
            sink.write(protocol.encode(answer))
            sink.flush()
        except BrokenPipeError:  # the harness stopped reading: nobody is left to answer
            pipes.silence(sink)
            break
        if isinstance(message, dict) and message.get("cmd") == "stop":
            break
    return 0
