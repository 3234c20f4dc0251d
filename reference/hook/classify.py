"""One tool call in, the recall-log lines it justifies out, with the decisions said in words.

Lines (every field in ``state/runlog.py``), each carrying the session, the agent and the actor so the reducer
can tell the recall subagent's reads from everyone else's:

- ``claim``: a shell call that invoked recall printed this run id (``claims.py``);
- ``evidence``: a read of a ``.md`` file under the knowledge roots, by a read tool, a shell reader
  or a search that showed text from it (``categories.py``, ``shell.py``, ``search.py``, which reads
  the doc to compare, ``../pathmatch.py``);
- ``link``: the call started a child session (OpenCode's ``task``).

Status: a failed call gives no claim and no evidence. When the status is unknown (Codex's shell
output says nothing about the exit code) only a simple read counts: a search or a pipeline whose
failure we cannot see may have printed an error that merely mentions the path. A claim with an
unknown status still counts, because a run id only appears if recall ran. A status is unknown
where the payload cannot tell a failed call from a good one (Codex's plain-string shell output; a
bridge that says so); hosts that copy Claude's protocol fire PostToolUse only after a call that
worked. An evidence line's ``via`` is ``read`` for a read tool, ``shell`` for any shell call (a
reader or a search verb) and ``search`` for a search tool.

Nothing of the command line, the output or the file content is copied into a line.
"""

from __future__ import annotations

from .. import pathmatch
from . import categories, claims, search, shell, shell_syntax
from .toolcall import FAILURE, UNKNOWN, ToolCall

TYPE_CHECKING = False  # typing is imported only by type checkers: it costs a fresh process ~4 ms
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, NamedTuple
else:
    from .._tuples import NamedTuple


class Outcome(NamedTuple):
    records: list[dict[str, Any]]
    notes: list[str]  # every decision, in words (for replay and the debug log)


def classify(call: ToolCall, roots: tuple[str, ...], ts: str, home: str | None = None) -> Outcome:
    """``home``: the folder ``~`` names for this agent (its HOME); None: this process's."""
    records: list[dict[str, Any]] = []
    notes: list[str] = []
    if call.link is not None:
        child, parent = call.link
        records.append({"kind": "link", "ts": ts, "child": child, "parent": parent, "agent": call.agent})
        notes.append(f"link: session {child} is a child of {parent}")
    if call.status == FAILURE:
        notes.append("the call failed: it gives no claim and no evidence")
        return Outcome(records, notes)
    if not call.session:
        notes.append("the payload names no session: no claim or evidence can be attributed")
        return Outcome(records, notes)
    actor = dict(call.actor)
    seen: set[tuple[str, bool]] = set()

    def evidence(raw: str, base: str | None, via: str, simple: bool, why: str) -> None:
        found = pathmatch.evidence_path(raw, base, roots, home)
        if found is None:
            if not pathmatch.is_markdown(raw.strip()):
                notes.append(f"{raw!r}: not a .md file, so not a knowledge doc")
            else:
                notes.append(f"{raw!r}: not under the knowledge roots")
            return
        path, exact = found
        if (path, exact) in seen:
            return
        seen.add((path, exact))
        records.append({"kind": "evidence", "ts": ts, "session": call.session, "agent": call.agent,
                        "actor": actor, "path": path, "exact": exact, "via": via, "simple": simple,
                        "status": call.status})
        how = "resolved exactly" if exact else "no base folder known, kept as given for the suffix match"
        notes.append(f"evidence: {path} ({how}); {why}")

    def locate(base: str | None) -> Callable[[str], str | None]:
        """Where the file a search line names can be read: an exact path under the roots, else None."""
        def at(raw: str) -> str | None:
            found = pathmatch.evidence_path(raw, base, roots, home)
            return found[0] if found is not None and found[1] else None
        return at

    def searched(output: str, paths: tuple[str, ...], mode: str, base: str | None, via: str) -> None:
        hits = search.shown(output, paths, mode, locate(base))
        if not hits and mode == "content" and output.strip():
            notes.append("the search output shows no text from a doc (a message, names or other files)")
        for raw, why in hits:
            evidence(raw, base, via, False, why)

    cat = call.category
    if cat is None:
        if categories.known(call.tool):
            notes.append(f"tool {call.tool!r} never shows a doc's text (it edits, delegates, fetches or is an "
                         "MCP tool): it never counts")
        else:
            notes.append(f"tool {call.tool!r} has no category: it never counts")
        return Outcome(records, notes)
    notes.append(f"tool {call.tool!r} is in the {cat} category")
    if not categories.adapted(call.agent, cat):
        notes.append(f"{call.agent}'s {cat} tool output has no adapter yet: it does not count")
        return Outcome(records, notes)

    if cat == categories.READ:
        if not call.paths:
            notes.append("the read names no file")
        for raw in call.paths:
            evidence(raw, call.base, "read", True, "a read tool opened it")
    elif cat == categories.SHELL:
        command = call.command or ""
        windows = pathmatch.windows_host(call.base, roots)
        dialect = shell.dialect(call.agent, call.tool, windows)
        ids = claims.run_ids(call.output)
        if claims.invokes_recall(command, dialect):
            notes.append("the command invokes teamai recall" + ("" if ids else ", but no run id was printed"))
            for rid in ids:
                records.append({"kind": "claim", "ts": ts, "run": rid, "session": call.session,
                                "agent": call.agent, "actor": actor})
                notes.append(f"claim: run {rid}")
        elif ids:
            notes.append(f"the output shows run ids ({', '.join(ids)}) but the command does not invoke "
                         "teamai recall itself: no claim")
        else:
            notes.append("the command does not invoke teamai recall")
        action = shell.analyze(command, dialect)
        notes.append(f"shell: {action.reason}"
                     + (" (read as PowerShell)" if dialect == shell_syntax.POWERSHELL else ""))
        base = call.base
        if action.chdir is not None:
            base = pathmatch.resolve(action.chdir, base, pathmatch.windows_roots(roots), home)
        if action.kind == shell.READ:
            if call.status == UNKNOWN and not action.simple:
                notes.append("the status is unknown: only a simple read counts, not a pipeline")
            else:
                for word in action.operands:
                    if not word.literal:
                        notes.append(f"{word.text!r}: the shell expands it, so which file it names is unknown")
                        continue
                    # A ``~`` the shell did not expand (it was quoted) is a folder named ``~``.
                    raw = word.text if word.home or not word.text.startswith("~") else "./" + word.text
                    evidence(raw, base, "shell", action.simple, f"{action.verb} showed it")
        elif action.kind == shell.SEARCH:
            if call.status == UNKNOWN:
                notes.append("the status is unknown: a search does not count")
            else:
                searched(call.output, tuple(w.text for w in action.operands), action.mode, base, "shell")
    elif cat == categories.SEARCH:
        if call.count_mode:
            notes.append("the search ran in count mode: it shows no content")
        elif call.status == UNKNOWN:
            notes.append("the status is unknown: a search does not count")
        else:
            if call.filenames:
                notes.append(f"{len(call.filenames)} structured file names: a listing, never evidence")
            searched(call.output, call.paths, "content", call.base, "search")
    else:
        notes.append("a listing tool only shows names: it never counts")
    return Outcome(records, notes)
