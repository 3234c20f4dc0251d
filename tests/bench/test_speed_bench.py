"""The speed bench's own parts: samples of real processes (time, peak memory, what they leave
running), interleaved rounds, the table, and the side-by-side recall and hook figures. No test
here asserts a duration: speed is what the bench reports, not what the tests check."""

from __future__ import annotations

import io
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import measure  # noqa: E402
import recall_bench  # noqa: E402
from table import Report  # noqa: E402

from conformance.drivers.teamai_cli import marked_processes  # noqa: E402

PY = sys.executable
MB = 1024


def run_bench(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TEAMAI_", "CLAUDE"))}
    return subprocess.run([PY, str(ROOT / "bench" / "run.py"), *args], capture_output=True, text=True,
                          env=env, cwd=cwd, timeout=600)


# -- samples ---------------------------------------------------------------------------------
def test_a_sample_weighs_the_process_with_the_children_it_waited_for():
    grandchild = "b = bytearray(150 * 1024 * 1024); b[::4096] = b'x' * len(b[::4096])"
    child = f"import subprocess, sys; subprocess.run([sys.executable, '-c', {grandchild!r}], check=True)"
    big = measure.timed([PY, "-c", child])
    small = measure.timed([PY, "-I", "-S", "-c", "pass"])
    assert big.rss_kb is not None and big.rss_kb >= 150 * MB
    assert small.rss_kb is not None and small.rss_kb < 60 * MB
    assert big > 0 and small > 0


def test_a_sample_does_not_count_the_memory_of_the_process_that_starts_it():
    """A process forked from a big one inherits that one's peak at exec (Linux keeps the larger),
    so samples are started from a small process."""
    ballast = bytearray(300 * 1024 * 1024)
    ballast[::4096] = b"x" * len(ballast[::4096])
    small = measure.timed([PY, "-I", "-S", "-c", "pass"])
    assert small.rss_kb is not None and small.rss_kb < 100 * MB
    del ballast


def test_a_sample_feeds_stdin_larger_than_a_pipe_holds():
    data = b"x" * (1 << 20)
    check = "import sys; sys.exit(0 if len(sys.stdin.buffer.read()) == 1 << 20 else 3)"
    measure.timed([PY, "-c", check], stdin=data)  # a wrong length would exit 3 and raise
    with pytest.raises(RuntimeError, match="exited 3"):
        measure.timed([PY, "-c", check], stdin=data[:10])


def test_a_failing_process_is_an_error_with_its_stderr():
    with pytest.raises(RuntimeError, match="exited 5: .*boom"):
        measure.timed([PY, "-c", "import sys; sys.stderr.write('boom'); sys.exit(5)"])


LEAVE_BEHIND = """
import subprocess, sys
child = subprocess.Popen([sys.executable, "-c", "import sys, time; time.sleep(float(sys.argv[1]))", sys.argv[1]],
                         start_new_session=True)
open(sys.argv[2], "w").write(str(child.pid))
"""


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(") ")[-1][0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="finding marked processes needs /proc")
def test_a_tool_waits_for_the_detached_process_it_left_before_the_next_sample(tmp_path):
    pidfile = tmp_path / "pid"
    tool = measure.Tool("leaves one", [PY, "-c", LEAVE_BEHIND], limit=20)
    tool("0.6", str(pidfile))
    assert not alive(int(pidfile.read_text()))
    left = tool.leftovers
    assert left.seen == 1 and left.killed == 0 and left.lingered_ms[0] >= 300
    assert "left a detached process after 1 of 1 calls" in left.describe(tool.limit)


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="finding marked processes needs /proc")
def test_a_tool_kills_what_outlives_the_bound(tmp_path):
    pidfile = tmp_path / "pid"
    tool = measure.Tool("leaves one", [PY, "-c", LEAVE_BEHIND], limit=0.5)
    start = time.monotonic()
    tool("120", str(pidfile))
    assert time.monotonic() - start < 60
    assert not alive(int(pidfile.read_text()))
    assert tool.leftovers.killed == 1
    assert "killed 1 times at the 0.5 s bound" in tool.leftovers.describe(tool.limit)


def test_a_tool_that_leaves_nothing_says_nothing():
    tool = measure.Tool("clean", [PY, "-I", "-S", "-c", "pass"])
    tool()
    tool()
    assert tool.leftovers.seen == 0 and tool.leftovers.describe(tool.limit) == ""


