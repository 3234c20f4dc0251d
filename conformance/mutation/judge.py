"""Judging mutants: each in a forked process that imports the mutated module and runs scenarios.

The working tree is never touched: the child process drops the reference modules that depend on
the mutated one, puts an import hook in front that serves the mutated code under the module's
own name and file, and runs the scenarios in-process (the ``reference`` driver), in the order it
was given, until one does not end as it did against the unmutated reference. A mutant is killed
by a failing, erroring or crashing scenario, and by a timeout (an endless loop): a case past its
time is stopped by the harness, and a process past the mutant's whole budget is killed.
"""

from __future__ import annotations

import ast
import gc
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import select
import shutil
import signal
import sys
import tempfile
import time
import types
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..corpus.read import Corpus
from .operators import Mutant

KILLED, TIMEOUT, SURVIVED, UNCOVERED = "killed", "timeout", "survived", "uncovered"
LISTED = "listed"  # listed as equivalent and, unless asked, not judged


@dataclass
class Job:
    mutant: Mutant
    scenarios: list[str]  # in the order to run them
    budget: float  # seconds for the whole mutant, after which the process is killed
    case_timeout: dict[str, float]


@dataclass
class Verdict:
    status: str  # killed / timeout / survived / uncovered
    by: str | None = None  # the scenario that killed it
    outcome: str | None = None  # that scenario's outcome (fail, error, crash, timeout)
    message: str = ""
    ran: int = 0  # scenarios run
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {"status": self.status, "by": self.by, "outcome": self.outcome, "message": self.message[:500],
                "ran": self.ran, "seconds": round(self.seconds, 3)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Verdict:
        return cls(str(data["status"]), data.get("by"), data.get("outcome"), str(data.get("message", "")),
                   int(data.get("ran", 0)), float(data.get("seconds", 0.0)))


@contextmanager
def quick_io() -> Iterator[None]:
    """Scenario sandboxes in memory (``/dev/shm`` where there is one), no ``fsync`` and no message
    catalogue lookups: durability and translations decide no verdict, and they are most of a
    scenario's time on a busy disk. Used for the traced run and every mutant alike."""
    shm = "/dev/shm"
    saved = (tempfile.tempdir, os.fsync, os.environ.get("LANGUAGE"))
    if os.path.isdir(shm) and os.access(shm, os.W_OK):
        tempfile.tempdir = shm
    os.fsync = lambda fd: None  # type: ignore[assignment]
    os.environ["LANGUAGE"] = "C"  # argparse asks gettext for every message; "C" answers at once
    try:
        yield
    finally:
        tempfile.tempdir, os.fsync = saved[0], saved[1]
        if saved[2] is None:
            os.environ.pop("LANGUAGE", None)
        else:
            os.environ["LANGUAGE"] = saved[2]


class _Serve(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Serves one module from a code object instead of its file."""

    def __init__(self, name: str, filename: str, code: types.CodeType) -> None:
        self.name, self.filename, self.code = name, filename, code

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> importlib.machinery.ModuleSpec | None:
        if fullname != self.name:
            return None
        package = Path(self.filename).name == "__init__.py"
        spec = importlib.util.spec_from_loader(fullname, self, origin=self.filename, is_package=package)
        if spec is not None:
            spec.has_location = True
            if package:  # its submodules are still found next to it
                spec.submodule_search_locations = [str(Path(self.filename).parent)]
        return spec

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> None:
        return None

    def exec_module(self, module: types.ModuleType) -> None:
        module.__file__ = self.filename
        exec(self.code, module.__dict__)  # noqa: S102 - the mutant is the point


def dependents(root: Path, module: str) -> set[str]:
    """``module`` and every reference module that imports it, directly or through others, at
    import time: those hold its names and must be imported again."""
    graph: dict[str, set[str]] = {}
    for path in (root / "reference").rglob("*.py"):
        name = path.relative_to(root).with_suffix("").as_posix().replace("/", ".").removesuffix(".__init__")
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        graph[name] = _imports(ast.parse(path.read_bytes()), package)
    out = {module}
    grew = True
    while grew:
        grew = False
        for name, uses in graph.items():
            if name not in out and uses & out:
                out.add(name)
                grew = True
    return out


def _imports(tree: ast.Module, package: str) -> set[str]:
    found: set[str] = set()
    todo: list[ast.AST] = list(tree.body)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue  # imports inside functions run at call time and find the new modules
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parent = ".".join(parts[:len(parts) - node.level + 1])
                base = f"{parent}.{base}" if base else parent
            found.add(base)
            found.update(f"{base}.{a.name}" for a in node.names)
        else:
            todo.extend(ast.iter_child_nodes(node))
    return found


def _run_in_child(job: Job, code: types.CodeType, stale: set[str], corpus: Corpus,
                  baseline: dict[str, str]) -> Verdict:
    from ..implementations import connect
    from ..running.case_runner import run_case
    from ..running.driver import DriverUnusable

    started = time.perf_counter()
    for name in [n for n in sys.modules if n in stale]:
        del sys.modules[name]
        parent, _, child = name.rpartition(".")
        if parent in sys.modules and parent not in stale and hasattr(sys.modules[parent], child):
            delattr(sys.modules[parent], child)  # else ``from . import child`` finds the old one
    sys.meta_path.insert(0, _Serve(job.mutant.module, str(Path(job.mutant.path).resolve()), code))
    sys.dont_write_bytecode = True
    try:
        driver = connect("reference")
    except DriverUnusable as exc:
        return Verdict(KILLED, None, "crash", f"the mutated reference does not start: {exc}", 0,
                       time.perf_counter() - started)
    except Exception as exc:  # noqa: BLE001 - a mutant that breaks the import is killed
        return Verdict(KILLED, None, "crash", f"import: {type(exc).__name__}: {exc}", 0, time.perf_counter() - started)
    scenarios = corpus.by_id()
    ran = 0
    for case_id in job.scenarios:
        ran += 1
        result = run_case(driver, scenarios[case_id], corpus.payloads, job.case_timeout.get(case_id, 30.0))
        if result.outcome != baseline.get(case_id, "pass"):
            status = TIMEOUT if result.outcome == "timeout" else KILLED
            return Verdict(status, case_id, result.outcome, result.message, ran, time.perf_counter() - started)
    return Verdict(SURVIVED, None, None, "", ran, time.perf_counter() - started)


@dataclass
class _Running:
    job: Job
    pid: int
    fd: int
    deadline: float
    chunks: list[bytes]


def run_jobs(jobs: Iterable[Job], compile_mutant: Callable[[Mutant], types.CodeType],
             stale_for: Callable[[str], set[str]], corpus: Corpus, baseline: dict[str, str],
             workers: int, order: Callable[[Job], Job] | None = None) -> Iterator[tuple[Job, Verdict]]:
    """Each job's verdict as it comes, at most ``workers`` processes at a time. ``order`` may
    reorder a job's scenarios just before it starts (to try likely killers first)."""
    pending = list(jobs)
    pending.reverse()
    gc.collect()
    gc.freeze()  # the children share the parent's objects; a collection there would copy every page
    running: dict[int, _Running] = {}
    while pending or running:
        while pending and len(running) < max(1, workers):
            job = pending.pop()
            if order is not None:
                job = order(job)
            code = compile_mutant(job.mutant)
            stale = stale_for(job.mutant.module)
            read_fd, write_fd = os.pipe()
            pid = os.fork()
            if pid == 0:  # the child: judge, write the verdict, leave without cleanup
                os.close(read_fd)
                _child(job, code, stale, corpus, baseline, write_fd)
            os.close(write_fd)
            running[read_fd] = _Running(job, pid, read_fd, time.monotonic() + job.budget, [])
        wait = max(0.0, min(r.deadline for r in running.values()) - time.monotonic())
        ready, _, _ = select.select(list(running), [], [], min(wait, 1.0))
        for fd in ready:
            item = running[fd]
            chunk = os.read(fd, 1 << 16)
            if chunk:
                item.chunks.append(chunk)
                continue
            del running[fd]
            os.close(fd)
            os.waitpid(item.pid, 0)
            yield item.job, _decode(b"".join(item.chunks))
        now = time.monotonic()
        for fd, item in list(running.items()):
            if fd in ready or now < item.deadline:
                continue
            del running[fd]
            os.kill(item.pid, signal.SIGKILL)
            os.waitpid(item.pid, 0)
            os.close(fd)
            yield item.job, Verdict(TIMEOUT, None, "timeout", f"no verdict within {item.job.budget:.0f}s: killed",
                                    0, item.job.budget)


def _child(job: Job, code: types.CodeType, stale: set[str], corpus: Corpus, baseline: dict[str, str],
           write_fd: int) -> None:
    # A mutant may write where it should not (a path and its content swapped, a relative name): the
    # child works in a folder of its own, so nothing lands in the working tree.
    scratch = tempfile.mkdtemp(prefix="teamai-mutant-")
    try:
        os.chdir(scratch)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        with quick_io():
            verdict = _run_in_child(job, code, stale, corpus, baseline)
    except BaseException as exc:  # noqa: BLE001 - whatever the mutant does, the parent gets a verdict
        verdict = Verdict(KILLED, None, "crash", f"{type(exc).__name__}: {exc}")
    try:
        data = json.dumps(verdict.to_json()).encode()
        while data:
            data = data[os.write(write_fd, data):]
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        os._exit(0)


def _decode(data: bytes) -> Verdict:
    try:
        return Verdict.from_json(json.loads(data))
    except (ValueError, KeyError, TypeError):
        return Verdict(KILLED, None, "crash", "the judging process died without a verdict")
