// answer-guard console: vanilla JS over GET /v1/guard/turns and
// POST /v1/guard/whatif. Every value from the server is inserted as text
// (textContent, never innerHTML): questions and answers are user input.
"use strict";

const DECISIONS = ["ground", "refuse", "fallback", "passthrough"];
const COLORS = { ground: "#2da44e", refuse: "#bf8700", fallback: "#cf222e", passthrough: "#6e7781" };
const state = { key: sessionStorage.getItem("guard-key") || "", data: null, selected: 0, whatif: null };

const $ = (id) => document.getElementById(id);

// el builds an element: el("td", {class: "num"}, "text", child, ...).
function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "onclick") e.addEventListener("click", v);
    else e.setAttribute(k, v === true ? "" : String(v));
  }
  for (const k of kids.flat()) {
    if (k === undefined || k === null) continue;
    e.append(k instanceof Node ? k : document.createTextNode(String(k)));
  }
  return e;
}

function svg(tag, attrs, ...kids) {
  const e = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
  for (const k of kids) e.append(k instanceof Node ? k : document.createTextNode(String(k)));
  return e;
}

const fmt = (x, d = 3) => (typeof x === "number" ? x.toFixed(d) : "");
const badge = (d) => el("span", { class: "badge d-" + d, "data-decision": d }, d);
const hms = (t) => (t || "").replace("T", " ").replace(/\.\d+Z$/, "Z");

function status(msg, isErr) {
  const s = $("status");
  s.textContent = msg;
  s.className = isErr ? "err" : "";
}

async function api(path, body) {
  const headers = {};
  if (state.key) headers["Authorization"] = "Bearer " + state.key;
  const opts = { headers };
  if (body !== undefined) {
    opts.method = "POST";
    headers["Content-Type"] = "application/json";
    opts.body = JSON.stringify(body);
  }
  const r = await fetch(path, opts);
  let j = null;
  try { j = await r.json(); } catch (e) { /* not JSON */ }
  if (!r.ok) {
    const m = j && j.error ? j.error.message : r.statusText;
    const err = new Error(r.status + ": " + m);
    err.status = r.status;
    throw err;
  }
  return j;
}

