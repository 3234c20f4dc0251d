"""A report line is one line for every reader, whatever text a case printed."""

from __future__ import annotations

import json
from pathlib import Path

from conformance.reports import jsonl as report_jsonl
from conformance.running import outcomes

BREAKS = "a\u2028b\u2029c\x85d\x0be\x0cf\x1cg\rh\ni"


def test_text_with_unicode_line_breaks_stays_on_one_report_line(tmp_path: Path) -> None:
    result = outcomes.CaseResult(id="fx-breaks", title=BREAKS, area="recall", agents=[], clauses=[],
                                 outcome=outcomes.FAIL, message=BREAKS)
    path = tmp_path / "r.jsonl"
    report_jsonl.write(path, {"kind": "header"}, [result], {"kind": "footer"}, {})
    text = path.read_text(encoding="utf-8")
    assert len(text.splitlines()) == len(text.split("\n")) - 1 == 3
    _head, cases, _foot = report_jsonl.read(path)
    assert [c["message"] for c in cases] == [BREAKS]
    assert json.loads(text.splitlines()[1])["title"] == BREAKS


def test_a_lone_surrogate_is_written_as_its_json_escape_and_reads_back(tmp_path: Path) -> None:
    """A case can quote a path that is not valid Unicode (the log escapes it); the report is still
    written, and the escape reads back as the same text."""
    odd = "path /tmp/x\ud800y.md"
    result = outcomes.CaseResult(id="fx-surrogate", title="t", area="retention", agents=[], clauses=[],
                                 outcome=outcomes.FAIL, message=odd)
    path = tmp_path / "r.jsonl"
    report_jsonl.write(path, {"kind": "header"}, [result], {"kind": "footer"}, {})
    assert "\\ud800" in path.read_text(encoding="utf-8")
    _head, cases, _foot = report_jsonl.read(path)
    assert [c["message"] for c in cases] == [odd]
