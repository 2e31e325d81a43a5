//! The turn pipeline: one pass of a profile over a session (docs/design.md#the-turn).
//!
//! 1. `run.created`, `run.started` go to the audit log; the checkpoint is read and its
//!    revision taken (or `--expect-revision` checked).
//! 2. A recap question or pronoun-heavy follow-up gets a `Recent conversation summary`
//!    (traced as `recap`).
//! 3. The roles are the turn's plug-in's ([`super::profiles::Plugin`]: the profile's, or its
//!    TURBOTIME planning path's when TURBOTIME is on; traced as `turbotime`), and the plug-in
//!    says how their output is read. Each role is called in order with its labelled inputs
//!    ([`super::prompts`]); roles that want retrieval get the Spectator block (`retrieval`).
//!    Every call is traced (`llm_req`, `llm_stream` when streaming, `llm_done` with usage and
//!    latency) and audited (`model.requested`). A planning role's (`plans_tools`) read-only
//!    tool requests run in the Tools stage before the final role; other earlier roles' tool
//!    calls are ignored (`tool_plan` with `ignored:true`); their NOTES patches and memory
//!    candidates are kept; their sanitized text becomes UPSTREAM for the next role.
//! 4. The final role alone runs tools, in a bounded loop (at most [`MAX_TOOL_ROUNDS`] rounds):
//!    native `tool_calls` and `<<<TOOL_CALLS_JSON>>>` blocks both work; every call goes through
//!    the tools runner (registry, policy, sandbox, audit `tool.call`/`tool.result`), so an
//!    unknown or disabled tool is a failure and never runs. The failure-loop rule applies:
//!    recovery mode adds a note to the system prompt; escalation ends the turn with the seed
//!    003 escalation response.
//! 5. The checkpoint is committed through [`checkpoint::update`] against the revision taken at
//!    the start (a concurrent turn gets `conflict`; nothing is lost): the user message and the
//!    visible answer appended to `recent_messages`, the NOTES patches applied as
//!    [`Actor::Model`](crate::notes::Actor::Model) (requests, never grants) by
//!    [`notes::apply_to_checkpoint`](crate::notes::apply_to_checkpoint), as `bob notes apply`
//!    does, then [`condense`] keeps `recent_messages` bounded. The trace gets the events of
//!    [`notes::trace_events`](crate::notes::trace_events) (the same data as `bob notes apply`)
//!    with the `run_id`. `sessions/<id>/state.json` then holds the compact state (the Bob v0 runtime).
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

use super::commit::commit;
use super::context::{enabled_tools, read_only, retrieve, tools_text, working_stm};
use super::profiles::Pass;
use super::prompts::{self, RoleInputs, Upstream};
use super::recap;
use super::tool_loop::{FinalInputs, final_role, planning_requests, stage_defaults, tools_stage};
use super::work::Work;
use super::{ThinkingMode, TurnInput};
use crate::audit::Audit;
use crate::backend::{Backend, Cancel, ChatRequest, Usage};
use crate::checkpoint;
use crate::condense::{self, Caps, Mode};
use crate::contracts::RecapNote;
use crate::contracts::audit;
use crate::contracts::trace;
use crate::contracts::{ChatMessage, Checkpoint, NotesPatch};
pub use crate::contracts::{ToolRecord, TurnRecord};
use crate::error::{Code, Error, Result};
use crate::home::Home;
use crate::ids::{self, Kind};
use crate::sanitize;
use crate::tools::{self};
use serde_json::Value;
use std::time::Instant;

pub use super::commit::MAX_MEMORY_CANDIDATES;
pub use super::context::role_request;
pub use super::options::TurnOptions;
pub use super::prefetch::Prefetch;
pub use super::tool_loop::{IN_TURN_TOOL_OUTPUT_CHARS, MAX_CALLS_PER_ROUND, MAX_TOOL_ROUNDS};

/// A finished turn: its record, and the error that ended it if it did not complete.
pub struct Outcome {
    pub record: TurnRecord,
    pub error: Option<Error>,
    /// The run's audit events as written (chain fields included, in log order), for the run
    /// bundle ([`crate::runs::write_with_events`]): kept as they were appended, so the bundle
    /// does not read the day's audit log back.
    pub events: Vec<Value>,
}

