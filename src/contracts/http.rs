//! The request and answer bodies of `bob serve` (the HTTP API contract), as the OpenAPI document at
//! `GET /openapi.json` publishes them (see `crate::serve::openapi`). The handlers read bodies
//! tolerantly (unknown fields ignored) and check each field themselves, with the same rules
//! these types state.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What `crate::ids::check` accepts (run, session and agent ids), as a JSON Schema pattern.
pub const ID: &str = crate::id_rule::PATTERN;
/// What `crate::ids::check_user` accepts (user and room ids), as a JSON Schema pattern.
pub const USER_ID: &str = crate::id_rule::USER_PATTERN;
/// A secret's name (`crate::secrets::check_name`).
pub const SECRET_NAME: &str = r"^[A-Za-z0-9_.-]{1,64}$";
/// Shortest secret value accepted, in characters (`crate::secrets::MIN_VALUE`, the rule's
/// home is here so the wire schema can state it): every value is masked wherever it appears in
/// anything bob writes, so a value of a few characters would mask ordinary text.
pub const SECRET_MIN_CHARS: usize = 8;
/// Text that is not blank: at least one character that is not white space.
pub const NOT_BLANK: &str = r"\S";

/// `POST /v1/runs`.
///
/// ```json
/// {"agent_id":"agent_default","message":"Summarize repository status","thinking_mode":"always"}
/// ```
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct RunRequest {
    /// An id (`crate::ids`): 1-64 letters, digits, `.`, `_`, `-`, starting with a letter or a
    /// digit; not `human` or `system` (reserved actors).
    #[schemars(extend("pattern" = ID, "not" = {"enum": ["human", "system"]}))]
    pub agent_id: String,
    /// At most 256 KiB, not blank.
    #[schemars(extend("pattern" = NOT_BLANK))]
    pub message: String,
    /// `never`, `on_error` or `always`; default: `[output] thinking_mode` of config.toml.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("enum" = ["never", "on_error", "always", null]))]
    pub thinking_mode: Option<String>,
    /// The run's session (default: a session of its own, named after the run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("pattern" = ID))]
    pub session_id: Option<String>,
    /// A user id: 1-128 letters, digits, `.`, `_`, `-`, `:`, `@`, starting with a letter, a
    /// digit or `@`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("pattern" = USER_ID))]
    pub user_id: Option<String>,
    /// `bob`, `spectator`, `solo` or `panda` (default `bob`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("enum" = ["bob", "spectator", "solo", "panda", null]))]
    pub profile: Option<String>,
    /// `chat`: mutating tool calls are staged for a human's confirmation instead of run;
    /// `act` (default): they run when enabled and valid.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("enum" = ["chat", "act", null]))]
    pub mode: Option<String>,
    /// Your own instructions for this run, given to every role after bob's rules (which they
    /// do not override), as `bob turn --system` gives them. At most 256 KiB, not blank.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("pattern" = NOT_BLANK))]
    pub system: Option<String>,
}

/// `202` of `POST /v1/runs` and `/v1/chat/messages`; the answer of a cancel.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct RunAccepted {
    pub id: String,
    /// `queued` (accepted), `cancelled` or `cancelling` (a cancel).
    pub status: String,
    /// The chat session, for chat messages.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
}

/// One run (Openclawssy `GET /v1/runs/{run_id}`); listings leave out `trace`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct RunView {
    pub id: String,
    pub agent_id: String,
    pub session_id: String,
    /// `http`, `chat`.
    pub source: String,
    /// `queued`, `running`, `completed`, `failed`, `cancelled`.
    pub status: String,
    pub output: String,
    pub artifact_path: String,
    pub duration_ms: u64,
    pub tool_calls: u64,
    pub provider: String,
    pub model: String,
    pub thinking_mode: String,
    /// `bob`, `spectator`, `solo` or `panda`.
    pub profile: String,
    pub created_at: String,
    pub started_at: Option<String>,
    pub finished_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorBrief>,
    /// Why a run failed (`interrupted`) or was cancelled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<String>")]
    pub reason: Option<Value>,
    /// The tool results of a run that ended (`GET /v1/runs/{id}` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<RunTrace>,
}

/// An error as a listing shows it: its code and message, as the error held them.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct ErrorBrief {
    pub code: Value,
    pub message: Value,
}

impl ErrorBrief {
    /// The code and message of an error kept as JSON.
    pub fn of(e: &Value) -> ErrorBrief {
        ErrorBrief {
            code: e["code"].clone(),
            message: e["message"].clone(),
        }
    }
}

/// A run's `trace`: `{tool_execution_results: [{tool, tool_call_id, summary, output,
/// error}]}` (the bundle's `tool_results.json`, `[]` when it has none).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct RunTrace {
    pub tool_execution_results: Value,
}

