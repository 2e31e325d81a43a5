//! Turn contracts: the record `bob turn` prints and appends to `turns.jsonl`, and its parts.
//!
//! Wire example (one line in `turns.jsonl`):
//!
//! ```json
//! {"run_id":"run_3f…","session_id":"s1","agent_id":"agent_default","profile":"bob","status":"completed",
//!  "output":"There is one file: notes.txt.","tools":[{"tool_name":"fs.list_dir","args":{"path":"."},"status":"ok",
//!  "error":null,"result_ref":"audit/agent_default/2026-02-15.jsonl#c1"}],"notes":{"applied":[],"actions":[],
//!  "requested":[],"refused":[],"ignored_actions":[],"errors":[]},"memory_candidates":[],"revision":3,
//!  "usage":{"prompt_tokens":120,"completion_tokens":14,"total_tokens":134},"cost":0.0000264,"latency_ms":812,"ts":"2026-02-15T10:00:00Z"}
//! ```

use crate::error::Error;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Token usage of one LLM call, or the sum over a turn (an `Option` wherever the server may
/// not have said: unknown is `null`, never zeros).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Usage {
    #[serde(default)]
    pub prompt_tokens: u64,
    #[serde(default)]
    pub completion_tokens: u64,
    #[serde(default)]
    pub total_tokens: u64,
}

impl Usage {
    pub fn add(&mut self, o: &Usage) {
        self.prompt_tokens += o.prompt_tokens;
        self.completion_tokens += o.completion_tokens;
        self.total_tokens += o.total_tokens;
    }
}

/// One earlier role's sanitized output: the UPSTREAM of the next roles, and the turn record's
/// `thinking` entries.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Upstream {
    pub role: String,
    pub content: String,
}

/// One tool call in the turn record (Bob v0 `tools` field).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ToolRecord {
    pub tool_name: String,
    pub args: Value,
    /// `ok` or `error`.
    pub status: String,
    pub error: Option<Error>,
    /// Where the full result is kept: `<audit file>#<request_id>`.
    pub result_ref: Option<String>,
}

/// A tool call in brief, as a turn's short-term entry lists it (`tools_used`) and an eval case's
/// result (`tools`): `{"tool":"fs.read_text","status":"error","error":"not_found"}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ToolUse {
    pub tool: String,
    /// The turn record's status: `ok`, `error`, `requires_confirm`, ….
    pub status: String,
    /// The error's code, when it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl From<&ToolRecord> for ToolUse {
    fn from(r: &ToolRecord) -> ToolUse {
        ToolUse {
            tool: r.tool_name.clone(),
            status: r.status.clone(),
            error: r.error.as_ref().map(|e| e.code.as_str().to_string()),
        }
    }
}

/// Who a NOTES patch comes from. Only a human may grant capabilities.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Actor {
    Human,
    Model,
}

/// A condensation a NOTES patch asked for; the caller runs it (it needs the message list).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum CondenseRequest {
    /// `condense_now`: condense regardless of pressure.
    #[serde(rename = "condense_now")]
    Now,
    /// `condense_smart`: condense only what the caps require.
    #[serde(rename = "condense_smart")]
    Smart,
}

/// The outcome of a requested condensation of `recent_messages`.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct CondenseOutcome {
    pub action: CondenseRequest,
    /// `done`.
    pub status: &'static str,
    /// Messages dropped from `recent_messages`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dropped: Option<usize>,
    /// Kept messages whose content was cut or normalized.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub truncated: Option<usize>,
    /// Characters left in `recent_messages`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_chars: Option<usize>,
}

/// An action of a NOTES patch that did not take effect, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ActionNote {
    pub action: String,
    pub reason: String,
}

/// What a turn's NOTES patches did, in the turn record.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct NotesOutcome {
    #[serde(default)]
    pub applied: Vec<String>,
    #[serde(default)]
    pub actions: Vec<String>,
    #[serde(default)]
    pub requested: Vec<String>,
    #[serde(default)]
    pub refused: Vec<ActionNote>,
    #[serde(default)]
    pub ignored_actions: Vec<ActionNote>,
    /// Malformed NOTES blocks, and memory candidates that were refused.
    #[serde(default)]
    pub errors: Vec<String>,
}

/// `notes: {}` for a turn that committed nothing.
fn notes_out<S: serde::Serializer>(v: &Option<NotesOutcome>, s: S) -> Result<S::Ok, S::Error> {
    match v {
        Some(n) => n.serialize(s),
        None => serde_json::Map::new().serialize(s),
    }
}

fn notes_in<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<NotesOutcome>, D::Error> {
    let m = serde_json::Map::<String, Value>::deserialize(d)?;
    if m.is_empty() {
        return Ok(None);
    }
    serde_json::from_value(Value::Object(m))
        .map(Some)
        .map_err(serde::de::Error::custom)
}