/// The message of the `turn.incomplete` error for `reason`.
pub(super) fn incomplete_message(reason: &str) -> String {
    match reason {
        "escalated" => "the turn did not answer: its tool calls kept failing and it escalated to \
                        the user (Openclawssy failure-loop rule)"
            .into(),
        "tool_limit" => "the turn did not answer: it reached the tool-round limit \
                         (--max-tool-rounds)"
            .into(),
        other => format!("the turn did not answer ({other})"),
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
pub(super) fn run_with(
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
        instructions: input.system.clone().filter(|s| !s.trim().is_empty()),
    };
    let prices = crate::cost::Prices::load(&opts.settings)?;
    let mut audit = Audit::open(home, &opts.agent_id, &run_id)?;
    audit.keep_written();
    if opts.seed.is_some() {
        audit.set_nonce(ids.hex32());
    }
    audit.queue_payload(
        "system",
        &audit::RunCreated {
            session_id: &opts.session_id,
            profile: opts.profile.as_str(),
            user_id: opts.user_id.as_deref(),
            message_chars: Some(input.message.chars().count()),
        },
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
        trace: Default::default(),
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
        plugin_state: None,
        plugin: opts.profile.plugin(),
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
        notes: None,
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
    record.turbotime = turbo.turn_record();
    // TURBOTIME on: the profile's planning path, when it has one, runs instead of its roles.
    // (`bob turn commit` calls no model: it commits the replies of the roles it was given.)
    if turbo.on
        && w.backend.is_some()
        && let Some(path) = opts.profile.plugin().turbotime()
    {
        w.plugin = path;
        w.trace.push(&trace::Turbotime {
            run_id: &w.run_id,
            path: "planning",
            selected: &turbo.selected,
            roles: path.roles().iter().map(|r| r.name).collect(),
        })?;
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
    let appended = crate::turn_records::log(home).and_then(|log| log.append(&record));
    // Openclawssy has three terminal events: an incomplete turn did not do what was asked, so it
    // ends in `run.failed` (its payload's `status` says `incomplete`).
    w.audit(&audit::RunEnded {
        status: &record.status,
        session_id: &record.session_id,
        revision: record.revision,
        tools: record.tools.len(),
        output_chars: record.output.chars().count(),
        usage: record.usage,
        cost: record.cost,
        latency_ms: record.latency_ms,
        error: record.error.as_ref(),
    })?;
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
pub(super) fn expected_checkpoint(
    home: &Home,
    sid: &str,
    expect: Option<u64>,
) -> Result<Checkpoint> {
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

pub(super) fn execute(w: &mut Work<'_>, input: &TurnInput, record: &mut TurnRecord) -> Result<()> {
    let opts = w.opts;
    let home = w.home;
    let sid = opts.session_id.as_str();
    let cp = expected_checkpoint(home, sid, opts.expect_revision)?;
    let base_revision = cp.revision;
    w.audit(&audit::RunStarted {
        session_id: sid,
        revision: base_revision,
        backend: w.backend.map(|(b, _)| b.describe()),
        stage: None,
    })?;

    // Recap.
    let recap = recap::build(&input.message, &cp);
    let mut user_text = input.message.clone();
    if let Some(r) = &recap {
        if let Some(rw) = &r.rewritten {
            user_text = rw.clone();
        }
        w.trace.push(&trace::Recap::Answered {
            run_id: &w.run_id,
            kind: r.kind.as_str(),
            topic: &r.topic,
            rewritten: r.rewritten.as_deref(),
            summary: &r.summary,
        })?;
        record.recap = Some(RecapNote {
            kind: r.kind.as_str().to_string(),
            rewritten: r.rewritten.clone(),
            fallback: false,
        });
    }

    let history =
        condense::condense(&cp.recent_messages, &Caps::default(), Mode::Pressure).messages;
    // Bob v0 working context: the live short-term entries relevant to the input.
    let stm_entries = working_stm(w, &input.message)?;
    let stm_text = super::mem::stm_block(&stm_entries);
    let roles = w.plugin.roles();
    let mut final_visible = String::new();
    // THINK's Tools stage (Bob v0 stage 2): the calls and results RESPOND starts from.
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
            let asked = if role.plans_tools {
                planning_requests(w.plugin, role, &reply.message, &stage_defaults(w)?)
            } else {
                (Vec::new(), None)
            };
            if !asked.0.is_empty() || asked.1.is_some() {
                if let Some(text) = tools_stage(w, role, asked, &mut planned)? {
                    // The failure loop escalated during the Tools stage: the turn ends here.
                    w.harvest(role, raw);
                    final_visible = text;
                    break;
                }
            } else if native > 0 || marker {
                w.trace.push(&trace::ToolPlan::NotRun {
                    run_id: &w.run_id,
                    role: role.name,
                    ignored: true,
                    reason: super::role_call::NOT_FINAL_ROLE,
                    native_calls: native,
                    marker_block: marker,
                })?;
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
    let pass = Pass {
        cp: &cp,
        history: &history,
        user_text: &user_text,
        message: &input.message,
        recap: recap.as_ref(),
    };
    let final_visible = w.plugin.after_roles(w, &pass, final_visible)?;
    commit(w, input, record, &cp, recap.as_ref(), &final_visible)
}