@given(st.lists(st.floats(min_value=0.01, max_value=1e6), min_size=1, max_size=40),
       st.lists(st.integers(min_value=1, max_value=1 << 30), min_size=1, max_size=40))
def test_a_figure_is_the_median_with_its_spread_and_peak_memory(times, rss):
    samples = [measure.Sample(t, rss[i % len(rss)]) for i, t in enumerate(times)]
    fig = measure.median(samples)
    assert float(fig) == statistics.median(times)
    assert fig.low == min(times) and fig.high == max(times)
    q1, q3 = fig.quartiles
    assert fig.low <= q1 <= q3 <= fig.high
    assert fig.rss_kb == max(s.rss_kb for s in samples)
    assert fig / 2 == statistics.median(times) / 2  # still a number for code that divides times


def test_rounds_run_every_tool_once_per_round_in_order_with_the_same_round_number():
    calls: list[tuple[str, int]] = []

    def tool(name: str, ms: float):
        def run(i: int) -> float:
            calls.append((name, i))
            return ms + i
        return run

    floor, ours, peer = measure.rounds(3, tool("floor", 1), tool("ours", 10), tool("peer", 100))
    assert calls == [(n, i) for i in range(3) for n in ("floor", "ours", "peer")]
    assert (floor, ours, peer) == (2, 11, 101) and len(peer.samples) == 3


# -- the table -------------------------------------------------------------------------------
def figure(*ms: float, rss: int = 40 * MB) -> measure.Figure:
    return measure.median(measure.Sample(m, rss) for m in ms)


def test_a_figure_prints_the_floor_ours_and_the_peer_with_ratios_spread_and_memory():
    out = io.StringIO()
    rep = Report(out)
    rep.figure("recall", "10 assets: warm recall", figure(40, 50, 60), figure(9, 10, 11, rss=9 * MB),
               figure(1000, 2000, 3000, rss=120 * MB), peer_name="teamai-cli 0.25.0", goal="<= 6x floor", ok=True)
    text = out.getvalue()
    assert "recall: 10 assets: warm recall" in text
    floor_line, ours_line, peer_line = [line for line in text.splitlines() if line.startswith("    ")
                                        and ("ms" in line or " s " in line)][:3]
    assert floor_line.split()[0] == "floor" and "9.0–11.0 ms" in floor_line
    assert "50.0 ms" in ours_line and "40.0–60.0 ms" in ours_line and "5.00x" in ours_line and "40.0 MB" in ours_line
    assert "2.00 s" in peer_line and "1.00–3.00 s" in peer_line and "200.00x" in peer_line
    assert "120.0 MB" in peer_line and "40.0x slower" in peer_line
    assert "[goal <= 6x floor: met]" in text
    row = rep.rows[0]
    assert row["median_ms"] == 50 and row["spread_ms"] == [40, 60] and row["x_floor"] == 5
    assert row["max_rss_kb"] == 40 * MB and row["peer_over_ref"] == 40 and row["peer"]["max_rss_kb"] == 120 * MB


def test_the_older_one_call_form_still_prints_a_figure():
    out = io.StringIO()
    rep = Report(out)
    rep.add("reduce", "Stop", figure(30, 31, 35), figure(10, 10, 12), "<= 4x floor", ok=True)
    rep.add("reduce", "Stop, plain numbers", 30.0, 10.0)
    assert "3.10x" in out.getvalue() and "3.00x" in out.getvalue() and not rep.errors
    assert rep.rows[1] == {"section": "reduce", "what": "Stop, plain numbers", "median_ms": 30.0, "x_floor": 3.0,
                           "floor": {"median_ms": 10.0}}


# -- like with like ----------------------------------------------------------------------------
OURS = {"doc": {"docs/a.md", "docs/b.md"}, "learning": {"learnings/ns0/x", "learnings/y"}}


def test_equal_asset_sets_are_counted_for_both_tools():
    out = io.StringIO()
    rep = Report(out)
    assert recall_bench.same_assets(rep, "tree", OURS, {k: set(v) for k, v in OURS.items()})
    text = out.getvalue()
    assert "assets indexed: reference 4 (doc 2, learning 2)" in text
    assert f"assets indexed: {recall_bench.PEER_NAME} 4 (doc 2, learning 2)" in text
    assert not rep.errors


