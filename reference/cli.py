"""``teamai-ref``: the reference's command line, mirroring teamai's commands.

Exit codes (a script can rely on them):

=====  ==============================================================
0      done (recall printed its hits, or the no-hit line, even when it could not record the run;
       ``recall --check`` printed its verdict, RELEVANT or NOT_RELEVANT, as teamai does)
1      a check said no: ``review`` found a fail,
       ``doctor`` found what would make a hook record nothing
2      usage: unknown command or option, empty query, bad argument
3      the team folder, the state folder (``TEAMAI_HOME``) or a given file cannot be used
4      busy: a lock stayed held past the bounded wait; try again
=====  ==============================================================

``hook-dispatch`` always exits 0: a hook must never break the agent. Messages are one line each
(``streams.one_line``); a usage error is argparse's own ``<command>: error: … (see <command> --help)``,
with one prefix; ``config.team_problem`` says what is wrong with a team folder (missing, a file,
unreadable) for every command.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping, Sequence

from .streams import Io, OutputLost, one_line, process_io

TYPE_CHECKING = False  # typing is imported only by type checkers: it costs a fresh process ~4 ms
if TYPE_CHECKING:  # argparse is imported when a command needs it, never on the hook path
    import argparse
    from typing import IO, Any

    from _typeshed import SupportsWrite

    from .team.config import Config

EXIT_OK, EXIT_NO, EXIT_USAGE, EXIT_INPUT, EXIT_BUSY = 0, 1, 2, 3, 4


class OneWarningPerCause:
    """Recall's warnings, with a state folder that cannot be written said once: the index, the run
    line and the ledger all live in it, and when the first of them cannot be written the others
    cannot either (the start line's missing run id shows the run was not recorded)."""

    def __init__(self, warn: Callable[[str], None]) -> None:
        self.warn = warn
        self.unwritable = False

    def __call__(self, message: str) -> None:
        from .team.config import WRITABLE_HINT

        if message.endswith(WRITABLE_HINT):
            if self.unwritable:
                return
            self.unwritable = True
        self.warn(message)


class _Usage(Exception):
    def __init__(self, prog: str, message: str) -> None:
        super().__init__(f"{prog}: error: {one_line(message)} (see {prog} --help)")


def _team_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--team", metavar="DIR", help="the workspace team tree (default: $TEAMAI_TEAM)")
    p.add_argument("--user-team", metavar="DIR", help="the user-scope team tree (default: $TEAMAI_USER_TEAM)")


def _columns() -> int:
    """The width help text wraps to, as shutil would find it, less argparse's margin."""
    try:
        return int(os.environ["COLUMNS"]) - 2
    except (KeyError, ValueError):
        pass
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).columns - 2  # type: ignore[union-attr]
    except (AttributeError, OSError, ValueError):
        return 78


