//! `bob turn commit`, the stage-by-stage pipeline's last stage: what `bob turn` does after its
//! roles, from the replies and tool results the earlier stages (`bob context`, `bob chat`,
//! `bob tool run`) produced. It calls no model and runs no tool; it commits through the shared
//! [`commit`](super::commit::commit) stage inside the same turn harness as `bob turn`.

use super::TurnInput;
use super::commit::commit;
use super::context::working_stm;
use super::options::TurnOptions;
use super::pipeline::{Outcome, expected_checkpoint, run_with};
use super::prefetch::Prefetch;
use super::prompts::Upstream;
use super::recap;
use super::tool_loop::{planning_requests, requests_of, tool_history_message};
use super::work::Work;
use crate::backend::Cancel;
use crate::contracts::audit;
use crate::contracts::{ToolRecord, TurnRecord};
use crate::error::{Error, Result};
use crate::home::Home;
use crate::sanitize;
use crate::tools::{self, CallDefaults};
use serde_json::Value;

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
        system: None,
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
    w.audit(&audit::RunStarted {
        session_id: sid,
        revision: cp.revision,
        backend: None,
        stage: Some("commit"),
    })?;
    let recap = recap::build(&input.message, &cp);
    // The turn's context showed these entries: the access is recorded here, as `bob turn`
    // records it.
    working_stm(w, &input.message)?;
    let mut defaults = CallDefaults::new()?;
    defaults.run_id = w.run_id.clone();
    defaults.agent_id = opts.agent_id.clone();
    let audit_ref = w.audit_ref();
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
            let (reqs, _) = if role.plans_tools {
                planning_requests(w.plugin, role, &reply.message, &defaults)
            } else {
                requests_of(
                    &reply.message,
                    &defaults,
                    &tools::wire::WireNames::default(),
                )
            };
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
                full["id"] = Value::from(req.request_id.clone());
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
