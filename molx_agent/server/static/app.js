// molx-agent web page: chat with live progress, uploads, route view, reports, interrupts.
// Plain JavaScript, no build step, no external resources (works offline).
"use strict";

const API = "/api/v1";
const $ = (id) => document.getElementById(id);
const state = { session: null, attached: new Set(), busy: false, depictCache: new Map(), reportFiles: [] };

// ---------------------------------------------------------------------------------------------------------------
// API access: the key travels as Authorization: Bearer; a 401 asks for it once and retries.
function apiKey() { try { return localStorage.getItem("molx-api-key") || ""; } catch (e) { return ""; } }
function setApiKey(k) { try { localStorage.setItem("molx-api-key", k); } catch (e) { /* private mode */ } }
function headers(extra) {
  const h = Object.assign({}, extra || {});
  const k = apiKey();
  if (k) h["Authorization"] = "Bearer " + k;
  return h;
}

class ApiError extends Error {
  constructor(status, body) {
    const err = (body && body.error) || {};
    super(err.message || ("HTTP " + status));
    this.status = status; this.code = err.code || "http_" + status; this.hint = err.hint;
  }
}

async function api(path, opts, retried) {
  opts = opts || {};
  const init = { method: opts.method || "GET", headers: headers(opts.headers) };
  if (opts.json !== undefined) { init.body = JSON.stringify(opts.json); init.headers["Content-Type"] = "application/json"; }
  if (opts.body) init.body = opts.body;
  const res = await fetch(path, init);
  if (res.status === 401 && !retried) {
    const ok = await askKey(res);
    if (ok) return api(path, opts, true);
  }
  if (!res.ok) {
    let body = null; try { body = await res.json(); } catch (e) { /* not JSON */ }
    throw new ApiError(res.status, body);
  }
  if (opts.raw) return res;
  const type = res.headers.get("content-type") || "";
  return type.includes("json") ? res.json() : res.text();
}

function askKey(res) {
  return new Promise((resolve) => {
    const dlg = $("key-dialog");
    $("key-input").value = apiKey();
    $("key-error").textContent = apiKey() ? "The saved key was refused." : "";
    dlg.returnValue = "";
    dlg.onclose = () => {
      if (dlg.returnValue === "ok" && $("key-input").value.trim()) { setApiKey($("key-input").value.trim()); resolve(true); }
      else resolve(false);
    };
    dlg.showModal();
  });
}

function setStatus(text) { $("status").textContent = text || ""; }
function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") node.className = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (v !== undefined && v !== null) node.setAttribute(k, v);
  }
  for (const c of children) if (c !== null && c !== undefined) node.append(c instanceof Node ? c : String(c));
  return node;
}

// ---------------------------------------------------------------------------------------------------------------
// Structures: SVG drawn by the server (RDKit), fetched with the key, shown through a blob URL.
function depictImg(smiles, w, h) {
  const img = el("img", { alt: smiles, title: smiles, class: "depict", width: w || 130, height: h || 90 });
  const key = smiles + "|" + (w || 260);
  let p = state.depictCache.get(key);
  if (!p) {
    const q = new URLSearchParams({ smiles: smiles, width: String((w || 130) * 2), height: String((h || 90) * 2) });
    p = api(API + "/depict?" + q.toString(), { raw: true })
      .then((r) => r.blob()).then((b) => URL.createObjectURL(b));
    state.depictCache.set(key, p);
  }
  p.then((url) => { img.src = url; }).catch(() => { img.alt = "(cannot draw) " + smiles; });
  return img;
}

// ---------------------------------------------------------------------------------------------------------------
// Sessions and files
async function loadSessions() {
  try {
    const data = await api(API + "/sessions");
    const ul = $("sessions"); ul.replaceChildren();
    for (const s of data.sessions) {
      const li = el("li", { "data-id": s.id, class: s.id === state.session ? "active" : "" },
        el("span", {}, s.name || s.id),
        el("button", { class: "del", title: "Delete session", type: "button", onclick: (ev) => { ev.stopPropagation(); deleteSession(s.id); } }, "✕"));
      li.addEventListener("click", () => openSession(s.id));
      ul.append(li);
    }
    setStatus("");
  } catch (e) { setStatus(e.message); }
}

async function newSession() {
  const s = await api(API + "/sessions", { method: "POST", json: {} });
  await openSession(s.id);
  await loadSessions();
  return s.id;
}

