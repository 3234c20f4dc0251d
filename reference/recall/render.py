"""The text recall prints. This module is the only place that knows the format, so the hook
side can rely on it: the run id sits at the end of the start line, or of the no-hit line.

Whatever recall prints from outside (the query on the no-hit line; a hit's title, author, date,
tags, file path, related paths and snippet, all written by whoever wrote the team's files) must
never be able to print a line of its own: a line spelling another session's start line would let
whoever ran this recall claim that session's run. So every such text goes through
:func:`one_line`, the one place that escapes: every character that is a control, a format
character or a line or paragraph separator is written the way Python and JSON spell it (``\\n``,
``\\r``, ``\\t``, ``\\xNN``, ``\\uNNNN``); printable text, wide spaces included, stays as written.
The query is echoed in double quotes, so there a double quote and a backslash are escaped too
(``\\"``, ``\\\\``), and at most :data:`MAX_QUERY_ECHO` characters of it are echoed, then ``…``.
``hook/claims.py`` accepts a run id only on a whole line in exactly the start line's or the
no-hit line's form.
"""

from __future__ import annotations

from collections.abc import Sequence

TYPE_CHECKING = False  # typing is imported only by type checkers: it costs a fresh process ~4 ms
if TYPE_CHECKING:
    from .run import Hit

START = "--- [teamai:recall:start] ---"
END = "--- [teamai:recall:end] ---"
FOOTER = "以上内容来自团队知识库，仅供参考。如需详细信息，请用 Read 工具读取对应文件。"


# The query echoed on the no-hit line is cut after this many characters (before escaping), so a
# pasted document does not flood the agent's context a second time.
MAX_QUERY_ECHO = 200

_SHORT = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
_QUOTED = {'"': '\\"', "\\": "\\\\"}


def _escape(ch: str, quoted: bool) -> str:
    if quoted and ch in _QUOTED:
        return _QUOTED[ch]
    if ch in _SHORT:
        return _SHORT[ch]
    code = ord(ch)
    # Printable text stays, and so do the wide spaces (U+00A0, U+3000, ...); the controls (C0, DEL,
    # C1, which hold every line break str.splitlines knows) and the line and paragraph separators
    # are escaped.
    if ch.isprintable() or (code > 0x9F and ch.isspace() and code not in (0x2028, 0x2029)):
        return ch
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def one_line(text: str, quoted: bool = False) -> str:
    """``text`` as recall prints it: on one line, its controls and separators escaped; with
    ``quoted`` (it stands between double quotes) its quotes and backslashes too."""
    if text.isprintable() and not (quoted and ('"' in text or "\\" in text)):
        return text
    return "".join(_escape(ch, quoted) for ch in text)


def echo_query(query: str) -> str:
    """The query as the no-hit line shows it: one line, escaped, at most MAX_QUERY_ECHO characters."""
    return one_line(query[:MAX_QUERY_ECHO], quoted=True) + ("…" if len(query) > MAX_QUERY_ECHO else "")


def _run_suffix(run_id: str | None) -> str:
    return f" run={run_id}" if run_id else ""


def render(query: str, hits: Sequence[Hit], run_id: str | None) -> str:
    if not hits:
        return f'No matching learnings found for "{echo_query(query)}".{_run_suffix(run_id)}\n'
    n = len(hits)
    out = [f"{START} ({n} result{'s' if n != 1 else ''}){_run_suffix(run_id)}", ""]
    for i, hit in enumerate(hits, 1):
        out.append(f"[{i}/{n}] [{hit.type_label}] {one_line(hit.title)} [{hit.scope}]")
        out.append(f"Author: {one_line(hit.author or 'unknown')} | Date: {one_line(hit.date or 'unknown')}"
                   f" | Score: {hit.score:.1f}")
        if hit.tags:
            out.append("Tags: " + ", ".join(one_line(tag) for tag in hit.tags))
        out.append(f"File: {one_line(hit.path)}")
        out.extend(f"Related: {one_line(line)}" for line in hit.related)
        if hit.snippet:
            out.append(f"Snippet: {one_line(hit.snippet)}")
        out.append("")
    out.append(END)
    out.append("")
    out.append(FOOTER)
    return "\n".join(out) + "\n"


CHECK_THRESHOLD = 0.0  # a hit's score is above it: whatever recall would print is relevant


def render_check(top_score: float | None, top_title: str | None) -> str:
    """``recall --check`` as teamai prints it, since the recall subagent's shortcut parses it:
    ``RELEVANT score=<s> threshold=<t> title="<title>"`` for the top hit, else
    ``NOT_RELEVANT score=0.0 threshold=<t>``. The reference's verdict is whether recall would print
    a hit (its ranking has no cut-off), so its threshold is 0.0."""
    if top_score is None:
        return f"NOT_RELEVANT score=0.0 threshold={CHECK_THRESHOLD:.1f}\n"
    return (f"RELEVANT score={round(top_score, 1):.1f} threshold={CHECK_THRESHOLD:.1f}"
            f' title="{one_line(top_title or "")}"\n')
