//! The tool stages: THINK's read-only Tools stage and the final role's bounded tool loop.
//! Every call goes through the turn's one tool runner (registry, policy, sandbox, caps,
//! audit); chat mode stages mutating calls for a human; the failure-loop rule adds a
//! recovery note or ends the turn with the escalation response. Results go back to the model
//! cut and neutralized, and into the session's history condensed and redacted.

use super::RoleSpec;
use super::context::{native_enabled, native_tools, tools_text, wire_request};
use super::prompts::{self, RoleInputs};
use super::recap;
use super::work::{Asked, Plugin, Work};
use crate::backend::ChatRequest;
use crate::condense::{self, Caps};
use crate::contracts::NativeToolCall;
use crate::contracts::ToolRecord;
use crate::contracts::trace::{ToolDone, ToolPlan, ToolStart};
use crate::contracts::{ChatMessage, Checkpoint, Role, ToolRequest};
use crate::error::{Error, Result};
use crate::sanitize;
use crate::tools::{self, CallDefaults, LoopState, Policy, Runner};
use serde::Serialize;
use serde_json::Value;

pub use super::options::MAX_TOOL_ROUNDS;
/// Most tool calls executed from one reply.
pub const MAX_CALLS_PER_ROUND: usize = 8;

/// A planning role's tool requests: the shared way (native calls, marker blocks), else in its
/// profile's own format (panda: Thinking's plan[] calls). `bob turn` and `bob turn commit`
/// read a planning reply the same way.
pub(super) fn planning_requests(
    plugin: &dyn Plugin,
    role: &RoleSpec,
    reply: &ChatMessage,
    defaults: &CallDefaults,
) -> (Vec<Asked>, Option<String>) {
    let shared = requests_of(reply, defaults, &tools::wire::WireNames::default());
    if !shared.0.is_empty() || shared.1.is_some() {
        shared
    } else {
        plugin.planned_tool_calls(role, &reply.content, defaults)
    }
}

/// The tool requests in a reply: native `tool_calls` (their wire names read back to bob's names
/// through `names`; arguments that are not a JSON object are kept as a string, so validation
/// fails them as `tool.input_invalid`), then
/// `<<<TOOL_CALLS_JSON>>>` blocks in the content. A malformed block is an error message.
pub(super) fn requests_of(
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
            None => Value::Object(serde_json::Map::new()),
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
pub(super) fn assistant_with_calls(visible: &str, reqs: &[ToolRequest]) -> ChatMessage {
    let mut m = ChatMessage::new(Role::Assistant, visible.to_string());
    m.tool_calls = Some(NativeToolCall::list(reqs.iter().map(|r| {
        let arguments = match &r.input {
            Value::String(s) => s.clone(),
            v => v.to_string(),
        };
        NativeToolCall::new(&r.request_id, &r.tool, arguments)
    })));
    m
}

/// A tool result's `output` in the model's tool message when it is too long: its excerpt, and
/// where the whole result is kept.
#[derive(Serialize)]
struct OutputExcerpt<'a> {
    excerpt: String,
    truncated: bool,
    chars: usize,
    result_ref: &'a str,
}

/// The tool message of a call chat mode staged instead of running (Spectator's tool message
/// with the confirmation a human gives).
#[derive(Serialize)]
struct StagedCall<'a> {
    id: &'a str,
    tool: &'a str,
    ok: bool,
    requires_confirm: bool,
    confirm_id: &'a str,
    note: &'a str,
}

/// The Openclawssy escalation response: recent attempts, errors and output snippets, asking the
/// user how to proceed.
pub(super) fn escalation_text(state: &LoopState) -> String {
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

pub(super) const RECOVERY_NOTE: &str = "the last tool calls failed repeatedly. Check each call's tool \
name against the list of enabled tools and its arguments against the tool's input; prefer \
answering with what you already know, or ask the user, over repeating a failing call.";

/// What the final role's inputs are built from.
pub(super) struct FinalInputs<'x> {
    pub(super) cp: &'x Checkpoint,
    pub(super) history: &'x [ChatMessage],
    pub(super) user_text: &'x str,
    pub(super) retrieval: Option<&'x str>,
    pub(super) recap: Option<&'x recap::Recap>,
    pub(super) stm: Option<&'x str>,
    pub(super) enabled: &'x [String],
}