async function deleteSession(id) {
  if (!confirm("Delete session " + id + " and its files?")) return;
  await api(API + "/sessions/" + encodeURIComponent(id), { method: "DELETE" });
  if (state.session === id) { state.session = null; $("messages").replaceChildren(); $("files").replaceChildren(); }
  await loadSessions();
}

async function openSession(id) {
  state.session = id; state.attached.clear(); renderAttached();
  for (const li of $("sessions").children) li.classList.toggle("active", li.dataset.id === id);
  $("session-title").textContent = "Session " + id;
  $("messages").replaceChildren(); $("interrupt").hidden = true;
  try {
    const hist = await api(API + "/sessions/" + encodeURIComponent(id) + "/history");
    for (const m of hist.messages) addMessage(m.role, m.content);
    const detail = await api(API + "/sessions/" + encodeURIComponent(id));
    renderFiles(detail.files);
    if (detail.interrupt) showInterrupt({ interrupt: detail.interrupt, session_id: id });
  } catch (e) { addMessage("error", e.message); }
}

async function refreshFiles() {
  if (!state.session) return;
  const data = await api(API + "/sessions/" + encodeURIComponent(state.session) + "/files");
  renderFiles(data.files);
}

function fileUrl(path) {
  return API + "/sessions/" + encodeURIComponent(state.session) + "/files/" + path.split("/").map(encodeURIComponent).join("/");
}

async function download(path) {
  const res = await api(fileUrl(path), { raw: true });
  const url = URL.createObjectURL(await res.blob());
  const a = el("a", { href: url, download: path.split("/").pop() });
  document.body.append(a); a.click(); a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

function renderFiles(files) {
  const ul = $("files"); ul.replaceChildren();
  state.reportFiles = files.filter((f) => f.kind === "report" && f.path.toLowerCase().endsWith(".html"));
  const ext = (p) => (p.split(".").pop() || "").toLowerCase();
  const fileItem = (f, label) => {
    const li = el("li", { "data-path": f.path }, el("span", { class: "tag " + ext(f.path) }, ext(f.path)));
    if (ext(f.path) === "html") {
      li.append(el("a", { title: "Show " + f.path, onclick: () => { selectTab("reports"); showReport(f.path); } }, label),
        el("button", { class: "del", type: "button", title: "Download", onclick: () => download(f.path) }, "⤓"));
    } else {
      li.append(el("a", { title: "Download " + f.path, onclick: () => download(f.path) }, label));
    }
    return li;
  };
  const runs = new Map();
  for (const f of files) {
    if (f.kind === "upload") {
      const li = fileItem(f, f.name);
      li.append(el("button", { class: "del", type: "button", title: "Attach to the next question", onclick: () => { state.attached.add(f.name); renderAttached(); } }, "+"));
      ul.append(li);
    } else {
      const parts = f.path.split("/");
      const run = parts[1] || "reports";
      if (!runs.has(run)) runs.set(run, []);
      runs.get(run).push(f);
    }
  }
  for (const [run, list] of Array.from(runs.entries()).reverse()) {
    const inner = el("ul", {});
    list.sort((a, b) => (ext(b.path) === "html") - (ext(a.path) === "html"));
    for (const f of list) inner.append(fileItem(f, f.path.split("/").slice(2).join("/")));
    ul.append(el("li", { class: "run" }, el("details", {}, el("summary", {}, run + " (" + list.length + ")"), inner)));
  }
  renderReportSelect();
}

function renderAttached() {
  const box = $("attached"); box.replaceChildren();
  for (const name of state.attached) {
    box.append(el("span", { class: "chip" }, name, el("button", { type: "button", title: "Detach", onclick: () => { state.attached.delete(name); renderAttached(); } }, "✕")));
  }
}

async function upload(file) {
  $("upload-error").textContent = "";
  if (!state.session) await newSession();
  const form = new FormData(); form.append("file", file, file.name);
  try {
    const rec = await api(API + "/sessions/" + encodeURIComponent(state.session) + "/files", { method: "POST", body: form });
    state.attached.add(rec.name); renderAttached();
    if (!$("query").value.trim()) $("query").value = "Analyse the SAR of " + rec.name;
    await refreshFiles();
  } catch (e) { $("upload-error").textContent = e.message; }
}

// ---------------------------------------------------------------------------------------------------------------
// Chat and streaming (POST + Server-Sent Events read with fetch and a ReadableStream)
function addMessage(role, text, meta) {
  const div = el("div", { class: "msg " + role }, text || "");
  if (meta) div.append(el("div", { class: "meta" }, meta));
  $("messages").append(div);
  $("messages").scrollTop = $("messages").scrollHeight;
  return div;
}

function progressStart() {
  $("progress").hidden = false; $("progress-steps").replaceChildren(); $("progress-text").textContent = "Working…";
}
function progressEvent(ev) {
  const steps = $("progress-steps");
  if (ev.event === "node_start") {
    steps.append(el("li", { "data-node": ev.node }, ev.node));
    $("progress-text").textContent = "Running " + ev.node + "…";
  } else if (ev.event === "node_end") {
    const items = steps.querySelectorAll("li[data-node='" + CSS.escape(ev.node) + "']:not(.done)");
    if (items.length) items[items.length - 1].classList.add("done");
  } else if (ev.event === "progress") {
    const nums = Object.entries(ev).filter(([k, v]) => !["event", "node", "worker", "stage"].includes(k) && (typeof v === "number" || typeof v === "string"))
      .map(([k, v]) => k.replace(/_/g, " ") + " " + (typeof v === "number" ? Math.round(v * 100) / 100 : v));
    $("progress-text").textContent = [ev.worker || ev.node, ev.stage].filter(Boolean).join(" · ") + (nums.length ? " — " + nums.join(", ") : "");
  }
  steps.scrollTop = steps.scrollHeight;
}
function progressEnd() { $("progress").hidden = true; }

async function streamPost(path, body, onEvent) {
  let res = await fetch(path, { method: "POST", headers: headers({ "Content-Type": "application/json", "Accept": "text/event-stream" }), body: JSON.stringify(body) });
  if (res.status === 401 && await askKey(res)) {
    res = await fetch(path, { method: "POST", headers: headers({ "Content-Type": "application/json", "Accept": "text/event-stream" }), body: JSON.stringify(body) });
  }
  if (!res.ok) { let b = null; try { b = await res.json(); } catch (e) { /* */ } throw new ApiError(res.status, b); }
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buf = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buf += decoder.decode(value, { stream: true });
    let cut;
    while ((cut = buf.indexOf("\n\n")) >= 0) {
      const chunk = buf.slice(0, cut); buf = buf.slice(cut + 2);
      const data = chunk.split("\n").filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trimStart()).join("\n");
      if (data) { try { onEvent(JSON.parse(data)); } catch (e) { console.warn("bad event", e); } }
    }
  }
}

