//! `bob turn`: one turn through the role pipeline.

use super::Ctx;
use super::chat::{BackendArgs, session_flag, system_text};
use super::live::{Footer, Live};
use super::output::read_input;
use crate::backend::{Backend, Cancel, Route, Watch};
use crate::contracts::{RunMode, TurnRequest};
use crate::error::{Error, Result};
use crate::turn::pipeline::{self, MAX_TOOL_ROUNDS, TurnOptions};
use crate::turn::{Profile, ThinkingMode, TurnInput};
use std::path::PathBuf;

/// Run one turn through the role pipeline (`bob turn commit`: the pipeline's last stage)
///
/// Runs one turn of a pipeline profile over a session and prints the turn record.
///
/// The message: `bob turn "What did I plan for today?"`, or stdin (or --input):
/// `{"session_id":"s1","message":"…","user_id"?:"…","thinking_mode"?:"…"}`, or plain text,
/// which is the message itself (`echo hi | bob turn`; the session is then --session, or
/// `default`). Input starting with `{` must be that JSON object. `--continue` (`-c`) goes on
/// with the session of the last turn run in this home.
///
/// On a terminal (stdout a terminal, no --json): the answer itself, then one dim line with
/// the session, tokens, cost and time; the answer streams in as it arrives when the backend
/// streams (--stream, or by default for an HTTP backend), with a spinner while the model
/// works and a line per retry. Piped or with --json: the turn record, as follows.
///
/// Profiles: bob (think → respond, default), spectator (reflection → planner → critic →
/// governor), solo (one agent with a bounded tool loop). Only the final role answers and only
/// it runs tools (at most --max-tool-rounds rounds, through the tool policy of the session).
///
/// stdout: one turn record `{run_id, session_id, agent_id, profile, status, output, tools,
/// notes, memory_candidates, revision, usage, latency_ms, ts, thinking?, error?}`, also
/// appended to turns.jsonl. status is completed, incomplete, failed or cancelled. incomplete:
/// the turn escalated out of the failure loop or hit --max-tool-rounds, so it did not answer;
/// its output is what it told the user and it exits 7 (turn.incomplete, with the reason
/// escalated or tool_limit). A failed or cancelled turn's output is "...". A turn that did not
/// complete still prints its record, then the error goes to stderr and the exit code follows it
/// (7 incomplete, 6 upstream, 5 conflict: another turn committed to the session first, 124
/// timeout, 130 Ctrl-C). Trace events go to traces/<session>.jsonl, run lifecycle events to the
/// audit log.
///
/// With no backend configured this fails with invalid.request naming BOB_CHAT_BASE_URL,
/// BOB_CHAT_API_KEY, BOB_CHAT_MODEL and --backend replay:FILE.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The user message (instead of reading stdin)
    #[arg(value_name = "MESSAGE", conflicts_with = "input")]
    pub message: Option<String>,
    /// Session id [default: the input's session_id, else `default`]
    #[arg(long, short = 's')]
    pub session: Option<String>,
    /// Go on with the session of the last turn (or `bob chat -s`) run in this home
    #[arg(long = "continue", short = 'c', conflicts_with = "session")]
    pub continue_last: bool,
    /// Your own instructions for this turn, given to every role after bob's rules (which
    /// they do not override) [default: the input's system]
    #[arg(long, value_name = "TEXT")]
    pub system: Option<String>,
    /// Agent id (names the audit log directory)
    #[arg(long, default_value = "agent_default")]
    pub agent: String,
    /// User id (memory user for retrieval and candidates) [default: the input's user_id]
    #[arg(long)]
    pub user: Option<String>,
    /// chat: mutating tool calls are not run but staged as requires_confirm for `bob tool
    /// confirm`; act: they run when enabled and valid (the JSON I/O contracts)
    #[arg(long, default_value = "act", value_parser = ["chat", "act"])]
    pub mode: String,
    /// Pipeline profile (panda: JSON I/O Thinking → Solver, JSON outputs parsed as contracts)
    #[arg(long, default_value = "bob", value_parser = ["bob", "spectator", "solo", "panda"])]
    pub profile: String,
    /// Include the sanitized role notes in the record: never, on_error, always [default: the
    /// input's thinking_mode, else never]
    #[arg(long, value_parser = ["never", "on_error", "always"])]
    pub thinking_mode: Option<String>,
    /// Commit only if the checkpoint is still at this revision (else conflict, exit 5)
    #[arg(long, value_name = "N")]
    pub expect_revision: Option<u64>,
    /// Stream the LLM calls (SSE; traced as llm_stream); on a terminal the answer shows as it
    /// arrives
    #[arg(long)]
    pub stream: bool,
    /// Most tool-loop rounds of the final role
    #[arg(long, default_value_t = MAX_TOOL_ROUNDS, value_name = "N")]
    pub max_tool_rounds: usize,
    /// Replay seed: every id the turn draws (run id, audit nonces, short-term entry and
    /// candidate ids) derives from it, the session and the checkpoint revision, and durations
    /// are recorded as 0, so with BOB_NOW and a replay backend the turn's stdout, records and
    /// files are byte-identical across runs and homes [default: setting turn.seed (BOB_SEED,
    /// config.toml), else none]
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
    /// Read the turn input from FILE instead of stdin
    #[arg(long, value_name = "FILE")]
    pub input: Option<PathBuf>,
    #[command(flatten)]
    pub backend: BackendArgs,
    #[command(subcommand)]
    pub stage: Option<Box<Stage>>,
}

