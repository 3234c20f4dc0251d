"""Related lines on real recalls over real trees: order, cap, dedup, scope and visibility."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

HIT = re.compile(r"^\[\d+/\d+\] ")


def write(folder: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return folder


def related(out: str) -> dict[str, list[str]]:
    """File path -> its Related lines, for every hit; also checks they follow File: directly."""
    result: dict[str, list[str]] = {}
    lines = out.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("File: "):
            rel = []
            for nxt in lines[i + 1:]:
                if not nxt.startswith("Related: "):
                    break
                rel.append(nxt[len("Related: "):])
            result[line[len("File: "):]] = rel
    assert sum(len(v) for v in result.values()) == out.count("Related: ")
    return result


def fm(related_yaml: str = "", title: str = "payments ledger", body: str = "payments ledger text") -> str:
    return f"---\ntitle: {title}\n{related_yaml}---\n{body}\n"


@pytest.fixture
def make(cli, home, tmp_path):  # type: ignore[no-untyped-def]
    def _make(files: dict[str, str], **env: str):  # type: ignore[no-untyped-def]
        team = write(tmp_path / "t", files)
        runner = type(cli)(home, team)
        runner.env.update(env)
        runner.env["TEAMAI_RECALL_DISABLED"] = "1"
        return team, runner
    return _make


def test_spec_example(cli, team) -> None:  # type: ignore[no-untyped-def]
    res = cli("recall", "why did the payment job fail?")
    assert res.code == 0, res.err
    t = str(team)
    learning = f"{t}/learnings/ledger-receipt-write-times-out-at-3s-2026-10-12-a1b2c3.md"
    page = f"{t}/teamwiki/evidence/code/pay/modules/ledger-receipts.md"
    assert related(res.out) == {
        learning: [f"→ SUPERSEDES {t}/docs/payments-overview.md"],
        f"{t}/docs/payments-overview.md": [f"← SUPERSEDES {learning}", f"← REFERENCES {t}/rules/payments.md"],
        f"{t}/rules/payments.md": [f"→ MAPS_TO {page}", f"→ REFERENCES {t}/skills/release/SKILL.md",
                                   f"→ REFERENCES {t}/docs/payments-overview.md"],
        page: [f"← MAPS_TO {t}/rules/payments.md"],
        f"{t}/learnings/redis-timeout.md": [],
    }
    # right after File:, before the snippet
    assert f"File: {page}\nRelated: ← MAPS_TO {t}/rules/payments.md\nSnippet: " in res.out


def test_withheld_codebase_hides_the_page_and_its_relations(cli, team, tmp_path) -> None:  # type: ignore[no-untyped-def]
    plain = cli("recall", "why did the payment job fail?", env={"TEAMAI_RECALL_DISABLED": "1"})
    listing = tmp_path / "withheld"
    listing.write_text("# codebases this folder may not see\npay\n")
    res = cli("recall", "why did the payment job fail?", env={"TEAMAI_WITHHELD_FILE": str(listing)})
    assert "ledger-receipts" not in res.out and "ledger-receipts" in plain.out
    assert related(res.out)[f"{team}/rules/payments.md"] == [
        f"→ REFERENCES {team}/skills/release/SKILL.md", f"→ REFERENCES {team}/docs/payments-overview.md"]


def test_unreadable_withheld_list_resolves_no_page(cli, team, tmp_path) -> None:  # type: ignore[no-untyped-def]
    folder = tmp_path / "a-folder"
    folder.mkdir()
    res = cli("recall", "why did the payment job fail?", env={"TEAMAI_WITHHELD_FILE": str(folder)})
    page = f"{team}/teamwiki/evidence/code/pay/modules/ledger-receipts.md"
    got = related(res.out)
    assert got[page] == []  # the page is still a hit, as recall shows it today, but relates to nothing
    assert not any("MAPS_TO" in line for line in got[f"{team}/rules/payments.md"])


def test_other_codebase_withheld_changes_nothing(cli, team, tmp_path) -> None:  # type: ignore[no-untyped-def]
    listing = tmp_path / "withheld"
    listing.write_text("billing\n")
    res = cli("recall", "why did the payment job fail?", env={"TEAMAI_WITHHELD_FILE": str(listing)})
    assert any("MAPS_TO" in line for line in related(res.out)[f"{team}/rules/payments.md"])


def test_group_order_incoming_by_tree_path_and_cap(make, tmp_path) -> None:  # type: ignore[no-untyped-def]
    files = {
        "docs/hub.md": fm("related:\n  REFERENCES: [skills/s2, skills/s1]\n", body="payments [x](other.md)"),
        "docs/other.md": fm(title="unrelated words"),
        "skills/s1/SKILL.md": "---\nname: s1\n---\nskill one\n",
        "skills/s2/SKILL.md": "---\nname: s2\n---\nskill two\n",
        "rules/b.md": fm("related:\n  CONFLICTS_WITH: docs/hub.md\n", title="other rule"),
        "rules/a.md": fm("", title="other rule a", body="[hub](../docs/hub.md)"),
    }
    team, run = make(files)
    roots = write(tmp_path / "zz-learnings", {"a-first.md": fm("related:\n  SUPERSEDES: docs/hub.md\n",
                                                                title="a learning")})
    run.env["TEAMAI_LEARNINGS"] = str(roots)
    res = run("recall", "payments")
    got = related(res.out)[f"{team}/docs/hub.md"]
    # incoming sorts by tree path: learnings/a-first < rules/b.md, although its absolute path sorts last
    assert got == [f"→ REFERENCES {team}/skills/s2/SKILL.md", f"→ REFERENCES {team}/skills/s1/SKILL.md",
                   f"← SUPERSEDES {roots}/a-first.md", f"← CONFLICTS_WITH {team}/rules/b.md",
                   f"→ REFERENCES {team}/docs/other.md"]  # the fifth line; the incoming link is cut
    assert str(roots) > str(team)


def test_cap_is_five(make) -> None:  # type: ignore[no-untyped-def]
    targets = [f"docs/t{i}.md" for i in range(7)]
    files = {t: fm(title=f"target {i}") for i, t in enumerate(targets)}
    files["rules/r.md"] = fm("related:\n  REFERENCES: [" + ", ".join(targets) + "]\n", title="payments")
    team, run = make(files)
    got = related(run("recall", "payments").out)[f"{team}/rules/r.md"]
    assert got == [f"→ REFERENCES {team}/docs/t{i}.md" for i in range(5)]


def test_declared_beats_link_in_the_same_direction_only(make) -> None:  # type: ignore[no-untyped-def]
    files = {
        "rules/r.md": fm("related:\n  CONFLICTS_WITH: docs/d.md\n", title="payments",
                         body="[d](../docs/d.md) [d again](../docs/d.md)"),
        "docs/d.md": fm(title="payments doc", body="[r](../rules/r.md)"),
    }
    team, run = make(files)
    got = related(run("recall", "payments").out)
    assert got[f"{team}/rules/r.md"] == [f"→ CONFLICTS_WITH {team}/docs/d.md", f"← REFERENCES {team}/docs/d.md"]
    assert got[f"{team}/docs/d.md"] == [f"← CONFLICTS_WITH {team}/rules/r.md", f"→ REFERENCES {team}/rules/r.md"]


def test_two_relations_to_one_target_both_show(make) -> None:  # type: ignore[no-untyped-def]
    files = {"docs/a.md": fm("related:\n  SUPERSEDES: docs/b.md\n  CONFLICTS_WITH: docs/b.md\n"
                             "  REFERENCES: [docs/b.md, docs/b.md]\n", title="payments a"),
             "docs/b.md": fm(title="other")}
    team, run = make(files)
    assert related(run("recall", "payments").out)[f"{team}/docs/a.md"] == [
        f"→ SUPERSEDES {team}/docs/b.md", f"→ CONFLICTS_WITH {team}/docs/b.md", f"→ REFERENCES {team}/docs/b.md"]


def test_outside_the_table_and_missing_targets_show_nothing(make) -> None:  # type: ignore[no-untyped-def]
    files = {"docs/a.md": fm("related:\n  SUPERSEDES: rules/r.md\n  MAPS_TO: docs/b.md\n  GOVERNS: docs/b.md\n"
                             "  REFERENCES: [docs/missing.md, docs/a.md]\n", title="payments a",
                             body="[gone](missing.md) [readme](../README.md)"),
             "docs/b.md": fm(title="payments b"), "rules/r.md": fm(title="payments r")}
    team, run = make(files)
    got = related(run("recall", "payments").out)
    assert got == {f"{team}/docs/a.md": [], f"{team}/docs/b.md": [], f"{team}/rules/r.md": []}


def test_target_that_is_not_indexed_does_not_resolve(make) -> None:  # type: ignore[no-untyped-def]
    team, run = make({"rules/r.md": fm("related:\n  REFERENCES: docs/bin.md\n", title="payments")})
    (team / "docs").mkdir()
    (team / "docs" / "bin.md").write_bytes(b"\xff\xfe binary")
    assert related(run("recall", "payments").out)[f"{team}/rules/r.md"] == []


def test_incoming_follows_an_edit_of_the_source(make) -> None:  # type: ignore[no-untyped-def]
    team, run = make({"rules/r.md": fm("related:\n  REFERENCES: docs/d.md\n", title="other"),
                      "docs/d.md": fm(title="payments")})
    assert related(run("recall", "payments").out)[f"{team}/docs/d.md"] == [f"← REFERENCES {team}/rules/r.md"]
    source = team / "rules" / "r.md"
    source.write_text(fm("", title="other") + "\n")
    os.utime(source, ns=(1, 1))
    assert related(run("recall", "payments").out)[f"{team}/docs/d.md"] == []


def test_no_relations_across_scopes(make, tmp_path) -> None:  # type: ignore[no-untyped-def]
    team, run = make({"docs/shared.md": fm(title="workspace doc")})
    user = write(tmp_path / "user", {"rules/u.md": fm("related:\n  REFERENCES: docs/shared.md\n",
                                                      title="payments user rule")})
    run.env["TEAMAI_USER_TEAM"] = str(user)
    res = run("recall", "payments")
    assert "[user]" in res.out
    assert related(res.out)[f"{user}/rules/u.md"] == []


def test_shadowed_user_entry_contributes_nothing(make, tmp_path) -> None:  # type: ignore[no-untyped-def]
    team, run = make({"rules/twin.md": fm(title="workspace twin")})
    user = write(tmp_path / "user", {
        "rules/twin.md": fm("related:\n  REFERENCES: docs/u.md\n", title="user twin"),
        "rules/other.md": fm("related:\n  REFERENCES: docs/u.md\n", title="user other"),
        "docs/u.md": fm(title="payments user doc")})
    run.env["TEAMAI_USER_TEAM"] = str(user)
    got = related(run("recall", "payments").out)
    assert got[f"{user}/docs/u.md"] == [f"← REFERENCES {user}/rules/other.md"]


def test_learning_target_prints_the_file_of_the_first_root(make, tmp_path) -> None:  # type: ignore[no-untyped-def]
    team, run = make({"docs/d.md": fm("related:\n  SUPERSEDES: learnings/ops/l\n", title="payments doc")})
    first = write(tmp_path / "first", {"ops/l.md": fm(title="first copy")})
    second = write(tmp_path / "second", {"ops/l.md": fm("related:\n  CONFLICTS_WITH: docs/d.md\n",
                                                        title="second copy")})
    run.env["TEAMAI_LEARNINGS"] = os.pathsep.join([str(first), str(second)])
    assert related(run("recall", "payments").out)[f"{team}/docs/d.md"] == [f"→ SUPERSEDES {first}/ops/l.md"]


def test_links_in_skills_are_not_read(make) -> None:  # type: ignore[no-untyped-def]
    team, run = make({"skills/s/SKILL.md": "---\nname: payments skill\n---\n[d](../../docs/d.md)\n",
                      "docs/d.md": fm(title="payments doc")})
    got = related(run("recall", "payments").out)
    assert got == {f"{team}/skills/s/SKILL.md": [], f"{team}/docs/d.md": []}


def test_check_is_unchanged(cli, team) -> None:  # type: ignore[no-untyped-def]
    res = cli("recall", "--check", "payments")
    assert res.code == 0 and res.out.startswith("RELEVANT score=") and "Related" not in res.out


def test_nothing_is_written_into_the_team_tree(cli, team) -> None:  # type: ignore[no-untyped-def]
    before = sorted(p.relative_to(team) for p in team.rglob("*"))
    cli("recall", "why did the payment job fail?")
    assert sorted(p.relative_to(team) for p in team.rglob("*")) == before
    assert not (team / "teamwiki" / ".indices").exists()


def test_index_version_change_rebuilds_relations(cli, home, team) -> None:  # type: ignore[no-untyped-def]
    import sqlite3

    from reference.recall import index

    cli("index")
    (db,) = home.glob("workspaces/*/index.db")
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE assets SET relations = '{}'")
        conn.execute("UPDATE meta SET value = 'old' WHERE name = 'version'")
    res = cli("recall", "why did the payment job fail?", env={"TEAMAI_RECALL_DISABLED": "1"})
    assert f"Related: ← MAPS_TO {team}/rules/payments.md" in res.out
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT value FROM meta WHERE name='version'").fetchone()[0] == index.INDEX_VERSION


@pytest.fixture
def large_tree(monkeypatch):  # type: ignore[no-untyped-def]
    """Trees above this many assets notice in-place edits only through folder mtimes and a walk
    every few minutes; three assets make the example tree such a tree."""
    from reference.recall import index_build

    monkeypatch.setattr(index_build, "FULL_SCAN_LIMIT", 3)


def _edit_in_place(path: Path, text: str) -> None:
    """Rewrite a file without moving its folder's mtime, as an editor saving in place does."""
    folder = os.stat(path.parent).st_mtime_ns
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)
    os.utime(path, ns=(10**18, 10**18))
    os.utime(path.parent, ns=(folder, folder))


