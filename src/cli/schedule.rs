//! `bob schedule`: cron-friendly jobs that run turns (the scheduler job contract).

use super::Ctx;
use super::output::{parse_json, read_input};
use crate::clock;
use crate::error::{Code, Error, Result};
use crate::schedule::{self, RunOptions, Scheduler, TurnCommand};
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

#[derive(Debug, clap::Subcommand)]
pub enum Args {
    /// Create a job from flags and/or a JSON job on stdin (`id` and `schedule` required)
    ///
    /// Schedules: "@every <Go duration>" (e.g. "@every 30m", "@every 1h30m", at least 1s) or a
    /// one-shot RFC3339 timestamp. Cron expressions are rejected. stdin (or --input) is read
    /// unless both --id and --schedule are given; flags override its fields. A duplicate id is
    /// a conflict (exit 5). An @every job is first due one interval after it is created.
    Add(AddArgs),
    /// Change a job's agentID, schedule, message, enabled, session or timeout_s (flags and/or a
    /// JSON object on stdin); a new schedule re-places next_run
    Update(UpdateArgs),
    /// List jobs (JSON Lines)
    List,
    /// Show one job
    Show(IdArg),
    /// Delete a job (its history stays)
    Rm(IdArg),
    /// Pause one job, or with no ID the whole scheduler
    Pause(OptIdArg),
    /// Resume one job, or with no ID the whole scheduler; a job that became due while paused
    /// runs once at the next tick
    Resume(OptIdArg),
    /// Run every due job once as `bob turn` and print {now, ran, skipped, failed, ...}
    ///
    /// Meant for cron every minute. Overlapping ticks are safe: each due time runs once.
    /// Nothing due: reads jobs.json once and writes nothing. Failed runs are recorded, and the
    /// tick still exits 0.
    Tick(RunArgs),
    /// Run one job now, whatever its schedule or pause state; prints the run record and exits
    /// with the failure's code when the turn fails
    Run(RunOneArgs),
    /// List past runs from schedule/history.jsonl (JSON Lines), of one job or all
    History(HistoryArgs),
    /// Summary: paused flag, job counts and the next due time
    Status,
    /// Tick in a loop in this process (for systems without cron); stops on SIGINT/SIGTERM
    ///
    /// Prints one tick report line each time something ran.
    Daemon(DaemonArgs),
    /// Print a crontab line, or systemd service and timer units, that tick every minute
    ///
    /// The output is the file text itself (not JSON), e.g.
    /// `(crontab -l; bob schedule install --cron) | crontab -`.
    Install(InstallArgs),
}

#[derive(Debug, clap::Args)]
pub struct JobFlags {
    /// The turn's agent (Openclawssy `agentID`)
    #[arg(long, value_name = "AGENT_ID")]
    agent: Option<String>,
    /// "@every <Go duration>" or a one-shot RFC3339 timestamp
    #[arg(long, value_name = "SCHEDULE")]
    schedule: Option<String>,
    /// The message each run sends to the turn
    #[arg(long)]
    message: Option<String>,
    /// Session id of the job's turns [default: job-<id>]
    #[arg(long)]
    session: Option<String>,
    /// This job's timeout (Go duration, or whole seconds) [default: the runner's --timeout]
    #[arg(long, value_name = "DURATION")]
    timeout: Option<String>,
    /// Read the JSON job from FILE instead of stdin
    #[arg(long, value_name = "FILE")]
    input: Option<PathBuf>,
}

#[derive(Debug, clap::Args)]
pub struct AddArgs {
    /// Job id (letters, digits and . _ - : @; at most 120)
    #[arg(long)]
    id: Option<String>,
    #[command(flatten)]
    job: JobFlags,
    /// Create the job paused (enabled: false)
    #[arg(long)]
    disabled: bool,
}

#[derive(Debug, clap::Args)]
pub struct UpdateArgs {
    /// Job id
    id: String,
    #[command(flatten)]
    job: JobFlags,
}

#[derive(Debug, clap::Args)]
pub struct IdArg {
    /// Job id
    id: String,
}

#[derive(Debug, clap::Args)]
pub struct OptIdArg {
    /// Job id (omit for the whole scheduler)
    id: Option<String>,
}

#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// Timeout of a job that sets no timeout_s (Go duration, or whole seconds)
    #[arg(long, value_name = "DURATION", default_value = "300s")]
    timeout: String,
    /// Most turns running at once
    #[arg(long, value_name = "N", default_value_t = 4)]
    max_parallel: usize,
}

#[derive(Debug, clap::Args)]
pub struct RunOneArgs {
    /// Job id
    id: String,
    /// Timeout if the job sets no timeout_s (Go duration, or whole seconds)
    #[arg(long, value_name = "DURATION", default_value = "300s")]
    timeout: String,
}

