// bob dashboard: plain DOM, no build step. Every value from the server is set with
// textContent (never as HTML). The token lives in sessionStorage (this tab only) and goes in
// the Authorization header, never in a URL.
"use strict";
const $ = (id) => document.getElementById(id);
let token = sessionStorage.getItem("bob-token") || "";

async function api(method, path, body) {
  const opts = { method, headers: { Authorization: "Bearer " + token } };
  if (body !== undefined) {
    opts.headers["Content-Type"] = "application/json";
    opts.body = JSON.stringify(body);
  }
  const r = await fetch(path, opts);
  const v = await r.json().catch(() => ({}));
  if (r.status === 401) { signOut(); throw new Error("signed out: " + (v.error ? v.error.message : r.status)); }
  if (!r.ok) throw new Error(v.error ? v.error.code + ": " + v.error.message : "HTTP " + r.status);
  return v;
}

function cell(tr, text, cls) {
  const td = document.createElement("td");
  td.textContent = text == null ? "" : String(text);
  if (cls) td.className = cls;
  tr.appendChild(td);
  return td;
}

function button(label, onClick) {
  const b = document.createElement("button");
  b.textContent = label;
  b.addEventListener("click", (e) => { e.stopPropagation(); onClick().catch(alertError); });
  return b;
}

function alertError(e) { $("run-error").textContent = e.message; }

const TERMINAL = ["run.completed", "run.failed", "run.cancelled"];
const LIVE = ["queued", "running"];
let shownRun = null; // {id, status, queuedHere} of the detail pane

async function loadRuns() {
  const v = await api("GET", "/api/admin/runs?limit=50");
  $("runs-total").textContent = "(" + v.total + ")";
  const body = $("runs");
  body.replaceChildren();
  for (const r of v.runs) {
    const tr = document.createElement("tr");
    tr.className = "clickable" + (shownRun && shownRun.id === r.id ? " selected" : "");
    tr.dataset.id = r.id;
    tr.dataset.source = r.source;
    cell(tr, r.id, "narrow-hide"); cell(tr, r.source); cell(tr, r.session_id);
    cell(tr, r.status, "status-" + r.status);
    cell(tr, r.tool_calls, "narrow-hide"); cell(tr, r.duration_ms, "narrow-hide");
    cell(tr, r.output || (r.error ? r.error.code : ""));
    tr.addEventListener("click", () => showRun(r.id, r.queued_here).catch(alertError));
    body.appendChild(tr);
    // The list saw the shown run change state (its stream may have ended first): refresh.
    if (shownRun && shownRun.id === r.id && shownRun.status !== r.status) renderRun(r.id).catch(alertError);
  }
}

// The detail pane of one run: a run this server queued through /v1/runs/{id} (with Cancel while
// it is live), any other (bob turn, the scheduler) from its bundle.
async function renderRun(id) {
  let r;
  if (shownRun && shownRun.id === id && !shownRun.queuedHere) {
    const b = await api("GET", "/api/admin/runs/" + encodeURIComponent(id));
    r = { status: b.record.status, output: b.record.output, error: b.record.error,
          trace: { tool_execution_results: b.tool_results } };
  } else {
    r = await api("GET", "/v1/runs/" + encodeURIComponent(id));
  }
  if (!shownRun || shownRun.id !== id) return;
  shownRun.status = r.status;
  $("detail-status").textContent = "(" + r.status + ")";
  $("detail-status").className = "status-" + r.status;
  const cancel = $("detail-cancel");
  cancel.hidden = !(shownRun.queuedHere && LIVE.includes(r.status));
  cancel.onclick = () => api("POST", "/v1/runs/" + encodeURIComponent(id) + "/cancel").then(() => renderRun(id)).catch(alertError);
  $("detail-output").textContent = LIVE.includes(r.status) ? r.status + "…"
    : (r.output || (r.error ? r.error.code + ": " + r.error.message : r.status));
  const tools = $("detail-tools");
  tools.replaceChildren();
  for (const t of (r.trace && r.trace.tool_execution_results) || []) {
    const tr = document.createElement("tr");
    cell(tr, t.tool); cell(tr, t.tool_call_id); cell(tr, t.summary); cell(tr, t.error, "error");
    tools.appendChild(tr);
  }
}

