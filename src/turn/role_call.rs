//! The role call stage: one LLM call of a role, traced (`llm_req`, `llm_stream`,
//! `llm_done`) and audited (`model.requested`), and the reading of its raw output (NOTES
//! patch, memory candidates, the text that becomes the role's visible notes). A non-final
//! role's reply becomes UPSTREAM for the next role; tool calls in it are ignored.

use super::RoleSpec;
use super::prompts::{self, RoleInputs, Upstream};
use super::recap;
use super::work::Work;
use crate::backend::{CallOpts, ChatReply, ChatRequest, Delta, LiveEvent};
use crate::contracts::audit::ModelRequested;
use crate::contracts::trace::{LlmDone, LlmReq, LlmStream, ToolPlan};
use crate::contracts::{ChatMessage, Checkpoint, Role};
use crate::error::{Error, Result};
use crate::notes::{self};
use crate::sanitize;
use crate::tools::{self};
use serde_json::Value;

/// Why a role other than the final one does not run the tools it asked for.
pub(super) const NOT_FINAL_ROLE: &str = "only the final role executes tools";

impl Work<'_> {
    /// One LLM call, traced and audited.
    pub(super) fn call(
        &mut self,
        role: &RoleSpec,
        round: usize,
        req: &ChatRequest,
    ) -> Result<ChatReply> {
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
        self.trace.push(&LlmReq {
            run_id: &self.run_id,
            role: role.name,
            round,
            messages: req.messages.len(),
            chars,
            tools: req
                .tools
                .as_ref()
                .and_then(Value::as_array)
                .map_or(0, Vec::len),
            backend: backend.describe(),
            stream: self.opts.stream,
        })?;
        self.audit(&ModelRequested {
            role: role.name,
            round,
            model: backend.model(),
        })?;
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
        let watch = self.opts.watch.clone();
        if let Some(w) = &watch {
            w.tell(&LiveEvent::Call {
                role: role.name,
                answers: role.is_final,
            });
        }
        let opts = CallOpts {
            role: Some(role.name.to_string()),
            stream: self.opts.stream,
            cancel: self.cancel.clone(),
            watch: watch.clone(),
        };
        // The answering role's text as the watcher sees it: the profile's reading of the
        // reply as it streams (the raw text when it has none).
        let mut answer_of = if role.is_final {
            self.plugin.live_answer()
        } else {
            None
        };
        let reply = {
            let mut sink = |d: &Delta| {
                deltas += 1;
                if let Delta::Delta { content } = d {
                    delta_chars += content.chars().count();
                    if let Some(w) = &watch {
                        match &mut answer_of {
                            Some(read) => {
                                let text = read(content);
                                if !text.is_empty() {
                                    w.tell(&LiveEvent::Text(&text));
                                }
                            }
                            None => w.tell(&LiveEvent::Text(content)),
                        }
                    }
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
                let _ = self.trace.push(&LlmDone::Failed {
                    run_id: &self.run_id,
                    role: role.name,
                    round,
                    ok: false,
                    error: &e,
                });
                return Err(e);
            }
        };
        if self.reproducible {
            reply.latency_ms = 0;
            reply.first_delta_ms = reply.first_delta_ms.map(|_| 0);
        }
        if self.opts.stream {
            self.trace.push(&LlmStream {
                run_id: &self.run_id,
                role: role.name,
                round,
                deltas,
                chars: delta_chars,
                first_delta_ms: reply.first_delta_ms,
            })?;
        }
        reply.cost = self
            .prices
            .cost(&reply.model, &backend.model(), reply.usage.as_ref());
        self.usage.add(reply.usage, |mut a, b| {
            a.add(&b);
            a
        });
        self.cost.add(reply.cost, |a, b| a + b);
        self.trace.push(&LlmDone::Answered {
            run_id: &self.run_id,
            role: role.name,
            round,
            ok: true,
            usage: reply.usage,
            cost: reply.cost,
            latency_ms: reply.latency_ms,
            model: &reply.model,
            finish_reason: reply.finish_reason.as_deref(),
            attempts: reply.attempts,
            tool_calls: reply
                .message
                .tool_calls
                .as_ref()
                .and_then(Value::as_array)
                .map_or(0, Vec::len),
        })?;
        Ok(reply)
    }

    /// Keeps the NOTES patch and memory candidates of a role's raw output; returns the text
    /// to sanitize into the role's visible text.
    pub(super) fn harvest(&mut self, role: &RoleSpec, raw: &str) -> String {
        if let Some(text) = self.plugin.read_output(self, role, raw) {
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

/// Removes `<<<MEMORY_CANDIDATES_JSON>>>` blocks; returns the rest and the blocks' payloads.
pub(super) fn take_memory_blocks(text: &str) -> (String, Vec<String>) {
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

/// Runs one non-final role (its reply becomes upstream notes for the next roles; tool calls
/// in it are ignored: only the final role executes tools).
pub(super) fn upstream_role(
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
        w.trace.push(&ToolPlan::NotRun {
            run_id: &w.run_id,
            role: role.name,
            ignored: true,
            reason: NOT_FINAL_ROLE,
            native_calls: native,
            marker_block: raw.contains(tools::parse::BEGIN),
        })?;
    }
    let text = w.harvest(role, raw);
    let visible = sanitize::sanitize(&text);
    w.upstream.push(Upstream {
        role: role.name.to_string(),
        content: visible,
    });
    Ok(())
}
