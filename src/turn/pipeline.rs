//! The turn pipeline: one pass of a profile over a session (DESIGN.md §4).
//!
//! 1. `run.created`, `run.started` go to the audit log; the checkpoint is read and its
//!    revision taken (or `--expect-revision` checked).
//! 2. A recap question or pronoun-heavy follow-up gets a `Recent conversation summary`
//!    (traced as `recap`).
//! 3. Each role is called in order with its labelled inputs ([`super::prompts`]); roles that
//!    want retrieval get the seed 000 §5 block (`retrieval`). Every call is traced (`llm_req`,
//!    `llm_stream` when streaming, `llm_done` with usage and latency) and audited
//!    (`model.requested`). Tool calls in earlier roles' output are ignored (`tool_plan` with
//!    `ignored:true`); their NOTES patches and memory candidates are kept; their sanitized text
//!    becomes UPSTREAM for the next role.
//! 4. The final role alone runs tools, in a bounded loop (at most [`MAX_TOOL_ROUNDS`] rounds):
//!    native `tool_calls` and `<<<TOOL_CALLS_JSON>>>` blocks both work; every call goes through
//!    the tools runner (registry, policy, sandbox, audit `tool.call`/`tool.result`), so an
//!    unknown or disabled tool is a failure and never runs. The failure-loop rule applies:
//!    recovery mode adds a note to the system prompt; escalation ends the turn with the seed
//!    003 escalation response.
//! 5. The checkpoint is committed through [`checkpoint::update`] against the revision taken at
//!    the start (a concurrent turn gets `conflict`; nothing is lost): the user message and the
//!    visible answer appended to `recent_messages`, the NOTES patches applied as
//!    [`Actor::Model`] (requests, never grants) by [`notes::apply_to_checkpoint`], as `bob notes
//!    apply` does, then [`condense`] keeps `recent_messages` bounded. The trace gets the events
//!    of [`notes::trace_events`] (the same data as `bob notes apply`) with the `run_id`.
//! 6. At most 2 memory candidates are proposed (pending, for a human to decide), and the turn
//!    leaves one short-term memory entry (intent, resolution, open questions, tools used,
//!    entities; traced as `stm`), except when it escalated: a failed turn never gets here.
//!    The memory store is opened once per turn: by the retrieval thread ([`Prefetch`], started
//!    as soon as the message is read) when a store exists, else for the candidates or the entry.
//! 7. The visible answer is sanitized (`"..."` if nothing is left); the turn record goes to
//!    `turns.jsonl` and stdout; the audit log gets `run.completed`, `run.failed` or
//!    `run.cancelled`.
//!
//! Durability: trace and audit events are queued and written in batches (one lock and one
//! fdatasync per file) before the first LLM call (so `run.created` and `run.started` survive a
//! turn killed while it waits on the model), before any tool runs and at the end of the turn,
//! so everything that preceded a side effect is on disk before it happens; at the end the
//! trace, then the turn record, then the remaining audit events with the terminal one are
//! written, in that order. One exception: the trace's batch before the first LLM call is
//! written without its own fdatasync (it survives a killed process, and the trace's next synced
//! batch syncs it; only a power loss in between can lose those lines, while the audit log,
//! synced there, still records the run's start).

use super::mem::TurnSummary;
use super::prompts::{self, RoleInputs, Upstream};
use super::recap;
use super::{Profile, RoleSpec, ThinkingMode, TurnInput};
use crate::audit::Audit;
use crate::backend::{Backend, CallOpts, Cancel, ChatReply, ChatRequest, Delta, Usage};
use crate::checkpoint;
use crate::condense::{self, Caps, Mode};
use crate::contracts::{ChatMessage, Checkpoint, MemoryCandidate, NotesPatch, Role, ToolRequest};
pub use crate::contracts::{ToolRecord, TurnRecord};
use crate::error::{Code, Error, Result};
use crate::home::Home;
use crate::ids::{self, Kind};
use crate::memory::Memory;
use crate::notes::{self, Actor};
use crate::sanitize;
use crate::store;
use crate::tools::{self, CallDefaults, LoopState, Policy, PolicyOverrides, Runner};
use crate::trace;
use serde_json::{Value, json};
use std::time::Instant;

/// Most tool-loop rounds of the final role (one LLM call each, plus the closing call).
pub const MAX_TOOL_ROUNDS: usize = 4;
/// Most memory candidates one turn proposes (seed 001).
pub const MAX_MEMORY_CANDIDATES: usize = 2;
/// Most tool calls executed from one reply.
pub const MAX_CALLS_PER_ROUND: usize = 8;

/// How to run a turn.
#[derive(Debug, Clone)]
pub struct TurnOptions {
    pub session_id: String,
    pub agent_id: String,
    pub user_id: Option<String>,
    pub profile: Profile,
    pub thinking_mode: ThinkingMode,
    pub expect_revision: Option<u64>,
    /// Stream every LLM call (traced as `llm_stream`).
    pub stream: bool,
    pub max_tool_rounds: usize,
    /// Chat mode (seed 004): mutating tool calls are staged for a human's confirmation
    /// (`requires_confirm`) instead of run; Act mode (false) runs them.
    pub chat_mode: bool,
    /// The run id to use (the server's queue assigns it before the run starts); a fresh
    /// `run_<uuid>` when `None`.
    pub run_id: Option<String>,
    /// Replay seed (`--seed` / `BOB_SEED`): every id the turn draws (run id, audit nonces,
    /// short-term entry and candidate ids) is derived from it, the session and the
    /// checkpoint's revision, and measured durations are recorded as 0, so with `BOB_NOW` and
    /// a replay backend the turn's output, records and files are byte-identical across runs.
    /// The turn's nonce is a function of `(seed, run_id)` too ([`super::nonce`]); random
    /// when `None`.
    pub seed: Option<u64>,
    /// The calling human's tool-policy overrides (sandbox roots, loopback), on top of the
    /// environment and the session's files.
    pub policy: PolicyOverrides,
    /// The settings the turn reads (tool policy, tool protocol).
    pub settings: crate::settings::Settings,
    /// Connections to the home's memory store kept between turns (a long-running process);
    /// `None`: the turn opens the store and closes it when it ends.
    pub memory_pool: Option<std::sync::Arc<crate::memory::MemoryPool>>,
}

/// A finished turn: its record, and the error that ended it if it did not complete.
pub struct Outcome {
    pub record: TurnRecord,
    pub error: Option<Error>,
    /// The run's audit events as written (chain fields included, in log order), for the run
    /// bundle ([`crate::runs::write_with_events`]): kept as they were appended, so the bundle
    /// does not read the day's audit log back.
    pub events: Vec<Value>,
}

/// Everything gathered while the roles run.
struct Work<'a> {
    home: &'a Home,
    /// The backend and runtime the roles call (none in the commit stage, which calls nothing).
    backend: Option<(&'a Backend, &'a tokio::runtime::Runtime)>,
    cancel: &'a Cancel,
    opts: &'a TurnOptions,
    run_id: String,
    audit: Audit,
    /// Usage and cost summed over the calls (unknown once one call's is).
    usage: crate::cost::Total<Usage>,
    cost: crate::cost::Total<f64>,
    prices: crate::cost::Prices,
    tools: Vec<ToolRecord>,
    upstream: Vec<Upstream>,
    patch: NotesPatch,
    notes_errors: Vec<String>,
    /// The malformed NOTES blocks, for the `notes_patch {error}` trace events.
    notes_error_events: Vec<Error>,
    /// Payload keys of the NOTES blocks that no accepted shape has.
    notes_ignored_keys: Vec<String>,
    candidates: Vec<MemoryCandidate>,
    escalated: bool,
    /// Why the turn ended without answering (`escalated`, `tool_limit`): status `incomplete`.
    incomplete: Option<&'static str>,
    any_tool_failed: bool,
    /// Trace events not yet written (flushed before the first LLM call, before tools run and
    /// at the end of the turn).
    pending_trace: Vec<store::JsonlLine>,
    /// Whether trace lines were written without a sync (the next synced flush syncs them).
    trace_unsynced: bool,
    /// Whether the run's lifecycle events were flushed (before the first LLM call).
    lifecycle_flushed: bool,
    /// The memory store, opened once when first needed (retrieval, candidates, STM).
    memory: Option<Memory>,
    /// The retrieval started before the turn set itself up.
    prefetch: Prefetch,
    /// Identity, date and nonce, stated in every role's system prompt.
    facts: prompts::TurnFacts,
    /// The system messages sent this turn: their echo is removed from the visible answer.
    system_prompts: Vec<String>,
    /// Ids of the memories retrieved this turn (any role): the only ones a `[mem:id]` may cite.
    retrieved: Vec<String>,
    /// The prefetched retrieval result, once the prefetch was joined.
    prefetched: Option<Result<super::mem::Retrieved>>,
    /// The turn's one tool runner (THINK's Tools stage and the final role's loop share it, so
    /// they share the policy, the caps, the audit writer and the failure loop).
    runner: Option<Runner>,
    /// The turn's tool executions as history messages (seed 003 §6 Option A), committed
    /// between the user's message and the answer.
    tool_history: Vec<ChatMessage>,
    /// Replay mode (`--seed`): every measured duration is recorded as 0, so the turn's output
    /// and files are byte-identical across runs.
    reproducible: bool,
    /// Where the run's ids come from (seeded in replay mode).
    ids: crate::ids::IdSource,
    /// What the seed is mixed with: the session and the revision the turn started from.
    seed_context: String,
    /// Whether the memory store was given its (seeded) id source.
    memory_ids_set: bool,
    /// The panda Solver's last reply asked for more context (`needs_more_context: true`):
    /// its `requests` and `analysis`, for the loop back to Thinking ([`context_loops`]).
    needs_more_context: Option<Value>,
    /// Tool calls given ids so far ([`Work::assign_ids`]: `call_<n>`, counted over the turn).
    calls_assigned: usize,
    /// The id fields each call's model set and bob ignored, by the id bob gave the call.
    ignored_ids: std::collections::HashMap<String, Vec<&'static str>>,
}

/// A tool call as a reply asked for it, with the id fields the model set itself.
type Asked = (ToolRequest, Vec<&'static str>);

impl Drop for Work<'_> {
    /// The memory store goes back to the caller's pool, when there is one, for the next turn.
    fn drop(&mut self) {
        if let (Some(pool), Some(m)) = (&self.opts.memory_pool, self.memory.take()) {
            pool.put(m);
        }
    }
}

