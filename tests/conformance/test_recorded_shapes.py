"""The recorded-shape check: payloads of agents whose real payloads were recorded must have those
shapes or say why not, and ``lint`` reports the counts per agent."""

from __future__ import annotations

import copy
import io
import json
from pathlib import Path

import project
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance import cli
from conformance.corpus import lint, recorded_shapes
from conformance.corpus import read as corpus

ROOT = Path(__file__).resolve().parents[2]
PROJECT = project.load()
RECORDED = sorted(n for n, p in PROJECT.payloads.items() if p.agent in recorded_shapes.agents())
MATCHING = [n for n in RECORDED
            if recorded_shapes.check(PROJECT.payloads[n].agent, PROJECT.payloads[n].event,
                                     PROJECT.payloads[n].payload).status == recorded_shapes.PASS]


def _verdict(name: str, payload: object) -> recorded_shapes.Verdict:
    p = PROJECT.payloads[name]
    verdict = recorded_shapes.check(p.agent, p.event, payload)
    assert verdict is not None
    return verdict


def test_the_data_file_has_the_three_recorded_agents_and_says_what_seen_means():
    data = json.loads((ROOT / "conformance" / "recorded_shapes.json").read_text())
    assert {s["agent"] for s in data["shapes"]} == {"claude", "codex", "cursor"}
    assert "samples" in data["seen"] and data["origin"]
    for shape in data["shapes"]:
        assert all(0 < k["seen"] <= shape["samples"] for k in shape["keys"].values()), shape
    assert not any(k.startswith(("raw_input", "a1xai_")) for s in data["shapes"] for k in s["keys"])


def test_every_recorded_agent_payload_of_the_corpus_matches_or_says_why():
    assert len(MATCHING) >= 15
    for name in RECORDED:
        p = PROJECT.payloads[name]
        prov = p.data["provenance"]
        assert recorded_shapes.lint_payload(p.agent, p.event, p.payload, prov) == [], name
        if name in MATCHING:
            assert prov["verified"] in (True, recorded_shapes.MARK) and "exemption" not in prov, name
        else:
            assert prov["verified"] is not recorded_shapes.MARK and prov["exemption"], name


def test_lint_prints_the_counts_per_agent():
    out = io.StringIO()
    assert cli.main(["lint"], out, io.StringIO()) == cli.EXIT_OK
    line = next(x for x in out.getvalue().splitlines() if x.startswith("recorded shapes:"))
    counts = recorded_shapes.tally((p.agent, p.event, p.payload, p.data["provenance"])
                                   for p in PROJECT.payloads.values())
    for agent in ("claude", "codex", "cursor"):
        assert f"{agent} {counts[agent]['match']} match" in line
    assert counts["codex"]["match"] >= 7 and counts["cursor"]["exempt"] >= 8


def test_a_key_never_recorded_is_named():
    payload = copy.deepcopy(PROJECT.payloads["claude/post-tool-use-read"].payload)
    payload["tool_response"]["file"]["encoding"] = "utf-8"
    payload["effort_level"] = "high"
    verdict = _verdict("claude/post-tool-use-read", payload)
    assert verdict.status == recorded_shapes.FAIL
    assert "tool_response.file.encoding was never seen in a recorded payload" in verdict.problems
    assert "effort_level was never seen in a recorded payload" in verdict.problems


def test_a_key_of_the_same_event_with_another_tool_is_part_of_the_envelope():
    payload = copy.deepcopy(PROJECT.payloads["claude/post-tool-use-list"].payload)
    assert "duration_ms" in payload  # never recorded for Glob, but for Bash and Read it was
    assert _verdict("claude/post-tool-use-list", payload).status == recorded_shapes.PASS


def test_a_missing_key_and_a_wrong_type_are_named():
    payload = copy.deepcopy(PROJECT.payloads["codex/post-tool-use-read"].payload)
    del payload["turn_id"]
    payload["tool_response"] = {"output": payload["tool_response"]}
    verdict = _verdict("codex/post-tool-use-read", payload)
    assert "turn_id is missing (every recording has it)" in verdict.problems
    assert "tool_response is object, recorded as string" in verdict.problems
    assert "tool_response.output was never seen in a recorded payload" not in verdict.problems


