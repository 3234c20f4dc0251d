"""``contribute``: publishes whatever the learning declares, and warns about its relations."""

from __future__ import annotations

from pathlib import Path

import pytest

from reference.commands import contribute

NOW = {"TEAMAI_NOW": "2026-10-12T09:30:00Z"}
LEARNING = """---
author: ana
related:
  SUPERSEDES: rules/payments.md
  REFERENCES: docs/payment-overview.md
---
The receipt write times out at 3s; retry once.
"""


def published(team: Path) -> list[Path]:
    return sorted((team / "learnings").glob("*-2026-10-12-*.md"))


def test_spec_example(cli, team, tmp_path) -> None:  # type: ignore[no-untyped-def]
    before = set(published(team))
    src = tmp_path / "ledger-timeout.md"
    src.write_text(LEARNING)
    res = cli("contribute", "--file", str(src), "--title", "Ledger receipt write times out at 3s", env=NOW)
    assert res.code == 0, res.err
    lines = res.out.splitlines()
    assert lines[:2] == [
        "⚠ related: a learning cannot SUPERSEDES a rule (rules/payments.md). Use CONFLICTS_WITH; "
        "this relation is ignored.",
        "⚠ related: REFERENCES docs/payment-overview.md names no team asset; this relation is ignored.",
    ]
    (new,) = set(published(team)) - before
    assert new.name.startswith("ledger-receipt-write-times-out-at-3s-2026-10-12-") and len(new.stem) == 36 + 18
    assert lines[2] == f"Published learnings/{new.stem} to {new}"
    text = new.read_text()
    assert text.startswith('---\ntitle: "Ledger receipt write times out at 3s"\nauthor: ana\n')
    assert text.endswith(LEARNING.split("---\n", 2)[2])
    # recall shows neither relation
    rec = cli("recall", "receipt", "write", "times", env={"TEAMAI_RECALL_DISABLED": "1"})
    after = rec.out.split(f"File: {new}\n", 1)[1]
    assert not after.startswith("Related")
    assert not [line for line in rec.out.splitlines() if line.startswith("Related") and str(new) in line]


def test_clean_learning_has_no_warnings_and_keeps_its_title(cli, team, tmp_path) -> None:  # type: ignore[no-untyped-def]
    src = tmp_path / "l.md"
    src.write_text("---\ntitle: Own title\nrelated:\n  CONFLICTS_WITH: rules/payments.md\n"
                   "  REFERENCES: [learnings/redis-timeout, skills/release/SKILL.md,"
                   " teamwiki/evidence/code/pay/modules/ledger-receipts.md]\n---\nbody\n")
    res = cli("contribute", "--file", str(src), "--title", "Other title", env=NOW)
    assert res.code == 0 and res.out.startswith("Published learnings/other-title-2026-10-12-")
    path = Path(res.out.split(" to ", 1)[1].strip())
    assert path.read_text() == src.read_text()


def test_targets_in_every_learnings_root_exist(cli, team, tmp_path) -> None:  # type: ignore[no-untyped-def]
    first, second = tmp_path / "r1", tmp_path / "r2"
    second.mkdir()
    (second / "old.md").write_text("---\ntitle: old\n---\nx\n")
    src = tmp_path / "l.md"
    src.write_text("---\nrelated:\n  SUPERSEDES: [learnings/old, learnings/none]\n---\nbody\n")
    res = cli("contribute", "--file", str(src), "--title", "T", env={**NOW, "TEAMAI_LEARNINGS": f"{first}:{second}"})
    assert res.code == 0
    assert res.out.splitlines()[0] == "⚠ related: SUPERSEDES learnings/none names no team asset; " \
                                      "this relation is ignored."
    assert len(list(first.glob("t-2026-10-12-*.md"))) == 1 and not list(second.glob("t-*"))


def test_never_overwrites(cli, team, tmp_path) -> None:  # type: ignore[no-untyped-def]
    src = tmp_path / "l.md"
    src.write_text("plain body\n")
    assert cli("contribute", "--file", str(src), "--title", "Same", env=NOW).code == 0
    (path,) = (team / "learnings").glob("same-*.md")
    path.write_text("edited by hand\n")
    res = cli("contribute", "--file", str(src), "--title", "Same", env=NOW)
    assert res.code == 3 and "already exists" in res.err
    assert path.read_text() == "edited by hand\n"
    assert not list((team / "learnings").glob(".contribute-*"))


