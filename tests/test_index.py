"""The index: freshness in both modes, versioning, CJK, titles, and the real corpus."""

from __future__ import annotations

import io
import os
import sqlite3
from pathlib import Path

import pytest

from reference.recall import index, index_build
from reference.recall import run as recall
from reference.team import config
from tests.conftest import REAL_TEAM


def _search(home: Path, team: Path, query: str, now: str = "2026-11-30T10:00:00Z") -> list[str]:
    cfg = config.load({"TEAMAI_HOME": str(home), "TEAMAI_TEAM": str(team), "TEAMAI_NOW": now})
    warnings = io.StringIO()
    found = recall.search(cfg, query, lambda m: warnings.write(m + "\n"))
    return [h.title for h in found.hits]


def _tree(tmp_path: Path, n: int) -> Path:
    team = tmp_path / "team"
    for i in range(n):
        folder = team / "learnings" / f"ns{i % 3}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"note-{i}.md").write_text(f"---\ntitle: Note {i} alpha\n---\nbody {i}\n")
    return team


@pytest.fixture
def large_mode(monkeypatch):
    monkeypatch.setattr(index_build, "FULL_SCAN_LIMIT", 5)


def test_large_tree_sees_additions_and_removals_through_folder_mtimes(tmp_path, large_mode):
    team = _tree(tmp_path, 12)
    home = tmp_path / "home"
    assert "Zebra one" not in _search(home, team, "zebra")
    (team / "learnings" / "ns1" / "zebra.md").write_text("---\ntitle: Zebra one\n---\nx\n")
    assert _search(home, team, "zebra") == ["Zebra one"]
    (team / "learnings" / "ns1" / "zebra.md").unlink()
    assert _search(home, team, "zebra") == []


def test_large_tree_sees_in_place_edit_of_a_hit(tmp_path, large_mode):
    team = _tree(tmp_path, 12)
    home = tmp_path / "home"
    assert _search(home, team, "note 3 alpha")[0] == "Note 3 alpha"
    target = team / "learnings" / "ns0" / "note-3.md"
    with open(target, "w") as fh:  # in place: the folder's mtime does not move
        fh.write("---\ntitle: Note 3 alpha rewritten\n---\nbody\n")
    os.utime(target, ns=(10**18, 10**18))
    assert _search(home, team, "note 3 alpha")[0] == "Note 3 alpha rewritten"


def test_large_tree_walks_again_after_the_interval(tmp_path, large_mode):
    team = _tree(tmp_path, 12)
    home = tmp_path / "home"
    _search(home, team, "alpha")
    target = team / "learnings" / "ns1" / "note-4.md"
    folder_mtime = target.parent.stat().st_mtime_ns
    target.write_text("---\ntitle: Quokka\n---\nbody\n")
    os.utime(target.parent, ns=(folder_mtime, folder_mtime))
    assert _search(home, team, "quokka", "2026-11-30T10:01:00Z") == []  # not yet walked: documented lag
    assert _search(home, team, "quokka", "2026-11-30T10:06:00Z") == ["Quokka"]


def test_small_tree_sees_every_in_place_edit(tmp_path):
    team = _tree(tmp_path, 3)
    home = tmp_path / "home"
    _search(home, team, "alpha")
    target = team / "learnings" / "ns1" / "note-1.md"
    target.write_text("---\ntitle: Quokka\n---\nbody\n")
    os.utime(target, ns=(10**18, 10**18))
    assert _search(home, team, "quokka") == ["Quokka"]


def test_an_edit_that_keeps_the_mtime_but_not_the_size_is_seen(tmp_path):
    """A copy that keeps the time stamps (``rsync -t``, ``cp -p``, an archive unpacked) can change a
    file's size and leave its mtime: the size alone says it changed."""
    team = _tree(tmp_path, 3)
    home = tmp_path / "home"
    _search(home, team, "alpha")
    target = team / "learnings" / "ns1" / "note-1.md"
    before = target.stat().st_mtime_ns
    target.write_text("---\ntitle: Quokka habitat notes\n---\nbody\n")
    os.utime(target, ns=(before, before))
    assert _search(home, team, "quokka") == ["Quokka habitat notes"]


