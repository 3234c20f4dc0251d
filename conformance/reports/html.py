"""The results page: one self-contained HTML file from one or more runs' reports.

The page opens on what a reader wants first: an area × implementation summary ("passing /
total", coloured by the share that passes, the areas with failures first), the three numbers
per implementation (spec conformance apart from the reference's decisions and its profile),
the not-applicable cases by what the driver lacked, and the failing clauses, each failing case
under the clause of its first difference from the reference. The summary, the totals and the
decisions register are written into the HTML itself; an inline script draws the clause and the
agents × events matrices and the case list from the data in the page, so they follow the
filters, and keeps the filters and an open case in the URL's hash (a permalink).

No network, no external file: the style and script ship beside this module
(``html.css``, ``html.js``) and are inlined. The data travels as two JSON blocks:
``report-data``, compact (every case's id, title, area, agents, clauses, hook events and per
implementation its outcome, marks and level verdicts), read when the page opens, and
``report-detail``, the drill-down (steps, mismatches and their diffs, observed state, the
explanation) of only the cases some implementation does not plainly pass, gzipped in base64 and
inflated the first time a case is opened. A case every implementation passes carries no detail: its dialog says so and
gives the command that reruns it. Long texts in the detail are cut (``LIMITS``), each cut said.
"""

from __future__ import annotations

import base64
import gzip
import html
import json
from collections.abc import Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from ..running import outcomes
from . import model as report_model
from .jsonl import Run

SHORT = {outcomes.NOT_APPLICABLE: "n/a"}
MARK_TEXT = {"partly": ("partly", "partly applicable: judged without the expectations the driver lacks a need of"),
             "vacuous": ("vacuous", "a pass an implementation doing nothing would also get")}
CLAUSES_SHOWN = 3
# What the drill-down keeps of one result: characters of a step's output, log lines at each end
# of the observed log, mismatches, and lines of one diff.
LIMITS = {"stdout": 2000, "log_ends": 12, "mismatches": 12, "diff": 60}
FAILING_CLAUSES_SHOWN = 6
DECISIONS_SHOWN = 4  # decisions named per column on the summary; the register lists them all


def write(path: Path, runs: Sequence[Run], clause_texts: Mapping[str, Mapping[str, str]] | None = None,
          facts: Mapping[str, Mapping[str, Any]] | None = None) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render(report_model.build(runs, clause_texts, facts)), encoding="utf-8", errors="backslashreplace")


def render(model: Mapping[str, Any]) -> str:
    columns = model["columns"]
    title = "Conformance results: " + " · ".join(c["label"] for c in columns)
    compact, detail = page_data(model)
    parts = [
        "<!doctype html>", '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_e(title)}</title><style>{_asset('html.css')}</style></head><body>",
        '<header class="top"><h1>Conformance results</h1>',
        f'<p class="sub">{len(model["cases"])} cases · {len(columns)} implementation'
        f'{"s" if len(columns) != 1 else ""} · {len(model["clause_rows"])} clause rows in '
        f'{len(model["areas"])} areas</p>',
        '<nav aria-label="Sections"><a href="#summary">Summary</a><a href="#totals">Totals</a>'
        '<a href="#decisions">Decisions</a><a href="#clauses">Clauses</a>'
        '<a href="#events">Agents × events</a><a href="#cases">Cases</a></nav></header>',
        "<main>", _summary(model), _totals(columns), _decisions(model), _filters(model),
        _clauses(model), _events(model), _cases(model), "</main>",
        '<dialog id="case-dialog" aria-labelledby="case-dialog-title"><div class="dlg-head">'
        '<h2 id="case-dialog-title"></h2><button type="button" class="close" data-close>Close (Esc)</button>'
        '</div><div id="case-dialog-body"></div></dialog>',
        f'<script type="application/json" id="report-data">{_json(compact)}</script>',
        f'<script type="application/octet-stream" id="report-detail" data-encoding="gzip+base64">'
        f'{pack(detail)}</script>',
        f"<script>{_asset('html.js')}</script>", "</body></html>",
    ]
    return "\n".join(parts) + "\n"


# -- the data in the page ---------------------------------------------------------------------
SPEC_CODE = {"pass": "p", "fail": "f", "none": "n"}
PROFILE_CODE = {"pass": "p", "fail": "f", "none": "n", "unchecked": "u"}