def test_a_file_that_is_not_text_is_refused_and_nothing_is_written(cli, team, tmp_path) -> None:  # type: ignore[no-untyped-def]
    src = tmp_path / "l.md"
    src.write_bytes(b"\xff\xfe")
    before = sorted((team / "learnings").rglob("*"))
    res = cli("contribute", "--file", str(src), "--title", "T", env=NOW)
    assert res.code == 3 and "not UTF-8" in res.err and res.err.count("\n") == 1
    assert sorted((team / "learnings").rglob("*")) == before
    res = cli("contribute", "--file", str(tmp_path / "missing.md"), "--title", "T", env=NOW)
    assert res.code == 3


@pytest.mark.parametrize("text", [
    "---\ntitle: [unclosed\nauthor: ana\n---\nThe quokka body stays searchable.\n",
    "---\ntitle: no closing line\nThe quokka body stays searchable.\n",
    "---\n- a list\n- not a mapping\n---\nThe quokka body stays searchable.\n",
])
def test_unreadable_frontmatter_is_published_as_written_with_a_warning(cli, team, tmp_path, text) -> None:  # type: ignore[no-untyped-def]
    src = tmp_path / "l.md"
    src.write_text(text)
    before = set(published(team))
    res = cli("contribute", "--file", str(src), "--title", "Quokka habits", env=NOW)
    assert res.code == 0, res.err
    (new,) = set(published(team)) - before
    assert new.read_text() == text  # byte for byte: an unreadable block is not edited
    lines = res.out.splitlines()
    assert lines[0].startswith("⚠ frontmatter: ") and "published as written" in lines[0]
    assert lines[-1] == f"Published learnings/{new.stem} to {new}"
    assert res.err == ""
    found = cli("recall", "quokka", "body", env={"TEAMAI_RECALL_DISABLED": "1"})
    assert f"File: {new}" in found.out  # the index reads its body, as it does for any such file


def test_unreadable_frontmatter_with_a_related_block_says_no_relation_is_read(cli, team, tmp_path) -> None:  # type: ignore[no-untyped-def]
    src = tmp_path / "l.md"
    src.write_text("---\ntitle: [x\nrelated:\n  REFERENCES: docs/payments-overview.md\n---\nbody\n")
    res = cli("contribute", "--file", str(src), "--title", "Broken", env=NOW)
    assert res.code == 0
    marks = [line.split(":", 1)[0] for line in res.out.splitlines() if line.startswith("⚠")]
    assert marks == ["⚠ frontmatter", "⚠ related"]
    assert "so related: is not read" in res.out


@pytest.mark.parametrize(("title", "slug"), [("Ledger receipt write times out at 3s", "ledger-receipt-write-times-out-at-3s"),
                                             ("  Ümlaut & co. — v2 ", "ümlaut-co-v2"), ("!!!", "learning"),
                                             ("x" * 100, "x" * 60)])
def test_slug(title: str, slug: str) -> None:
    assert contribute.slug(title) == slug


@pytest.mark.parametrize(("text", "expected"), [
    ("body\n", '---\ntitle: "T"\n---\nbody\n'),
    ("---\nauthor: a\n---\nbody\n", '---\ntitle: "T"\nauthor: a\n---\nbody\n'),
    ("---\ntitle:\nauthor: a\n---\nbody\n", '---\ntitle: "T"\nauthor: a\n---\nbody\n'),
    ("---\n---\nbody\n", '---\ntitle: "T"\n---\nbody\n'),
    ("---\ntitle: Kept\n---\nbody\n", "---\ntitle: Kept\n---\nbody\n"),
])
def test_title_is_set_only_when_absent(text: str, expected: str) -> None:
    out = contribute.with_title(text, "T")
    assert out == expected
    from reference.team import frontmatter

    assert frontmatter.split(out).meta.get("title") in ("T", "Kept")
