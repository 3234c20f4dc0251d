"""The quickest way into the hook, for agents' hook settings.

A hook runs on every tool call of every agent, so its start-up is most of its cost. Run as
``python -I -S <this file> post-tool-use --tool claude``: ``-S`` skips the interpreter's site
set-up and ``-I`` ignores the environment's Python variables; the folder this package is
installed in is put on the path by hand instead. ``teamai-ref hook-command`` prints the exact
line for the current installation. What the site set-up would have found (PyYAML, in an editable
install) is set up late, only on the rare path that needs it (``ledger_read.yaml_module``).

An installation too broken to import the reference still exits 0 (a hook never fails the
agent's tool call) and leaves one line in the debug log under the state home.

The hot paths stay light, a rule of every module on them. A hook is a fresh process on every tool
call and a recall one per question, so those modules import neither ``typing`` (records use
``_tuples.NamedTuple``), ``dataclasses``, ``datetime`` (unless ``TEAMAI_NOW`` is set), ``argparse``
(the hook), YAML nor SQLite (the hook). A Stop reads only what was appended since the last one
(the reducer's checkpoint); ``ledger.py`` with its file format (``ledger_read``, ``ledger_write``),
``upvoted.py`` and ``upvoted_file.py`` come in only when it credits. A Stop imports neither ``json``
nor ``re``: JSON goes through ``state/jsontext.py``, and the log's identities
(``reducer/logread.py``), drive letters (``pathmatch.py``) and the ledger's common lines
(``ledger_read.py``) are read with string operations; the ledger imports ``re`` only for quoted
scalars. ``tests/test_string_readers.py`` holds each reader to the package or expression it stands
for and checks what a crediting Stop imports; ``tests/hook/test_imports.py`` checks a tool call and
both kinds of Stop; ``tests/hook/test_installed_hook_lines.py`` runs every printed line from a
regular and an editable install; ``tests/hook/test_fast_entry.py`` the coverage start below.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

if os.environ.get("COVERAGE_PROCESS_START") or os.environ.get("COVERAGE_PROCESS_CONFIG"):
    # A test run measuring coverage (it sets these for every process it starts). ``-S`` skipped the
    # site set-up whose ``.pth`` file starts coverage in a child process, so do it here: this line
    # is measured like any other. An agent's hook never has these set; it pays two look-ups.
    try:
        import site

        site.main()
        import coverage

        coverage.process_startup()
    except Exception:  # noqa: BLE001 - measuring must never change what the hook does
        pass


def _note_broken(exc: BaseException) -> None:
    """One debug line, written with nothing but ``os`` (the reference could not be imported)."""
    try:
        import time

        words = [a for a in sys.argv[1:] if not a.startswith("-")]
        agent = sys.argv[sys.argv.index("--tool") + 1] if "--tool" in sys.argv[:-1] else "-"
        home = os.environ.get("TEAMAI_HOME") or os.path.join(os.path.expanduser("~"), ".teamai-ref")
        os.makedirs(home, 0o700, exist_ok=True)
        line = (f"{time.strftime('%Y-%m-%dT%H:%M:%S.000Z', time.gmtime())} agent={agent[:64] or '-'} "
                f"event={(words[0] if words else '-')[:64]} the hook cannot import the reference "
                f"({type(exc).__name__}): reinstall teamai-ref, then run teamai-ref doctor\n")
        fd = os.open(os.path.join(home, "hook-debug.log"),
                     os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
        try:
            os.write(fd, " ".join(line.split()).encode("utf-8", "replace") + b"\n")
        finally:
            os.close(fd)
    except Exception:  # noqa: BLE001 - best effort, like every debug line
        pass


try:
    from reference.hook.dispatch import main
    from reference.streams import process_io
except Exception as exc:  # noqa: BLE001 - a broken installation must not fail the agent's tool call
    _note_broken(exc)
    sys.exit(0)

_io = process_io(os.environ)  # a closed stdin reads as an empty payload
sys.exit(main(sys.argv[1:], _io.env, _io.stdin, _io.stderr, _io.stdout))
