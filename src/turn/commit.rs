//! The commit stage, shared by every turn and by `bob turn commit`: the visible answer
//! (sanitized, recap fallback, citations checked), the checkpoint update against the revision
//! the turn started from (the exchange with its tool history, the NOTES patch, continuity,
//! condensation), the memory candidates (pending, for a human) and the short-term entry.

use super::TurnInput;
use super::context::working_stm;
use super::mem::TurnSummary;
use super::pipeline::{Outcome, TurnOptions, expected_checkpoint, run_with};
use super::prefetch::Prefetch;
use super::prompts::Upstream;
use super::recap;
use super::tool_loop::{requests_of, tool_history_message};
use super::work::Work;
use crate::backend::Cancel;
use crate::checkpoint;
use crate::condense::{self, Caps, Mode};
use crate::contracts::{ChatMessage, Checkpoint, MemoryCandidate, Role};
use crate::contracts::{ToolRecord, TurnRecord};
use crate::error::{Code, Error, Result};
use crate::home::Home;
use crate::notes::{self, Actor};
use crate::sanitize;
use crate::tools::{self, CallDefaults};
use serde_json::{Value, json};

/// Most memory candidates one turn proposes (seed 001).
pub const MAX_MEMORY_CANDIDATES: usize = 2;

/// What every turn does after its roles (seed 001 stages 4–5; `bob turn commit` too): the
/// visible answer, the checkpoint commit (the exchange with its tool history, the NOTES patch,
/// continuity), the memory candidates and the short-term entry.
pub(super) fn commit(
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
    // Seed 001's compact state.json; derived from the checkpoint just committed, so a failure
    // to write it is traced and the turn stands.
    if let Err(e) = super::continuity::write_state_json(home, sid) {
        w.trace("state_json", json!({"run_id": w.run_id, "error": e}))?;
    }
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

/// The stage-by-stage pipeline's last stage, `bob turn commit`: what `bob turn` does after its
/// roles, from the replies and tool results the earlier stages produced. It calls no model
/// and runs no tool: it harvests each reply (NOTES patches, memory candidates, the tool calls
/// matched to their results), touches the short-term entries the turn's context showed, then
/// commits exactly as [`run`](super::pipeline::run) does (the exchange with its tool history, the NOTES patch,
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
    // With TURBOTIME on, the replies may be the planning path's roles.
    let turbotime_on = tools::domain::turbotime::load(home, &opts.session_id)?.on;
    for r in &input.replies {
        if opts.profile.turn_role(&r.role, turbotime_on).is_none() {
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
    if !opts
        .profile
        .turn_role(&last.role, turbotime_on)
        .is_some_and(|r| r.is_final)
    {
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
        |w, ti, record| execute_commit(w, ti, record, input, turbotime_on),
    )
}

fn execute_commit(
    w: &mut Work<'_>,
    input: &TurnInput,
    record: &mut TurnRecord,
    ci: &crate::contracts::CommitInput,
    turbotime_on: bool,
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
        let Some(role) = opts.profile.turn_role(&reply.role, turbotime_on) else {
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