function handleEvent(ev) {
  switch (ev.event) {
    case "session":
      if (ev.session_id && ev.session_id !== state.session) { state.session = ev.session_id; $("session-title").textContent = "Session " + ev.session_id; loadSessions(); }
      break;
    case "node_start": case "node_end": case "progress": progressEvent(ev); break;
    case "interrupt": progressEnd(); showInterrupt(ev); break;
    case "final": progressEnd(); showFinal(ev); break;
    case "error": progressEnd(); addMessage("error", "Error: " + ev.message + (ev.hint ? "\nHint: " + ev.hint : "")); break;
    default: break;
  }
}

async function ask(text) {
  if (state.busy) return;
  const options = {};
  if ($("opt-confirm").checked) options.confirm_plan = true;
  if ($("opt-choose").checked) options.choose_route = true;
  const t = parseFloat($("opt-time").value); if (t > 0) options.search_time = t;
  const body = { query: text };
  if (state.session) body.session_id = state.session;
  if (state.attached.size) body.files = Array.from(state.attached);
  if (Object.keys(options).length) body.options = options;
  addMessage("user", text, body.files ? "files: " + body.files.join(", ") : null);
  state.attached.clear(); renderAttached();
  await run(() => streamPost(API + "/agent/stream", body, handleEvent));
}

async function run(fn) {
  state.busy = true; $("send").disabled = true; progressStart();
  try { await fn(); } catch (e) { addMessage("error", "Error: " + e.message + (e.hint ? "\nHint: " + e.hint : "")); }
  finally { state.busy = false; $("send").disabled = false; progressEnd(); }
}