def test_large_tree_sees_a_hit_whose_size_changed_under_the_same_mtime(tmp_path, large_mode):
    team = _tree(tmp_path, 12)
    home = tmp_path / "home"
    assert _search(home, team, "note 3 alpha")[0] == "Note 3 alpha"
    target = team / "learnings" / "ns0" / "note-3.md"
    before = target.stat().st_mtime_ns
    with open(target, "w") as fh:  # in place, and the mtime put back: only the size tells
        fh.write("---\ntitle: Note 3 alpha, rewritten at length\n---\nbody\n")
    os.utime(target, ns=(before, before))
    assert _search(home, team, "note 3 alpha")[0] == "Note 3 alpha, rewritten at length"


def test_check_never_reads_an_index_of_another_version(tmp_path):
    """``--check`` opens the stored index read-only; one of another version may hold rows cut
    another way (an older tokenizer), so it is not searched even when its files match the tree."""
    team = _tree(tmp_path, 2)
    home = tmp_path / "home"
    _search(home, team, "alpha")
    scope = config.load({"TEAMAI_HOME": str(home), "TEAMAI_TEAM": str(team)}).active
    conn = sqlite3.connect(scope.index_path)
    conn.execute("UPDATE meta SET value = 'old' WHERE name = 'version'")
    conn.execute("DELETE FROM bodies")
    conn.execute("DELETE FROM heads")
    conn.commit()
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # a read-only reader sees the file, not the log
    conn.close()
    cfg = config.load({"TEAMAI_HOME": str(home), "TEAMAI_TEAM": str(team), "TEAMAI_NOW": "2026-11-30T10:00:00Z"})
    found = recall.search(cfg, "alpha", lambda m: None, write=False)
    assert sorted(h.title for h in found.hits) == ["Note 0 alpha", "Note 1 alpha"]
    found.close()


def test_a_refresh_that_fails_midway_leaves_the_index_as_it_was(tmp_path, monkeypatch):
    team = _tree(tmp_path, 3)
    home = tmp_path / "home"
    _search(home, team, "alpha")
    (team / "learnings" / "ns0" / "note-0.md").unlink()
    (team / "learnings" / "ns0" / "zebra.md").write_text("---\ntitle: Zebra\n---\nx\n")
    scope = config.load({"TEAMAI_HOME": str(home), "TEAMAI_TEAM": str(team)}).active

    def full_disk(*args, **kwargs):
        raise sqlite3.OperationalError("database or disk is full")

    conn = index.open_index(scope)
    try:
        monkeypatch.setattr(index_build, "_store", full_disk)
        with pytest.raises(index.IndexUnwritable):
            index_build.refresh(conn, scope, lambda m: None)
        assert not conn.in_transaction
        titles = [e.title for e in index.entries(conn)]
    finally:
        conn.close()
    assert titles == ["Note 0 alpha", "Note 1 alpha", "Note 2 alpha"]


def test_version_change_rebuilds(tmp_path):
    team = _tree(tmp_path, 2)
    home = tmp_path / "home"
    _search(home, team, "alpha")
    scope = config.load({"TEAMAI_HOME": str(home), "TEAMAI_TEAM": str(team)}).active
    with sqlite3.connect(scope.index_path) as conn:
        conn.execute("UPDATE meta SET value = 'old' WHERE name = 'version'")
        conn.execute("DELETE FROM assets")
    assert len(_search(home, team, "alpha")) == 2


def test_corrupt_index_file_is_rebuilt(tmp_path):
    team = _tree(tmp_path, 2)
    home = tmp_path / "home"
    scope = config.load({"TEAMAI_HOME": str(home), "TEAMAI_TEAM": str(team)}).active
    Path(scope.state_dir).mkdir(parents=True)
    Path(scope.index_path).write_bytes(b"this is not sqlite" * 100)
    assert len(_search(home, team, "alpha")) == 2


def test_the_derived_index_is_written_without_an_fsync_per_commit(tmp_path):
    """WAL with synchronous=NORMAL: a crash can lose the last commits (found stale by the next
    refresh) but never corrupts the file, so a cold build need not sync each batch."""
    team = _tree(tmp_path, 2)
    scope = config.load({"TEAMAI_HOME": str(tmp_path / "home"), "TEAMAI_TEAM": str(team)}).active
    conn = index.open_index(scope)
    try:
        index_build.refresh(conn, scope, _no_warning)
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL
    finally:
        conn.close()


def _no_warning(message: str) -> None:
    raise AssertionError(message)


