// The results page's behaviour: the matrices and the case list drawn from the data in the page
// (so they follow the filters), the filters and an open case kept in the URL's hash, a case's
// drill-down and the keyboard. It never fetches anything.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("report-data").textContent);
  var detailData = null; // the drill-down: gzipped JSON in base64, inflated the first time a case opens
  function loadDetail() {
    if (detailData === null) {
      var node = document.getElementById("report-detail");
      var text = atob(node.textContent.trim());
      var bytes = new Uint8Array(text.length);
      for (var i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
      var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
      detailData = new Response(stream).text().then(JSON.parse);
    }
    return detailData;
  }
  var cols = data.columns;
  var SHORT = { "not-applicable": "n/a" };
  var UNEXPECTED = new Set(["fail", "error", "crash", "timeout", "xpass"]);
  var SEVERITY = data.outcomes;
  var SPEC = { p: "pass", f: "fail", n: "none" };
  var PROFILE = { p: "pass", f: "fail", n: "none", u: "unchecked" };
  var MARKS = new Set(["partly", "vacuous"]);
  var ACTIONS = ["recall", "hook", "pull", "stats", "review", "contribute", "hold", "release", "spoil", "write"];
  var PAGE = 150;
  var $ = function (sel, root) { return (root || document).querySelector(sel); };
  var $$ = function (sel, root) { return Array.prototype.slice.call((root || document).querySelectorAll(sel)); };
  var f = { area: $("#f-area"), outcome: $("#f-outcome"), column: $("#f-column"), agent: $("#f-agent"),
            event: $("#f-event"), text: $("#f-text") };
  var HASH = { area: "area", outcome: "outcome", column: "in", agent: "agent", event: "event", text: "q" };

  // The compact rows (html.py's page_data) as objects.
  function verdict(raw) {
    if (raw == null) return null;
    var code = typeof raw === "string" ? raw : raw[0];
    var r = { outcome: SEVERITY[Number(code[0])] || "?" };
    if (SPEC[code[1]]) r.spec = SPEC[code[1]];
    if (PROFILE[code[2]]) r.profile = PROFILE[code[2]];
    if (typeof raw !== "string") Object.keys(raw[1]).forEach(function (k) { r[k] = raw[1][k]; });
    return r;
  }
  data.cases = data.cases.map(function (row) {
    var results = {};
    row[6].forEach(function (raw, i) { var r = verdict(raw); if (r) results[cols[i].key] = r; });
    return { id: row[0], title: row[1], area: data.areas[row[2]], agents: row[3] || [], clauses: row[4] || [],
             hooks: row[5] || [], results: results, detail: !!row[7] };
  });
  var byId = new Map(data.cases.map(function (c) { return [c.id, c]; }));
  // The clause rows: per area, every clause its cases name, in the catalogue's order.
  var catalogue = new Map(Object.keys(data.clauses).map(function (id, i) { return [id, i]; }));
  data.clause_rows = [];
  data.areas.forEach(function (area) {
    var named = new Map();
    data.cases.forEach(function (c) {
      if (c.area !== area) return;
      c.clauses.forEach(function (id) {
        if (!named.has(id)) named.set(id, []);
        var list = named.get(id);
        if (list[list.length - 1] !== c.id) list.push(c.id);
      });
    });
    Array.from(named.keys()).sort(function (a, b) {
      var x = catalogue.has(a) ? catalogue.get(a) : 1e9, y = catalogue.has(b) ? catalogue.get(b) : 1e9;
      return x - y || (a < b ? -1 : a > b ? 1 : 0);
    }).forEach(function (id) { data.clause_rows.push({ area: area, clause: id, cases: named.get(id) }); });
  });

  data.cases.forEach(function (c) {
    c.rank = Math.min.apply(null, cols.map(function (col) {
      var r = c.results[col.key];
      return r ? SEVERITY.indexOf(r.outcome) : SEVERITY.length;
    }));
  });
  var areaRank = new Map(data.areas.map(function (a, i) { return [a, i]; }));
  // Failing cases first (the worst outcome in any column), then the areas in the catalogue's order.
  var ordered = data.cases.map(function (c, i) { return [c, i]; }).sort(function (a, b) {
    return (a[0].rank - b[0].rank) || (areaRank.get(a[0].area) - areaRank.get(b[0].area)) || (a[1] - b[1]);
  }).map(function (x) { return x[0]; });

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
  function resultOk(r, outcome) {
    if (!r) return false;
    if (MARKS.has(outcome)) return !!r[outcome];
    if (outcome === "unexpected") return UNEXPECTED.has(r.outcome);
    if (outcome === "differs") return !!(r.differs && r.differs.length);
    if (outcome === "profile-fail") return r.profile === "fail";
    return r.outcome === outcome;
  }
  function outcomeOk(c, s) {
    if (!s.outcome) return true;
    var keys = s.column ? [s.column] : cols.map(function (x) { return x.key; });
    return keys.some(function (k) { return resultOk(c.results[k], s.outcome); });
  }
  // Everything but the text: the area, the outcome, and the agent and event of a hook step.
  function passes(c, s) {
    if (s.area && c.area !== s.area) return false;
    if (s.agent && c.agents.indexOf(s.agent) < 0 && !c.hooks.some(function (h) { return h[0] === s.agent; })) return false;
    if (s.event && !c.hooks.some(function (h) { return h[1] === s.event && (!s.agent || h[0] === s.agent); })) return false;
    return outcomeOk(c, s);
  }
  function shownCase(c, s) { return passes(c, s) && (!s.text || caseHay.get(c.id).indexOf(s.text) >= 0); }

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
  function decisionLink(name) {
    return el("a", { href: "#decision-" + name, cls: "dec", "data-decision": name, text: name });
  }
  // A result's verdict per level: spec, the decisions it differs on (each a link to the
  // register's alternatives) and the profile.
  function levelBadges(r) {
    var out = [];
    if (r.spec && r.spec !== "none") {
      out.push(el("span", { cls: "lv lv-" + r.spec, "data-level": "spec", title: "spec level: " + r.spec,
                            text: "spec " + (r.spec === "pass" ? "✓" : "✗") }));
    }
    if (r.differs && r.differs.length) {
      var d = el("span", { cls: "lv lv-differs", "data-level": "decisions" }, ["differs on "]);
      r.differs.forEach(function (name, i) { if (i) d.appendChild(document.createTextNode(", ")); d.appendChild(decisionLink(name)); });
      out.push(d);
    }
    if (r.profile === "pass" || r.profile === "fail") {
      out.push(el("span", { cls: "lv lv-" + r.profile, "data-level": "profile", title: "profile: " + r.profile,
                            text: "profile " + (r.profile === "pass" ? "✓" : "✗") }));
    }
    return out;
  }
  function marked(r) {
    var out = el("span", {}, [chip(r.outcome)]);
    MARKS.forEach(function (m) {
      if (!r[m]) return;
      var title = m === "partly" ? "partly applicable, without " + (r.lacking || []).join(", ") + ": " + (r.skipped || []).join(", ")
        : r.vacuous;
      out.appendChild(el("span", { cls: "mark m-" + m, "data-mark": m, title: title, text: m }));
    });
    levelBadges(r).forEach(function (b) { out.appendChild(b); });
    return out;
  }
  function json(value) { return JSON.stringify(value, null, 2); }
  function pre(text, cls) { return el("pre", cls ? { cls: cls, text: text } : { text: text }); }
  function diff(lines) {
    var p = el("pre", { cls: "diff" });
    lines.forEach(function (l) {
      p.appendChild(el("span", { cls: l[0] === "-" ? "d-exp" : l[0] === "+" ? "d-obs" : "d-eq", text: l[0] + " " + l[1] }));
    });
    return p;
  }
  function details(summary, body, open) {
    var d = el("details", {}, [el("summary", { text: summary }), body]);
    if (open) d.open = true;
    return d;
  }
  function countCell(cases, key) {
    var counts = {};
    cases.forEach(function (c) { var r = c.results[key]; if (r) counts[r.outcome] = (counts[r.outcome] || 0) + 1; });
    var worst = SEVERITY.filter(function (o) { return counts[o]; })[0] || "none";
    var td = el("td", { cls: "cell w-" + worst, "data-col": key });
    var shown = SEVERITY.slice().reverse().filter(function (o) { return counts[o]; });
    if (!shown.length) td.appendChild(el("span", { cls: "none", text: "–" }));
    shown.forEach(function (o, i) {
      if (i) td.appendChild(document.createTextNode(" "));
      td.appendChild(el("span", { cls: "o o-" + o, "data-outcome": o }, [(SHORT[o] || o) + " ", el("b", { text: String(counts[o]) })]));
    });
    return td;
  }

  // --- the clause matrix ----------------------------------------------------------------
  var clauseTable = $("#clauses table");
  var clauseRows = [];
  function drawClauses(s) {
    $$("tbody", clauseTable).forEach(function (b) { b.remove(); });
    clauseRows = [];
    var shown = 0;
    data.areas.forEach(function (area) {
      var rows = data.clause_rows.filter(function (r) { return r.area === area; });
      var body = el("tbody", { "data-area": area });
      var nshown = 0;
      rows.forEach(function (r) {
        var textHit = !s.text || lower([r.clause, clauseText(r.clause)]).indexOf(s.text) >= 0;
        var cases = r.cases.map(function (id) { return byId.get(id); }).filter(function (c) {
          return passes(c, s) && (textHit || ownHay.get(c.id).indexOf(s.text) >= 0);
        });
        if (!cases.length) return;
        nshown += 1;
        var tr = el("tr", { cls: "clause", tabindex: "0", "aria-expanded": "false", "data-area": area, "data-clause": r.clause },
          [el("th", { scope: "row", cls: "cid", text: r.clause }),
           el("td", { cls: "text", text: clauseText(r.clause) || "(not in the catalogue)" }),
           el("td", { cls: "num", text: String(cases.length) })].concat(cols.map(function (col) { return countCell(cases, col.key); })));
        tr._cases = cases;
        tr._row = r;
        clauseRows.push(tr);
        body.appendChild(tr);
      });
      if (!nshown) return;
      var ncases = data.cases.filter(function (c) { return c.area === area && passes(c, s); }).length;
      body.insertBefore(el("tr", { cls: "group" }, [el("th", { colspan: String(3 + cols.length), scope: "rowgroup" },
        [area + " ", el("span", { cls: "muted", text: nshown + " clauses · " + ncases + " cases" })])]), body.firstChild);
      clauseTable.appendChild(body);
      shown += nshown;
    });
    return [shown, data.clause_rows.length];
  }

  // --- the agents x events matrix ---------------------------------------------------------
  var eventsTable = $("#events table");
  function drawEvents(s) {
    if (!eventsTable) return;
    eventsTable.textContent = "";
    var evs = data.events.events;
    var head1 = el("tr", {}, [el("th", { scope: "col", rowspan: "2", text: "agent" })].concat(evs.map(function (e) {
      return el("th", { scope: "col", colspan: String(cols.length), cls: "ev", text: e });
    })));
    var head2 = el("tr", {}, [].concat.apply([], evs.map(function () {
      return cols.map(function (c) { return el("th", { scope: "col", cls: "impl", text: c.label }); });
    })));
    eventsTable.appendChild(el("thead", {}, [head1, head2]));
    var body = el("tbody");
    var only = { area: "attribution", outcome: s.outcome, column: s.column, agent: "", event: "", text: s.text };
    data.events.agents.forEach(function (agent) {
      if (s.agent && agent !== s.agent) return;
      var tds = [];
      evs.forEach(function (event) {
        var cases = data.cases.filter(function (c) {
          return c.area === "attribution" && c.hooks.some(function (h) { return h[0] === agent && h[1] === event; }) &&
            shownCase(c, only);
        });
        var all = data.cases.some(function (c) {
          return c.area === "attribution" && c.hooks.some(function (h) { return h[0] === agent && h[1] === event; });
        });
        cols.forEach(function (col) {
          if (!all) { tds.push(el("td", { cls: "cell empty" })); return; }
          var td = countCell(cases, col.key);
          var btn = el("button", { type: "button", cls: "evbtn", "data-agent": agent, "data-event": event,
                                   title: "show these " + cases.length + " cases" });
          while (td.firstChild) btn.appendChild(td.firstChild);
          td.appendChild(btn);
          tds.push(td);
        });
      });
      body.appendChild(el("tr", { "data-agent": agent }, [el("th", { scope: "row", text: agent })].concat(tds)));
    });
    eventsTable.appendChild(body);
  }

  // --- the case list ----------------------------------------------------------------------
  var caseBody = $("#cases tbody");
  var limit = PAGE;
  function caseRow(c) {
    var shown = c.clauses.slice(0, 3);
    var clauses = el("td", { cls: "cl" }, [shown.join(", ")]);
    if (c.clauses.length > 3) clauses.appendChild(el("span", { cls: "muted", text: " +" + (c.clauses.length - 3) }));
    var cells = cols.map(function (col) {
      var r = c.results[col.key];
      if (!r) return el("td", { cls: "cell", "data-col": col.key }, [el("span", { cls: "none", text: "not run" })]);
      return el("td", { cls: "cell w-" + r.outcome, "data-col": col.key, "data-outcome": r.outcome }, [marked(r)]);
    });
    return el("tr", { cls: "case", tabindex: "0", "data-case": c.id, "aria-haspopup": "dialog" },
      [el("th", { scope: "row" }, [el("span", { cls: "cid", text: c.id }), el("span", { cls: "title", text: c.title })]),
       el("td", { text: c.area }), el("td", { text: c.agents.join(", ") || "–" }), clauses].concat(cells));
  }
  function drawCases(s) {
    var matching = ordered.filter(function (c) { return shownCase(c, s); });
    caseBody.textContent = "";
    var frag = document.createDocumentFragment();
    matching.slice(0, limit).forEach(function (c) { frag.appendChild(caseRow(c)); });
    caseBody.appendChild(frag);
    var more = $("#cases p.more");
    var rest = matching.length - Math.min(limit, matching.length);
    more.hidden = rest <= 0;
    $("#more-cases").textContent = "Show " + Math.min(rest, PAGE) + " more of " + rest;
    return matching.length;
  }

  // --- applying the filters ---------------------------------------------------------------
  function apply(keepLimit) {
    if (!keepLimit) limit = PAGE;
    var s = state();
    var shown = drawCases(s);
    var rows = drawClauses(s);
    drawEvents(s);
    $("#f-status").textContent = shown + " of " + data.cases.length + " cases · " + rows[0] + " of " + rows[1] +
      " clause rows";
    writeHash();
  }

  // --- the hash: filters and the open case ------------------------------------------------
  var openId = null;
  var quiet = false;
  function writeHash() {
    if (quiet) return;
    var s = state();
    var parts = [];
    Object.keys(HASH).forEach(function (k) {
      var v = k === "text" ? f.text.value.trim() : s[k];
      if (v) parts.push(HASH[k] + "=" + encodeURIComponent(v));
    });
    if (openId) parts.push("case=" + encodeURIComponent(openId));
    var hash = parts.length ? "#" + parts.join("&") : "";
    if (hash !== location.hash && !(hash === "" && location.hash.indexOf("=") < 0)) {
      history.replaceState(null, "", hash || location.pathname + location.search);
    }
  }
  function readHash() {
    var text = location.hash.replace(/^#/, "");
    if (text.indexOf("=") < 0) return false;
    var got = {};
    text.split("&").forEach(function (kv) {
      var i = kv.indexOf("=");
      if (i > 0) got[kv.slice(0, i)] = decodeURIComponent(kv.slice(i + 1));
    });
    quiet = true;
    Object.keys(HASH).forEach(function (k) {
      if (!f[k]) return;
      var v = got[HASH[k]] || "";
      if (f[k].tagName === "SELECT" && v && !$$("option", f[k]).some(function (o) { return o.value === v; })) v = "";
      f[k].value = v;
    });
    apply();
    quiet = false;
    if (got["case"] && byId.has(got["case"])) openCase(got["case"], null);
    else writeHash();
    return true;
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
    var body = el("tbody");
    tr._cases.forEach(function (c) {
      var cells = cols.map(function (col) {
        var r = c.results[col.key];
        return el("td", { cls: "cell" }, [r ? marked(r) : el("span", { cls: "none", text: "not run" })]);
      });
      body.appendChild(el("tr", { cls: "case", tabindex: "0", "data-case": c.id, "aria-haspopup": "dialog" },
        [el("th", { scope: "row" }, [el("span", { cls: "cid", text: c.id }), el("span", { cls: "title", text: c.title })])].concat(cells)));
    });
    var inner = el("table", { cls: "matrix" }, [body]);
    var td = el("td", { colspan: String(tr.children.length) }, [
      el("p", { cls: "hint", text: tr._row.clause + ": " + (clauseText(tr._row.clause) || "(not in the catalogue)") }), inner]);
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
  function stepsTable(d) {
    var plan = d.plan || [];
    var ran = cols.filter(function (col) { return d.results[col.key]; });
    var n = Math.max(plan.length, Math.max.apply(null, [0].concat(ran.map(function (col) { return d.results[col.key].steps.length; }))));
    if (!n) return el("p", { cls: "muted", text: "No step was run or recorded." });
    var head = el("tr", {}, [el("th", { text: "#" }), el("th", { text: "step as written" })].concat(
      ran.map(function (col) { return el("th", { text: col.label }); })));
    var body = el("tbody");
    for (var i = 0; i < n; i++) {
      var cells = ran.map(function (col) {
        var s = d.results[col.key].steps[i];
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
  function rerunOf(col, r, id) { return (r && r.rerun) || (col.rerun ? col.rerun.replace("{id}", id) : ""); }
  function rerunBox(command) {
    var code = el("code", { text: command });
    var btn = el("button", { type: "button", text: "Copy" });
    btn.addEventListener("click", function () {
      var done = function () { btn.textContent = "Copied"; };
      if (navigator.clipboard) navigator.clipboard.writeText(command).then(done, function () { select(code); });
      else select(code);
    });
    return [el("h4", { text: "rerun" }), el("div", { cls: "rerun" }, [code, btn])];
  }
  function alternatives(name) {
    var info = data.clauses[name] || {};
    var ul = el("ul", { cls: "alternatives" });
    (info.alternatives || []).forEach(function (a) { ul.appendChild(el("li", { text: a })); });
    if (!ul.children.length) ul.appendChild(el("li", { cls: "muted", text: "(the register names no alternative)" }));
    return el("li", {}, [decisionLink(name), " " + (info.text || ""), el("div", { cls: "muted", text: "an implementation may instead:" }), ul]);
  }
  function resultSection(col, v, r, c) {
    var parts = [el("h3", {}, [col.label + " ", marked(v)])];
    if (v.differs && v.differs.length) {
      var ul = el("ul", { cls: "mm" });
      v.differs.forEach(function (name) { ul.appendChild(alternatives(name)); });
      parts.push(el("p", { cls: "differs" }, [el("b", { text: "differs on a decision" }),
        " (not a failure for an implementation that declares no profile):"]), ul);
    }
    if (v.partly) parts.push(el("p", { cls: "partly" }, [el("b", { text: "partly applicable: " }),
      "without " + (v.lacking || []).join(", ") + ", these were left out: " + (v.skipped || []).join(", ")]));
    if (v.vacuous) parts.push(el("p", { cls: "vacuous" }, [el("b", { text: "vacuous pass: " }), v.vacuous]));
    if (v.outcome === "not-applicable" && v.lacking) parts.push(el("p", {}, [el("b", { text: "not applicable: " }),
      "the driver lacks " + v.lacking.join(", ")]));
    if (!r) {
      if (v.outcome === "pass" || v.outcome === "not-applicable") {
        parts.push(el("p", { cls: "muted", text: "The page carries no detail for a case every implementation passes or cannot run; rerun it to see its steps." }));
      }
      parts = parts.concat(rerunBox(rerunOf(col, null, c.id)));
      return el("section", { "data-col": col.key }, parts);
    }
    if (r.duration != null) parts.push(el("div", { cls: "muted", text: "took " + r.duration + " s" }));
    if (r.reason) parts.push(el("p", {}, [el("b", { text: "expected to fail: " }), r.reason]));
    if (r.blame) parts.push(el("p", {}, [el("b", { text: "blamed on " }), el("code", { text: r.blame.clause }), ": " + r.blame.why]));
    if (r.message && !(r.mismatches && r.mismatches.length)) parts.push(pre(r.message));
    if (r.state) { parts.push(el("h4", {}, ["expected ", el("span", { cls: "d-exp", text: "−" }), " / observed ", el("span", { cls: "d-obs", text: "+" }), " state"])); parts.push(diff(r.state)); }
    if (r.mismatches && r.mismatches.length) {
      parts.push(el("h4", { text: r.mismatches.length + " mismatch" + (r.mismatches.length > 1 ? "es" : "") +
        (r.mismatches_omitted ? " (and " + r.mismatches_omitted + " more)" : "") }));
      var mm = el("ul", { cls: "mm" });
      r.mismatches.forEach(function (m) {
        var lv = m.level ? el("span", { cls: "lv", text: m.level === "decision" ? "decision " : m.level }) : null;
        if (m.level === "decision" && m.decision) lv.appendChild(decisionLink(m.decision));
        mm.appendChild(el("li", {}, [lv, " ", el("code", { text: m.path }), ": " + m.message, diff(m.diff || [])]));
      });
      parts.push(mm);
    }
    if (r.explanation) parts.push(explanation(r.explanation));
    parts = parts.concat(rerunBox(rerunOf(col, r, c.id)));
    if (r.observed) parts.push(details("observed state (votes, log, stats)", pre(json(r.observed))));
    else if (v.outcome === "pass" && !(r.mismatches && r.mismatches.length)) {
      parts.push(el("p", { cls: "muted", text: "Passed: the page keeps only its exit statuses; rerun it to see its output and state." }));
    } else parts.push(el("p", { cls: "muted", text: "This report does not hold the observed state." }));
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
  // Opening a case; ``window.caseShown`` settles once its drill-down is drawn (the detail may
  // still be inflating the first time).
  function openCase(id, from) {
    var c = byId.get(id);
    if (!c) return;
    opener = from || document.activeElement;
    openId = id;
    writeHash();
    window.caseShown = (c.detail ? loadDetail() : Promise.resolve({})).then(function (all) {
      if (openId === id) drawCase(c, all[id] || null);
    });
  }
  function drawCase(c, d) {
    $("#case-dialog-title").textContent = c.id + " — " + c.title;
    var body = $("#case-dialog-body");
    body.textContent = "";
    var meta = el("dl", { cls: "meta" });
    [["area", c.area], ["agents", c.agents.join(", ") || "–"],
     ["scenario", d && d.path ? d.path : "(not carried for a passing case)"],
     ["provenance", d && d.provenance ? d.provenance : "–"],
     ["hook steps", c.hooks.map(function (h) { return h[0] + " " + h[1]; }).join(", ") || "–"]]
      .forEach(function (kv) { meta.appendChild(el("dt", { text: kv[0] })); meta.appendChild(el("dd", { text: kv[1] })); });
    body.appendChild(meta);
    var cl = el("ul", { cls: "mm" });
    c.clauses.forEach(function (cid) {
      cl.appendChild(el("li", {}, [el("code", { text: cid }), " " + (clauseText(cid) || "(not in the catalogue)")]));
    });
    body.appendChild(el("h3", { text: "Clauses" }));
    body.appendChild(cl);
    body.appendChild(el("h3", { text: "Outcome, expected against observed" }));
    var side = el("div", { cls: "side" });
    cols.forEach(function (col) {
      var v = c.results[col.key];
      if (v) side.appendChild(resultSection(col, v, d ? d.results[col.key] : null, c));
    });
    body.appendChild(side);
    if (d) {
      body.appendChild(el("h3", { text: "Steps" }));
      body.appendChild(el("div", { cls: "scroll" }, [stepsTable(d)]));
      if (d.expect) body.appendChild(details("expect block as written", pre(json(d.expect))));
      if (d.decide) body.appendChild(details("decide blocks as written", pre(json(d.decide))));
      if (d.profile) body.appendChild(details("profile block as written", pre(json(d.profile))));
    }
    if (!dialog.open) dialog.showModal();
    $("[data-close]", dialog).focus();
  }
  dialog.addEventListener("close", function () {
    openId = null;
    writeHash();
    if (opener && document.contains(opener)) opener.focus();
  });
  $("[data-close]", dialog).addEventListener("click", function () { dialog.close(); });

  // --- wiring ---------------------------------------------------------------------------
  function goTo(target) {
    var node = document.getElementById(target);
    if (!node) return;
    if (dialog.open) dialog.close();
    if (node.tagName === "DETAILS") node.open = true;
    node.scrollIntoView();
  }
  function activate(target) {
    var caseRow = target.closest("tr.case");
    if (caseRow) { openCase(caseRow.dataset.case, caseRow); return true; }
    var clauseRow = target.closest("tr.clause");
    if (clauseRow) { toggleClause(clauseRow); return true; }
    return false;
  }
  document.addEventListener("click", function (ev) {
    var link = ev.target.closest("a[href^='#']");
    if (link) { ev.preventDefault(); goTo(link.getAttribute("href").slice(1)); return; }
    var ev_ = ev.target.closest(".evbtn");
    if (ev_) { showEvent(ev_); return; }
    var share = ev.target.closest(".cellbtn");
    if (share) { showArea(share); return; }
    if (ev.target.closest("dialog, button, input, select, details")) return;
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
  function focusFirstCase() {
    var first = $("#cases tr.case");
    $("#cases").scrollIntoView();
    if (first) first.focus();
  }
  function showEvent(b) {
    f.area.value = "attribution"; f.agent.value = b.dataset.agent; f.event.value = b.dataset.event;
    f.outcome.value = ""; f.text.value = "";
    apply();
    focusFirstCase();
  }
  function showArea(b) {
    Object.keys(f).forEach(function (k) { if (f[k]) f[k].value = ""; });
    f.area.value = b.dataset.area;
    if (f.column) f.column.value = b.dataset.col;
    if (b.dataset.failing === "1") f.outcome.value = "unexpected";
    apply();
    focusFirstCase();
  }
  Object.keys(f).forEach(function (k) {
    if (f[k]) f[k].addEventListener(k === "text" ? "input" : "change", function () { closeExpansions(); apply(); });
  });
  $("#f-reset").addEventListener("click", function () {
    Object.keys(f).forEach(function (k) { if (f[k]) f[k].value = ""; });
    apply();
  });
  $("#more-cases").addEventListener("click", function () { limit += PAGE; apply(true); });
  window.addEventListener("hashchange", readHash);
  function stickOffset() {
    document.documentElement.style.setProperty("--filters-h", $(".filters").offsetHeight + "px");
  }
  window.addEventListener("resize", stickOffset);
  requestAnimationFrame(stickOffset); // after the first layout, not forcing one of its own
  if (!readHash()) apply();
})();
