"""Relations never change recall's hits, their order or their scores (property test).

Random trees are recalled three ways: as written; with every ``related:`` block removed from the
frontmatter; and as written but with the relations machinery switched off. With the ``Related:``
lines taken out, the three outputs must be the same text.
"""

from __future__ import annotations

import io
import os
import tempfile
from pathlib import Path
from unittest import mock

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reference.cli import run
from reference.recall import relations_view
from reference.relations import extract
from reference.streams import Io

WORDS = ["payment", "ledger", "receipt", "timeout", "retry", "deploy", "freeze", "redis", "queue", "job"]
PLACES = ["rules/r{}.md", "docs/d{}.md", "learnings/l{}.md", "learnings/ns/l{}.md", "skills/s{}/SKILL.md",
          "teamwiki/evidence/code/pay/p{}.md", "teamwiki/evidence/code/bill/p{}.md"]
RELATIONS = ["MAPS_TO", "REFERENCES", "SUPERSEDES", "CONFLICTS_WITH", "IMPLEMENTS", "GOVERNS"]


def _tree_path(rel: str) -> str:
    if rel.startswith("learnings/"):
        return rel[:-3]
    if rel.startswith("skills/"):
        return rel[: -len("/SKILL.md")]
    return rel


@st.composite
def trees(draw: st.DrawFn) -> dict[str, tuple[str, str, str]]:
    """rel path -> (frontmatter without related, related block, body)."""
    count = draw(st.integers(2, 9))
    rels = list(dict.fromkeys(draw(st.sampled_from(PLACES)).format(i) for i in range(count)))
    targets = [_tree_path(r) for r in rels] + ["docs/missing.md", "/abs.md", "../out.md"]
    files: dict[str, tuple[str, str, str]] = {}
    for rel in rels:
        words = draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=4))
        tags = draw(st.lists(st.sampled_from(WORDS), max_size=2))
        head = f"title: {' '.join(words)}\ntags: [{', '.join(tags)}]\n"
        if rel.startswith("skills/"):
            head = f"name: {' '.join(words)}\n"
        decls = draw(st.lists(st.tuples(st.sampled_from(RELATIONS), st.sampled_from(targets)), max_size=4))
        related = "".join(f"  {r}: [{t}]\n" for r, t in dict(decls).items())
        related = f"related:\n{related}" if related else draw(st.sampled_from(["", "related: [x]\n"]))
        body_words = draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=8))
        link_to = draw(st.lists(st.sampled_from(targets), max_size=3))
        depth = rel.count("/")
        links = " ".join(f"[see]({'../' * depth}{t}{'.md' if t.startswith('learnings/') else ''})" for t in link_to)
        files[rel] = (head, related, " ".join(body_words) + "\n" + links + "\n")
    return files


def _write(folder: Path, files: dict[str, tuple[str, str, str]], with_related: bool) -> None:
    for rel, (head, related, body) in files.items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"---\n{head}{related if with_related else ''}---\n{body}", encoding="utf-8")


def _recall(tmp: Path, team: Path, query: str, withheld: bool) -> str:
    env = {"PATH": os.environ.get("PATH", ""), "TEAMAI_HOME": str(tmp / "home"), "TEAMAI_TEAM": str(team),
           "TEAMAI_RECALL_DISABLED": "1"}
    tmp.mkdir(parents=True, exist_ok=True)
    if withheld:
        (tmp / "withheld").write_text("bill\n")
        env["TEAMAI_WITHHELD_FILE"] = str(tmp / "withheld")
    out, err = io.StringIO(), io.StringIO()
    code = run(["recall", query], Io(env, io.BytesIO(b""), out, err))
    assert code == 0, err.getvalue()
    text = out.getvalue().replace(str(team), "<team>")
    return "\n".join(line for line in text.splitlines() if not line.startswith("Related: "))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(trees(), st.lists(st.sampled_from(WORDS), min_size=1, max_size=3).map(" ".join), st.booleans())
def test_relations_never_change_hits_order_or_scores(files, query, withheld) -> None:  # type: ignore[no-untyped-def]
    with tempfile.TemporaryDirectory() as raw:
        tmp = Path(raw)
        _write(tmp / "a" / "team", files, with_related=True)
        _write(tmp / "b" / "team", files, with_related=False)
        full = _recall(tmp / "a", tmp / "a" / "team", query, withheld)
        bare = _recall(tmp / "b", tmp / "b" / "team", query, withheld)
        with mock.patch.object(relations_view, "attach", lambda cfg, searched: list(searched.hits)), \
                mock.patch.object(extract, "outgoing", lambda *a: {"declared": [], "links": []}):
            off = _recall(tmp / "c", tmp / "a" / "team", query, withheld)
        assert full == bare == off