def test_a_peer_that_indexed_other_assets_is_an_error_naming_the_paths():
    out = io.StringIO()
    rep = Report(out)
    theirs = {"doc": {"docs/a.md", "docs/b.md"}, "learning": {"learnings/y"}}
    assert not recall_bench.same_assets(rep, "tree", OURS, theirs)
    assert len(rep.errors) == 1 and "learnings/ns0/x" in rep.errors[0] and "error:" in out.getvalue()
    assert f"assets indexed: {recall_bench.PEER_NAME} 3" in out.getvalue()


def test_the_bench_prints_asset_counts_cold_and_warm_figures_with_spread_and_memory(tmp_path):
    proc = run_bench("--skip-peer", "--only", "recall", "--sizes", "60", "--runs", "10", "--work", str(tmp_path),
                     "--json", str(tmp_path / "rows.json"))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = proc.stdout
    assert "== recall, 60 synthetic assets ==" in out
    assert "assets indexed: reference 60 (" in out
    for what in ("cold index build (first recall on an empty state), 3 runs", "warm recall, 10 questions",
                 "recall after one asset changed"):
        assert f"recall: 60 synthetic assets: {what}" in out
    import json

    rows = json.loads((tmp_path / "rows.json").read_text())["rows"]
    cold = next(r for r in rows if "cold index build" in r["what"])
    warm = next(r for r in rows if "warm recall" in r["what"])
    assert cold["samples"] == 3 and cold["floor"]["samples"] == 3 and cold["max_rss_kb"] > 0
    assert warm["samples"] == 10 and warm["floor"]["samples"] == 10 and len(warm["spread_ms"]) == 2


def test_an_absent_real_tree_is_skipped_with_a_line(tmp_path):
    proc = run_bench("--skip-peer", "--only", "real", "--real", str(tmp_path / "nowhere"), "--work", str(tmp_path))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"recall, real trees: skipped {tmp_path / 'nowhere'}: no such folder" in proc.stdout


def test_an_unknown_section_is_refused(tmp_path):
    proc = run_bench("--only", "recal", "--work", str(tmp_path))
    assert proc.returncode == 2 and "unknown section recal" in proc.stderr


# -- against teamai-cli 0.25.0 -------------------------------------------------------------------
@pytest.fixture(scope="module")
def entry(teamai_cli: str) -> str:
    return teamai_cli


def test_0_25_s_hook_leaves_a_process_that_is_gone_before_the_next_sample(entry, tmp_path):
    import hook_bench
    import peer

    env = peer.set_up(entry, str(ROOT / "examples" / "team"), str(tmp_path / "peer"))
    tool = measure.Tool(hook_bench.PEER_ROW, ["node", entry, "hook-dispatch", "post-tool-use", "--tool", "claude"],
                        env)
    payload = b'{"session_id": "s", "hook_event_name": "PostToolUse", "tool_name": "Read", "cwd": "/"}'
    tool(stdin=payload)
    assert tool.leftovers.seen == 1  # the detached process this figure has to account for
    assert tool.mark and not marked_processes(tool.mark)

    # The figure names the peer's row for what it does and says what it left behind.
    from commands import clean_env, ref_cmd

    out = io.StringIO()
    rep = Report(out)
    ours_env = clean_env(TEAMAI_HOME=str(tmp_path / "home"), TEAMAI_TEAM=str(ROOT / "examples" / "team"))
    fast = [PY, "-I", "-S", str(ROOT / "reference" / "hook" / "fast.py"), "post-tool-use", "--tool", "claude"]
    dispatch = [*ref_cmd(), "hook-dispatch", "post-tool-use", "--tool", "claude"]
    hook_bench.one_payload(rep, "Read", payload, ours_env, dispatch, fast, 2, entry, env)
    text = out.getvalue()
    peer_row = next(line for line in text.splitlines() if line.strip().startswith(hook_bench.PEER_ROW))
    assert "hook call, no attribution" in peer_row and ("slower" in peer_row or "faster" in peer_row)
    assert "does other work: it predates attribution (#884)" in text
    assert "its hook left a detached process after 2 of 2 calls" in text
    dispatch_row = next(r for r in rep.rows if r["what"].endswith("hook-dispatch"))
    assert dispatch_row["peer"]["samples"] == dispatch_row["samples"] == dispatch_row["floor"]["samples"] == 2
    assert "teamai-cli" not in dispatch_row["goal"]  # no goal is set against other work


