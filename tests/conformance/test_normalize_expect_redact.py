"""Normalization, subset matching, the expectation checks and the snapshots' redaction."""

from __future__ import annotations

import os
import tempfile

from hypothesis import given, settings
from hypothesis import strategies as st

from conformance import redact
from conformance.running.expect import StepOutcome, evaluate, findings, related_lines
from conformance.running.normalize import Normalizer, first_difference, matches
from conformance.running.substitute import Context

RUN = "5f0c2e1a-9b7d-4c1e-8a54-2f6d0b3e9c71"


def _norm() -> Normalizer:
    return Normalizer.build({RUN: "r1"}, {"learnings/a": "/sb/team/learnings/a.md"},
                            {"rules/x.md": "/sb/user/rules/x.md"},
                            {"team": "/sb/team", "user_team": "/sb/user", "learnings": ["/sb/team/learnings"]})


def test_run_ids_and_paths_get_their_names_longest_first():
    line = {"kind": "run", "run": RUN, "docs": [{"path": "/sb/team/learnings/a.md"}],
            "other": "/sb/team/learnings/b.md", "user": "/sb/user/rules/x.md", "top": "/sb/team/docs/y.md"}
    assert _norm()(line) == {"kind": "run", "run": "${r1.run}", "docs": [{"path": "${path:learnings/a}"}],
                             "other": "${root:learnings}/b.md", "user": "${user:path:rules/x.md}",
                             "top": "${root:team}/docs/y.md"}


def test_subset_matching_and_first_difference():
    actual = {"kind": "run", "docs": [{"key": "a", "score": 1.5}], "n": 1, "flag": True}
    assert matches({"kind": "run", "docs": [{"key": "a"}]}, actual)
    assert first_difference({"docs": [{"key": "b"}]}, actual) == ("docs[0].key", "b", "a")
    assert first_difference({"docs": []}, actual) == ("docs.length", 0, 1)
    assert first_difference({"missing": 1}, actual) == ("missing", 1, "<missing>")
    assert not matches({"n": True}, actual) and not matches({"flag": 1}, actual)
    assert matches({"n": 1.0}, actual)


# A mapping whose keys all start with "$" is a matcher ($type, $form), not a value to compare.
_KEYS = st.text(max_size=3).filter(lambda key: not key.startswith("$"))


@settings(max_examples=60)
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=5),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_KEYS, inner, max_size=3),
                    max_leaves=12))
def test_everything_matches_itself(value):
    assert first_difference(value, value) is None


def _step(stdout: str, exit: int = 0, action: str = "recall", name: str = "r1") -> StepOutcome:
    return StepOutcome(0, action, name, "t", exit, stdout, "")


OUTPUT = f"""--- [teamai:recall:start] --- (2 results) run={RUN}

[1/2] [learnings] A [workspace]
File: /sb/team/learnings/a.md
Related: → SUPERSEDES /sb/team/docs/d.md

[2/2] [docs] D [workspace]
File: /sb/team/docs/d.md
Related: ← SUPERSEDES /sb/team/learnings/a.md
Snippet: x
"""


def test_related_lines_belong_to_their_hit():
    assert related_lines(OUTPUT, "/sb/team/learnings/a.md") == ["→ SUPERSEDES /sb/team/docs/d.md"]
    assert related_lines(OUTPUT, "/sb/team/docs/d.md") == ["← SUPERSEDES /sb/team/learnings/a.md"]
    assert related_lines(OUTPUT, "/sb/team/rules/none.md") is None


def test_findings_in_order_from_stdout_then_stderr():
    assert findings("ok\n  ✖ [relations] a\n! [relations] b\n", "⚠ related: c\nnoise\n") == \
        ["✖ [relations] a", "! [relations] b", "⚠ related: c"]


def _evaluate(expect, observed, steps):
    ctx = Context(steps={"r1": {"run": RUN, "output": OUTPUT}}, paths={"learnings/a": "/sb/team/learnings/a.md",
                                                                       "docs/d.md": "/sb/team/docs/d.md"},
                  roots={"team": "/sb/team", "learnings": ["/sb/team/learnings"]})
    return evaluate(expect, observed, steps, ctx, _norm())