def _journal_while_storing(monkeypatch, path: str) -> list[tuple[str, bool]]:
    """(journal mode, whether a -wal file exists) each time rows are written."""
    seen: list[tuple[str, bool]] = []
    real = index_build._store

    def spy(conn, assets, warn):
        seen.append((conn.execute("PRAGMA journal_mode").fetchone()[0], os.path.exists(path + "-wal")))
        return real(conn, assets, warn)

    monkeypatch.setattr(index_build, "_store", spy)
    return seen


def test_a_new_index_is_filled_through_the_rollback_journal_then_kept_in_wal(tmp_path, monkeypatch):
    """The first fill of a new file writes each page once (no page of it existed, so the journal
    copies none); WAL would write them all to its log, then again into the file."""
    team = _tree(tmp_path, 3)
    scope = config.load({"TEAMAI_HOME": str(tmp_path / "home"), "TEAMAI_TEAM": str(team)}).active
    seen = _journal_while_storing(monkeypatch, scope.index_path)
    conn = index.open_index(scope)
    try:
        index_build.refresh(conn, scope, _no_warning)
        assert seen == [("delete", False)]
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        (team / "learnings" / "ns0" / "late.md").write_text("---\ntitle: Late alpha\n---\nbody\n")
        index_build.refresh(conn, scope, _no_warning)
        assert seen[1][0] == "wal"
    finally:
        conn.close()
    reopened = sqlite3.connect(scope.index_path)
    try:
        assert reopened.execute("PRAGMA journal_mode").fetchone()[0] == "wal"  # kept in the file
    finally:
        reopened.close()


def test_an_index_of_another_version_is_rebuilt_in_wal(tmp_path, monkeypatch):
    """Other processes may be reading an old file while it is replaced: it stays in WAL mode,
    where they never wait for the writer."""
    team = _tree(tmp_path, 3)
    home = tmp_path / "home"
    assert len(_search(home, team, "alpha")) == 3
    scope = config.load({"TEAMAI_HOME": str(home), "TEAMAI_TEAM": str(team)}).active
    old = sqlite3.connect(scope.index_path)
    old.execute("UPDATE meta SET value = '0' WHERE name = 'version'")
    old.commit()
    old.close()
    seen = _journal_while_storing(monkeypatch, scope.index_path)
    assert len(_search(home, team, "alpha")) == 3
    assert [mode for mode, _ in seen] == ["wal"]


def test_a_first_fill_cut_short_leaves_an_empty_index_that_the_next_recall_fills(tmp_path):
    """A process killed in the middle of the first fill (rows of the first batches already on
    disk) leaves a journal that SQLite rolls back: the next recall finds no half index but an
    empty one, and fills it."""
    import subprocess
    import sys
    import textwrap

    team = _tree(tmp_path, 3 * index_build._BATCH)
    home = tmp_path / "home"
    script = textwrap.dedent(f"""
        import os
        from reference.recall import index, index_build
        from reference.team import config
        scope = config.load({{"TEAMAI_HOME": {str(home)!r}, "TEAMAI_TEAM": {str(team)!r}}}).active
        real, batches = index_build._store_batch, []
        def dying(conn, batch, first_id):
            real(conn, batch, first_id)
            batches.append(1)
            if len(batches) == 2:
                print(os.path.getsize(scope.index_path), flush=True)
                os._exit(9)
        index_build._store_batch = dying
        conn = index.open_index(scope)
        conn.execute("PRAGMA cache_size=1")  # spill the first batches' pages into the file
        index_build.refresh(conn, scope, print)
    """)
    done = subprocess.run([sys.executable, "-c", script], cwd=Path(__file__).resolve().parents[1],
                          capture_output=True, text=True)
    assert done.returncode == 9, done.stderr
    scope = config.load({"TEAMAI_HOME": str(home), "TEAMAI_TEAM": str(team)}).active
    assert os.path.exists(scope.index_path + "-journal")  # what the dead process left
    empty = tmp_path / "empty.db"
    index._create(sqlite3.connect(empty, isolation_level=None))
    assert int(done.stdout) > 2 * os.path.getsize(empty)  # rows of its first batches were in the file
    conn = index.open_index(scope, _no_warning)
    try:
        assert conn.execute("SELECT count(*) FROM assets").fetchone()[0] == 0
        assert index_build.refresh(conn, scope, _no_warning) == 3 * index_build._BATCH
        assert conn.execute("SELECT count(*) FROM bodies").fetchone()[0] == 3 * index_build._BATCH
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    finally:
        conn.close()


