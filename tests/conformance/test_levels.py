"""The three levels: what the spec block may observe, how it is read, and how verdicts combine."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance.corpus import levels, placement
from conformance.running import outcomes
from conformance.running.expect import Mismatch, finding_fits, ledger_file, pair_up
from conformance.running.expect import _stats as stats_rows
from conformance.running.normalize import Normalizer, matches, same_instant

NORM = Normalizer()


# -- what the spec block may observe -------------------------------------------------------------

def test_a_spec_block_observes_only_what_the_proposals_define():
    expect = {"log_contains": [{"kind": "evidence", "session": "s", "path": "p", "via": "read"},
                               {"kind": "consumed", "session": "s"},
                               {"kind": "run", "run": "r", "unambiguous": True, "docs": [{"key": "k", "rank": 1}]}],
              "log_lines": 3,
              "credited": [{"session": "s", "run": "r"}],
              "stats": [{"session": "s", "heading": "x"}],
              "steps": {"v1": {"findings": ["✖ [relations] rules/a.md: words"]}, "p1": {"output_contains": ["x"]},
                        "s1": {"output_matches": ["^Recall"]}}}
    problems = levels.spec_problems(expect, {"v1": "review", "p1": "pull", "s1": "stats"})
    text = "\n".join(problems)
    for expected in ("via is not a field of a evidence line", "kind 'consumed' is not a line kind",
                     "unambiguous is not a field of a run line", "docs[0].rank", "expect.log_lines",
                     "run is not a field of a credit", "heading is not a stats column",
                     "a finding's wording is the profile's", "what a pull step prints",
                     "a stats step's text is only checked for what it does not hold"):
        assert expected in text, expected
    assert len(problems) == 10


def test_a_clean_spec_block_has_no_problem():
    expect = {"votes": {"k": {"upvoted_count": 1}}, "no_votes": ["j"],
              "log_contains": [{"kind": "claim", "run": "r", "session": "s", "actor": {"agent_id": "a"}}],
              "log_absent": [{"kind": "evidence", "session": "t"}], "credited": [{"session": "s", "key": "k"}],
              "stats": [{"session": "s", "runs": 1}], "never_in_state": ["q"],
              "steps": {"r1": {"exit": 0, "output_contains": ["[1/1]"], "related": {"rules/a.md": []}},
                        "s1": {"output_matches": [r"\A(?![\s\S]*Recall \(last 10 sessions\))"]},
                        "v1": {"exit": {"$form": "[1-9][0-9]*"},
                               "findings": [{"severity": "fail", "file": "rules/a.md", "relation": "GOVERNS"}]}}}
    assert levels.spec_problems(expect, {"r1": "recall", "s1": "stats", "v1": "review"}) == []


# -- reading on meaning ---------------------------------------------------------------------------

@given(st.datetimes(min_value=dt.datetime(1900, 1, 1)), st.sampled_from(["Z", "+00:00"]), st.booleans())
def test_an_instant_matches_in_any_spelling_of_its_moment(moment, zone, millis):
    whole = moment.replace(microsecond=0)
    a = whole.strftime("%Y-%m-%dT%H:%M:%S") + (".000" if millis else "") + zone
    b = whole.strftime("%Y-%m-%dT%H:%M:%S") + ".000Z"
    assert same_instant(a, b)
    assert matches({"ts": b}, {"ts": a}, lenient=True)
    assert matches({"ts": b}, {"ts": a}) == (a == b)  # the profile reads the spelling


def test_another_moment_never_matches():
    assert not same_instant("2026-11-30T10:00:00Z", "2026-11-30T10:00:01.000Z")
    assert not same_instant("2026-11-30", "2026-11-30T00:00:00Z")


def test_null_matches_an_absent_field_only_on_meaning():
    assert matches({"kind": "run", "caller": None}, {"kind": "run"}, lenient=True)
    assert not matches({"kind": "run", "caller": None}, {"kind": "run"})
    assert not matches({"kind": "run", "caller": None}, {"kind": "run", "caller": "x"}, lenient=True)


def test_stats_rows_by_column_in_any_order_with_a_unique_prefix():
    want = [{"session": "ses-alice-000111", "runs": 2}, {"session": "ses-bob-9999", "runs": 1}]
    assert stats_rows(want, [{"session": "ses-bob-", "runs": 1}, {"session": "ses-alic…", "runs": 2}], NORM,
                      lenient=True) == []
    # a prefix shorter than 8, or one that names two sessions, is no session of the table
    assert stats_rows(want, [{"session": "ses-b", "runs": 1}, {"session": "ses-alic", "runs": 2}], NORM, lenient=True)
    twins = [{"session": "ses-aaaa-1", "runs": 1}, {"session": "ses-aaaa-2", "runs": 1}]
    assert stats_rows(twins, [{"session": "ses-aaaa", "runs": 1}, {"session": "ses-aaaa-2", "runs": 1}], NORM,
                      lenient=True)
    # a missing row, or one too many, fails
    assert stats_rows(want, [{"session": "ses-bob-9999", "runs": 1}], NORM, lenient=True)
    # the profile reads the order and the whole session
    assert stats_rows(want, [{"session": "ses-bob-9999", "runs": 1}, {"session": "ses-alice-000111", "runs": 2}],
                      NORM)


def test_a_finding_is_matched_by_what_it_names_not_its_words():
    want = {"severity": "fail", "file": "rules/payments.md", "relation": "GOVERNS"}
    assert finding_fits(want, '✖ [relations] rules/payments.md: "GOVERNS" is not a relation.')
    assert finding_fits(want, "✖ rules/payments.md -- unknown relation GOVERNS")
    assert not finding_fits(want, "! rules/payments.md -- unknown relation GOVERNS")  # another severity
    assert not finding_fits(want, "✖ rules/other.md -- unknown relation GOVERNS")
    assert not finding_fits(want, "✖ rules/payments.md -- unknown relation GOVERNSX")
    assert finding_fits({"severity": "warn", "target": "docs/x.md"}, "⚠ related: REFERENCES docs/x.md names nothing")


def test_findings_pair_one_to_one():
    lines = ["✖ a.md: IMPLEMENTS relates code. Use REFERENCES", "✖ a.md: REFERENCES is a list"]
    wanted = [{"severity": "fail", "relation": "REFERENCES"}, {"severity": "fail", "relation": "IMPLEMENTS"}]
    assert pair_up(wanted, lines, finding_fits) is not None
    assert pair_up(wanted + [{"severity": "fail", "relation": "REFERENCES"}], lines, finding_fits) is None


def test_the_ledger_file_on_meaning():
    text = 'version: "2"\nvotes:\n  k: {upvoted_count: 1, last_upvoted_at: "2026-11-30T10:00:00Z", on: True}\n'
    want = {"version": 2, "votes": {"k": {"upvoted_count": 1, "last_upvoted_at": "2026-11-30T10:00:00.000Z",
                                          "on": True}}}
    assert ledger_file(want, text, lenient=True) == []
    assert [m.path for m in ledger_file(want, text)] == ["expect.ledger_file.votes.k.last_upvoted_at",
                                                          "expect.ledger_file.votes.k.on"]


# -- placing a written case's expectations ---------------------------------------------------------

CATALOGUE = {"ADOPT": "884", "DEC": "decision", "FMT": "profile"}


def _case(clauses, expect, steps=()):
    return {"id": "x", "clauses": clauses, "steps": list(steps), "expect": expect}


def test_placement_keeps_the_spec_and_gives_the_rest_to_the_profile():
    line = {"kind": "evidence", "session": "s", "path": "p", "via": "read"}
    consumed = {"kind": "consumed", "session": "s", "key": "k", "run": "r", "credited": True,
                "evidence": {"ts": "t", "session": "s", "path": "p"}}
    placed = placement.place(_case(["ADOPT"], {"log_contains": [line, consumed], "log_lines": 4,
                                               "log_absent": [{"kind": "evidence", "via": "list"}]}), CATALOGUE)
    assert placed["expect"] == {"log_contains": [{"kind": "evidence", "session": "s", "path": "p"}],
                                "credited": [{"session": "s", "key": "k", "path": "p"}]}
    assert placed["profile"] == {"log_contains": [line, consumed], "log_lines": 4,
                                 "log_absent": [{"kind": "evidence", "via": "list"}]}
    assert placement.place(placed, CATALOGUE) == placed  # a placed case stays as it is


def test_a_decision_case_is_judged_under_its_decision_and_a_profile_case_by_the_profile():
    expect = {"votes": {"k": {"upvoted_count": 1}}}
    assert placement.place(_case(["ADOPT", "DEC"], expect), CATALOGUE)["decide"] == {"DEC": expect}
    placed = placement.place(_case(["FMT"], expect), CATALOGUE)
    assert "expect" not in placed and placed["profile"] == expect


def test_a_finding_line_is_read_as_what_it_names():
    assert placement.finding('✖ [relations] rules/payments.md: IMPLEMENTS relates code to code and cannot be '
                             'declared on a rule. Use MAPS_TO, REFERENCES') == {
        "severity": "fail", "file": "rules/payments.md", "relation": "IMPLEMENTS"}
    assert placement.finding("⚠ related: a learning cannot SUPERSEDES a rule (rules/payments.md). Use CONFLICTS_WITH") \
        == {"severity": "warn", "relation": "SUPERSEDES", "target": "rules/payments.md"}


# -- verdicts ---------------------------------------------------------------------------------------

def _judged(spec=(), decision=(), profile=(), held=levels.LEVELS):
    """Each block with its mismatches; the profile block only where the profile is judged, as the
    plan (``applicability.plan``) leaves it out for any other driver."""
    out = [(levels.Block(levels.SPEC, {"votes": {}}), list(spec)),
           (levels.Block(levels.DECISION, {"votes": {}}, "DEC"), list(decision))]
    return out + ([(levels.Block(levels.PROFILE, {"votes": {}}), list(profile))] if levels.PROFILE in held else [])


@pytest.mark.parametrize("held, decision, profile, outcome", [
    (["spec"], True, False, outcomes.PASS),
    (["spec"], False, True, outcomes.PASS),
    (["spec", "decision", "profile"], True, False, outcomes.FAIL),
    (["spec", "decision", "profile"], False, True, outcomes.FAIL),
    (["spec", "decision", "profile"], False, False, outcomes.PASS),
])
def test_only_a_driver_held_to_them_fails_on_a_decision_or_the_profile(held, decision, profile, outcome):
    miss = [Mismatch("x.votes", "differs")]
    result = outcomes.CaseResult("c", "t", "a", [], [], outcomes.PASS, held=held)
    outcomes.settle(result, _judged(decision=miss if decision else [], profile=miss if profile else [], held=held), [])
    assert result.outcome == outcome
    assert result.levels["decisions"] == {"DEC": "differ" if decision else "agree"}
    if decision and outcome == outcomes.PASS:
        assert result.message == "differs on DEC"


def test_a_spec_failure_fails_every_driver_and_the_totals_keep_levels_apart():
    results = []
    for held, spec in ((["spec"], True), (["spec"], False), (list(levels.LEVELS), False)):
        result = outcomes.CaseResult("c", "t", "a", [], [], outcomes.PASS, held=held)
        outcomes.settle(result, _judged(spec=[Mismatch("expect.votes", "x")] if spec else [],
                                        decision=[Mismatch("decide.DEC.votes", "x")], held=held), [])
        results.append(result)
    assert [r.outcome for r in results] == [outcomes.FAIL, outcomes.PASS, outcomes.FAIL]
    totals = outcomes.level_totals(results)
    assert totals["spec"] == {"pass": 2, "total": 3}
    assert totals["decisions"] == {"agree": 0, "differ": 3, "cases_differ": 3, "by_decision": {"DEC": 3}}
    assert totals["profile"] == {"pass": 1, "total": 1}
    assert outcomes.level_totals([r.to_json() for r in results]) == totals
