//! The state one turn gathers while its stages run ([`Work`]): the run's ids, the audit
//! writer and the queued trace, usage and cost, the NOTES patch, memory candidates, the tool
//! records and history, and the memory store opened at most once. Every stage writes through
//! it; the trace and audit queues are flushed in batches ([`Work::flush`]). [`Plugin`] is what a
//! profile adds to the shared stages (one module per profile in [`super::profiles`]); it lives
//! here, beside the [`Work`] it is handed, so the stages need not know any profile.

use super::options::TurnOptions;
use super::prefetch::Prefetch;
use super::prompts::{self, Upstream};
use super::recap::Recap;
use super::role::RoleSpec;
use crate::audit::Audit;
use crate::backend::{Backend, Cancel, Usage};
use crate::contracts::ToolRecord;
use crate::contracts::TraceData;
use crate::contracts::trace::CallRef;
use crate::contracts::{
    ChatMessage, Checkpoint, MemoryCandidate, NotesPatch, ToolRequest, ToolResponse,
};
use crate::error::{Error, Result};
use crate::home::Home;
use crate::memory::Memory;
use crate::store;
use crate::tools::{CallDefaults, Runner};
use crate::trace;
use serde_json::Value;

/// Everything gathered while the roles run.
pub(super) struct Work<'a> {
    pub(super) home: &'a Home,
    /// The backend and runtime the roles call (none in the commit stage, which calls nothing).
    pub(super) backend: Option<(&'a Backend, &'a tokio::runtime::Runtime)>,
    pub(super) cancel: &'a Cancel,
    pub(super) opts: &'a TurnOptions,
    pub(super) run_id: String,
    pub(super) audit: Audit,
    /// Usage and cost summed over the calls (unknown once one call's is).
    pub(super) usage: crate::cost::Total<Usage>,
    pub(super) cost: crate::cost::Total<f64>,
    pub(super) prices: crate::cost::Prices,
    pub(super) tools: Vec<ToolRecord>,
    pub(super) upstream: Vec<Upstream>,
    pub(super) patch: NotesPatch,
    pub(super) notes_errors: Vec<String>,
    /// The malformed NOTES blocks, for the `notes_patch {error}` trace events.
    pub(super) notes_error_events: Vec<Error>,
    /// Payload keys of the NOTES blocks that no accepted shape has.
    pub(super) notes_ignored_keys: Vec<String>,
    pub(super) candidates: Vec<MemoryCandidate>,
    pub(super) escalated: bool,
    /// Why the turn ended without answering (`escalated`, `tool_limit`): status `incomplete`.
    pub(super) incomplete: Option<&'static str>,
    pub(super) any_tool_failed: bool,
    /// Trace events not yet written (flushed before the first LLM call, before tools run and
    /// at the end of the turn).
    pub(super) trace: TraceQueue,
    /// Whether trace lines were written without a sync (the next synced flush syncs them).
    pub(super) trace_unsynced: bool,
    /// Whether the run's lifecycle events were flushed (before the first LLM call).
    pub(super) lifecycle_flushed: bool,
    /// The memory store, opened once when first needed (retrieval, candidates, STM).
    pub(super) memory: Option<Memory>,
    /// The retrieval started before the turn set itself up.
    pub(super) prefetch: Prefetch,
    /// Identity, date and nonce, stated in every role's system prompt.
    pub(super) facts: prompts::TurnFacts,
    /// The system messages sent this turn: their echo is removed from the visible answer.
    pub(super) system_prompts: Vec<String>,
    /// Ids of the memories retrieved this turn (any role): the only ones a `[mem:id]` may cite.
    pub(super) retrieved: Vec<String>,
    /// The prefetched retrieval result, once the prefetch was joined.
    pub(super) prefetched: Option<Result<super::mem::Retrieved>>,
    /// The turn's one tool runner (THINK's Tools stage and the final role's loop share it, so
    /// they share the policy, the caps, the audit writer and the failure loop).
    pub(super) runner: Option<Runner>,
    /// The turn's tool executions as history messages (Openclawssy Option A), committed
    /// between the user's message and the answer.
    pub(super) tool_history: Vec<ChatMessage>,
    /// Replay mode (`--seed`): every measured duration is recorded as 0, so the turn's output
    /// and files are byte-identical across runs.
    pub(super) reproducible: bool,
    /// Where the run's ids come from (seeded in replay mode).
    pub(super) ids: crate::ids::IdSource,
    /// What the seed is mixed with: the session and the revision the turn started from.
    pub(super) seed_context: String,
    /// Whether the memory store was given its (seeded) id source.
    pub(super) memory_ids_set: bool,
    /// What the turn's plug-in keeps between its hooks (panda: the Solver's request for more
    /// context, for the loop back to Thinking); the shared stages never read it.
    pub(super) plugin_state: Option<Value>,
    /// Tool calls given ids so far ([`Work::assign_ids`]: `call_<n>`, counted over the turn).
    pub(super) calls_assigned: usize,
    /// The id fields each call's model set and bob ignored, by the id bob gave the call.
    pub(super) ignored_ids: IgnoredIds,
    /// The profile's plug-in this turn runs (its TURBOTIME planning path when that is on).
    pub(super) plugin: &'static dyn Plugin,
}

