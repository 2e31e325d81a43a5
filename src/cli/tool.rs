//! `bob tool`: list, describe and run tools, and enable them for a session (a human act).

use super::Ctx;
use super::output::read_input;
use crate::contracts::ToolListed;
use crate::error::{Error, Result};
use crate::tools::{self, CallDefaults, FailureLoop, Policy, PolicyOverrides, Runner, policy};
use std::path::PathBuf;

#[derive(Debug, clap::Subcommand)]
pub enum Args {
    /// List the registered tools (JSON Lines: name, kind, mutating, aliases, description)
    List {
        /// Also say which tools are enabled for this session
        #[arg(long, value_name = "ID")]
        session: Option<String>,
    },
    /// Print a tool's input JSON Schema (aliases resolve to their tool)
    Schema {
        /// Tool name, e.g. fs.read_text
        name: String,
    },
    /// Run tool calls read from stdin, in order; one response envelope per call on stdout
    ///
    /// Accepts Openclawssy request envelopes (one, an array, or JSON Lines), Spectator {id, tool,
    /// args} arrays and <<<TOOL_CALLS_JSON>>> blocks in assistant text, JSON I/O tool_intent
    /// {action, payload} (alone or in a Solver output), and OpenAI tool_calls (or an assistant
    /// message carrying them). Tools are disabled by default: enable them per session
    /// (`bob tool enable`) or here with --enable/--enable-all. fs and shell tools also need a
    /// sandbox root (--root, or BOB_TOOL_SANDBOX_ENABLED=1 with BOB_TOOL_ROOTS). A failing call
    /// is an ok:false envelope; the command still exits 0. Duplicate ids are invalid.request
    /// and nothing runs. A result is printed only after its audit record is durable; a torn
    /// (exit 5) or unwritable audit log stops the run before any tool runs.
    Run(RunArgs),
    /// Enable tools for a session (a human act), stored in sessions/<id>/tools.json
    Enable {
        /// Session to enable the tools for
        #[arg(long, value_name = "ID")]
        session: String,
        /// Tool names (aliases resolve), or `all`
        #[arg(required = true)]
        names: Vec<String>,
    },
    /// Disable tools for a session
    Disable {
        /// Session to disable the tools for
        #[arg(long, value_name = "ID")]
        session: String,
        /// Tool names (aliases resolve), or `all`
        #[arg(required = true)]
        names: Vec<String>,
    },
    /// Turn TURBOTIME on or off for a session and select its tools (a human act, audited)
    ///
    /// With TURBOTIME on, each selected TURBOTIME tool (scryfall.lookup, steam.game_lookup,
    /// game.knowledge_search, news.headline_search) is enabled for the session and may reach
    /// its own API host without a net grant (the Bob v0 runtime). Nothing else is widened.
    Turbotime {
        /// on or off
        #[arg(value_enum)]
        state: OnOff,
        /// Session whose TURBOTIME to switch
        #[arg(long, value_name = "ID")]
        session: String,
        /// TURBOTIME tools to select (replaces the selection; only with `on`)
        #[arg(long, value_name = "TOOL", num_args = 1..)]
        select: Vec<String>,
    },
    /// Run a tool call a Chat-mode turn staged as requires_confirm (a human act, audited)
    ///
    /// The call runs once, through the same policy and audit as `bob tool run --session S`
    /// (the tool must still be enabled for the session); prints its response envelope.
    Confirm {
        /// The confirm id from the turn record (`confirm:<id>` in result_ref)
        id: String,
        /// Session the staged call belongs to
        #[arg(long, value_name = "ID")]
        session: String,
        /// Sandbox root for fs and shell tools
        #[arg(long, value_name = "DIR")]
        root: Vec<PathBuf>,
    },
    /// Show a session's failure-loop state (the run lifecycle events)
    Loop {
        /// Session whose failure loop to show
        #[arg(long, value_name = "ID")]
        session: String,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OnOff {
    On,
    Off,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum As {
    /// Openclawssy response envelopes
    Envelopes,
    /// Spectator tool-role messages {"role":"tool","tool_call_id",…,"content":"<json>"}
    ToolMessages,
}

#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// Read the calls from FILE instead of stdin
    #[arg(long, value_name = "FILE")]
    input: Option<PathBuf>,
    /// Session whose enabled tools, granted capabilities and failure loop apply
    #[arg(long, value_name = "ID")]
    session: Option<String>,
    /// Sandbox root for fs and shell tools (repeatable; enables the sandbox)
    #[arg(long, value_name = "DIR")]
    root: Vec<PathBuf>,
    /// Enable these tools for this invocation (the calling human's choice)
    #[arg(long, value_name = "NAME", num_args = 1..)]
    enable: Vec<String>,
    /// Enable every registered tool for this invocation
    #[arg(long)]
    enable_all: bool,
    /// Grant a capability (net, net:<domain>) for this invocation
    #[arg(long, value_name = "CAP")]
    grant: Vec<String>,
    /// Let http.get reach loopback addresses (127.0.0.0/8, ::1)
    #[arg(long)]
    allow_loopback: bool,
    /// Let http.get reach private and link-local addresses
    #[arg(long)]
    allow_private: bool,
    /// How shell.exec is confined: full (namespaces, new root, seccomp; refused where the
    /// kernel cannot provide it) or weak (Landlock and a process group only)
    /// [default: $BOB_SANDBOX, else full]
    #[arg(long, value_name = "MODE", value_parser = ["full", "weak"])]
    sandbox: Option<String>,
    /// Accepted for compatibility; the full sandbox is always required unless --sandbox weak
    #[arg(long, hide = true)]
    require_sandbox: bool,
    /// Shell allow/deny rules file (JSON) replacing the built-in one
    #[arg(long, value_name = "FILE")]
    shell_rules: Option<PathBuf>,
    /// Clamp on any call's timeout_ms [default: $BOB_TOOL_MAX_TIMEOUT_MS, else 120000]
    #[arg(long, value_name = "MS")]
    max_timeout_ms: Option<u64>,
    /// Default timeout_ms for calls that carry none
    #[arg(long, value_name = "MS", default_value_t = crate::contracts::DEFAULT_TIMEOUT_MS)]
    timeout_ms: u64,
    /// run_id for calls that carry none [default: a new run_<uuid>]
    #[arg(long, value_name = "ID")]
    run_id: Option<String>,
    /// agent_id for calls that carry none
    #[arg(long, value_name = "ID", default_value = "agent_default")]
    agent_id: String,
    /// Output shape
    #[arg(long = "as", value_enum, default_value = "envelopes")]
    as_: As,
    /// After the responses, print one more line {"failure_loop": …} with the loop state
    #[arg(long)]
    report_loop: bool,
}

pub fn run(args: Args, ctx: &Ctx) -> Result<()> {
    match args {
        Args::List { session } => {
            let enabled = match &session {
                Some(s) => Some(policy::load_session_tools(&ctx.home, s)?.enabled),
                None => None,
            };
            let turbo = match &session {
                Some(s) => Some(tools::domain::turbotime::load(&ctx.home, s)?),
                None => None,
            };
            let rows: Vec<ToolListed> = tools::registry()
                .iter()
                .map(|t| {
                    let aliases = tools::registry::aliases()
                        .iter()
                        .filter(|a| a.target == t.name)
                        .map(|a| a.name.to_string())
                        .collect();
                    let turbotime_tool = tools::domain::turbotime::TOOLS.contains(&t.name);
                    let mut row = ToolListed {
                        name: t.name.to_string(),
                        kind: t.kind.name().to_string(),
                        mutating: t.mutating,
                        aliases,
                        description: t.description.to_string(),
                        turbotime: turbotime_tool.then_some(true),
                        enabled: None,
                        turbotime_selected: None,
                    };
                    if let (Some(e), Some(tt)) = (&enabled, &turbo) {
                        let selected = tt.on && tt.selected.iter().any(|n| n == t.name);
                        row.enabled = Some(selected || e.iter().any(|n| n == t.name));
                        row.turbotime_selected = turbotime_tool.then_some(selected);
                    }
                    row
                })
                .collect();
            ctx.out.rows(&rows)
        }
        Args::Schema { name } => {
            let spec = tools::resolve(&name).ok_or_else(|| {
                Error::new(
                    crate::error::Code::ToolNotFound,
                    format!("no tool named {name:?} (see `bob tool list`)"),
                )
                .with("tool", name.clone())
            })?;
            ctx.out.doc(&crate::contracts::ToolSchema {
                name: spec.name.to_string(),
                description: spec.description.to_string(),
                mutating: spec.mutating,
                input_schema: (spec.schema)(),
            })
        }
        Args::Enable { session, names } => {
            let t = crate::tools::session::set_session_tools(&ctx.home, &session, &names, true)?;
            ctx.out.doc(&t)
        }
        Args::Disable { session, names } => {
            let t = crate::tools::session::set_session_tools(&ctx.home, &session, &names, false)?;
            ctx.out.doc(&t)
        }
        Args::Turbotime {
            state,
            session,
            select,
        } => {
            let t =
                tools::domain::turbotime::set(&ctx.home, &session, state == OnOff::On, &select)?;
            ctx.out.doc(&t)
        }
        Args::Confirm { id, session, root } => {
            let req = tools::confirm::take(&ctx.home, &session, &id)?;
            let policy = Policy::load(
                &ctx.home,
                &ctx.settings,
                Some(&session),
                PolicyOverrides {
                    roots: root,
                    ..Default::default()
                },
            )?;
            let mut runner =
                Runner::new(&ctx.home, policy, &req.run_id, &req.agent_id, Some(session))?;
            let resp = runner.run(&req);
            runner.flush()?;
            runner.save_failure_loop()?;
            ctx.out.doc(&resp)
        }
        Args::Loop { session } => {
            let f = FailureLoop::load(&ctx.home, &session)?;
            ctx.out.doc(&crate::contracts::FailureLoopReport {
                session_id: session,
                state: f.state(),
                record: f,
            })
        }
        Args::Run(a) => run_calls(a, ctx),
    }
}

fn run_calls(a: RunArgs, ctx: &Ctx) -> Result<()> {
    let started = std::time::Instant::now();
    let text = read_input(a.input.as_deref())?;
    let mut defaults = CallDefaults::new()?;
    if let Some(r) = &a.run_id {
        defaults.run_id = r.clone();
    }
    defaults.agent_id = a.agent_id.clone();
    defaults.timeout_ms = a.timeout_ms;
    // Ids become paths and log keys (`crate::ids`): the flags' and every call's are checked
    // before anything runs, and one that may not be written refuses the whole input.
    use crate::ids::{Kind, check_kind};
    let redactor = crate::redact::for_home(&ctx.home)?;
    check_kind(&redactor, Kind::Id, "run_id", &defaults.run_id)?;
    check_kind(&redactor, Kind::Agent, "agent_id", &defaults.agent_id)?;
    if let Some(s) = &a.session {
        check_kind(&redactor, Kind::Id, "session_id", s)?;
    }
    let calls = tools::parse_calls(&text, &defaults)?;
    for (i, c) in calls.iter().enumerate() {
        check_kind(&redactor, Kind::Id, "request_id", &c.request_id)
            .and_then(|_| check_kind(&redactor, Kind::Id, "run_id", &c.run_id))
            .and_then(|_| check_kind(&redactor, Kind::Agent, "agent_id", &c.agent_id))
            .map_err(|e| e.with("call", i + 1))?;
    }
    let overrides = PolicyOverrides {
        roots: a.root.clone(),
        enable: a.enable.clone(),
        enable_all: a.enable_all,
        grant: a.grant.clone(),
        allow_loopback: a.allow_loopback,
        allow_private: a.allow_private,
        sandbox_mode: a
            .sandbox
            .as_deref()
            .map(crate::sandbox::Mode::parse)
            .transpose()?,
        shell_rules: a.shell_rules.clone(),
        max_timeout_ms: a.max_timeout_ms,
    };
    let policy = Policy::load(&ctx.home, &ctx.settings, a.session.as_deref(), overrides)?;
    let mut runner = Runner::new(
        &ctx.home,
        policy,
        &defaults.run_id,
        &defaults.agent_id,
        a.session.clone(),
    )?;
    runner.set_batch(true);
    let stats = ctx.settings.bool("tools.stats")?;
    runner.set_measure(stats);
    let mut buf = Vec::with_capacity(calls.len() * 256);
    // A bar for long batches only (a handful of calls finishes before it would be read).
    let bar = if calls.len() >= PROGRESS_MIN_CALLS {
        ctx.out.progress(Some(calls.len() as u64), "tool calls")
    } else {
        super::progress::Progress::hidden()
    };
    for req in &calls {
        bar.inc(1);
        let resp = runner.run(req);
        match a.as_ {
            As::Envelopes => serde_json::to_writer(&mut buf, &resp),
            As::ToolMessages => serde_json::to_writer(&mut buf, &tools::tool_message(&resp)),
        }
        .map_err(|e| Error::internal(e.to_string()))?;
        buf.push(b'\n');
        // Stream slow calls at once; batch fast ones into few writes and few audit flushes
        // (each flush is an fdatasync plus the chain manifest's atomic replace).
        if buf.len() > DELIVERY_BATCH_BYTES || resp.duration_ms >= 10 {
            deliver(&mut runner, &mut buf)?;
        }
    }
    drop(bar);
    // Audit before delivery: the results still buffered are released only once their
    // events are durable.
    runner.flush()?;
    if a.session.is_some() {
        runner.save_failure_loop()?;
    }
    if a.report_loop {
        let v = LoopLine {
            failure_loop: LoopReport {
                state: runner.loop_state(),
                record: runner.failure_loop(),
            },
        };
        let line = serde_json::to_string(&v).map_err(|e| Error::internal(e.to_string()))?;
        buf.extend_from_slice(line.as_bytes());
        buf.push(b'\n');
    }
    super::output::write_stdout(&buf)?;
    if stats {
        // Opt-in timing breakdown for scripts/bench-tools.sh (stderr, one JSON line).
        let stats = StatsLine {
            stats: Stats {
                calls: calls.len(),
                total_ms: started.elapsed().as_secs_f64() * 1e3,
                cpu_ms: process_cpu_ms(),
                audit_ms: runner.audit_time().as_secs_f64() * 1e3,
                audit_cpu_ms: runner.audit_cpu_time().as_secs_f64() * 1e3,
                extract_ms: tools::domain::web::extract_time().as_secs_f64() * 1e3,
            },
        };
        eprintln!("{}", serde_json::to_string(&stats).unwrap_or_default());
    }
    Ok(())
}

/// The last line of `tool run --report-loop`: the session's failure-loop state and record.
#[derive(serde::Serialize)]
struct LoopLine<'a> {
    failure_loop: LoopReport<'a>,
}

#[derive(serde::Serialize)]
struct LoopReport<'a> {
    state: &'a tools::LoopState,
    #[serde(rename = "loop")]
    record: &'a FailureLoop,
}

