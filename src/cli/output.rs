//! The one output gate: JSON (or JSON Lines) on stdout for programs, a human view only on a
//! terminal or with `--format table`; errors as one JSON line on stderr. Also reads stdin.

use crate::error::{Code, Error, Result};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::io::{IsTerminal, Read, Write};
use std::path::Path;

/// Default cap on what one command reads from stdin or `--input`; the `cli.max_input_bytes`
/// setting (`BOB_MAX_INPUT_BYTES`) overrides.
pub const DEFAULT_MAX_INPUT_BYTES: u64 = 64 * 1024 * 1024;

/// The output gate's settings, installed once from [`crate::settings::Settings`].
#[derive(Debug, Clone, Copy)]
struct Gate {
    max_input_bytes: u64,
    json_errors: bool,
}

static GATE: std::sync::OnceLock<Gate> = std::sync::OnceLock::new();

fn gate() -> Gate {
    GATE.get().copied().unwrap_or(Gate {
        max_input_bytes: DEFAULT_MAX_INPUT_BYTES,
        json_errors: false,
    })
}

/// Installs the input cap and the error format from the settings (once per process).
pub fn install(settings: &crate::settings::Settings) -> Result<()> {
    let g = Gate {
        max_input_bytes: settings
            .u64("cli.max_input_bytes")?
            .unwrap_or(DEFAULT_MAX_INPUT_BYTES),
        json_errors: settings.bool("cli.json_errors")?,
    };
    let _ = GATE.set(g);
    Ok(())
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Json,
    Table,
    /// A command-specific text rendering (`bob memory query`: the RETRIEVED_MEMORY block)
    Block,
}

pub struct Printer {
    human: bool,
    format: Option<Format>,
}

/// Maps a stdout write error. A closed stdout (a reader that has gone away) becomes
/// [`Error::broken_pipe`]: it unwinds the command like any error, so logs are flushed and
/// closed on the way, and [`super::main`] turns it into exit 0. Nothing here exits the
/// process.
pub fn stdout_error(e: std::io::Error) -> Error {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        return Error::broken_pipe();
    }
    Error::internal(format!("writing stdout: {e}"))
}

impl Printer {
    /// `format` from the flags; `None` means a human view only when stdout is a terminal.
    pub fn new(format: Option<Format>) -> Printer {
        let human = match format {
            Some(Format::Table) => true,
            Some(Format::Json) | Some(Format::Block) => false,
            None => std::io::stdout().is_terminal(),
        };
        Printer { human, format }
    }

    /// The format asked for on the command line, if any.
    pub fn format(&self) -> Option<Format> {
        self.format
    }

    pub fn is_human(&self) -> bool {
        self.human
    }

    /// A progress bar for a loop over `len` items (unknown: `None`), drawn on stderr only when
    /// stderr is a terminal and `--json` was not given; see [`super::progress`].
    pub fn progress(&self, len: Option<u64>, what: &str) -> super::progress::Progress {
        super::progress::Progress::new(self.format != Some(Format::Json), len, what)
    }

    /// Writes one JSON document (or its human view).
    pub fn doc<T: Serialize + ?Sized>(&self, value: &T) -> Result<()> {
        let value = serde_json::to_value(value).map_err(|e| Error::internal(e.to_string()))?;
        let text = if self.human {
            human_view(&value)
        } else {
            value.to_string()
        };
        write_stdout(format!("{text}\n").as_bytes())
    }

    /// Writes one JSON Lines record and flushes it (streams and listings).
    pub fn line<T: Serialize + ?Sized>(&self, value: &T) -> Result<()> {
        self.doc(value)
    }

    /// Writes a listing: JSON Lines, or one table on a terminal / with `--format table`.
    pub fn rows<T: Serialize>(&self, rows: &[T]) -> Result<()> {
        let rows: Vec<Value> = rows
            .iter()
            .map(|r| serde_json::to_value(r).unwrap_or(Value::Null))
            .collect();
        if self.human {
            return write_stdout(table(&rows).as_bytes());
        }
        let mut buf = Vec::new();
        for r in &rows {
            buf.extend_from_slice(r.to_string().as_bytes());
            buf.push(b'\n');
        }
        write_stdout(&buf)
    }
}