def page_data(model: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the compact data every view needs, the drill-down of the cases that carry one).

    A case is ``[id, title, area index, agents, clauses, hooks as [agent, event], results, detail?]``
    and a result (one per column, null when that run lacks the case) is a code: the outcome's index
    in ``outcomes``, the spec verdict and the profile verdict (``SPEC_CODE``, ``PROFILE_CODE``; ``-``
    when not judged), or ``[code, extras]`` with what is rarer (marks, lacking, decisions differed on,
    the blamed clause). The clause rows are worked out in the page from the cases' clauses."""
    columns = model["columns"]
    cited = {cid for c in model["cases"] for cid in c["clauses"]} | {d["id"] for d in model["decisions"]}
    clauses = {cid: {k: v for k, v in (info or {}).items() if k in ("text", "spec", "alternatives")}
               for cid, info in model["clauses"].items() if cid in cited}
    areas = list(model["areas"])
    severity = list(report_model.SEVERITY)
    cases = []
    detail: dict[str, Any] = {}
    for case in model["cases"]:
        results = [_code(case["results"][c["key"]], severity) if c["key"] in case["results"] else None
                   for c in columns]
        hooks = [list(h) for h in dict.fromkeys((h.get("agent", ""), h.get("event", ""))
                                                 for h in case.get("hooks") or [])]
        row: list[Any] = [case["id"], case["title"], areas.index(case["area"]), case.get("agents") or 0,
                          case.get("clauses") or 0, hooks or 0, results]
        if any(_carries_detail(r) for r in case["results"].values()):
            row.append(1)
            detail[case["id"]] = _detail(case, columns)
        cases.append(row)
    cols = [{k: c[k] for k in ("key", "label", "rerun")} for c in columns]
    return {"columns": cols, "clauses": clauses, "areas": areas, "outcomes": severity,
            "events": {"agents": model["events"]["agents"], "events": model["events"]["events"]},
            "cases": cases}, detail


def _code(result: Mapping[str, Any], severity: Sequence[str]) -> Any:
    """One result in the compact data (see :func:`page_data`)."""
    levels = result.get("levels") or {}
    code = (str(severity.index(result["outcome"])) if result["outcome"] in severity else "?") \
        + (SPEC_CODE.get(levels.get("spec", ""), "-") + PROFILE_CODE.get(levels.get("profile", ""), "-")
           if levels else "--")
    extras: dict[str, Any] = {}
    if result.get("partly"):
        extras.update(partly=1, lacking=result.get("lacking") or [], skipped=result.get("skipped") or [])
    if result.get("vacuous"):
        extras["vacuous"] = result["vacuous"]
    differ = sorted(d for d, v in (levels.get("decisions") or {}).items() if v == "differ")
    if differ:
        extras["differs"] = differ
    if result.get("outcome") == outcomes.NOT_APPLICABLE and result.get("lacking"):
        extras["lacking"] = result["lacking"]
    if result.get("blame"):
        extras["blame"] = result["blame"]["clause"]
    return [code, extras] if extras else code


def _carries_detail(result: Mapping[str, Any]) -> bool:
    return not _plain(result) or bool(result.get("mismatches"))


def _plain(result: Mapping[str, Any]) -> bool:
    """A pass with nothing to show: no decision differed on, the profile not failed."""
    levels = result.get("levels") or {}
    differs = any(v == "differ" for v in (levels.get("decisions") or {}).values())
    return result["outcome"] == outcomes.PASS and not differs and levels.get("profile") != "fail" \
        and not result.get("mismatches")