/// A recap in the turn record: its kind (`question`, `follow_up`), the rewritten message of a
/// follow-up, and whether bob's own recap replaced an answer that ignored the summary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RecapNote {
    pub kind: String,
    #[serde(default)]
    pub rewritten: Option<String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub fallback: bool,
}

/// TURBOTIME as the turn saw it (recorded only when it is on).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TurbotimeNote {
    pub on: bool,
    #[serde(default)]
    pub selected: Vec<String>,
}

/// The answer's `[mem:id]` citations, checked against what the turn retrieved.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CitationCheck {
    pub cited: Vec<String>,
    pub removed: Vec<String>,
}

/// The turn record: printed on stdout by `bob turn` and appended to `turns.jsonl`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TurnRecord {
    pub run_id: String,
    pub session_id: String,
    pub agent_id: String,
    /// The pipeline profile: `bob`, `spectator` or `solo`.
    pub profile: String,
    /// `completed`; `incomplete` (it escalated out of the failure loop or hit the tool-round
    /// limit: `output` is what it told the user, `error` is `turn.incomplete` with the
    /// `reason`); `failed` or `cancelled` (`output` is `"..."`).
    pub status: String,
    /// The sanitized visible answer (`"..."` when nothing was left, and for a failed or
    /// cancelled turn).
    pub output: String,
    pub tools: Vec<ToolRecord>,
    /// What the NOTES patches did: `{applied, actions, requested, refused, ignored_actions,
    /// errors}`; `{}` when the turn committed nothing.
    #[serde(serialize_with = "notes_out", deserialize_with = "notes_in")]
    #[schemars(with = "NotesOutcome")]
    pub notes: Option<NotesOutcome>,
    /// Ids of the memory candidates proposed (pending a human decision).
    pub memory_candidates: Vec<String>,
    /// The committed checkpoint revision (`null` when nothing was committed).
    pub revision: Option<u64>,
    /// Token usage summed over the turn's LLM calls; `null` when a call's reply had no usage
    /// (unknown, never 0).
    pub usage: Option<Usage>,
    /// What the turn's LLM calls cost by the `[prices]` table of `config.toml`
    /// ([`crate::cost`]); `null` when a call's usage is unknown or its model is not priced.
    #[serde(default)]
    pub cost: Option<f64>,
    pub latency_ms: u64,
    /// When the turn started (RFC 3339).
    pub ts: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_id: Option<String>,
    /// True when the failure-loop rule escalated to the user.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub escalated: bool,
    /// A recap (the JSON I/O contracts): `{kind, rewritten, fallback?}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recap: Option<RecapNote>,
    /// The sanitized role notes, per `thinking_mode`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking: Option<Vec<Upstream>>,
    /// Why the turn did not complete.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<Error>,
    /// The session's TURBOTIME state when it is on: `{on: true, selected: [tool…]}` (the Bob v0 runtime).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turbotime: Option<TurbotimeNote>,
    /// The turn's nonce, as every role's system prompt stated it (Spectator v1 temporal
    /// integrity).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nonce: Option<String>,
    /// The `[mem:id]` citations of the answer, when it had any: `{cited: [id…], removed: [id…]}`.
    /// `cited` name memories retrieved this turn (they join the state's `memory_refs`);
    /// `removed` named anything else and were taken out of `output`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub citations: Option<CitationCheck>,
}

/// One role's reply in the stage-by-stage pipeline: `bob chat`'s output (`{message, usage, …}`)
/// with the role it answered for. Unknown fields (latency, model, …) are ignored.
///
/// ```json
/// {"role":"respond","message":{"role":"assistant","content":"","tool_calls":[…]},"usage":{"prompt_tokens":120,"completion_tokens":14,"total_tokens":134}}
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct StageReply {
    pub role: String,
    pub message: crate::contracts::ChatMessage,
    /// The call's token usage as `bob chat` printed it; absent or `null` is unknown.
    #[serde(default)]
    pub usage: Option<Usage>,
}

/// What `bob turn commit` reads: the turn input, the role replies in order (a role that ran
/// tools has one reply per round) and the tool results `bob tool run` printed (Openclawssy
/// envelopes, matched to the replies' calls by `request_id`).
///
/// ```json
/// {"session_id":"demo","message":"What is on my list?","replies":[{"role":"think","message":{"role":"assistant","content":"…"}},
///  {"role":"respond","message":{"role":"assistant","content":"","tool_calls":[…]}},{"role":"respond","message":{"role":"assistant","content":"Milk."}}],
///  "tool_results":[{"request_id":"t1","run_id":"run_…","tool":"fs.read_text","ok":true,"output":{…},"error":null,"duration_ms":0,"finished_at":"…"}]}
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CommitInput {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_id: Option<String>,
    pub replies: Vec<StageReply>,
    #[serde(default)]
    pub tool_results: Vec<crate::contracts::ToolResponse>,
}
