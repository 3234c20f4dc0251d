"""Whether each case of the corpus can fail, and fails for the right reason.

Four checks; the first two are runs of the corpus against a hollow implementation
(``drivers/hollow.py``), the other two read the files alone:

- **Nothing passes against nothing.** Against :class:`~conformance.drivers.hollow.DoNothing`
  every case must fail or be not-applicable: a case that passes there has no expectation an
  empty implementation breaks, so it would pass against any implementation at all.
- **Attribution cases fail on the log.** A case that feeds the hook a tool call (a step whose
  event is post-tool-use or post-tool-use-failure) is about what the hook records. Against
  :class:`~conformance.drivers.hollow.HooksOff` (the reference with its hook recording nothing)
  it must fail on a ``log_contains`` expectation: a line the hook must write. A "never counts" case whose only failure there is
  ``upvoted_count`` (or that does not fail at all) cannot tell a hook that rightly wrote nothing
  from a hook that never ran.
- **A "no vote" case names the evidence line.** A case that feeds the hook a tool call and expects
  a doc to get no upvote says what became of the read: its evidence line is in ``log_contains``
  (recorded, and the reducer declined it) or in ``log_absent`` (the hook must not record it).
  Otherwise a hook that drops the line passes the case for the wrong reason. This one is read
  from the files alone.
- **A pass says something.** A case whose every check, at every level, would hold for an
  implementation that keeps the seeded state and does nothing (:mod:`.vacuity`) is named, unless
  ``vacuous-accepted.txt`` lists it with the reason its point is an absence; an entry whose case
  has a positive check by now is named too. Also read from the files alone.

Each offender comes with the reason in words; ``teamai-conformance honesty`` prints them and
``tests/conformance/test_corpus_honesty.py`` holds the corpus to all of them.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from ..drivers import hollow
from ..running import outcomes
from ..running.case_runner import run_case
from . import levels, placement, vacuity
from .capabilities import action_of
from .read import Corpus, Payload, Scenario

TOOL_EVENTS = ("post-tool-use", "post-tool-use-failure")
# A log line the hook must write, or a credit only a hook's evidence can earn, expected at spec or
# decision level (what every implementation is judged on), or in the profile of a case that has
# nothing else (one about the reference's own formats).
LOG_MUST = re.compile(r"^(expect|decide\.[A-Z0-9-]+)\.(log_contains|credited)\[")
LOG_MUST_PROFILE = re.compile(r"^profile\.log_contains\[")
ACCEPTED = Path(__file__).parent.parent / "vacuous-accepted.txt"


@dataclass(frozen=True)
class Offender:
    id: str
    rel: str
    check: str  # "do-nothing", "hooks-off", "evidence" or "vacuous"
    reason: str

    def __str__(self) -> str:
        return f"{self.rel}: [{self.id}] {self.reason}"


def feeds_the_hook(scenario: Scenario, payloads: Mapping[str, Payload]) -> bool:
    """True when a step hands the hook a tool call: the case is then about what the hook records."""
    for step in scenario.steps:
        if action_of(step) != "hook":
            continue
        payload = payloads.get(str(step["hook"]))
        event = str(step.get("event") or (payload.event if payload else ""))
        if event in TOOL_EVENTS:
            return True
    return False


def passes_against_nothing(corpus: Corpus, scenarios: Iterable[Scenario]) -> list[Offender]:
    """The cases that do not fail against an implementation that does nothing."""
    driver = hollow.connect("do-nothing")
    out = []
    try:
        for scenario in scenarios:
            result = run_case(driver, scenario, corpus.payloads, profile=True)
            if result.outcome not in (outcomes.FAIL, outcomes.NOT_APPLICABLE):
                detail = f": {result.message}" if result.message else ""
                out.append(Offender(scenario.id, scenario.rel, "do-nothing",
                                    f"{result.outcome} against an implementation that does nothing{detail}"))
    finally:
        driver.stop()
    return out


def blind_to_the_hook(corpus: Corpus, scenarios: Iterable[Scenario]) -> list[Offender]:
    """The cases that feed the hook a tool call and yet do not fail on a ``log_contains``
    expectation against hooks that record nothing."""
    driver = hollow.connect("hooks-off")
    out = []
    try:
        for scenario in scenarios:
            if not feeds_the_hook(scenario, corpus.payloads):
                continue
            result = run_case(driver, scenario, corpus.payloads, profile=True)
            reason = _blind(result)
            if reason:
                out.append(Offender(scenario.id, scenario.rel, "hooks-off", reason))
    finally:
        driver.stop()
    return out


def _blind(result: outcomes.CaseResult) -> str | None:
    if result.outcome == outcomes.NOT_APPLICABLE:
        return None
    if result.outcome != outcomes.FAIL:
        return f"{result.outcome} against hooks that record nothing"
    paths = [str(m.get("path", "")) for m in result.mismatches]
    profile_only = result.levels.get("spec") == "none" and not result.levels.get("decisions")
    if any(LOG_MUST.match(p) or (profile_only and LOG_MUST_PROFILE.match(p)) for p in paths):
        return None
    return ("against hooks that record nothing it fails only on " + ", ".join(dict.fromkeys(paths))
            + ": add a log_contains line the hook must write (the claim or evidence of a sibling call)")


def expects_no_vote(scenario: Scenario) -> bool:
    expect = placement.every(scenario.data)
    votes = expect.get("votes") or {}
    return bool(expect.get("no_votes")) or any(
        isinstance(entry, Mapping) and entry.get("upvoted_count") == 0 for entry in votes.values())


def silent_on_evidence(corpus: Corpus, scenarios: Iterable[Scenario]) -> list[Offender]:
    """The hook-fed cases that expect no upvote and name no evidence line, written or not."""
    out = []
    for scenario in scenarios:
        if not (feeds_the_hook(scenario, corpus.payloads) and expects_no_vote(scenario)):
            continue
        expect = placement.every(scenario.data)
        named = [line for key in ("log_contains", "log_absent") for line in (expect.get(key) or [])
                 if isinstance(line, Mapping) and line.get("kind") == "evidence"]
        if not named:
            out.append(Offender(scenario.id, scenario.rel, "evidence",
                                "expects no upvote but names no evidence line: put the read's evidence in "
                                "log_contains (recorded, not credited) or in log_absent (never recorded)"))
    return out


def why_vacuous(scenario: Scenario) -> str:
    """Why a pass of the case at every level (as the reference is judged) would say nothing, or ``""``."""
    judged: dict[str, Any] = {}
    for block in levels.blocks(scenario.data):
        judged = placement.merge(judged, block.expect)
    return vacuity.vacuous(judged, scenario.steps, scenario.data.get("given"))


def accepted(path: Path = ACCEPTED) -> dict[str, str]:
    """The vacuous cases accepted as pure absences: case id -> why."""
    out: dict[str, str] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            case_id, _, reason = line.strip().partition(" ")
            out[case_id] = reason.strip()
    return out


def says_nothing(scenarios: Iterable[Scenario], allowed: Mapping[str, str] | None = None) -> list[Offender]:
    """The cases no implementation can pass on something it produced, unless accepted with a
    reason; and the accepted ones that have a positive check by now."""
    allowed = accepted() if allowed is None else allowed
    out = []
    for scenario in scenarios:
        why = why_vacuous(scenario)
        if why and scenario.id not in allowed:
            out.append(Offender(scenario.id, scenario.rel, "vacuous",
                                f"{why}: give it a check only the feature passes, or list it in "
                                f"{ACCEPTED.name} with why its point is an absence"))
        elif not why and scenario.id in allowed:
            out.append(Offender(scenario.id, scenario.rel, "vacuous",
                                f"listed in {ACCEPTED.name} but it has a positive check by now: drop the entry"))
    return out


def check(corpus: Corpus, scenarios: list[Scenario]) -> list[Offender]:
    return (silent_on_evidence(corpus, scenarios) + says_nothing(scenarios)
            + passes_against_nothing(corpus, scenarios) + blind_to_the_hook(corpus, scenarios))


def add_parser(sub: Any) -> None:
    parser = sub.add_parser("honesty", help="run the corpus against hollow implementations: every case must "
                                            "fail there, attribution cases on a log line")
    parser.add_argument("--only", action="append", default=[], metavar="SELECTOR",
                        help="a case id, area, clause id or agent (as for run); repeatable")


def run(args: argparse.Namespace, corpus: Corpus, out: IO[str], err: IO[str]) -> int:
    from . import selection

    try:
        chosen = selection.select(corpus, args.only, None)
    except selection.NoMatch as exc:
        err.write(f"teamai-conformance: error: {exc}\n")
        return 2
    offenders = check(corpus, chosen)
    for offender in offenders:
        err.write(f"{offender}\n")
    if offenders:
        err.write(f"honesty: {len(offenders)} case(s) could pass for the wrong reason\n")
        return 1
    out.write(f"honesty: all {len(chosen)} cases fail against an implementation that does nothing, "
              "every attribution case fails on a log line against hooks that record nothing, every "
              "no-vote case names its evidence line, and every case but the accepted absences has a check "
              "only the feature passes\n")
    return 0


def corpus_root() -> Path:
    return Path(__file__).resolve().parent.parent.parent
