"""Output whose reader may go away (``teamai-conformance list | head``), or cannot take every
character (a lone surrogate quoted from a log line is written as its escape).

A reader that stops early is a normal way to use a command, not an error: the command drops the
rest of its output and finishes its work (a run still writes its ``--report`` and ``--junit``
files), with the exit code it would have had. Python would instead raise ``BrokenPipeError`` at
the next write and again when it flushes the stream on the way out. ``cli.main`` wraps the
process's streams with a :class:`Sink`; ``server.py`` stops serving when nobody reads its answers.

Output that cannot be written (a full disk) is dropped the same way, so the command still
finishes its work, and :attr:`Sink.failed` keeps why: ``cli.main`` then says so and fails.
argparse's help would otherwise drop that failure silently, and any other write end in a
traceback.
"""

from __future__ import annotations

import os
from typing import IO, Any


class Sink:
    """A text stream that drops everything after its reader went away."""

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream
        self.gone = False
        self.failed: OSError | None = None  # why the output could not be written, if it could not

    def write(self, text: str) -> int:
        if not self.gone:
            try:
                try:
                    self.stream.write(text)
                except UnicodeEncodeError:  # a lone surrogate quoted from a log line: write its escape
                    encoding = getattr(self.stream, "encoding", None) or "utf-8"
                    self.stream.write(text.encode(encoding, "backslashreplace").decode(encoding))
            except BrokenPipeError:
                self._lost()
            except OSError as exc:
                self.failed = exc
                self._lost()
        return len(text)

    def flush(self) -> None:
        if not self.gone:
            try:
                self.stream.flush()
            except BrokenPipeError:
                self._lost()
            except OSError as exc:
                self.failed = exc
                self._lost()

    def isatty(self) -> bool:
        return not self.gone and bool(getattr(self.stream, "isatty", lambda: False)())

    def __getattr__(self, name: str) -> Any:  # encoding, fileno, ... of the stream underneath
        return getattr(self.stream, name)

    def _lost(self) -> None:
        self.gone = True
        silence(self.stream)


def silence(stream: IO[Any]) -> None:
    """Point ``stream``'s descriptor at the null device, so what is still buffered in it (and
    the interpreter's last flush) goes nowhere instead of failing."""
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):
        return
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, fd)
    finally:
        os.close(null)
