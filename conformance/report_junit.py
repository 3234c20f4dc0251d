"""JUnit XML for CI: one test suite per area, one test case per scenario (its id as the name)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path

from . import outcomes
from .outcomes import CaseResult


def build(results: list[CaseResult], implementation: str) -> ET.Element:
    root = ET.Element("testsuites", name=f"teamai-conformance {implementation}")
    by_area: dict[str, list[CaseResult]] = defaultdict(list)
    for r in results:
        by_area[r.area].append(r)
    for area, cases in sorted(by_area.items()):
        suite = ET.SubElement(root, "testsuite", name=area, tests=str(len(cases)))
        counts = {"failures": 0, "errors": 0, "skipped": 0}
        for r in cases:
            case = ET.SubElement(suite, "testcase", classname=area, name=r.id, time=f"{r.duration:.3f}")
            detail = r.message + ("\n" + json.dumps(r.mismatches, ensure_ascii=False, indent=1)
                                  if r.mismatches else "")
            if r.outcome in (outcomes.FAIL, outcomes.XPASS):
                ET.SubElement(case, "failure", message=r.message.splitlines()[0] if r.message else r.outcome,
                              type=r.outcome).text = detail
                counts["failures"] += 1
            elif r.outcome in (outcomes.ERROR, outcomes.CRASH, outcomes.TIMEOUT):
                ET.SubElement(case, "error", message=r.message.splitlines()[0] if r.message else r.outcome,
                              type=r.outcome).text = detail
                counts["errors"] += 1
            elif r.outcome in (outcomes.SKIP, outcomes.NOT_APPLICABLE, outcomes.XFAIL):
                ET.SubElement(case, "skipped", message=f"{r.outcome}: {r.message}"[:500])
                counts["skipped"] += 1
        for key, value in counts.items():
            suite.set(key, str(value))
    return root


def write(path: Path, results: list[CaseResult], implementation: str) -> None:
    tree = ET.ElementTree(build(results, implementation))
    ET.indent(tree)
    tree.write(path, encoding="utf-8", xml_declaration=True)