impl Work<'_> {
    /// Ids are bob's: every call of a model's reply gets the turn's run id and agent id and a
    /// request id `call_<n>` counted over the turn (unique in the run's audit log), whatever
    /// the call said. The id fields the model set are remembered as ignored, for the trace
    /// ([`Work::call_json`]); their values are never used or written.
    fn assign_ids(&mut self, asked: Vec<Asked>) -> Vec<ToolRequest> {
        asked
            .into_iter()
            .map(|(mut r, set)| {
                self.calls_assigned += 1;
                r.request_id = format!("call_{}", self.calls_assigned);
                r.run_id = self.run_id.clone();
                r.agent_id = self.opts.agent_id.clone();
                if !set.is_empty() {
                    self.ignored_ids.insert(r.request_id.clone(), set);
                }
                r
            })
            .collect()
    }

    /// A call as the trace names it: `{id, tool}`, plus `ignored_ids` (the id fields its
    /// model set, which bob replaced) when there are any.
    fn call_json(&self, r: &ToolRequest) -> Value {
        let mut v = json!({"id": r.request_id, "tool": r.tool});
        if let Some(set) = self.ignored_ids.get(&r.request_id) {
            v["ignored_ids"] = json!(set);
        }
        v
    }

    /// Queues one trace event; [`Work::flush`] writes the queue with one fdatasync.
    fn trace(&mut self, kind: &str, data: Value) -> Result<()> {
        let ev = trace::event(kind, data)?;
        self.pending_trace.push(store::jsonl_line(&ev)?);
        Ok(())
    }

    /// Queues one audit event of the run.
    fn audit(&mut self, event_type: &str, payload: Value) -> Result<()> {
        self.audit.queue(event_type, "system", payload)
    }

    /// The home's memory store, opened (and created if needed) on first use.
    fn memory(&mut self) -> Result<&Memory> {
        let m = match (self.memory.take(), &self.opts.memory_pool) {
            (Some(m), _) => m,
            (None, Some(pool)) => pool.take()?,
            (None, None) => Memory::open_fast(self.home)?,
        };
        if !self.memory_ids_set {
            // Entry and candidate ids: derived from the seed in replay mode.
            m.set_ids(self.ids.child(self.opts.seed, &self.seed_context, "memory"));
            self.memory_ids_set = true;
        }
        Ok(self.memory.insert(m))
    }

    /// Writes the queued trace events (`sync`: and fdatasyncs them, with every earlier line).
    fn flush_trace(&mut self, sync: bool) -> Result<()> {
        if self.pending_trace.is_empty() && !(sync && self.trace_unsynced) {
            return Ok(());
        }
        let lines = std::mem::take(&mut self.pending_trace);
        let path = self.home.trace_path(&self.opts.session_id)?;
        if sync {
            store::append_jsonl_batch(&path, &lines)?;
        } else {
            store::append_jsonl_batch_unsynced(&path, &lines)?;
        }
        self.trace_unsynced = !sync;
        Ok(())
    }

    /// Writes the queued trace and audit events, both synced (before any tool runs, and at the
    /// end).
    fn flush(&mut self) -> Result<()> {
        self.flush_trace(true)?;
        self.audit.write_pending().map(|_| ())
    }

    /// One LLM call, traced and audited.
    fn call(&mut self, role: &RoleSpec, round: usize, req: &ChatRequest) -> Result<ChatReply> {
        self.cancel.check()?;
        let Some((backend, rt)) = self.backend else {
            return Err(Error::internal("no backend: this stage calls no model"));
        };
        for m in req.messages.iter().filter(|m| m.role == Role::System) {
            let own = prompts::own_text(&m.content);
            if !own.is_empty() && !self.system_prompts.iter().any(|p| p == own) {
                self.system_prompts.push(own.to_string());
            }
        }
        let chars: usize = req.messages.iter().map(|m| m.content.chars().count()).sum();
        self.trace(
            "llm_req",
            json!({"run_id": self.run_id, "role": role.name, "round": round,
                   "messages": req.messages.len(), "chars": chars,
                   "tools": req.tools.as_ref().and_then(Value::as_array).map_or(0, Vec::len),
                   "backend": backend.describe(), "stream": self.opts.stream}),
        )?;
        self.audit(
            "model.requested",
            json!({"role": role.name, "round": round, "model": backend.model()}),
        )?;
        if !self.lifecycle_flushed {
            // `run.created`, `run.started` and what led to this first call are durable before
            // it: a turn killed while waiting on the model still shows in the audit log. The
            // trace lines are written but not synced here (they survive a killed process; the
            // turn's last trace write syncs them with the rest): the audit log is the record.
            self.flush_trace(false)?;
            self.audit.write_pending()?;
            self.lifecycle_flushed = true;
        }
        let mut deltas = 0usize;
        let mut delta_chars = 0usize;
        let opts = CallOpts {
            role: Some(role.name.to_string()),
            stream: self.opts.stream,
            cancel: self.cancel.clone(),
        };
        let reply = {
            let mut sink = |d: &Delta| {
                deltas += 1;
                if let Delta::Delta { content } = d {
                    delta_chars += content.chars().count();
                }
            };
            let sink: Option<&mut (dyn FnMut(&Delta) + Send)> = if self.opts.stream {
                Some(&mut sink)
            } else {
                None
            };
            rt.block_on(backend.chat(req, &opts, sink))
        };
        let mut reply = match reply {
            Ok(r) => r,
            Err(e) => {
                let _ = self.trace(
                    "llm_done",
                    json!({"run_id": self.run_id, "role": role.name, "round": round,
                           "ok": false, "error": e}),
                );
                return Err(e);
            }
        };
        if self.reproducible {
            reply.latency_ms = 0;
            reply.first_delta_ms = reply.first_delta_ms.map(|_| 0);
        }
        if self.opts.stream {
            self.trace(
                "llm_stream",
                json!({"run_id": self.run_id, "role": role.name, "round": round,
                       "deltas": deltas, "chars": delta_chars,
                       "first_delta_ms": reply.first_delta_ms}),
            )?;
        }
        reply.cost = self
            .prices
            .cost(&reply.model, &backend.model(), reply.usage.as_ref());
        self.usage.add(reply.usage, |mut a, b| {
            a.add(&b);
            a
        });
        self.cost.add(reply.cost, |a, b| a + b);
        self.trace(
            "llm_done",
            json!({"run_id": self.run_id, "role": role.name, "round": round, "ok": true,
                   "usage": reply.usage, "cost": reply.cost, "latency_ms": reply.latency_ms, "model": reply.model,
                   "finish_reason": reply.finish_reason, "attempts": reply.attempts,
                   "tool_calls": reply.message.tool_calls.as_ref().and_then(Value::as_array).map_or(0, Vec::len)}),
        )?;
        Ok(reply)
    }

    /// Keeps the NOTES patch and memory candidates of a role's raw output; returns the text
    /// to sanitize into the role's visible text.
    fn harvest(&mut self, role: &RoleSpec, raw: &str) -> String {
        if self.opts.profile == super::profiles::Profile::Panda
            && let Some(text) = self.harvest_panda(role, raw)
        {
            return text;
        }
        let ex = notes::extract(raw);
        if let Some(p) = ex.patch {
            self.patch.merge(p);
        }
        for e in ex.errors {
            self.notes_errors
                .push(format!("{}: {}", role.name, e.message));
            self.notes_error_events.push(e);
        }
        for k in ex.ignored_keys {
            if !self.notes_ignored_keys.contains(&k) {
                self.notes_ignored_keys.push(k);
            }
        }
        let (_, found) = take_memory_blocks(&ex.visible_text);
        if role.proposes_memory {
            for block in found {
                match super::mem::extract(&block) {
                    Ok(c) => self.candidates.extend(c),
                    Err(e) => self
                        .notes_errors
                        .push(format!("{}: memory candidates: {}", role.name, e.message)),
                }
            }
        }
        // The visible text is the raw output: [`sanitize::sanitize`] removes every block
        // (NOTES, memory candidates, tool calls) with nesting counted, the same way `bob
        // sanitize` does, so a block nested in another leaks nothing.
        raw.to_string()
    }
}

impl Work<'_> {
    /// Seed 004 outputs parsed as contracts (the `panda` profile): a Thinking object
    /// `{plan, notes, save_plan}` (its NoteFrames become a NOTES patch, `save_plan` a memory
    /// candidate; the visible text is the plan, as private upstream notes) or a Solver object
    /// `{analysis, requests, tool_intent, needs_more_context, final, suggest_memory_save}`
    /// (`final` is the visible answer; `tool_intent` runs through the tool loop, which reads
    /// it from the raw reply; `analysis` is never shown). `None` when the reply is not a JSON
    /// object: it is then read like any other role's text.
    fn harvest_panda(&mut self, role: &RoleSpec, raw: &str) -> Option<String> {
        let obj = panda_object(raw)?;
        if let Some(n) = obj.get("notes").filter(|n| n.is_object()) {
            match notes::parse_patch(n) {
                Ok(p) => {
                    self.patch.merge(p.patch);
                    for k in p.ignored_keys {
                        if !self.notes_ignored_keys.contains(&k) {
                            self.notes_ignored_keys.push(k);
                        }
                    }
                }
                Err(e) => self
                    .notes_errors
                    .push(format!("{}: NoteFrames: {}", role.name, e.message)),
            }
        }
        for key in ["save_plan", "suggest_memory_save"] {
            if let Some(v) = obj.get(key).filter(|v| v.is_object())
                && role.proposes_memory
            {
                match super::mem::extract(&json!({ key: v }).to_string()) {
                    Ok(c) => self.candidates.extend(c),
                    Err(e) => self
                        .notes_errors
                        .push(format!("{}: {key}: {}", role.name, e.message)),
                }
            }
        }
        if role.is_final {
            return Some(
                obj.get("final")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string(),
            );
        }
        let plan = match obj.get("plan") {
            Some(Value::Array(a)) => a
                .iter()
                .map(|s| {
                    format!(
                        "- {}",
                        s.as_str().map_or_else(|| s.to_string(), str::to_string)
                    )
                })
                .collect::<Vec<_>>()
                .join("\n"),
            Some(Value::String(s)) => s.clone(),
            _ => String::new(),
        };
        Some(plan)
    }
}

