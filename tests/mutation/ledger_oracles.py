"""Review aid for the ledger's surviving mutants: hold each one to an oracle before it is listed.

    python tests/mutation/ledger_oracles.py splice reports/mutation/partial.jsonl _splice,_section,_block
    python tests/mutation/ledger_oracles.py parse reports/mutation/partial.jsonl _common,_loader

``splice``: the in-place raise must either decline (a ValueError, and the ledger is then written
whole) or write the very bytes the whole write writes, as ``tests/test_ledger_raising.py`` asks of
the unmutated code. ``parse``: the mutated ``parse`` must read every ledger the corpus gives, and
random documents in every spelling of ``tests/test_ledger_spelling.py``, as the unmutated one does.

Each mutant of the named functions that the report lists as a survivor is compiled into a module of
its own (the working tree is never touched), under the module's name, with the ledger's modules that
import it (``ledger_write``, ``ledger``) built again over it, and checked; one line per mutant says ``same`` or gives
the first input read otherwise. A mutant that passes is a candidate for the equivalents file, with
a reason that names the oracle; one that fails is a scenario to write.
"""

from __future__ import annotations

import argparse
import ast
import json
import signal
import sys
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from conformance.corpus import read as corpus_mod  # noqa: E402
from conformance.mutation import operators, walker  # noqa: E402
from reference.state import ledger as real  # noqa: E402
from reference.state import ledger_read, ledger_write  # noqa: E402

EXAMPLES = 300
SECONDS = 90
# The ledger's modules, each importing only those before it: the rules over the file format.
LEDGER = ("reference.state.ledger_read", "reference.state.ledger_write", "reference.state.ledger")


class _Timeout(Exception):
    pass


def _alarm(*_: object) -> None:
    raise _Timeout


def _source(name: str) -> Path:
    return ROOT / (name.replace(".", "/") + ".py")


def _mutated(mutant: operators.Mutant, trees: dict[str, ast.Module]) -> dict[str, types.ModuleType]:
    """The ledger's modules by name: the mutant's own compiled with the mutant, those after it built
    again over it (their ``from .ledger_read import ...`` finds it), those before it the real ones."""
    real_modules = {name: sys.modules[name] for name in LEDGER}
    built = dict(real_modules)
    try:
        for name in LEDGER[LEDGER.index(mutant.module):]:
            path = str(_source(name))
            module = types.ModuleType(name)
            module.__package__ = name.rpartition(".")[0]
            module.__file__ = path
            code = (mutant.compile(trees[name], path) if name == mutant.module
                    else compile(trees[name], path, "exec", dont_inherit=True))
            sys.modules[name] = module
            exec(code, module.__dict__)  # noqa: S102 - the mutant is the point
            module.CorruptLedger = ledger_read.CorruptLedger  # one class, so a corrupt ledger is corrupt to both
            built[name] = module
    finally:
        sys.modules.update(real_modules)
    return built


def _splice_check(modules: dict[str, types.ModuleType]) -> str:
    import test_ledger_raising as raising

    found: list[str] = []

    @settings(max_examples=EXAMPLES, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(st.data())
    def check(data: st.DataObject) -> None:
        text = data.draw(raising.ledgers())
        raises = data.draw(raising.raised(text))
        whole = ledger_write.dump(real._raised(real.parse(text), raises))
        try:
            spliced = modules["reference.state.ledger_write"]._splice(text.encode(), raises).decode()
        except ValueError:
            return  # declined: the ledger is written whole
        if spliced != whole:
            same = repr(real.parse(spliced)) == repr(real.parse(whole))
            found.append(("same meaning, other bytes: " if same else "differs: ") + repr((text, raises))[:300])
            raise AssertionError

    try:
        check()
    except AssertionError:  # hypothesis shrank it: the last text found is the smallest
        pass
    return "same" if not found else found[-1]


def _meaning(module: Any, text: str) -> tuple[Any, ...]:
    try:
        return ("ok", repr(module.parse(text)))  # repr: a NaN equals itself
    except ledger_read.CorruptLedger:
        return ("corrupt",)
    except Exception as exc:  # noqa: BLE001 - a mutant may raise anything; that is a difference
        return ("raises", type(exc).__name__)


def _parse_check(modules: dict[str, types.ModuleType], given_ledgers: list[str]) -> str:
    import test_ledger_spelling as spelling

    module = modules["reference.state.ledger"]
    for text in given_ledgers:
        if _meaning(real, text) != _meaning(module, text):
            return "differs: " + repr(text)[:300]
    found: list[str] = []

    @settings(max_examples=EXAMPLES, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(spelling.documents(), st.sampled_from(sorted(spelling.SPELLINGS)))
    def check(doc: dict[str, Any], style: str) -> None:
        text = spelling.SPELLINGS[style](doc)
        if _meaning(real, text) != _meaning(module, text):
            found.append("differs: " + repr(text)[:300])
            raise AssertionError

    try:
        check()
    except AssertionError:  # hypothesis shrank it: the last text found is the smallest
        pass
    return "same" if not found else found[-1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("oracle", choices=("splice", "parse"))
    parser.add_argument("report", type=Path,
                        help="a report's .jsonl (python -m conformance.mutation --module 'ledger*')")
    parser.add_argument("functions", help="comma-separated function names, as mutant ids spell them")
    args = parser.parse_args(argv)

    sources = {name: _source(name).read_text(encoding="utf-8") for name in LEDGER}
    trees = {name: ast.parse(source) for name, source in sources.items()}
    mutants = {m.id: m for name, source in sources.items()
               for m in walker.mutants(source, name, _source(name).relative_to(ROOT).as_posix())}
    wanted = set(args.functions.split(","))
    rows = [json.loads(line) for line in args.report.read_text(encoding="utf-8").splitlines() if line.strip()]
    ids = [r["id"] for r in rows if r["status"] == "survived" and not r.get("equivalent")
           and r["id"].split(":")[1] in wanted and r["id"] in mutants]
    given_ledgers = [s.data["given"]["votes"] for s in corpus_mod.load(ROOT).scenarios
                     if isinstance(s.data.get("given"), dict) and isinstance(s.data["given"].get("votes"), str)]
    check: Callable[[dict[str, types.ModuleType]], str] = (
        _splice_check if args.oracle == "splice" else lambda module: _parse_check(module, given_ledgers))
    signal.signal(signal.SIGALRM, _alarm)
    for ident in ids:
        signal.alarm(SECONDS)
        try:
            verdict = check(_mutated(mutants[ident], trees))
        except _Timeout:
            verdict = "timeout"
        except Exception as exc:  # noqa: BLE001 - a mutant that raises outside the declines differs
            verdict = f"differs: raises {type(exc).__name__}: {exc}"[:300]
        finally:
            signal.alarm(0)
        print(f"{ident}  {verdict}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