async function showRun(id, queuedHere = true) {
  shownRun = { id, status: null, queuedHere };
  $("detail").hidden = false;
  $("detail-id").textContent = id;
  for (const tr of $("runs").children) tr.classList.toggle("selected", tr.dataset.id === id);
  await renderRun(id);
  const list = $("detail-events");
  list.replaceChildren();
  if (!queuedHere) {
    const b = await api("GET", "/api/admin/runs/" + encodeURIComponent(id));
    for (const ev of b.events) list.appendChild(eventItem(ev));
    return;
  }
  streamEvents(id, (ev) => {
    if (!shownRun || shownRun.id !== id) return;
    list.appendChild(eventItem(ev));
    // Every terminal event refreshes the pane: no finished run stays "running" with a Cancel.
    if (TERMINAL.includes(ev.event_type)) renderRun(id).catch(alertError);
  }).then(() => {
    if (shownRun && shownRun.id === id) renderRun(id).catch(alertError);
    loadRuns().catch(alertError);
  });
}

function eventItem(ev) {
  const li = document.createElement("li");
  li.textContent = "#" + ev.seq + " " + ev.event_type;
  return li;
}

// SSE over fetch (EventSource cannot send an Authorization header). One stream per purpose
// ("detail", "chat"): a new one of the same purpose ends the old one. Resolves when it ends.
const streams = {};
async function streamEvents(id, onEvent, purpose = "detail") {
  if (streams[purpose]) streams[purpose].abort();
  const abort = new AbortController();
  streams[purpose] = abort;
  const r = await fetch("/v1/runs/" + encodeURIComponent(id) + "/events", {
    headers: { Authorization: "Bearer " + token }, signal: abort.signal,
  }).catch(() => null);
  if (!r || !r.ok || !r.body) return;
  const reader = r.body.pipeThrough(new TextDecoderStream()).getReader();
  let buf = "";
  for (;;) {
    const { value, done } = await reader.read().catch(() => ({ done: true }));
    if (done) break;
    buf += value;
    let i;
    while ((i = buf.indexOf("\n\n")) >= 0) {
      const chunk = buf.slice(0, i); buf = buf.slice(i + 2);
      const data = chunk.split("\n").filter((l) => l.startsWith("data: ")).map((l) => l.slice(6)).join("\n");
      if (!data) continue;
      let ev;
      try { ev = JSON.parse(data); } catch (_) { continue; /* keep-alive or partial */ }
      onEvent(ev);
    }
  }
  if (streams[purpose] === abort) delete streams[purpose];
}

// ---- The conversation view: one session's history, the next message, the answer live. ----

let chatSession = sessionStorage.getItem("bob-chat-session") || "";

function newSessionId() {
  const d = new Date().toISOString().slice(0, 10).replaceAll("-", "");
  const rand = crypto.getRandomValues(new Uint8Array(4));
  return "web-" + d + "-" + [...rand].map((b) => b.toString(16).padStart(2, "0")).join("");
}

function setChatSession(id) {
  chatSession = id;
  sessionStorage.setItem("bob-chat-session", id);
}

async function loadSessions() {
  const v = await api("GET", "/api/admin/sessions?limit=100");
  const sel = $("chat-session");
  sel.replaceChildren();
  const ids = v.sessions.map((s) => s.session_id);
  if (chatSession && !ids.includes(chatSession)) {
    sel.appendChild(new Option(chatSession + " (new)", chatSession));
  }
  for (const s of v.sessions) {
    const label = s.session_id + " · " + s.runs + " run" + (s.runs === 1 ? "" : "s")
      + (s.last_message ? " · " + s.last_message.slice(0, 40) : "");
    sel.appendChild(new Option(label, s.session_id));
  }
  if (!chatSession && ids.length) setChatSession(ids[0]);
  if (!chatSession) setChatSession(newSessionId());
  if (!sel.querySelector("option[value=\"" + CSS.escape(chatSession) + "\"]")) {
    sel.appendChild(new Option(chatSession + " (new)", chatSession));
  }
  sel.value = chatSession;
}