// ---- URL hash state: #decision=refuse&part=t/kb&window=1h&gaps=on&turn=12&whatif=k:v,k:v
function readHash() {
  const p = new URLSearchParams(location.hash.replace(/^#/, ""));
  return { decision: p.get("decision") || "", part: p.get("part") || "", window: p.get("window") || "all",
    gaps: p.get("gaps") || "all", turn: Number(p.get("turn") || 0), whatif: p.get("whatif") || "" };
}

function writeHash() {
  const p = new URLSearchParams();
  if ($("f-decision").value) p.set("decision", $("f-decision").value);
  if ($("f-part").value) p.set("part", $("f-part").value);
  if ($("f-window").value !== "all") p.set("window", $("f-window").value);
  if ($("f-gaps").value !== "all") p.set("gaps", $("f-gaps").value);
  if (state.selected) p.set("turn", state.selected);
  history.replaceState(null, "", "#" + p.toString());
}

function filterQuery() {
  const q = new URLSearchParams();
  const d = $("f-decision").value;
  if (d) q.set("decision", d);
  const part = $("f-part").value;
  if (part) {
    const [t, kb] = part.split("/");
    q.set("tenant", t);
    if (kb) q.set("kb", kb);
  }
  const w = { "15m": 15 * 60e3, "1h": 3600e3, "24h": 86400e3 }[$("f-window").value];
  if (w) q.set("since", String(Date.now() - w));
  return q;
}

async function load() {
  status("loading turns...");
  try {
    const q = filterQuery();
    q.set("limit", "5000");
    state.data = await api("/v1/guard/turns?" + q.toString());
  } catch (e) {
    state.data = null;
    status(e.status === 401 ? "This server needs a key: enter an admin key (or a tenant key) above." : "Could not load turns: " + e.message, true);
    renderList();
    return;
  }
  const d = state.data;
  status(d.enabled ? "loaded " + d.returned + " of " + d.total + " matching turns" + (d.scope && d.scope.tenant ? " (tenant " + d.scope.tenant + " only)" : "")
    : "The turn log is off (turnlog.size: 0).");
  fillParts(d.partitions || []);
  renderList();
  renderHist();
  fillKinds();
  fillWhatIfDefaults(false);
  await renderGaps();
  if (state.selected) await showTurn(state.selected, false);
}

function fillParts(parts) {
  const sel = $("f-part");
  const cur = sel.value || readHash().part;
  sel.replaceChildren(el("option", { value: "" }, "any"));
  for (const p of parts) {
    const v = p.tenant + "/" + p.kb;
    sel.append(el("option", { value: v, selected: v === cur }, v + " (" + p.turns + " of " + p.size + ")"));
  }
  if (cur && ![...sel.options].some((o) => o.value === cur)) sel.append(el("option", { value: cur, selected: true }, cur));
}

function renderList() {
  const tbody = $("turn-table").tBodies[0];
  tbody.replaceChildren();
  const turns = (state.data && state.data.turns) || [];
  const counts = {};
  for (const t of turns) counts[t.decision] = (counts[t.decision] || 0) + 1;
  $("turn-count").textContent = turns.length + (turns.length === 1 ? " turn" : " turns");
  $("turn-count").setAttribute("data-count", turns.length);
  $("decision-counts").replaceChildren(...DECISIONS.filter((d) => counts[d]).map((d) => el("span", {}, " ", badge(d), " " + counts[d])));
  for (const t of turns) {
    const dropped = Object.entries(t.markers_dropped || {}).map(([k, v]) => k + " " + v).join(", ");
    const verdicts = Object.entries(t.verdicts || {}).map(([k, v]) => k + " " + v).join(", ");
    const q = t.question || (t.question_hash ? "#" + t.question_hash : "");
    tbody.append(el("tr", { "data-id": t.id, "data-decision": t.decision, class: t.id === state.selected ? "selected" : null },
      el("td", {}, el("button", { class: "link", type: "button", "aria-label": "show turn " + t.id, onclick: () => showTurn(t.id, true) }, String(t.id))),
      el("td", {}, hms(t.time)),
      el("td", {}, t.tenant + " / " + t.kb),
      el("td", {}, badge(t.decision)),
      el("td", { class: "num" }, fmt(t.coverage.max)),
      el("td", { class: "num" }, t.coverage.outline),
      el("td", {}, dropped),
      el("td", {}, verdicts),
      el("td", { class: "num" }, fmt(t.latency_ms.total, 1)),
      el("td", {}, q)));
  }
}

// ---- coverage histogram with the thresholds drawn on it
function renderHist() {
  const box = $("hist");
  const turns = ((state.data && state.data.turns) || []).filter((t) => t.decision !== "passthrough");
  const g = (state.data && state.data.gate) || {};
  const W = 880, H = 240, L = 40, B = 30, T = 28, bins = 20;
  const counts = Array.from({ length: bins }, () => ({ ground: 0, refuse: 0, fallback: 0 }));
  for (const t of turns) {
    const i = Math.min(bins - 1, Math.max(0, Math.floor(t.coverage.max * bins)));
    counts[i][t.decision] = (counts[i][t.decision] || 0) + 1;
  }
  const top = Math.max(1, ...counts.map((c) => c.ground + c.refuse + c.fallback));
  const x = (v) => L + v * (W - L - 10);
  const y = (n) => H - B - (n / top) * (H - B - T);
  const s = svg("svg", { viewBox: `0 0 ${W} ${H}`, role: "img",
    "aria-label": `Histogram of ${turns.length} turns by coverage, with bail_out_below ${g.bail_out_below}, sufficient_max ${g.sufficient_max}, good_enough_max ${g.good_enough_max}` });
  s.append(svg("line", { x1: L, y1: H - B, x2: W - 10, y2: H - B, stroke: "#57606a" }));
  for (let v = 0; v <= 10; v++) {
    s.append(svg("text", { x: x(v / 10), y: H - B + 16, "text-anchor": "middle", "font-size": 11, fill: "#1f2328" }, (v / 10).toFixed(1)));
  }
  s.append(svg("text", { x: 4, y: y(top) + 4, "font-size": 11, fill: "#1f2328" }, String(top)));
  s.append(svg("text", { x: 4, y: H - B, "font-size": 11, fill: "#1f2328" }, "0"));
  const bw = (W - L - 10) / bins;
  counts.forEach((c, i) => {
    let base = 0;
    for (const d of ["ground", "refuse", "fallback"]) {
      if (!c[d]) continue;
      const r = svg("rect", { x: x(i / bins) + 1, y: y(base + c[d]), width: bw - 2, height: y(base) - y(base + c[d]), fill: COLORS[d] });
      r.append(svg("title", {}, `${d}: ${c[d]} turns with coverage ${(i / bins).toFixed(2)}-${((i + 1) / bins).toFixed(2)}`));
      s.append(r);
      base += c[d];
    }
  });
  const lines = [["prefloor", g.prefloor, "#6e7781"], ["bail_out_below", g.bail_out_below, "#a40e26"],
    ["sufficient_max", g.sufficient_max, "#0550ae"], ["good_enough_max", g.good_enough_max, "#116329"]];
  lines.forEach(([name, v, color], i) => {
    if (typeof v !== "number") return;
    s.append(svg("line", { x1: x(v), y1: T - 6, x2: x(v), y2: H - B, stroke: color, "stroke-width": 2, "data-threshold": name }));
    s.append(svg("text", { x: x(v) + 3, y: 10 + (i % 2) * 12, "font-size": 11, fill: color }, name + " " + v));
  });
  const wi = state.whatif && state.whatif.gate;
  if (wi) {
    for (const [name, , color] of lines) {
      const v = wi[name];
      if (typeof v === "number" && v !== g[name]) {
        s.append(svg("line", { x1: x(v), y1: T, x2: x(v), y2: H - B, stroke: color, "stroke-width": 2, "stroke-dasharray": "5 4", "data-whatif": name }));
      }
    }
  }
  box.replaceChildren(s);
  $("hist-legend").replaceChildren("Bars: ", ...["ground", "refuse", "fallback"].map((d) => el("span", {}, " ", badge(d))),
    ". Solid lines are the configured thresholds (relevance: " + (g.relevance || "") + "); dashed lines the what-if values.");
}

// ---- one turn's detail
async function showTurn(id, focus) {
  state.selected = id;
  writeHash();
  for (const tr of $("turn-table").tBodies[0].rows) tr.classList.toggle("selected", Number(tr.dataset.id) === id);
  const body = $("detail-body");
  let t;
  try {
    t = (await api("/v1/guard/turns?id=" + id)).turn;
  } catch (e) {
    body.replaceChildren(el("p", { class: "err" }, "Turn " + id + ": " + e.message));
    return;
  }
  const lat = Object.entries(t.latency_ms || {}).map(([k, v]) => k + " " + fmt(v, 2)).join(", ");
  const checks = Object.entries(t.checks || {}).filter(([, v]) => v).map(([k]) => k).join(", ");
  const th = t.thresholds || {};
  body.replaceChildren(
    el("dl", { class: "kv", id: "detail-summary", "data-id": t.id, "data-decision": t.decision },
      el("dt", {}, "turn"), el("dd", {}, String(t.id) + " at " + hms(t.time)),
      el("dt", {}, "question"), el("dd", { id: "detail-question" }, t.question || (t.question_hash ? "hash " + t.question_hash : "(not kept)")),
      el("dt", {}, "asks"), askCell(t),
      el("dt", {}, "tenant / kb"), el("dd", {}, t.tenant + " / " + t.kb),
      el("dt", {}, "model"), el("dd", {}, t.model + (t.stream ? " (stream)" : "") + ", status " + t.status),
      el("dt", {}, "decision"), el("dd", { id: "detail-decision" }, badge(t.decision)),
      el("dt", {}, "coverage"), el("dd", {}, "max " + fmt(t.coverage.max) + ", primary-kind survivors " + t.coverage.primary_kind_count + ", outline " + t.coverage.outline),
      el("dt", {}, "gate"), el("dd", {}, "relevance " + (t.relevance || "-") + ", reranker " + (t.rerank_active ? "on" : "off") + ", planner " + (t.planner || "-") + ", floored " + t.floored),
      el("dt", {}, "checks true"), el("dd", {}, checks || "-"),
      el("dt", {}, "thresholds"), el("dd", {}, th.prefloor === undefined ? "-" :
        `prefloor ${th.prefloor}, bail_out_below ${th.bail_out_below}, sufficient_max ${th.sufficient_max} (primary ${th.primary_kind} >= ${th.primary_min}), good_enough_max ${th.good_enough_max}, between ${th.between}`),
      el("dt", {}, "degraded"), el("dd", {}, (t.degraded || []).join(", ") || "-"),
      el("dt", {}, "latency ms"), el("dd", {}, lat)),
    el("h3", {}, "Candidates (" + (t.candidate_list || []).length + ", in retrieval order)"),
    el("div", { class: "scroll" }, el("table", { id: "cand-table" },
      el("thead", {}, el("tr", {}, ...["#", "id", "title", "kind", "address", "lanes", "forced", "type hit", "score", "rerank", "answer", "relevance", "floored", "outline"].map((h) => el("th", { scope: "col" }, h)))),
      el("tbody", {}, ...(t.candidate_list || []).map((c, i) => el("tr", { "data-cand": c.id, "data-type-hit": c.type_hit ? "1" : "0" },
        el("td", { class: "num" }, i + 1), el("td", {}, el("code", {}, c.id)), el("td", {}, c.title), el("td", {}, c.kind), el("td", {}, c.address || ""),
        el("td", {}, c.lanes.join(" ")), el("td", {}, c.forced ? "yes" : ""),
        el("td", {}, c.type_hit ? "yes" + (t.ask && t.ask.type ? " (" + t.ask.type + ")" : "") : ""), el("td", { class: "num" }, fmt(c.score)), el("td", { class: "num" }, fmt(c.rerank)),
        el("td", { class: "num" }, fmt(c.answer)), el("td", { class: "num" }, fmt(c.relevance)), el("td", {}, c.floored ? "yes" : ""),
        el("td", { class: "num" }, c.outline || "")))))),
    el("h3", {}, "Outline shown to the model"),
    (t.outline || []).length ? el("ol", { id: "detail-outline" }, ...t.outline.map((id) => el("li", {}, el("code", {}, id)))) : el("p", { class: "hint" }, "(empty)"),
    el("h3", {}, "Markers"),
    markers(t.markers),
    el("h3", {}, "Citations"),
    (t.citations || []).length ? el("ol", {}, ...t.citations.map((c) => el("li", {}, "[" + c.n + "] ", el("code", {}, c.id), " " + (c.title || "") + (c.address ? " (" + c.address + ")" : "")))) : el("p", { class: "hint" }, "(none)"),
    el("h3", {}, "Claims and verdicts"),
    claims(t.claims || []));
  if (focus) $("detail").focus();
}

// askCell says what the question asks for (the turn log's ask, an input
// of the gate's decision): the answer type and whether it asks for the
// service's own contact details.
function askCell(t) {
  const a = t.ask || {};
  let text = "nothing the gate reads";
  if (!t.thresholds) text = "(not logged: no gate inputs)";
  else if (a.type || a.contact) {
    text = (a.type ? "answer type " + a.type : "no answer type") + (a.contact ? "; the service's own contact details" : "");
  }
  return el("dd", { id: "detail-ask", "data-type": a.type || "", "data-contact": a.contact ? "1" : "0" }, text);
}

function markers(m) {
  if (!m) return el("p", { class: "hint" }, "(none)");
  const by = Object.entries(m.by_reason || {}).map(([k, v]) => k + " " + v).join(", ");
  const a = m.audit || {};
  return el("p", { id: "detail-markers" }, "kept " + (m.kept || 0) + ", dropped " + (m.dropped || 0) + (by ? " (" + by + ")" : "") +
    "; auditor: invented " + (a.invented || 0) + ", broken " + (a.broken || 0) + ", leaked ids " + (a.leaked_ids || 0));
}

function claims(cs) {
  if (!cs.length) return el("p", { class: "hint" }, "(no claims)");
  return el("div", { class: "scroll" }, el("table", { id: "claim-table" },
    el("thead", {}, el("tr", {}, ...["claim", "cites", "verdict", "confidence", "method", "risk", "uncited", "evidence / reason"].map((h) => el("th", { scope: "col" }, h)))),
    el("tbody", {}, ...cs.map((c) => el("tr", { "data-verdict": c.verdict },
      el("td", {}, c.text || "(text not kept)"), el("td", {}, (c.citations || []).map((n) => "[" + n + "]").join("")), el("td", {}, c.verdict),
      el("td", { class: "num" }, fmt(c.confidence, 2)), el("td", {}, c.method), el("td", {}, c.risk), el("td", {}, c.uncited || ""),
      el("td", {}, el("div", { class: "evidence" }, c.evidence || ""), c.reason ? el("div", {}, c.reason) : null))))));
}

// ---- what-if
const WHATIF_FIELDS = ["prefloor", "prefloor_no_rerank", "bail_out_below", "on_topic_sim", "on_topic_you", "on_topic_coherence", "general_above", "general_weight", "other_business", "sufficient_max", "good_enough_max", "primary_kind", "primary_min", "max_notes", "between", "off_topic", "planner.min_support", "planner.min_best", "planner.min_best_between", "planner.max_outline"];
const TEXT_FIELDS = ["between", "off_topic", "primary_kind"];
const BOOL_FIELDS = ["other_business", "on_topic_you"];
// NO_KIND is the primary_kind option "(none: every chunk counts)"; it is
// sent as "" (an empty select value means "as configured").
const NO_KIND = "*";

// fillKinds offers as primary_kind the kinds of the chosen partition's
// chunks (of every listed partition when none is chosen).
function fillKinds() {
  const d = state.data;
  if (!d || !d.gate) return;
  const sel = $("whatif-form").elements["primary_kind"];
  const cur = sel.value;
  const part = $("f-part").value;
  const parts = (d.partitions || []).filter((p) => !part || p.tenant + "/" + p.kb === part);
  const kinds = [...new Set(parts.flatMap((p) => p.kinds || []))].sort();
  const conf = d.gate.primary_kind || "";
  sel.replaceChildren(el("option", { value: "" }, "(configured: " + (conf || "none") + ")"),
    ...kinds.map((k) => el("option", { value: k }, k)), el("option", { value: NO_KIND }, "(none: every chunk counts)"));
  sel.value = [...sel.options].some((o) => o.value === cur) ? cur : "";
  const lacking = conf ? parts.filter((p) => p.kinds && p.kinds.length && !p.kinds.includes(conf)).map((p) => p.tenant + "/" + p.kb) : [];
  $("kind-hint").textContent = (kinds.length ? "primary_kind: the kinds of " + (part ? part + "'s chunks." : "the listed partitions' chunks.") : "") +
    (lacking.length ? " No " + conf + " chunks in " + lacking.join(", ") + ": every chunk counts there, as configured." : "");
}

function fillWhatIfDefaults(force) {
  const g = state.data && state.data.gate;
  if (!g) return;
  const f = $("whatif-form");
  for (const name of WHATIF_FIELDS) {
    const input = f.elements[name];
    const v = name.startsWith("planner.") ? (g.planner || {})[name.slice(8)] : g[name];
    if (input.tagName === "SELECT") {
      if (name !== "primary_kind" && v !== undefined) input.options[0].textContent = "(configured: " + v + ")";
      if (force) input.value = "";
      continue;
    }
    input.placeholder = v === undefined ? "" : String(v);
    if (force) input.value = "";
  }
}

async function runWhatIf(ev) {
  if (ev) ev.preventDefault();
  const f = $("whatif-form");
  const gate = {};
  for (const name of WHATIF_FIELDS) {
    const v = f.elements[name].value;
    if (v === "") continue;
    const val = name === "primary_kind" && v === NO_KIND ? "" : TEXT_FIELDS.includes(name) ? v : BOOL_FIELDS.includes(name) ? v === "true" : Number(v);
    if (name.startsWith("planner.")) (gate.planner = gate.planner || {})[name.slice(8)] = val;
    else gate[name] = val;
  }
  const q = filterQuery();
  const body = { gate, examples: 5 };
  for (const k of ["decision", "tenant", "kb"]) if (q.get(k)) body[k] = q.get(k);
  if (q.get("since")) body.since = q.get("since");
  const out = $("whatif-result");
  out.replaceChildren(el("p", {}, "computing..."));
  let r;
  try {
    r = await api("/v1/guard/whatif", body);
  } catch (e) {
    out.replaceChildren(el("p", { class: "err" }, e.message));
    return;
  }
  state.whatif = r;
  renderHist();
  const summary = el("p", { id: "whatif-summary", "data-changed": r.changed, "data-turns": r.turns, "data-primary-kind": r.gate.primary_kind, "data-off-topic": r.gate.off_topic },
    el("strong", {}, r.changed + " of " + r.turns + " replayed turns would change decision."),
    " Recomputed at the configuration each was decided with: " + (r.exact.checked - r.exact.mismatched) + "/" + r.exact.checked + " match the logged decision" +
    (r.approximate ? "; " + r.approximate + " remote-planner turns planned locally (approximate)" : "") +
    (r.decided_under_other_config ? "; " + r.decided_under_other_config + " were decided under an earlier configuration" : "") + ".");
  const before = DECISIONS.filter((d) => r.before[d] || r.after[d]).map((d) => d + " " + (r.before[d] || 0) + " -> " + (r.after[d] || 0)).join(", ");
  const rows = [];
  for (const tr of r.transitions) {
    rows.push(el("tr", { "data-from": tr.from, "data-to": tr.to, "data-count": tr.count },
      el("td", {}, badge(tr.from), " -> ", badge(tr.to)), el("td", { class: "num" }, tr.count),
      el("td", {}, el("ul", {}, ...tr.examples.map((x) => el("li", {},
        el("button", { class: "link", type: "button", onclick: () => showTurn(x.id, true) }, "#" + x.id), " " + (x.question || "") +
        " (coverage " + fmt(x.coverage_max) + (x.new_coverage_max !== x.coverage_max ? " -> " + fmt(x.new_coverage_max) : "") +
        (x.new_primary_kind_count !== x.primary_kind_count ? ", primary " + x.primary_kind_count + " -> " + x.new_primary_kind_count : "") + ")"))))));
  }
  const absent = r.primary_kind_absent || [];
  const checks = Object.entries(r.checks || {}).map(([k, c]) => el("span", { "data-check": k, "data-before": c.before, "data-after": c.after },
    k + " " + c.before + (c.after !== c.before ? " -> " + c.after : "")));
  out.replaceChildren(summary, el("p", {}, "Decisions: " + (before || "-")),
    el("p", { id: "whatif-checks" }, "Gate checks (turns): ", ...checks.flatMap((c, i) => (i ? [", ", c] : [c]))),
    ...(absent.length ? [el("p", { id: "whatif-kind-absent" }, "No " + r.gate.primary_kind + " chunks in " + absent.join(", ") + ": every chunk counted there, as the proxy does.")] : []),
    rows.length ? el("table", { id: "whatif-table" }, el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "change"), el("th", { scope: "col", class: "num" }, "turns"), el("th", { scope: "col" }, "examples"))), el("tbody", {}, ...rows))
      : el("p", {}, "No decision changes."));
}