def test_a_reader_holding_a_new_index_defers_its_switch_to_wal(tmp_path):
    """The switch to WAL needs the file to itself; while another process reads it the index keeps
    its rollback journal, and the next write switches it."""
    team = _tree(tmp_path, 2)
    scope = config.load({"TEAMAI_HOME": str(tmp_path / "home"), "TEAMAI_TEAM": str(team)}).active
    conn = index.open_index(scope, busy_s=0)
    reader = sqlite3.connect(scope.index_path, isolation_level=None)
    try:
        reader.execute("BEGIN")
        reader.execute("SELECT count(*) FROM meta").fetchone()
        index_build._settle_journal(conn)
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
        reader.execute("COMMIT")
        index_build.refresh(conn, scope, _no_warning)
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    finally:
        reader.close()
        conn.close()


def test_cjk_words_rank_the_document_that_has_them_in_order_first(tmp_path):
    team = tmp_path / "team"
    (team / "docs").mkdir(parents=True)
    # the same words, in the question's order or not: only the piece across them (息模) tells,
    # since a tie would put a.md first
    (team / "docs" / "b.md").write_text("# 消息模型\n\n无关。\n", encoding="utf-8")
    (team / "docs" / "a.md").write_text("# 模型消息\n\n无关。\n", encoding="utf-8")
    (team / "docs" / "far.md").write_text("# 部署\n\n集群部署。\n", encoding="utf-8")
    home = tmp_path / "home"
    assert _search(home, team, "消息模型") == ["消息模型", "模型消息"]


def test_title_falls_back_to_heading_then_file_name(tmp_path):
    team = tmp_path / "team"
    (team / "docs").mkdir(parents=True)
    (team / "docs" / "guide.md").write_text("\n# Kite flying guide\n\ntext\n")
    (team / "docs" / "kite-notes.md").write_text("Kite notes without a heading\n")
    titles = _search(tmp_path / "home", team, "kite")
    assert sorted(titles) == ["Kite flying guide", "kite-notes"]


def test_ties_break_by_tree_path(tmp_path):
    team = tmp_path / "team"
    (team / "rules").mkdir(parents=True)
    for name in ("b", "a", "c"):
        (team / "rules" / f"{name}.md").write_text("---\ntitle: same words\n---\nsame body\n")
    cfg = config.load({"TEAMAI_HOME": str(tmp_path / "home"), "TEAMAI_TEAM": str(team)})
    hits = recall.search(cfg, "same words", lambda m: None).hits
    assert [h.entry.tree_path for h in hits] == ["rules/a.md", "rules/b.md", "rules/c.md"]


@pytest.mark.skipif(not REAL_TEAM.is_dir(), reason="the real-team-a corpus is not present")
def test_real_team_indexes_and_searches_without_a_crash(tmp_path):
    cfg = config.load({"TEAMAI_HOME": str(tmp_path / "home"), "TEAMAI_TEAM": str(REAL_TEAM)})
    warnings: list[str] = []
    for query in ("matplotlib figure size", "git rebase", "消息", "postgres index", "redux store"):
        hits = recall.search(cfg, query, warnings.append).hits
        assert all(h.path.startswith(os.path.realpath(REAL_TEAM)) for h in hits)  # roots are real paths
    conn = index.open_index(cfg.active, warnings.append)
    total = conn.execute("SELECT count(*) FROM assets WHERE indexed = 1").fetchone()[0]
    assert total > 2500
    frontmatter_warnings = [w for w in warnings if "frontmatter" in w]
    assert 150 < len(frontmatter_warnings) < 400  # the corpus has about 230 malformed blocks
    assert len(set(frontmatter_warnings)) == len(frontmatter_warnings)  # each file reported once


def test_now_stamp_matches_stamp_of_now():
    from reference.state import clock

    fixed = {"TEAMAI_NOW": "2026-11-30T10:00:00.123456+02:00"}
    assert clock.now_stamp(fixed) == clock.stamp(clock.now(fixed)) == "2026-11-30T08:00:00.123Z"
    live = clock.now_stamp({})
    parsed = clock.parse_instant(live)
    assert abs(parsed.timestamp() - clock.now({}).timestamp()) < 5
    assert len(live) == 24 and live.endswith("Z")


def _record_walks(monkeypatch) -> list:
    from reference.team import tree

    calls: list = []
    real = tree.walk_with_dirs

    def spy(team, roots, within=None, skipped=None):
        calls.append(within)
        return real(team, roots, within, skipped)

    monkeypatch.setattr(tree, "walk_with_dirs", spy)
    return calls