def test_side_by_side_recall_indexes_the_same_assets_and_times_both_in_the_same_rounds(entry, tmp_path):
    out = io.StringIO()
    rep = Report(out)
    tree = recall_bench.synthetic(str(tmp_path), 40, 10)
    recall_bench.bench_tree(rep, str(tmp_path), tree, 10, 3, entry)
    text = out.getvalue()
    assert not rep.errors, text
    ours = next(line for line in text.splitlines() if "assets indexed: reference" in line)
    theirs = next(line for line in text.splitlines() if f"assets indexed: {recall_bench.PEER_NAME}" in line)
    assert ours.split("reference ")[1] == theirs.split(f"{recall_bench.PEER_NAME} ")[1]
    cold, warm = (r for r in rep.rows if "cold index build" in r["what"] or "warm recall" in r["what"])
    assert cold["peer"]["samples"] == cold["samples"] == cold["floor"]["samples"] == 3
    assert warm["peer"]["samples"] == warm["samples"] == warm["floor"]["samples"] == 10
    assert warm["peer"]["max_rss_kb"] > 0 and ("slower" in text or "faster" in text)


def test_every_stop_and_pull_sample_reads_through_the_checkpoint(tmp_path):
    """Each reduce sample starts from the same saved state; after a ``pull`` has replaced the log, the
    saved checkpoint is made to name the log put back, so a sample still times the checkpointed
    read it is labelled as, never a whole read."""
    import reduce_bench

    from reference import reducer
    from reference.state import clock
    from reference.team import config

    env, scope, _ = reduce_bench._reduced_log(str(tmp_path), 300, 32)  # a day past retention's 30
    state = reduce_bench._LogState(env, scope, 300)
    stop = [PY, "-I", "-S", os.path.join(reduce_bench.package_dir(), "hook", "fast.py"), "stop", "--tool", "claude"]
    state.put_back_with_a_turn()
    subprocess.run(stop, env=env, input=reduce_bench.STOP_PAYLOAD, check=True)  # leaves a checkpoint
    state.save()
    replaced = False
    for command in (stop, [PY, "-m", "reference", "pull"], stop, [PY, "-m", "reference", "pull"]):
        state.put_back_with_a_turn()
        made = reducer.plan(config.load(env), reduce_bench.STOP_SESSION, clock.now_micros(env))
        assert made.used, command
        inode = os.stat(scope.log_path).st_ino
        subprocess.run(command, env=env, input=reduce_bench.STOP_PAYLOAD, capture_output=True, check=True)
        replaced |= os.stat(scope.log_path).st_ino != inode
    assert replaced  # a pull did replace the log, so the saved checkpoint had to be made to name the new one


def test_the_hub_figure_times_a_recall_whose_hit_has_every_relation_of_the_tree(tmp_path):
    """The tree the hub figure times: its overview page comes first for the figure's question and
    is related to every page, both ways, so the sample really builds lines from all of them."""
    import synth
    from commands import clean_env

    from reference.relations import extract
    from reference.team import frontmatter

    out = io.StringIO()
    rep = Report(out)
    recall_bench.hub(rep, str(tmp_path), 10, pages=30)
    assert not rep.errors, out.getvalue()
    (row,) = [r for r in rep.rows if "page at the centre" in r["what"]]
    assert row["samples"] == row["floor"]["samples"] == 10
    tree = tmp_path / "team-hub-30"
    overview = frontmatter.split((tree / "docs" / "overview.md").read_text(encoding="utf-8"))
    assert len(extract.outgoing("doc", "docs/overview.md", overview.meta, overview.body)["links"]) == 30
    for i in (0, 29):
        page = frontmatter.split((tree / "docs" / f"page-{i}.md").read_text(encoding="utf-8"))
        assert extract.outgoing("doc", f"docs/page-{i}.md", page.meta, page.body) == {
            "declared": [["REFERENCES", "docs/overview.md"]], "links": ["docs/overview.md"]}
    recall = subprocess.run([PY, "-m", "reference", "recall", synth.HUB_QUERY], capture_output=True, text=True,
                            env=clean_env(TEAMAI_HOME=str(tmp_path / "home-check"), TEAMAI_TEAM=str(tree)),
                            cwd=ROOT, timeout=120)
    first = recall.stdout.split("\n\n")[1]
    assert first.splitlines()[2].endswith("docs/overview.md")
    assert first.count("Related: ← REFERENCES ") == 5