/// Writes raw bytes to stdout and flushes; a broken pipe exits 0.
pub fn write_stdout(bytes: &[u8]) -> Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(bytes).map_err(stdout_error)?;
    out.flush().map_err(stdout_error)
}

fn scalar(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        Value::Array(a) if a.iter().all(|x| !x.is_object() && !x.is_array()) => {
            a.iter().map(scalar).collect::<Vec<_>>().join(", ")
        }
        other => other.to_string(),
    }
}

/// A readable rendering of one document: `key: value` lines, nested objects indented.
pub fn human_view(v: &Value) -> String {
    fn walk(v: &Value, indent: usize, out: &mut String) {
        match v {
            Value::Object(m) => {
                for (k, val) in m {
                    match val {
                        Value::Object(inner) if !inner.is_empty() => {
                            out.push_str(&format!("{:indent$}{k}:\n", ""));
                            walk(val, indent + 2, out);
                        }
                        _ => out.push_str(&format!("{:indent$}{k}: {}\n", "", scalar(val))),
                    }
                }
            }
            other => out.push_str(&format!("{:indent$}{}\n", "", scalar(other))),
        }
    }
    let mut out = String::new();
    walk(v, 0, &mut out);
    out.trim_end().to_string()
}

/// A plain-text table of objects; columns are the union of keys in first-seen order.
pub fn table(rows: &[Value]) -> String {
    let mut cols: Vec<String> = Vec::new();
    for r in rows {
        if let Value::Object(m) = r {
            for k in m.keys() {
                if !cols.contains(k) {
                    cols.push(k.clone());
                }
            }
        }
    }
    if cols.is_empty() {
        return rows.iter().map(|r| format!("{}\n", scalar(r))).collect();
    }
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            cols.iter()
                .map(|c| {
                    let s = scalar(r.get(c).unwrap_or(&Value::Null)).replace('\n', " ");
                    if s.chars().count() > 60 {
                        s.chars().take(57).collect::<String>() + "..."
                    } else {
                        s
                    }
                })
                .collect()
        })
        .collect();
    let widths: Vec<usize> = cols
        .iter()
        .enumerate()
        .map(|(i, c)| {
            cells
                .iter()
                .map(|r| r[i].chars().count())
                .chain([c.len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    let fmt_row = |vals: &[String], out: &mut String| {
        let line: Vec<String> = vals
            .iter()
            .zip(&widths)
            .map(|(v, w)| format!("{v:<w$}"))
            .collect();
        out.push_str(line.join("  ").trim_end());
        out.push('\n');
    };
    fmt_row(
        &cols.iter().map(|c| c.to_uppercase()).collect::<Vec<_>>(),
        &mut out,
    );
    for r in &cells {
        fmt_row(r, &mut out);
    }
    out
}

/// The line an error is on stderr: `{"error": {code, message, …}}`.
#[derive(serde::Serialize)]
struct ErrorLine<'a> {
    error: &'a Error,
}

/// A warning on stderr: one `{"warning": {…}}` line (`warning` is any serializable shape).
pub fn warn(warning: impl serde::Serialize) {
    #[derive(serde::Serialize)]
    struct Warned<W> {
        warning: W,
    }
    let line = serde_json::to_string(&Warned { warning }).unwrap_or_default();
    let _ = writeln!(std::io::stderr(), "{line}");
}

/// The warning about a damaged line of a log that was skipped: where, and why.
#[derive(serde::Serialize)]
pub struct DamagedLine<'a> {
    pub path: &'a str,
    /// 1-based line number.
    pub line: usize,
    /// `torn` (a last line with no newline) or `malformed`.
    pub kind: &'a str,
    pub reason: &'a str,
}

impl<'a> DamagedLine<'a> {
    /// The warning for `bad`, a damaged line of the log at `path`.
    pub fn of(path: &'a str, bad: &'a crate::store::BadLine) -> Self {
        DamagedLine {
            path,
            line: bad.line,
            kind: bad.kind,
            reason: &bad.reason,
        }
    }
}

/// Prints an error to stderr (one JSON line, or human text on a terminal); returns its exit code.
/// A broken pipe is no error: nothing is printed and the exit code is 0.
pub fn report(err: &Error) -> i32 {
    if err.is_broken_pipe() {
        return 0;
    }
    let mut stderr = std::io::stderr().lock();
    let text = if stderr.is_terminal() && !gate().json_errors {
        let mut t = format!("bob: {}: {}", err.code, err.message);
        if !err.details.is_empty() {
            t.push_str(&format!(" {}", Value::Object(err.details.clone())));
        }
        t
    } else {
        serde_json::to_string(&ErrorLine { error: err }).unwrap_or_default()
    };
    let _ = writeln!(stderr, "{text}");
    err.code.exit_code()
}

/// Reports a usage error from clap: on a terminal (stderr) clap's own text, with its usage
/// line and tip, exit 2; otherwise one `invalid.request` JSON line carrying that text (help and
/// version print normally either way).
pub fn clap_error(e: clap::Error) -> i32 {
    use clap::error::ErrorKind;
    match e.kind() {
        ErrorKind::DisplayHelp
        | ErrorKind::DisplayVersion
        | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let _ = e.print();
            if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
                2
            } else {
                0
            }
        }
        _ if std::io::stderr().is_terminal() => {
            let _ = e.print();
            Code::InvalidRequest.exit_code()
        }
        _ => {
            let msg = e.render().to_string();
            let first = msg
                .lines()
                .next()
                .unwrap_or("invalid arguments")
                .trim_start_matches("error: ")
                .to_string();
            let err =
                Error::new(Code::InvalidRequest, first).with("usage", msg.trim_end().to_string());
            report(&err)
        }
    }
}

