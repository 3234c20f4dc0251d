"""Generated scenarios run end to end through the harness's in-process driver, the way
``teamai-conformance run`` runs a scenario file; a failing one is written out as a file.

Also: how many examples a property runs (``TEAMAI_SESSION_EXAMPLES`` for a long local run), and the
check that the cases an invariant exists for were reached often enough to mean something.
"""

from __future__ import annotations

import json
import math
import os
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, NoReturn

from hypothesis import event

from conformance.comparison import counterexample
from conformance.corpus import read as corpus
from conformance.implementations import connect
from conformance.running.case_runner import run_case
from conformance.running.driver import Driver
from conformance.running.outcomes import CaseResult

from . import agents

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES_ENV = "TEAMAI_SESSION_EXAMPLES"
_STATE: dict[str, Any] = {}


def _long_run() -> int | None:
    value = os.environ.get(EXAMPLES_ENV, "").strip()
    return int(value) if value.isdigit() and int(value) > 0 else None


def examples(default: int, share: int = 1) -> int:
    """``default`` in the suite (a CI run on two cores), or ``$TEAMAI_SESSION_EXAMPLES``; divided
    among ``share`` properties that make up one test."""
    total = _long_run() or default
    return max(1, -(-total // share))


def profile(default: int, share: int = 1) -> dict[str, Any]:
    """Settings for a generated-session property. In the suite its examples are derandomized: a
    few dozen end-to-end examples cannot reach the rarer cases in a stable share, and a check on
    shares that fails one run in ten would teach people to ignore it. The examples then change
    only with the code, and the share check says when a change stops reaching a case. A long run
    (``$TEAMAI_SESSION_EXAMPLES``) draws fresh examples every time, to find new counterexamples."""
    return {"deadline": None, "max_examples": examples(default, share), "derandomize": _long_run() is None}


def payloads() -> dict[str, corpus.Payload]:
    if "payloads" not in _STATE:
        found = {}
        for path in sorted((ROOT / "payloads").glob("*/*.json")):
            name = f"{path.parent.name}/{path.stem}"
            found[name] = corpus.Payload(name, path, path.relative_to(ROOT).as_posix(),
                                         json.loads(path.read_text(encoding="utf-8")))
        _STATE["payloads"] = found
    return dict(_STATE["payloads"])


def driver() -> Driver:
    if "driver" not in _STATE:
        _STATE["driver"] = connect("reference")
    return _STATE["driver"]  # type: ignore[no-any-return]


def run(data: dict[str, Any], area: str) -> CaseResult:
    scenario = corpus.Scenario(Path(f"{data['id']}.yaml"), f"scenarios/{area}/{data['id']}.yaml", area, data)
    return run_case(driver(), scenario, payloads(), timeout=300)


def fail(test: str, invariant: str, problems: list[str], cases: list[tuple[dict[str, Any], str]],
         details: Any = None) -> NoReturn:
    """Fail the example; on Hypothesis's final run, write each scenario of ``cases`` (data, area)
    out as a counterexample and name the files."""
    lines = [f"{invariant}:", *(f"  - {p}" for p in problems)]
    if details is not None:
        lines.append("the spec's verdicts: " + json.dumps(details, ensure_ascii=False, default=str))
    if counterexample.final_example():
        comments = [*counterexample.reproduction(test), f"Invariant broken: {invariant}.", *problems,
                    "Review it; to keep it, move the file into scenarios/<area>/ and give it a real title."]
        for data, area in cases:
            path = counterexample.write(data, area, payloads(), comments)
            lines.append(f"counterexample written to {path}; run it with: {counterexample.rerun(path)}")
    raise AssertionError("\n".join(lines))


class Reach:
    """How often each interesting case was reached, to fail a property whose examples miss them."""

    def __init__(self) -> None:
        self.examples = 0
        self.cases: Counter[str] = Counter()

    def saw(self, cases: Iterable[str]) -> None:
        self.examples += 1
        for case in sorted(set(cases)):
            self.cases[case] += 1
            event(case)

    def saw_once(self, case: str) -> None:
        """Count ``case`` for the example being judged (after :meth:`saw`)."""
        self.cases[case] += 1
        event(case)

    def share(self, case: str) -> float:
        return self.cases[case] / self.examples if self.examples else 0.0

    def require(self, minimum: dict[str, float]) -> None:
        """Each case reached in at least its share of the examples.

        Derandomized (the suite, CI) the examples change only with the code, so the share is a
        fact about them and is held exactly. Fresh examples (a long run, ``nox -s sessions_fresh``)
        are a sample: a case fails only when so few examples reached it that a generator reaching
        it in the floor's share would do that in fewer than one run in :data:`FLOOR_MISS` (a
        one-sided binomial test), so a floor is stable however the seed falls, and a generator
        whose share really dropped still fails, the surer the more examples run."""
        fresh = _long_run() is not None
        short = {case: f"{self.share(case):.0%} < {want:.0%}" for case, want in minimum.items()
                 if self.share(case) < want and (not fresh or _unlikely(self.cases[case], self.examples, want))}
        assert not short, (f"over {self.examples} examples these cases were reached too rarely to test anything: "
                           f"{short}; reached: {dict(self.cases)}")

    def report(self) -> str:
        return f"{self.examples} examples: " + ", ".join(
            f"{case} {n / self.examples:.0%}" for case, n in sorted(self.cases.items()))


FLOOR_MISS = 1000


def _unlikely(hits: int, examples: int, share: float) -> bool:
    """Whether ``hits`` or fewer in ``examples`` draws is rarer than one in :data:`FLOOR_MISS` for a
    case reached with probability ``share``."""
    if share <= 0:
        return False
    if share >= 1:
        return hits < examples

    def log_p(k: int) -> float:  # log of P(exactly k), in logs: the terms overflow a float
        return (math.lgamma(examples + 1) - math.lgamma(k + 1) - math.lgamma(examples - k + 1)
                + k * math.log(share) + (examples - k) * math.log1p(-share))

    below = sum(math.exp(log_p(k)) for k in range(hits + 1))
    return below < 1 / FLOOR_MISS


def each_lead(property_for: Callable[[str, Reach], Callable[[], None]], minimum: dict[str, float]) -> None:
    """Run a property once per leading agent, so each leads an equal share of the examples
    (Hypothesis clusters its choices: a free draw of agents leaves some out of a short run), then
    require that every interesting case was reached often enough."""
    reach = Reach()
    for lead in agents.AGENTS:
        property_for(lead, reach)()
    print(reach.report())
    reach.require(minimum)