// ---- gaps: the gap queue when the server has one, else refusals and fallbacks
// The gap queue's kinds: refused (an on-topic question the corpus does not
// answer), gap (an uncited claim the verifier found nothing for), off_topic
// (refused as outside the corpus, gate.off_topic: refuse) and fallback
// (answered from general knowledge, off_topic: fallback).
const GAP_KINDS = { on: ["refused", "gap"], off: ["off_topic", "fallback"], all: ["refused", "gap", "off_topic", "fallback"] };
const GAP_LABELS = { on: "on-topic gaps (refused, uncited claims)", off: "off-topic (off_topic refusals, fallbacks)", all: "all" };
// the kinds each turn decision files (an uncited claim comes from a grounded turn)
const KINDS_OF_DECISION = { ground: ["gap"], refuse: ["refused", "off_topic"], fallback: ["fallback"], passthrough: [] };
const DECISION_OF_KIND = { refused: "refuse", off_topic: "refuse", fallback: "fallback", gap: "ground" };

// gapKinds is the kinds a gap filter shows within the decision filter.
function gapKinds(which, decision) {
  const ks = GAP_KINDS[which] || GAP_KINDS.all;
  return decision ? ks.filter((k) => KINDS_OF_DECISION[decision].includes(k)) : ks;
}

