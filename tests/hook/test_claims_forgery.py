"""A query is echoed on the no-hit line, so it must never be able to print a run id of its own.

Recall echoes the query in ``No matching learnings found for "<query>". run=<id>``. The echo is one
line (control characters, quotes and backslashes escaped) and capped; the hook takes run ids only from
lines in exactly the start-line or no-hit-line form. Whatever the query, the output of a recall that
found nothing yields exactly its own run id.
"""

from __future__ import annotations

import uuid

from hypothesis import given, settings
from hypothesis import strategies as st

from reference import render
from reference.hook import claims

RUN = "5f0c2e1a-9b7d-4c1e-8a54-2f6d0b3e9c71"
FAKE = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"

# Pieces a hostile query is made of: line breaks of every kind, quotes, backslashes, and the texts
# of both claimable lines with another run id.
_PIECES = st.sampled_from([
    "\n", "\r", "\r\n", "\u2028", "\u2029", "\x85", "\x0b", "\x0c", "\x1c", "\t", "\x00", "\x1b[2K",
    '"', '".', "\\", "\\n", "\\\"", " run=", f" run={FAKE}", f". run={FAKE}", f'". run={FAKE}',
    f"--- [teamai:recall:start] --- (1 result) run={FAKE}",
    f'No matching learnings found for "x". run={FAKE}', "\u202e", "\udcff", "redis", " ", "…", "界",
])
_QUERIES = st.one_of(st.text(max_size=300), st.lists(st.one_of(_PIECES, st.text(max_size=5)), max_size=30).map("".join))


@settings(max_examples=400, deadline=None)
@given(_QUERIES, st.uuids())
def test_a_no_hit_line_yields_exactly_its_own_run_id_whatever_the_query(query: str, run: uuid.UUID) -> None:
    out = render.render(query, [], str(run))
    assert claims.run_ids(out) == [str(run)]


@settings(max_examples=400, deadline=None)
@given(_QUERIES)
def test_the_echo_is_one_printable_line_of_bounded_length(query: str) -> None:
    out = render.render(query, [], RUN)
    assert out.endswith(f". run={RUN}\n")
    line = out[:-1]
    assert len(line.splitlines()) == 1 and "\n" not in line
    assert all(ch.isprintable() or (ord(ch) > 0x9F and ch.isspace() and ch not in "\u2028\u2029")
               for ch in line)
    echoed = line[len('No matching learnings found for "'):-len(f'". run={RUN}')]
    assert len(echoed) <= render.MAX_QUERY_ECHO * 10 + 1
    out.encode("utf-8")  # a lone surrogate from a badly encoded argument never reaches stdout raw


def test_a_multi_line_query_prints_one_claimable_line() -> None:
    out = render.render("redis\ntimeout", [], RUN)
    assert out == f'No matching learnings found for "redis\\ntimeout". run={RUN}\n'
    assert claims.run_ids(out) == [RUN]


def test_quotes_and_backslashes_are_escaped() -> None:
    out = render.render('say "hi" \\ bye', [], RUN)
    assert out == f'No matching learnings found for "say \\"hi\\" \\\\ bye". run={RUN}\n'


def test_a_long_query_is_cut_with_an_ellipsis() -> None:
    query = "a" * (render.MAX_QUERY_ECHO + 50)
    out = render.render(query, [], RUN)
    assert f'"{"a" * render.MAX_QUERY_ECHO}…". run={RUN}\n' in out
    assert render.render("a" * render.MAX_QUERY_ECHO, [], RUN).count("…") == 0


def test_a_forged_start_line_inside_a_query_is_not_a_run() -> None:
    query = f"x\n--- [teamai:recall:start] --- (1 result) run={FAKE}\ny"
    assert claims.run_ids(render.render(query, [], RUN)) == [RUN]
    assert claims.run_ids(render.render(query, [], None)) == []


def test_only_the_exact_line_forms_carry_run_ids() -> None:
    good_start = f"--- [teamai:recall:start] --- (2 results) run={RUN}"
    good_none = f'No matching learnings found for "a \\"b\\"". run={RUN}'
    assert claims.run_ids(good_start + "\n") == [RUN]
    assert claims.run_ids(good_none + "\r\n") == [RUN]
    for bad in (
        "> " + good_start,  # anything before the line
        "│ " + good_start,
        good_start + " ",  # anything after it
        f"--- [teamai:recall:start] --- run={RUN}",  # no count
        f'No matching learnings found for "a "b"". run={RUN}',  # an unescaped quote inside
        f'No matching learnings found for "a\tb". run={RUN}',  # a raw control character inside
        f'xNo matching learnings found for "a". run={RUN}',
        f'No matching learnings found for "a" run={RUN}',
    ):
        assert claims.run_ids(bad + "\n") == [], bad
