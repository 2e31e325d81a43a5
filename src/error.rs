//! The one error every subsystem reports through.
//!
//! An [`Error`] carries a canonical [`Code`] (Openclawssy plus the codes bob adds, docs/design.md#conventions),
//! a human message, whether retrying may help, and structured details. On the wire it is
//! `{"code","message","retryable","details"}`; the CLI wraps it as `{"error": …}` on stderr and
//! exits with [`Code::exit_code`].

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::fmt;

/// Canonical error codes. The string form is the wire form.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
pub enum Code {
    #[serde(rename = "invalid.request")]
    InvalidRequest,
    #[serde(rename = "tool.not_found")]
    ToolNotFound,
    #[serde(rename = "tool.input_invalid")]
    ToolInputInvalid,
    #[serde(rename = "policy.denied")]
    PolicyDenied,
    #[serde(rename = "sandbox.required")]
    SandboxRequired,
    #[serde(rename = "timeout")]
    Timeout,
    #[serde(rename = "internal.error")]
    InternalError,
    #[serde(rename = "conflict")]
    Conflict,
    #[serde(rename = "upstream.error")]
    UpstreamError,
    #[serde(rename = "queue.full")]
    QueueFull,
    #[serde(rename = "chat.rate_limited")]
    ChatRateLimited,
    #[serde(rename = "not_found")]
    NotFound,
    #[serde(rename = "run.cancelled")]
    Cancelled,
    /// A turn that ended without answering: it escalated out of the failure loop or hit the
    /// tool-round limit. Its record (status `incomplete`) is still printed.
    #[serde(rename = "turn.incomplete")]
    Incomplete,
    /// `bob eval run`: a `--fail-under` threshold was not met (exit 8: a verdict on the model,
    /// not a failure of bob's, so not the internal error's 1).
    #[serde(rename = "eval.threshold")]
    EvalThreshold,
}

