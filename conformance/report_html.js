// The results page's behaviour: filters, a case's drill-down and the keyboard. It reads the
// report data from the JSON block and never fetches anything.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("report-data").textContent);
  var cols = data.columns;
  var byId = new Map(data.cases.map(function (c) { return [c.id, c]; }));
  var SHORT = { "not-applicable": "n/a" };
  var UNEXPECTED = new Set(["fail", "error", "crash", "timeout", "xpass"]);
  var MARKS = new Set(["partly", "vacuous"]);
  var ACTIONS = ["recall", "hook", "pull", "stats", "review", "contribute", "hold", "release"];
  var $ = function (sel, root) { return (root || document).querySelector(sel); };
  var $$ = function (sel, root) { return Array.prototype.slice.call((root || document).querySelectorAll(sel)); };
  var f = { area: $("#f-area"), outcome: $("#f-outcome"), column: $("#f-column"), agent: $("#f-agent"),
            event: $("#f-event"), text: $("#f-text") };

  function clauseText(id) { var c = data.clauses[id]; return c && c.text ? c.text : ""; }
  function lower(parts) { return parts.join("\n").toLowerCase(); }
  var caseHay = new Map(data.cases.map(function (c) {
    return [c.id, lower([c.id, c.title].concat(c.clauses, c.clauses.map(clauseText)))];
  }));
  var ownHay = new Map(data.cases.map(function (c) { return [c.id, lower([c.id, c.title])]; }));

  function state() {
    return { area: f.area.value, outcome: f.outcome.value, column: f.column ? f.column.value : "",
             agent: f.agent.value, event: f.event.value, text: f.text.value.trim().toLowerCase() };
  }
  function outcomeOk(c, s) {
    if (!s.outcome) return true;
    var keys = s.column ? [s.column] : cols.map(function (x) { return x.key; });
    return keys.some(function (k) {
      var r = c.results[k];
      if (!r) return false;
      if (MARKS.has(s.outcome)) return !!r[s.outcome];
      return s.outcome === "unexpected" ? UNEXPECTED.has(r.outcome) : r.outcome === s.outcome;
    });
  }
  // Everything but the text: the area, the outcome, and the agent and event of a hook step.
  function passes(c, s) {
    if (s.area && c.area !== s.area) return false;
    var hooks = c.hooks || [];
    if (s.agent && c.agents.indexOf(s.agent) < 0 && !hooks.some(function (h) { return h.agent === s.agent; })) return false;
    if (s.event && !hooks.some(function (h) { return h.event === s.event && (!s.agent || h.agent === s.agent); })) return false;
    return outcomeOk(c, s);
  }

  function apply() {
    var s = state();
    closeExpansions();
    var shown = 0;
    $$("tr.case[data-case]", $("#cases")).forEach(function (row) {
      var c = byId.get(row.dataset.case);
      var ok = passes(c, s) && (!s.text || caseHay.get(c.id).indexOf(s.text) >= 0);
      row.hidden = !ok;
      if (ok) shown += 1;
    });
    var rowsShown = 0, rowsAll = 0;
    data.clause_rows.forEach(function (r, i) {
      var tr = clauseRows[i];
      var textHit = !s.text || lower([r.clause, clauseText(r.clause)]).indexOf(s.text) >= 0;
      var ok = r.cases.some(function (id) {
        var c = byId.get(id);
        return passes(c, s) && (textHit || ownHay.get(id).indexOf(s.text) >= 0);
      });
      tr.hidden = !ok;
      rowsAll += 1;
      if (ok) rowsShown += 1;
    });
    $$("#clauses tbody[data-area]").forEach(function (body) {
      body.hidden = !$$("tr.clause", body).some(function (tr) { return !tr.hidden; });
    });
    $$("#events tbody tr[data-agent]").forEach(function (tr) { tr.hidden = !!s.agent && tr.dataset.agent !== s.agent; });
    $("#f-status").textContent = shown + " of " + data.cases.length + " cases · " + rowsShown + " of " + rowsAll +
      " clause rows";
  }
  var clauseRows = $$("#clauses tr.clause");

  // --- elements -------------------------------------------------------------------------
  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === "text") node.textContent = attrs[k];
      else if (k === "cls") node.className = attrs[k];
      else node.setAttribute(k, attrs[k]);
    });
    (children || []).forEach(function (ch) { if (ch != null) node.appendChild(typeof ch === "string" ? document.createTextNode(ch) : ch); });
    return node;
  }
  function chip(outcome) { return el("span", { cls: "o o-" + outcome, text: SHORT[outcome] || outcome }); }
  function marked(r) {
    var out = el("span", {}, [chip(r.outcome)]);
    MARKS.forEach(function (m) { if (r[m]) out.appendChild(el("span", { cls: "mark m-" + m, "data-mark": m, text: m })); });
    return out;
  }
  function json(value) { return JSON.stringify(value, null, 2); }
  function pre(text, cls) { return el("pre", cls ? { cls: cls, text: text } : { text: text }); }
  function diff(lines) {
    var p = el("pre", { cls: "diff" });
    lines.forEach(function (l) {
      p.appendChild(el("span", { cls: l[0] === "-" ? "d-del" : l[0] === "+" ? "d-add" : "d-eq", text: l[0] + " " + l[1] }));
    });
    return p;
  }
  function details(summary, body, open) {
    var d = el("details", {}, [el("summary", { text: summary }), body]);
    if (open) d.open = true;
    return d;
  }

  // --- a clause row's cases -------------------------------------------------------------
  function closeExpansions() {
    $$("tr.expand").forEach(function (tr) { tr.remove(); });
    clauseRows.forEach(function (tr) { tr.setAttribute("aria-expanded", "false"); });
  }
  function toggleClause(tr) {
    if (tr.getAttribute("aria-expanded") === "true") {
      var next = tr.nextElementSibling;
      if (next && next.classList.contains("expand")) next.remove();
      tr.setAttribute("aria-expanded", "false");
      return;
    }
    var row = data.clause_rows[clauseRows.indexOf(tr)];
    var s = state();
    var body = el("tbody");
    row.cases.forEach(function (id) {
      var c = byId.get(id);
      if (!passes(c, s)) return;
      var cells = cols.map(function (col) {
        var r = c.results[col.key];
        return el("td", { cls: "cell" }, [r ? marked(r) : el("span", { cls: "none", text: "not run" })]);
      });
      body.appendChild(el("tr", { cls: "case", tabindex: "0", "data-case": id, "aria-haspopup": "dialog" },
        [el("th", { scope: "row" }, [el("span", { cls: "cid", text: id }), el("span", { cls: "title", text: c.title })])].concat(cells)));
    });
    var inner = el("table", { cls: "matrix" }, [body]);
    var td = el("td", { colspan: String(tr.children.length) }, [
      el("p", { cls: "hint", text: row.clause + ": " + (clauseText(row.clause) || "(not in the catalogue)") }), inner]);
    tr.after(el("tr", { cls: "expand" }, [td]));
    tr.setAttribute("aria-expanded", "true");
  }

  // --- a case's drill-down --------------------------------------------------------------
  var dialog = $("#case-dialog");
  var opener = null;
  function stepSummary(step) {
    var action = ACTIONS.filter(function (a) { return a in step; })[0] || "?";
    var value = step[action];
    var rest = {};
    Object.keys(step).forEach(function (k) { if (k !== action) rest[k] = step[k]; });
    var head = action + (value == null || (typeof value === "object" && !Object.keys(value).length) ? "" :
      " " + (typeof value === "string" ? value : JSON.stringify(value)));
    return Object.keys(rest).length ? head + "\n  " + JSON.stringify(rest) : head;
  }
  function stepsTable(c) {
    var plan = c.plan || [];
    var ran = cols.filter(function (col) { return c.results[col.key]; });
    var n = Math.max(plan.length, Math.max.apply(null, [0].concat(ran.map(function (col) { return c.results[col.key].steps.length; }))));
    if (!n) return el("p", { cls: "muted", text: "No step was run or recorded." });
    var head = el("tr", {}, [el("th", { text: "#" }), el("th", { text: "step as written" })].concat(
      ran.map(function (col) { return el("th", { text: col.label }); })));
    var body = el("tbody");
    for (var i = 0; i < n; i++) {
      var cells = ran.map(function (col) {
        var s = c.results[col.key].steps[i];
        if (!s) return el("td", { cls: "muted", text: "–" });
        var parts = [el("div", { text: "exit " + (s.exit == null ? "–" : s.exit) + " · " + (s.now || "") })];
        if (s.stdout) parts.push(details("stdout (" + s.stdout.split("\n").length + " lines)", pre(s.stdout)));
        if (s.stderr) parts.push(details("stderr", pre(s.stderr)));
        return el("td", {}, parts);
      });
      body.appendChild(el("tr", {}, [el("td", { text: String(i + 1) }),
        el("td", { cls: "plan" }, [el("code", { text: plan[i] ? stepSummary(plan[i]) : "(not in this report)" })])].concat(cells)));
    }
    return el("table", { cls: "steps" }, [el("thead", {}, [head]), body]);
  }
  function resultSection(col, r, c) {
    var parts = [el("h3", {}, [col.label + " ", marked(r)])];
    if (r.duration != null) parts.push(el("div", { cls: "muted", text: "took " + r.duration + " s" }));
    if (r.reason) parts.push(el("p", {}, [el("b", { text: "expected to fail: " }), r.reason]));
    if (r.partly) parts.push(el("p", { cls: "partly" }, [el("b", { text: "partly applicable: " }),
      "without " + (r.lacking || []).join(", ") + ", these were left out: " + (r.skipped || []).join(", ")]));
    if (r.vacuous) parts.push(el("p", { cls: "vacuous" }, [el("b", { text: "vacuous pass: " }), r.vacuous]));
    if (r.message && !(r.mismatches && r.mismatches.length)) parts.push(pre(r.message));
    if (r.state) { parts.push(el("h4", { text: "expected − / observed + state" })); parts.push(diff(r.state)); }
    if (r.mismatches && r.mismatches.length) {
      parts.push(el("h4", { text: r.mismatches.length + " mismatch" + (r.mismatches.length > 1 ? "es" : "") }));
      var ul = el("ul", { cls: "mm" });
      r.mismatches.forEach(function (m) {
        ul.appendChild(el("li", {}, [el("code", { text: m.path }), ": " + m.message, diff(m.diff || [])]));
      });
      parts.push(ul);
    }
    if (r.explanation) parts.push(explanation(r.explanation));
    if (r.rerun) {
      var code = el("code", { text: r.rerun });
      var btn = el("button", { type: "button", text: "Copy" });
      btn.addEventListener("click", function () {
        var done = function () { btn.textContent = "Copied"; };
        if (navigator.clipboard) navigator.clipboard.writeText(r.rerun).then(done, function () { select(code); });
        else select(code);
      });
      parts.push(el("h4", { text: "rerun" }), el("div", { cls: "rerun" }, [code, btn]));
    }
    if (r.observed) parts.push(details("observed state (votes, log, stats)", pre(json(r.observed))));
    else parts.push(el("p", { cls: "muted", text: "This report does not hold the observed state." }));
    return el("section", { "data-col": col.key }, parts);
  }
  // Why a failed case parted from the reference (explain.py): the first differing step, its
  // decisions with the reference's reasons, and the chain behind each vote that came out wrong.
  function explanation(x) {
    var box = el("div", { cls: "why" }, [el("h4", { text: "why" }), el("p", { cls: "why-summary", text: x.summary || x.problem || "" })]);
    if (x.problem && x.summary !== x.problem) box.appendChild(el("p", { cls: "muted", text: x.problem }));
    if (x.first) {
      var ul = el("ul", { cls: "mm" });
      (x.first.decisions || []).forEach(function (d) {
        ul.appendChild(el("li", {}, [el("b", { text: d.decision }), pre((d.words || []).join("\n"))]));
      });
      box.appendChild(ul);
      if (x.first.notes && x.first.notes.length) {
        box.appendChild(details("the reference's reasons at step " + (x.first.index + 1) + " (teamai-ref replay)",
          pre(x.first.notes.join("\n")), true));
      }
    }
    if (x.log_compared === false) box.appendChild(el("p", { cls: "muted", text: "The implementation keeps no recall log: only votes were compared." }));
    (x.chains || []).forEach(function (c) {
      box.appendChild(details("behind " + c.path, pre((c.lines || []).join("\n"), "chain"), true));
    });
    return box;
  }
  function select(node) {
    var range = document.createRange();
    range.selectNodeContents(node);
    var sel = window.getSelection();
    sel.removeAllRanges();
    sel.addRange(range);
  }
  function openCase(id, from) {
    var c = byId.get(id);
    if (!c) return;
    opener = from || document.activeElement;
    $("#case-dialog-title").textContent = c.id + " — " + c.title;
    var body = $("#case-dialog-body");
    body.textContent = "";
    var meta = el("dl", { cls: "meta" });
    [["area", c.area], ["agents", c.agents.join(", ") || "–"], ["scenario", c.path || "(not in this report)"],
     ["provenance", c.provenance || "(not in this report)"],
     ["hook steps", (c.hooks || []).map(function (h) { return h.payload + " (" + h.event + ")"; }).join(", ") || "–"]]
      .forEach(function (kv) { meta.appendChild(el("dt", { text: kv[0] })); meta.appendChild(el("dd", { text: kv[1] })); });
    body.appendChild(meta);
    var cl = el("ul", { cls: "mm" });
    c.clauses.forEach(function (id) {
      cl.appendChild(el("li", {}, [el("code", { text: id }), " " + (clauseText(id) || "(not in the catalogue)")]));
    });
    body.appendChild(el("h3", { text: "Clauses" }));
    body.appendChild(cl);
    body.appendChild(el("h3", { text: "Outcome, expected against observed" }));
    var side = el("div", { cls: "side" });
    cols.forEach(function (col) { if (c.results[col.key]) side.appendChild(resultSection(col, c.results[col.key], c)); });
    body.appendChild(side);
    body.appendChild(el("h3", { text: "Steps" }));
    body.appendChild(el("div", { cls: "scroll" }, [stepsTable(c)]));
    if (c.expect) body.appendChild(details("expect block as written", pre(json(c.expect))));
    if (!dialog.open) dialog.showModal();
    $("[data-close]", dialog).focus();
  }
  dialog.addEventListener("close", function () {
    if (opener && document.contains(opener)) opener.focus();
  });
  $("[data-close]", dialog).addEventListener("click", function () { dialog.close(); });

  // --- wiring ---------------------------------------------------------------------------
  function activate(target) {
    var caseRow = target.closest("tr.case");
    if (caseRow) { openCase(caseRow.dataset.case, caseRow); return true; }
    var clauseRow = target.closest("tr.clause");
    if (clauseRow) { toggleClause(clauseRow); return true; }
    return false;
  }
  document.addEventListener("click", function (ev) {
    if (ev.target.closest("dialog, a, button, input, select, details")) return;
    activate(ev.target);
  });
  document.addEventListener("keydown", function (ev) {
    var t = ev.target;
    if ((ev.key === "Enter" || ev.key === " ") && t.matches && t.matches("tr.case, tr.clause")) {
      ev.preventDefault();
      activate(t);
    } else if (ev.key === "/" && !t.closest("input, select, textarea, dialog")) {
      ev.preventDefault();
      f.text.focus();
    }
  });
  $$(".evbtn").forEach(function (b) {
    b.addEventListener("click", function () {
      f.area.value = "attribution"; f.agent.value = b.dataset.agent; f.event.value = b.dataset.event;
      f.outcome.value = ""; f.text.value = "";
      apply();
      var first = $$("#cases tr.case").filter(function (tr) { return !tr.hidden; })[0];
      $("#cases").scrollIntoView();
      if (first) first.focus();
    });
  });
  Object.keys(f).forEach(function (k) {
    if (f[k]) f[k].addEventListener(k === "text" ? "input" : "change", apply);
  });
  $("#f-reset").addEventListener("click", function () {
    Object.keys(f).forEach(function (k) { if (f[k]) f[k].value = ""; });
    apply();
  });
  function stickOffset() {
    document.documentElement.style.setProperty("--filters-h", $(".filters").offsetHeight + "px");
  }
  window.addEventListener("resize", stickOffset);
  stickOffset();
  apply();
})();
