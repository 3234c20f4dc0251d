"""JUnit XML for CI: one test suite per area, one test case per scenario (its id as the name).

A case fails CI only on what the driver is held to (``CaseResult.held``): for an implementation
that declares no profile, a case that differs from the reference only on a decision or on the
reference's profile passes, and says so in its ``properties`` and ``system-out``. Each suite's
properties carry the area's three numbers (spec, decisions, profile; ``outcomes.level_totals``).
A failure's text holds the explanation's ``why`` (the first step where the implementation parted
from the reference) and the command that reruns the case.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections import defaultdict
from collections.abc import Mapping
from pathlib import Path

from ..running import outcomes
from ..running.outcomes import CaseResult
from . import explain_text as report_explain


def build(results: list[CaseResult], implementation: str, rerun: Mapping[str, str] | None = None) -> ET.Element:
    root = ET.Element("testsuites", name=f"teamai-conformance {implementation}")
    by_area: dict[str, list[CaseResult]] = defaultdict(list)
    for r in results:
        by_area[r.area].append(r)
    for area, cases in sorted(by_area.items()):
        suite = ET.SubElement(root, "testsuite", name=area, tests=str(len(cases)))
        props = ET.SubElement(suite, "properties")
        for name, value in level_words(outcomes.level_totals(cases)).items():
            ET.SubElement(props, "property", name=name, value=value)
        counts = {"failures": 0, "errors": 0, "skipped": 0}
        for r in cases:
            case = ET.SubElement(suite, "testcase", classname=area, name=r.id, time=f"{r.duration:.3f}")
            _levels(case, r)
            command = (rerun or {}).get(r.id, "")
            if r.outcome in (outcomes.FAIL, outcomes.XPASS, outcomes.ERROR, outcomes.CRASH, outcomes.TIMEOUT):
                tag = "failure" if r.outcome in (outcomes.FAIL, outcomes.XPASS) else "error"
                ET.SubElement(case, tag, message=_headline(r), type=r.outcome).text = _detail(r, command)
                counts["failures" if tag == "failure" else "errors"] += 1
            elif r.outcome in (outcomes.SKIP, outcomes.NOT_APPLICABLE, outcomes.XFAIL):
                ET.SubElement(case, "skipped", message=f"{r.outcome}: {r.message}"[:500])
                counts["skipped"] += 1
            else:
                apart = not_held(r)
                if apart:
                    ET.SubElement(case, "system-out").text = "\n".join(apart) + (f"\nrerun: {command}" if command else "")
        for counter, number in counts.items():
            suite.set(counter, str(number))
    return root


def level_words(totals: Mapping[str, object]) -> dict[str, str]:
    spec = totals["spec"]
    dec = totals["decisions"]
    prof = totals["profile"]
    assert isinstance(spec, Mapping) and isinstance(dec, Mapping)
    out = {"spec": f"{spec['pass']}/{spec['total']} hold",
           "decisions": f"{dec['agree']} agree, {dec['differ']} differ"
           + ("" if not dec["by_decision"] else " (" + ", ".join(f"{k} {v}" for k, v in dec["by_decision"].items()) + ")"),
           "profile": f"{prof['pass']}/{prof['total']} hold" if isinstance(prof, Mapping) else "not checked"}
    return out


def _levels(case: ET.Element, r: CaseResult) -> None:
    """The case's verdict per level, as properties (nothing for a case never judged)."""
    if not r.levels:
        return
    props = ET.SubElement(case, "properties")
    ET.SubElement(props, "property", name="spec", value=str(r.levels.get("spec", "none")))
    differ = sorted(d for d, v in (r.levels.get("decisions") or {}).items() if v == "differ")
    if differ:
        ET.SubElement(props, "property", name="differs-on", value=", ".join(differ))
    ET.SubElement(props, "property", name="profile", value=str(r.levels.get("profile", "unchecked")))


def not_held(r: CaseResult) -> list[str]:
    """What a case did differently at levels the driver is not held to (it does not fail on them)."""
    out = []
    held = set(r.held or ["spec"])
    for m in r.mismatches:
        level = m.get("level", "spec")
        if level in held:
            continue
        where = f"differs on decision {m['decision']}" if level == "decision" else f"{level} level"
        out.append(f"{where} (not held to it): {m.get('path')}: {m.get('message')}")
    return out


def _headline(r: CaseResult) -> str:
    why = (r.explanation or {}).get("summary") or (r.explanation or {}).get("problem")
    first = r.message.splitlines()[0] if r.message else r.outcome
    return f"{first} | why: {why}" if why else first


def _detail(r: CaseResult, command: str) -> str:
    lines = [r.message] if r.message else []
    lines += [line.strip("\n") for line in report_explain.explanation_lines(r.explanation)]
    blamed = report_explain.blame(r)
    if blamed:
        lines.append(f"blamed on {blamed['clause']}: {blamed['why']}")
    if r.mismatches:
        lines.append(json.dumps(r.mismatches, ensure_ascii=False, indent=1))
    if command:
        lines.append(f"rerun: {command}")
    return "\n".join(lines)


def write(path: Path, results: list[CaseResult], implementation: str, rerun: Mapping[str, str] | None = None) -> None:
    tree = ET.ElementTree(build(results, implementation, rerun))
    ET.indent(tree)
    tree.write(path, encoding="utf-8", xml_declaration=True)
