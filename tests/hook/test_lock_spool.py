"""A stuck holder of the recall log's lock neither holds up a hook nor loses its call.

The hook waits a moment for the lock (``logspool.HOOK_WAIT``), then writes its lines to a file of
their own in the log's spool; the next writer that holds the lock folds them in, oldest first, and
a Stop or pull folds them before it reads the log.
The wait allowed here is an hour (``TEAMAI_LOCK_WAIT``): a hook that waited for it would never
finish while the test holds the lock, so finishing at all is the check, not a clock.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reference.state import logspool, storage
from reference.team import config

from ._support import ROOT, Cli

SESSION = "ses-spool"


def _payload(team: Path, name: str) -> bytes:
    return json.dumps({"session_id": SESSION, "cwd": "/", "tool_name": "Read",
                       "tool_input": {"file_path": str(team.resolve() / "learnings" / name)},
                       "tool_response": {}}).encode()


def _log(scope: config.Scope) -> list[dict]:
    path = Path(scope.log_path)
    return [json.loads(x) for x in path.read_bytes().splitlines()] if path.exists() else []


def _spooled(scope: config.Scope) -> list[str]:
    where = Path(logspool.folder(scope.log_path))
    return sorted(p.name for p in where.iterdir()) if where.exists() else []


def test_a_stuck_log_lock_neither_holds_up_the_hook_nor_loses_its_line(cli: Cli, team: Path) -> None:
    env = {**cli.env, "TEAMAI_LOCK_WAIT": "3600"}
    scope = config.load(env).active
    cli("hook-dispatch", "post-tool-use", "--tool", "claude", stdin=_payload(team, "redis-timeout.md"))
    assert [x["path"] for x in _log(scope)] == [str(team.resolve() / "learnings/redis-timeout.md")]
    fast = [sys.executable, "-I", "-S", str(ROOT / "reference" / "hook" / "fast.py"), "post-tool-use", "--tool", "claude"]
    with storage.locked(scope.log_lock, "the recall log (a stuck process)", 0):
        done = subprocess.run(fast, input=_payload(team, "ops/2026-10-20-deploy-freeze.md"), env=env, capture_output=True,
                              timeout=600)
        assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
        assert len(_log(scope)) == 1  # not appended while the lock is held...
        [name] = _spooled(scope)  # ...but kept, whole, in the spool
        assert name.endswith(".jsonl") and oct(os.stat(Path(logspool.folder(scope.log_path)) / name).st_mode & 0o777) == "0o600"
    assert not Path(scope.debug_log_path).exists()  # recorded, not lost: nothing to report
    # the next writer folds the spooled line in before its own
    cli("hook-dispatch", "post-tool-use", "--tool", "claude", stdin=_payload(team, "redis-timeout.md"),
        env={"TEAMAI_NOW": "2026-12-01T00:00:00.000Z"})
    assert [Path(x["path"]).name for x in _log(scope)] == ["redis-timeout.md", "2026-10-20-deploy-freeze.md", "redis-timeout.md"]
    assert _spooled(scope) == []


def test_a_stop_reduces_a_read_that_was_spooled(cli: Cli, team: Path) -> None:
    """A read kept aside while the log was stuck is folded in and credited by the session's Stop."""
    scope = config.load(cli.env).active
    recalled = cli("recall", "redis", "timeout", env={"TEAMAI_AGENT_SESSION_ID": SESSION})
    assert recalled.code == 0 and "run=" in recalled.out
    with storage.locked(scope.log_lock, "the recall log (a stuck process)", 0):
        cli("hook-dispatch", "post-tool-use", "--tool", "claude", stdin=_payload(team, "redis-timeout.md"))
    assert len(_spooled(scope)) == 1
    cli("hook-dispatch", "stop", "--tool", "claude", stdin=json.dumps({"session_id": SESSION}).encode())
    assert _spooled(scope) == []
    assert [x["kind"] for x in _log(scope)] == ["run", "evidence", "consumed"]
    assert any(x.get("credited") for x in _log(scope) if x["kind"] == "consumed")


def test_pull_folds_the_spool_before_it_prunes(cli: Cli, team: Path) -> None:
    scope = config.load(cli.env).active
    with storage.locked(scope.log_lock, "the recall log (a stuck process)", 0):
        cli("hook-dispatch", "post-tool-use", "--tool", "claude", stdin=_payload(team, "redis-timeout.md"))
    assert _log(scope) == [] and len(_spooled(scope)) == 1
    assert cli("pull").code == 0
    assert [Path(x["path"]).name for x in _log(scope)] == ["redis-timeout.md"]
    assert _spooled(scope) == []


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(batches=st.lists(st.lists(st.integers(0, 99), min_size=1, max_size=3), min_size=1, max_size=5),
       direct=st.lists(st.booleans(), min_size=5, max_size=5),
       died_at=st.sampled_from([None, "before its append", "after its append"]), same=st.booleans())
def test_every_line_reaches_the_log_once_in_order_even_when_a_fold_dies(
        tmp_path_factory, batches, direct, died_at, same) -> None:
    """Batches either appended or spooled (the lock held); then a fold. A fold that died before or
    after appending a file (``died_at``) is finished by the next one: nothing twice, nothing lost,
    even when every batch is the same line (``same``: a spooled line may repeat the log's last)."""
    folder = tmp_path_factory.mktemp("spool")
    log, lock = str(folder / "recall-log.jsonl"), str(folder / "recall-log.lock")
    order: list[bytes] = []
    spooled: list[bytes] = []
    for n, batch in enumerate(batches):
        data = b"".join(b'{"kind":"evidence","n":%d,"i":%d}\n' % ((0, 0) if same else (n, i)) for i in batch)
        if direct[n % 5] and not spooled:
            assert logspool.append_or_spool(log, lock, data, 0)
            order.append(data)
        else:
            with storage.locked(lock, "held", 0):
                assert not logspool.append_or_spool(log, lock, data, 0)
            spooled.append(data)
    if died_at is not None and spooled:  # a fold took the oldest spool file, then died
        oldest = sorted(Path(logspool.folder(log)).iterdir())[0]
        taken = oldest.with_name(f"{oldest.name}.at-{Path(log).stat().st_size if Path(log).exists() else 0}")
        oldest.rename(taken)
        if died_at == "after its append":
            storage.append_bytes(log, taken.read_bytes())
    with storage.locked(lock, "fold", 0):
        logspool.fold(log)
    assert Path(log).read_bytes() == b"".join(order + spooled)
    assert list(Path(logspool.folder(log)).glob("*")) == [] if spooled else True