def build_parser(command: str | None = None, out: IO[str] | None = None) -> argparse.ArgumentParser:
    """The parser; with ``command`` given, only that command's module is imported (a recall
    should not pay for importing review's or replay's code). Help goes to ``out``, the command's
    own output (the process's stdout where none is given)."""
    import argparse

    class _Formatter(argparse.HelpFormatter):
        # argparse builds a formatter for every add_argument, and without a width each one imports
        # shutil (and with it zlib, bz2 and lzma) to ask the terminal: a recall pays for that.
        def __init__(self, prog: str) -> None:
            super().__init__(prog, width=_columns())

    class _Parser(argparse.ArgumentParser):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            kwargs.setdefault("formatter_class", _Formatter)
            super().__init__(*args, **kwargs)

        def error(self, message: str) -> None:  # type: ignore[override]
            raise _Usage(self.prog, message)

        def print_help(self, file: SupportsWrite[str] | None = None) -> None:
            # argparse writes help to sys.stdout and drops a failure to write it: help sent to a
            # full disk was lost with exit 0, and a command run in-process wrote it past its Io.
            (file or out or sys.stdout).write(self.format_help())

    parser = _Parser(prog="teamai-ref", description="Reference implementation of TeamAI recall (#884, #1552).")
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)

    p = sub.add_parser("recall", help="search the team's knowledge and record the run")
    p.add_argument("query", nargs="+", help="what to look for")
    p.add_argument("--check", action="store_true", help="only say whether recall would find something")
    # --caller is a hidden flag (#884): the recall subagent passes --caller teamai-recall, and its own
    # reads of the hits then never upvote them. Accepted, never listed; the README documents it.
    p.add_argument("--caller", metavar="NAME", help=argparse.SUPPRESS)
    p.add_argument("--limit", type=int, default=5, metavar="N", help="print at most N hits (default: 5)")
    _team_args(p)

    p = sub.add_parser("index", help="bring the search index up to date and report it")
    p.add_argument("--problems", action="store_true",
                   help="list every file of the tree that cannot be indexed as written, and why (writes nothing)")
    _team_args(p)

    # Parsed by hook.dispatch without argparse (a hook is a fresh process on every tool call); listed
    # here so that help shows it.
    sub.add_parser("hook-dispatch", add_help=False,
                   help="the hook agents call: a payload on stdin; always exits 0 (hook-dispatch --help)")

    for name, module, helptext in _EXTRA:
        sp = sub.add_parser(name, help=helptext)
        if command in (None, name):
            __import__(f"reference.{module}", fromlist=["add_arguments"]).add_arguments(sp)
            _team_args(sp)
    return parser


# Commands whose code lives in their own module: (command, module, help). Each module offers
# ``add_arguments(parser)`` and ``run(args, io) -> int``.
_EXTRA: list[tuple[str, str, str]] = [
    ("review", "commands.review", "check the relations a branch of the team repo declares"),
    ("contribute", "commands.contribute", "publish a learning into the learnings root"),
    ("pull", "commands.pull", "credit the upvotes the recall log has earned, then prune it"),
    ("stats", "commands.stats", "show recall for the last 10 sessions"),
    ("hook-command", "hook.command", "print the fastest command line for an agent's hook settings"),
    ("replay", "hook.replay", "explain what the hook would record for saved payloads, writing nothing"),
    ("doctor", "commands.doctor", "say what a hook line would do here, and how to fix what would stop it"),
    ("capture", "capture.command", "record the payloads an agent's hook gets (scrubbed), then run the hook"),
]


_RECALL_VALUES = {"--caller": "caller", "--limit": "limit", "--team": "team", "--user-team": "user_team"}


def plain_recall(argv: Sequence[str]) -> argparse.Namespace | None:
    """``recall`` in the shape agents and people type it (the query's words, full option names
    before or after them, option values that do not start with ``-``), parsed without argparse,
    whose import and parser cost a recall about 4 ms. ``None`` for any other command line, which
    argparse parses and, where it is wrong, explains. For every line this accepts, argparse gives
    the same values (a property test checks it)."""
    if len(argv) < 2 or argv[0] != "recall":
        return None
    values: dict[str, Any] = {"caller": None, "limit": 5, "team": None, "user_team": None}
    check = False
    query: list[str] = []
    after_query = False
    i = 1
    while i < len(argv):
        arg = argv[i]
        i += 1
        if not arg.startswith("-"):
            if after_query:
                return None  # words on both sides of an option: argparse says what is wrong
            query.append(arg)
            continue
        after_query = bool(query)
        if arg == "--check":
            check = True
            continue
        name = _RECALL_VALUES.get(arg)
        if name is None or i == len(argv) or argv[i].startswith("-"):
            return None
        value = argv[i]
        i += 1
        if name == "limit":
            try:
                values[name] = int(value)
            except ValueError:
                return None
        else:
            values[name] = value
    if not query:
        return None
    import types  # already loaded by the interpreter's own start

    return types.SimpleNamespace(command="recall", version=False, query=query,  # type: ignore[return-value]
                                 check=check, **values)


