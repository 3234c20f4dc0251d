"""Fresh processes timed and weighed, one sample at a time, with nothing of one sample still
running when the next starts.

A sample is the wall time of one process from spawn to exit and its peak memory (max RSS of the
process and of the children it waited for, from ``wait4``), both taken by a small process that
starts every sample (``spawner.py`` says why). Tools that leave detached processes
behind (teamai-cli 0.25's hooks do) would otherwise steal the CPU from the next sample, so every
tool process carries a mark in its environment; after the sample, processes bearing the mark are
waited for, up to a bound, and what remains is killed. Where Linux allows it this process becomes
a child subreaper, so orphaned descendants are re-parented here and their memory and lifetime
can be read when they are reaped.

Samples and figures are floats (milliseconds), so code that adds and divides times keeps working;
they carry what a report needs besides the median: the spread and the memory.
"""

from __future__ import annotations

import atexit
import marshal
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence

from conformance.drivers.teamai_cli import MARK, marked_processes

SPAWNER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "spawner.py")
SETTLE_LIMIT = 10.0  # seconds a tool's leftover processes get before they are killed
_POLL = 0.02


class Sample(float):
    """Milliseconds of one fresh process, with its peak memory in KiB (``None`` when unknown)."""

    rss_kb: int | None

    def __new__(cls, ms: float, rss_kb: int | None = None) -> Sample:
        self = super().__new__(cls, ms)
        self.rss_kb = rss_kb
        return self


class Figure(float):
    """The median of some samples (milliseconds), keeping the samples for the spread and the
    memory. The spread is min–max; the inter-quartile range is kept too for the JSON rows."""

    samples: tuple[float, ...]
    rss_kb: int | None

    def __new__(cls, samples: Iterable[float]) -> Figure:
        values = tuple(samples)
        if not values:
            raise ValueError("a figure needs at least one sample")
        self = super().__new__(cls, statistics.median(values))
        self.samples = values
        rss = [s.rss_kb for s in values if isinstance(s, Sample) and s.rss_kb is not None]
        self.rss_kb = max(rss) if rss else None
        return self

    @property
    def low(self) -> float:
        return min(self.samples)

    @property
    def high(self) -> float:
        return max(self.samples)

    @property
    def quartiles(self) -> tuple[float, float]:
        if len(self.samples) < 2:
            return self.samples[0], self.samples[0]
        q = statistics.quantiles(self.samples, n=4, method="inclusive")
        return q[0], q[2]


def median(samples: Iterable[float]) -> Figure:
    return Figure(samples)


class Spawner:
    """The small process samples are started from (``spawner.py``: why, and its protocol)."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen([sys.executable, "-I", "-S", SPAWNER], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE)
        atexit.register(self.close)

    def run(self, argv: list[str], env: dict[str, str], cwd: str | None,
            paths: tuple[str, str, str]) -> tuple[float, int, int]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        request = marshal.dumps((argv, env, cwd, paths))
        self.proc.stdin.write(len(request).to_bytes(4, "little") + request)
        self.proc.stdin.flush()
        head = self.proc.stdout.read(4)
        if len(head) < 4:
            raise RuntimeError("the bench's process spawner ended")
        ms, code, rss = marshal.loads(self.proc.stdout.read(int.from_bytes(head, "little")))
        return float(ms), int(code), int(rss)

    def close(self) -> None:
        if self.proc.poll() is None:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            self.proc.wait()


_spawner: Spawner | None = None


def timed(cmd: Sequence[str], env: Mapping[str, str] | None = None, stdin: bytes = b"",
          cwd: str | None = None, codes: Iterable[int] = (0, 1)) -> Sample:
    """One fresh process: its wall time from spawn to exit and its peak memory (with the children
    it waited for). The standard streams are files, so a process can never block on a pipe."""
    global _spawner
    if _spawner is None or _spawner.proc.poll() is not None:
        _spawner = Spawner()
    with tempfile.TemporaryDirectory(prefix="bench-sample-") as tmp:
        paths = (os.path.join(tmp, "in"), os.path.join(tmp, "out"), os.path.join(tmp, "err"))
        for path, data in zip(paths, (stdin, b"", b""), strict=True):
            with open(path, "wb") as fh:
                fh.write(data)
        ms, code, rss = _spawner.run(list(cmd), dict(os.environ if env is None else env), cwd, paths)
        if code not in set(codes):
            with open(paths[2], "rb") as fh:
                tail = fh.read().decode("utf-8", "replace")[-400:]
            raise RuntimeError(f"{' '.join(cmd[:3])} exited {code}: {tail}")
    return Sample(ms, rss)


def paired(floor: Sequence[str], runs: int, sample: Callable[[], float]) -> tuple[Figure, Figure]:
    """Medians of the floor and of ``sample()`` taken in alternation, so that a machine that gets
    busier or quieter during the run moves both alike."""
    floors, samples = rounds(runs, lambda _: timed(floor), lambda _: sample())
    return floors, samples


def rounds(n: int, *tools: Callable[[int], float]) -> list[Figure]:
    """``n`` rounds, each calling every tool once in the order given with the round's number (so
    each tool gets the same query in the same round); one figure per tool."""
    taken: list[list[float]] = [[] for _ in tools]
    for i in range(n):
        for samples, tool in zip(taken, tools, strict=True):
            samples.append(tool(i))
    return [Figure(s) for s in taken]


_subreaper: bool | None = None


def become_subreaper() -> bool:
    """Ask Linux to re-parent orphaned descendants to this process (``PR_SET_CHILD_SUBREAPER``),
    so a tool's detached processes can be reaped and weighed here. False where unsupported."""
    global _subreaper
    if _subreaper is None:
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            _subreaper = libc.prctl(36, 1, 0, 0, 0) == 0
        except (OSError, AttributeError):
            _subreaper = False
    return _subreaper


