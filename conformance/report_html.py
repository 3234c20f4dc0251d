"""The results page: one self-contained HTML file from one or more runs' reports.

The numbers (totals, the clause and the agents x events matrices, the case list) are written
into the HTML itself, so the page reads without script; a small inline script adds the filters,
the drill-down of a case and the keyboard. No network, no external file: the page's style and
script ship beside this module (``report_html.css``, ``report_html.js``) and are inlined, and
the cases' details travel as one JSON block the script reads.
"""

from __future__ import annotations

import html
import json
from collections.abc import Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from . import outcomes, report_model
from .report_jsonl import Run

SHORT = {outcomes.NOT_APPLICABLE: "n/a"}
MARK_TEXT = {"partly": ("partly", "partly applicable: judged without the expectations the driver lacks a need of"),
             "vacuous": ("vacuous", "a pass an implementation doing nothing would also get")}
CLAUSES_SHOWN = 3


def write(path: Path, runs: Sequence[Run], clause_texts: Mapping[str, Mapping[str, str]] | None = None,
          facts: Mapping[str, Mapping[str, Any]] | None = None) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render(report_model.build(runs, clause_texts, facts)), encoding="utf-8", errors="backslashreplace")


def render(model: Mapping[str, Any]) -> str:
    columns = model["columns"]
    title = "Conformance results: " + " · ".join(c["label"] for c in columns)
    parts = [
        "<!doctype html>", '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_e(title)}</title><style>{_asset('report_html.css')}</style></head><body>",
        '<header class="top"><h1>Conformance results</h1>',
        f'<p class="sub">{len(model["cases"])} cases · {len(columns)} implementation'
        f'{"s" if len(columns) != 1 else ""} · {len(model["clause_rows"])} clause rows in '
        f'{len(model["areas"])} areas</p>',
        '<nav aria-label="Sections"><a href="#totals">Totals</a><a href="#clauses">Clauses</a>'
        '<a href="#events">Agents × events</a><a href="#cases">Cases</a></nav></header>',
        "<main>", _totals(columns), _filters(model), _clauses(model), _events(model), _cases(model), "</main>",
        '<dialog id="case-dialog" aria-labelledby="case-dialog-title"><div class="dlg-head">'
        '<h2 id="case-dialog-title"></h2><button type="button" class="close" data-close>Close (Esc)</button>'
        '</div><div id="case-dialog-body"></div></dialog>',
        f'<script type="application/json" id="report-data">{_json(model)}</script>',
        f"<script>{_asset('report_html.js')}</script>", "</body></html>",
    ]
    return "\n".join(parts) + "\n"


def _totals(columns: Sequence[Mapping[str, Any]]) -> str:
    head = "".join(f'<th scope="col" class="o-{o}">{_e(SHORT.get(o, o))}</th>' for o in report_model.SEVERITY[::-1])
    head += "".join(f'<th scope="col" class="mark" title="{_e(MARK_TEXT[m][1])}">{_e(MARK_TEXT[m][0])}</th>'
                    for m in report_model.MARKS)
    rows = []
    for c in columns:
        cells = "".join(f'<td class="num" data-col="{c["key"]}" data-outcome="{o}">{c["totals"].get(o, 0)}</td>'
                        for o in report_model.SEVERITY[::-1])
        cells += "".join(f'<td class="num mark" data-col="{c["key"]}" data-mark="{m}">{(c.get("marks") or {}).get(m, 0)}'
                         "</td>" for m in report_model.MARKS)
        state = "" if c["complete"] else ' <span class="warn">cut short: no footer</span>'
        rows.append(f'<tr data-col="{c["key"]}"><th scope="row">{_e(c["label"])}{state}</th>'
                    f'<td class="num" data-col="{c["key"]}" data-outcome="total">{c["cases"]}</td>{cells}</tr>')
    runs = "".join(
        f'<li><b>{_e(c["label"])}</b>: <code>--impl {_e(c["impl"] or "?")}</code>'
        + (f' with <code>{_e(c["expectations"])}</code>' if c["expectations"] else "")
        + f' · harness {_e(c["harness"] or "?")} · corpus {_e((c["commit"] or "?")[:12])}'
        + f' · {_e(c["started"] or "?")} → {_e(c["finished"] or "not finished")}'
        + (f' · exit {c["exit"]}' if c["exit"] is not None else "") + "</li>" for c in columns)
    return (f'<section id="totals"><h2>Totals</h2><table class="totals"><thead><tr><th scope="col">implementation'
            f'</th><th scope="col">cases</th>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>'
            f'<ul class="runs">{runs}</ul></section>')