/// A stage of the turn run on its own (the stage-by-stage pipeline).
#[derive(Debug, clap::Subcommand)]
pub enum Stage {
    Commit(CommitArgs),
}

/// The stage-by-stage pipeline's last stage: commit the turn the earlier stages ran.
///
/// stdin (or --input): `{"session_id"?,"message","user_id"?,"replies":[{"role","message",
/// "usage"?}…],"tool_results"?:[…]}`: each reply is `bob chat`'s output with the role it
/// answered for (the final role's last reply is the answer), the tool results are what `bob
/// tool run` printed. Nothing is called or run: the replies' NOTES patches and memory
/// candidates are harvested, their tool calls matched to the results by request_id, the
/// short-term entries the context showed are touched, and the turn is committed exactly as
/// `bob turn` commits it: the exchange with its tool history appended to the checkpoint, the
/// NOTES patch applied as the model, continuity updated, candidates proposed, the short-term
/// entry and the turn record written, the run's audit lifecycle logged. stdout: the turn
/// record. With --seed and BOB_NOW it leaves the home `bob turn --seed` leaves (see docs/turn.md).
#[derive(Debug, clap::Args)]
pub struct CommitArgs {
    /// Session id [default: the input's session_id, else `default`]
    #[arg(long)]
    pub session: Option<String>,
    /// Agent id (names the audit log directory)
    #[arg(long, default_value = "agent_default")]
    pub agent: String,
    /// User id [default: the input's user_id]
    #[arg(long)]
    pub user: Option<String>,
    /// Pipeline profile the replies come from
    #[arg(long, default_value = "bob", value_parser = ["bob", "spectator", "solo", "panda"])]
    pub profile: String,
    /// Commit only if the checkpoint is still at this revision (else conflict, exit 5)
    #[arg(long, value_name = "N")]
    pub expect_revision: Option<u64>,
    /// Replay seed, as for `bob turn` (the same seed, session and revision give the same ids)
    /// [default: setting turn.seed (BOB_SEED, config.toml), else none]
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
    /// Read the input from FILE instead of stdin
    #[arg(long, value_name = "FILE")]
    pub input: Option<PathBuf>,
}

/// The session: `--session` and the input's `session_id` must agree; `default` when neither.
fn session_of(flag: Option<&String>, input: Option<&String>) -> Result<String> {
    match (flag, input) {
        (Some(x), Some(y)) if x != y => Err(Error::invalid(format!(
            "--session {x:?} and the input's session_id {y:?} disagree"
        ))),
        (Some(x), _) | (None, Some(x)) => Ok(x.clone()),
        (None, None) => Ok("default".to_string()),
    }
}

/// The settings with `--seed` layered on, and the effective seed (flag > BOB_SEED > config).
fn seeded(ctx: &Ctx, flag: Option<u64>) -> Result<(crate::settings::Settings, Option<u64>)> {
    let settings = ctx.settings.with_flags(|f| f.set("turn.seed", flag));
    let seed = settings.u64("turn.seed")?;
    Ok((settings, seed))
}

fn commit(a: CommitArgs, ctx: &Ctx) -> Result<()> {
    let text = read_input(a.input.as_deref())?;
    let input: crate::contracts::CommitInput =
        serde_json::from_str(&text).map_err(|e| Error::bad_json("turn commit input", &e))?;
    let session = session_of(a.session.as_ref(), input.session_id.as_ref())?;
    let profile = Profile::parse(&a.profile)
        .ok_or_else(|| Error::invalid(format!("unknown profile {:?}", a.profile)))?;
    let (settings, seed) = seeded(ctx, a.seed)?;
    let request = TurnRequest::new("cli", a.agent, session, input.message.clone())
        .with_user(a.user.or(input.user_id.clone()))
        .with_profile(profile.as_str())
        .with_expect_revision(a.expect_revision)
        .with_seed(seed);
    let opts = TurnOptions::for_request(&request, settings)?;
    pipeline::check_ids(&ctx.home, &opts)?;
    let outcome = crate::turn::commit_stage(&ctx.home, &input, &opts)?;
    crate::runs::write_with_events(&ctx.home, &request, &outcome.record, Some(outcome.events))?;
    print_record(ctx, &outcome.record)?;
    match outcome.error {
        None => Ok(()),
        Some(e) => Err(e),
    }
}

