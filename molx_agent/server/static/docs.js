// Offline API docs: renders /openapi.json (fetched with the API key when the server needs one).
"use strict";
const $ = (id) => document.getElementById(id);
function key() { try { return localStorage.getItem("molx-api-key") || ""; } catch (e) { return ""; } }
function el(tag, cls, text) { const n = document.createElement(tag); if (cls) n.className = cls; if (text !== undefined) n.textContent = text; return n; }

function schemaText(spec, schema) {
  if (!schema) return "";
  if (schema.$ref) {
    const name = schema.$ref.split("/").pop();
    const s = spec.components.schemas[name] || {};
    const props = Object.entries(s.properties || {}).map(([k, v]) => "  " + k + ((s.required || []).includes(k) ? "" : "?") + ": " + (v.description || v.type || (v.anyOf ? v.anyOf.map((x) => x.type || (x.$ref || "").split("/").pop()).join(" | ") : "")));
    return name + " {\n" + props.join("\n") + "\n}";
  }
  return JSON.stringify(schema);
}

async function load() {
  $("error").textContent = "";
  const h = {}; if (key()) h["Authorization"] = "Bearer " + key();
  const res = await fetch("/openapi.json", { headers: h });
  if (res.status === 401) { $("keyrow").hidden = false; $("error").textContent = "This server needs an API key."; return; }
  const spec = await res.json();
  $("intro").textContent = spec.info.description || "";
  const box = $("paths"); box.replaceChildren();
  for (const [path, ops] of Object.entries(spec.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      const sec = el("section", "route");
      sec.append(el("h3", "", method.toUpperCase() + " " + path));
      if (op.summary) sec.append(el("p", "", op.summary));
      const params = (op.parameters || []).map((p) => p.name + " (" + p.in + (p.required ? ", required" : "") + ")");
      if (params.length) sec.append(el("p", "muted", "parameters: " + params.join(", ")));
      const body = op.requestBody && op.requestBody.content;
      if (body) for (const [type, c] of Object.entries(body)) sec.append(el("pre", "", type + "\n" + schemaText(spec, c.schema)));
      box.append(sec);
    }
  }
}
document.addEventListener("DOMContentLoaded", () => {
  $("go").addEventListener("click", () => { try { localStorage.setItem("molx-api-key", $("key").value.trim()); } catch (e) { /* */ } load(); });
  load().catch((e) => { $("error").textContent = String(e); });
});