def _select(name: str, label: str, options: Sequence[tuple[str, str]]) -> str:
    opts = "".join(f'<option value="{_e(v)}">{_e(t)}</option>' for v, t in options)
    return f'<label>{_e(label)} <select id="f-{name}" data-filter="{name}">{opts}</select></label>'


def _filters(model: Mapping[str, Any]) -> str:
    agents = sorted({a for c in model["cases"] for a in c["agents"]})
    events = sorted({e for c in model["cases"] for e in c["events"]})
    outcome_opts = [("", "any"), ("unexpected", "unexpected")]
    outcome_opts += [(o, SHORT.get(o, o)) for o in report_model.SEVERITY[::-1]]
    outcome_opts += [(m, MARK_TEXT[m][0] + " (mark)") for m in report_model.MARKS]
    parts = [
        _select("area", "Area", [("", "all"), *((a, a) for a in model["areas"])]),
        _select("outcome", "Outcome", outcome_opts),
    ]
    if len(model["columns"]) > 1:
        parts.append(_select("column", "in", [("", "any implementation"),
                                              *((c["key"], c["label"]) for c in model["columns"])]))
    parts += [
        _select("agent", "Agent", [("", "all"), *((a, a) for a in agents)]),
        _select("event", "Event", [("", "all"), *((e, e) for e in events)]),
        '<label class="grow">Search <input id="f-text" data-filter="text" type="search" '
        'placeholder="clause id or text, case id or title  ( / )" autocomplete="off"></label>',
        '<button type="button" id="f-reset">Reset</button>',
    ]
    return (f'<form class="filters" role="search" aria-label="Filters" onsubmit="return false">{"".join(parts)}'
            f'<output id="f-status" aria-live="polite">{len(model["cases"])} of {len(model["cases"])} cases'
            f'</output></form>')


def _chips(counts: Mapping[str, int]) -> str:
    if not counts:
        return '<span class="none">not run</span>'
    return " ".join(f'<span class="o o-{o}" data-outcome="{o}">{_e(SHORT.get(o, o))} <b>{counts[o]}</b></span>'
                    for o in report_model.SEVERITY[::-1] if counts.get(o))


def _cell(counts: Mapping[str, int], key: str) -> str:
    bad = report_model.worst(counts) or "none"
    return f'<td class="cell w-{bad}" data-col="{key}">{_chips(counts)}</td>'


def _col_heads(model: Mapping[str, Any]) -> str:
    return "".join(f'<th scope="col" class="impl">{_e(c["label"])}</th>' for c in model["columns"])


def _clauses(model: Mapping[str, Any]) -> str:
    texts = model["clauses"]
    ncols = 3 + len(model["columns"])
    body = []
    for area in model["areas"]:
        rows = [r for r in model["clause_rows"] if r["area"] == area]
        ncases = sum(1 for c in model["cases"] if c["area"] == area)
        body.append(f'<tbody data-area="{_e(area)}"><tr class="group"><th colspan="{ncols}" scope="rowgroup">'
                    f'{_e(area)} <span class="muted">{len(rows)} clauses · {ncases} cases</span></th></tr>')
        for r in rows:
            info = texts.get(r["clause"]) or {}
            text = info.get("text") or "(not in the catalogue)"
            cells = "".join(_cell(r["counts"][c["key"]], c["key"]) for c in model["columns"])
            body.append(f'<tr class="clause" tabindex="0" aria-expanded="false" data-area="{_e(area)}" '
                        f'data-clause="{_e(r["clause"])}"><th scope="row" class="cid">{_e(r["clause"])}</th>'
                        f'<td class="text">{_e(text)}</td><td class="num">{len(r["cases"])}</td>{cells}</tr>')
        body.append("</tbody>")
    return ('<section id="clauses"><h2>Clauses × implementations</h2><p class="hint">A cell counts the cases '
            'of the area that name the clause. Enter (or a click) on a row lists its cases.</p>'
            '<table class="matrix clauses"><thead><tr><th scope="col">clause</th><th scope="col">text</th>'
            f'<th scope="col" class="num">cases</th>{_col_heads(model)}</tr></thead>{"".join(body)}</table></section>')