pub fn run(args: Args, ctx: &Ctx) -> Result<()> {
    if let Some(stage) = args.stage {
        let Stage::Commit(a) = *stage;
        return commit(a, ctx);
    }
    let mut input = match &args.message {
        Some(m) => TurnInput::parse_message(m)?,
        None => TurnInput::parse(&read_input(args.input.as_deref())?)?,
    };
    if let Some(system) = &args.system {
        input.system = Some(system_text(system)?);
    }
    let flag_session = session_flag(ctx, args.session.as_ref(), args.continue_last)?;
    let session = session_of(flag_session.as_ref(), input.session_id.as_ref())?;
    let profile = Profile::parse(&args.profile)
        .ok_or_else(|| Error::invalid(format!("unknown profile {:?}", args.profile)))?;
    let thinking_mode = match &args.thinking_mode {
        Some(m) => ThinkingMode::parse(m)
            .ok_or_else(|| Error::invalid(format!("unknown thinking mode {m:?}")))?,
        None => input.thinking_mode.unwrap_or_default(),
    };
    let mode = RunMode::parse(&args.mode)
        .ok_or_else(|| Error::invalid(format!("unknown mode {:?}", args.mode)))?;
    let (settings, seed) = seeded(ctx, args.seed)?;
    let request = TurnRequest::new("cli", args.agent, session, input.message.clone())
        .with_user(args.user.or(input.user_id.clone()))
        .with_thinking_mode(thinking_mode.as_str())
        .with_profile(profile.as_str())
        .with_mode(mode)
        .with_system(input.system.clone())
        .with_expect_revision(args.expect_revision)
        .with_stream(args.stream)
        .with_max_tool_rounds(args.max_tool_rounds)
        .with_seed(seed);
    // The turn runs from the request, as a served, scheduled or eval turn does.
    let input = TurnInput::of_request(&request)?;
    let mut opts = TurnOptions::for_request(&request, settings)?;
    pipeline::check_ids(&ctx.home, &opts)?;
    // Retrieval runs on its own thread while the backend and the runtime are set up.
    let prefetch = pipeline::Prefetch::start(&ctx.home, &opts, &input.message);
    let backend = Backend::resolve(
        &ctx.home,
        &ctx.settings,
        args.backend.backend.as_deref(),
        Route::Chat,
        &args.backend.overrides(),
    )?;
    let live = if ctx.out.is_human() {
        Some(watch_live(ctx, &backend, &mut opts)?)
    } else {
        None
    };
    let rt = crate::backend::runtime()?;
    let cancel = Cancel::on_ctrl_c();
    let outcome = match pipeline::run_prefetched(
        &ctx.home, &backend, &rt, &input, &opts, &cancel, prefetch,
    ) {
        Ok(o) => o,
        Err(e) => {
            if let Some(l) = &live {
                l.abandon();
            }
            return Err(e);
        }
    };
    crate::runs::write_with_events(&ctx.home, &request, &outcome.record, Some(outcome.events))?;
    ctx.home.remember_session(&opts.session_id)?;
    match &live {
        Some(l) => show_answer(ctx, l, &outcome.record)?,
        None => print_record(ctx, &outcome.record)?,
    }
    match outcome.error {
        None => Ok(()),
        Some(e) => Err(e),
    }
}

/// Sets `opts` up for the terminal view: the turn streams when the backend can, and its role
/// calls, answer text (for panda, the Solver's `final` as its JSON arrives) and retries go to
/// a [`Live`] view that shows the answer cleaned as the record is.
fn watch_live(ctx: &Ctx, backend: &Backend, opts: &mut TurnOptions) -> Result<Live> {
    opts.stream = opts.stream || backend.streams();
    let redactor = crate::redact::for_home(&ctx.home)?;
    let live = Live::start(
        "thinking",
        Some(Box::new(move |raw: &str| {
            redactor
                .redact_str(&crate::sanitize::sanitize(raw))
                .into_owned()
        })),
    );
    let watcher = live.clone();
    opts.watch = Some(Watch::new(move |e| watcher.event(e)));
    Ok(live)
}

/// The terminal view of a finished turn: the answer (masked as the record is), then the
/// footer.
fn show_answer(ctx: &Ctx, live: &Live, record: &pipeline::TurnRecord) -> Result<()> {
    let output = crate::redact::for_home(&ctx.home)?
        .redact_str(&record.output)
        .into_owned();
    live.finish(
        &output,
        &Footer {
            session: Some(record.session_id.clone()),
            model: None,
            tokens: record.usage.as_ref().map(|u| u.total_tokens),
            cost: record.cost,
            elapsed: live.elapsed(),
        },
    )
}

/// Prints the turn record, the user's answer, with every secret bob knows masked, as
/// `turns.jsonl` keeps it and `bob serve` answers it: a model that echoes a stored secret or
/// the API key does not get it printed. (`bob chat`, the raw model call of a stage-by-stage
/// pipeline, prints the reply as the backend sent it.)
fn print_record(ctx: &Ctx, record: &pipeline::TurnRecord) -> Result<()> {
    let mut v = serde_json::to_value(record).map_err(|e| Error::internal(e.to_string()))?;
    crate::redact::for_home(&ctx.home)?.redact_value(&mut v, "record");
    ctx.out.doc(&v)
}
