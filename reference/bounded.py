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
# How long a hook's stdin that already holds one whole JSON object waits for its end (or for more
# bytes, which would make it malformed): a writer that never closes the pipe is not waited for.
SETTLE = 0.1

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


def payload(stream: IO[bytes] | IO[str] | Any, limit: int) -> bytes:
    """At most ``limit`` bytes of a hook's stdin: up to its end, or up to one whole JSON object
    followed by :data:`SETTLE` seconds of silence.

    An agent that writes its payload and keeps the pipe open held the hook, and the tool call
    waiting on it, for ever (or until the agent's own hook timeout killed it, with nothing
    recorded). A whole object cannot be the start of a longer JSON text, so once one has arrived
    and nothing follows, it is the payload. Where the stream has no descriptor to wait on (a
    stream in memory) or the platform cannot wait on a pipe (Windows), it is read to its end."""
    fd = _descriptor(stream)
    if fd is None:
        return read(stream, limit)
    import os
    import select

    data = bytearray()
    while True:
        # The JSON is decoded here only when the writer has fallen silent with the pipe open: in
        # the usual case its end comes within SETTLE and the payload is decoded once, by the hook.
        if _may_be_object(data) and not select.select([fd], [], [], SETTLE)[0] and _whole_object(data):
            return bytes(data)
        chunk = os.read(fd, CHUNK)
        if not chunk:
            return bytes(data)
        data += chunk
        if len(data) > limit:
            raise TooLarge(limit)


def _descriptor(stream: Any) -> int | None:
    """The descriptor to wait on, where waiting on a pipe works (POSIX); None otherwise."""
    import os

    try:
        return int(getattr(stream, "buffer", stream).fileno()) if os.name == "posix" else None
    except (AttributeError, OSError, ValueError):  # io.UnsupportedOperation is both
        return None


def _may_be_object(data: bytearray) -> bool:
    """The cheap test: what has come so far starts and ends as a JSON object does."""
    text = data.strip()
    return text.startswith((b"{", b"\xef\xbb\xbf")) and text.endswith(b"}")


def _whole_object(data: bytearray) -> bool:
    from .state import jsontext

    try:
        return isinstance(jsontext.loads(bytes(data)), dict)
    except ValueError:
        return False


def read_file(path: str, limit: int) -> bytes:
    with open(path, "rb") as fh:
        return read(fh, limit)


def first_line(path: str, limit: int) -> bytes:
    """A file's first line, cut at ``limit`` bytes (a file without a newline stops there)."""
    with open(path, "rb") as fh:
        return fh.readline(limit)


def drain(stream: IO[bytes] | IO[str] | Any, limit: int) -> None:
    """Read and drop up to ``limit`` more bytes: a writer still writing a payload that was refused
    does not then fail on a closed pipe, and one that never stops is left after ``limit``. Where
    it can wait (:func:`payload`), it stops after :data:`SETTLE` seconds of silence too: a writer
    that is done but keeps the pipe open."""
    import os
    import select

    fd = _descriptor(stream)
    stream = getattr(stream, "buffer", stream)
    drained = 0
    while drained < limit:
        if fd is None:
            chunk = stream.read(CHUNK)
        else:
            if not select.select([fd], [], [], SETTLE)[0]:
                return
            chunk = os.read(fd, CHUNK)
        if not chunk:
            return
        drained += len(chunk)