/// `GET /v1/runs`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct RunList {
    pub runs: Vec<RunView>,
    pub total: u64,
    pub limit: u64,
    pub offset: u64,
}

/// `POST /v1/chat/messages`; a message of `/new` or `/resume` answers at once.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct ChatRequest {
    #[schemars(extend("pattern" = USER_ID))]
    pub user_id: String,
    #[schemars(extend("pattern" = USER_ID))]
    pub room_id: String,
    #[schemars(extend("pattern" = ID, "not" = {"enum": ["human", "system"]}))]
    pub agent_id: String,
    /// At most 256 KiB once trimmed, not blank; `/new` and `/resume` answer at once.
    #[schemars(extend("pattern" = NOT_BLANK))]
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("enum" = ["never", "on_error", "always", null]))]
    pub thinking_mode: Option<String>,
    /// Your own instructions for this message's run, given to every role after bob's rules
    /// (which they do not override). At most 256 KiB, not blank.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("pattern" = NOT_BLANK))]
    pub system: Option<String>,
}

/// `200` of `POST /v1/chat/messages` for `/new` and `/resume`, which answer at once.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct ChatCommandAnswer {
    /// What happened, for the sender.
    pub response: String,
    /// The now active chat session (absent when `/resume` found none to resume).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
}

/// `201` of `POST /api/admin/secrets`: the secret's name and times, never its value.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct SecretStored {
    pub name: String,
    pub created_at: String,
    pub updated_at: String,
    /// Always `true`.
    pub stored: bool,
}

/// `GET /healthz`: `{ok: true}`; with the shared database away, `503 {ok: false, database:
/// "unreachable", error}`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Health {
    pub ok: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub database: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<StoreDown>,
}

/// Why the shared database is unreachable: the error's code, message and the host it named.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct StoreDown {
    pub code: crate::error::Code,
    pub message: String,
    pub host: Option<Value>,
}

/// `GET /v1/chat/sessions`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "ChatSessionList")]
pub struct ChatSessionList<S> {
    pub sessions: Vec<S>,
    pub total: u64,
    pub limit: u64,
    pub offset: u64,
}

/// `GET /api/admin/secrets`: names and times, never values.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "SecretList")]
pub struct SecretList<S> {
    pub secrets: Vec<S>,
}

/// `GET /v1/chat/sessions/{id}/messages`: the chat session and its messages, oldest first.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "ChatConversation")]
pub struct ChatConversation<S> {
    pub session: S,
    pub messages: Vec<ChatLine>,
}

/// One message of a chat conversation: the sender's message, a tool result of its run, or
/// the run's answer (with its status and error when it did not complete).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum ChatLine {
    User {
        /// `user`.
        role: String,
        content: String,
        run_id: String,
        created_at: String,
    },
    Tool {
        /// `tool`.
        role: String,
        tool_name: Value,
        tool_call_id: Value,
        /// The result's summary.
        content: Value,
        error: Value,
        run_id: String,
    },
    Answer {
        /// `assistant`.
        role: String,
        content: String,
        run_id: String,
    },
    Failed {
        /// `assistant`.
        role: String,
        /// Empty.
        content: String,
        status: String,
        error: Option<Value>,
        run_id: String,
    },
}

/// `GET /api/admin/status`: the runs, the worker pool and the backend.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct AdminStatus {
    pub runs: AdminRuns,
    pub workers: usize,
    pub queue_capacity: u64,
    pub draining: bool,
    pub backend: BackendStatus,
}

/// The runs of an [`AdminStatus`]: how many in all and of each status, and the ten newest.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct AdminRuns {
    pub total: u64,
    pub by_status: RunCounts,
    pub recent: Vec<RunView>,
}

/// How many runs have each status.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
pub struct RunCounts {
    pub queued: u64,
    pub running: u64,
    pub completed: u64,
    pub incomplete: u64,
    pub failed: u64,
    pub cancelled: u64,
}

impl RunCounts {
    /// Sets the count of `status` (an unknown status is left out).
    pub fn set(&mut self, status: &str, n: u64) {
        let slot = match status {
            "queued" => &mut self.queued,
            "running" => &mut self.running,
            "completed" => &mut self.completed,
            "incomplete" => &mut self.incomplete,
            "failed" => &mut self.failed,
            "cancelled" => &mut self.cancelled,
            _ => return,
        };
        *slot = n;
    }
}

/// The chat backend as the next run would resolve it (`describe` is the backend's own
/// free-form description: kind, base URL, model; never a key), or why it does not resolve.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum BackendStatus {
    Resolved {
        provider: Value,
        model: String,
        describe: Value,
    },
    Unresolved {
        error: ErrorAnswerBrief,
    },
}

/// An error's code and message.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct ErrorAnswerBrief {
    pub code: crate::error::Code,
    pub message: String,
}

