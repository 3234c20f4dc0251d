"""Time rules and substitutions: the small languages scenarios are written in."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.running import timeline
from conformance.running.substitute import Context, SubstitutionError, references, set_paths, where


def test_first_step_at_start_then_one_second_apart():
    got = timeline.instants({"steps": [{"recall": "a"}, {"recall": "b"}, {"pull": {}}]})
    assert [timeline.spell(t) for t in got] == ["2026-11-30T10:00:00.000Z", "2026-11-30T10:00:01.000Z",
                                                 "2026-11-30T10:00:02.000Z"]


def test_relative_absolute_and_own_start():
    steps = [{"recall": "a", "at": "+30s"}, {"pull": {}, "at": "+5m"}, {"pull": {}, "at": "+24h"},
             {"pull": {}, "at": "+1d"}, {"pull": {}, "at": "2027-01-01T00:00:00Z"}, {"pull": {}}]
    got = [timeline.spell(t) for t in timeline.instants({"start": "2026-12-01T08:00:00Z", "steps": steps})]
    assert got == ["2026-12-01T08:00:30.000Z", "2026-12-01T08:05:30.000Z", "2026-12-02T08:05:30.000Z",
                   "2026-12-03T08:05:30.000Z", "2027-01-01T00:00:00.000Z", "2027-01-01T00:00:01.000Z"]


def test_bad_instant_is_a_time_error():
    with pytest.raises(timeline.TimeError):
        timeline.instants({"steps": [{"recall": "a", "at": "yesterday"}]})


@settings(max_examples=50)
@given(st.lists(st.tuples(st.integers(0, 500), st.sampled_from("smhd")), min_size=1, max_size=8))
def test_relative_steps_add_up(gaps):
    steps = [{"recall": "q", "at": f"+{n}{unit}"} for n, unit in gaps]
    seconds = {"s": 1, "m": 60, "h": 3600, "d": 86400}
    total = sum(n * seconds[u] for n, u in gaps)
    last = timeline.instants({"steps": steps})[-1]
    assert last - timeline.parse_instant(timeline.DEFAULT_START) == dt.timedelta(seconds=total)


def _ctx() -> Context:
    return Context(steps={"r1": {"run": "u-1", "output": "OUT"}, "s1": {"run": None, "output": "x"}},
                   paths={"learnings/a": "/sb/team/learnings/a.md"},
                   user_paths={"rules/x.md": "/sb/user/rules/x.md"},
                   roots={"team": "/sb/team", "user_team": "/sb/user", "learnings": ["/sb/l1", "/sb/l2"]})


def test_every_form_resolves():
    ctx = _ctx()
    assert ctx.apply("run ${r1.run} said ${r1.output}") == "run u-1 said OUT"
    assert ctx.apply("${path:learnings/a}|${user:path:rules/x.md}") == "/sb/team/learnings/a.md|/sb/user/rules/x.md"
    assert ctx.apply("${root:team} ${root:user_team} ${root:learnings} ${root:learnings:2}") == \
        "/sb/team /sb/user /sb/l1 /sb/l2"
    assert ctx.apply({"k": ["${r1.run}", 3, None]}) == {"k": ["u-1", 3, None]}


def test_paths_that_are_not_assets_land_where_the_tree_table_puts_them():
    ctx = _ctx()
    assert ctx.apply("${path:learnings/new-one}") == "/sb/l1/new-one.md"
    assert ctx.apply("${path:skills/release}") == "/sb/team/skills/release/SKILL.md"
    assert ctx.apply("${path:docs/x.md}") == "/sb/team/docs/x.md"
    assert where("learnings/ops/a", "/t") == "/t/learnings/ops/a.md"


@pytest.mark.parametrize("text", ["${r9.run}", "${s1.run}", "${nope}", "${root:learnings:7}"])
def test_unresolvable_is_an_error(text):
    with pytest.raises(SubstitutionError):
        _ctx().apply(text)


def test_references_are_found_everywhere():
    assert references({"a": ["${r1.run}", {"b": "x ${path:y} ${r2.output}"}]}) == ["r1.run", "path:y", "r2.output"]


def test_set_creates_missing_objects_and_keeps_the_rest():
    payload = {"session_id": "old", "tool_input": {"file_path": "a", "limit": 5}, "list": [{"x": 1}]}
    got = set_paths(payload, {"session_id": "s", "tool_input.file_path": "b", "tool_response.stdout": "o",
                              "list.0.x": 2, "deep.a.b": [1, {"c": True}]})
    assert got == {"session_id": "s", "tool_input": {"file_path": "b", "limit": 5}, "list": [{"x": 2}],
                   "tool_response": {"stdout": "o"}, "deep": {"a": {"b": [1, {"c": True}]}}}
    assert payload["session_id"] == "old"  # never changed in place


def test_set_through_a_scalar_is_an_error():
    with pytest.raises(SubstitutionError):
        set_paths({"a": 1}, {"a.b": 2})


@settings(max_examples=50)
@given(st.lists(st.text("abcxyz", min_size=1, max_size=4), min_size=1, max_size=4), st.integers())
def test_set_then_get(parts, value):
    got = set_paths({}, {".".join(parts): value})
    for part in parts:
        got = got[part]
    assert got == value


def test_a_link_is_made_once_in_the_sandbox_and_leads_to_the_root(tmp_path):
    team = tmp_path / "team"
    team.mkdir()
    ctx = Context(roots={"team": str(team), "learnings": [str(team / "learnings")]}, sandbox=str(tmp_path))
    link = ctx.apply("${link:team}")
    assert link == str(tmp_path / "links" / "team")
    assert ctx.apply("${link:team}/docs") == link + "/docs"  # made once, named the same again
    assert (tmp_path / "links" / "team").is_symlink()
    assert (tmp_path / "links" / "team").resolve() == team.resolve()
    assert ctx.apply("${link:learnings}") == str(tmp_path / "links" / "learnings")
    with pytest.raises(SubstitutionError):
        ctx.apply("${link:user_team}")  # no such root
    with pytest.raises(SubstitutionError):
        Context(roots={"team": str(team)}).apply("${link:team}")  # no sandbox to make it in


def test_a_repeated_file_is_spelt_out_and_text_is_kept():
    from conformance.running.sandbox import expand_tree, file_text

    assert file_text({"before": "# Big\n", "repeat": "ab\n", "times": 3, "after": "end"}) == "# Big\nab\nab\nab\nend"
    assert file_text({"repeat": "x", "times": 2}) == "xx"
    assert expand_tree({"a.md": "text", "b.md": {"repeat": "y", "times": 1}}) == {"a.md": "text", "b.md": "y"}
    assert expand_tree(None) is None


@given(st.datetimes(min_value=dt.datetime(1, 1, 1), max_value=dt.datetime(9999, 12, 31, 23, 59, 59, 999000)))
def test_an_instant_is_spelt_so_that_it_reads_back(instant: dt.datetime) -> None:
    """Every year at four digits: the year 1 was spelt ``1-01-31T…``, which the implementation
    refused as TEAMAI_NOW."""
    text = timeline.spell(instant.replace(tzinfo=dt.UTC))
    assert len(text) == 24 and text[4] == "-"
    assert timeline.parse_instant(text) == instant.replace(microsecond=instant.microsecond // 1000 * 1000, tzinfo=dt.UTC)
