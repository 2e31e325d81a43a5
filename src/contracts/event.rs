//! Trace events: one `{ts, kind, data}` line of a session's trace.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Spectator trace event, one line of `traces/<session_id>.jsonl`.
///
/// ```json
/// {"ts":1771113600.0,"kind":"notes_patch","data":{"applied":["set_goals"]}}
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TraceEvent {
    pub ts: f64,
    pub kind: String,
    #[serde(default)]
    pub data: Value,
}

/// The trace kinds Spectator requires; others are allowed.
pub const TRACE_KINDS: &[&str] = &[
    "llm_req",
    "llm_stream",
    "llm_done",
    "notes_patch",
    "actions",
    "retrieval",
    "tool_plan",
    "tool_start",
    "tool_done",
];

/// A typed trace payload: the `data` of one trace kind, which it names. `crate::trace::typed`
/// builds the event from it; `crate::trace::event` still takes a kind and free-form data.
pub trait TraceData: Serialize + JsonSchema {
    const KIND: &'static str;
}

/// `notes_patch` for a NOTES block that was not applied: `{"error": {code, message, …}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct NotesPatchRejected {
    pub error: crate::error::Error,
    /// The turn whose NOTES block it was (absent for `bob notes apply` / `extract`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
}

impl TraceData for NotesPatchRejected {
    const KIND: &'static str = "notes_patch";
}

/// A typed audit payload ([`super::audit`]): the `payload` of one event type, which it names.
pub trait AuditPayload: Serialize + JsonSchema {
    fn event_type(&self) -> &'static str;
}

/// Openclawssy run lifecycle / audit event. On disk it also carries the chain fields
/// `prev` and `hash` added by [`crate::chain::append`] (keyed).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AuditEvent {
    pub event_id: String,
    pub event_type: String,
    pub ts: String,
    pub run_id: String,
    pub agent_id: String,
    #[serde(default = "default_actor")]
    pub actor: String,
    pub seq: u64,
    #[serde(default)]
    pub payload: Value,
    #[serde(default)]
    pub redactions: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prev: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hash: Option<String>,
}

fn default_actor() -> String {
    "system".into()
}
