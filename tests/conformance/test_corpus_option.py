"""Where the corpus is: ``--corpus`` before or after any command, the environment, and a plain
message when an installed package has none."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from conformance import cli

ROOT = Path(__file__).resolve().parents[2]


def _main(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return cli.main(argv, out, err), out.getvalue(), err.getvalue()


@pytest.mark.parametrize("argv", [["--corpus", "{root}", "list", "--only", "accept-alice"],
                                  ["list", "--corpus", "{root}", "--only", "accept-alice"],
                                  ["show", "accept-alice", "--corpus", "{root}"]])
def test_the_corpus_option_goes_before_or_after_the_command(argv):
    code, out, _ = _main([a.format(root=ROOT) for a in argv])
    assert code == 0 and "accept-alice" in out


@pytest.mark.parametrize("command", ["run", "list", "lint", "show", "honesty", "generate", "diff", "shrink",
                                     "import-capture", "report", "driver"])
def test_every_command_takes_the_corpus_option(command):
    parser = cli.build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    assert any("--corpus" in action.option_strings for action in sub.choices[command]._actions)


def test_the_environment_names_the_corpus(tmp_path, monkeypatch):
    monkeypatch.setenv(cli.CORPUS_ENV, str(tmp_path))
    code, _, err = _main(["list"])
    assert code == cli.EXIT_USAGE
    assert f"{tmp_path} has no scenarios/ folder" in err and "--corpus DIR" in err and cli.CORPUS_ENV in err
    monkeypatch.setenv(cli.CORPUS_ENV, str(ROOT))
    code, out, _ = _main(["list", "--only", "accept-alice"])
    assert code == 0 and out.startswith("accept-alice\t")
