from __future__ import annotations

import json
import os
import re
import stat
from pathlib import Path

from reference.team import config

RUN_RE = re.compile(r"run=([0-9a-f-]{36})$")


def log_lines(home: Path) -> list[dict]:
    logs = list(home.glob("workspaces/*/recall-log.jsonl"))
    if not logs:
        return []
    return [json.loads(line) for line in logs[0].read_text().splitlines()]


def test_recall_prints_hits_with_run_id_and_records_run(cli, home, team):
    res = cli("recall", "redis", "client")
    assert res.code == 0, res.err
    first = res.out.splitlines()[0]
    assert first.startswith("--- [teamai:recall:start] --- (1 result) run=")
    run_id = RUN_RE.search(first).group(1)
    assert "[1/1] [learnings] Redis client times out under load [workspace]" in res.out
    assert f"File: {team / 'learnings' / 'redis-timeout.md'}" in res.out
    lines = log_lines(home)
    assert len(lines) == 1
    run = lines[0]
    assert run["kind"] == "run" and run["run"] == run_id
    assert run["docs"] == [{"key": "redis-timeout", "type": "learning", "scope": "workspace",
                            "path": str(team / "learnings" / "redis-timeout.md"),
                            "score": run["docs"][0]["score"], "eligible": True}]
    raw = next(home.glob("workspaces/*/recall-log.jsonl")).read_text()
    assert "redis" not in raw.replace("redis-timeout", "")


def test_a_warm_recall_in_plain_english_imports_neither_json_nor_re(cli):
    """The interpreter's start is most of a warm recall: ``json`` and ``re`` (with ``enum``) would
    add about a tenth of it, so the path keeps to the log's JSON module and reads plain words
    without patterns; nor does it open the Chinese word list. ``-S``: a site's own start-up may
    import them for its own reasons."""
    import subprocess
    import sys

    assert cli("recall", "warm", "up").code == 0  # the index is built (which may use them)
    root = str(Path(__file__).resolve().parents[1])
    code = (f"import sys; sys.path.insert(0, {root!r}); from reference.cli import main\n"
            "code = main(['recall', 'redis client timeout, e.g.'])\n"
            "from reference.recall import word_lists\n"
            "chinese = ['cedict_words.txt'] if word_lists.CEDICT_WORDS in word_lists._loaded else []\n"
            "print(code, sorted(m for m in ('json', 're', 'enum') if m in sys.modules) + chinese)")
    out = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True, env=cli.env,
                         timeout=120, check=True)
    assert "[1/2] [learnings] Redis client times out under load" in out.stdout
    assert out.stdout.splitlines()[-1] == "0 []"


def test_no_hit_line_ends_with_run_id_and_records_empty_docs(cli, home):
    res = cli("recall", "zebra", "quokka")
    assert res.code == 0
    assert RUN_RE.search(res.out.strip())
    assert res.out.startswith('No matching learnings found for "zebra quokka". run=')
    assert log_lines(home)[0]["docs"] == []


def test_check_and_disabled_record_nothing(cli, home):
    found, nothing = cli("recall", "redis", "--check"), cli("recall", "zebra", "--check")
    assert found.code == 0 and found.out.startswith("RELEVANT score=")
    assert nothing.code == 0 and nothing.out.startswith("NOT_RELEVANT score=")  # teamai says it in the line
    res = cli("recall", "redis", env={"TEAMAI_RECALL_DISABLED": "1"})
    assert res.code == 0 and "run=" not in res.out
    assert log_lines(home) == []
    assert not list(home.glob("workspaces/*/votes.yaml"))


def test_session_from_env_and_ambiguity(cli, home):
    cli("recall", "redis", env={"CLAUDE_CODE_SESSION_ID": "s1"})
    cli("recall", "redis", env={"CLAUDE_CODE_SESSION_ID": "s1", "CODEX_SESSION_ID": "s2"})
    one, two = log_lines(home)
    assert (one["session"], one["agent"], one["via"], one["unambiguous"]) == ("s1", "claude", "env", True)
    assert (two["session"], two["unambiguous"]) == ("s1", False)


def test_recall_counts_recalled_in_ledger(cli, home):
    cli("recall", "redis", env={"TEAMAI_NOW": "2026-11-30T10:00:00Z"})
    cli("recall", "redis", env={"TEAMAI_NOW": "2026-11-30T11:00:00Z"})
    text = next(home.glob("workspaces/*/votes.yaml")).read_text()
    assert text == ("version: 2\nvotes:\n  redis-timeout:\n    recalled_count: 2\n    upvoted_count: 0\n"
                    "    last_recalled_at: 2026-11-30T11:00:00.000Z\n"
                    "deltas:\n  redis-timeout:\n    recalled_delta: 2\n    upvoted_delta: 0\n")


def test_state_files_are_private(cli, home):
    cli("recall", "redis")
    for path in home.rglob("*"):
        if path.is_file():
            assert stat.S_IMODE(path.stat().st_mode) == 0o600, path


def test_index_follows_edits_additions_and_removals(cli, team):
    assert "zebra" not in cli("recall", "zebra").out.lower().replace('"zebra"', "")
    new = team / "learnings" / "zebra.md"
    new.write_text("---\ntitle: Zebra crossing\n---\nstripes\n")
    assert "[learnings] Zebra crossing" in cli("recall", "zebra").out
    new.write_text("---\ntitle: Zebra stripes renamed\n---\nstripes\n")
    os.utime(new, ns=(1, 1))
    assert "Zebra stripes renamed" in cli("recall", "zebra").out
    new.unlink()
    assert cli("recall", "zebra").out.startswith("No matching")