// gapOptions labels the gap filter's options with their counts.
function gapOptions(count) {
  for (const o of $("f-gaps").options) {
    const n = count(o.value);
    o.textContent = GAP_LABELS[o.value] + (n === null ? "" : " (" + n + ")");
    if (n === null) o.removeAttribute("data-count");
    else o.setAttribute("data-count", n);
  }
}

// gapItems turns a GET /v1/guard/gaps list into the table's rows; kinds
// is what the filter asked for (none: the list came for its counts only).
function gapItems(j, kinds, d) {
  const by = j.by_kind;
  gapOptions((w) => by ? gapKinds(w, d).reduce((n, k) => n + (by[k] || 0), 0) : null);
  return (kinds.length ? j.data : []).map((g) => ({ question: g.kind === "gap" ? g.text + (g.question ? " (asked: " + g.question + ")" : "") : g.text || g.question || "",
    kind: g.kind, decision: DECISION_OF_KIND[g.kind] || "", count: g.count || 1,
    part: (g.tenant || "") + " / " + (g.kb || ""), last: g.last_seen || "", cov: g.coverage_max, id: g.id }));
}

async function renderGaps() {
  const tbody = $("gaps-table").tBodies[0];
  const which = $("f-gaps").value;
  const f = filterQuery();
  const d = f.get("decision") || "";
  const kinds = gapKinds(which, d);
  // query is the gap list's query: the tenant/KB filter, the kinds (none
  // left, decision passthrough or ground with off-topic: only the
  // counts), and extra.
  const query = (extra) => {
    const q = new URLSearchParams(extra);
    for (const k of ["tenant", "kb"]) if (f.get(k)) q.set(k, f.get(k));
    if (kinds.length) q.set("kind", kinds.join(","));
    q.set("limit", kinds.length ? "1000" : "1");
    return q;
  };
  const more = (j, items) => kinds.length && typeof j.total === "number" && j.total > items.length ? " Showing " + items.length + " of " + j.total + "." : "";
  let items = null;
  try {
    const j = await api("/v1/guard/gaps?" + query({}).toString());
    // gaps.enabled: false: the queue gathers nothing; the turn log below.
    if (j && Array.isArray(j.data) && j.enabled !== false) {
      items = gapItems(j, kinds, d);
      $("gaps-source").textContent = "From the gap queue (GET /v1/guard/gaps), most frequent first; the decision and tenant/KB filters apply." + more(j, items);
    }
  } catch (e) { /* no gap queue on this server, or not for this key */ }
  if (!items) {
    // The server groups the turn log's refusals and fallbacks as the
    // queue files them (an off-topic refusal is kind off_topic), within
    // the time window of the turn list.
    const q = query({ source: "turnlog" });
    for (const k of ["since", "until"]) if (f.get(k)) q.set(k, f.get(k));
    try {
      const j = await api("/v1/guard/gaps?" + q.toString());
      items = gapItems(j, kinds, d);
      $("gaps-source").textContent = "No gap queue on this server (or gaps.enabled: false): refusals and fallbacks from the turn log (GET /v1/guard/gaps?source=turnlog), " +
        "grouped by question, most frequent first, within the time window; a refusal as outside the corpus (gate.off_topic: refuse) counts as off-topic, as in the gap queue." + more(j, items);
    } catch (e) {
      // Not grouped here: one grouping, the server's.
      gapOptions(() => null);
      items = [];
      $("gaps-source").textContent = "No gap list: the server refused it (" + e.message + "). The refusals and fallbacks are in the turn list (filter the decision).";
    }
  }
  tbody.replaceChildren(...items.map((g) => el("tr", { "data-decision": g.decision, "data-kind": g.kind },
    el("td", {}, g.question), el("td", {}, g.kind), el("td", {}, g.decision ? badge(g.decision) : ""), el("td", { class: "num" }, g.count),
    el("td", {}, g.part), el("td", {}, hms(g.last)), el("td", { class: "num" }, fmt(g.cov)),
    el("td", { class: "actions" }, g.id ? [gapButton(g, "resolve"), " ", gapButton(g, "dismiss")] : ""))));
}