impl Code {
    /// The wire string, e.g. `policy.denied`.
    pub fn as_str(self) -> &'static str {
        match self {
            Code::InvalidRequest => "invalid.request",
            Code::ToolNotFound => "tool.not_found",
            Code::ToolInputInvalid => "tool.input_invalid",
            Code::PolicyDenied => "policy.denied",
            Code::SandboxRequired => "sandbox.required",
            Code::Timeout => "timeout",
            Code::InternalError => "internal.error",
            Code::Conflict => "conflict",
            Code::UpstreamError => "upstream.error",
            Code::QueueFull => "queue.full",
            Code::ChatRateLimited => "chat.rate_limited",
            Code::NotFound => "not_found",
            Code::EvalThreshold => "eval.threshold",
            Code::Cancelled => "run.cancelled",
            Code::Incomplete => "turn.incomplete",
        }
    }

    /// Process exit code for this class of failure (documented in `man/bob.1`).
    pub fn exit_code(self) -> i32 {
        match self {
            Code::InvalidRequest | Code::ToolInputInvalid => 2,
            Code::PolicyDenied | Code::SandboxRequired => 3,
            Code::NotFound | Code::ToolNotFound => 4,
            Code::Conflict => 5,
            Code::UpstreamError | Code::ChatRateLimited | Code::QueueFull => 6,
            Code::Timeout => 124,
            Code::Cancelled => 130,
            Code::Incomplete => 7,
            Code::EvalThreshold => 8,
            Code::InternalError => 1,
        }
    }

    /// Whether a caller may reasonably retry the same request unchanged.
    pub fn default_retryable(self) -> bool {
        matches!(
            self,
            Code::Timeout
                | Code::Conflict
                | Code::ChatRateLimited
                | Code::QueueFull
                | Code::UpstreamError
        )
    }

    /// Every code, for the documentation of exit statuses (man pages).
    pub const ALL: [Code; 15] = [
        Code::InvalidRequest,
        Code::ToolInputInvalid,
        Code::PolicyDenied,
        Code::SandboxRequired,
        Code::NotFound,
        Code::ToolNotFound,
        Code::Conflict,
        Code::UpstreamError,
        Code::ChatRateLimited,
        Code::QueueFull,
        Code::Incomplete,
        Code::Timeout,
        Code::Cancelled,
        Code::InternalError,
        Code::EvalThreshold,
    ];

    /// When this code is reported, in a few words for a person reading a man page.
    pub fn meaning(self) -> &'static str {
        match self {
            Code::InvalidRequest => "a usage error, bad JSON, a wrong shape or an oversize input",
            Code::ToolInputInvalid => "a tool call's arguments do not fit the tool's schema",
            Code::PolicyDenied => {
                "the policy refused: a tool not enabled, a capability not granted, an address or \
                 program not allowed"
            }
            Code::SandboxRequired => "a tool needs the OS sandbox and none was configured",
            Code::NotFound => "no such session, record, candidate, run, job or game",
            Code::ToolNotFound => "no tool of that name",
            Code::Conflict => {
                "a revision mismatch, a second decision, a broken hash chain or a torn log tail"
            }
            Code::UpstreamError => "the model server or a fetched site failed",
            Code::ChatRateLimited => "the model server kept answering 429 after every retry",
            Code::QueueFull => "the server's run queue is full",
            Code::Incomplete => {
                "a turn ran but did not answer (it escalated, or hit --max-tool-rounds)"
            }
            Code::Timeout => "a deadline passed",
            Code::Cancelled => "stopped by Ctrl-C or a cancel request",
            Code::InternalError => "a corrupt file bob will not overwrite, an I/O failure, a bug",
            Code::EvalThreshold => "bob eval run scored below its --fail-under threshold",
        }
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Openclawssy standard error shape.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Error {
    pub code: Code,
    pub message: String,
    #[serde(default)]
    pub retryable: bool,
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub details: Map<String, Value>,
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn new(code: Code, message: impl Into<String>) -> Self {
        Error {
            code,
            message: message.into(),
            retryable: code.default_retryable(),
            details: Map::new(),
        }
    }
    pub fn invalid(message: impl Into<String>) -> Self {
        Self::new(Code::InvalidRequest, message)
    }
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(Code::NotFound, message)
    }
    pub fn conflict(message: impl Into<String>) -> Self {
        Self::new(Code::Conflict, message)
    }
    pub fn denied(message: impl Into<String>) -> Self {
        Self::new(Code::PolicyDenied, message)
    }
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(Code::InternalError, message)
    }
    /// Adds one `details` entry.
    pub fn with(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.details.insert(key.to_string(), value.into());
        self
    }
    pub fn retryable(mut self, retryable: bool) -> Self {
        self.retryable = retryable;
        self
    }
    /// A closed stdout (the reader went away): an ordinary end of the command, not a failure.
    /// It travels up like any error, so everything on the way (audit logs, ledgers) is
    /// flushed and closed by the usual drops; the CLI then exits 0 and reports nothing.
    pub fn broken_pipe() -> Self {
        Self::internal("stdout was closed (broken pipe)").with("broken_pipe", true)
    }
    /// Whether this is [`Error::broken_pipe`].
    pub fn is_broken_pipe(&self) -> bool {
        self.details.get("broken_pipe") == Some(&Value::Bool(true))
    }
    /// An I/O failure on `path`, classified: a missing file is `not_found`, the rest internal.
    pub fn io(path: &std::path::Path, err: std::io::Error) -> Self {
        let code = match err.kind() {
            std::io::ErrorKind::NotFound => Code::NotFound,
            std::io::ErrorKind::PermissionDenied => Code::PolicyDenied,
            _ => Code::InternalError,
        };
        Self::new(code, format!("{}: {err}", path.display()))
            .with("path", path.display().to_string())
    }
    /// A JSON document that failed to parse or did not have the expected shape.
    pub fn bad_json(what: &str, err: &serde_json::Error) -> Self {
        Self::invalid(format!("{what}: {err}"))
            .with("line", err.line())
            .with("column", err.column())
    }
}

/// How an error message names the JSON type of a value: `a string`, `an array`, `null`, ….
pub fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for Error {}

impl From<rusqlite::Error> for Error {
    fn from(err: rusqlite::Error) -> Self {
        if let rusqlite::Error::SqliteFailure(e, _) = &err
            && matches!(
                e.code,
                rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked
            )
        {
            return Error::conflict(format!("database busy: {err}"));
        }
        Error::internal(format!("sqlite: {err}"))
    }
}