def test_large_tree_walks_only_the_folders_that_changed(tmp_path, large_mode, monkeypatch):
    team = _tree(tmp_path, 12)
    home = tmp_path / "home"
    _search(home, team, "alpha")
    calls = _record_walks(monkeypatch)
    assert _search(home, team, "alpha")  # nothing moved: no walk at all
    assert calls == []
    (team / "learnings" / "ns1" / "zebra.md").write_text("---\ntitle: Zebra one\n---\nx\n")
    assert _search(home, team, "zebra") == ["Zebra one"]
    assert calls == [(str(team / "learnings" / "ns1"),)]
    (tmp_path / "sibling-of-the-team").mkdir()  # the team's parent is not watched while the team exists
    calls.clear()
    _search(home, team, "zebra")
    assert calls == []


def test_large_tree_sees_new_and_removed_folders(tmp_path, large_mode):
    import shutil

    team = _tree(tmp_path, 12)
    home = tmp_path / "home"
    _search(home, team, "alpha")
    new = team / "learnings" / "fresh" / "deeper"
    new.mkdir(parents=True)
    (new / "kiwi.md").write_text("---\ntitle: Kiwi note\n---\nx\n")
    assert _search(home, team, "kiwi") == ["Kiwi note"]
    shutil.rmtree(team / "learnings" / "fresh")
    assert _search(home, team, "kiwi") == []
    shutil.rmtree(team / "learnings" / "ns2")
    titles = _search(home, team, "note alpha")
    assert titles and not any(t in ("Note 2 alpha", "Note 5 alpha") for t in titles)
    scope = config.load({"TEAMAI_HOME": str(home), "TEAMAI_TEAM": str(team)}).active
    conn = index.open_index(scope, print)
    assert conn.execute("SELECT count(*) FROM assets").fetchone()[0] == 8  # 12 less the four in ns2
    assert conn.execute("SELECT value FROM meta WHERE name = 'assets'").fetchone()[0] == "8"


def test_creating_a_missing_root_is_noticed(tmp_path, large_mode):
    team = _tree(tmp_path, 12)
    home = tmp_path / "home"
    _search(home, team, "alpha")
    (team / "rules").mkdir()
    (team / "rules" / "walrus.md").write_text("---\ntitle: Walrus rule\n---\nx\n")
    assert _search(home, team, "walrus") == ["Walrus rule"]


@pytest.mark.parametrize(("limit", "seen_at_once"), [("5", False), ("12", True), ("many", True), ("", True)])
def test_full_scan_limit_from_the_environment(tmp_path, limit, seen_at_once):
    """TEAMAI_FULL_SCAN_LIMIT puts a tree of 12 on the large side of the line (a number below 12)
    or keeps it on the small side (12 itself, or a value that is not a count: the default)."""
    team = _tree(tmp_path, 12)
    env = {"TEAMAI_HOME": str(tmp_path / "home"), "TEAMAI_TEAM": str(team), "TEAMAI_FULL_SCAN_LIMIT": limit}

    def titles(query: str) -> list[str]:
        cfg = config.load({**env, "TEAMAI_NOW": "2026-11-30T10:00:30Z"})
        return [h.title for h in recall.search(cfg, query, lambda m: None).hits]

    titles("alpha")
    target = team / "learnings" / "ns1" / "note-4.md"
    folder_mtime = target.parent.stat().st_mtime_ns
    target.write_text("---\ntitle: Quokka\n---\nbody\n")
    os.utime(target, ns=(10**18, 10**18))
    os.utime(target.parent, ns=(folder_mtime, folder_mtime))
    assert titles("quokka") == (["Quokka"] if seen_at_once else [])
    assert index_build.full_scan_limit({"TEAMAI_FULL_SCAN_LIMIT": limit}) == {"5": 5, "12": 12}.get(limit, 4000)