// gapButton closes a gap queue entry (POST /v1/guard/gaps/ID/resolve or
// /dismiss, an admin key when auth is on) and reloads the list.
function gapButton(g, action) {
  return el("button", { type: "button", class: "gap-action", "data-gap-id": g.id, "data-action": action,
    "aria-label": action + ": " + g.question, onclick: async (e) => {
      e.currentTarget.disabled = true;
      try {
        await api("/v1/guard/gaps/" + encodeURIComponent(g.id) + "/" + action, {});
        status(action === "resolve" ? "Marked resolved." : "Dismissed.");
      } catch (err) {
        status(String(err.message || err), true);
      }
      await renderGaps();
    } }, action);
}

// ---- wiring
function init() {
  const h = readHash();
  $("key").value = state.key;
  $("f-decision").value = h.decision;
  $("f-window").value = h.window;
  $("f-gaps").value = GAP_KINDS[h.gaps] ? h.gaps : "all";
  if (h.part) $("f-part").append(el("option", { value: h.part, selected: true }, h.part));
  state.selected = h.turn;
  $("key-form").addEventListener("submit", (e) => {
    e.preventDefault();
    state.key = $("key").value.trim();
    sessionStorage.setItem("guard-key", state.key);
    load();
  });
  $("refresh").addEventListener("click", load);
  for (const id of ["f-decision", "f-part", "f-window"]) $(id).addEventListener("change", () => { writeHash(); load(); });
  $("f-gaps").addEventListener("change", () => { writeHash(); renderGaps(); });
  $("whatif-form").addEventListener("submit", runWhatIf);
  $("whatif-reset").addEventListener("click", () => { fillWhatIfDefaults(true); state.whatif = null; renderHist(); $("whatif-result").replaceChildren(); });
  load().then(() => {
    if (!h.whatif) return;
    const f = $("whatif-form");
    for (const kv of h.whatif.split(",")) {
      const [k, v] = kv.split(":");
      if (f.elements[k]) f.elements[k].value = v;
    }
    return runWhatIf();
  }).finally(() => document.body.setAttribute("data-ready", "1"));
}

init();