/// `GET /api/admin/scheduler/jobs`: the jobs file, when a tick last began and whether one
/// began recently.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "SchedulerView")]
pub struct SchedulerView<J> {
    pub paused: bool,
    pub jobs: Vec<J>,
    pub last_tick: Option<String>,
    pub ticking: bool,
}

/// `DELETE /api/admin/scheduler/jobs/{id}`: the job removed.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "JobDeleted")]
pub struct JobDeleted<J> {
    pub deleted: J,
}

/// `POST /api/admin/scheduler/control`: the job paused or resumed, or the whole scheduler's
/// state and how many jobs it holds.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
#[schemars(rename = "SchedulerControlAnswer")]
pub enum SchedulerControlAnswer<J> {
    Job { job: J },
    All(super::SchedulerPaused),
}

/// `GET /api/admin/memory/candidates`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "CandidateList")]
pub struct CandidateList<C> {
    pub candidates: Vec<C>,
}

/// `GET|POST /api/admin/config`: config.toml as JSON (free-form, credentials blanked);
/// `written` after a POST.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct ConfigView {
    pub config: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub written: Option<bool>,
}

/// `POST /api/admin/secrets`: one-way; no answer ever holds the value.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct SecretRequest {
    #[schemars(extend("pattern" = SECRET_NAME))]
    pub name: String,
    /// 8 characters to 64 KiB.
    #[schemars(extend("minLength" = SECRET_MIN_CHARS))]
    pub value: String,
}

/// `POST /api/admin/config`: the whole config.toml as JSON; blank credentials keep theirs.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct ConfigRequest {
    pub config: serde_json::Map<String, Value>,
}

/// `POST /api/admin/scheduler/control`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct SchedulerControl {
    #[schemars(extend("enum" = ["pause", "resume"]))]
    pub action: String,
    /// One job; without it, the whole scheduler.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub job_id: Option<String>,
}

/// `POST /api/admin/memory/candidates/{id}/{approve|edit|reject}` (approve needs no body).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct CandidateDecisionRequest {
    /// For `edit`: the candidate fields to replace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fields: Option<serde_json::Map<String, Value>>,
    /// For `reject`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// `POST /api/admin/sessions/{id}/turbotime`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct TurbotimeRequest {
    pub on: bool,
    /// With `on: true`: the TURBOTIME tools to select (replacing the selection).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub select: Option<Vec<String>>,
}

/// A session's TURBOTIME, and the tools a selection may name.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct TurbotimeView {
    pub session_id: String,
    pub on: bool,
    pub selected: Vec<String>,
    pub updated_at: String,
    pub tools: Vec<String>,
}

/// Every error answer: Openclawssy's `{"error":{"code","message"}}`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct ErrorAnswer {
    pub error: ErrorAnswerBody,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct ErrorAnswerBody {
    /// A canonical code (`invalid.request`, `policy.denied`, `not_found`, `conflict`,
    /// `queue.full`, `chat.rate_limited`, `timeout`, `internal.error`, …).
    pub code: String,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<serde_json::Map<String, Value>>,
    /// With `queue.full` and `chat.rate_limited` (also the `Retry-After` header).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_after_seconds: Option<u64>,
}

/// `GET /api/admin/runs`: every run of the home, newest first.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct AdminRunList {
    pub runs: Vec<AdminRun>,
    pub total: u64,
    pub limit: u64,
    pub offset: u64,
}

/// One run of [`AdminRunList`]: a run with a bundle under `runs/`, or one only the server's
/// queue holds (queued, running, or ended before it had a bundle).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum AdminRun {
    Bundled(BundledRun),
    Queued(QueuedRun),
}

/// A run with a bundle, filled in from its request and turn record.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct BundledRun {
    pub id: String,
    pub session_id: String,
    pub agent_id: String,
    /// The queue's status for a served run, else the turn record's.
    pub status: String,
    pub ts: String,
    pub tool_calls: u64,
    /// The server's queue knows it (`GET /v1/runs/{id}` answers).
    pub queued_here: bool,
    /// `cli`, `http`, `chat`, `schedule`, `eval` (`unknown` when the request does not say).
    pub source: Value,
    /// The scheduler job that started it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub job_id: Option<String>,
    /// The request's message, cut to 200 characters.
    pub message: String,
    #[serde(flatten)]
    pub outcome: Option<RunOutcome>,
}

/// What a bundled run's turn record says of its end.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct RunOutcome {
    /// The answer, cut to 200 characters.
    pub output: String,
    pub duration_ms: u64,
    pub error: Option<ErrorAnswerBrief>,
}

/// A run only the server's queue holds.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct QueuedRun {
    pub id: String,
    pub session_id: String,
    pub agent_id: String,
    pub source: String,
    pub status: String,
    pub ts: String,
    pub tool_calls: u64,
    pub duration_ms: Option<u64>,
    /// The message, cut to 200 characters.
    pub message: String,
    /// The answer so far, cut to 200 characters.
    pub output: String,
    pub error: Option<ErrorBrief>,
    /// Always `true`.
    pub queued_here: bool,
}

