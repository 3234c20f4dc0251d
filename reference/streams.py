"""A command's environment and streams (:class:`Io`): ``cli`` builds one for a real process, the
conformance harness one for a run in this process, and every command reads and writes through it."""

from __future__ import annotations

TYPE_CHECKING = False  # typing is imported only by type checkers: it costs a fresh process ~4 ms
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import IO


class Io:
    """The process's environment and streams, passed explicitly so the conformance harness can run
    the same entry point in-process."""

    def __init__(self, env: Mapping[str, str], stdin: IO[bytes], stdout: IO[str], stderr: IO[str]) -> None:
        self.env = env
        self.stdin = stdin
        self.stdout = stdout
        self.stderr = stderr

    def warn(self, message: str) -> None:
        self.stderr.write(f"teamai-ref: warning: {one_line(message)}\n")

    def error(self, message: str) -> None:
        self.stderr.write(f"teamai-ref: error: {one_line(message)}\n")


def escaping(stream: IO[str]) -> IO[str]:
    """The process's output stream, set to write what its encoding cannot take as escapes.

    Titles, paths and questions hold any character, and a stream's encoding comes from the
    locale or ``PYTHONIOENCODING``: under a Latin-1 or ASCII one, printing a Chinese title (or a
    lone surrogate quoted from a file name) raised ``UnicodeEncodeError`` after the command had
    done its work, and the hits were lost. Written as ``\\u987a`` they still arrive; a UTF-8
    stream, every agent's, is unchanged. (Python's stderr already escapes; stdout does not.)"""
    reconfigure = getattr(stream, "reconfigure", None)
    if reconfigure is not None:
        reconfigure(errors="backslashreplace")
    return stream


def one_line(message: str) -> str:
    """A message as one line: a tool that wraps another's error text must not spill lines."""
    return " ".join(part.strip() for part in message.splitlines() if part.strip())