def test_every_expectation_kind_passes_and_fails():
    observed = {"votes": {"a": {"recalled_count": 1, "upvoted_count": 1}, "b": {"upvoted_count": 0}},
                "log": [{"kind": "run", "run": RUN, "docs": [{"path": "/sb/team/learnings/a.md"}]}],
                "stats": [{"session": "s", "runs": 1}], "raw": {"log": "no secrets here"}}
    good = {"votes": {"a": {"upvoted_count": 1}}, "no_votes": ["b", "c"],
            "log_contains": [{"kind": "run", "run": "${r1.run}", "docs": [{"path": "${path:learnings/a}"}]}],
            "log_absent": [{"kind": "claim"}], "stats": [{"session": "s"}], "never_in_state": ["secret query"],
            "steps": {"r1": {"exit": 0, "output_contains": ["[1/2] [learnings] A"],
                             "related": {"learnings/a": ["Related: → SUPERSEDES ${path:docs/d.md}"],
                                         "docs/d.md": ["← SUPERSEDES ${path:learnings/a}"]}}}}
    assert _evaluate(good, observed, [_step(OUTPUT)]) == []
    bad = {"votes": {"a": {"upvoted_count": 2}, "z": {}}, "no_votes": ["a"], "log_contains": [{"kind": "claim"}],
           "log_absent": [{"kind": "run"}], "stats": [{"session": "s"}, {"session": "t"}],
           "never_in_state": ["secrets"],
           "steps": {"r1": {"exit": 1, "output_contains": ["nope"], "related": {"learnings/a": []}},
                     "r9": {"exit": 0}}}
    paths = [m.path for m in _evaluate(bad, observed, [_step(OUTPUT)])]
    assert paths == ["expect.votes.a.upvoted_count", "expect.votes.z", "expect.no_votes[0]",
                     "expect.log_contains[0]", "expect.log_absent[0]", "expect.stats.length",
                     "expect.never_in_state[0]", "expect.steps.r1.exit", "expect.steps.r1.output_contains[0]",
                     "expect.steps.r1.related.learnings/a", "expect.steps.r9"]


def test_a_hook_that_exits_non_zero_always_fails():
    got = _evaluate({}, {"votes": {}, "log": []}, [_step("", exit=1, action="hook", name="")])
    assert [m.message for m in got] == ["a hook exited non-zero"]


def test_redaction_hides_what_varies_and_keeps_what_the_scenario_set():
    text = ("run=0a0b0c0d-1111-4222-8333-444455556666 at /tmp/tc-abc123/team/x.md "
            "2026-11-30T10:00:00.000Z 2031-01-02T03:04:05.678Z")
    assert redact.redact_text(text, {"2026-11-30T10:00:00.000Z"}) == \
        "run=<uuid> at <sandbox>/team/x.md 2026-11-30T10:00:00.000Z <time>"
    assert redact.redact({"k": [text]}, ["2031-01-02T03:04:05.678Z"])["k"][0].endswith("<time> 2031-01-02T03:04:05.678Z")
    assert redact.redact({"k": ["/tmp/tc-x1/a", 3]}) == {"k": ["<sandbox>/a", 3]}


def test_a_sandbox_in_this_process_s_temp_folder_is_redacted_wherever_that_is():
    """``TMPDIR`` may point anywhere (a memory file system, a per-run folder): the case runner
    makes its sandboxes there, so the redaction must know that folder, not only ``/tmp``."""
    sandbox = tempfile.mkdtemp(prefix="tc-")
    try:
        text = f"branch 'x' is not in {sandbox}/repo; and {os.path.realpath(sandbox)}/team"
        assert redact.redact_text(text) == "branch 'x' is not in <sandbox>/repo; and <sandbox>/team"
    finally:
        os.rmdir(sandbox)


def test_a_workspace_state_folder_is_redacted():
    """Its name is a digest of the team's path, which lies in a fresh sandbox on every run."""
    text = "dropped 4 lines from <sandbox>/state/workspaces/57cf8af0f4c76b51/recall-log.jsonl"
    assert redact.redact_text(text) == "dropped 4 lines from <sandbox>/state/workspaces/<workspace>/recall-log.jsonl"
    assert redact.redact_text("workspaces/57cf8af0f4c76b51x") == "workspaces/57cf8af0f4c76b51x"