function chatItem(role, text, extra) {
  const li = document.createElement("li");
  li.className = "msg " + role + (extra && extra.status ? " " + extra.status : "") + (extra && extra.pending ? " pending" : "");
  if (extra && extra.run_id) li.dataset.run = extra.run_id;
  li.textContent = text;
  return li;
}

function toolItem(m) {
  const li = document.createElement("li");
  li.className = "msg tool";
  if (m.run_id) li.dataset.run = m.run_id;
  if (m.tool_call_id) li.dataset.call = m.tool_call_id;
  const d = document.createElement("details");
  const s = document.createElement("summary");
  s.textContent = "tool " + (m.tool_name || "?") + ": " + (m.error ? m.error : (m.content || "running…"));
  const pre = document.createElement("pre");
  pre.textContent = m.output || m.input || "";
  d.append(s, pre);
  li.appendChild(d);
  return li;
}

function meta(li, text) {
  const span = document.createElement("span");
  span.className = "meta";
  span.textContent = text;
  li.appendChild(span);
}

async function loadConversation() {
  const log = $("chat-log");
  $("chat-info").textContent = "";
  let v;
  try {
    v = await api("GET", "/api/admin/sessions/" + encodeURIComponent(chatSession) + "/messages");
  } catch (e) {
    if (!String(e.message).startsWith("not_found")) throw e;
    log.replaceChildren();
    $("chat-info").textContent = "Session " + chatSession + " is new: its first message starts it.";
    return;
  }
  log.replaceChildren();
  if (v.agent_id) $("chat-agent").value = v.agent_id;
  $("chat-info").textContent = "Session " + v.session_id
    + (v.revision != null ? " · checkpoint revision " + v.revision : "")
    + (v.episode_summary ? " · " + v.episode_summary : "");
  for (const m of v.messages) {
    if (m.role === "tool") { log.appendChild(toolItem(m)); continue; }
    let text = m.content || "";
    if (m.role === "assistant" && m.status && m.status !== "completed" && m.error) {
      text = (text && text !== "..." ? text + "\n" : "") + "[" + m.status + "] " + m.error.code + ": " + m.error.message;
    }
    const li = chatItem(m.role, text, m);
    if (m.role === "user" && m.source && m.source !== "http") meta(li, "via " + m.source);
    if (m.role === "user" && m.pending) meta(li, "waiting for the answer…");
    log.appendChild(li);
  }
  log.scrollTop = log.scrollHeight;
  // A run of this session still queued or running (sent from elsewhere, or its stream ended
  // early): look again shortly.
  if (v.messages.some((m) => m.pending)) {
    const session = chatSession;
    setTimeout(() => { if (chatSession === session && !streams.chat) loadConversation().catch(() => {}); }, 2000);
  }
}