#[derive(Debug, clap::Args)]
pub struct HistoryArgs {
    /// Only this job's runs
    id: Option<String>,
    /// Only the last N runs
    #[arg(long, value_name = "N")]
    limit: Option<usize>,
}

#[derive(Debug, clap::Args)]
pub struct DaemonArgs {
    /// Time between ticks (Go duration, or whole seconds)
    #[arg(long, value_name = "DURATION", default_value = "60s")]
    interval: String,
    #[command(flatten)]
    run: RunArgs,
}

#[derive(Debug, clap::Args)]
#[group(required = true, multiple = false)]
pub struct InstallArgs {
    /// Print the crontab line
    #[arg(long)]
    cron: bool,
    /// Print the systemd service and timer units
    #[arg(long)]
    systemd: bool,
}

pub fn run(args: Args, ctx: &Ctx) -> Result<()> {
    let sched = Scheduler::new(&ctx.home);
    match args {
        Args::Add(a) => add(a, &sched, ctx),
        Args::Update(a) => update(a, &sched, ctx),
        Args::List => ctx.out.rows(&sched.load()?.jobs),
        Args::Show(a) => ctx.out.doc(&sched.get(&a.id)?),
        Args::Rm(a) => ctx.out.doc(&sched.remove(&a.id)?),
        Args::Pause(a) => pause(a.id, false, &sched, ctx),
        Args::Resume(a) => pause(a.id, true, &sched, ctx),
        Args::Tick(a) => {
            let cancel = install_stop_handler();
            let opts = run_options(&a, ctx, cancel)?;
            ctx.out.doc(&sched.tick(&opts, clock::now()?)?)
        }
        Args::Run(a) => run_one(a, &sched, ctx),
        Args::History(a) => history(a, &sched, ctx),
        Args::Status => status(&sched, ctx),
        Args::Daemon(a) => daemon(a, &sched, ctx),
        Args::Install(a) => install(a, ctx),
    }
}

/// A duration flag: a Go duration, or whole seconds.
fn duration_flag(flag: &str, text: &str) -> Result<Duration> {
    let t = text.trim();
    let nanos = if !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) {
        t.parse::<i64>()
            .ok()
            .and_then(|s| s.checked_mul(1_000_000_000))
    } else {
        schedule::parse_go_duration(t).ok()
    };
    match nanos.and_then(|n| u64::try_from(n).ok()).filter(|&n| n > 0) {
        Some(n) => Ok(Duration::from_nanos(n)),
        None => Err(Error::invalid(format!(
            "--{flag} {text:?}: expected a positive Go duration (e.g. 90s, 5m, 1h30m) or whole seconds"
        ))
        .with("field", flag)),
    }
}

fn flags_into(map: &mut Map<String, Value>, f: &JobFlags) -> Result<()> {
    let mut set = |k: &str, v: &Option<String>| {
        if let Some(v) = v {
            map.insert(k.into(), Value::String(v.clone()));
        }
    };
    set("agentID", &f.agent);
    set("schedule", &f.schedule);
    set("message", &f.message);
    set("session", &f.session);
    if let Some(t) = &f.timeout {
        let d = duration_flag("timeout", t)?;
        map.insert("timeout_s".into(), Value::from(d.as_secs().max(1)));
    }
    Ok(())
}

fn input_object(input: Option<&Path>, what: &str) -> Result<Map<String, Value>> {
    let text = read_input(input)?;
    match parse_json::<Value>(what, &text)? {
        Value::Object(m) => Ok(m),
        other => Err(Error::invalid(format!(
            "{what}: expected a JSON object, got {}",
            crate::error::json_kind(&other)
        ))),
    }
}

fn add(a: AddArgs, sched: &Scheduler, ctx: &Ctx) -> Result<()> {
    let from_flags = a.id.is_some() && a.job.schedule.is_some();
    let mut map = if a.job.input.is_some() || !from_flags {
        input_object(a.job.input.as_deref(), "job")?
    } else {
        Map::new()
    };
    if let Some(id) = &a.id {
        map.insert("id".into(), Value::String(id.clone()));
    }
    flags_into(&mut map, &a.job)?;
    if a.disabled {
        map.insert("enabled".into(), Value::Bool(false));
    }
    let job = schedule::job_from_json(map)?;
    ctx.out.doc(&sched.add(job, clock::now()?)?)
}

fn update(a: UpdateArgs, sched: &Scheduler, ctx: &Ctx) -> Result<()> {
    let f = &a.job;
    let any_flag = f.agent.is_some()
        || f.schedule.is_some()
        || f.message.is_some()
        || f.session.is_some()
        || f.timeout.is_some();
    let mut patch = if f.input.is_some() || !any_flag {
        input_object(f.input.as_deref(), "job update")?
    } else {
        Map::new()
    };
    flags_into(&mut patch, f)?;
    ctx.out.doc(&sched.update(&a.id, patch, clock::now()?)?)
}

