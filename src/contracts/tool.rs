//! Tool requests and responses: the envelopes every tool call travels in.

use crate::error::Error;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Default `timeout_ms` of a tool request (the tool request envelope).
pub const DEFAULT_TIMEOUT_MS: u64 = 30_000;

fn default_timeout_ms() -> u64 {
    DEFAULT_TIMEOUT_MS
}

/// Openclawssy tool request envelope, the canonical form of a tool call.
///
/// `request_id`, `run_id` and `agent_id` follow the id rule of `crate::ids`
/// (`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`; `agent_id` is never `human` or `system`), checked
/// before a call runs; inside a turn bob assigns all three, whatever a model's call says.
///
/// Also accepted (converted by the tools subsystem): Spectator `{id, tool, args}` items and
/// `<<<TOOL_CALLS_JSON>>>` blocks, JSON I/O `tool_intent` `{action, payload}`, OpenAI
/// `tool_calls` `{id, type:"function", function:{name, arguments}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ToolRequest {
    pub request_id: String,
    pub run_id: String,
    pub agent_id: String,
    pub tool: String,
    pub input: Value,
    #[serde(default = "default_timeout_ms")]
    pub timeout_ms: u64,
    #[serde(default)]
    pub created_at: String,
}

/// Openclawssy tool response envelope. `ok=true` ⇔ `error` is null; `output` is omitted when
/// `ok=false`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ToolResponse {
    pub request_id: String,
    pub run_id: String,
    pub tool: String,
    pub ok: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<Value>,
    pub error: Option<Error>,
    pub duration_ms: u64,
    pub finished_at: String,
}

/// Spectator content of a `role:"tool"` message, how a result is shown to the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ToolMessage {
    pub id: String,
    pub tool: String,
    pub ok: bool,
    pub output: Option<Value>,
    pub error: Option<Error>,
}

impl From<&ToolResponse> for ToolMessage {
    fn from(r: &ToolResponse) -> Self {
        ToolMessage {
            id: r.request_id.clone(),
            tool: r.tool.clone(),
            ok: r.ok,
            output: r.output.clone(),
            error: r.error.clone(),
        }
    }
}

/// The tools a human has enabled for one session: `sessions/<id>/tools.json`.
///
/// ```json
/// {"session_id":"s1","enabled":["fs.list_dir","fs.read_text"],"updated_at":"2026-02-15T00:00:00Z"}
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SessionTools {
    #[serde(default)]
    pub session_id: String,
    /// Canonical tool names.
    #[serde(default)]
    pub enabled: Vec<String>,
    #[serde(default)]
    pub updated_at: String,
}

/// What the calling human adds to the tool policy of a call or a turn, on top of the
/// environment and the session's files (`bob tool run`'s flags, an eval case's work
/// directory). Never read from a model or from an HTTP body: the server builds its requests
/// field by field and leaves this empty. Written with only the fields that are set.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PolicyOverrides {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub roots: Vec<std::path::PathBuf>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub enable: Vec<String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub enable_all: bool,
    /// Capabilities granted for this call only (without a session).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub grant: Vec<String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub allow_loopback: bool,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub allow_private: bool,
    /// `--sandbox full|weak`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox_mode: Option<crate::sandbox::Mode>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shell_rules: Option<std::path::PathBuf>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_timeout_ms: Option<u64>,
}

impl PolicyOverrides {
    /// True when nothing is overridden.
    pub fn is_empty(&self) -> bool {
        *self == PolicyOverrides::default()
    }
}