/// A tool call as a reply asked for it, with the id fields the model set itself.
pub(super) type Asked = (ToolRequest, Vec<&'static str>);

/// Trace events a turn queued, each typed by its kind ([`crate::contracts::trace`]);
/// [`Work::flush`] writes the queue with one fdatasync. A separate field of [`Work`], so an
/// event can borrow the rest of the turn's state while it is queued.
#[derive(Default)]
pub(super) struct TraceQueue(Vec<store::JsonlLine>);

impl TraceQueue {
    /// Queues one event.
    pub(super) fn push<T: TraceData>(&mut self, data: &T) -> Result<()> {
        self.0.push(store::jsonl_line(&trace::typed(data)?)?);
        Ok(())
    }

    /// Queues events another module typed and made into lines (the NOTES events `bob notes
    /// apply` writes too).
    pub(super) fn extend(&mut self, lines: Vec<store::JsonlLine>) {
        self.0.extend(lines);
    }
}

/// The id fields each call's model set and bob ignored, by the id bob gave the call.
#[derive(Default)]
pub(super) struct IgnoredIds(std::collections::HashMap<String, Vec<&'static str>>);

impl IgnoredIds {
    /// Calls as the trace names them: `{id, tool}`, plus `ignored_ids` (the id fields the
    /// model set, which bob replaced) when there are any.
    pub(super) fn calls<'a>(&'a self, reqs: &'a [ToolRequest]) -> Vec<CallRef<'a>> {
        reqs.iter()
            .map(|r| CallRef {
                id: &r.request_id,
                tool: &r.tool,
                ignored_ids: self.0.get(&r.request_id).map(Vec::as_slice),
            })
            .collect()
    }
}

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
    /// ([`IgnoredIds::calls`]); their values are never used or written.
    pub(super) fn assign_ids(&mut self, asked: Vec<Asked>) -> Vec<ToolRequest> {
        asked
            .into_iter()
            .map(|(mut r, set)| {
                self.calls_assigned += 1;
                r.request_id = format!("call_{}", self.calls_assigned);
                r.run_id = self.run_id.clone();
                r.agent_id = self.opts.agent_id.clone();
                if !set.is_empty() {
                    self.ignored_ids.0.insert(r.request_id.clone(), set);
                }
                r
            })
            .collect()
    }

    /// Queues one audit event of the run.
    pub(super) fn audit<T: crate::contracts::AuditPayload>(&mut self, payload: &T) -> Result<()> {
        self.audit.queue_payload("system", payload)
    }

    /// The home's memory store, opened (and created if needed) on first use.
    pub(super) fn memory(&mut self) -> Result<&Memory> {
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
    pub(super) fn flush_trace(&mut self, sync: bool) -> Result<()> {
        if self.trace.0.is_empty() && !(sync && self.trace_unsynced) {
            return Ok(());
        }
        let lines = std::mem::take(&mut self.trace.0);
        let path = self.home.trace_path(&self.opts.session_id)?;
        if sync {
            store::append_jsonl_batch(&path, &lines)?;
        } else {
            store::append_jsonl_batch_unsynced(&path, &lines)?;
        }
        self.trace_unsynced = !sync;
        Ok(())
    }

    /// The audit log's path relative to the home, as tool records cite it.
    pub(super) fn audit_ref(&self) -> String {
        let path = self.audit.path();
        path.strip_prefix(self.home.root())
            .unwrap_or(path)
            .display()
            .to_string()
    }

    /// Writes the queued trace and audit events, both synced (before any tool runs, and at the
    /// end).
    pub(super) fn flush(&mut self) -> Result<()> {
        self.flush_trace(true)?;
        self.audit.write_pending().map(|_| ())
    }
}

/// What the roles of one pass worked from, for a plug-in that runs them again
/// ([`Plugin::after_roles`]).
pub(in crate::turn) struct Pass<'x> {
    pub(in crate::turn) cp: &'x Checkpoint,
    pub(in crate::turn) history: &'x [ChatMessage],
    /// The user's message as the roles see it (the pronoun rewrite applied).
    pub(in crate::turn) user_text: &'x str,
    /// The user's message as written (the retrieval query).
    pub(in crate::turn) message: &'x str,
    pub(in crate::turn) recap: Option<&'x Recap>,
}

/// A profile as the shared stages see it: which roles run, how their output is read, and what
/// it adds at fixed points of the turn. Every method but [`Plugin::roles`] has the shared
/// behaviour as its default, so a profile names only what it does differently.
/// See [`Plugin::live_answer`].
pub(in crate::turn) type LiveAnswer = Box<dyn FnMut(&str) -> String + Send>;

pub(in crate::turn) trait Plugin: Sync {
    /// The roles in pipeline order; the last one is final.
    fn roles(&self) -> &'static [RoleSpec];

    /// Reads a role's raw output the profile's own way: keeps what it carries (NOTES patch,
    /// memory candidates) in `w` and returns the text to sanitize into the role's visible
    /// text. `None`: the output is read the shared way (NOTES and memory-candidate blocks).
    fn read_output(&self, _w: &mut Work<'_>, _role: &RoleSpec, _raw: &str) -> Option<String> {
        None
    }

    /// The tool calls a final-role reply asks for in the profile's own format, when it asked
    /// for none the shared way (native `tool_calls`, marker blocks); a malformed request is
    /// the error message.
    fn own_tool_calls(
        &self,
        _w: &mut Work<'_>,
        _raw: &str,
        _defaults: &CallDefaults,
    ) -> (Vec<Asked>, Option<String>) {
        (Vec::new(), None)
    }

    /// The tool calls a planning role's reply (`plans_tools`) asks for in the profile's own
    /// format, when it asked for none the shared way; they run in the Tools stage under the
    /// same gate (read-only tools only, the session's policy).
    fn planned_tool_calls(
        &self,
        _role: &RoleSpec,
        _raw: &str,
        _defaults: &CallDefaults,
    ) -> (Vec<Asked>, Option<String>) {
        (Vec::new(), None)
    }

    /// The planning path this profile runs when TURBOTIME is on for the session (the Bob v0 runtime:
    /// goal framing → plan → tools → answer); `None`: TURBOTIME changes only which tools are
    /// enabled.
    fn turbotime(&self) -> Option<&'static dyn Plugin> {
        None
    }

    /// After each final-role reply was read, with the calls it asked for (ids assigned) and
    /// whether its call block was malformed.
    fn after_final_reply(
        &self,
        _w: &mut Work<'_>,
        _round: usize,
        _raw: &str,
        _calls: &[ToolRequest],
        _malformed: bool,
    ) -> Result<()> {
        Ok(())
    }

    /// After one tool call of the turn ran (not for calls staged for confirmation).
    fn after_tool(&self, _w: &mut Work<'_>, _req: &ToolRequest, _resp: &ToolResponse) {}

    /// What of a final-role reply is the answer while it streams, in the profile's own format:
    /// a reader given each piece as it arrives that returns the answer text the piece adds
    /// (panda: the `final` string of the Solver's JSON). `None`: the reply's text is the answer.
    fn live_answer(&self) -> Option<LiveAnswer> {
        None
    }

    /// After the roles ran: the answer that stands (a profile may run its roles again).
    fn after_roles(&self, _w: &mut Work<'_>, _pass: &Pass<'_>, answer: String) -> Result<String> {
        Ok(answer)
    }
}
