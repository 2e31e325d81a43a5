//! Runs one job as a child `bob turn` process: JSON on stdin, one turn record on stdout, the
//! JSON error as the last line of stderr when it fails. The child leads its own process group
//! so a timeout or a cancel kills it and everything it started (the shared supervisor,
//! [`crate::sandbox::supervisor`]).

use crate::contracts::Job;
use crate::sandbox::supervisor::{self, Ended, Limits};
use serde::Serialize;
use serde_json::Value;
use std::path::PathBuf;
use std::process::{Command, ExitStatus};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// Environment variable of the `schedule.turn_cmd` setting, which replaces `bob turn` with a
/// shell command (tests, wrappers such as `nice`). The command runs as
/// `sh -c "$BOB_SCHEDULE_TURN_CMD" bob-turn --session S [--agent A]` with the same stdin,
/// environment and contract as `bob turn`.
pub const TURN_CMD_ENV: &str = "BOB_SCHEDULE_TURN_CMD";

/// Most of a child's stdout kept (a turn record); the rest is read and dropped.
const STDOUT_CAP: usize = 16 * 1024 * 1024;
/// Most of a child's stderr kept.
const STDERR_CAP: usize = 1024 * 1024;

/// How a job's turn is started.
#[derive(Debug, Clone)]
pub enum TurnCommand {
    /// `<exe> --home <home> turn --session S [--agent A]`.
    Bob { exe: PathBuf, home: PathBuf },
    /// `sh -c <command> bob-turn --session S [--agent A]` (see [`TURN_CMD_ENV`]).
    Shell { command: String, home: PathBuf },
}

impl TurnCommand {
    /// `bob turn` through this very executable, or the `schedule.turn_cmd` override.
    pub fn new(home: PathBuf, turn_cmd: Option<&str>) -> crate::error::Result<TurnCommand> {
        if let Some(command) = turn_cmd
            && !command.trim().is_empty()
        {
            let command = command.to_string();
            return Ok(TurnCommand::Shell { command, home });
        }
        let exe = std::env::current_exe().map_err(|e| {
            crate::error::Error::internal(format!("cannot locate the bob executable: {e}"))
        })?;
        Ok(TurnCommand::Bob { exe, home })
    }

    fn command(&self, session: &str, agent: &str) -> Command {
        let mut turn_args: Vec<&str> = vec!["--session", session];
        if !agent.is_empty() {
            turn_args.extend(["--agent", agent]);
        }
        match self {
            TurnCommand::Bob { exe, home } => {
                let mut c = Command::new(exe);
                c.arg("--home").arg(home).arg("turn").args(&turn_args);
                c
            }
            TurnCommand::Shell { command, home } => {
                let mut c = Command::new("/bin/sh");
                c.arg("-c")
                    .arg(command)
                    .arg("bob-turn")
                    .args(&turn_args)
                    .env("BOB_HOME", home);
                c
            }
        }
    }
}

/// How one run ended.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// `ok`, `incomplete` (the turn ran but did not answer: it escalated or hit the
    /// tool-round limit; exit 7), `failed`, `timeout` or `cancelled`.
    pub status: &'static str,
    pub run_id: Option<String>,
    pub turn_status: Option<String>,
    pub exit_code: Option<i32>,
    pub error: Option<Value>,
    /// The turn record's `usage` and `cost` (`None` when unknown or there is no record).
    pub usage: Option<crate::contracts::Usage>,
    pub cost: Option<f64>,
}

/// The error the scheduler writes for a run when the turn gave none of its own:
/// `{"code","message"}` (a turn's own error object is kept as the turn printed it).
#[derive(Serialize)]
struct RunError<'a> {
    code: &'a str,
    message: String,
}

fn run_error(code: &str, message: impl Into<String>) -> Value {
    serde_json::to_value(RunError {
        code,
        message: message.into(),
    })
    .unwrap_or_default()
}

impl Outcome {
    fn failed(code: &str, message: String) -> Outcome {
        Outcome {
            status: "failed",
            run_id: None,
            turn_status: None,
            exit_code: None,
            error: Some(run_error(code, message)),
            usage: None,
            cost: None,
        }
    }
}

/// How long a turn gets between SIGTERM and SIGKILL to record its own cancellation.
pub const KILL_GRACE: Duration = Duration::from_secs(2);

