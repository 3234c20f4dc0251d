"""The votes ledger: teamai's YAML shape and spelling, everything in it kept, written atomically,
never overwritten when corrupt."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference.state import ledger, ledger_read, ledger_write

# What teamai 0.25 writes (the npm ``yaml`` package's ``YAML.stringify``): block style, plain keys
# and instants, "" for an instant never set, no last_upvoted_at before the first upvote.
TEAMAI_WRITTEN = """version: 2
votes:
  "2026":
    recalled_count: 1
    upvoted_count: 0
    last_recalled_at: ""
  flaky-upstream-2026-11-01-abc:
    recalled_count: 1
    upvoted_count: 1
    last_recalled_at: 2026-11-30T12:00:00.000Z
    last_upvoted_at: 2026-11-30T12:00:00.000Z
  finance/payments:
    recalled_count: 3
    upvoted_count: 0
    last_recalled_at: 2026-11-29T08:00:00.000Z
    pinned_by: ana
deltas:
  flaky-upstream-2026-11-01-abc:
    recalled_delta: 1
    upvoted_delta: -1
synced_at: 2026-11-30T12:00:00.000Z
"""


def test_reads_the_ledger_teamai_writes():
    votes = ledger.view(ledger.parse(TEAMAI_WRITTEN))
    assert votes["flaky-upstream-2026-11-01-abc"] == {
        "recalled_count": 1, "upvoted_count": 1,
        "last_recalled_at": "2026-11-30T12:00:00.000Z", "last_upvoted_at": "2026-11-30T12:00:00.000Z"}
    assert votes["finance/payments"] == {"recalled_count": 3, "upvoted_count": 0,
                                         "last_recalled_at": "2026-11-29T08:00:00.000Z", "last_upvoted_at": None}
    assert votes["2026"]["last_recalled_at"] is None


def test_teamai_spelling_is_read_without_yaml():
    """The hook reads the ledger at every Stop: teamai's own spelling must not need PyYAML."""
    code = ("import sys; sys.modules['yaml'] = None\n"
            "from reference.state import ledger\n"
            f"doc = ledger.parse({TEAMAI_WRITTEN!r})\n"
            "assert doc['deltas']['flaky-upstream-2026-11-01-abc']['upvoted_delta'] == -1, doc\n"
            "assert doc['votes']['finance/payments']['pinned_by'] == 'ana', doc\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr


def test_a_write_keeps_deltas_and_every_key_it_does_not_know(tmp_path):
    path, lock = str(tmp_path / "votes.yaml"), str(tmp_path / "votes.lock")
    (tmp_path / "votes.yaml").write_text(TEAMAI_WRITTEN)
    with ledger.raising(path, lock, 1.0, "2026-12-01T00:00:00.000Z", print) as tally:
        tally.add("finance/payments", "recalled_count", "last_recalled_at", "2026-12-01T00:00:00.000Z")
    doc = ledger.load(path)
    assert doc["synced_at"] == "2026-11-30T12:00:00.000Z"
    assert doc["votes"]["finance/payments"]["pinned_by"] == "ana"
    assert doc["votes"]["2026"] == {"recalled_count": 1, "upvoted_count": 0, "last_recalled_at": ""}
    assert doc["deltas"] == {
        "flaky-upstream-2026-11-01-abc": {"recalled_delta": 1, "upvoted_delta": -1},
        "finance/payments": {"recalled_delta": 1, "upvoted_delta": 0}}


def test_raising_counts_raises_deltas_as_teamai_increments_do(tmp_path):
    """incrementRecalled / incrementUpvoted: a new entry starts as {0, 0, ""}, a new delta as {0, 0},
    and each raise of a count raises its delta by as much."""
    path, lock = str(tmp_path / "votes.yaml"), str(tmp_path / "votes.lock")
    assert ledger_write.empty_entry() == {"recalled_count": 0, "upvoted_count": 0, "last_recalled_at": ""}
    with ledger.raising(path, lock, 1.0, "2026-12-01T00:00:00.000Z", print) as tally:
        tally.add("redis-timeout", "recalled_count", "last_recalled_at", "2026-12-01T00:00:00.000Z")
    with ledger.raising(path, lock, 1.0, "2026-12-01T00:01:00.000Z", print) as tally:
        for key in ("redis-timeout", "retry-policy"):
            tally.add(key, "upvoted_count", "last_upvoted_at", "2026-12-01T00:01:00.000Z")
    doc = ledger.load(path)
    assert doc["version"] == 2
    assert doc["votes"] == {
        "redis-timeout": {"recalled_count": 1, "upvoted_count": 1, "last_recalled_at": "2026-12-01T00:00:00.000Z",
                          "last_upvoted_at": "2026-12-01T00:01:00.000Z"},
        "retry-policy": {"recalled_count": 0, "upvoted_count": 1, "last_recalled_at": "",
                         "last_upvoted_at": "2026-12-01T00:01:00.000Z"}}
    assert doc["deltas"] == {"redis-timeout": {"recalled_delta": 1, "upvoted_delta": 1},
                             "retry-policy": {"recalled_delta": 0, "upvoted_delta": 1}}


def test_recall_and_stop_raise_the_deltas(cli, home, team):
    """Through the real commands: recall raises recalled_delta, the reducer upvoted_delta."""
    import json

    env = {"CLAUDE_CODE_SESSION_ID": "ses-d", "TEAMAI_NOW": "2026-11-30T10:00:00Z"}
    assert cli("recall", "redis", "timeout", env=env).code == 0
    (path,) = home.glob("workspaces/*/votes.yaml")
    assert ledger.load(str(path))["deltas"]["redis-timeout"] == {"recalled_delta": 1, "upvoted_delta": 0}
    read = {"session_id": "ses-d", "cwd": str(team), "tool_name": "Read",
            "tool_input": {"file_path": str(team / "learnings" / "redis-timeout.md")}, "tool_response": {}}
    later = {"TEAMAI_NOW": "2026-11-30T10:00:10Z"}
    assert cli("hook-dispatch", "post-tool-use", "--tool", "claude", stdin=json.dumps(read).encode(),
               env=later).code == 0
    assert cli("hook-dispatch", "stop", "--tool", "claude", stdin=b'{"session_id": "ses-d"}', env=later).code == 0
    doc = ledger.load(str(path))
    assert doc["votes"]["redis-timeout"]["upvoted_count"] == 1
    assert doc["deltas"]["redis-timeout"] == {"recalled_delta": 1, "upvoted_delta": 1}


def test_writes_in_teamai_spelling():
    doc = {"version": 2, "votes": {
        "redis-timeout": {"recalled_count": 2, "upvoted_count": 0, "last_recalled_at": "2026-11-30T11:00:00.000Z"},
        "2026": {"recalled_count": 1, "upvoted_count": 0, "last_recalled_at": ""},
        "a: b": {"recalled_count": 1, "upvoted_count": 1, "last_recalled_at": "",
                 "last_upvoted_at": "2026-11-30T11:00:00.000Z"}},
        "deltas": {}}
    assert ledger_write.dump(doc) == (
        "version: 2\n"
        "votes:\n"
        "  redis-timeout:\n"
        "    recalled_count: 2\n"
        "    upvoted_count: 0\n"
        "    last_recalled_at: 2026-11-30T11:00:00.000Z\n"
        "  \"2026\":\n"
        "    recalled_count: 1\n"
        "    upvoted_count: 0\n"
        "    last_recalled_at: \"\"\n"
        "  \"a: b\":\n"
        "    recalled_count: 1\n"
        "    upvoted_count: 1\n"
        "    last_recalled_at: \"\"\n"
        "    last_upvoted_at: 2026-11-30T11:00:00.000Z\n"
        "deltas: {}\n")
    assert ledger_write.dump(ledger.new_document()) == "version: 2\nvotes: {}\ndeltas: {}\n"


def test_our_earlier_spelling_still_reads():
    earlier = ('version: 2\nvotes:\n  "redis-timeout":\n    recalled_count: 1\n    upvoted_count: 0\n'
               '    last_recalled_at: "2026-11-30T10:00:00.000Z"\n    last_upvoted_at: null\ndeltas: {}\n')
    assert ledger_read._fast_parse(earlier) is not None
    assert ledger.view(ledger.parse(earlier)) == {"redis-timeout": {
        "recalled_count": 1, "upvoted_count": 0, "last_recalled_at": "2026-11-30T10:00:00.000Z",
        "last_upvoted_at": None}}


def test_a_version_1_ledger_is_migrated_as_teamai_does():
    doc = ledger.parse("votes:\n  redis-timeout:\n    at: 2026-11-01T00:00:00.000Z\n")
    assert doc["version"] == 2 and doc["deltas"] == {}
    assert doc["votes"] == {"redis-timeout": {"recalled_count": 1, "upvoted_count": 0,
                                              "last_recalled_at": "2026-11-01T00:00:00.000Z"}}


@pytest.mark.parametrize("text", [
    "version: 2\nvotes: [1, 2]\n",
    "version: 2\nvotes:\n  a: 3\n",
    "version: 2\nvotes:\n  a:\n    recalled_count: -1\n",
    "version: 2\nvotes:\n  a:\n    upvoted_count: many\n",
    "version: 2\nvotes:\n  a:\n    upvoted_count: true\n",
    "version: 2\nvotes: {}\ndeltas: [1]\n",
    "version: 2\nvotes: {}\ndeltas:\n  a:\n    recalled_delta: lots\n",
    "version: 7\nvotes: {}\n",
    "- just\n- a list\n",
    "votes: {a: {recalled_count: 1}\n",
])
def test_what_is_not_a_ledger_is_corrupt(text):
    with pytest.raises(ledger_read.CorruptLedger):
        ledger.parse(text)


def test_empty_file_is_an_empty_ledger():
    assert ledger.view(ledger.parse("")) == {}


def test_raising_writes_atomically_and_private(tmp_path):
    path, lock = str(tmp_path / "votes.yaml"), str(tmp_path / "votes.lock")
    with ledger.raising(path, lock, 1.0, "2026-11-30T10:00:00.000Z", print) as tally:
        tally.add("a", "recalled_count", "last_recalled_at", "2026-11-30T10:00:00.000Z")
        tally.add("a", "recalled_count", "last_recalled_at", "2026-11-30T10:00:00.000Z")
    assert ledger.read(path)["a"]["recalled_count"] == 2
    assert oct(os.stat(path).st_mode & 0o777) == "0o600"
    assert not [p for p in os.listdir(tmp_path) if ".tmp-" in p]


def test_an_edit_that_changes_nothing_keeps_the_file_as_spelled(tmp_path):
    path, lock = tmp_path / "votes.yaml", str(tmp_path / "votes.lock")
    flow = "{version: 2, votes: {a: {recalled_count: 1, upvoted_count: 0, last_recalled_at: ''}}, deltas: {}}\n"
    path.write_text(flow)
    with ledger.raising(str(path), lock, 1.0, "2026-11-30T10:00:00.000Z", print):
        pass
    assert path.read_text() == flow
    assert ledger.read(str(path))["a"]["recalled_count"] == 1


def test_corrupt_ledger_is_moved_aside_and_named_in_one_line(tmp_path):
    path, lock = str(tmp_path / "votes.yaml"), str(tmp_path / "votes.lock")
    with open(path, "w") as fh:
        fh.write("version: 2\nvotes: [broken\n")
    warnings: list[str] = []
    with ledger.raising(path, lock, 1.0, "2026-11-30T10:00:00.000Z", warnings.append) as tally:
        tally.add("a", "recalled_count", "last_recalled_at", "2026-11-30T10:00:00.000Z")
    aside = [p for p in os.listdir(tmp_path) if p.startswith("votes.yaml.corrupt-")]
    assert len(aside) == 1
    assert (tmp_path / aside[0]).read_text() == "version: 2\nvotes: [broken\n"
    assert len(warnings) == 1 and aside[0] in warnings[0]
    assert ledger.read(path)["a"]["recalled_count"] == 1  # a new ledger holds what was raised
    assert "\n" not in warnings[0] and re.search(r"\(not YAML \(line \d+, column \d+: .+\)\)", warnings[0])
    assert ledger.read(path) == {"a": {"recalled_count": 1, "upvoted_count": 0,
                                       "last_recalled_at": "2026-11-30T10:00:00.000Z", "last_upvoted_at": None}}


def test_the_corrupt_ledger_warning_is_one_line_on_the_command_line(cli, home):
    cli("recall", "redis")
    (path,) = home.glob("workspaces/*/votes.yaml")
    path.write_text("version: 2\nvotes: [broken\n")
    res = cli("recall", "redis")
    assert res.code == 0
    warnings = [line for line in res.err.splitlines() if line]
    assert len(warnings) == 1 and warnings[0].startswith("teamai-ref: warning: votes ledger"), res.err


def test_a_ledger_only_yaml_reads_is_not_moved_aside_when_yaml_is_missing(tmp_path):
    """Missing PyYAML is a broken installation, not a corrupt ledger: nothing is moved or written."""
    flow = "{version: 2, votes: {a: {recalled_count: 1, upvoted_count: 0, last_recalled_at: ''}}, deltas: {}}\n"
    (tmp_path / "votes.yaml").write_text(flow)
    code = ("import sys; sys.modules['yaml'] = None\n"
            "from reference.state import ledger, ledger_read\n"
            "try:\n"
            f"    with ledger.raising({str(tmp_path / 'votes.yaml')!r}, {str(tmp_path / 'votes.lock')!r}, 1.0,"
            " 'now', print) as tally:\n"
            "        tally.add('b', 'recalled_count', 'last_recalled_at', 'now')\n"
            "except ledger_read.YamlUnavailable as exc:\n"
            "    print('unavailable:', exc)\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("unavailable:") and "PyYAML" in proc.stdout
    assert (tmp_path / "votes.yaml").read_text() == flow
    assert sorted(os.listdir(tmp_path)) == ["votes.lock", "votes.yaml"]


def test_non_utf8_ledger_is_corrupt(tmp_path):
    path = tmp_path / "votes.yaml"
    path.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(ledger_read.CorruptLedger):
        ledger.read(str(path))


def test_busy_ledger_raises_after_the_bounded_wait(tmp_path):
    from reference.state.storage import Busy, locked

    path, lock = str(tmp_path / "votes.yaml"), str(tmp_path / "votes.lock")
    with locked(lock, "the votes ledger", 1.0):
        with pytest.raises(Busy, match="votes ledger is busy"):
            with ledger.raising(path, lock, 0.05, "2026-11-30T10:00:00.000Z", print):
                pass


LAST = {"recalled_count": "last_recalled_at", "upvoted_count": "last_upvoted_at"}


@settings(max_examples=40, deadline=None)
@given(st.dictionaries(st.text(min_size=1, max_size=12), st.integers(0, 5), max_size=5),
       st.dictionaries(st.text(min_size=1, max_size=12), st.integers(0, 5), max_size=5))
def test_every_raise_of_a_count_lands_in_its_delta(recalls, upvotes):
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        path, lock = os.path.join(tmp, "votes.yaml"), os.path.join(tmp, "votes.lock")
        for field, raises in (("recalled_count", recalls), ("upvoted_count", upvotes)):
            with ledger.raising(path, lock, 1.0, "2026-11-30T10:00:00.000Z", print) as tally:
                for key, n in raises.items():
                    for _ in range(n):
                        tally.add(key, field, LAST[field], "2026-11-30T10:00:00.000Z")
        doc = ledger.load(path) if os.path.exists(path) else ledger.new_document()
        for key in set(recalls) | set(upvotes):
            raised = (recalls.get(key, 0), upvotes.get(key, 0))
            entry = doc["votes"].get(key)
            delta = doc["deltas"].get(key)
            if raised == (0, 0):
                assert delta is None
                continue
            assert (entry["recalled_count"], entry["upvoted_count"]) == raised
            assert (delta["recalled_delta"], delta["upvoted_delta"]) == raised


def test_recall_prints_its_hits_when_only_a_missing_pyyaml_could_read_the_ledger(cli, home):
    assert cli("recall", "redis").code == 0  # builds the index (which needs PyYAML) and the ledger
    (path,) = home.glob("workspaces/*/votes.yaml")
    flow = "{version: 2, votes: {redis-timeout: {recalled_count: 1, upvoted_count: 0}}, deltas: {}}\n"
    path.write_text(flow)
    code = ("import sys; sys.modules['yaml'] = None\n"
            "from reference.cli import main\n"
            "sys.exit(main(['recall', 'redis']))\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=cli.env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "[1/1] [learnings]" in proc.stdout
    (warning,) = proc.stderr.splitlines()
    assert warning.startswith("teamai-ref: warning: ") and "PyYAML" in warning and "recalled_count" in warning
    assert path.read_text() == flow