def _searches(monkeypatch) -> list[int]:
    calls: list[int] = []
    real = index.search

    def spy(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(index, "search", spy)
    return calls


def test_a_large_tree_is_searched_once_while_its_folders_are_checked(tmp_path, large_mode, monkeypatch):
    """The folder check runs beside the search; only a folder that moved makes a second search,
    on the refreshed index, and that one is what recall returns."""
    team = _tree(tmp_path, 12)
    home = tmp_path / "home"
    _search(home, team, "alpha")
    calls = _searches(monkeypatch)
    assert _search(home, team, "zebra") == []
    assert len(calls) == 1
    (team / "learnings" / "ns1" / "zebra.md").write_text("---\ntitle: Zebra one\n---\nx\n")
    calls.clear()
    assert _search(home, team, "zebra") == ["Zebra one"]
    assert len(calls) == 2


def test_a_folder_check_that_fails_counts_as_moved(tmp_path, monkeypatch):
    from reference.team import tree

    def broken(path: str) -> int:
        raise ValueError(path)

    monkeypatch.setattr(tree, "dir_mtime", broken)
    assert index_build.FolderProbe([(str(tmp_path), 1)]).moved() is True
    assert index_build.FolderProbe([]).moved() is False


@pytest.mark.parametrize("threads", [True, False])
def test_folders_are_checked_with_or_without_a_thread(tmp_path, monkeypatch, threads):
    import _thread

    if not threads:
        def refuse(*args: object) -> None:
            raise RuntimeError("can't start new thread")

        monkeypatch.setattr(_thread, "start_new_thread", refuse)
    now = os.stat(tmp_path).st_mtime_ns
    assert index_build.FolderProbe([(str(tmp_path), now)]).moved() is False
    assert index_build.FolderProbe([(str(tmp_path), now), (str(tmp_path / "gone"), now)]).moved() is True
    assert index_build.FolderProbe([(str(tmp_path), now - 1)]).moved() is True


def _dump(path: Path) -> dict[str, list[tuple]]:
    """Every row the index stores, table by table (FTS tables by what they hold and by a search)."""
    conn = sqlite3.connect(path)
    try:
        dump = {name: conn.execute(f"SELECT * FROM {name} ORDER BY 1, 2").fetchall()
                for name in ("assets", "edges", "dirs")}
        dump["heads"] = conn.execute("SELECT rowid, * FROM heads ORDER BY rowid").fetchall()
        dump["bodies"] = conn.execute("SELECT rowid, * FROM bodies ORDER BY rowid").fetchall()
        dump["found"] = conn.execute("SELECT rowid, bm25(bodies) FROM bodies WHERE bodies MATCH 'alpha'"
                                     " ORDER BY rowid").fetchall()
        dump["meta"] = conn.execute("SELECT * FROM meta WHERE name != 'walked_at' ORDER BY 1").fetchall()
    finally:
        conn.close()
    return dump


def test_a_build_across_worker_processes_stores_and_says_what_one_process_does(tmp_path, monkeypatch):
    from reference.recall import asset_rows

    team = tmp_path / "team"
    for i in range(asset_rows.PARALLEL_FROM + 2 * asset_rows.PART + 37):  # parts of both sizes
        folder = team / ("docs" if i % 5 == 0 else f"learnings/ns{i % 7}")
        folder.mkdir(parents=True, exist_ok=True)
        if i % 97 == 0:  # a warning, said in the order of the files
            text = f"---\ntitle: [broken {i}\n---\nalpha body {i}\n"
        else:
            text = f"---\ntitle: Note {i} alpha\nrelated:\n  - rel: see-also\n    target: docs/d{i % 11}.md\n---\n" \
                   f"alpha {'beta ' * (i % 13)}[link](../docs/d{i % 17}.md) fooBar{i}\n"
        (folder / f"note-{i}.md").write_text(text)
    said: dict[str, list[str]] = {}
    for name, workers in (("workers", 2), ("alone", 1)):  # two even on a machine of one core
        monkeypatch.setattr(asset_rows, "workers", lambda count, workers=workers: workers)
        cfg = config.load({"TEAMAI_HOME": str(tmp_path / name), "TEAMAI_TEAM": str(team),
                           "TEAMAI_NOW": "2026-11-30T10:00:00Z"})
        said[name] = []
        recall.search(cfg, "alpha", said[name].append)
    indexes = {name: next((tmp_path / name).rglob("*.db")) for name in said}
    assert said["workers"] == said["alone"]
    assert len([m for m in said["workers"] if "broken" in m or "not valid YAML" in m]) >= 10
    workers, alone = _dump(indexes["workers"]), _dump(indexes["alone"])
    assert len(workers["assets"]) == asset_rows.PARALLEL_FROM + 2 * asset_rows.PART + 37
    assert workers["edges"] and workers["found"]
    assert workers == alone
    conn = sqlite3.connect(indexes["workers"])
    try:  # nothing of the workers' parts is left attached to, or stored in, the index
        assert [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE name LIKE '%packed%'")] == []
    finally:
        conn.close()
