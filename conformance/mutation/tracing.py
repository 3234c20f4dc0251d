"""Which scenarios execute which lines of the target modules, from one traced run of the corpus.

A mutant is judged only by the scenarios that execute its code: the others would pass whatever the
mutant does. Each scenario is run once against the unmutated reference under ``coverage`` with the
scenario as the dynamic context; its lines, its outcome and its duration are kept per scenario,
keyed by the scenario's own text and payloads and by the code of the reference and the harness, so
a new or edited scenario is traced alone.

Lines that run while the modules are imported (tables, defaults, helpers called at import) are
recorded under the context ``<import>``: what they decide is used later by every scenario that uses
the module, so :mod:`.plan` widens their scenarios accordingly.

Lines that run on first use and are then remembered in a module's globals (PyYAML's loader, memos of
parsed instants, tables built lazily) would be credited to the first scenario that happened to need
them, and a mutant there judged by that one scenario. So before each scenario the reference's module
globals are put back as importing left them (:class:`Pristine`): every scenario starts as a fresh
process would, and runs the code that fills what it needs.
"""

from __future__ import annotations

import ast
import hashlib
import importlib
import json
import pkgutil
import sys
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..corpus.read import Corpus, Scenario
from ..implementations import connect
from ..running.case_runner import run_case
from .judge import quick_io
from .targets import Target

IMPORT = "<import>"
# How traces are taken: a stored trace of another version is taken again (2: module state put back
# before each scenario).
TRACE_VERSION = b"2"
CASE_TIMEOUT = 120.0  # traced runs are slow; only a hung reference would reach this


def purge_reference() -> None:
    """Forget every imported module of the reference, so the next import runs its code again."""
    for name in [n for n in sys.modules if n == "reference" or n.startswith("reference.")]:
        del sys.modules[name]


def _reference_modules() -> list[Any]:
    return [m for n, m in list(sys.modules.items()) if m is not None and (n == "reference" or n.startswith("reference."))]


class Pristine:
    """The globals of every imported reference module as they are now, put back by :meth:`restore`:
    names bound since are dropped, rebound ones bound again, and the dicts, lists and sets they held
    given back their contents (memos fill them in place); ``functools`` caches are cleared."""

    def __init__(self) -> None:
        self._saved: list[tuple[dict[str, Any], dict[str, Any], dict[str, Any]]] = []
        for module in _reference_modules():
            names = vars(module)
            contents = {k: v.copy() for k, v in names.items() if type(v) in (dict, list, set)}
            self._saved.append((names, dict(names), contents))

    def restore(self) -> None:
        for names, bound, contents in self._saved:
            for name in [n for n in names if n not in bound]:
                del names[name]
            for name, value in bound.items():
                if names.get(name) is not value:
                    names[name] = value
                if name in contents and value != contents[name]:
                    value.clear()
                    (value.update if not isinstance(value, list) else value.extend)(contents[name])
                clear = getattr(value, "cache_clear", None)
                if callable(clear) and hasattr(value, "cache_info"):
                    clear()


def import_reference() -> None:
    """Import every module of the reference (its entry points aside), so none is first imported,
    with its lazy state, in the middle of a scenario."""
    import reference

    for info in pkgutil.walk_packages(reference.__path__, "reference."):
        if info.name.endswith(("__main__", "hook.fast")):
            continue
        try:
            importlib.import_module(info.name)
        except Exception:  # noqa: BLE001 - a module that fails to import is the baseline's problem
            pass


def code_hash(root: Path, *, layout: bool = False) -> str:
    """The reference and the harness that judge a mutant: any change of them may change a verdict.
    The mutation tool itself is left out (its operators are part of each mutant's id).

    By default a module counts by its syntax tree, so a comment or a line wrapped differently keeps
    an hour of verdicts. Traces name line numbers, so they are kept by the text itself (``layout``).
    """
    h = hashlib.sha256(TRACE_VERSION if layout else b"")
    files = [*sorted((root / "reference").rglob("*.py")), *sorted((root / "conformance").rglob("*.py")),
             *sorted((root / "conformance" / "schemas").rglob("*.json"))]
    for path in files:
        rel = path.relative_to(root).as_posix()
        if rel.startswith("conformance/mutation/"):
            continue
        data = path.read_bytes()
        h.update(rel.encode() + b"\0" + (data if layout else meaning(data, path.suffix)) + b"\0")
    return h.hexdigest()[:16]


def meaning(source: bytes | str, suffix: str = ".py") -> bytes:
    """A module's syntax tree without comments, layout or line numbers; other files as they are."""
    raw = source.encode() if isinstance(source, str) else source
    if suffix != ".py":
        return raw
    try:
        return ast.dump(ast.parse(raw)).encode()
    except (SyntaxError, ValueError):
        return raw


def payload_names(scenario: Scenario) -> list[str]:
    return sorted({str(step["hook"]) for step in scenario.steps if isinstance(step, dict) and step.get("hook")})


def scenario_hash(scenario: Scenario, corpus: Corpus) -> str:
    """The scenario's meaning: its file and the payloads its steps send."""
    h = hashlib.sha256(scenario.path.read_bytes())
    for name in payload_names(scenario):
        payload = corpus.payloads.get(name)
        h.update(b"\0" + name.encode() + b"\0" + (payload.path.read_bytes() if payload else b"-"))
    return h.hexdigest()[:16]


def trace(root: Path, corpus: Corpus, scenarios: Iterable[Scenario], targets: list[Target]) -> dict[str, dict[str, Any]]:
    """``{case id: {"lines": {path: [line, ...]}, "outcome": ..., "duration": seconds}}`` for each
    scenario, plus ``IMPORT`` with the lines that ran at import."""
    import coverage

    files = {str((root / t.path).resolve()): t.path for t in targets}
    purge_reference()
    cov = coverage.Coverage(data_file=None, include=list(files), config_file=False, branch=False)
    out: dict[str, dict[str, Any]] = {}
    outcomes: dict[str, tuple[str, float]] = {}
    cov.start()
    try:
        cov.switch_context(IMPORT)
        import_reference()
        driver = connect("reference")
        pristine = Pristine()
        with quick_io():
            for scenario in scenarios:
                pristine.restore()
                cov.switch_context(scenario.id)
                started = time.perf_counter()
                result = run_case(driver, scenario, corpus.payloads, CASE_TIMEOUT)
                outcomes[scenario.id] = (result.outcome, time.perf_counter() - started)
        driver.stop()
    finally:
        cov.stop()
    data = cov.get_data()
    lines: dict[str, dict[str, set[int]]] = {}
    for measured in data.measured_files():
        rel = files.get(str(Path(measured).resolve()))
        if rel is None:
            continue
        for line, contexts in data.contexts_by_lineno(measured).items():
            for context in contexts:
                lines.setdefault(context, {}).setdefault(rel, set()).add(line)
    for case_id, (outcome, duration) in outcomes.items():
        out[case_id] = {"lines": {p: sorted(ls) for p, ls in lines.get(case_id, {}).items()},
                        "outcome": outcome, "duration": round(duration, 4)}
    out[IMPORT] = {"lines": {p: sorted(ls) for p, ls in lines.get(IMPORT, {}).items()}, "outcome": "pass",
                   "duration": 0.0}
    return out


def dump(data: dict[str, Any]) -> str:
    return json.dumps(data, sort_keys=True, separators=(",", ":"))