def test_malformed_frontmatter_warns_once_and_indexes_body(cli, team):
    (team / "rules" / "globs.md").write_text("---\nglobs: *.ts\ntitle: x\n---\nquasar body text\n")
    first = cli("recall", "quasar", "globs")
    assert "globs.md" in first.err and "frontmatter" in first.err
    second = cli("recall", "quasar", "globs")
    assert second.err == ""
    assert "[rules] globs" in first.out


def test_user_scope_is_inherited_and_shadowed(cli, tmp_path, team, home):
    user = tmp_path / "user-team"
    (user / "learnings").mkdir(parents=True)
    (user / "learnings" / "redis-timeout.md").write_text("---\ntitle: User redis note\n---\nredis\n")
    (user / "learnings" / "kafka.md").write_text("---\ntitle: Kafka lag\n---\nkafka lag\n")
    env = {"TEAMAI_USER_TEAM": str(user)}
    shadow = cli("recall", "redis", env=env)
    assert "User redis note" not in shadow.out
    inherited = cli("recall", "kafka", env=env)
    assert "[1/1] [learnings] Kafka lag [user]" in inherited.out
    assert log_lines(home)[-1]["docs"][0]["eligible"] is False


def test_errors_are_one_line_with_exit_codes(cli, tmp_path):
    assert cli("recall", "  ").code == 2
    res = cli("recall", "x", env={"TEAMAI_TEAM": str(tmp_path / "missing")})
    assert res.code == 3 and "does not exist" in res.err and len(res.err.splitlines()) == 1
    res = cli("recall", "x", env={"TEAMAI_TEAM": "", "TEAMAI_USER_TEAM": ""})
    assert res.code == 3 and "--team" in res.err


def test_binary_and_huge_assets_warn_and_do_not_abort(cli, team):
    (team / "docs" / "blob.md").write_bytes(b"\x00\x01\x02binary")
    (team / "docs" / "huge.md").write_text("---\ntitle: Huge manual\n---\n" + ("word " * 2_200_000))
    res = cli("recall", "huge", "manual")
    assert res.code == 0
    assert len(res.err.splitlines()) == 1 and "2 files of the team tree" in res.err
    assert "teamai-ref index --problems lists them" in res.err
    assert "[docs] Huge manual" in res.out
    listed = cli("index", "--problems")
    assert listed.code == 0 and len(listed.out.splitlines()) == 2
    assert "blob.md" in listed.out and "not UTF-8" in listed.out
    assert "huge.md" in listed.out and "only the start is indexed" in listed.out


def test_many_unreadable_frontmatters_are_one_line_listed_on_request(cli, team):
    """Cursor's rules hold unquoted globs (``globs: **/*.go``), which YAML reads as an alias: a real
    tree can have hundreds. The first recall says so in one line; index --problems lists them;
    doctor reports them."""
    for n in range(40):
        (team / "rules" / f"go-{n}.md").write_text(f"---\nglobs: **/*.go\n---\nGo rule number {n}.\n")
    res = cli("recall", "go", "rule")
    assert res.code == 0 and "[rules]" in res.out
    assert res.err.count("\n") == 1 and "40 files of the team tree could not be indexed as written" in res.err
    listed = cli("index", "--problems")
    assert listed.code == 0 and len(listed.out.splitlines()) == 40
    assert all("frontmatter skipped, body indexed" in line for line in listed.out.splitlines())
    assert cli("index").err.count("\n") <= 1
    doctor = cli.subprocess("doctor", "--tool", "claude")
    [line] = [x for x in doctor.out.splitlines() if x.startswith("team files")]
    assert "40 of" in line and "fix: teamai-ref index --problems lists them" in doctor.out


def test_config_digest_separates_workspaces(tmp_path):
    a = config.load({"TEAMAI_HOME": str(tmp_path), "TEAMAI_TEAM": str(tmp_path / "a")})
    b = config.load({"TEAMAI_HOME": str(tmp_path), "TEAMAI_TEAM": str(tmp_path / "b")})
    assert a.active.state_dir != b.active.state_dir


def test_subprocess_recall_works(cli):
    res = cli.subprocess("recall", "ledger", "receipt")
    assert res.code == 0, res.err
    assert "Ledger receipt write times out at 3s" in res.out


def test_run_ids_are_version_4_uuids():
    import uuid

    from reference.recall.run import new_run_id

    ids = {new_run_id() for _ in range(200)}
    assert len(ids) == 200
    for value in ids:
        parsed = uuid.UUID(value)
        assert parsed.version == 4 and str(parsed) == value


def test_shadowing_uses_every_workspace_entry_not_only_its_hits(cli, tmp_path, team):
    user = tmp_path / "user-team"
    (user / "rules").mkdir(parents=True)
    (user / "rules" / "payments.md").write_text("---\ntitle: Walrus handling\n---\nwalrus\n")
    (user / "rules" / "other.md").write_text("---\ntitle: Walrus feeding\n---\nwalrus\n")
    res = cli("recall", "walrus", env={"TEAMAI_USER_TEAM": str(user)})
    # the workspace has rules/payments.md (key "payments") which does not match "walrus",
    # yet it shadows the user rule with the same key
    assert "Walrus handling" not in res.out
    assert "[1/1] [rules] Walrus feeding [user]" in res.out