def test_an_event_never_recorded_checks_the_fields_every_recording_has():
    payload = copy.deepcopy(PROJECT.payloads["cursor/post-tool-use-read"].payload)
    assert _verdict("cursor/post-tool-use-read", payload).status == recorded_shapes.UNRECORDED
    del payload["generation_id"]
    payload["workspace_roots"] = "/home/ana/proj"
    verdict = _verdict("cursor/post-tool-use-read", payload)
    assert verdict.status == recorded_shapes.FAIL
    assert "generation_id is missing (every recording has it)" in verdict.problems
    assert "workspace_roots is string, recorded as array" in verdict.problems


def test_agents_without_recordings_are_not_checked():
    copilot = PROJECT.payloads["copilot/post-tool-use-read"]
    assert recorded_shapes.check("copilot", copilot.event, copilot.payload) is None
    said = recorded_shapes.lint_payload("copilot", copilot.event, copilot.payload,
                                        {"source": "x", "verified": recorded_shapes.MARK})
    assert said and "no payload of copilot was ever recorded" in said[0]


@pytest.mark.parametrize("provenance, expected", [
    ({"verified": False}, "mark it verified: recorded-shape"),
    ({"verified": recorded_shapes.MARK, "exemption": "old reason"}, "its exemption no longer applies"),
])
def test_a_matching_payload_must_say_so(provenance, expected):
    p = PROJECT.payloads["codex/post-tool-use-read"]
    said = recorded_shapes.lint_payload(p.agent, p.event, p.payload, {"source": "x", **provenance})
    assert len(said) == 1 and expected in said[0]


@pytest.mark.parametrize("provenance, expected", [
    ({"verified": False}, "make it match, or say why it cannot in provenance.exemption"),
    ({"verified": recorded_shapes.MARK, "exemption": "a reason"}, "says verified: recorded-shape, but"),
])
def test_a_payload_that_does_not_match_needs_a_reason(provenance, expected):
    p = PROJECT.payloads["claude/post-tool-use-grep-count"]
    said = recorded_shapes.lint_payload(p.agent, p.event, p.payload, {"source": "x", **provenance})
    assert len(said) == 1 and expected in said[0] and "numMatches" in said[0]


def test_lint_reports_a_corpus_payload_that_lost_its_shape(tmp_path):
    import shutil

    for part in ("scenarios", "payloads", "conformance"):
        shutil.copytree(ROOT / part, tmp_path / part, ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    path = tmp_path / "payloads" / "claude" / "post-tool-use-read.json"
    data = json.loads(path.read_text())
    del data["payload"]["tool_use_id"]
    path.write_text(json.dumps(data))
    problems = [p for p in lint.lint(corpus.load(tmp_path)) if p.startswith("payloads/")]
    assert problems == [
        "payloads/claude/post-tool-use-read.json: says verified: recorded-shape, but against claude PostToolUse "
        "Read: tool_use_id is missing (every recording has it)"]


@settings(max_examples=60, deadline=None)
@given(name=st.sampled_from(MATCHING), data=st.data())
def test_any_dropped_always_key_or_added_stranger_breaks_a_match(name, data):
    p = PROJECT.payloads[name]
    payload = copy.deepcopy(p.payload)
    found = recorded_shapes.key_paths(payload)
    shape = next(s for s in recorded_shapes.shapes()
                 if s.agent == p.agent and recorded_shapes.check(p.agent, p.event, payload).shape == s.name)
    top_always = [k for k in shape.always() if "." not in k and "[" not in k and k in found]
    if data.draw(st.booleans()) and top_always:
        key = data.draw(st.sampled_from(top_always))
        del payload[key]
        expected = f"{key} is missing (every recording has it)"
    else:
        key = data.draw(st.from_regex(r"\Ax_[a-z]{1,12}\Z"))
        payload[key] = data.draw(st.one_of(st.none(), st.integers(), st.text(max_size=5)))
        expected = f"{key} was never seen in a recorded payload"
    verdict = recorded_shapes.check(p.agent, p.event, payload)
    assert verdict is not None and verdict.status == recorded_shapes.FAIL and expected in verdict.problems