// ---------------------------------------------------------------------------------------------------------------
// Interrupts: plan approval (approve / revise), route choice (one button per route), other decisions.
function showInterrupt(ev) {
  const payload = ev.interrupt || {};
  const box = $("interrupt"); box.replaceChildren(); box.hidden = false;
  box.dataset.kind = payload.kind || "";
  box.append(el("div", { class: "question" }, payload.question || "The agent needs your decision."));
  const choices = el("div", { class: "choices" });
  const answer = (a, label) => { box.hidden = true; addMessage("user", "↳ " + label); resume(ev.thread_id || ev.session_id || state.session, a); };
  if (payload.kind === "plan_approval") {
    for (const o of payload.options || []) choices.append(el("div", { class: "muted" }, o.label || o.id));
    const fb = el("textarea", { rows: 2, placeholder: "What should change? (for a revised plan)", id: "plan-feedback" });
    choices.append(el("div", { class: "row" },
      el("button", { type: "button", class: "approve", onclick: () => answer({ approve: true }, "approve the plan") }, "Approve the plan"),
      el("button", { type: "button", class: "ghost revise", onclick: () => answer({ approve: false, feedback: fb.value.trim() }, "revise: " + fb.value.trim()) }, "Revise")));
    choices.append(fb);
  } else if (payload.kind === "route_choice") {
    (payload.options || []).forEach((o, i) => {
      const b = el("button", { type: "button", class: "choice", "data-index": String(i), onclick: () => answer({ route: i }, "route " + (i + 1) + ": " + (o.label || o.id)) });
      const smiles = firstSmiles(o);
      if (smiles) b.append(depictImg(smiles, 240, 84));
      const info = el("div", {}, el("div", { class: "name" }, o.label || ("Route " + (i + 1))));
      const badges = el("div", {});
      for (const k of ["confidence", "verdict", "n_steps", "score"]) if (o[k] !== undefined && o[k] !== null) badges.append(el("span", { class: "badge " + String(o[k]) }, k.replace("_", " ") + ": " + fmt(o[k])), " ");
      info.append(badges); b.append(info); choices.append(b);
    });
  } else {
    (payload.options || []).forEach((o) => {
      const val = o.answer !== undefined ? o.answer : (o.id !== undefined ? { action: o.id } : o);
      choices.append(el("button", { type: "button", class: "choice", onclick: () => answer(val, o.label || o.id) }, o.label || o.id));
    });
    if (payload.default !== undefined) choices.append(el("button", { type: "button", class: "ghost", onclick: () => answer(payload.default, "default") }, "Use the default"));
  }
  box.append(choices);
}

function firstSmiles(o) {
  if (!o) return null;
  if (typeof o.smiles === "string") return o.smiles;
  if (Array.isArray(o.reactions) && o.reactions.length) return o.reactions[o.reactions.length - 1];
  if (Array.isArray(o.precursors) && o.precursors.length) return o.precursors.join(".");
  if (o.route && typeof o.route.smiles === "string") return o.route.smiles;
  return null;
}

async function resume(threadId, answer) {
  await run(() => streamPost(API + "/agent/resume/stream", { session_id: threadId, answer: answer }, handleEvent));
}

// ---------------------------------------------------------------------------------------------------------------
// Final answer: the text, the routes (tree view) and the reports
function fmt(v) { return typeof v === "number" ? String(Math.round(v * 100) / 100) : String(v); }

function showFinal(ev) {
  if (ev.status === "interrupted") return;  // the interrupt event already asked the question
  const meta = [];
  if (ev.intent) meta.push("intent: " + ev.intent);
  if (ev.files && ev.files.length) meta.push(ev.files.filter((f) => f.path.endsWith(".html")).length + " report(s)");
  addMessage("assistant", ev.final_answer || "(no answer)", meta.join(" · "));
  for (const e of ev.errors || []) if (e.code === "warning") addMessage("error", "Warning: " + e.message);
  const routes = collectRoutes(ev.results || {});
  if (routes.length) { renderRoutes(routes); selectTab("routes"); }
  refreshFiles().then(() => {
    const html = (ev.files || []).filter((f) => f.path.toLowerCase().endsWith(".html"));
    if (html.length) {
      const sar = html.find((f) => /sar/i.test(f.path));
      showReport((sar || html[0]).path);
      if (!routes.length) selectTab("reports");
    }
  }).catch(() => {});
}

function collectRoutes(results) {
  const out = [];
  const chosen = {};  // target SMILES -> {route, by} (the validation result's route_choice)
  for (const r of Object.values(results)) if (r && r.route_choice && typeof r.route_choice === "object") Object.assign(chosen, r.route_choice);
  for (const [tid, r] of Object.entries(results)) {
    if (!r || !Array.isArray(r.routes)) continue;
    const choice = chosen[r.target_smiles];
    r.routes.forEach((tree, i) => out.push({ task: tid, index: i, tree: tree, target: r.target_name || r.target_smiles, solved: r.solved,
      chosen: choice && choice.route === i ? choice.by : null }));
  }
  return out;
}