fn pause(id: Option<String>, resume: bool, sched: &Scheduler, ctx: &Ctx) -> Result<()> {
    match id {
        Some(id) => ctx.out.doc(&sched.set_enabled(&id, resume, clock::now()?)?),
        None => {
            let jobs = sched.set_paused(!resume)?;
            ctx.out.doc(&crate::contracts::SchedulerPaused {
                paused: !resume,
                jobs,
            })
        }
    }
}

fn run_options<'a>(a: &RunArgs, ctx: &Ctx, cancel: &'a AtomicBool) -> Result<RunOptions<'a>> {
    Ok(RunOptions {
        turn: TurnCommand::new(
            absolute(ctx.home.root())?,
            ctx.settings.text("schedule.turn_cmd"),
        )?,
        default_timeout: duration_flag("timeout", &a.timeout)?,
        max_parallel: a.max_parallel.max(1),
        cancel,
    })
}

fn run_one(a: RunOneArgs, sched: &Scheduler, ctx: &Ctx) -> Result<()> {
    let cancel = install_stop_handler();
    let opts = run_options(
        &RunArgs {
            timeout: a.timeout,
            max_parallel: 1,
        },
        ctx,
        cancel,
    )?;
    let run = sched.run_now(&a.id, &opts)?;
    ctx.out.doc(&run)?;
    if run.status == "ok" {
        return Ok(());
    }
    let err = run.error.clone().unwrap_or(Value::Null);
    let code = match run.status.as_str() {
        "timeout" => Code::Timeout,
        "cancelled" => Code::Cancelled,
        _ => serde_json::from_value::<Code>(err["code"].clone()).unwrap_or(Code::InternalError),
    };
    let message = err["message"].as_str().unwrap_or("the turn failed");
    Err(Error::new(
        code,
        format!("job {:?} {}: {message}", run.job_id, run.status),
    )
    .with("job_id", run.job_id.clone())
    .with("status", run.status.clone()))
}

/// The warning for a damaged line of the run history that was skipped.
#[derive(serde::Serialize)]
struct Skipped<'a> {
    message: String,
    path: &'a str,
    line: usize,
}

fn history(a: HistoryArgs, sched: &Scheduler, ctx: &Ctx) -> Result<()> {
    let (mut runs, bad) = sched.history(a.id.as_deref())?;
    for b in &bad {
        let path = sched.history_path().display().to_string();
        super::output::warn(Skipped {
            message: format!(
                "{path}: line {} is {} and was skipped: {}",
                b.line, b.kind, b.reason
            ),
            path: &path,
            line: b.line,
        });
    }
    if let Some(n) = a.limit {
        let drop = runs.len().saturating_sub(n);
        runs.drain(..drop);
    }
    ctx.out.rows(&runs)
}

fn status(sched: &Scheduler, ctx: &Ctx) -> Result<()> {
    ctx.out.doc(&sched.status(clock::now()?)?)
}

fn daemon(a: DaemonArgs, sched: &Scheduler, ctx: &Ctx) -> Result<()> {
    let interval = duration_flag("interval", &a.interval)?;
    let cancel = install_stop_handler();
    let opts = run_options(&a.run, ctx, cancel)?;
    sched.daemon(&opts, interval, |tick| match tick {
        Ok(report) if !report.ran.is_empty() => ctx.out.line(&report),
        Ok(_) => Ok(()),
        // A bad tick is reported and the loop goes on.
        Err(e) => {
            super::output::report(&e);
            Ok(())
        }
    })
}

fn install(a: InstallArgs, ctx: &Ctx) -> Result<()> {
    let exe = std::env::current_exe()
        .map_err(|e| Error::internal(format!("cannot locate the bob executable: {e}")))?;
    let home = absolute(ctx.home.root())?;
    let text = if a.cron {
        schedule::install::cron_line(&exe, &home)
    } else {
        let (service, timer) = schedule::install::systemd_units(&exe, &home);
        format!(
            "# bob-schedule.service\n{service}\n# bob-schedule.timer\n{timer}\n# install: save both under ~/.config/systemd/user/, then\n# systemctl --user daemon-reload && systemctl --user enable --now bob-schedule.timer\n"
        )
    };
    super::output::write_stdout(text.as_bytes())
}

fn absolute(p: &Path) -> Result<PathBuf> {
    std::path::absolute(p).map_err(|e| Error::io(p, e))
}

static STOP: std::sync::LazyLock<std::sync::Arc<AtomicBool>> =
    std::sync::LazyLock::new(|| crate::signals::flag(&[libc::SIGINT, libc::SIGTERM]));

/// Routes SIGINT and SIGTERM to a flag that stops the daemon loop and kills running turns
/// (which lead their own process groups, so a terminal's Ctrl-C does not reach them).
fn install_stop_handler() -> &'static AtomicBool {
    &STOP
}