/// Seed 004's memory save heuristic: a priced bill of materials (a `bom.build` result with at
/// least one priced row) is proposed for memory (pending a human's approval).
fn priced_bom_candidate(
    req: &ToolRequest,
    resp: &crate::contracts::ToolResponse,
) -> Option<MemoryCandidate> {
    if tools::resolve(&req.tool).map(|s| s.name) != Some("bom.build") || !resp.ok {
        return None;
    }
    let out = resp.output.as_ref()?;
    let rows = out.get("rows")?.as_array()?;
    if !rows
        .iter()
        .any(|r| r.get("price").is_some_and(Value::is_number))
    {
        return None;
    }
    let mut body =
        String::from("| part | quantity | price | seller | link |\n|---|---|---|---|---|\n");
    for r in rows.iter().take(100) {
        let f = |k: &str| match r.get(k) {
            Some(Value::String(s)) => s.replace('|', "/"),
            Some(Value::Null) | None => String::new(),
            Some(v) => v.to_string(),
        };
        body.push_str(&format!(
            "| {} | {} | {} {} | {} | {} |\n",
            f("part"),
            f("quantity"),
            f("price"),
            f("currency"),
            f("seller"),
            f("link")
        ));
    }
    let source = out.get("source_url").and_then(Value::as_str).unwrap_or("");
    body.push_str(&format!("\nSource: {source}\n"));
    let mut c = MemoryCandidate::new(body);
    c.title = Some(format!("Priced BOM: {source}").chars().take(120).collect());
    c.kind = "reference".into();
    c.tags = vec!["bom".into(), "pricing".into()];
    c.source = "tool:bom.build".into();
    c.why_store = Some("a priced bill of materials (seed 004 memory save heuristic)".into());
    c.importance = Some(6);
    Some(c)
}

/// A seed 004 role output: one JSON object, bare or in a ```json fence.
fn panda_object(raw: &str) -> Option<serde_json::Map<String, Value>> {
    let t = raw.trim();
    let t = t
        .strip_prefix("```json")
        .or_else(|| t.strip_prefix("```"))
        .map(|x| x.trim_end().trim_end_matches("```"))
        .unwrap_or(t)
        .trim();
    match serde_json::from_str::<Value>(t) {
        Ok(Value::Object(obj)) => Some(obj),
        _ => None,
    }
}

/// A Solver output's `tool_intent` (or `tool_intents`) as tool requests, then each of its
/// `requests` that is a SearchRequest (`type: search_request`) as a `web.search` call; nothing
/// when there are none.
fn panda_intents(
    raw: &str,
    defaults: &CallDefaults,
    ids: &mut crate::ids::IdSource,
) -> (Vec<Asked>, Option<String>) {
    let Some(obj) = panda_object(raw) else {
        return (Vec::new(), None);
    };
    // `requests` entries of type search_request are SearchRequests for web.search.
    let searches: Vec<Asked> = obj
        .get("requests")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|r| r.get("type").and_then(Value::as_str) == Some("search_request"))
        .enumerate()
        .map(|(i, r)| {
            let req = ToolRequest {
                request_id: format!("search_{i}_{}", ids.hex32()),
                run_id: defaults.run_id.clone(),
                agent_id: defaults.agent_id.clone(),
                tool: "web.search".into(),
                input: r.clone(),
                timeout_ms: defaults.timeout_ms,
                created_at: crate::clock::rfc3339(defaults.now),
            };
            (req, Vec::new())
        })
        .collect();
    let has = ["tool_intent", "tool_intents"]
        .iter()
        .any(|k| obj.get(*k).is_some_and(|v| !v.is_null()));
    if !has {
        return (searches, None);
    }
    match tools::parse::parse_calls_noting_ids(&Value::Object(obj).to_string(), defaults) {
        Ok(mut reqs) => {
            reqs.extend(searches);
            (reqs, None)
        }
        Err(e) => (searches, Some(e.message)),
    }
}

/// Removes `<<<MEMORY_CANDIDATES_JSON>>>` blocks; returns the rest and the blocks' payloads.
fn take_memory_blocks(text: &str) -> (String, Vec<String>) {
    let mut out = String::new();
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find(prompts::MEMORY_BEGIN) {
        out.push_str(&rest[..i]);
        let after = &rest[i + prompts::MEMORY_BEGIN.len()..];
        match after.find(prompts::MEMORY_END) {
            Some(j) => {
                found.push(after[..j].to_string());
                rest = &after[j + prompts::MEMORY_END.len()..];
            }
            None => {
                rest = "";
            }
        }
    }
    out.push_str(rest);
    (out, found)
}

/// The tools enabled for the session (a human's `bob tool enable`); the full [`Policy`] is
/// built only when a tool is actually called.
/// With TURBOTIME on, its selected tools are enabled too (seed 001).
fn enabled_tools(home: &Home, session_id: &str) -> Result<Vec<String>> {
    let mut enabled = tools::policy::load_session_tools(home, session_id)?.enabled;
    let turbo = tools::domain::turbotime::load(home, session_id)?;
    if turbo.on {
        for t in turbo.selected {
            if !enabled.contains(&t) {
                enabled.push(t);
            }
        }
    }
    Ok(enabled)
}

/// The tools the final role may use: `- name: description` lines for the enabled tools.
fn tools_text(enabled: &[String]) -> String {
    tools::registry()
        .iter()
        .filter(|t| enabled.iter().any(|e| e == t.name))
        .map(|t| format!("- {}: {}", t.name, t.description))
        .collect::<Vec<_>>()
        .join("\n")
}

/// OpenAI `tools` definitions of the enabled tools (native tool calling).
fn native_tools(enabled: &[String]) -> Option<Value> {
    let defs: Vec<Value> = tools::registry()
        .iter()
        .filter(|t| enabled.iter().any(|e| e == t.name))
        .map(|t| {
            json!({"type": "function", "function": {
                "name": t.name, "description": t.description,
                "parameters": serde_json::to_value((t.schema)()).unwrap_or(json!({"type":"object"})),
            }})
        })
        .collect();
    (!defs.is_empty()).then_some(Value::Array(defs))
}

/// Whether the final role is offered native `tools` (`tools.protocol = "markers"`,
/// `BOB_TOOL_PROTOCOL=markers`, turns it off; the marker protocol is always accepted).
fn native_enabled(settings: &crate::settings::Settings) -> bool {
    settings.text("tools.protocol") != Some("markers")
}

/// The tool requests in a reply: native `tool_calls` (their wire names read back to bob's names
/// through `names`; arguments that are not a JSON object are kept as a string, so validation
/// fails them as `tool.input_invalid`), then
/// `<<<TOOL_CALLS_JSON>>>` blocks in the content. A malformed block is an error message.
fn requests_of(
    reply: &ChatMessage,
    defaults: &CallDefaults,
    names: &tools::wire::WireNames,
) -> (Vec<Asked>, Option<String>) {
    let mut out = Vec::new();
    let mut problem = None;
    let created_at = crate::clock::rfc3339(defaults.now);
    for (i, tc) in reply.tool_call_list().iter().enumerate() {
        let own_id = tc
            .get("id")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty());
        let id = own_id
            .map(str::to_string)
            .unwrap_or_else(|| format!("call_{i}"));
        let name = names.original(
            tc.pointer("/function/name")
                .and_then(Value::as_str)
                .unwrap_or(""),
        );
        let input = match tc.pointer("/function/arguments") {
            Some(Value::String(s)) => {
                serde_json::from_str::<Value>(s).unwrap_or_else(|_| Value::String(s.clone()))
            }
            Some(v) => v.clone(),
            None => json!({}),
        };
        let req = ToolRequest {
            request_id: id,
            run_id: defaults.run_id.clone(),
            agent_id: defaults.agent_id.clone(),
            tool: name,
            input,
            timeout_ms: defaults.timeout_ms,
            created_at: created_at.clone(),
        };
        let mut set = Vec::new();
        if own_id.is_some() {
            set.push("request_id");
        }
        for k in ["run_id", "agent_id"] {
            if tc.get(k).is_some_and(|v| !v.is_null()) {
                set.push(k);
            }
        }
        out.push((req, set));
    }
    if reply.content.contains(tools::parse::BEGIN) {
        match tools::parse::parse_calls_noting_ids(&reply.content, defaults) {
            Ok(reqs) => out.extend(reqs),
            Err(e) => problem = Some(e.message),
        }
    }
    (out, problem)
}

/// The assistant message that asked for `reqs`, with OpenAI `tool_calls` so the following
/// tool messages are valid for any OpenAI-compatible server.
fn assistant_with_calls(visible: &str, reqs: &[ToolRequest]) -> ChatMessage {
    let mut m = ChatMessage::new(Role::Assistant, visible.to_string());
    m.tool_calls = Some(Value::Array(
        reqs.iter()
            .map(|r| {
                json!({"id": r.request_id, "type": "function", "function": {
                    "name": r.tool,
                    "arguments": match &r.input { Value::String(s) => s.clone(), v => v.to_string() },
                }})
            })
            .collect(),
    ));
    m
}

/// The seed 003 escalation response: recent attempts, errors and output snippets, asking the
/// user how to proceed.
fn escalation_text(state: &LoopState) -> String {
    let LoopState::Escalate {
        attempts,
        errors,
        snippets,
    } = state
    else {
        return String::new();
    };
    let mut s = String::from(
        "I stopped because my tool calls kept failing, and I need your guidance before trying again.\n\nRecent attempts:\n",
    );
    for a in attempts {
        s.push_str(&format!(
            "- {} ({}): {}\n",
            a.tool,
            a.request_id,
            if a.ok { "ok" } else { "failed" }
        ));
    }
    if !errors.is_empty() {
        s.push_str("\nErrors:\n");
        for e in errors {
            s.push_str(&format!("- {e}\n"));
        }
    }
    if !snippets.is_empty() {
        s.push_str("\nOutput snippets:\n");
        for o in snippets {
            s.push_str(&format!("- {}\n", o.chars().take(200).collect::<String>()));
        }
    }
    s.push_str("\nHow would you like me to proceed?");
    s
}

/// The message of the `turn.incomplete` error for `reason`.
fn incomplete_message(reason: &str) -> String {
    match reason {
        "escalated" => "the turn did not answer: its tool calls kept failing and it escalated to \
                        the user (seed 003 failure-loop rule)"
            .into(),
        "tool_limit" => "the turn did not answer: it reached the tool-round limit \
                         (--max-tool-rounds)"
            .into(),
        other => format!("the turn did not answer ({other})"),
    }
}

const RECOVERY_NOTE: &str = "the last tool calls failed repeatedly. Check each call's tool \
name against the list of enabled tools and its arguments against the tool's input; prefer \
answering with what you already know, or ask the user, over repeating a failing call.";