/// `GET /api/admin/sessions`: sessions with runs or a checkpoint, most recently active first.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct AdminSessionList {
    pub sessions: Vec<AdminSession>,
    pub total: u64,
    pub limit: u64,
    pub offset: u64,
}

/// One session of [`AdminSessionList`].
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct AdminSession {
    pub session_id: String,
    /// `null` for a session with a checkpoint and no run.
    pub agent_id: Option<String>,
    pub runs: u64,
    pub last_ts: Option<String>,
    pub last_run: Option<String>,
    /// The last run's message, cut to 200 characters.
    pub last_message: String,
    /// The checkpoint's revision.
    pub revision: Option<u64>,
}

/// `GET /api/admin/sessions/{id}/messages`: a session's conversation, oldest first.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct AdminConversation {
    pub session_id: String,
    pub agent_id: Option<String>,
    pub revision: Option<u64>,
    pub episode_summary: Option<String>,
    pub messages: Vec<AdminMessage>,
}

/// One message of an [`AdminConversation`]. The fields a run's files hold are as they hold
/// them.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum AdminMessage {
    /// A run's message: `pending` while the run is queued or running.
    User {
        /// `user`.
        role: String,
        content: Value,
        run_id: String,
        ts: Value,
        source: Value,
        pending: bool,
    },
    /// A tool result of a run.
    Tool {
        /// `tool`.
        role: String,
        tool_name: Value,
        tool_call_id: Value,
        /// The result's summary.
        content: Value,
        output: Value,
        error: Value,
        run_id: String,
    },
    /// A run's answer, from its turn record.
    Answer {
        /// `assistant`.
        role: String,
        content: Value,
        run_id: String,
        status: Value,
        error: Value,
        usage: Value,
        cost: Value,
        latency_ms: Value,
    },
    /// The answer of a run that ended without a bundle, from the queue.
    QueuedAnswer {
        /// `assistant`.
        role: String,
        content: String,
        run_id: String,
        status: String,
        error: Option<Value>,
    },
    /// A checkpoint message no run recorded.
    Kept {
        role: super::Role,
        content: String,
        /// Always `true`.
        from_checkpoint: bool,
    },
}

/// A persisted chat session: the runs of its messages share its id as their session.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct ChatSession {
    pub id: String,
    pub agent_id: String,
    pub user_id: String,
    pub room_id: String,
    pub created_at: String,
    pub active: bool,
}

/// A stored secret without its value: what the secret stores return (`crate::sealed` keeps it
/// as `SecretInfo`), `bob secrets list` prints and `GET /api/admin/secrets` lists.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct SecretShown {
    pub name: String,
    pub created_at: String,
    pub updated_at: String,
    /// The origin the secret is sent to; absent until it is bound.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bound_to: Option<String>,
}

/// Lists every answer body of `bob serve` once: `bob schema NAME` prints each, and the
/// OpenAPI document's components hold the same schemas under their type names.
macro_rules! answers {
    ($($name:literal => $t:ty,)*) => {
        /// `(bob schema name, schema)` of every answer body of `bob serve`.
        pub const ANSWER_SCHEMAS: &[(&str, super::SchemaFn)] =
            &[$(($name, || schemars::schema_for!($t)),)*];

        /// Adds every answer body's schema to an OpenAPI generator's components.
        pub fn add_answers(g: &mut schemars::SchemaGenerator) {
            $(let _ = g.subschema_for::<$t>();)*
        }
    };
}

answers! {
    "http-health" => Health,
    "http-run-accepted" => RunAccepted,
    "http-run-view" => RunView,
    "http-run-list" => RunList,
    "http-chat-command-answer" => ChatCommandAnswer,
    "http-chat-session-list" => ChatSessionList<ChatSession>,
    "http-chat-conversation" => ChatConversation<ChatSession>,
    "http-admin-status" => AdminStatus,
    "http-config-view" => ConfigView,
    "http-secret-list" => SecretList<SecretShown>,
    "http-secret-stored" => SecretStored,
    "http-scheduler-view" => SchedulerView<super::Job>,
    "http-job-deleted" => JobDeleted<super::Job>,
    "http-scheduler-control-answer" => SchedulerControlAnswer<super::Job>,
    "http-candidate-list" => CandidateList<super::CandidateRow>,
    "http-candidate-decided" => super::CandidateDecided,
    "http-admin-run-list" => AdminRunList,
    "http-run-bundle" => super::RunBundle,
    "http-admin-session-list" => AdminSessionList,
    "http-admin-conversation" => AdminConversation,
    "http-turbotime-view" => TurbotimeView,
    "http-error-answer" => ErrorAnswer,
}
