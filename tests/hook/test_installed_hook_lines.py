"""Every line ``teamai-ref hook-command`` prints, run as the agent runs it, from a regular and an
editable install, on a ledger in teamai's spelling.

The lines run ``python -I -S .../hook/fast.py``: without the interpreter's site set-up, only the
folder the package lives in is on the path. In an editable install that is the source tree, where
PyYAML is not; the hook must read teamai's spelling without it, find PyYAML through a late site
set-up when another spelling needs it, and say so in the debug log when even that fails.

The two installs are real virtual environments, made once per test session from a copy of the
package (``pip install --no-deps``, the editable one with ``-e``); PyYAML reaches them only through
a ``.pth`` file, that is only through the site set-up the hook line skips.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from reference.state import ledger, ledger_read
from reference.team import config

from ._support import ROOT

pytestmark = pytest.mark.xdist_group("installed-hook-lines")

EVENTS = ("post-tool-use", "stop", "subagent-stop", "session-start")
T0 = "2026-11-30T10:00:00.000Z"
RUN_RE = re.compile(r" run=([0-9a-f-]{36})$", re.MULTILINE)


class Install:
    def __init__(self, kind: str, venv: Path, yaml_pth: Path) -> None:
        self.kind = kind
        self.venv = venv
        self.python = venv / "bin" / "python"
        self.script = venv / "bin" / "teamai-ref"
        self.yaml_pth = yaml_pth  # the .pth file that lets the site set-up find PyYAML

    def run(self, argv: list[str], env: dict[str, str], stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(argv, input=stdin, capture_output=True, env=env, cwd="/", timeout=120)

    def teamai_ref(self, *args: str, env: dict[str, str]) -> subprocess.CompletedProcess[bytes]:
        return self.run([str(self.script), *args], env)


def _pip_install(venv: Path, source: Path, editable: bool) -> str | None:
    """Install ``source`` into ``venv`` without its dependencies; the error's last line, or None.

    The environment is made without pip (a tenth of a second instead of seconds) and this
    interpreter's pip installs into it; with no build tools of its own there, the build runs in
    pip's isolated build environment (setuptools from pip's cache).
    """
    proc = subprocess.run([sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install",
                           "--quiet", "--no-deps", "--disable-pip-version-check", *(["-e"] if editable else []),
                           str(source)], capture_output=True, text=True, timeout=600)
    if proc.returncode == 0:
        return None
    return (proc.stderr.strip().splitlines() or ["pip failed"])[-1]


@pytest.fixture(scope="session")
def installs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Install]:
    base = tmp_path_factory.mktemp("installs")
    yaml_dir = base / "pyyaml-only"
    yaml_dir.mkdir()
    (yaml_dir / "yaml").symlink_to(Path(yaml.__file__).parent, target_is_directory=True)
    found: dict[str, Install] = {}
    for kind in ("regular", "editable"):
        source = base / f"src-{kind}"
        source.mkdir()
        for name in ("pyproject.toml", "README.md"):
            shutil.copy(ROOT / name, source / name)
        for package in ("reference", "conformance"):
            shutil.copytree(ROOT / package, source / package, ignore=shutil.ignore_patterns("__pycache__"))
        venv = base / f"venv-{kind}"
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
        problem = _pip_install(venv, source, editable=kind == "editable")
        if problem:
            pytest.skip(f"cannot install the package into a virtual environment here: {problem}")
        (site,) = venv.glob("lib/python*/site-packages")
        pth = site / "pyyaml.pth"
        pth.write_text(f"{yaml_dir}\n")
        found[kind] = Install(kind, venv, pth)
    return found


@pytest.fixture(params=["regular", "editable"])
def install(request: pytest.FixtureRequest, installs: dict[str, Install]) -> Iterator[Install]:
    chosen = installs[request.param]
    yield chosen
    if not chosen.yaml_pth.exists():  # a test that hid PyYAML gives it back
        chosen.yaml_pth.with_suffix(".off").rename(chosen.yaml_pth)


@pytest.fixture
def place(tmp_path: Path) -> dict[str, Any]:
    team = tmp_path / "team"
    shutil.copytree(ROOT / "examples" / "team", team)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("TEAMAI_", "CLAUDE", "CODEX", "CURSOR", "COPILOT", "CODEBUDDY", "PI_", "COVERAGE",
                                "PYTHON", "VIRTUAL_ENV"))}
    env.update({"TEAMAI_HOME": str(tmp_path / "home"), "TEAMAI_LOCK_WAIT": "5"})
    scope = config.load(env, str(team)).active
    return {"team": team, "env": env, "scope": scope}


def hook_lines(install: Install, place: dict[str, Any]) -> dict[str, list[str]]:
    lines = {}
    for event in EVENTS:
        proc = install.teamai_ref("hook-command", event, "--tool", "claude", "--team", str(place["team"]),
                                  env=place["env"])
        assert proc.returncode == 0, proc.stderr
        argv = shlex.split(proc.stdout.decode().strip())
        assert argv[0] == str(install.python) and argv[1:3] == ["-I", "-S"], argv
        assert Path(argv[3]).name == "fast.py"
        assert argv[4:] == [event, "--tool", "claude", "--team", str(place["team"])]
        lines[event] = argv
    source = Path(lines["stop"][3]).resolve()
    if install.kind == "editable":
        assert install.venv not in source.parents, "an editable install runs the hook from its source tree"
    else:
        assert install.venv in source.parents
    return lines


def recall(install: Install, place: dict[str, Any], session: str, now: str) -> str:
    env = {**place["env"], "CLAUDE_CODE_SESSION_ID": session, "TEAMAI_NOW": now}
    proc = install.teamai_ref("recall", "redis", "timeout", "--team", str(place["team"]), env=env)
    assert proc.returncode == 0, proc.stderr
    found = RUN_RE.search(proc.stdout.decode())
    assert found
    return found.group(1)


def fire(install: Install, place: dict[str, Any], line: list[str], payload: dict[str, Any], now: str) -> None:
    proc = install.run(line, {**place["env"], "TEAMAI_NOW": now}, json.dumps(payload).encode())
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")


def read_payload(place: dict[str, Any], session: str) -> dict[str, Any]:
    return {"session_id": session, "cwd": str(place["team"]), "hook_event_name": "PostToolUse", "tool_name": "Read",
            "tool_input": {"file_path": str(place["team"] / "learnings" / "redis-timeout.md")},
            "tool_response": {"type": "text"}}


def teamai_ledger(upvoted: int) -> str:
    """A ledger as teamai 0.25 writes it (``YAML.stringify``), with what only teamai knows."""
    upvote = f"    last_upvoted_at: {T0}\n" if upvoted else ""
    return ("version: 2\nvotes:\n"
            f"  redis-timeout:\n    recalled_count: 1\n    upvoted_count: {upvoted}\n    last_recalled_at: {T0}\n"
            f"{upvote}"
            "  finance/payments:\n    recalled_count: 4\n    upvoted_count: 0\n    last_recalled_at: \"\"\n"
            "    pinned: yes\n"
            "deltas:\n  finance/payments:\n    recalled_delta: 2\n    upvoted_delta: -1\n"
            "team_sync: {}\n")


def log_kinds(place: dict[str, Any]) -> list[str]:
    path = Path(place["scope"].log_path)
    return [json.loads(x)["kind"] for x in path.read_text().splitlines()] if path.exists() else []


def debug_log(place: dict[str, Any]) -> str:
    path = Path(place["scope"].debug_log_path)
    return path.read_text() if path.exists() else ""


def test_every_printed_line_works_on_a_teamai_spelled_ledger(install: Install, place: dict[str, Any]) -> None:
    lines = hook_lines(install, place)
    recall(install, place, "ses-1", T0)
    ledger_path = Path(place["scope"].ledger_path)
    ledger_path.write_text(teamai_ledger(upvoted=0))

    fire(install, place, lines["session-start"], {"session_id": "ses-1", "hook_event_name": "SessionStart",
                                                  "source": "startup"}, "2026-11-30T10:00:01Z")
    assert log_kinds(place) == ["run"]
    fire(install, place, lines["post-tool-use"], read_payload(place, "ses-1"), "2026-11-30T10:00:02Z")
    assert log_kinds(place) == ["run", "evidence"]
    fire(install, place, lines["stop"], {"session_id": "ses-1", "hook_event_name": "Stop"}, "2026-11-30T10:00:03Z")
    doc = ledger.load(str(ledger_path))
    assert doc["votes"]["redis-timeout"]["upvoted_count"] == 1
    assert doc["deltas"]["redis-timeout"] == {"recalled_delta": 0, "upvoted_delta": 1}
    assert doc["deltas"]["finance/payments"] == {"recalled_delta": 2, "upvoted_delta": -1}
    assert doc["votes"]["finance/payments"]["pinned"] == "yes" and doc["team_sync"] == {}

    recall(install, place, "ses-2", "2026-11-30T11:00:00Z")
    fire(install, place, lines["post-tool-use"], read_payload(place, "ses-2"), "2026-11-30T11:00:01Z")
    fire(install, place, lines["subagent-stop"], {"session_id": "ses-2", "hook_event_name": "SubagentStop",
                                                  "agent_id": "a-1", "agent_type": "general-purpose"},
         "2026-11-30T11:00:02Z")
    doc = ledger.load(str(ledger_path))
    assert doc["votes"]["redis-timeout"]["upvoted_count"] == 2
    assert doc["deltas"]["redis-timeout"] == {"recalled_delta": 1, "upvoted_delta": 2}
    assert debug_log(place) == ""


def test_without_pyyaml_teamai_spelling_still_credits_and_other_spellings_are_named(
        install: Install, place: dict[str, Any]) -> None:
    lines = hook_lines(install, place)
    recall(install, place, "ses-1", T0)
    recall(install, place, "ses-2", T0)
    install.yaml_pth.rename(install.yaml_pth.with_suffix(".off"))  # PyYAML is now nowhere
    ledger_path = Path(place["scope"].ledger_path)

    ledger_path.write_text(teamai_ledger(upvoted=0))
    fire(install, place, lines["post-tool-use"], read_payload(place, "ses-1"), "2026-11-30T10:00:01Z")
    fire(install, place, lines["stop"], {"session_id": "ses-1"}, "2026-11-30T10:00:02Z")
    assert ledger.load(str(ledger_path))["votes"]["redis-timeout"]["upvoted_count"] == 1

    flow = ("{version: 2, votes: {redis-timeout: {recalled_count: 2, upvoted_count: 1, "
            f"last_recalled_at: '{T0}', last_upvoted_at: '{T0}'}}}}, deltas: {{}}}}\n")
    ledger_path.write_text(flow)
    fire(install, place, lines["post-tool-use"], read_payload(place, "ses-2"), "2026-11-30T10:00:03Z")
    fire(install, place, lines["stop"], {"session_id": "ses-2"}, "2026-11-30T10:00:04Z")
    assert ledger_path.read_text() == flow, "a ledger the hook cannot read is left as it is"
    assert not list(ledger_path.parent.glob("votes.yaml.corrupt-*"))
    noted = debug_log(place)
    assert "agent=claude event=stop" in noted and "PyYAML cannot be imported" in noted, noted
    assert len(noted.splitlines()) == 1

    install.yaml_pth.with_suffix(".off").rename(install.yaml_pth)  # PyYAML through the site set-up only
    fire(install, place, lines["stop"], {"session_id": "ses-2"}, "2026-11-30T10:00:05Z")
    doc = ledger.load(str(ledger_path))
    assert doc["votes"]["redis-timeout"]["upvoted_count"] == 2
    assert ledger_read.spelling(ledger_path.read_text()) == "teamai"


def test_doctor_in_each_install_says_what_the_hook_line_would_do(install: Install, place: dict[str, Any]) -> None:
    args = ("doctor", "--tool", "claude", "--team", str(place["team"]))
    healthy = install.teamai_ref(*args, env=place["env"])
    assert healthy.returncode == 0, healthy.stdout.decode()
    assert b"hook probe   ok" in healthy.stdout
    ledger_path = Path(place["scope"].ledger_path)
    ledger_path.parent.mkdir(parents=True)
    ledger_path.write_text("{version: 2, votes: {}, deltas: {}}\n")
    assert install.teamai_ref(*args, env=place["env"]).returncode == 0  # PyYAML through the late site set-up
    install.yaml_pth.rename(install.yaml_pth.with_suffix(".off"))
    unread = install.teamai_ref(*args, env=place["env"])
    assert unread.returncode == 1
    assert b"cannot import PyYAML" in unread.stdout and b"pip install pyyaml" in unread.stdout