def _events(model: Mapping[str, Any]) -> str:
    ev = model["events"]
    if not ev["cells"]:
        return '<section id="events"><h2>Agents × events</h2><p class="muted">No attribution case with hook ' \
               'steps in these reports.</p></section>'
    cells = {(c["agent"], c["event"]): c for c in ev["cells"]}
    cols = model["columns"]
    head = "".join(f'<th scope="col" colspan="{len(cols)}" class="ev">{_e(e)}</th>' for e in ev["events"])
    sub = "".join(f'<th scope="col" class="impl">{_e(c["label"])}</th>' for _ in ev["events"] for c in cols)
    rows = []
    for agent in ev["agents"]:
        tds = []
        for event in ev["events"]:
            cell = cells.get((agent, event))
            for c in cols:
                if cell is None:
                    tds.append('<td class="cell empty"></td>')
                    continue
                counts = cell["counts"][c["key"]]
                bad = report_model.worst(counts) or "none"
                tds.append(f'<td class="cell w-{bad}" data-col="{c["key"]}"><button type="button" class="evbtn" '
                           f'data-agent="{_e(agent)}" data-event="{_e(event)}" title="show these '
                           f'{len(cell["cases"])} cases">{_chips(counts)}</button></td>')
        rows.append(f'<tr data-agent="{_e(agent)}"><th scope="row">{_e(agent)}</th>{"".join(tds)}</tr>')
    return ('<section id="events"><h2>Agents × events <span class="muted">(attribution cases)</span></h2>'
            '<p class="hint">A cell counts the attribution cases with a hook step of that agent and event; '
            'a click shows them in the case list.</p><div class="scroll"><table class="matrix events"><thead>'
            f'<tr><th scope="col" rowspan="2">agent</th>{head}</tr><tr>{sub}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table></div></section>')


def _cases(model: Mapping[str, Any]) -> str:
    rows = []
    for case in model["cases"]:
        shown = case["clauses"][:CLAUSES_SHOWN]
        more = len(case["clauses"]) - len(shown)
        clauses = _e(", ".join(shown)) + (f' <span class="muted">+{more}</span>' if more > 0 else "")
        cells = []
        for c in model["columns"]:
            result = case["results"].get(c["key"])
            if result is None:
                cells.append(f'<td class="cell" data-col="{c["key"]}"><span class="none">not run</span></td>')
            else:
                o = result["outcome"]
                cells.append(f'<td class="cell w-{_e(o)}" data-col="{c["key"]}" data-outcome="{_e(o)}">'
                             f'<span class="o o-{_e(o)}">{_e(SHORT.get(o, o))}</span>{_marks(result)}</td>')
        rows.append(f'<tr class="case" tabindex="0" data-case="{_e(case["id"])}" aria-haspopup="dialog">'
                    f'<th scope="row"><span class="cid">{_e(case["id"])}</span><span class="title">'
                    f'{_e(case["title"])}</span></th><td>{_e(case["area"])}</td>'
                    f'<td>{_e(", ".join(case["agents"]) or "–")}</td><td class="cl">{clauses}</td>{"".join(cells)}</tr>')
    return ('<section id="cases"><h2>Cases</h2><p class="hint">Enter (or a click) on a row opens the case: '
            'its steps, expected against observed state, mismatches, provenance and the command that reruns it.'
            '</p><table class="matrix cases"><thead><tr><th scope="col">case</th><th scope="col">area</th>'
            f'<th scope="col">agents</th><th scope="col">clauses</th>{_col_heads(model)}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table></section>')


def _marks(result: Mapping[str, Any]) -> str:
    """The marks of one cell: ``partly`` (with what was left out) and ``vacuous`` (with why)."""
    out = []
    if result.get("partly"):
        tip = f"partly applicable, without {', '.join(result.get('lacking') or [])}: " \
              + ", ".join(result.get("skipped") or [])
        out.append(f'<span class="mark m-partly" data-mark="partly" title="{_e(tip)}">partly</span>')
    if result.get("vacuous"):
        out.append(f'<span class="mark m-vacuous" data-mark="vacuous" title="{_e(result["vacuous"])}">vacuous</span>')
    return "".join(out)


def _asset(name: str) -> str:
    return resources.files("conformance").joinpath(name).read_text(encoding="utf-8")


def _json(value: Any) -> str:
    """JSON that cannot end the script element it sits in."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)