/// Runs `job`'s turn in `session`, killing it after `timeout` or when `cancel` is raised.
///
/// The turn is not namespaced (it needs the home), but it goes through the same process
/// supervisor as `shell.exec` ([`crate::sandbox::supervisor`]): own process group, capped
/// capture with the rest drained, SIGTERM then SIGKILL to the whole group on timeout or cancel.
pub fn run_turn(
    turn: &TurnCommand,
    job: &Job,
    session: &str,
    timeout: Duration,
    cancel: &AtomicBool,
) -> Outcome {
    let mut cmd = turn.command(session, &job.agent_id);
    cmd.env("BOB_SCHEDULE_JOB_ID", &job.id);
    let request =
        crate::contracts::TurnRequest::new("schedule", &job.agent_id, session, &job.message);
    let input = serde_json::to_string(&request.input()).unwrap_or_default();
    let limits = Limits {
        timeout,
        stdout_cap: STDOUT_CAP,
        stderr_cap: STDERR_CAP,
        kill_grace: KILL_GRACE,
        // A grandchild that left the group may hold the pipes open: do not wait on it forever.
        drain_wait: Duration::from_secs(2),
    };
    let finished = match supervisor::run(cmd, Some(input.into_bytes()), &limits, Some(cancel)) {
        Ok(f) => f,
        Err(e) => return Outcome::failed("internal.error", format!("cannot run the turn: {e}")),
    };
    match finished.ended {
        Ended::TimedOut => Outcome {
            status: "timeout",
            error: Some(run_error(
                "timeout",
                format!(
                    "the turn did not finish within {}s and was killed",
                    timeout.as_secs_f64()
                ),
            )),
            ..Outcome::failed("", String::new())
        },
        Ended::Cancelled => Outcome {
            status: "cancelled",
            error: Some(run_error(
                "run.cancelled",
                "the scheduler was stopped while the turn ran; the turn was killed",
            )),
            ..Outcome::failed("", String::new())
        },
        Ended::Exited(status) => finish(status, &finished.stdout.bytes, &finished.stderr.bytes),
    }
}

fn last_line(bytes: &[u8]) -> Option<String> {
    String::from_utf8_lossy(bytes)
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .map(|l| l.trim().to_string())
}

fn turn_record(stdout: &[u8]) -> Option<Value> {
    if let Ok(v @ Value::Object(_)) = serde_json::from_slice::<Value>(stdout) {
        return Some(v);
    }
    let line = last_line(stdout)?;
    match serde_json::from_str::<Value>(&line) {
        Ok(v @ Value::Object(_)) => Some(v),
        _ => None,
    }
}

fn finish(status: ExitStatus, stdout: &[u8], stderr: &[u8]) -> Outcome {
    use std::os::unix::process::ExitStatusExt;
    let record = turn_record(stdout);
    let field = |k: &str| {
        record
            .as_ref()
            .and_then(|r| r.get(k))
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    let run_id = field("run_id");
    let turn_status = field("status");
    let usage = record
        .as_ref()
        .and_then(|r| r.get("usage"))
        .and_then(|u| serde_json::from_value(u.clone()).ok());
    let cost = record
        .as_ref()
        .and_then(|r| r.get("cost"))
        .and_then(Value::as_f64);
    if status.success() {
        if record.is_none() {
            return Outcome {
                exit_code: Some(0),
                ..Outcome::failed(
                    "internal.error",
                    "the turn exited 0 but printed no JSON turn record".into(),
                )
            };
        }
        return Outcome {
            status: "ok",
            run_id,
            turn_status,
            exit_code: Some(0),
            error: None,
            usage,
            cost,
        };
    }
    let error = match last_line(stderr) {
        Some(line) => match serde_json::from_str::<Value>(&line) {
            Ok(Value::Object(mut m)) => match m.remove("error") {
                Some(e @ Value::Object(_)) => e,
                _ => Value::Object(m),
            },
            _ => run_error("internal.error", line),
        },
        None => match status.signal() {
            Some(sig) => run_error(
                "internal.error",
                format!("the turn was killed by signal {sig}"),
            ),
            None => run_error("internal.error", "the turn failed and printed no error"),
        },
    };
    let incomplete = status.code() == Some(crate::error::Code::Incomplete.exit_code())
        && turn_status.as_deref() == Some("incomplete");
    Outcome {
        status: if incomplete { "incomplete" } else { "failed" },
        run_id,
        turn_status,
        exit_code: status.code(),
        error: Some(error),
        usage,
        cost,
    }
}