def _reap() -> list[int]:
    """Reap every child that has ended (orphans re-parented here); their peak RSS in KiB.

    Only called between samples, when no ``subprocess`` child of this process is outstanding."""
    found = []
    while True:
        try:
            pid, _, usage = os.wait4(-1, os.WNOHANG)
        except ChildProcessError:
            break
        if pid == 0:
            break
        found.append(int(usage.ru_maxrss))
    return found


class Leftovers:
    """What one tool's processes left running after their samples: how long it lingered after
    each sample's process exited, how often it had to be killed, its peak memory."""

    def __init__(self) -> None:
        self.lingered_ms: list[float] = []
        self.killed = 0
        self.rss_kb: list[int] = []

    @property
    def seen(self) -> int:
        return sum(1 for ms in self.lingered_ms if ms > 0)

    def describe(self, limit: float) -> str:
        """One line for the report, or "" when nothing was ever left running."""
        if not self.seen:
            return ""
        text = (f"left a detached process after {self.seen} of {len(self.lingered_ms)} calls, running up to "
                f"{max(self.lingered_ms):.0f} ms longer")
        if self.rss_kb:
            text += f" (max RSS {max(self.rss_kb) / 1024:.1f} MB)"
        if self.killed:
            text += f", killed {self.killed} times at the {limit:g} s bound"
        return text + "; each was gone before the next sample"


class Tool:
    """One tool's command line, run as marked fresh processes; after each sample its leftover
    processes are waited for (at most ``limit`` seconds), then killed, then reaped."""

    def __init__(self, name: str, argv: Sequence[str], env: Mapping[str, str] | None = None,
                 limit: float = SETTLE_LIMIT, codes: Iterable[int] = (0, 1)) -> None:
        self.name = name
        self.argv = list(argv)
        self.env = dict(os.environ if env is None else env)
        self.limit = limit
        self.codes = tuple(codes)
        self.leftovers = Leftovers()
        self.mark = ""  # the last sample's
        become_subreaper()

    def __call__(self, *args: str, stdin: bytes = b"", cwd: str | None = None) -> Sample:
        self.mark = mark = uuid.uuid4().hex
        sample = timed([*self.argv, *args], {**self.env, MARK: mark}, stdin, cwd, self.codes)
        self.settle(mark)
        return sample

    def settle(self, mark: str) -> None:
        start = time.monotonic()
        deadline = start + self.limit
        lingered = 0.0
        left = marked_processes(mark)
        seen = set(left)
        while left and time.monotonic() < deadline:
            self.leftovers.rss_kb += _reap()
            time.sleep(_POLL)
            left = marked_processes(mark)
            seen.update(left)
            lingered = (time.monotonic() - start) * 1000
        if left:
            self.leftovers.killed += 1
            for pid in left:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
        # A process stops showing its environment as its exit begins; wait until it has ended.
        self.leftovers.rss_kb += _gone(seen, time.monotonic() + 5)
        self.leftovers.rss_kb += _reap()
        self.leftovers.lingered_ms.append(lingered)


def _gone(pids: Iterable[int], deadline: float) -> list[int]:
    """Wait (until ``deadline``) for each of ``pids`` to end; reap those that are children here
    and return their peak RSS in KiB."""
    found = []
    for pid in pids:
        while time.monotonic() < deadline:
            try:
                done, _, usage = os.wait4(pid, os.WNOHANG)
            except ChildProcessError:  # not a child here (or reaped already): watch /proc instead
                if not _running(pid):
                    break
            else:
                if done:
                    found.append(int(usage.ru_maxrss))
                    break
            time.sleep(_POLL / 4)
    return found


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return fh.read().rsplit(b") ", 1)[-1][:1] != b"Z"
    except OSError:
        return False