@pytest.mark.parametrize("edit", ["remove", "add-link-only"])
def test_large_tree_never_prints_a_removed_incoming_relation(make, large_tree, edit) -> None:  # type: ignore[no-untyped-def]
    team, run = make({"rules/r.md": fm("related:\n  REFERENCES: docs/d.md\n", title="other"),
                      "rules/s.md": fm(title="unrelated one"), "rules/t.md": fm(title="unrelated two"),
                      "docs/d.md": fm(title="payments"), "docs/e.md": fm(title="unrelated three")})
    assert related(run("recall", "payments").out)[f"{team}/docs/d.md"] == [f"← REFERENCES {team}/rules/r.md"]
    body = "no relation at all" if edit == "remove" else "see [the doc](../docs/d.md)"
    _edit_in_place(team / "rules" / "r.md", fm("", title="other", body=body))
    expected = [] if edit == "remove" else [f"← REFERENCES {team}/rules/r.md"]
    assert related(run("recall", "payments").out)[f"{team}/docs/d.md"] == expected  # at once, not in 5 minutes


def test_large_tree_outgoing_target_edited_in_place_still_resolves(make, large_tree) -> None:  # type: ignore[no-untyped-def]
    team, run = make({"rules/r.md": fm("related:\n  REFERENCES: docs/d.md\n", title="payments"),
                      "docs/d.md": fm(title="other"), "docs/e.md": fm(title="x"), "docs/f.md": fm(title="y")})
    assert related(run("recall", "payments").out)[f"{team}/rules/r.md"] == [f"→ REFERENCES {team}/docs/d.md"]
    _edit_in_place(team / "docs" / "d.md", fm("related:\n  REFERENCES: rules/r.md\n", title="other"))
    got = related(run("recall", "payments").out)[f"{team}/rules/r.md"]
    assert got == [f"→ REFERENCES {team}/docs/d.md", f"← REFERENCES {team}/docs/d.md"]


def test_large_tree_busy_index_leaves_out_what_an_edited_source_declared(make, large_tree, home) -> None:  # type: ignore[no-untyped-def]
    import sqlite3

    from reference.team import config

    team, run = make({"rules/r.md": fm("related:\n  REFERENCES: docs/d.md\n", title="other", body="words"),
                      "rules/s.md": fm(title="unrelated one"), "rules/t.md": fm(title="unrelated two"),
                      "docs/d.md": fm(title="payments")})
    assert related(run("recall", "payments").out)[f"{team}/docs/d.md"] == [f"← REFERENCES {team}/rules/r.md"]
    _edit_in_place(team / "rules" / "r.md", fm("", title="other", body="nothing declared any more"))
    holder = sqlite3.connect(config.load(run.env).active.index_path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        res = run("recall", "payments", env={"TEAMAI_LOCK_WAIT": "0.2"})
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert res.code == 0 and related(res.out)[f"{team}/docs/d.md"] == []
    assert "busy" in res.err and "left out" in res.err and len(res.err.splitlines()) == 1