/// What the retrieval thread brings back: the opened store and the query's result.
struct Prefetched {
    memory: Option<Memory>,
    found: Result<super::mem::Retrieved>,
    /// The live short-term entries relevant to the message (read only; the turn touches them).
    stm: Result<Vec<crate::contracts::StmEntry>>,
}

/// The turn's retrieval, started on its own thread as soon as the message is known: every
/// role that retrieves queries the user's message, so the memory store can be opened and
/// queried while the turn sets itself up (backend, runtime, audit, checkpoint). Without a
/// memory store, or for a profile whose roles never retrieve, nothing is started.
pub struct Prefetch {
    query: String,
    handle: Option<std::thread::JoinHandle<Prefetched>>,
}

impl Prefetch {
    /// Starts the retrieval of `message` for `opts.user_id` (else `default`).
    pub fn start(home: &Home, opts: &TurnOptions, message: &str) -> Prefetch {
        if !opts.profile.roles().iter().any(|r| r.wants_retrieval) || !home.memory_db().exists() {
            return Prefetch {
                query: message.to_string(),
                handle: None,
            };
        }
        let home = home.clone();
        let pool = opts.memory_pool.clone();
        let user = opts.user_id.clone().unwrap_or_else(|| "default".into());
        let query = message.to_string();
        let spawned = std::thread::Builder::new()
            .name("bob-retrieval".into())
            .spawn(
                move || match pool.map_or_else(|| Memory::open_fast(&home), |p| p.take()) {
                    Ok(m) => {
                        let found = super::mem::retrieve(&m, &user, &query);
                        let stm = super::mem::relevant_stm(&m, &user, &query);
                        Prefetched {
                            memory: Some(m),
                            found,
                            stm,
                        }
                    }
                    Err(e) => Prefetched {
                        memory: None,
                        found: Err(e.clone()),
                        stm: Err(e),
                    },
                },
            );
        // A thread that cannot start leaves the retrieval to the role, as without a prefetch.
        Prefetch {
            query: message.to_string(),
            handle: spawned.ok(),
        }
    }

    /// The prefetched result for `query`, waiting for it; `None` when nothing was started
    /// for that query.
    fn take(&mut self, query: &str) -> Option<Prefetched> {
        if query != self.query {
            return None;
        }
        let h = self.handle.take()?;
        Some(h.join().unwrap_or_else(|_| Prefetched {
            memory: None,
            found: Err(Error::internal("the retrieval thread panicked")),
            stm: Err(Error::internal("the retrieval thread panicked")),
        }))
    }
}