def _load_config(args: argparse.Namespace, io: Io, reads_tree: bool = True) -> Config:
    from .team import config

    cfg = config.load(io.env, getattr(args, "team", None), getattr(args, "user_team", None))
    for scope in cfg.scopes:
        problem = config.team_problem(scope.team, reads_tree)
        if problem:
            raise config.ConfigError(problem)
    return cfg


class _Gathered:
    """A command's warnings, with those about single files of the tree held back and said as one
    line at the end: a first recall on a real tree can meet hundreds of them."""

    def __init__(self, io: Io, say: Callable[[str], None] | None = None) -> None:
        self.io = io
        self.say = say or io.warn
        self.files: list[str] = []

    def __call__(self, message: str) -> None:
        from .recall.asset_rows import FileProblem

        if isinstance(message, FileProblem):
            self.files.append(message)
        else:
            self.say(message)

    def summary(self) -> None:
        if len(self.files) == 1:
            self.io.warn(self.files[0])
        elif self.files:
            self.io.warn(f"{len(self.files)} files of the team tree could not be indexed as written (the first: "
                         f"{self.files[0]}); teamai-ref index --problems lists them")


def cmd_recall(args: argparse.Namespace, io: Io) -> int:
    from .recall import relations_view, render
    from .recall import run as recall
    from .team import config

    query = " ".join(args.query).strip()
    if not query:
        io.error("the query is empty; say what to look for, e.g. teamai-ref recall \"redis timeout\"")
        return EXIT_USAGE
    if args.limit < 1:
        io.stderr.write(f"teamai-ref recall: error: --limit {args.limit}: give a number of hits, 1 or more "
                        "(see teamai-ref recall --help)\n")
        return EXIT_USAGE
    cfg = _load_config(args, io)
    warn = _Gathered(io, OneWarningPerCause(io.warn))
    try:
        searched = recall.search(cfg, query, warn, args.limit, write=not args.check)
    except recall.EmptyQuery:
        io.error("the query has no words to search for; say what to look for")
        return EXIT_USAGE
    finally:
        warn.summary()
    try:
        if args.check:
            top = searched.hits[0].entry if searched.hits else None
            io.stdout.write(render.render_check(top.score if top else None, top.title if top else None))
            return EXIT_OK  # teamai exits 0 either way: the verdict is in the line
        hits = relations_view.attach(cfg, searched)
    finally:
        searched.close()
    run_id = None
    if not config.recording_disabled(io.env):
        run_id = recall.record(cfg, hits, args.caller, warn)
    io.stdout.write(render.render(query, hits, run_id))
    return EXIT_OK


def cmd_index(args: argparse.Namespace, io: Io) -> int:
    cfg = _load_config(args, io)
    if args.problems:
        from .recall import asset_rows
        from .team import tree

        found = []
        for scope in cfg.scopes:
            skipped: list[tree.Skipped] = []
            found += asset_rows.problems(tree.walk(scope.team, scope.learnings_roots, skipped), skipped)
        for problem in found:
            io.stdout.write(f"{problem}\n")
        if not found:
            io.stdout.write("every file of the team tree is indexed as written\n")
        return EXIT_OK
    warn = _Gathered(io)
    try:
        return _index(cfg, io, warn)
    finally:
        warn.summary()


def _index(cfg: Config, io: Io, warn: _Gathered) -> int:
    from .recall import asset_rows, index, index_build
    from .state.clock import now
    from .state.storage import lock_wait
    from .team import tree

    for scope in cfg.scopes:
        try:
            conn = index.open_index(scope, warn, lock_wait(io.env))
        except index.IndexUnwritable as exc:
            io.error(f"{exc}; set TEAMAI_HOME to a writable folder")
            return EXIT_INPUT
        try:
            skipped: list[tree.Skipped] = []
            changed = index_build.refresh(conn, scope, warn, now(io.env).timestamp(), force=True,  # every file
                                          skipped=skipped)
            for left in skipped:
                warn(asset_rows.left_out(left))
            total = conn.execute("SELECT count(*) FROM assets WHERE indexed = 1").fetchone()[0]
        except index.IndexUnwritable as exc:
            io.error(f"{exc}; set TEAMAI_HOME to a writable folder")
            return EXIT_INPUT
        finally:
            conn.close()
        io.stdout.write(f"{scope.name}: {total} assets indexed ({changed} changed) in {scope.index_path}\n")
    return EXIT_OK


