"""Lines with the right kind but wrong field types never break a reducer, a prune or stats, and a
failed append after the ledgers were written never leads to a second vote."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reference import reducer
from reference.commands import stats
from reference.state import retention, storage

from .conftest import Lab
from .logs import evidence, run, ts

JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=5),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
                    max_leaves=6)
FIELDS = ("run", "session", "docs", "actor", "path", "exact", "status", "simple", "child", "parent", "key",
          "evidence", "credited", "via", "unambiguous", "caller", "agent")


@st.composite
def odd_line(draw: st.DrawFn) -> dict:
    rec = {"kind": draw(st.sampled_from(reducer.KINDS)), "ts": draw(st.sampled_from([ts(5), ts(9), "yesterday"]))}
    for name in draw(st.lists(st.sampled_from(FIELDS), unique=True, max_size=6)):
        rec[name] = draw(JSON)
    return rec


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.lists(st.tuples(odd_line(), st.booleans()), max_size=8))
def test_odd_field_types_never_raise(tmp_path_factory, lines):
    """Odd values in the log's own spelling, read by the byte readers, and spelt with spaces (as a
    person or another tool writes JSON), which only the decoder reads."""
    lab = Lab(tmp_path_factory.mktemp("odd"))
    lab.write([run(0, "r1", "ses-a", [lab.doc("d1")])])
    with open(lab.log_path, "ab") as fh:
        for rec, spaced in lines:
            fh.write((json.dumps(rec) if spaced else json.dumps(rec, separators=(",", ":"))).encode() + b"\n")
    lab.append([evidence(5, "ses-a", lab.path("d1"))])
    res = lab.reduce()
    assert lab.votes().get("d1", 0) <= 1 and res.credited in ([], [("ses-a", "d1")])
    model = reducer.load(lab.cfg())
    assert isinstance(stats.rows(model), list)
    json.dumps(stats.rows(model))
    retention.prune(lab.cfg(40 * 24 * 3600), lab.warnings.append)


def test_failed_append_after_the_ledgers_never_votes_twice(lab):
    lab.write([run(0, "r1", "ses-a", [lab.doc("d1")]), evidence(5, "ses-a", lab.path("d1"))])
    with storage.locked(lab.cfg().active.log_lock, "test"):
        res = lab.reduce(at=100)
    assert res.credited == [("ses-a", "d1")] and res.consumed == 0
    assert any("could not mark reads as consumed" in w for w in lab.warnings)
    assert lab.consumed() == [] and lab.votes() == {"d1": 1}
    again = lab.reduce(at=200)
    assert again.credited == [] and again.consumed == 1
    assert lab.votes() == {"d1": 1}
    assert lab.consumed()[0]["credited"] is True


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet="abc-0123456789", min_size=1, max_size=12), st.sampled_from(["run", "claim", "consumed"]))
def test_a_run_id_spelt_with_an_escape_is_left_to_the_decoder(run_id, kind):
    """The bytes are read only where they spell the id plainly: an escaped character (valid JSON,
    the same id once decoded) makes the cheap read say "unsure", never a different id."""
    from reference.reducer.logread import run_of

    plain = f'{{"kind":"{kind}","ts":"2026-11-30T09:00:00.000Z","run":"{run_id}","session":"s"}}'.encode()
    escaped = plain.replace(f'"run":"{run_id}"'.encode(),
                            b'"run":"' + "".join(f"\\u{ord(c):04x}" for c in run_id).encode() + b'"')
    assert run_of(plain) == run_id
    assert json.loads(escaped)["run"] == run_id
    assert run_of(escaped) is None