impl Drop for Prefetch {
    /// A turn that ended before it retrieved still waits for the thread (it only reads).
    fn drop(&mut self) {
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

/// Runs one turn. `Err` only for failures before the run exists (bad ids); every later
/// failure is an [`Outcome`] with a record whose status says what happened.
pub fn run(
    home: &Home,
    backend: &Backend,
    rt: &tokio::runtime::Runtime,
    input: &TurnInput,
    opts: &TurnOptions,
    cancel: &Cancel,
) -> Result<Outcome> {
    let prefetch = Prefetch::start(home, opts, &input.message);
    run_prefetched(home, backend, rt, input, opts, cancel, prefetch)
}

/// [`run`] with a retrieval the caller started earlier ([`Prefetch::start`] with the same
/// home, options and message).
pub fn run_prefetched(
    home: &Home,
    backend: &Backend,
    rt: &tokio::runtime::Runtime,
    input: &TurnInput,
    opts: &TurnOptions,
    cancel: &Cancel,
    prefetch: Prefetch,
) -> Result<Outcome> {
    run_with(
        home,
        Some((backend, rt)),
        input,
        opts,
        cancel,
        prefetch,
        execute,
    )
}

/// Checks the ids a turn is given before anything is written under them ([`crate::ids`]):
/// the session, the agent (never a reserved actor), the user and the run id each follow their
/// rule, and none holds what the home's redactor masks. `invalid.request` naming the field.
pub fn check_ids(home: &Home, opts: &TurnOptions) -> Result<()> {
    let r = crate::redact::for_home(home)?;
    ids::check_kind(&r, Kind::Id, "session_id", &opts.session_id)?;
    ids::check_kind(&r, Kind::Agent, "agent_id", &opts.agent_id)?;
    if let Some(u) = &opts.user_id {
        ids::check_kind(&r, Kind::User, "user_id", u)?;
    }
    if let Some(id) = &opts.run_id {
        ids::check_kind(&r, Kind::Id, "run_id", id)?;
    }
    Ok(())
}

/// The turn around `body` (the roles, or the commit stage's harvest): ids, audit lifecycle,
/// the record, the trace and the terminal event.
fn run_with(
    home: &Home,
    backend: Option<(&Backend, &tokio::runtime::Runtime)>,
    input: &TurnInput,
    opts: &TurnOptions,
    cancel: &Cancel,
    prefetch: Prefetch,
    body: impl FnOnce(&mut Work<'_>, &TurnInput, &mut TurnRecord) -> Result<()>,
) -> Result<Outcome> {
    let started = Instant::now();
    check_ids(home, opts)?;
    // Replay mode: every id below derives from the seed, the session and the revision the
    // turn starts from (so the next turn of the session draws new ones).
    let (mut ids, seed_context) = match opts.seed {
        Some(seed) => {
            let rev = checkpoint::load(home, &opts.session_id)?.revision;
            let context = format!("{}\0{rev}", opts.session_id);
            (crate::ids::IdSource::seeded(seed, &context), context)
        }
        None => (crate::ids::IdSource::random(), String::new()),
    };
    let run_id = match &opts.run_id {
        Some(id) => id.clone(),
        None => format!("run_{}", ids.hex32()),
    };
    let facts = prompts::TurnFacts {
        identity: super::Identity::from_settings(&opts.settings)?,
        date: crate::clock::now()?.format("%Y-%m-%d").to_string(),
        nonce: super::nonce(&run_id, opts.seed),
    };
    let prices = crate::cost::Prices::load(&opts.settings)?;
    let mut audit = Audit::open(home, &opts.agent_id, &run_id)?;
    audit.keep_written();
    if opts.seed.is_some() {
        audit.set_nonce(ids.hex32());
    }
    audit.queue(
        "run.created",
        "system",
        json!({"session_id": opts.session_id, "profile": opts.profile.as_str(),
               "user_id": opts.user_id, "message_chars": input.message.chars().count()}),
    )?;
    let mut w = Work {
        home,
        backend,
        cancel,
        opts,
        run_id: run_id.clone(),
        audit,
        usage: crate::cost::Total::zero(Usage::default()),
        cost: crate::cost::Total::zero(0.0),
        prices,
        tools: Vec::new(),
        upstream: Vec::new(),
        patch: NotesPatch::default(),
        notes_errors: Vec::new(),
        notes_error_events: Vec::new(),
        notes_ignored_keys: Vec::new(),
        candidates: Vec::new(),
        escalated: false,
        incomplete: None,
        any_tool_failed: false,
        pending_trace: Vec::new(),
        trace_unsynced: false,
        lifecycle_flushed: false,
        memory: None,
        prefetch,
        facts,
        system_prompts: Vec::new(),
        retrieved: Vec::new(),
        prefetched: None,
        runner: None,
        tool_history: Vec::new(),
        reproducible: opts.seed.is_some(),
        ids,
        seed_context,
        memory_ids_set: false,
        needs_more_context: None,
        calls_assigned: 0,
        ignored_ids: Default::default(),
    };
    let mut record = TurnRecord {
        run_id: run_id.clone(),
        session_id: opts.session_id.clone(),
        agent_id: opts.agent_id.clone(),
        profile: opts.profile.as_str().to_string(),
        status: "completed".into(),
        output: String::new(),
        tools: Vec::new(),
        notes: json!({}),
        memory_candidates: Vec::new(),
        revision: None,
        usage: None,
        cost: None,
        latency_ms: 0,
        ts: crate::clock::now().map(crate::clock::rfc3339)?,
        user_id: opts.user_id.clone(),
        escalated: false,
        recap: None,
        thinking: None,
        error: None,
        turbotime: None,
        nonce: Some(w.facts.nonce.clone()),
        citations: None,
    };
    let turbo = tools::domain::turbotime::load(home, &opts.session_id)?;
    if turbo.on {
        record.turbotime = Some(json!({"on": true, "selected": turbo.selected}));
    }
    let result = body(&mut w, input, &mut record);
    record.usage = w.usage.get();
    record.cost = w.cost.get();
    record.tools = std::mem::take(&mut w.tools);
    record.escalated = w.escalated;
    record.latency_ms = if w.reproducible {
        0
    } else {
        started.elapsed().as_millis() as u64
    };
    let failed = result.is_err() || w.any_tool_failed || w.incomplete.is_some();
    let include = match opts.thinking_mode {
        ThinkingMode::Never => false,
        ThinkingMode::OnError => failed,
        ThinkingMode::Always => true,
    };
    if include {
        record.thinking = Some(w.upstream.clone());
    }
    let error = match result {
        Ok(()) => w.incomplete.map(|reason| {
            let e = Error::new(Code::Incomplete, incomplete_message(reason))
                .retryable(false)
                .with("reason", reason)
                .with("run_id", record.run_id.clone());
            record.status = "incomplete".into();
            record.error = Some(e.clone());
            e
        }),
        Err(e) => {
            record.status = if e.code == Code::Cancelled {
                "cancelled"
            } else {
                "failed"
            }
            .into();
            record.output = sanitize::EMPTY_OUTPUT.to_string();
            record.error = Some(e.clone());
            Some(e)
        }
    };
    // The trace, then the record, are durable before the run's remaining audit events, the
    // terminal one last (one audit write for all of them).
    let flushed = w.flush_trace(true);
    let appended = store::append_jsonl(&home.turns_path(), &record);
    // Seed 003 has three terminal events: an incomplete turn did not do what was asked, so it
    // ends in `run.failed` (its payload's `status` says `incomplete`).
    let terminal = match record.status.as_str() {
        "completed" => "run.completed",
        "cancelled" => "run.cancelled",
        _ => "run.failed",
    };
    let payload = json!({"status": record.status, "session_id": record.session_id,
        "revision": record.revision, "tools": record.tools.len(),
        "output_chars": record.output.chars().count(), "usage": record.usage, "cost": record.cost,
        "latency_ms": record.latency_ms, "error": record.error});
    w.audit(terminal, payload)?;
    w.flush()?;
    flushed?;
    appended?;
    // This run's events: the turn's own and its tool runner's (same log; merged by file, then
    // chain position, which is the log's order).
    let mut events: Vec<(std::path::PathBuf, Value)> = w
        .audit
        .take_written()
        .into_iter()
        .map(|e| (w.audit.path().to_path_buf(), e))
        .collect();
    if let Some(r) = &mut w.runner {
        r.flush()?;
        events.extend(r.take_written(&record.agent_id, &record.run_id));
    }
    events.sort_by(|(pa, a), (pb, b)| {
        pa.cmp(pb)
            .then_with(|| a["seq"].as_u64().cmp(&b["seq"].as_u64()))
    });
    let events = events.into_iter().map(|(_, e)| e).collect();
    Ok(Outcome {
        record,
        error,
        events,
    })
}

/// The session's checkpoint, refused as a `conflict` when `--expect-revision` names another.
fn expected_checkpoint(home: &Home, sid: &str, expect: Option<u64>) -> Result<Checkpoint> {
    let cp = checkpoint::load(home, sid)?;
    if let Some(exp) = expect
        && exp != cp.revision
    {
        return Err(Error::conflict(format!(
            "checkpoint of session {sid:?} is at revision {}, not {exp}",
            cp.revision
        ))
        .with("expected", exp)
        .with("actual", cp.revision));
    }
    Ok(cp)
}

fn execute(w: &mut Work<'_>, input: &TurnInput, record: &mut TurnRecord) -> Result<()> {
    let opts = w.opts;
    let home = w.home;
    let sid = opts.session_id.as_str();
    let cp = expected_checkpoint(home, sid, opts.expect_revision)?;
    let base_revision = cp.revision;
    w.audit(
        "run.started",
        json!({"session_id": sid, "revision": base_revision,
               "backend": w.backend.map(|(b, _)| b.describe())}),
    )?;

    // Recap.
    let recap = recap::build(&input.message, &cp);
    let mut user_text = input.message.clone();
    if let Some(r) = &recap {
        if let Some(rw) = &r.rewritten {
            user_text = rw.clone();
        }
        w.trace(
            "recap",
            json!({"run_id": w.run_id, "kind": r.kind, "topic": r.topic,
                   "rewritten": r.rewritten, "summary": r.summary}),
        )?;
        record.recap = Some(json!({"kind": r.kind, "rewritten": r.rewritten}));
    }

    let history =
        condense::condense(&cp.recent_messages, &Caps::default(), Mode::Pressure).messages;
    // Seed 001 working context: the live short-term entries relevant to the input.
    let stm_entries = working_stm(w, &input.message)?;
    let stm_text = super::mem::stm_block(&stm_entries);
    let roles = opts.profile.roles();
    let mut final_visible = String::new();
    // THINK's Tools stage (seed 001 stage 2): the calls and results RESPOND starts from.
    let mut planned: Vec<ChatMessage> = Vec::new();
    let enabled = enabled_tools(home, sid)?;
    let read_only_list = tools_text(&read_only(&enabled));
    for role in roles {
        let retrieval = if role.wants_retrieval {
            retrieve(w, role, &input.message)?
        } else {
            None
        };
        if !role.is_final {
            let inputs = RoleInputs {
                state: Some(&cp.state),
                history: &history,
                upstream: &w.upstream,
                user: &user_text,
                retrieval: retrieval.as_deref(),
                recap: recap.as_ref().map(|r| r.summary.as_str()),
                tools: role.plans_tools.then_some(read_only_list.as_str()),
                recovery: None,
                stm: stm_text.as_deref(),
                facts: Some(&w.facts),
            };
            let req = ChatRequest::new(prompts::build(opts.profile, role, &inputs));
            let reply = w.call(role, 0, &req)?;
            let raw = &reply.message.content;
            let native = reply.message.tool_call_list().len();
            let marker = raw.contains(tools::parse::BEGIN);
            if role.plans_tools && (native > 0 || marker) {
                if let Some(text) = tools_stage(w, role, &reply.message, &mut planned)? {
                    // The failure loop escalated during the Tools stage: the turn ends here.
                    w.harvest(role, raw);
                    final_visible = text;
                    break;
                }
            } else if native > 0 || marker {
                w.trace(
                    "tool_plan",
                    json!({"run_id": w.run_id, "role": role.name, "ignored": true,
                           "reason": "only the final role executes tools",
                           "native_calls": native, "marker_block": marker}),
                )?;
            }
            let text = w.harvest(role, raw);
            let visible = sanitize::sanitize(&text);
            w.upstream.push(Upstream {
                role: role.name.to_string(),
                content: visible,
            });
            continue;
        }
        final_visible = final_role(
            w,
            role,
            FinalInputs {
                cp: &cp,
                history: &history,
                user_text: &user_text,
                retrieval: retrieval.as_deref(),
                recap: recap.as_ref(),
                stm: stm_text.as_deref(),
                enabled: &enabled,
            },
            planned,
        )?;
        break;
    }
    let final_visible = context_loops(
        w,
        roles,
        &cp,
        &history,
        &user_text,
        &input.message,
        recap.as_ref(),
        final_visible,
    )?;
    commit(w, input, record, &cp, recap.as_ref(), &final_visible)
}

/// What every turn does after its roles (seed 001 stages 4–5; `bob turn commit` too): the
/// visible answer, the checkpoint commit (the exchange with its tool history, the NOTES patch,
/// continuity), the memory candidates and the short-term entry.
fn commit(
    w: &mut Work<'_>,
    input: &TurnInput,
    record: &mut TurnRecord,
    cp: &Checkpoint,
    recap: Option<&recap::Recap>,
    final_visible: &str,
) -> Result<()> {
    let opts = w.opts;
    let home = w.home;
    let sid = opts.session_id.as_str();
    let base_revision = cp.revision;
    // The visible answer, without any echo of the system prompts.
    let mut output =
        sanitize::strip_prompt_echo(&sanitize::sanitize(final_visible), &w.system_prompts);
    if let Some(r) = &recap
        && r.kind == recap::Kind::Question
        && recap::ignored(&output, r, cp)
    {
        let fallback = sanitize::sanitize(&recap::fallback(r, cp));
        w.trace(
            "recap",
            json!({"run_id": w.run_id, "fallback": true, "reason": "the answer ignored the summary"}),
        )?;
        if let Some(v) = record.recap.as_mut() {
            v["fallback"] = json!(true);
        }
        output = fallback;
    }
    // Citations: a `[mem:id]` naming no memory retrieved this turn is removed and reported.
    let citations = super::mem::check_citations(&output, &w.retrieved);
    if !citations.cited.is_empty() || !citations.removed.is_empty() {
        w.trace(
            "citations",
            json!({"run_id": w.run_id, "cited": citations.cited, "removed": citations.removed}),
        )?;
        record.citations = Some(json!({"cited": citations.cited, "removed": citations.removed}));
        output = citations.text;
    }
    if output.trim().is_empty() {
        output = sanitize::EMPTY_OUTPUT.to_string();
    }
    w.cancel.check()?;

    // Commit the checkpoint against the revision taken at the start.
    let patch = std::mem::take(&mut w.patch);
    let user_msg = ChatMessage::new(Role::User, input.message.clone());
    let answer = ChatMessage::new(Role::Assistant, output.clone());
    let tool_history = std::mem::take(&mut w.tool_history);
    let facts = super::continuity::TurnFacts {
        request: &input.message,
        answer: &output,
        model_summary: patch.set_episode_summary.is_some(),
        model_threads: patch.add_open_loops.as_ref().is_some_and(|l| !l.is_empty()),
        incomplete: w.incomplete.is_some(),
    };
    let mut continuity = super::continuity::Source::Fallback;
    let (committed, report) =
        checkpoint::update(home, sid, Some(base_revision), |c: &mut Checkpoint| {
            // The exchange, with the turn's tool executions between the request and the
            // answer as `role:"tool"` messages (seed 003 §6 Option A).
            c.recent_messages.push(user_msg);
            c.recent_messages.extend(tool_history);
            c.recent_messages.push(answer);
            super::mem::add_memory_refs(&mut c.state.memory_refs, &citations.cited);
            // The same application as `bob notes apply` (with any condensation it asks for),
            // then the usual pressure condensation keeps recent_messages bounded.
            let report = if patch.is_empty() {
                notes::ApplyReport::default()
            } else {
                notes::apply_to_checkpoint(c, &patch, Actor::Model)
            };
            // Seed 001 state commit: active_context / open_threads, compact, every turn.
            continuity = super::continuity::update(&mut c.state, &facts);
            let condensed =
                condense::condense(&c.recent_messages, &Caps::default(), Mode::Pressure);
            c.recent_messages = condensed.messages;
            Ok((report, condensed.dropped.len()))
        })
        .map_err(|e| {
            if e.code == Code::Conflict {
                e.with(
                "hint",
                "another turn committed to this session first; nothing was lost, retry the turn",
            )
            } else {
                e
            }
        })?;
    let (mut report, dropped) = report;
    report.ignored_keys = std::mem::take(&mut w.notes_ignored_keys);
    record.revision = Some(committed.revision);
    let notes_value = json!({"applied": report.applied, "actions": report.actions,
        "requested": report.requested, "refused": report.refused,
        "ignored_actions": report.ignored_actions, "errors": w.notes_errors});
    // The trace data `bob notes apply` writes, plus the run and the pressure condensation.
    let errors = std::mem::take(&mut w.notes_error_events);
    let events = notes::trace_events(&patch, &report, &errors, committed.revision, Actor::Model);
    for (kind, mut data) in events {
        if let Some(m) = data.as_object_mut() {
            m.insert("run_id".into(), json!(w.run_id));
            if kind == "notes_patch" && !m.contains_key("error") {
                m.insert("condensed_dropped".into(), json!(dropped));
            }
        }
        w.trace(kind, data)?;
    }
    record.notes = notes_value;
    w.trace(
        "continuity",
        json!({"run_id": w.run_id, "source": continuity.as_str(),
               "active_context": committed.state.episode_summary,
               "open_threads": committed.state.open_loops.len()}),
    )?;

    // Memory candidates: pending, for a human.
    if !w.candidates.is_empty() {
        let cands: Vec<MemoryCandidate> =
            w.candidates.drain(..).take(MAX_MEMORY_CANDIDATES).collect();
        let run_id = w.run_id.clone();
        let ids = super::mem::propose(w.memory()?, cands, opts.user_id.as_deref(), sid, &run_id)?;
        for r in ids {
            match r {
                Ok(id) => record.memory_candidates.push(id),
                Err(e) => {
                    if let Some(a) = record.notes["errors"].as_array_mut() {
                        a.push(json!(format!("memory candidate refused: {}", e.message)));
                    }
                }
            }
        }
    }

    // Short-term memory: one entry per completed turn, never for one in an error state (an
    // incomplete turn is one). Non-authoritative: a failure to write it is traced, the turn
    // stands.
    if w.incomplete.is_none() {
        let entry = super::mem::stm_entry(&TurnSummary {
            user: opts.user_id.as_deref(),
            session_id: sid,
            message: &input.message,
            output: &output,
            open_loops: &committed.state.open_loops,
            tools: &w.tools,
            tainted: w.any_tool_failed,
        });
        let written = w.memory().and_then(|m| m.stm_add_unsynced(entry));
        let data = match written {
            Ok(e) => json!({"run_id": w.run_id, "id": e.id, "tainted": e.error_tainted}),
            Err(e) => json!({"run_id": w.run_id, "error": e}),
        };
        w.trace("stm", data)?;
    }
    record.output = output;
    Ok(())
}

/// Runs one non-final role (its reply becomes upstream notes for the next roles; tool calls
/// in it are ignored: only the final role executes tools).
fn upstream_role(
    w: &mut Work<'_>,
    role: &RoleSpec,
    cp: &Checkpoint,
    history: &[ChatMessage],
    user_text: &str,
    retrieval: Option<&str>,
    recap: Option<&recap::Recap>,
) -> Result<()> {
    let opts = w.opts;
    let inputs = RoleInputs {
        facts: Some(&w.facts),
        state: Some(&cp.state),
        history,
        upstream: &w.upstream,
        user: user_text,
        retrieval,
        recap: recap.map(|r| r.summary.as_str()),
        tools: None,
        recovery: None,
        stm: None,
    };
    let req = ChatRequest::new(prompts::build(opts.profile, role, &inputs));
    let reply = w.call(role, 0, &req)?;
    let raw = &reply.message.content;
    let native = reply.message.tool_call_list().len();
    if native > 0 || raw.contains(tools::parse::BEGIN) {
        w.trace(
            "tool_plan",
            json!({"run_id": w.run_id, "role": role.name, "ignored": true,
                   "reason": "only the final role executes tools",
                   "native_calls": native, "marker_block": raw.contains(tools::parse::BEGIN)}),
        )?;
    }
    let text = w.harvest(role, raw);
    let visible = sanitize::sanitize(&text);
    w.upstream.push(Upstream {
        role: role.name.to_string(),
        content: visible,
    });
    Ok(())
}

/// Most times one panda turn goes back from the Solver to Thinking for more context.
pub const MAX_CONTEXT_LOOPS: usize = 2;

/// Seed 004's loop: a panda Solver reply with `needs_more_context: true` sends the turn back
/// to Thinking, with the Solver's `requests` and `analysis` added to the upstream notes, and
/// then to the Solver again; at most [`MAX_CONTEXT_LOOPS`] times (traced as
/// `panda_context_loop`), after which the Solver's last answer stands.
#[allow(clippy::too_many_arguments)]
fn context_loops(
    w: &mut Work<'_>,
    roles: &[RoleSpec],
    cp: &Checkpoint,
    history: &[ChatMessage],
    user_text: &str,
    message: &str,
    recap: Option<&recap::Recap>,
    mut answer: String,
) -> Result<String> {
    let mut loops = 0;
    while let Some(ask) = w.needs_more_context.take() {
        if loops >= MAX_CONTEXT_LOOPS || w.escalated {
            w.trace(
                "panda_context_loop",
                json!({"run_id": w.run_id, "loop": loops, "stopped": "context_limit",
                       "requests": ask["requests"]}),
            )?;
            break;
        }
        loops += 1;
        w.trace(
            "panda_context_loop",
            json!({"run_id": w.run_id, "loop": loops, "requests": ask["requests"]}),
        )?;
        let requests = match &ask["requests"] {
            Value::Null => String::new(),
            Value::String(s) => s.clone(),
            v => v.to_string(),
        };
        let analysis = ask["analysis"].as_str().unwrap_or("");
        w.upstream.push(Upstream {
            role: "solver".into(),
            content: sanitize::sanitize(&format!(
                "The solver needs more context before it can answer.\nRequests: {requests}\nAnalysis so far: {analysis}"
            )),
        });
        for role in roles {
            w.cancel.check()?;
            let retrieval = if role.wants_retrieval {
                retrieve(w, role, message)?
            } else {
                None
            };
            if role.is_final {
                let enabled = enabled_tools(w.home, &w.opts.session_id)?;
                answer = final_role(
                    w,
                    role,
                    FinalInputs {
                        cp,
                        history,
                        user_text,
                        retrieval: retrieval.as_deref(),
                        recap,
                        stm: None,
                        enabled: &enabled,
                    },
                    Vec::new(),
                )?;
            } else {
                upstream_role(w, role, cp, history, user_text, retrieval.as_deref(), recap)?;
            }
        }
    }
    Ok(answer)
}

fn retrieve(w: &mut Work<'_>, role: &RoleSpec, query: &str) -> Result<Option<String>> {
    let home = w.home;
    if !home.memory_db().exists() {
        w.trace(
            "retrieval",
            json!({"run_id": w.run_id, "role": role.name, "query": query, "hits": [],
                   "note": "no memory store yet"}),
        )?;
        return Ok(None);
    }
    let user = w
        .opts
        .user_id
        .clone()
        .unwrap_or_else(|| "default".to_string());
    let found = match w.prefetched.take() {
        Some(found) => found,
        None => w
            .memory()
            .and_then(|m| super::mem::retrieve(m, &user, query)),
    };
    match found {
        Ok(r) => {
            for (id, _) in &r.hits {
                if !w.retrieved.contains(id) {
                    w.retrieved.push(id.clone());
                }
            }
            w.trace(
                "retrieval",
                json!({"run_id": w.run_id, "role": role.name, "query": query,
                       "hits": r.hits.iter().map(|(id, score)| json!({"id": id, "score": score})).collect::<Vec<_>>()}),
            )?;
            Ok(r.block)
        }
        Err(e) => {
            // Retrieval is non-authoritative: a failure is traced, the turn goes on.
            w.trace(
                "retrieval",
                json!({"run_id": w.run_id, "role": role.name, "query": query, "error": e}),
            )?;
            Ok(None)
        }
    }
}

/// What the final role's inputs are built from.
struct FinalInputs<'x> {
    cp: &'x Checkpoint,
    history: &'x [ChatMessage],
    user_text: &'x str,
    retrieval: Option<&'x str>,
    recap: Option<&'x recap::Recap>,
    stm: Option<&'x str>,
    enabled: &'x [String],
}

/// The final role's bounded tool loop. `planned` is what THINK's Tools stage ran (the calls
/// and their results), which the first round starts from.
fn final_role(
    w: &mut Work<'_>,
    role: &RoleSpec,
    fi: FinalInputs<'_>,
    planned: Vec<ChatMessage>,
) -> Result<String> {
    let opts = w.opts;
    let FinalInputs {
        cp,
        history,
        user_text,
        retrieval,
        recap,
        stm,
        enabled,
    } = fi;
    let tools_list = tools_text(enabled);
    let native = if native_enabled(&opts.settings) {
        native_tools(enabled)
    } else {
        None
    };
    let wire_names = tools::wire::WireNames::of_tools(native.as_ref());
    let mut defaults = CallDefaults::new()?;
    defaults.run_id = w.run_id.clone();
    defaults.agent_id = opts.agent_id.clone();
    let mut loop_state = crate::tools::FailureLoop::load(w.home, &opts.session_id)
        .map(|f| f.state())
        .unwrap_or(LoopState::Normal);
    let mut convo: Vec<ChatMessage> = planned;
    let mut round = 0usize;
    loop {
        let recovery = matches!(loop_state, LoopState::Recovery).then_some(RECOVERY_NOTE);
        let inputs = RoleInputs {
            facts: Some(&w.facts),
            state: Some(&cp.state),
            history,
            upstream: &w.upstream,
            user: user_text,
            retrieval,
            recap: recap.map(|r| r.summary.as_str()),
            tools: Some(&tools_list),
            recovery,
            stm,
        };
        let mut messages = prompts::build(opts.profile, role, &inputs);
        messages.extend(convo.iter().cloned());
        let mut req = ChatRequest::new(messages);
        req.tools = native.clone();
        wire_request(&mut req);
        let reply = w.call(role, round, &req)?;
        let raw = reply.message.content.clone();
        let panda = opts.profile == super::profiles::Profile::Panda;
        let (mut reqs, mut problem) = requests_of(&reply.message, &defaults, &wire_names);
        if panda && reqs.is_empty() && problem.is_none() {
            (reqs, problem) = panda_intents(&raw, &defaults, &mut w.ids);
        }
        let reqs = w.assign_ids(reqs);
        let text = w.harvest(role, &raw);
        if panda {
            // Seed 004's orchestrator transcript entry, one per Solver loop.
            let obj = panda_object(&raw).unwrap_or_default();
            let termination = if !reqs.is_empty() || problem.is_some() {
                if round >= opts.max_tool_rounds {
                    Some("tool_limit")
                } else {
                    None
                }
            } else if obj.get("needs_more_context").and_then(Value::as_bool) == Some(true) {
                Some("needs_more_context")
            } else {
                Some("final")
            };
            w.needs_more_context = (termination == Some("needs_more_context"))
                .then(|| json!({"requests": obj.get("requests"), "analysis": obj.get("analysis")}));
            w.trace(
                "panda_loop",
                json!({"run_id": w.run_id, "round": round,
                       "solver_self_history": obj.get("analysis"),
                       "note_frames": w.patch.clone(),
                       "tool_intents": reqs.iter().map(|r| w.call_json(r)).collect::<Vec<_>>(),
                       "termination_reason": termination}),
            )?;
        }
        if reqs.is_empty() && problem.is_none() {
            return Ok(text);
        }
        if round >= opts.max_tool_rounds {
            w.trace(
                "tool_plan",
                json!({"run_id": w.run_id, "role": role.name, "round": round,
                       "refused": "tool loop limit reached", "calls": reqs.len()}),
            )?;
            w.incomplete = Some("tool_limit");
            let visible = sanitize::sanitize(&text);
            return Ok(if visible == sanitize::EMPTY_OUTPUT {
                "I could not finish within the tool-call limit for one turn.".to_string()
            } else {
                visible
            });
        }
        let reqs: Vec<ToolRequest> = reqs.into_iter().take(MAX_CALLS_PER_ROUND).collect();
        w.trace(
            "tool_plan",
            json!({"run_id": w.run_id, "role": role.name, "round": round,
                   "calls": reqs.iter().map(|r| w.call_json(r)).collect::<Vec<_>>(),
                   "malformed": problem}),
        )?;
        let visible = sanitize::sanitize(&text);
        let visible = if visible == sanitize::EMPTY_OUTPUT {
            String::new()
        } else {
            visible
        };
        if let Some(p) = &problem {
            convo.push(ChatMessage::new(Role::Assistant, visible.clone()));
            convo.push(ChatMessage::new(
                Role::User,
                format!(
                    "<<<TOOL_RESULTS>>>\n{}\n<<<END_TOOL_RESULTS>>>",
                    sanitize::neutralize(&format!(
                        "your tool-call block was malformed and nothing ran: {p}"
                    ))
                ),
            ));
            w.any_tool_failed = true;
        }
        if !reqs.is_empty() {
            convo.push(assistant_with_calls(&visible, &reqs));
        }
        if let Some(text) = run_calls(w, role, &reqs, &mut convo)? {
            return Ok(text);
        }
        if let Some(r) = &w.runner {
            loop_state = r.loop_state().clone();
        }
        round += 1;
    }
}

/// Most chars of a tool result's output (as text) fed back to the model within the turn; the
/// rest is cut (seed 003 §6: tool payloads are never passed back verbatim at full size).
pub const IN_TURN_TOOL_OUTPUT_CHARS: usize = 4000;

/// The enabled tools that change nothing (THINK's Tools stage runs only these).
fn read_only(enabled: &[String]) -> Vec<String> {
    enabled
        .iter()
        .filter(|t| tools::resolve(t).is_some_and(|s| !s.mutating))
        .cloned()
        .collect()
}

/// Seed 001 stage 2, "Tools (runtime)": the tool requests in THINK's reply run through the
/// turn's one runner (same registry, session policy, sandbox, caps and audit as the final
/// role's) before RESPOND, and `planned` gets the assistant call message and the results, so
/// RESPOND starts from them. A request for a tool that changes something is refused (traced
/// `ignored`, recorded in the turn's tools as `refused` with `policy.denied`): actions belong
/// to the role that answers. A malformed block is traced and runs nothing. Returns the
/// escalation text when the failure loop escalated.
fn tools_stage(
    w: &mut Work<'_>,
    role: &RoleSpec,
    reply: &ChatMessage,
    planned: &mut Vec<ChatMessage>,
) -> Result<Option<String>> {
    let mut defaults = CallDefaults::new()?;
    defaults.run_id = w.run_id.clone();
    defaults.agent_id = w.opts.agent_id.clone();
    let (reqs, problem) = requests_of(reply, &defaults, &tools::wire::WireNames::default());
    let reqs = w.assign_ids(reqs);
    let (run, refused): (Vec<ToolRequest>, Vec<ToolRequest>) = reqs
        .into_iter()
        .take(MAX_CALLS_PER_ROUND)
        .partition(|r| !tools::resolve(&r.tool).is_some_and(|s| s.mutating));
    w.trace(
        "tool_plan",
        json!({"run_id": w.run_id, "role": role.name, "stage": "tools",
               "calls": run.iter().map(|r| w.call_json(r)).collect::<Vec<_>>(),
               "malformed": problem}),
    )?;
    for r in &refused {
        let err = Error::denied(format!(
            "{} changes something; the {} stage may request read-only tools only",
            r.tool, role.name
        ))
        .with("tool", r.tool.clone());
        w.trace(
            "tool_plan",
            json!({"run_id": w.run_id, "role": role.name, "id": r.request_id, "tool": r.tool,
                   "ignored": true, "reason": err.message}),
        )?;
        w.tools.push(ToolRecord {
            tool_name: r.tool.clone(),
            args: r.input.clone(),
            status: "refused".into(),
            error: Some(err),
            result_ref: None,
        });
    }
    if run.is_empty() {
        return Ok(None);
    }
    planned.push(assistant_with_calls("", &run));
    run_calls(w, role, &run, planned)
}

/// The live short-term entries relevant to `message` (from the prefetch when one ran), touched
/// for this session so their access counts and sessions seen grow; traced as `stm_context`.
/// Non-authoritative: a failure is traced and the turn goes on without them.
fn working_stm(w: &mut Work<'_>, message: &str) -> Result<Vec<crate::contracts::StmEntry>> {
    let found = match w.prefetch.take(message) {
        Some(p) => {
            if let Some(m) = p.memory {
                w.memory = Some(m);
            }
            w.prefetched = Some(p.found);
            p.stm
        }
        None if !w.home.memory_db().exists() => return Ok(Vec::new()),
        None => {
            let user = w.opts.user_id.clone().unwrap_or_else(|| "default".into());
            w.memory()
                .and_then(|m| super::mem::relevant_stm(m, &user, message))
        }
    };
    let sid = w.opts.session_id.clone();
    let touched = found.and_then(|entries| {
        if entries.is_empty() {
            return Ok(entries);
        }
        w.memory()
            .and_then(|m| super::mem::touch(m, &entries, &sid))
    });
    match touched {
        Ok(entries) => {
            if !entries.is_empty() {
                w.trace(
                    "stm_context",
                    json!({"run_id": w.run_id,
                           "entries": entries.iter().map(|e| json!({"id": e.id,
                               "access_count": e.access_count,
                               "sessions_seen": e.sessions_seen.len()})).collect::<Vec<_>>()}),
                )?;
            }
            Ok(entries)
        }
        Err(e) => {
            w.trace("stm_context", json!({"run_id": w.run_id, "error": e}))?;
            Ok(Vec::new())
        }
    }
}

/// The tool messages that give a result back to the model within the turn: the seed 000 §3
/// content `{id, tool, ok, output, error}`, with an output longer than
/// [`IN_TURN_TOOL_OUTPUT_CHARS`] (as text) replaced by its excerpt and a note of its size (the
/// whole result is in the audit log, `result_ref`); neutralized.
fn tool_result_message(resp: &crate::contracts::ToolResponse, result_ref: &str) -> ChatMessage {
    let mut v = serde_json::to_value(crate::contracts::ToolMessage::from(resp)).unwrap_or_default();
    if let Some(out) = v.get("output").filter(|o| !o.is_null()) {
        let text = match out {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        let chars = condense::char_len(&text);
        if chars > IN_TURN_TOOL_OUTPUT_CHARS {
            // Redacted before the cut (the checkpoint keeps this message).
            let redacted = crate::redact::before_cut(&text);
            v["output"] = json!({
                "excerpt": condense::truncate_chars(&redacted, IN_TURN_TOOL_OUTPUT_CHARS),
                "truncated": true,
                "chars": chars,
                "result_ref": result_ref,
            });
        }
    }
    let mut tm = ChatMessage::new(Role::Tool, sanitize::neutralize(&v.to_string()));
    tm.tool_call_id = Some(resp.request_id.clone());
    tm
}

/// A tool execution as it is kept in the session's history (seed 003 §6 Option A): a
/// `role:"tool"` message whose content is the concise context text of
/// [`condense::tool_context_text`] under the default caps (summary 220, error 320, output
/// excerpt 1000 chars), with the tool's name and call id.
///
/// The content is redacted before it is condensed: the excerpt is a cut, and a secret cut in
/// half is no longer recognisable when the history is stored.
fn tool_history_message(tool: &str, id: &str, content: &Value) -> ChatMessage {
    let mut content = content.clone();
    crate::redact::for_storage()
        .unwrap_or_else(|_| crate::redact::builtin())
        .redact_value(&mut content, "");
    let text =
        condense::tool_context_text(&content.to_string(), Some(tool), Some(id), &Caps::default());
    let mut m = ChatMessage::new(Role::Tool, text);
    m.name = Some(tool.to_string());
    m.tool_call_id = Some(id.to_string());
    m
}

/// Runs `reqs` through the turn's one tool runner (registry, session policy, sandbox, caps,
/// audit `tool.call`/`tool.result`; chat mode stages mutating calls), appending each result as
/// a tool message to `convo` and to the turn's tool history. Returns the escalation text when
/// the failure-loop rule escalated (the turn then ends).
fn run_calls(
    w: &mut Work<'_>,
    role: &RoleSpec,
    reqs: &[ToolRequest],
    convo: &mut Vec<ChatMessage>,
) -> Result<Option<String>> {
    let opts = w.opts;
    if w.runner.is_none() && !reqs.is_empty() {
        let policy = Policy::load(
            w.home,
            &opts.settings,
            Some(&opts.session_id),
            opts.policy.clone(),
        )?;
        let mut r = Runner::new(
            w.home,
            policy,
            &w.run_id,
            &opts.agent_id,
            Some(opts.session_id.clone()),
        )?;
        if w.reproducible {
            r.set_reproducible(w.ids.hex32());
        }
        r.keep_written();
        w.runner = Some(r);
    }
    // Everything planned so far is on disk before a tool can have an effect.
    w.flush()?;
    let audit_ref = w
        .audit
        .path()
        .strip_prefix(w.home.root())
        .unwrap_or(w.audit.path())
        .display()
        .to_string();
    for req in reqs {
        w.cancel.check()?;
        if opts.chat_mode && tools::resolve(&req.tool).is_some_and(|s| s.mutating) {
            let id = tools::confirm::stage(w.home, &opts.session_id, req, &w.ids.hex32())?;
            w.trace(
                "tool_plan",
                json!({"run_id": w.run_id, "id": req.request_id, "tool": req.tool,
                           "requires_confirm": true, "confirm_id": id}),
            )?;
            w.tools.push(ToolRecord {
                tool_name: req.tool.clone(),
                args: req.input.clone(),
                status: "requires_confirm".into(),
                error: None,
                result_ref: Some(format!("confirm:{id}")),
            });
            let msg = json!({"id": req.request_id, "tool": req.tool, "ok": false,
                    "requires_confirm": true, "confirm_id": id,
                    "note": "Chat mode: not executed; a human confirms it with `bob tool confirm`"});
            let mut tm = ChatMessage::new(Role::Tool, sanitize::neutralize(&msg.to_string()));
            tm.tool_call_id = Some(req.request_id.clone());
            convo.push(tm);
            w.tool_history
                .push(tool_history_message(&req.tool, &req.request_id, &msg));
            continue;
        }
        w.trace(
            "tool_start",
            json!({"run_id": w.run_id, "id": req.request_id, "tool": req.tool}),
        )?;
        let Some(r) = w.runner.as_mut() else { break };
        let mut resp = r.run(req);
        if w.reproducible {
            resp.duration_ms = 0;
        }
        w.trace(
            "tool_done",
            json!({"run_id": w.run_id, "id": req.request_id, "tool": req.tool, "ok": resp.ok,
                       "error": resp.error.as_ref().map(|e| e.code.as_str()),
                       "duration_ms": resp.duration_ms}),
        )?;
        if !resp.ok {
            w.any_tool_failed = true;
        }
        if opts.profile == super::profiles::Profile::Panda
            && let Some(c) = priced_bom_candidate(req, &resp)
            && !w
                .candidates
                .iter()
                .any(|x| x.tags.iter().any(|t| t == "bom"))
        {
            w.candidates.push(c);
        }
        let result_ref = format!("{audit_ref}#{}", req.request_id);
        w.tools.push(ToolRecord {
            tool_name: req.tool.clone(),
            args: req.input.clone(),
            status: if resp.ok { "ok" } else { "error" }.into(),
            error: resp.error.clone(),
            result_ref: Some(result_ref.clone()),
        });
        convo.push(tool_result_message(&resp, &result_ref));
        let full =
            serde_json::to_value(crate::contracts::ToolMessage::from(&resp)).unwrap_or_default();
        w.tool_history
            .push(tool_history_message(&req.tool, &req.request_id, &full));
        let Some(r) = w.runner.as_ref() else { break };
        let loop_state = r.loop_state().clone();
        if matches!(loop_state, LoopState::Escalate { .. }) {
            let _ = r.save_failure_loop();
            w.escalated = true;
            w.incomplete = Some("escalated");
            w.trace(
                "tool_plan",
                json!({"run_id": w.run_id, "role": role.name, "escalated": true}),
            )?;
            return Ok(Some(escalation_text(&loop_state)));
        }
    }
    if let Some(r) = &w.runner {
        r.save_failure_loop()?;
    }
    Ok(None)
}

/// The exact request `role` of `profile` would send for `message` in session `session_id`
/// (its first round), without calling anything or writing anything: `bob context`.
/// The home is the settings' home.
pub fn role_request(
    settings: &crate::settings::Settings,
    profile: Profile,
    role_name: &str,
    session_id: &str,
    user_id: Option<&str>,
    message: &str,
    upstream: &[Upstream],
) -> Result<ChatRequest> {
    let home = settings.home();
    let role = profile.role(role_name).ok_or_else(|| {
        Error::invalid(format!(
            "profile {} has no role {role_name:?} (roles: {})",
            profile.as_str(),
            profile
                .roles()
                .iter()
                .map(|r| r.name)
                .collect::<Vec<_>>()
                .join(", ")
        ))
    })?;
    let cp = checkpoint::load(home, session_id)?;
    let recap = recap::build(message, &cp);
    let user_text = recap
        .as_ref()
        .and_then(|r| r.rewritten.clone())
        .unwrap_or_else(|| message.to_string());
    let history =
        condense::condense(&cp.recent_messages, &Caps::default(), Mode::Pressure).messages;
    let mem = if home.memory_db().exists() {
        Some(Memory::open_fast(home)?)
    } else {
        None
    };
    let user = user_id.unwrap_or("default");
    let retrieval = match &mem {
        Some(mem) if role.wants_retrieval => super::mem::retrieve(mem, user, message)?.block,
        _ => None,
    };
    // The same short-term entries the turn would show (not touched: this writes nothing).
    let stm = match &mem {
        Some(mem) => super::mem::stm_block(&super::mem::relevant_stm(mem, user, message)?),
        None => None,
    };
    let (tools_list, native) = if role.is_final {
        let enabled = enabled_tools(home, session_id)?;
        let native = if native_enabled(settings) {
            native_tools(&enabled)
        } else {
            None
        };
        (Some(tools_text(&enabled)), native)
    } else if role.plans_tools {
        let enabled = enabled_tools(home, session_id)?;
        (Some(tools_text(&read_only(&enabled))), None)
    } else {
        (None, None)
    };
    let facts = prompts::TurnFacts {
        identity: super::Identity::from_settings(settings)?,
        date: crate::clock::now()?.format("%Y-%m-%d").to_string(),
        nonce: super::nonce("context", None),
    };
    let inputs = RoleInputs {
        facts: Some(&facts),
        state: Some(&cp.state),
        history: &history,
        upstream,
        user: &user_text,
        retrieval: retrieval.as_deref(),
        recap: recap.as_ref().map(|r| r.summary.as_str()),
        tools: tools_list.as_deref(),
        recovery: None,
        stm: stm.as_deref(),
    };
    let mut req = ChatRequest::new(prompts::build(profile, role, &inputs));
    req.tools = native;
    wire_request(&mut req);
    Ok(req)
}

/// Native tool calling speaks the wire names OpenAI accepts (`fs-read_text`); everything else
/// in bob keeps the registry's names ([`tools::wire`]). Applied to every request the final
/// role sends, so any `tool_calls` in its messages (this turn's rounds, history) match.
fn wire_request(req: &mut ChatRequest) {
    tools::wire::to_wire(req.tools.as_mut(), &mut req.messages);
}

/// The stage-by-stage pipeline's last stage, `bob turn commit`: what `bob turn` does after its
/// roles, from the replies and tool results the earlier stages produced. It calls no model
/// and runs no tool: it harvests each reply (NOTES patches, memory candidates, the tool calls
/// matched to their results), touches the short-term entries the turn's context showed, then
/// commits exactly as [`run`] does (the exchange with its tool history, the NOTES patch,
/// continuity, candidates, the short-term entry, the turn record, the run's audit lifecycle).
pub fn commit_stage(
    home: &Home,
    input: &crate::contracts::CommitInput,
    opts: &TurnOptions,
) -> Result<Outcome> {
    let turn_input = TurnInput {
        session_id: Some(opts.session_id.clone()),
        message: input.message.clone(),
        user_id: opts.user_id.clone(),
        thinking_mode: Some(opts.thinking_mode),
    };
    if turn_input.message.trim().is_empty() {
        return Err(Error::invalid("turn commit: the message is empty"));
    }
    for r in &input.replies {
        if opts.profile.role(&r.role).is_none() {
            return Err(Error::invalid(format!(
                "turn commit: profile {} has no role {:?}",
                opts.profile.as_str(),
                r.role
            )));
        }
    }
    let Some(last) = input.replies.last() else {
        return Err(Error::invalid("turn commit: \"replies\" is empty"));
    };
    if !opts.profile.role(&last.role).is_some_and(|r| r.is_final) {
        return Err(Error::invalid(format!(
            "turn commit: the last reply must be the final role's, not {:?}",
            last.role
        )));
    }
    let prefetch = Prefetch {
        query: input.message.clone(),
        handle: None,
    };
    run_with(
        home,
        None,
        &turn_input,
        opts,
        &Cancel::default(),
        prefetch,
        |w, ti, record| execute_commit(w, ti, record, input),
    )
}

fn execute_commit(
    w: &mut Work<'_>,
    input: &TurnInput,
    record: &mut TurnRecord,
    ci: &crate::contracts::CommitInput,
) -> Result<()> {
    let opts = w.opts;
    let sid = opts.session_id.as_str();
    let cp = expected_checkpoint(w.home, sid, opts.expect_revision)?;
    w.audit(
        "run.started",
        json!({"session_id": sid, "revision": cp.revision, "backend": Value::Null,
               "stage": "commit"}),
    )?;
    let recap = recap::build(&input.message, &cp);
    // The turn's context showed these entries: the access is recorded here, as `bob turn`
    // records it.
    working_stm(w, &input.message)?;
    let mut defaults = CallDefaults::new()?;
    defaults.run_id = w.run_id.clone();
    defaults.agent_id = opts.agent_id.clone();
    let audit_ref = w
        .audit
        .path()
        .strip_prefix(w.home.root())
        .unwrap_or(w.audit.path())
        .display()
        .to_string();
    let mut final_visible = String::new();
    for reply in &ci.replies {
        let Some(role) = opts.profile.role(&reply.role) else {
            continue;
        };
        // A stage reply names no model: it is priced as the configured model's.
        let asked = opts.settings.text("chat.model").unwrap_or_default();
        w.cost
            .add(w.prices.cost("", asked, reply.usage.as_ref()), |a, b| a + b);
        w.usage.add(reply.usage, |mut a, b| {
            a.add(&b);
            a
        });
        if role.is_final || role.plans_tools {
            let (reqs, _) = requests_of(
                &reply.message,
                &defaults,
                &tools::wire::WireNames::default(),
            );
            // The results are matched by the ids the replies gave their calls; what is
            // recorded carries bob's ids ([`Work::assign_ids`]).
            let asked: Vec<String> = reqs.iter().map(|(r, _)| r.request_id.clone()).collect();
            let reqs = w.assign_ids(reqs);
            for (req, asked_id) in reqs.into_iter().zip(asked) {
                let mutating = tools::resolve(&req.tool).is_some_and(|s| s.mutating);
                if role.plans_tools && mutating {
                    w.tools.push(ToolRecord {
                        tool_name: req.tool.clone(),
                        args: req.input.clone(),
                        status: "refused".into(),
                        error: Some(
                            Error::denied(format!(
                                "{} changes something; the {} stage may request read-only tools only",
                                req.tool, role.name
                            ))
                            .with("tool", req.tool.clone()),
                        ),
                        result_ref: None,
                    });
                    continue;
                }
                let Some(resp) = ci.tool_results.iter().find(|r| r.request_id == asked_id) else {
                    continue;
                };
                if !resp.ok {
                    w.any_tool_failed = true;
                }
                w.tools.push(ToolRecord {
                    tool_name: req.tool.clone(),
                    args: req.input.clone(),
                    status: if resp.ok { "ok" } else { "error" }.into(),
                    error: resp.error.clone(),
                    result_ref: Some(format!("{audit_ref}#{}", req.request_id)),
                });
                let mut full = serde_json::to_value(crate::contracts::ToolMessage::from(resp))
                    .unwrap_or_default();
                full["id"] = json!(req.request_id);
                w.tool_history
                    .push(tool_history_message(&req.tool, &req.request_id, &full));
            }
        }
        let text = w.harvest(role, &reply.message.content);
        if role.is_final {
            final_visible = text;
        } else {
            w.upstream.push(Upstream {
                role: role.name.to_string(),
                content: sanitize::sanitize(&text),
            });
        }
    }
    commit(w, input, record, &cp, recap.as_ref(), &final_visible)
}