def _detail(case: Mapping[str, Any], columns: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """A case's drill-down: the scenario as written, and per column what it did. A column that
    plainly passed keeps only its steps' exit statuses (its output is the reference's to compare
    against only where another column differs, and its rerun shows it whole)."""
    out: dict[str, Any] = {k: case[k] for k in ("path", "provenance", "plan", "expect", "decide", "profile")
                           if case.get(k) is not None}
    results = {}
    for column in columns:
        r = case["results"].get(column["key"])
        if r is None:
            continue
        plain = _plain(r)
        mine: dict[str, Any] = {k: r[k] for k in ("message", "reason", "duration", "blame")
                                if r.get(k) not in (None, "")}
        if r.get("explanation"):
            mine["explanation"] = _explanation(r["explanation"])
        rerun = str(r.get("rerun") or "")
        if rerun and rerun != column["rerun"].replace("{id}", case["id"]):
            mine["rerun"] = rerun
        shown = r.get("mismatches") or []
        mine["mismatches"] = [_mismatch(m) for m in shown[:LIMITS["mismatches"]]]
        if len(shown) > LIMITS["mismatches"]:
            mine["mismatches_omitted"] = len(shown) - LIMITS["mismatches"]
        mine["steps"] = [_step(s, plain) for s in r.get("steps") or []]
        if r.get("state") and not plain:
            mine["state"] = _cut_diff(r["state"])
        if "observed" in r and not plain:
            mine["observed"] = _observed(r["observed"])
        results[column["key"]] = mine
    out["results"] = results
    return out


def _explanation(x: Mapping[str, Any]) -> dict[str, Any]:
    """The explanation as the page shows it: each differing decision in its words (the two log
    lines it was read from are in those words already)."""
    out = dict(x)
    first = x.get("first")
    if isinstance(first, Mapping):
        out["first"] = {**first, "decisions": [{k: v for k, v in d.items() if k not in ("reference", "implementation")}
                                               for d in first.get("decisions") or []]}
    return out


def _mismatch(m: Mapping[str, Any]) -> dict[str, Any]:
    out = {k: m[k] for k in ("path", "message", "level", "decision") if m.get(k) is not None}
    out["diff"] = _cut_diff(m.get("diff") or [])
    return out


def _cut_diff(lines: Sequence[Sequence[str]]) -> list[Any]:
    """A diff of at most ``LIMITS["diff"]`` lines, the unchanged ones far from a change left out first."""
    lines = list(lines)
    if len(lines) <= LIMITS["diff"]:
        return lines
    near = {i for i, line in enumerate(lines) if line[0] != " "}
    keep = {j for i in near for j in range(i - 3, i + 4)}
    out: list[Any] = []
    skipped = 0
    for i, line in enumerate(lines):
        if i in keep and len(out) < LIMITS["diff"]:
            if skipped:
                out.append([" ", f"… {skipped} unchanged lines"])
                skipped = 0
            out.append(line)
        else:
            skipped += 1
    if skipped:
        out.append([" ", f"… {skipped} more lines"])
    return out


def _step(step: Mapping[str, Any], plain: bool = False) -> dict[str, Any]:
    out = {k: step[k] for k in ("exit", "now") if step.get(k) is not None}
    for stream in () if plain else ("stdout", "stderr"):
        text = str(step.get(stream) or "")
        if len(text) > LIMITS["stdout"]:
            text = text[:LIMITS["stdout"]] + f"\n… {len(text) - LIMITS['stdout']} more characters (rerun the case)"
        if text:
            out[stream] = text
    return out


def _observed(observed: Any) -> Any:
    if not isinstance(observed, Mapping):
        return observed
    out = {k: v for k, v in observed.items() if v not in (None, [], {})}
    log = out.get("log")
    ends = LIMITS["log_ends"]
    if isinstance(log, list) and len(log) > 2 * ends:
        out["log"] = log[:ends] + log[-ends:]
        out["log_omitted"] = int(observed.get("log_omitted") or 0) + len(log) - 2 * ends
    return out


# -- what the HTML itself holds ---------------------------------------------------------------
def _share_style(passed: int, total: int) -> str:
    """A cell's colour by the share that passes: red at none, amber half way, green at all."""
    if not total:
        return ""
    hue = round(120 * passed / total) if passed < total else 130
    return f' style="background:hsl({hue} 62% {88 if passed < total else 86}%)"'


def _summary(model: Mapping[str, Any]) -> str:
    columns = model["columns"]
    head = "".join(f'<th scope="col" class="impl">{_e(c["label"])}</th>' for c in columns)
    rows = []
    for row in model["summary"]:
        tds = []
        for c in columns:
            cell = row["cells"][c["key"]]
            text = f'{cell["pass"]} / {cell["total"]}' if cell["total"] else "–"
            na = f' <span class="muted">· n/a {cell["na"]}</span>' if cell["na"] else ""
            tds.append(f'<td class="share" data-col="{c["key"]}" data-area="{_e(row["area"])}" '
                       f'data-pass="{cell["pass"]}" data-total="{cell["total"]}"{_share_style(cell["pass"], cell["total"])}>'
                       f'<button type="button" class="cellbtn" data-area="{_e(row["area"])}" data-col="{c["key"]}" '
                       f'data-failing="{int(cell["pass"] < cell["total"])}" title="show these cases">{text}</button>{na}</td>')
        rows.append(f'<tr data-area="{_e(row["area"])}"><th scope="row">{_e(row["area"])}</th>{"".join(tds)}</tr>')
    alls = []
    for c in columns:
        cells = [r["cells"][c["key"]] for r in model["summary"]]
        p, t = sum(x["pass"] for x in cells), sum(x["total"] for x in cells)
        alls.append(f'<td class="share" data-col="{c["key"]}" data-area=""{_share_style(p, t)}><b>{p} / {t}</b></td>')
    rows.append(f'<tr class="all"><th scope="row">all areas</th>{"".join(alls)}</tr>')
    return ('<section id="summary"><h2>Summary</h2><p class="hint">Cases passing of those judged (not n/a, not '
            'skipped), by area, areas with failures first; a click lists them.</p><div class="summary-grid">'
            f'<table class="summary"><thead><tr><th scope="col">area</th>{head}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table>{_levels(columns)}</div>{_failing(columns)}</section>')


def _levels(columns: Sequence[Mapping[str, Any]]) -> str:
    """The three numbers per implementation, spec conformance first and apart, and n/a by reason."""
    head = "".join(f'<th scope="col" class="impl">{_e(c["label"])}</th>' for c in columns)
    spec, dec, prof, na = [], [], [], []
    for c in columns:
        t = c["levels"]
        s = t["spec"]
        spec.append(f'<td class="spec" data-col="{c["key"]}" data-level="spec"{_share_style(s["pass"], s["total"])}>'
                    f'<b>{s["pass"]} / {s["total"]}</b> hold</td>')
        d = t["decisions"]
        most = sorted(d["by_decision"].items(), key=lambda kv: (-kv[1], kv[0]))
        by = ", ".join(f'<a href="#decision-{_e(k)}" class="dec">{_e(k)}</a> {v}' for k, v in most[:DECISIONS_SHOWN])
        if len(most) > DECISIONS_SHOWN:
            by += f', <a href="#decisions">{len(most) - DECISIONS_SHOWN} more</a>'

        dec.append(f'<td data-col="{c["key"]}" data-level="decisions">{d["agree"]} agree · {d["differ"]} differ'
                   + (f'<div class="small">differs on {by}</div>' if by else "") + "</td>")
        p = t["profile"]
        prof.append(f'<td data-col="{c["key"]}" data-level="profile">'
                    + (f'{p["pass"]} / {p["total"]} hold' if p else '<span class="muted">not checked (no profile '
                       'declared)</span>') + "</td>")
        total = sum(n for _need, n in c["na"])
        reasons = "; ".join(f"{_e(need)}: {n}" for need, n in c["na"])
        na.append(f'<td data-col="{c["key"]}" data-level="na">{total}'
                  + (f'<div class="small">{reasons}</div>' if reasons else "") + "</td>")
    return ('<table class="levels"><thead><tr><th scope="col">level</th>' + head + "</tr></thead><tbody>"
            '<tr class="spec-row"><th scope="row">spec <span class="muted">conformance to #884 and #1552'
            f'</span></th>{"".join(spec)}</tr>'
            '<tr><th scope="row">decisions <span class="muted">the reference\'s choices where the spec is silent'
            f'</span></th>{"".join(dec)}</tr>'
            f'<tr><th scope="row">profile <span class="muted">the reference\'s own formats</span></th>{"".join(prof)}</tr>'
            f'<tr><th scope="row">n/a <span class="muted">by what the driver lacked</span></th>{"".join(na)}</tr>'
            "</tbody></table>")


def _failing(columns: Sequence[Mapping[str, Any]]) -> str:
    parts = []
    for c in columns:
        groups = c.get("failing_clauses") or []
        if not groups:
            continue
        items = "".join(f'<li><code>{_e(g["clause"])}</code> {len(g["cases"])} case{"s" if len(g["cases"]) != 1 else ""}'
                        f' <span class="muted">{_e(g.get("seen", ""))}</span></li>'
                        for g in groups[:FAILING_CLAUSES_SHOWN])
        more = len(groups) - FAILING_CLAUSES_SHOWN
        items += f'<li class="muted">… and {more} more clauses</li>' if more > 0 else ""
        parts.append(f'<div class="failing" data-col="{c["key"]}"><h3>Failing clauses: {_e(c["label"])}</h3>'
                     f'<ol>{items}</ol></div>')
    if not parts:
        return ""
    return ('<p class="hint">Each failing case counts once, under the clause of its first difference from the '
            f'reference.</p><div class="failing-grid">{"".join(parts)}</div>')


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


def _decisions(model: Mapping[str, Any]) -> str:
    """The decisions register as far as these cases cite it: each decision, its alternatives, and
    per implementation how many cases agree and differ."""
    if not model["decisions"]:
        return ('<section id="decisions"><h2>Decisions</h2><p class="muted">No case in these reports cites a '
                'decision.</p></section>')
    columns = model["columns"]
    items = []
    for d in model["decisions"]:
        counts = " · ".join(
            f'<span data-col="{c["key"]}" class="{"differs" if d["counts"][c["key"]]["differ"] else ""}">'
            f'{_e(c["label"])}: {d["counts"][c["key"]]["agree"]} agree, {d["counts"][c["key"]]["differ"]} differ</span>'
            for c in columns)
        alts = "".join(f"<li>{_e(a)}</li>" for a in d["alternatives"]) or \
            '<li class="muted">(the register names no alternative)</li>'
        items.append(f'<details class="decision" id="decision-{_e(d["id"])}" data-decision="{_e(d["id"])}">'
                     f'<summary><code>{_e(d["id"])}</code> <span class="small">{counts}</span></summary>'
                     f'<p>{_e(d["text"])}</p><p class="muted">An implementation may instead:</p>'
                     f'<ul class="alternatives">{alts}</ul></details>')
    return ('<section id="decisions"><h2>Decisions <span class="muted">(where the spec is silent and the reference '
            'chose; differing is not failing)</span></h2>' + "".join(items) + "</section>")


def _select(name: str, label: str, options: Sequence[tuple[str, str]]) -> str:
    opts = "".join(f'<option value="{_e(v)}">{_e(t)}</option>' for v, t in options)
    return f'<label>{_e(label)} <select id="f-{name}" data-filter="{name}">{opts}</select></label>'


def _filters(model: Mapping[str, Any]) -> str:
    agents = sorted({a for c in model["cases"] for a in c["agents"]})
    events = sorted({e for c in model["cases"] for e in c["events"]})
    outcome_opts = [("", "any"), ("unexpected", "unexpected"), ("differs", "differs on a decision"),
                    ("profile-fail", "fails the profile")]
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


def _col_heads(model: Mapping[str, Any]) -> str:
    return "".join(f'<th scope="col" class="impl">{_e(c["label"])}</th>' for c in model["columns"])


def _clauses(model: Mapping[str, Any]) -> str:
    return ('<section id="clauses"><h2>Clauses × implementations</h2><p class="hint">A cell counts the cases '
            'of the area that name the clause and pass the filters. Enter (or a click) on a row lists its cases.</p>'
            '<table class="matrix clauses"><thead><tr><th scope="col">clause</th><th scope="col">text</th>'
            f'<th scope="col" class="num">cases</th>{_col_heads(model)}</tr></thead></table></section>')


def _events(model: Mapping[str, Any]) -> str:
    ev = model["events"]
    if not ev["cells"]:
        return '<section id="events"><h2>Agents × events</h2><p class="muted">No attribution case with hook ' \
               'steps in these reports.</p></section>'
    return ('<section id="events"><h2>Agents × events <span class="muted">(attribution cases)</span></h2>'
            '<p class="hint">A cell counts the attribution cases with a hook step of that agent and event that '
            'pass the filters; a click shows them in the case list.</p><div class="scroll">'
            '<table class="matrix events"></table></div></section>')


def _cases(model: Mapping[str, Any]) -> str:
    return ('<section id="cases"><h2>Cases</h2><p class="hint">Enter (or a click) on a row opens the case: '
            'its steps, expected against observed state, mismatches, the explanation and the command that reruns '
            'it. Failing cases first.</p><table class="matrix cases"><thead><tr><th scope="col">case</th>'
            '<th scope="col">area</th><th scope="col">agents</th><th scope="col">clauses</th>'
            f'{_col_heads(model)}</tr></thead><tbody></tbody></table>'
            '<p class="more" hidden><button type="button" id="more-cases"></button></p></section>')


def pack(value: Any) -> str:
    """JSON, gzipped (no timestamp, so the same page has the same bytes) and in base64: the
    drill-down is the page's bulk, and the browser inflates it (``DecompressionStream``)."""
    raw = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str).encode("utf-8")
    return base64.b64encode(gzip.compress(raw, compresslevel=9, mtime=0)).decode("ascii")


def unpack(page: str) -> Any:
    """The drill-down a page carries, as :func:`pack` wrote it (for tests and tools)."""
    start = page.index('id="report-detail"')
    body = page[page.index(">", start) + 1:page.index("</script>", start)]
    return json.loads(gzip.decompress(base64.b64decode(body)).decode("utf-8"))


def _asset(name: str) -> str:
    return resources.files("conformance.reports").joinpath(name).read_text(encoding="utf-8")


def _json(value: Any) -> str:
    """JSON that cannot end the script element it sits in."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)
