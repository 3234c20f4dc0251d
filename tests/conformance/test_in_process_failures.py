"""An in-process driver that fails (raises, hangs) gets the same outcomes as a process would, the
driver starts over, and the cases after it still run; JUnit files and broken pipes carry every
outcome."""

from __future__ import annotations

import io
import os
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from conformance import implementations, pipes
from conformance.corpus import read as corpus
from conformance.corpus import selection
from conformance.drivers.reference import ReferenceBackend, in_process
from conformance.reports import junit as report_junit
from conformance.running import driver, outcomes, pool

CORPUS = Path(__file__).resolve().parent / "corpus"
BOOM = """id: aa-boom
title: A recall the in-process driver misbehaves on
clauses: [FX-RUN-RECORD]
provenance: derived
agents: []
team:
  learnings/boom.md: "---\\ntitle: boom\\n---\\nboom\\n"
steps:
  - recall: boom
    as: r1
expect:
  steps:
    r1: {exit: 0}
"""


class Misbehaving:
    """The in-process reference, except for a recall of ``boom``: raise, or hang."""

    starts = 0

    def __init__(self, how: str) -> None:
        self.how = how
        self.backend = ReferenceBackend(in_process)

    def __call__(self, message: dict[str, Any]) -> dict[str, Any]:
        if message["cmd"] == "start":
            Misbehaving.starts += 1
        if message["cmd"] == "recall" and "boom" in message["query"]:
            if self.how == "raise":
                raise RuntimeError("the implementation broke")
            time.sleep(30)
        return self.backend(message)

    def close_all(self) -> None:
        self.backend.close_all()


def _corpus(root: Path) -> corpus.Corpus:
    (root / "scenarios" / "recall" / "aa-boom.yaml").write_text(BOOM, encoding="utf-8")
    return corpus.load(root)


@pytest.mark.parametrize("how, outcome, said", [("raise", outcomes.ERROR, "recall: RuntimeError: the implementation broke"),
                                                 ("hang", outcomes.TIMEOUT, "no answer within")])
def test_an_in_process_failure_has_its_outcome_and_the_run_goes_on(corpus_copy, how, outcome, said):
    loaded = _corpus(corpus_copy)
    Misbehaving.starts = 0
    active = driver.LocalDriver(lambda: Misbehaving(how), f"in-process {how}")
    chosen = selection.select(loaded, ["aa-boom", "fx-recall-prints-hit"])
    results = {r.id: r for r in pool.run_all("unused", loaded, chosen, {}, timeout=2.0, driver=active)}
    active.stop()
    assert results["aa-boom"].outcome == outcome and said in results["aa-boom"].message
    assert results["fx-recall-prints-hit"].outcome == outcomes.PASS
    if how == "raise":
        assert "Traceback" in results["aa-boom"].message  # the handler's traceback is kept for the report
    else:
        assert Misbehaving.starts == 2  # started over after the timeout


def test_an_empty_impl_is_unusable():
    with pytest.raises(driver.DriverUnusable, match="--impl is empty"):
        implementations.connect("   ")


def _result(case_id: str, outcome: str, message: str = "") -> outcomes.CaseResult:
    return outcomes.CaseResult(case_id, "t", "recall", [], [], outcome, message)


def test_junit_sorts_every_outcome_into_failures_errors_and_skipped():
    results = [_result(f"c-{o}", o, f"{o} happened\nmore") for o in outcomes.ALL] + [_result("c-quiet", outcomes.CRASH)]
    suite = report_junit.build(results, "x").find("testsuite")
    assert suite is not None
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors"), suite.get("skipped")) == \
        ("10", "2", "4", "3")
    by_name = {case.get("name"): case for case in suite.iter("testcase")}
    assert by_name["c-timeout"].find("error").get("message") == "timeout happened"
    assert by_name["c-quiet"].find("error").get("message") == "crash"
    assert by_name["c-xfail"].find("skipped").get("message").startswith("xfail: xfail happened")
    assert list(by_name["c-pass"]) == []
    ET.tostring(report_junit.build(results, "x"))  # serializable as it is


def test_a_sink_whose_reader_left_drops_writes_and_flushes():
    read_end, write_end = os.pipe()
    os.close(read_end)
    stream = os.fdopen(write_end, "w", buffering=1 << 16)
    sink = pipes.Sink(stream)
    sink.write("buffered, not yet sent\n")
    sink.flush()  # the pipe is gone: this is where it shows
    assert sink.gone and not sink.isatty()
    assert sink.write("more") == 4
    stream.close()  # its descriptor now points at the null device: closing flushes nowhere, quietly


def test_silencing_a_stream_without_a_descriptor_does_nothing():
    buffer = io.StringIO()
    pipes.silence(buffer)
    buffer.write("still usable")
    assert buffer.getvalue() == "still usable"