function renderRoutes(routes) {
  const box = $("routes"); box.replaceChildren();
  for (const r of routes) {
    const info = (r.tree.metadata && r.tree.metadata.route) || {};
    const h = el("h3", {}, "Route " + (info.rank || r.index + 1) + (r.target ? " — " + r.target : ""));
    if (info.confidence) h.append(el("span", { class: "badge confidence " + info.confidence }, "confidence " + info.confidence));
    if (info.verdict) h.append(el("span", { class: "badge " + info.verdict }, info.verdict));
    if (info.n_steps !== undefined) h.append(el("span", { class: "badge" }, info.n_steps + " step(s)"));
    if (r.chosen) h.append(el("span", { class: "badge chosen" }, r.chosen === "chemist" ? "chosen by you" : "chosen"));
    const tree = el("ul", { class: "tree" }, renderNode(r.tree));
    box.append(el("div", { class: "route", "data-route": String(r.index) }, h, tree));
  }
}

function renderNode(node) {
  const li = el("li", {});
  if (node.type === "reaction") {
    const md = node.metadata || {};
    const name = md.reaction_name || md.reaction_type || md.template_name || "step";
    li.append(el("span", { class: "rxn step-name", title: node.smiles || "" }, name + (md.score !== undefined ? " (score " + fmt(md.score) + ")" : "")));
  } else {
    const md = node.metadata || {};
    const avail = md.availability || {};
    const leaf = !node.children || !node.children.length;
    const card = el("span", { class: "mol", "data-smiles": node.smiles }, depictImg(node.smiles));
    const text = el("span", {});
    if (md.name) text.append(el("div", { class: "name" }, md.name));
    text.append(el("div", { class: "smi" }, node.smiles));
    if (leaf) {
      const tier = avail.tier || (node.in_stock ? "verified" : "unavailable");
      text.append(el("span", { class: "badge tier " + tier }, tier));
    }
    card.append(text); li.append(card);
  }
  if (node.children && node.children.length) {
    const ul = el("ul", {});
    for (const c of node.children) ul.append(renderNode(c));
    li.append(ul);
  }
  return li;
}

function renderReportSelect() {
  const sel = $("report-select"); const current = sel.value; sel.replaceChildren();
  for (const f of state.reportFiles.slice().reverse()) sel.append(el("option", { value: f.path }, f.path.replace(/^reports\//, "")));
  if (current && state.reportFiles.some((f) => f.path === current)) sel.value = current;
}

async function showReport(path) {
  renderReportSelect();
  $("report-select").value = path;
  try {
    const html = await api(fileUrl(path) + "?inline=1", { raw: true }).then((r) => r.text());
    $("report-frame").srcdoc = html;
    $("report-frame").dataset.path = path;
  } catch (e) { $("report-frame").srcdoc = "<p>" + e.message.replace(/</g, "&lt;") + "</p>"; }
}

function selectTab(name) {
  for (const t of document.querySelectorAll(".tab")) t.classList.toggle("active", t.dataset.tab === name);
  $("tab-routes").hidden = name !== "routes"; $("tab-reports").hidden = name !== "reports";
}

// ---------------------------------------------------------------------------------------------------------------
document.addEventListener("DOMContentLoaded", () => {
  $("ask").addEventListener("submit", (ev) => { ev.preventDefault(); const t = $("query").value.trim(); if (t) { $("query").value = ""; ask(t); } });
  $("query").addEventListener("keydown", (ev) => { if (ev.key === "Enter" && !ev.shiftKey) { ev.preventDefault(); $("ask").requestSubmit(); } });
  $("new-session").addEventListener("click", () => newSession().catch((e) => setStatus(e.message)));
  $("file-input").addEventListener("change", (ev) => { const f = ev.target.files[0]; if (f) upload(f); ev.target.value = ""; });
  $("key-button").addEventListener("click", () => askKey().then(() => loadSessions()));
  $("report-select").addEventListener("change", (ev) => showReport(ev.target.value));
  $("report-download").addEventListener("click", () => { const p = $("report-select").value; if (p) download(p); });
  for (const t of document.querySelectorAll(".tab")) t.addEventListener("click", () => selectTab(t.dataset.tab));
  loadSessions();
});