/// The final role's bounded tool loop. `planned` is what THINK's Tools stage ran (the calls
/// and their results), which the first round starts from.
pub(super) fn final_role(
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
        let plugin = w.plugin;
        let (mut reqs, mut problem) = requests_of(&reply.message, &defaults, &wire_names);
        if reqs.is_empty() && problem.is_none() {
            (reqs, problem) = plugin.own_tool_calls(w, &raw, &defaults);
        }
        let reqs = w.assign_ids(reqs);
        let text = w.harvest(role, &raw);
        plugin.after_final_reply(w, round, &raw, &reqs, problem.is_some())?;
        if reqs.is_empty() && problem.is_none() {
            return Ok(text);
        }
        if round >= opts.max_tool_rounds {
            w.trace.push(&ToolPlan::LimitReached {
                run_id: &w.run_id,
                role: role.name,
                round,
                refused: "tool loop limit reached",
                calls: reqs.len(),
            })?;
            w.incomplete = Some("tool_limit");
            let visible = sanitize::sanitize(&text);
            return Ok(if visible == sanitize::EMPTY_OUTPUT {
                "I could not finish within the tool-call limit for one turn.".to_string()
            } else {
                visible
            });
        }
        let reqs: Vec<ToolRequest> = reqs.into_iter().take(MAX_CALLS_PER_ROUND).collect();
        w.trace.push(&ToolPlan::Round {
            run_id: &w.run_id,
            role: role.name,
            round,
            calls: w.ignored_ids.calls(&reqs),
            malformed: problem.as_deref(),
        })?;
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
/// rest is cut (the chat context caps: tool payloads are never passed back verbatim at full size).
pub const IN_TURN_TOOL_OUTPUT_CHARS: usize = 4000;

/// The envelope defaults of the calls a reply asks for: the turn's run and agent ids.
pub(super) fn stage_defaults(w: &Work<'_>) -> Result<CallDefaults> {
    let mut defaults = CallDefaults::new()?;
    defaults.run_id = w.run_id.clone();
    defaults.agent_id = w.opts.agent_id.clone();
    Ok(defaults)
}

/// Bob v0 stage 2, "Tools (runtime)": the tool requests in THINK's reply (`asked`, as read
/// from it) run through the
/// turn's one runner (same registry, session policy, sandbox, caps and audit as the final
/// role's) before RESPOND, and `planned` gets the assistant call message and the results, so
/// RESPOND starts from them. A request for a tool that changes something is refused (traced
/// `ignored`, recorded in the turn's tools as `refused` with `policy.denied`): actions belong
/// to the role that answers. A malformed block is traced and runs nothing. Returns the
/// escalation text when the failure loop escalated.
pub(super) fn tools_stage(
    w: &mut Work<'_>,
    role: &RoleSpec,
    asked: (Vec<Asked>, Option<String>),
    planned: &mut Vec<ChatMessage>,
) -> Result<Option<String>> {
    let (reqs, problem) = asked;
    let reqs = w.assign_ids(reqs);
    let (run, refused): (Vec<ToolRequest>, Vec<ToolRequest>) = reqs
        .into_iter()
        .take(MAX_CALLS_PER_ROUND)
        .partition(|r| !tools::resolve(&r.tool).is_some_and(|s| s.mutating));
    w.trace.push(&ToolPlan::Stage {
        run_id: &w.run_id,
        role: role.name,
        stage: "tools",
        calls: w.ignored_ids.calls(&run),
        malformed: problem.as_deref(),
    })?;
    for r in &refused {
        let err = Error::denied(format!(
            "{} changes something; the {} stage may request read-only tools only",
            r.tool, role.name
        ))
        .with("tool", r.tool.clone());
        w.trace.push(&ToolPlan::Refused {
            run_id: &w.run_id,
            role: role.name,
            id: &r.request_id,
            tool: &r.tool,
            ignored: true,
            reason: &err.message,
        })?;
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

/// The tool messages that give a result back to the model within the turn: the tool-call protocol
/// content `{id, tool, ok, output, error}`, with an output longer than
/// [`IN_TURN_TOOL_OUTPUT_CHARS`] (as text) replaced by its excerpt and a note of its size (the
/// whole result is in the audit log, `result_ref`); neutralized.
pub(super) fn tool_result_message(
    resp: &crate::contracts::ToolResponse,
    result_ref: &str,
) -> ChatMessage {
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
            v["output"] = serde_json::to_value(OutputExcerpt {
                excerpt: condense::truncate_chars(&redacted, IN_TURN_TOOL_OUTPUT_CHARS),
                truncated: true,
                chars,
                result_ref,
            })
            .unwrap_or_default();
        }
    }
    let mut tm = ChatMessage::new(Role::Tool, sanitize::neutralize(&v.to_string()));
    tm.tool_call_id = Some(resp.request_id.clone());
    tm
}

/// A tool execution as it is kept in the session's history (Openclawssy Option A): a
/// `role:"tool"` message whose content is the concise context text of
/// [`condense::tool_context_text`] under the default caps (summary 220, error 320, output
/// excerpt 1000 chars), with the tool's name and call id.
///
/// The content is redacted before it is condensed: the excerpt is a cut, and a secret cut in
/// half is no longer recognisable when the history is stored.
pub(super) fn tool_history_message(tool: &str, id: &str, content: &Value) -> ChatMessage {
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
pub(super) fn run_calls(
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
    let audit_ref = w.audit_ref();
    for req in reqs {
        w.cancel.check()?;
        if opts.chat_mode && tools::resolve(&req.tool).is_some_and(|s| s.mutating) {
            let id = tools::confirm::stage(w.home, &opts.session_id, req, &w.ids.hex32())?;
            w.trace.push(&ToolPlan::AwaitsConfirm {
                run_id: &w.run_id,
                id: &req.request_id,
                tool: &req.tool,
                requires_confirm: true,
                confirm_id: &id,
            })?;
            w.tools.push(ToolRecord {
                tool_name: req.tool.clone(),
                args: req.input.clone(),
                status: "requires_confirm".into(),
                error: None,
                result_ref: Some(format!("confirm:{id}")),
            });
            let msg = serde_json::to_value(StagedCall {
                id: &req.request_id,
                tool: &req.tool,
                ok: false,
                requires_confirm: true,
                confirm_id: &id,
                note: "Chat mode: not executed; a human confirms it with `bob tool confirm`",
            })
            .unwrap_or_default();
            let mut tm = ChatMessage::new(Role::Tool, sanitize::neutralize(&msg.to_string()));
            tm.tool_call_id = Some(req.request_id.clone());
            convo.push(tm);
            w.tool_history
                .push(tool_history_message(&req.tool, &req.request_id, &msg));
            continue;
        }
        w.trace.push(&ToolStart {
            run_id: &w.run_id,
            id: &req.request_id,
            tool: &req.tool,
        })?;
        let Some(r) = w.runner.as_mut() else { break };
        let mut resp = r.run(req);
        if w.reproducible {
            resp.duration_ms = 0;
        }
        w.trace.push(&ToolDone {
            run_id: &w.run_id,
            id: &req.request_id,
            tool: &req.tool,
            ok: resp.ok,
            error: resp.error.as_ref().map(|e| e.code.as_str()),
            duration_ms: resp.duration_ms,
        })?;
        if !resp.ok {
            w.any_tool_failed = true;
        }
        w.plugin.after_tool(w, req, &resp);
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
            w.trace.push(&ToolPlan::Escalated {
                run_id: &w.run_id,
                role: role.name,
                escalated: true,
            })?;
            return Ok(Some(escalation_text(&loop_state)));
        }
    }
    if let Some(r) = &w.runner {
        r.save_failure_loop()?;
    }
    Ok(None)
}
