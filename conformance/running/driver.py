"""One interface to every implementation: a driver answers protocol messages.

Two kinds sit behind it. :class:`LocalDriver` hands each message to a handler in this process
(the reference, fast). :class:`ProcessDriver` speaks the protocol over a child's stdin and
stdout, so any implementation in any language can plug in. Both check answers against the
protocol schemas, so a handler and a child process are held to the same contract.

Failures are sorted here, because the runner reports them differently:

- :class:`DriverError`: the driver answered ``ok: false`` (it caught something itself);
- :class:`DriverCrashed`: the process died; :class:`DriverTimeout`: no answer in time;
- :class:`ProtocolViolation`: an answer that is not the protocol (garbage, wrong seq).

After a crash, a timeout or a violation the runner calls :meth:`Driver.restart`.

Which driver an ``--impl`` names is chosen above the drivers, in ``implementations.py``.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import threading
import time
import traceback
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from . import protocol
from .protocol import ProtocolViolation

HANDSHAKE_TIMEOUT = 30.0
# One answer line, at most. A driver that writes more without a newline is broken (a loop printing
# for ever); without a limit the harness kept every byte until the case's time ran out, gigabytes.
MAX_ANSWER = 256 << 20
# What is kept of a driver's stderr, for the reports: its last bytes. It is read from a pipe while
# the harness waits for an answer, so a driver that writes to stderr for ever (a loop logging an
# error) costs neither memory nor disk; a temporary file kept every byte until the case timed out.
STDERR_KEPT = 64 << 10

__all__ = ["Driver", "DriverCrashed", "DriverError", "DriverTimeout", "DriverUnusable", "LocalDriver",
           "ProcessDriver", "ProtocolViolation"]


class DriverError(RuntimeError):
    """The implementation answered ``ok: false``."""

    def __init__(self, message: str, detail: str = "") -> None:
        super().__init__(message)
        self.detail = detail


class DriverCrashed(RuntimeError):
    pass


class DriverTimeout(RuntimeError):
    pass


class DriverUnusable(RuntimeError):
    """The handshake failed: the driver cannot be used at all."""


Handler = Callable[[dict[str, Any]], dict[str, Any]]


class Driver(ABC):
    info: dict[str, Any]
    name: str

    def __init__(self) -> None:
        self._seq = 0

    def request(self, message: dict[str, Any], timeout: float | None = None) -> dict[str, Any]:
        """Send one message and return the answer; raises on anything but ``ok: true``."""
        self._seq += 1
        message = {**message, "seq": self._seq}
        protocol.check(message, message["cmd"], "request")
        answer = self._exchange(message, timeout)
        if answer.get("seq") != self._seq:
            raise ProtocolViolation(f"{message['cmd']}: answered seq {answer.get('seq')!r}, expected {self._seq}")
        protocol.check(answer, message["cmd"], "response")
        if answer.get("ok") is False:
            error = answer.get("error") or {}
            raise DriverError(str(error.get("message", "error")), str(error.get("traceback", "")))
        return answer

    def handshake(self) -> None:
        try:
            answer = self.request({"cmd": "start", "protocol": protocol.VERSION}, HANDSHAKE_TIMEOUT)
        except (DriverError, DriverCrashed, DriverTimeout, ProtocolViolation) as exc:
            raise DriverUnusable(f"{self.name}: the handshake failed: {exc}") from exc
        if answer.get("protocol") != protocol.VERSION:
            raise DriverUnusable(f"{self.name}: speaks protocol {answer.get('protocol')!r}, "
                                 f"this harness speaks {protocol.VERSION}")
        self.info = answer

    @property
    def capabilities(self) -> dict[str, Any]:
        return dict(self.info.get("capabilities") or {})

    @abstractmethod
    def _exchange(self, message: dict[str, Any], timeout: float | None) -> dict[str, Any]: ...

    @abstractmethod
    def restart(self) -> None: ...

    @abstractmethod
    def stop(self) -> None: ...


class LocalDriver(Driver):
    """A handler in this process. A timeout interrupts it with SIGALRM (main thread only)."""

    def __init__(self, make_handler: Callable[[], Handler], name: str) -> None:
        super().__init__()
        self._make = make_handler
        self.name = name
        self._handler = make_handler()
        self.handshake()

    def _exchange(self, message: dict[str, Any], timeout: float | None) -> dict[str, Any]:
        with _alarm(timeout):
            try:
                return self._handler(message)
            except DriverTimeout:
                raise
            except Exception as exc:  # the handler's own failure is an error answer, as over the wire
                return {"seq": message["seq"], "ok": False,
                        "error": {"message": f"{type(exc).__name__}: {exc}", "traceback": traceback.format_exc()}}

    def restart(self) -> None:
        close = getattr(self._handler, "close_all", None)
        if callable(close):
            close()
        self._handler = self._make()
        self._seq = 0
        self.handshake()

    def stop(self) -> None:
        close = getattr(self._handler, "close_all", None)
        if callable(close):
            close()


@contextmanager
def _alarm(timeout: float | None) -> Iterator[None]:
    if not timeout or threading.current_thread() is not threading.main_thread():
        yield
        return

    def ring(signum: int, frame: Any) -> None:
        raise DriverTimeout(f"no answer within {timeout:g}s")

    previous = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, timeout)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


class ProcessDriver(Driver):
    """A child process speaking the protocol on its stdin and stdout; stderr is kept for reports."""

    def __init__(self, argv: list[str], name: str | None = None, cwd: str | None = None) -> None:
        super().__init__()
        self.argv = argv
        self.name = name or " ".join(argv)
        self.cwd = cwd
        self._proc: subprocess.Popen[bytes] | None = None
        self._buffer = bytearray()
        self._stderr = bytearray()  # the last STDERR_KEPT bytes the driver wrote there
        self._stderr_fd: int | None = None  # its pipe, until the driver closes it
        self.restarts = 0
        self._spawn()

    def _spawn(self) -> None:
        try:
            self._proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                          stderr=subprocess.PIPE, cwd=self.cwd, start_new_session=True)
        except OSError as exc:
            raise DriverUnusable(f"{self.name}: cannot start: {exc}") from exc
        assert self._proc.stderr is not None
        self._stderr = bytearray()
        self._stderr_fd = self._proc.stderr.fileno()
        self._buffer = bytearray()
        self._seq = 0
        self.handshake()

    def stderr_tail(self, limit: int = 2000) -> str:
        self._read_stderr(0.0)
        return str(bytes(self._stderr[-limit:]).decode("utf-8", "replace"))

    def _read_stderr(self, wait: float) -> None:
        """Keep what the driver writes to stderr for ``wait`` seconds at most, or until it closes
        the pipe (0: one read of what is there now). A driver that never stops writing cannot
        hold the harness here."""
        deadline = time.monotonic() + wait
        while self._stderr_fd is not None:
            left = max(0.0, deadline - time.monotonic())
            if not select.select([self._stderr_fd], [], [], left)[0]:
                return
            self._keep_stderr()
            if time.monotonic() >= deadline:
                return

    def _keep_stderr(self) -> int:
        """One read of the driver's stderr, its last bytes kept; how many bytes it read."""
        assert self._stderr_fd is not None
        chunk = os.read(self._stderr_fd, 1 << 16)
        if not chunk:
            self._stderr_fd = None  # closed: the driver is gone, or wants no stderr
        self._stderr += chunk
        if len(self._stderr) > STDERR_KEPT:
            del self._stderr[:-STDERR_KEPT]
        return len(chunk)

    def _exchange(self, message: dict[str, Any], timeout: float | None) -> dict[str, Any]:
        proc = self._proc
        assert proc is not None and proc.stdin is not None and proc.stdout is not None
        try:
            proc.stdin.write(protocol.encode(message))
            proc.stdin.flush()
        except (BrokenPipeError, OSError) as exc:
            raise DriverCrashed(self._died(f"could not send {message['cmd']}: {exc}")) from exc
        deadline = None if not timeout else time.monotonic() + timeout
        fd = proc.stdout.fileno()
        searched = 0  # the buffer holds no newline before this
        while (end := self._buffer.find(b"\n", searched)) < 0:
            searched = len(self._buffer)
            if searched > MAX_ANSWER:
                raise ProtocolViolation(f"an answer to {message['cmd']} ran past {MAX_ANSWER >> 20} MiB without"
                                        " ending its line")
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                self._kill()
                tail = self.stderr_tail().strip()
                raise DriverTimeout(f"no answer to {message['cmd']} within {timeout:g}s"
                                    + (f"; stderr: {tail}" if tail else ""))
            watched = [fd] if self._stderr_fd is None else [fd, self._stderr_fd]
            ready, _, _ = select.select(watched, [], [], left)
            if self._stderr_fd is not None and self._stderr_fd in ready:
                self._keep_stderr()  # read while waiting: a driver blocked on a full stderr pipe answers nothing
            if fd not in ready:
                continue
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                raise DriverCrashed(self._died(f"exited while answering {message['cmd']}"))
            self._buffer += chunk
        line = bytes(self._buffer[:end])
        del self._buffer[:end + 1]
        return protocol.decode(line)

    def _died(self, what: str) -> str:
        proc = self._proc
        code = None
        if proc is not None:
            self._read_stderr(2.0)  # its last words, up to its exit (or two seconds of silence)
            try:
                code = proc.wait(timeout=2)
            except subprocess.TimeoutExpired:
                self._kill()
        tail = self.stderr_tail().strip()
        return f"{self.name} {what} (exit {code})" + (f"; stderr: {tail}" if tail else "")

    def _kill(self) -> None:
        proc = self._proc
        if proc is None:
            return
        if proc.poll() is None:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except OSError:
                proc.kill()
        proc.wait()
        self._read_stderr(0.0)
        self._stderr_fd = None
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            if stream is not None:
                try:
                    stream.close()
                except OSError:
                    pass

    def restart(self) -> None:
        self._kill()
        self.restarts += 1
        self._spawn()

    def stop(self) -> None:
        proc = self._proc
        if proc is None:
            return
        if proc.poll() is None:
            try:
                self.request({"cmd": "stop"}, 5.0)
                proc.wait(timeout=5)
            except (DriverError, DriverCrashed, DriverTimeout, ProtocolViolation, subprocess.TimeoutExpired):
                pass
        self._kill()
        self._proc = None