// Sends the next message of the session as a run in it, then follows the run's events live:
// each tool call appears (collapsed) as it happens, and the answer when the run ends.
async function sendMessage() {
  const text = $("chat-message").value;
  if (!text.trim()) return;
  const body = { agent_id: $("chat-agent").value.trim(), session_id: chatSession, message: text };
  $("chat-send").disabled = true;
  $("chat-error").textContent = "";
  let run;
  try {
    run = await api("POST", "/v1/runs", body);
  } catch (e) {
    $("chat-error").textContent = e.message;
    $("chat-send").disabled = false;
    return;
  }
  $("chat-message").value = "";
  const log = $("chat-log");
  if ($("chat-info").textContent.includes("is new")) $("chat-info").textContent = "Session " + chatSession;
  log.appendChild(chatItem("user", text, { run_id: run.id }));
  const answer = chatItem("assistant", "…", { run_id: run.id, pending: true });
  answer.id = "chat-live";
  log.appendChild(answer);
  log.scrollTop = log.scrollHeight;
  $("chat-status").textContent = "queued";
  const session = chatSession;
  let ended = false;
  await streamEvents(run.id, (ev) => {
    if (chatSession !== session) return;
    const p = ev.payload || {};
    // The answer as it streams (already masked by the server); the final, audited answer
    // replaces it when the run ends.
    if (ev.event_type === "answer.delta") {
      if (answer.classList.contains("pending")) { answer.classList.remove("pending"); answer.textContent = ""; }
      answer.textContent += ev.text || "";
      $("chat-status").textContent = "answering…";
    } else if (ev.event_type === "answer.reset") { answer.textContent = "…"; answer.classList.add("pending"); }
    else if (ev.event_type === "run.started") $("chat-status").textContent = "running";
    else if (ev.event_type === "model.requested") $("chat-status").textContent = "waiting on the model (" + (p.role || "model") + ")…";
    else if (ev.event_type === "tool.call") {
      log.insertBefore(toolItem({ run_id: run.id, tool_name: p.tool, tool_call_id: p.request_id, input: JSON.stringify(p.input, null, 2) }), answer);
      $("chat-status").textContent = "calling " + p.tool + "…";
    } else if (ev.event_type === "tool.result") {
      const li = log.querySelector("li.tool[data-call=\"" + CSS.escape(String(p.request_id)) + "\"] summary");
      if (li) li.textContent = "tool " + p.tool + ": " + (p.error ? "failed: " + (p.error.message || p.error.code) : "done");
    } else if (TERMINAL.includes(ev.event_type)) ended = true;
    log.scrollTop = log.scrollHeight;
  }, "chat");
  $("chat-send").disabled = false;
  if (chatSession !== session) return;
  $("chat-status").textContent = ended ? "" : "the event stream ended; reloading";
  await loadConversation().catch((e) => { $("chat-error").textContent = e.message; });
  loadSessions().catch(() => {});
  loadRuns().catch(() => {});
}

async function loadCandidates() {
  const v = await api("GET", "/api/admin/memory/candidates?status=pending");
  const body = $("candidates");
  body.replaceChildren();
  for (const c of v.candidates) {
    const tr = document.createElement("tr");
    tr.dataset.id = c.id;
    cell(tr, c.id); cell(tr, c.candidate && c.candidate.type); cell(tr, c.candidate && c.candidate.text);
    const td = cell(tr, "");
    const path = "/api/admin/memory/candidates/" + encodeURIComponent(c.id) + "/";
    td.append(
      button("Approve", async () => { await api("POST", path + "approve"); await loadCandidates(); }),
      button("Edit", async () => {
        const text = prompt("New text", c.candidate ? c.candidate.text : "");
        if (text === null) return;
        await api("POST", path + "edit", { fields: { text } }); await loadCandidates();
      }),
      button("Reject", async () => {
        const reason = prompt("Reason", "not useful");
        if (reason === null) return;
        await api("POST", path + "reject", { reason }); await loadCandidates();
      }),
    );
    body.appendChild(tr);
  }
}

// TURBOTIME of one session: the tool checkboxes, the toggle, and the banner while it is on.
async function loadTurbo() {
  const sid = $("turbo-session").value.trim();
  if (!sid) return;
  const v = await api("GET", "/api/admin/sessions/" + encodeURIComponent(sid) + "/turbotime");
  const box = $("turbo-tools");
  box.replaceChildren();
  for (const t of v.tools) {
    const label = document.createElement("label");
    const input = document.createElement("input");
    input.type = "checkbox";
    input.value = t;
    input.checked = v.selected.includes(t);
    label.append(input, " " + t);
    box.appendChild(label);
  }
  $("turbo-state").textContent = "Session " + v.session_id + ": TURBOTIME is " + (v.on ? "ON" : "off");
  const toggle = $("turbo-toggle");
  toggle.hidden = false;
  toggle.textContent = v.on ? "Turn off" : "Turn on";
  toggle.onclick = async () => {
    const body = { on: !v.on };
    if (!v.on) body.select = [...box.querySelectorAll("input:checked")].map((i) => i.value);
    await api("POST", "/api/admin/sessions/" + encodeURIComponent(sid) + "/turbotime", body).catch(alertError);
    await loadTurbo();
  };
  const banner = $("turbo-banner");
  banner.hidden = !v.on;
  banner.textContent = v.on
    ? "TURBOTIME is ON for session " + v.session_id + ": " + (v.selected.length ? v.selected.join(", ") : "no tool selected")
    : "";
}