/// A panic is a bug: report it as one `internal.error` line instead of a backtrace dump.
pub fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let msg = match info.payload().downcast_ref::<&str>() {
            Some(s) => (*s).to_string(),
            None => info
                .payload()
                .downcast_ref::<String>()
                .cloned()
                .unwrap_or_default(),
        };
        let loc = info
            .location()
            .map(|l| format!("{}:{}", l.file(), l.line()))
            .unwrap_or_default();
        let err = Error::internal(format!("bug: bob panicked: {msg}")).with("location", loc);
        let line = serde_json::to_string(&ErrorLine { error: &err }).unwrap_or_default();
        let _ = writeln!(std::io::stderr(), "{line}");
    }));
}

fn max_input_bytes() -> u64 {
    gate().max_input_bytes
}

/// Reads the command's input from `--input FILE` or stdin, refusing more than the input cap
/// and anything that is not UTF-8.
pub fn read_input(input: Option<&Path>) -> Result<String> {
    let limit = max_input_bytes();
    let mut bytes = Vec::new();
    let read = match input {
        Some(p) if p != Path::new("-") => {
            let f = std::fs::File::open(p).map_err(|e| Error::io(p, e))?;
            f.take(limit + 1)
                .read_to_end(&mut bytes)
                .map_err(|e| Error::io(p, e))
        }
        _ => {
            super::progress::note_waiting_on_stdin();
            std::io::stdin().lock()
        }
        .take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::internal(format!("reading stdin: {e}"))),
    };
    read?;
    if bytes.len() as u64 > limit {
        return Err(Error::invalid(format!(
            "input is larger than {limit} bytes (set BOB_MAX_INPUT_BYTES to raise the cap)"
        ))
        .with("limit_bytes", limit));
    }
    String::from_utf8(bytes).map_err(|e| Error::invalid(format!("input is not UTF-8: {e}")))
}

/// Parses input text as JSON of type `T`, naming `what` in the error.
pub fn parse_json<T: DeserializeOwned>(what: &str, text: &str) -> Result<T> {
    if text.trim().is_empty() {
        return Err(Error::invalid(format!(
            "{what}: no input (expected JSON on stdin or --input FILE)"
        )));
    }
    serde_json::from_str(text).map_err(|e| Error::bad_json(what, &e))
}
