//! `bob trace`: emit, query and follow trace events.

use super::Ctx;
use super::output::{DamagedLine, stdout_error, write_stdout};
use crate::clock;
use crate::contracts::TraceEvent;
use crate::error::{Error, Result};
use crate::store::BadLine;
use crate::trace::{self, Filter, ScanError};
use serde_json::Value;
use std::io::{BufRead, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;

#[derive(Debug, clap::Subcommand)]
pub enum Args {
    /// Append trace events {ts, kind, data} to a session's trace
    ///
    /// With --kind, appends one event and prints it. Without, reads JSON Lines events
    /// {kind, data?, ts?} on stdin (or --input FILE) and appends each as its own locked write
    /// as it arrives, then prints {session_id, appended}. ts defaults to now (BOB_NOW).
    Emit(EmitArgs),
    /// Print the events that match, as JSON Lines (original bytes)
    ///
    /// Damaged lines are reported on stderr as {"warning":…} lines, never printed or parsed.
    Query(QueryArgs),
    /// Print the last N events of a session's trace, optionally following new ones
    Tail(TailArgs),
    /// Count events by kind, first/last ts and damaged lines
    Stats(StatsArgs),
}

#[derive(Debug, clap::Args)]
pub struct EmitArgs {
    /// Session whose trace gets the events
    #[arg(long, value_name = "ID")]
    pub session: String,
    /// Event kind ([a-z0-9_.]+)
    #[arg(long, value_name = "K")]
    pub kind: Option<String>,
    /// Event data, a JSON object [default: {}]
    #[arg(long, value_name = "JSON", requires = "kind")]
    pub data: Option<String>,
    /// Read JSON Lines events from FILE instead of stdin
    #[arg(long, value_name = "FILE", conflicts_with = "kind")]
    pub input: Option<PathBuf>,
}

#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("source").required(true).args(["session", "all", "file"])))]
pub struct QueryArgs {
    /// Query this session's trace
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
    /// Query every session's trace (in file name order)
    #[arg(long)]
    pub all: bool,
    /// Query this trace file
    #[arg(long, value_name = "PATH")]
    pub file: Option<PathBuf>,
    /// Keep only events of this kind (repeatable: any of them)
    #[arg(long, value_name = "K")]
    pub kind: Vec<String>,
    /// Keep only events at or after this time
    #[arg(long, value_name = "RFC3339")]
    pub since: Option<String>,
    /// Keep only events before this time
    #[arg(long, value_name = "RFC3339")]
    pub until: Option<String>,
    /// Stop after N events
    #[arg(long, value_name = "N")]
    pub limit: Option<u64>,
}

#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("source").required(true).args(["session", "file"])))]
pub struct TailArgs {
    /// Session whose trace to print
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
    /// Trace file to print
    #[arg(long, value_name = "PATH")]
    pub file: Option<PathBuf>,
    /// Number of events to print first
    #[arg(short = 'n', long = "lines", value_name = "N", default_value_t = 10)]
    pub lines: usize,
    /// Keep printing events as they are appended (until interrupted)
    #[arg(long, short = 'f')]
    pub follow: bool,
}

#[derive(Debug, clap::Args)]
pub struct StatsArgs {
    /// Only this session's trace [default: every session, one row each]
    #[arg(long, value_name = "ID", conflicts_with = "file")]
    pub session: Option<String>,
    /// Only this trace file
    #[arg(long, value_name = "PATH")]
    pub file: Option<PathBuf>,
}

pub fn run(args: Args, ctx: &Ctx) -> Result<()> {
    match args {
        Args::Emit(a) => emit(a, ctx),
        Args::Query(a) => query(a, ctx),
        Args::Tail(a) => tail(a, ctx),
        Args::Stats(a) => stats(a, ctx),
    }
}

/// Reports a damaged line on stderr as one `{"warning":…}` line.
fn warn(path: &Path, b: &BadLine) {
    super::output::warn(DamagedLine::of(&path.display().to_string(), b));
}

fn emit(a: EmitArgs, ctx: &Ctx) -> Result<()> {
    if let Some(kind) = &a.kind {
        let data = match &a.data {
            None => Value::Null,
            Some(text) => serde_json::from_str(text).map_err(|e| Error::bad_json("--data", &e))?,
        };
        let ev = trace::emit(&ctx.home, &a.session, kind, data)?;
        return ctx.out.doc(&ev);
    }
    // Fail on a bad session id before reading anything.
    ctx.home.trace_path(&a.session)?;
    let reader: Box<dyn Read> = match &a.input {
        Some(p) if p != Path::new("-") => {
            Box::new(std::fs::File::open(p).map_err(|e| Error::io(p, e))?)
        }
        _ => {
            super::progress::note_waiting_on_stdin();
            Box::new(std::io::stdin().lock())
        }
    };
    let mut reader = std::io::BufReader::with_capacity(1 << 16, reader);
    let limit = super::output::DEFAULT_MAX_INPUT_BYTES;
    let mut line = Vec::new();
    let (mut lineno, mut appended) = (0usize, 0u64);
    loop {
        line.clear();
        let n = (&mut reader)
            .take(limit + 1)
            .read_until(b'\n', &mut line)
            .map_err(|e| Error::internal(format!("reading events: {e}")))?;
        if n == 0 {
            break;
        }
        lineno += 1;
        let fail = |e: Error| e.with("line", lineno).with("appended", appended);
        if line.len() as u64 > limit {
            return Err(fail(Error::invalid(format!(
                "event line is larger than {limit} bytes"
            ))));
        }
        let text = std::str::from_utf8(&line)
            .map_err(|e| fail(Error::invalid(format!("line {lineno} is not UTF-8: {e}"))))?;
        if text.trim().is_empty() {
            continue;
        }
        let ev = parse_event(text).map_err(|e| {
            let msg = format!("line {lineno}: {}", e.message);
            fail(Error { message: msg, ..e })
        })?;
        trace::append(&ctx.home, &a.session, &ev).map_err(fail)?;
        appended += 1;
    }
    ctx.out.doc(&crate::contracts::TraceAppended {
        session_id: a.session,
        appended,
    })
}

/// One stdin event `{kind, data?, ts?}`.
fn parse_event(text: &str) -> Result<TraceEvent> {
    let v: Value = serde_json::from_str(text).map_err(|e| Error::bad_json("event", &e))?;
    let Value::Object(mut m) = v else {
        return Err(Error::invalid(
            "an event must be a JSON object {kind, data, ts?}",
        ));
    };
    let kind = match m.remove("kind") {
        Some(Value::String(k)) => k,
        _ => return Err(Error::invalid("an event needs a string \"kind\"").with("field", "kind")),
    };
    let mut ev = trace::event(&kind, m.remove("data").unwrap_or(Value::Null))?;
    match m.remove("ts") {
        None | Some(Value::Null) => {}
        Some(Value::Number(n)) => match n.as_f64() {
            Some(ts) if ts.is_finite() => ev.ts = ts,
            _ => return Err(Error::invalid("\"ts\" must be a finite number").with("field", "ts")),
        },
        Some(Value::String(s)) => ev.ts = clock::unix_f64(clock::parse_rfc3339(&s)?),
        Some(_) => {
            return Err(
                Error::invalid("\"ts\" must be unix seconds or RFC3339").with("field", "ts")
            );
        }
    }
    Ok(ev)
}

fn time_arg(s: &Option<String>) -> Result<Option<f64>> {
    s.as_deref()
        .map(|s| clock::parse_rfc3339(s).map(clock::unix_f64))
        .transpose()
}

fn existing(path: PathBuf, what: &str) -> Result<PathBuf> {
    if path.is_file() {
        Ok(path)
    } else {
        Err(
            Error::not_found(format!("{what} {} does not exist", path.display()))
                .with("path", path.display().to_string()),
        )
    }
}

fn query(a: QueryArgs, ctx: &Ctx) -> Result<()> {
    for k in &a.kind {
        trace::check_kind(k)?;
    }
    let mut filter = Filter {
        kinds: a.kind,
        since: time_arg(&a.since)?,
        until: time_arg(&a.until)?,
        limit: a.limit,
    };
    let files = if let Some(id) = &a.session {
        vec![existing(ctx.home.trace_path(id)?, "trace")?]
    } else if let Some(f) = a.file {
        vec![existing(f, "trace file")?]
    } else {
        trace::all_trace_files(&ctx.home)?
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::with_capacity(1 << 20, stdout.lock());
    for f in &files {
        let summary = match trace::scan(f, &filter, &mut out, &mut warn) {
            Ok(s) => s,
            Err(ScanError::Read(e)) => return Err(e),
            Err(ScanError::Write(e)) => return Err(stdout_error(e)),
        };
        if let Some(l) = filter.limit.as_mut() {
            *l -= summary.matched.min(*l);
            if *l == 0 {
                break;
            }
        }
    }
    out.flush().map_err(stdout_error)
}

fn print_line(path: &Path, lineno: usize, line: &[u8]) -> Result<()> {
    if line.trim_ascii().is_empty() {
        return Ok(());
    }
    match serde_json::from_slice::<TraceEvent>(line) {
        Ok(_) => {
            let mut bytes = line.to_vec();
            bytes.push(b'\n');
            write_stdout(&bytes)
        }
        Err(e) => {
            warn(
                path,
                &BadLine {
                    line: lineno,
                    kind: "malformed",
                    reason: e.to_string(),
                },
            );
            Ok(())
        }
    }
}

/// The warning when a followed trace got shorter.
#[derive(serde::Serialize)]
struct Shrank<'a> {
    path: &'a str,
    reason: &'a str,
}

fn tail(a: TailArgs, ctx: &Ctx) -> Result<()> {
    let path = match (&a.session, a.file) {
        (Some(id), _) => ctx.home.trace_path(id)?,
        (None, Some(f)) => f,
        (None, None) => return Err(Error::invalid("give --session ID or --file PATH")),
    };
    if !a.follow {
        existing(path.clone(), "trace")?;
    }
    let (lines, offset) = trace::last_lines(&path, a.lines)?;
    // Line numbers are unknown for the tail's first lines; report 0 ("near the end").
    for l in &lines {
        print_line(&path, 0, l)?;
    }
    if !a.follow {
        return Ok(());
    }
    let stop = crate::signals::flag(&[libc::SIGINT]);
    let mut follower = trace::Follower::new(&path, offset);
    while !stop.load(Ordering::SeqCst) {
        let found = follower.poll()?;
        if found.shrank {
            super::output::warn(Shrank {
                path: &path.display().to_string(),
                reason: "trace shrank; following from its start",
            });
        }
        for l in &found.lines {
            print_line(&path, 0, l)?;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    Ok(())
}

fn stats(a: StatsArgs, ctx: &Ctx) -> Result<()> {
    if let Some(id) = &a.session {
        let p = existing(ctx.home.trace_path(id)?, "trace")?;
        return ctx.out.doc(&with_times(trace::stats(&p, &mut warn)?));
    }
    if let Some(f) = a.file {
        let p = existing(f, "trace file")?;
        return ctx.out.doc(&with_times(trace::stats(&p, &mut warn)?));
    }
    let mut rows = Vec::new();
    for f in trace::all_trace_files(&ctx.home)? {
        rows.push(with_times(trace::stats(&f, &mut warn)?));
    }
    ctx.out.rows(&rows)
}

/// Adds RFC3339 renderings of first_ts / last_ts after the numeric ones.
fn with_times(st: trace::Stats) -> Value {
    let mut v = serde_json::to_value(&st).unwrap_or(Value::Null);
    let rfc =
        |ts: f64| chrono::DateTime::from_timestamp_micros((ts * 1e6) as i64).map(clock::rfc3339);
    if let Value::Object(m) = &mut v {
        if let Some(t) = st.first_ts.and_then(rfc) {
            m.insert("first".into(), Value::from(t));
        }
        if let Some(t) = st.last_ts.and_then(rfc) {
            m.insert("last".into(), Value::from(t));
        }
    }
    v
}
