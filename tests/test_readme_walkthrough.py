"""The walkthrough for implementers (docs/implementers.md), followed step by step: every command of its
shell blocks runs, in order, in a temporary folder, against the example driver it copies; each
exits as the README says (``# exits N``, else 0), the output it shows is what the command
printed, and after each step the folder and the reports are what the prose around it claims."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HEADING = "## Plugging in another implementation: a walkthrough"
GUIDE = ROOT / "docs" / "implementers.md"
BLOCK = re.compile(r"^```(?P<lang>\w+)\n(?P<body>.*?)^```$", re.M | re.S)
EXITS = re.compile(r"\s#\s+exits (\d+)")


def _walkthrough() -> list[tuple[str, str]]:
    text = GUIDE.read_text(encoding="utf-8")
    assert HEADING in text, "docs/implementers.md has no walkthrough"
    section = text.split(HEADING, 1)[1].split("\n## ", 1)[0].split("\n# ", 1)[0]
    return [(m.group("lang"), m.group("body")) for m in BLOCK.finditer(section)]


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TEAMAI_", "PYTEST_", "COV_CORE"))}
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env["HOME"] = str(home)
    return env


def test_the_walkthrough_runs_as_written(tmp_path):
    work = tmp_path / "my-impl"
    work.mkdir()
    (tmp_path / "home").mkdir()
    env = _env(tmp_path / "home")
    ran: list[tuple[str, subprocess.CompletedProcess[str]]] = []
    files: list[dict | None] = []  # the expectations file after each command
    blocks = _walkthrough()
    assert [lang for lang, _ in blocks] == ["sh", "sh", "sh", "text", "sh", "sh", "sh"]
    for lang, body in blocks:
        if lang == "text":  # what the last command printed, shown in part
            printed = {line.strip() for line in ran[-1][1].stdout.splitlines()}
            missing = [line for line in body.splitlines() if line.strip() and line.strip() not in printed]
            assert not missing, f"the guide shows lines the command did not print: {missing}"
            continue
        for line in body.splitlines():
            if not line.strip() or line.startswith("#"):
                continue
            want = int(m.group(1)) if (m := EXITS.search(line)) else 0
            done = subprocess.run(["bash", "-c", line], cwd=work, env=env, capture_output=True, text=True,
                                  timeout=600)
            assert done.returncode == want, f"{line}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
            ran.append((line, done))
            expected = work / "my-impl.toml"
            files.append(tomllib.loads(expected.read_text()) if expected.is_file() else None)
    outputs = [done.stdout for _, done in ran]
    commands = [line for line, _ in ran]
    # 1. the driver is the example's copy
    assert (work / "my_driver.py").read_text() == (ROOT / "conformance/drivers/examples/minimal_driver.py").read_text()
    # 2. every case passes (none of these needs what the driver does not declare)
    totals = next(x for x in outputs[1].splitlines() if x.startswith("totals: "))
    assert re.fullmatch(r"totals: pass \d+", totals), totals
    # 3. the broken driver's failures say why
    assert "sed" in commands[2] and outputs[3].count("  why: ") == outputs[3].count("\nFAIL ") >= 1
    # 4. the expectations file lists each failure with its reason, and the run is judged by it
    listed = files[4]
    assert listed and "reduce-env-settles-without-hook" in listed and all(e["reason"] for e in listed.values())
    assert re.search(rf"^totals: .*xfail {len(listed)}", outputs[5], re.M)
    assert outputs[5].rstrip().endswith("all outcomes as expected")
    # 5. pytest: the same cases, the listed ones xfailed
    assert re.search(rf"\b\d+ passed\b.*\b{len(listed)} xfailed\b", outputs[6].splitlines()[-1]), outputs[6]
    # 6. the fixed driver passes what was listed: xpass, then the file drops them
    assert f"xpass {len(listed)}" in outputs[8]
    assert "removed" in outputs[9] and files[9] == {}


def test_set_up_is_two_commands_that_never_install_into_the_system_python():
    """A stock Debian/Ubuntu python refuses ``pip install`` (externally-managed-environment): the
    set-up makes a venv first, in two commands still (the main job, then the tests), and every
    install a reader runs pytest from brings pytest (``.[test]``)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    guides = "".join(p.read_text(encoding="utf-8") for p in sorted((ROOT / "docs").glob("*.md")))
    setup = text.split("## Set-up", 1)[1].split("\n## ", 1)[0]
    body = BLOCK.search(setup).group("body")  # type: ignore[union-attr]
    lines = [line for line in body.splitlines() if line.strip()]
    assert len(lines) == 2, lines
    assert lines[0].startswith("python3 -m venv .venv && .venv/bin/pip install nox && .venv/bin/nox -s conformance ")
    assert lines[1].startswith(".venv/bin/nox -s tests ")
    installs = [line for line in (text + guides).splitlines() if "pip install -e" in line and not line.startswith("(")]
    assert installs and all("'.[test]'" in line for line in installs), installs
    assert "pip install -e .\n" not in text + guides