// The scheduler's label says "running" only when a tick began recently (cron's or the daemon's).
function schedulerLabel(v) {
  if (v.paused) return "(paused)";
  const at = v.last_tick ? new Date(v.last_tick).toLocaleString() : null;
  if (v.ticking) return "(running: last tick " + at + ")";
  if (at) return "(not ticking: last tick " + at + "; is bob schedule daemon or cron running?)";
  return "(not running: no tick yet; start bob schedule daemon or install cron)";
}

async function loadJobs() {
  const v = await api("GET", "/api/admin/scheduler/jobs");
  $("sched-state").textContent = schedulerLabel(v);
  $("sched-toggle").textContent = v.paused ? "Resume all" : "Pause all";
  $("sched-toggle").onclick = () => api("POST", "/api/admin/scheduler/control", { action: v.paused ? "resume" : "pause" }).then(loadJobs).catch(alertError);
  const body = $("jobs");
  body.replaceChildren();
  for (const j of v.jobs) {
    const tr = document.createElement("tr");
    cell(tr, j.id); cell(tr, j.schedule); cell(tr, j.message); cell(tr, j.enabled ? "yes" : "no");
    const td = cell(tr, "");
    td.append(button(j.enabled ? "Pause" : "Resume", async () => {
      await api("POST", "/api/admin/scheduler/control", { action: j.enabled ? "pause" : "resume", job_id: j.id });
      await loadJobs();
    }));
    body.appendChild(tr);
  }
}

async function loadSecrets() {
  const v = await api("GET", "/api/admin/secrets");
  const ul = $("secrets");
  ul.replaceChildren();
  for (const s of v.secrets) {
    const li = document.createElement("li");
    li.textContent = s.name + " (updated " + s.updated_at + ")";
    ul.appendChild(li);
  }
}

function refresh() {
  return Promise.all([loadRuns(), loadCandidates(), loadTurbo(), loadJobs(), loadSecrets(),
    loadSessions().then(loadConversation)]);
}

function signOut() {
  token = "";
  sessionStorage.removeItem("bob-token");
  $("app").hidden = true; $("signin").hidden = false; $("signout").hidden = true;
}

async function signIn(t) {
  token = t;
  try {
    await api("GET", "/api/admin/status");
  } catch (e) {
    $("signin-error").textContent = e.message;
    signOut();
    return;
  }
  sessionStorage.setItem("bob-token", t);
  $("signin").hidden = true; $("app").hidden = false; $("signout").hidden = false;
  $("signin-error").textContent = "";
  await refresh().catch(alertError);
}

document.addEventListener("DOMContentLoaded", () => {
  $("signin-form").addEventListener("submit", (e) => { e.preventDefault(); signIn($("token").value.trim()); });
  $("signout").addEventListener("click", signOut);
  $("turbo-form").addEventListener("submit", (e) => { e.preventDefault(); loadTurbo().catch(alertError); });
  $("run-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const body = { agent_id: $("run-agent").value, message: $("run-message").value };
    if ($("run-mode").value) body.thinking_mode = $("run-mode").value;
    try {
      const r = await api("POST", "/v1/runs", body);
      $("run-error").textContent = "";
      $("run-message").value = "";
      await loadRuns();
      await showRun(r.id, true);
    } catch (err) { alertError(err); }
  });
  $("chat-form").addEventListener("submit", (e) => { e.preventDefault(); sendMessage().catch((err) => { $("chat-error").textContent = err.message; }); });
  $("chat-message").addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey) { e.preventDefault(); $("chat-form").requestSubmit(); }
  });
  $("chat-session").addEventListener("change", () => {
    setChatSession($("chat-session").value);
    loadConversation().catch((err) => { $("chat-error").textContent = err.message; });
  });
  $("chat-new").addEventListener("click", () => {
    setChatSession(newSessionId());
    loadSessions().then(loadConversation).catch((err) => { $("chat-error").textContent = err.message; });
    $("chat-message").focus();
  });
  setInterval(() => { if (token) { loadRuns().catch(() => {}); loadJobs().catch(() => {}); } }, 3000);
  if (token) signIn(token);
});