_COMMANDS: dict[str, Callable[[argparse.Namespace, Io], int]] = {"recall": cmd_recall, "index": cmd_index}


def run(argv: Sequence[str], io: Io) -> int:
    """The whole command line, with explicit environment and streams."""
    if argv and argv[0] == "hook-dispatch":
        from .hook import dispatch

        return dispatch.main(list(argv[1:]), io.env, io.stdin, io.stderr, io.stdout)
    if argv and argv[0] == "capture":  # a hook too: never a usage exit, and "--" ends its own options
        from .capture import command as capture

        return capture.main(list(argv[1:]), io, build_parser)
    from .recall import index
    from .state.clock import ClockError
    from .state.ledger_read import YamlUnavailable
    from .state.storage import Busy
    from .team import config

    args = plain_recall(argv)
    if args is None:
        try:
            args = build_parser(next((a for a in argv if not a.startswith("-")), None), io.stdout).parse_args(list(argv))
        except _Usage as exc:  # already "<command>: error: ...", argparse's own form
            io.stderr.write(f"{exc}\n")
            return EXIT_USAGE
        except SystemExit:  # argparse ends --help so, its help written
            return EXIT_OK
    if args.version:
        from . import __version__

        io.stdout.write(f"teamai-ref {__version__}\n")
        return EXIT_OK
    if not args.command:
        build_parser().print_help(io.stdout)
        return EXIT_USAGE
    handler = _COMMANDS.get(args.command)
    if handler is None:
        module = next(m for n, m, _ in _EXTRA if n == args.command)
        handler = __import__(f"reference.{module}", fromlist=["run"]).run
    try:
        return handler(args, io)
    except config.ConfigError as exc:
        io.error(str(exc))
        return EXIT_INPUT
    except ClockError as exc:
        io.error(f"TEAMAI_NOW: {exc}")
        return EXIT_USAGE
    except Busy as exc:
        io.error(str(exc))
        return EXIT_BUSY
    except index.IndexBusy as exc:
        io.error(f"{exc}; try again")
        return EXIT_BUSY
    except YamlUnavailable as exc:
        io.error(f"{exc}; install PyYAML there")
        return EXIT_INPUT
    except (BrokenPipeError, OutputLost):
        raise
    except OSError as exc:  # the state folder (TEAMAI_HOME) cannot be used
        io.error(_os_problem(exc, io.env))
        return EXIT_INPUT


def _os_problem(exc: OSError, env: Mapping[str, str]) -> str:
    from .state.storage import Refused
    from .team.config import home_dir

    if isinstance(exc, Refused):  # a link (or a second name) planted in the state folder
        return f"{exc}; move it away and run the command again"
    where = exc.filename if isinstance(exc.filename, str) else ""
    text = f"{where}: {exc.strerror or exc}" if where else str(exc.strerror or exc)
    if not where and _cwd_gone():  # a relative path met a deleted working folder: not the state's fault
        return f"{text}: the current folder no longer exists; run from a folder that does, or give absolute paths"
    home = home_dir(env)
    if not where or where == home or where.startswith(home + os.sep):
        return f"{text}; the state folder {home} cannot be used: set TEAMAI_HOME to a writable folder"
    return text


def _cwd_gone() -> bool:
    try:
        os.getcwd()
    except OSError:
        return True
    return False


def main(argv: Sequence[str] | None = None) -> int:
    io = process_io(os.environ)
    try:
        code = run(sys.argv[1:] if argv is None else argv, io)
        io.stdout.flush()  # here, not at exit: a full disk is this command's error, said as one
        return code
    except BrokenPipeError:
        return EXIT_OK
    except OutputLost as exc:
        io.error(str(exc))
        return EXIT_INPUT
    except KeyboardInterrupt:
        return 130
