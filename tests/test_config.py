"""Where the team lives: a folder spelt as a Windows path is one on any host."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from reference.team import config

WINDOWS = [r"C:\Users\ana\team", "c:/Users/ana/team", "\\\\fs01\\share\\team", "D:\\"]


@pytest.mark.parametrize("team", WINDOWS)
def test_a_windows_team_folder_is_kept_as_spelt(tmp_path, team: str) -> None:
    cfg = config.load({"TEAMAI_TEAM": f" {team} ", "TEAMAI_HOME": str(tmp_path)})
    assert cfg.active.team == team
    assert cfg.active.learnings_roots == (team.rstrip("\\/") + "\\learnings",)
    assert config.team_problem(team) == f"team folder {team} is a Windows path, which this host cannot read"
    assert config.team_problem(team, reads_tree=False) is None


@pytest.mark.parametrize("team", ["team", "C:team", "./C:/team"])
def test_a_relative_folder_is_taken_from_the_working_folder(tmp_path, monkeypatch, team: str) -> None:
    monkeypatch.chdir(tmp_path)
    cfg = config.load({"TEAMAI_TEAM": team, "TEAMAI_HOME": str(tmp_path / "state")})
    assert cfg.active.team == os.path.normpath(os.path.join(os.path.realpath(tmp_path), team))
    assert config.team_problem(cfg.active.team, reads_tree=False) is not None  # missing here


def _teamai_ref(env: dict[str, str], *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "reference", *argv], capture_output=True, text=True,
                          env={**os.environ, **env}, timeout=60)


def test_pull_and_stats_run_beside_a_windows_team_and_recall_says_why_it_cannot(tmp_path) -> None:
    env = {"TEAMAI_TEAM": r"C:\Users\ana\team", "TEAMAI_HOME": str(tmp_path), "HOME": str(tmp_path)}
    assert _teamai_ref(env, "pull").returncode == 0
    assert _teamai_ref(env, "stats").returncode == 0
    recall = _teamai_ref(env, "recall", "redis")
    assert recall.returncode != 0
    assert "C:\\Users\\ana\\team is a Windows path, which this host cannot read" in recall.stderr
