"""A command's environment and streams (:class:`Io`): :func:`process_io` builds one for a real
process (the command line and the hook), the conformance harness one for a run in this process,
and every command reads and writes through it."""

from __future__ import annotations

TYPE_CHECKING = False  # typing is imported only by type checkers: it costs a fresh process ~4 ms
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import IO, Any


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


class OutputLost(OSError):
    """The output could not be written (a full disk, a device error): the command's failure, not
    the state folder's, which is what any other ``OSError`` of a command means."""


class _Output:
    """A text stream whose failures to write say so (:class:`OutputLost`). A reader that went
    away (``BrokenPipeError``) is left to the caller: that is not an error."""

    def __init__(self, stream: IO[str]) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise _lost(exc) from exc

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise _lost(exc) from exc

    def __getattr__(self, name: str) -> Any:  # isatty, encoding, fileno, ... of the stream underneath
        return getattr(self._stream, name)


def _lost(exc: OSError) -> OutputLost:
    return OutputLost(f"the output cannot be written: {exc.strerror or exc}")


def process_io(env: Mapping[str, str]) -> Io:
    """The process's own streams, as every command and the hook may use them.

    A stream the caller closed (``<&-``, ``>&-``) is ``None`` in Python, and every command failed
    with a traceback before doing anything; the hook, which must exit 0, too. Closed input reads as
    empty, closed output goes nowhere, as output to a reader that went away does. The output's
    encoding is the locale's (or ``PYTHONIOENCODING``'s): a character it cannot spell (a Chinese
    title on an ASCII or Latin-1 terminal) is written as its escape (``\\u987a``) instead of
    failing the command after its work. Python's stderr already escapes; stdout did not."""
    import io
    import os
    import sys

    def text(stream: IO[str] | None) -> IO[str]:
        if stream is None:
            return open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 - the process's own, like stdout
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="backslashreplace")
        return stream

    stdin = sys.stdin.buffer if sys.stdin is not None else io.BytesIO()
    return Io(env, stdin, _Output(text(sys.stdout)), text(sys.stderr))  # type: ignore[arg-type]


def spells_all(stream: IO[str]) -> bool:
    """Whether a text stream's encoding can write every character: a UTF one, or none at all (text
    kept in memory, as the conformance harness runs a command)."""
    encoding = (getattr(stream, "encoding", None) or "utf-8").lower().replace("-", "").replace("_", "")
    return encoding.startswith("utf")


def one_line(message: str) -> str:
    """A message as one line: a tool that wraps another's error text must not spill lines."""
    return " ".join(part.strip() for part in message.splitlines() if part.strip())