/// `tool run --stats`: the timing breakdown on stderr (for scripts/bench-tools.sh).
#[derive(serde::Serialize)]
struct StatsLine {
    stats: Stats,
}

#[derive(serde::Serialize)]
struct Stats {
    calls: usize,
    total_ms: f64,
    cpu_ms: f64,
    audit_ms: f64,
    audit_cpu_ms: f64,
    extract_ms: f64,
}

/// `tool run` draws a progress bar (stderr, terminal only) from this many calls on.
const PROGRESS_MIN_CALLS: usize = 100;

/// Buffered results beyond this many bytes are flushed (audit first) and printed.
const DELIVERY_BATCH_BYTES: usize = 1024 * 1024;

/// Audit before delivery: makes every queued audit event durable (one lock, one fdatasync),
/// THEN writes the buffered results. A failed flush returns the error and prints nothing: a
/// result whose audit record is not on disk never reaches stdout.
fn deliver(runner: &mut Runner, buf: &mut Vec<u8>) -> Result<()> {
    runner.flush()?;
    super::output::write_stdout(buf)?;
    buf.clear();
    Ok(())
}

/// User + system CPU time of this process so far, in ms.
fn process_cpu_ms() -> f64 {
    // SAFETY: `rusage` is a plain C struct of integers and `timeval`s, for which all-zero
    // bytes are a valid value.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `ru` is a live, exclusively borrowed `rusage` for the whole call; getrusage
    // only writes into it and keeps no pointer after returning.
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) } != 0 {
        return 0.0;
    }
    let tv = |t: libc::timeval| t.tv_sec as f64 * 1e3 + t.tv_usec as f64 / 1e3;
    tv(ru.ru_utime) + tv(ru.ru_stime)
}
