"""Reading what a caller hands the reference (a payload on stdin, a file named on the command
line or in the environment) with a bound.

Such an input may never end: ``/dev/zero`` or a FIFO given as the file, a pipe nobody closes
after writing. Read whole, it took all the memory and ended in ``MemoryError``, or held a hook,
and with it the agent's tool call, for ever. The limits of the files a person names are here;
the hook's own are ``hook.dispatch.MAX_PAYLOAD`` and ``MAX_DRAIN``. Past a limit the input is
refused with :class:`TooLarge`, which says how large is too large.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing is imported only by type checkers: it costs a fresh process ~4 ms
if TYPE_CHECKING:
    from typing import IO, Any

CHUNK = 1 << 20

# The limit of each reader of a file a person names, past which it is no such file.
WITHHELD_LIST = 1 << 20  # TEAMAI_WITHHELD_FILE, codebase slugs (relations.visibility): past it, unreadable
LEARNING = 64 << 20  # contribute --file: a learning is a note
SAVED_PAYLOADS = 64 << 20  # replay's files: a payload, or a capture of payloads each at most the hook's limit


class TooLarge(ValueError):
    def __init__(self, limit: int) -> None:
        super().__init__(f"larger than {limit >> 20} MiB" if limit >= 1 << 20 else f"larger than {limit} bytes")
        self.limit = limit


def read(stream: IO[bytes] | IO[str] | Any, limit: int) -> bytes:
    """At most ``limit`` bytes of a stream (a text stream's ``buffer`` when it has one)."""
    data = getattr(stream, "buffer", stream).read(limit + 1)
    raw = data.encode("utf-8", "surrogateescape") if isinstance(data, str) else bytes(data or b"")
    if len(raw) > limit:
        raise TooLarge(limit)
    return raw


def read_file(path: str, limit: int) -> bytes:
    with open(path, "rb") as fh:
        return read(fh, limit)


def first_line(path: str, limit: int) -> bytes:
    """A file's first line, cut at ``limit`` bytes (a file without a newline stops there)."""
    with open(path, "rb") as fh:
        return fh.readline(limit)


def drain(stream: IO[bytes] | IO[str] | Any, limit: int) -> None:
    """Read and drop up to ``limit`` more bytes: a writer still writing a payload that was refused
    does not then fail on a closed pipe, and one that never stops is left after ``limit``."""
    stream = getattr(stream, "buffer", stream)
    drained = 0
    while drained < limit:
        chunk = stream.read(CHUNK)
        if not chunk:
            return
        drained += len(chunk)
