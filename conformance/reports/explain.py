"""Why a case failed: the first step where the implementation parted from the reference, and the
chain of decisions behind every vote that came out wrong.

A failed case is replayed on the same driver with an ``observe`` after every step, and the
reference runs the same scenario in this process the same way (``trace.py``). Step by step,
the lines each side's log gained are compared as decisions (``decisions.py``), then the vote
counters; the first step with a difference is reported with what the reference decided there,
in the words ``teamai-ref replay`` uses for that step's payload. A vote that differs gets the
reads behind it: which read the reference credited, through which run and which claim, whether
the implementation recorded each of them, and whether it consumed the read.

Only lines of the active scope's log and the vote counters are compared: an implementation
that keeps no log (``log: false``) is compared on its votes alone, and says so.

Only unexpected fails are explained: ``running/pool.py`` and ``pytest_plugin.py`` say which and
hand :func:`explain_failure` to ``case_runner.run_case`` (explaining runs cases itself), so an
expected failure costs no replay, and a fault in explaining is said in the explanation, never
raised. Where decisions and votes agree, :func:`_output` names the first step whose printed text
differs where the proposals define it (hits, ``Related:`` lines, findings). ``case_runner.judge_blocks``
words every mismatch in the scenario's tokens, never a sandbox's paths; ``explain_text.py`` says it
all in the terminal report; ``running/text_region.py`` finds the lines closest to a missed
``output_contains``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..comparison import decisions, differential
from ..comparison.decisions import describe, kind, run_line, settles_by_env, window
from ..comparison.trace import Trace, reference_trace
from ..corpus import placement
from ..corpus.capabilities import STATE_STEPS, action_of, target
from ..corpus.read import Payload, Scenario
from ..running import outcomes
from ..running.case_runner import RUN_ID
from ..running.driver import Driver
from ..running.expect import findings

VOTES = "expect.votes."
NO_VOTES = re.compile(r"^expect\.no_votes\[(\d+)\]$")


def explain_failure(driver: Driver, scenario: Scenario, payloads: Mapping[str, Payload],
                    result: outcomes.CaseResult, timeout: float) -> dict[str, Any]:
    """The explanation a failed case's report carries (a JSON object; see :func:`summary`). A
    fault in working it out is said in the explanation, never raised: the run goes on."""
    try:
        return _explain(driver, scenario, payloads, result, timeout)
    except Exception as exc:  # the report must survive its own explanation
        return {"problem": f"no explanation: {type(exc).__name__}: {exc}", "summary": ""}


def _explain(driver: Driver, scenario: Scenario, payloads: Mapping[str, Payload], result: outcomes.CaseResult,
             timeout: float) -> dict[str, Any]:
    from ..running.case_runner import run_case

    impl = Trace()
    replay = run_case(driver, scenario, payloads, timeout, trace=impl)
    out: dict[str, Any] = {"replay": replay.outcome}
    if replay.outcome not in (outcomes.FAIL, outcomes.PASS):
        out["problem"] = f"the replay with an observe after every step ended in {replay.outcome}: " \
                         f"{replay.message.splitlines()[0] if replay.message else ''}".rstrip(": ")
        return out
    if replay.outcome == outcomes.PASS:
        out["problem"] = "the replay with an observe after every step passed: the failure did not happen again"
    ref, ref_result = reference_trace(scenario, payloads, timeout)
    out["reference"] = ref_result.outcome
    has_log = bool(driver.capabilities.get("log"))
    out["log_compared"] = has_log
    first = first_step(scenario, ref, impl, ref_result.steps, replay.steps, has_log)
    if first is not None:
        out["first"] = first
    chains = vote_chains(scenario, result.mismatches, ref, impl, has_log)
    if chains:
        out["chains"] = chains
    out["summary"] = summary(out)
    return out


def summary(explanation: Mapping[str, Any]) -> str:
    """The explanation in one line."""
    first = explanation.get("first")
    if first:
        names = list(dict.fromkeys(d["decision"] for d in first["decisions"]))
        text = f"step {first['index'] + 1} [{first['label']}]: " + "; ".join(names)
    elif explanation.get("problem"):
        return str(explanation["problem"])
    else:
        text = "every step left the same decisions and votes as the reference"
    if explanation.get("reference") not in (None, outcomes.PASS):
        text += f" (the reference does not pass this case either: {explanation['reference']})"
    return text


def step_label(step: Mapping[str, Any]) -> str:
    action = action_of(step) or "?"
    value = step.get(action)
    if action == "recall":
        name = f" as {step['as']}" if step.get("as") else ""
        return f"recall {json.dumps(str(value), ensure_ascii=False)}{name}"
    if action == "hook":
        return f"hook {value}" + (f" ({step['event']})" if step.get("event") else "")
    if action in STATE_STEPS:
        return " ".join((action, *target(step, action).values()))
    if action == "write":
        return "write " + ", ".join(str(k) for k in (value or {}))
    return str(action)


def first_step(scenario: Scenario, ref: Trace, impl: Trace, ref_steps: Sequence[Mapping[str, Any]],
               impl_steps: Sequence[Mapping[str, Any]], has_log: bool) -> dict[str, Any] | None:
    """The first step after which the implementation's decisions or votes differ from the reference's."""
    before_ref: list[Any] = []
    before_impl: list[Any] = []
    ran_ref = {int(s["index"]): s for s in ref_steps}
    ran_impl = {int(s["index"]): s for s in impl_steps}
    for index, step in enumerate(scenario.steps):
        r, m = ref.at(index), impl.at(index)
        if r is None:
            return None
        found: list[dict[str, Any]] = []
        if m is None:
            found.append({"kind": "stopped", "decision": "the case stopped before this step",
                          "words": ["a step before it needed a run id the implementation never printed"]})
        else:
            found += _printed(step, ran_ref.get(index), ran_impl.get(index))
            if has_log:
                ref_added, ref_removed = decisions.delta(before_ref, r.log)
                impl_added, impl_removed = decisions.delta(before_impl, m.log)
                found += decisions.compare_lines(ref_added, impl_added, r.log, m.log)
                found += decisions.compare_lines(ref_removed, impl_removed, r.log, m.log, removed=True)
            found += decisions.compare_votes(r.votes, m.votes)
            if not found:  # the same decisions: what it printed may still differ (relations, hits)
                found += _output(step, ran_ref.get(index), ran_impl.get(index))
            before_ref, before_impl = r.log, m.log
        if found:
            out = {"index": index, "label": step_label(step), "decisions": found}
            if index in ran_ref:
                out["now"] = ran_ref[index].get("now")
            if ref.notes.get(index):
                out["notes"] = ref.notes[index]
            return out
    return None


def _printed(step: Mapping[str, Any], ref: Mapping[str, Any] | None,
             impl: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    if ref is None or impl is None:
        return out
    action = action_of(step)
    if action == "recall" and RUN_ID.search(str(ref.get("stdout", ""))) \
            and not RUN_ID.search(str(impl.get("stdout", ""))):
        out.append({"kind": "output", "decision": "run id not printed",
                    "words": ["the reference prints the run id at the end of its start (or no-hit) line; "
                              "the implementation printed none"]})
    if action == "hook" and impl.get("exit") != 0:
        out.append({"kind": "output", "decision": "hook exited non-zero",
                    "words": [f"implementation: exit {impl.get('exit')}; a hook must always exit 0"]})
    return out


def _output(step: Mapping[str, Any], ref: Mapping[str, Any] | None,
            impl: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """What a step printed differently where the proposals define the text: a recall's hits and
    ``Related:`` lines, the findings of ``review`` and ``contribute``."""
    if ref is None or impl is None:
        return []
    action = action_of(step)
    if action == "recall" and not step.get("check"):
        return _hits_differ(str(ref.get("stdout", "")), str(impl.get("stdout", "")))
    if action in ("review", "contribute"):
        return _findings_differ(findings(str(ref.get("stdout", "")), str(ref.get("stderr", ""))),
                                findings(str(impl.get("stdout", "")), str(impl.get("stderr", ""))))
    return []


def _hits_differ(ref: str, impl: str) -> list[dict[str, Any]]:
    """What a recall printed differently, as a reader of its output sees it: the hit list (the
    count, each hit's header and ``File:`` line) and the ``Related:`` lines under each hit, with
    paths in the scenario's words (both outputs are normalized). Scores and decoration are left out."""
    out: list[dict[str, Any]] = []
    a, b = differential.hits(ref), differential.hits(impl)
    if a["start"] != b["start"]:
        out.append({"kind": "output", "decision": "another number of hits",
                    "words": [f"reference: {a['start']}", f"implementation: {b['start']}"]})
    for i in range(max(len(a["hits"]), len(b["hits"]))):
        x = a["hits"][i] if i < len(a["hits"]) else None
        y = b["hits"][i] if i < len(b["hits"]) else None
        if x == y:
            continue
        shown = lambda h: "no such hit" if h is None else f"{h['header']} (File: {h['file'] or '?'})"  # noqa: E731
        out.append({"kind": "output", "decision": f"hit {i + 1} differs",
                    "words": [f"reference: {shown(x)}", f"implementation: {shown(y)}"]})
        break  # the first differing hit; the later ones usually shift with it
    x_rel, y_rel = differential.related_by_file(ref), differential.related_by_file(impl)
    for file in [f for f in x_rel if f in y_rel]:
        missing = [line for line in x_rel[file] if line not in y_rel[file]]
        extra = [line for line in y_rel[file] if line not in x_rel[file]]
        if not missing and not extra and x_rel[file] == y_rel[file]:
            continue
        words = [f"under File: {file}"]
        words += [f"reference only: Related: {line}" for line in missing]
        words += [f"implementation only: Related: {line}" for line in extra]
        if not missing and not extra:
            words.append("the same Related: lines in another order: reference "
                         + " | ".join(x_rel[file]) + "; implementation " + " | ".join(y_rel[file]))
        out.append({"kind": "output", "decision": "Related: lines differ", "words": words})
    return out


def _findings_differ(ref: Sequence[str], impl: Sequence[str]) -> list[dict[str, Any]]:
    if list(ref) == list(impl):
        return []
    words = [f"reference only: {line}" for line in ref if line not in impl]
    words += [f"implementation only: {line}" for line in impl if line not in ref]
    return [{"kind": "output", "decision": "findings differ", "words": words or ["the same findings in another order"]}]


# --- the decisions behind a vote ------------------------------------------------------------

def vote_chains(scenario: Scenario, mismatches: Sequence[Mapping[str, Any]], ref: Trace, impl: Trace,
                has_log: bool) -> list[dict[str, Any]]:
    """For every mismatch of a vote counter: the reads, runs, claims and consumed lines behind it."""
    expect = placement.every(scenario.data)
    wanted = _mapping(expect.get("votes"))
    unwanted = _list(expect.get("no_votes"))
    out: list[dict[str, Any]] = []
    seen: set[tuple[str, str]] = set()
    for m in mismatches:
        path = str(m.get("path", ""))
        key, counter = _vote_of(path, wanted, unwanted)
        if key is None or (key, counter) in seen or counter not in decisions.COUNTERS:
            continue
        seen.add((key, counter))
        chain = Chain(scenario, ref, impl, key)
        out.append({"path": path, "key": key, "counter": counter, "lines": chain.lines(counter, has_log)})
    return out


def _vote_of(path: str, wanted: Mapping[str, Any], unwanted: Sequence[Any]) -> tuple[str | None, str]:
    found = NO_VOTES.match(path)
    if found:
        index = int(found.group(1))
        return (str(unwanted[index]), "upvoted_count") if index < len(unwanted) else (None, "")
    if not path.startswith(VOTES):
        return None, ""
    rest = path[len(VOTES):]
    for key in sorted(map(str, wanted), key=len, reverse=True):
        if rest == key:
            return key, "upvoted_count"  # the entry is missing: its upvotes are what a reader misses first
        if rest.startswith(key + "."):
            return key, rest[len(key) + 1:]
    return None, ""


class Chain:
    """The decisions behind one vote key's counter, the reference's beside the implementation's."""

    def __init__(self, scenario: Scenario, ref: Trace, impl: Trace, key: str) -> None:
        self.scenario, self.ref, self.impl, self.key = scenario, ref, impl, key
        self.ref_log: list[Any] = ref.steps[-1].log if ref.steps else []
        self.impl_log: list[Any] = impl.steps[-1].log if impl.steps else []

    def lines(self, counter: str, has_log: bool) -> list[str]:
        out = [self._rises(counter)]
        if not has_log:
            out.append("the implementation keeps no recall log (log: false): the decisions behind the counter "
                       "cannot be compared")
            return out
        if counter == "recalled_count":
            return out + self._recalls()
        credited = [c for c in self.ref_log if self._credit(c)]
        for line in credited:
            out += self._reference_credit(line)
        known = {_read_id(c) for c in credited}
        for line in self.impl_log:
            if self._credit(line) and _read_id(line) not in known:
                out += self._implementation_credit(line)
        if len(out) == 1:
            out.append(f"neither the reference nor the implementation credits a read of {self.key}")
        return out

    def _credit(self, line: Any) -> bool:
        return kind(line) == "consumed" and line.get("key") == self.key and line.get("credited") is True

    def _label(self, trace: Trace, test: Callable[[Any], bool]) -> str:
        """``step N [label]`` of the first step after which ``trace``'s log holds a line passing ``test``."""
        for state in trace.steps:
            if any(test(x) for x in state.log):
                return self._step(state.index)
        return "no step"

    def _step(self, index: int) -> str:
        return f"step {index + 1} [{step_label(self.scenario.steps[index])}]"

    def _rises(self, counter: str) -> str:
        def rise(trace: Trace) -> str:
            before = 0
            for state in trace.steps:
                entry = state.votes.get(self.key)
                value = entry.get(counter, 0) if isinstance(entry, Mapping) else 0
                if isinstance(value, int) and value > before:
                    return f"{self._step(state.index)} raises it to {value}"
                before = value if isinstance(value, int) else before
            return "never raises it"
        return f"{self.key}.{counter}: in the reference {rise(self.ref)}; in the implementation {rise(self.impl)}"

    def _recalls(self) -> list[str]:
        out = []
        for run in self.ref_log:
            if kind(run) != "run" or not _prints(run, self.key):
                continue
            state = self._run_state(run.get("run"))
            where = self._label(self.ref, _equal(run))
            out.append(f"run {run.get('run')} printed {self.key} ({where}); implementation: {state}")
        return out

    def _run_state(self, run: Any) -> str:
        """What the implementation's log holds of a run that printed this key in the reference."""
        theirs = run_line(self.impl_log, run)
        if theirs is None:
            return "no such run"
        return "recorded, printing it" if _prints(theirs, self.key) else "recorded, not printing it"

    def _reference_credit(self, line: Mapping[str, Any]) -> list[str]:
        ts, session, path = _read_id(line)
        run = line.get("run")
        out = [f"the reference credits {self.key} with the read of {path} by session {session} at {ts} "
               f"({self._label(self.ref, lambda x: _is_read(x, ts, session, path))})"]
        theirs = next((x for x in self.impl_log if _is_read(x, ts, session, path)), None)
        if theirs is None:
            near = next((x for x in self.impl_log if kind(x) == "evidence" and x.get("ts") == ts
                         and x.get("session") == session), None)
            out.append("  the read: the implementation " + (f"recorded it as {near.get('path')}" if near else
                                                          "recorded no evidence for it"))
        else:
            out.append("  the read: the implementation recorded it too")
        mine = run_line(self.ref_log, run)
        if mine is not None:
            state = self._run_state(run)
            out.append(f"  run {run} ({self._label(self.ref, lambda x: x == mine)}) printed it; "
                       f"implementation: {state}")
            out.append(f"  the run: in the reference {self._settled(self.ref, run)}; in the implementation "
                       f"{self._settled(self.impl, run)}")
            gap = window(mine, ts)
            if gap:
                out.append(f"  {gap}")
        eaten = next((x for x in self.impl_log if kind(x) == "consumed" and _read_id(x) == (ts, session, path)
                      and x.get("key") == self.key), None)
        where = self._label(self.ref, lambda x: x == line)
        if eaten is None:
            verdict = "no consumed line: it never credited this read"
        elif eaten.get("credited") is True:
            verdict = "credited it too" + (f", through run {eaten.get('run')}" if eaten.get("run") != run else "")
        else:
            verdict = "covered it (credited by an earlier read)"
        out.append(f"  consumed and credited in the reference at {where}; the implementation: {verdict}")
        return out

    def _implementation_credit(self, line: Mapping[str, Any]) -> list[str]:
        ts, session, path = _read_id(line)
        run = line.get("run")
        out = [f"the implementation credits {self.key} with the read of {path} by session {session} at {ts} "
               f"through run {run} ({self._label(self.impl, lambda x: x == line)})"]
        mine = next((x for x in self.ref_log if _is_read(x, ts, session, path)), None)
        if mine is None:
            out.append(f"  the reference records no such read ({self._label(self.impl, lambda x: _is_read(x, ts, session, path))} "
                       "in the implementation)")
            return out
        eaten = next((x for x in self.ref_log if kind(x) == "consumed" and _read_id(x) == (ts, session, path)), None)
        if eaten is not None:
            out.append(f"  the reference consumes it otherwise: {describe(eaten, self.ref_log)}")
            return out
        run_rec = run_line(self.ref_log, run)
        if run_rec is None:
            out.append(f"  the reference records the read but has no run {run}")
        else:
            gap = window(run_rec, ts)
            out.append(f"  the reference records the read and leaves it pending: run {run} is "
                       f"{self._settled(self.ref, run)}" + (f"; {gap}" if gap else "")
                       + ("" if _prints(run_rec, self.key, eligible=True) else f"; it printed no eligible {self.key}"))
        return out

    def _settled(self, trace: Trace, run: Any) -> str:
        log = trace.steps[-1].log if trace.steps else []
        line = run_line(log, run)
        if line is None:
            return "not recorded"
        claims = sorted((x for x in log if kind(x) == "claim" and x.get("run") == run),
                        key=lambda x: (str(x.get("ts")), str(x.get("session"))))
        if claims:
            first = claims[0]
            where = self._label(trace, lambda x: x == first)
            return f"settled by the claim of session {first.get('session')} ({where})"
        if settles_by_env(line):
            return f"settled by its environment (session {line.get('session')})"
        return "unsettled: no claim names it and its run line names no unambiguous session"


def _equal(wanted: Any) -> Callable[[Any], bool]:
    return lambda line: bool(line == wanted)


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _read_id(line: Any) -> tuple[Any, Any, Any]:
    if kind(line) == "consumed":
        ev = _mapping(line.get("evidence"))
        return ev.get("ts"), ev.get("session"), ev.get("path")
    return line.get("ts"), line.get("session"), line.get("path")


def _is_read(line: Any, ts: Any, session: Any, path: Any) -> bool:
    return kind(line) == "evidence" and (line.get("ts"), line.get("session"), line.get("path")) == (ts, session, path)


def _prints(run: Mapping[str, Any], key: str, eligible: bool = False) -> bool:
    docs = _list(run.get("docs"))
    return any(isinstance(d, Mapping) and d.get("key") == key and (not eligible or d.get("eligible") is True)
               for d in docs)
