"""The text recall prints. This module is the only place that knows the format, so the hook
side can rely on it: the run id sits at the end of the start line, or of the no-hit line."""

from __future__ import annotations

from collections.abc import Sequence

TYPE_CHECKING = False  # typing is imported only by type checkers: it costs a fresh process ~4 ms
if TYPE_CHECKING:
    from .recall import Hit

START = "--- [teamai:recall:start] ---"
END = "--- [teamai:recall:end] ---"
FOOTER = "以上内容来自团队知识库，仅供参考。如需详细信息，请用 Read 工具读取对应文件。"


def _run_suffix(run_id: str | None) -> str:
    return f" run={run_id}" if run_id else ""


def render(query: str, hits: Sequence[Hit], run_id: str | None) -> str:
    if not hits:
        return f'No matching learnings found for "{query}".{_run_suffix(run_id)}\n'
    n = len(hits)
    out = [f"{START} ({n} result{'s' if n != 1 else ''}){_run_suffix(run_id)}", ""]
    for i, hit in enumerate(hits, 1):
        out.append(f"[{i}/{n}] [{hit.type_label}] {hit.title} [{hit.scope}]")
        out.append(f"Author: {hit.author or 'unknown'} | Date: {hit.date or 'unknown'} | Score: {hit.score:.1f}")
        if hit.tags:
            out.append("Tags: " + ", ".join(hit.tags))
        out.append(f"File: {hit.path}")
        out.extend(f"Related: {line}" for line in hit.related)
        if hit.snippet:
            out.append(f"Snippet: {hit.snippet}")
        out.append("")
    out.append(END)
    out.append("")
    out.append(FOOTER)
    return "\n".join(out) + "\n"


def render_check(found: int) -> str:
    return ("HIGH" if found else "LOW") + f" ({found} result{'s' if found != 1 else ''})\n"
