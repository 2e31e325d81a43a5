//! The `payload` of each audit event type bob writes, one type per event type (or per family
//! whose type is chosen at run time: a run's terminal event, a capability change). `bob schema
//! audit-<event-type>` prints each one's JSON Schema; the event around it is
//! [`super::AuditEvent`].

use super::{AuditPayload, Usage};
use crate::error::Error;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

macro_rules! event_type {
    ($t:ident, $ty:literal) => {
        impl AuditPayload for $t<'_> {
            fn event_type(&self) -> &'static str {
                $ty
            }
        }
    };
}

/// `run.created`: a run was accepted (by `bob turn`, or queued by the server).
#[derive(Debug, Serialize, JsonSchema)]
pub struct RunCreated<'a> {
    pub session_id: &'a str,
    pub profile: &'a str,
    pub user_id: Option<&'a str>,
    /// The message's length in characters (not written for a run cancelled while queued).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message_chars: Option<usize>,
}
event_type!(RunCreated, "run.created");

/// `run.started`: the turn read the session at `revision`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct RunStarted<'a> {
    pub session_id: &'a str,
    pub revision: u64,
    /// The backend's own description; `null` for `bob turn commit`, which calls no model.
    pub backend: Option<Value>,
    /// `commit` for `bob turn commit`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stage: Option<&'a str>,
}
event_type!(RunStarted, "run.started");

/// `model.requested`: a role is about to call the model.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ModelRequested<'a> {
    pub role: &'a str,
    pub round: usize,
    pub model: String,
}
event_type!(ModelRequested, "model.requested");

/// `run.completed`, `run.cancelled` or `run.failed` (by `status`): how a turn ended.
#[derive(Debug, Serialize, JsonSchema)]
pub struct RunEnded<'a> {
    pub status: &'a str,
    pub session_id: &'a str,
    pub revision: Option<u64>,
    pub tools: usize,
    pub output_chars: usize,
    pub usage: Option<Usage>,
    pub cost: Option<f64>,
    pub latency_ms: u64,
    pub error: Option<&'a Error>,
}

impl AuditPayload for RunEnded<'_> {
    fn event_type(&self) -> &'static str {
        match self.status {
            "completed" => "run.completed",
            "cancelled" => "run.cancelled",
            _ => "run.failed",
        }
    }
}

/// `run.cancelled` for a run cancelled while it was still queued (it never started).
#[derive(Debug, Serialize, JsonSchema)]
pub struct RunCancelledQueued<'a> {
    pub status: &'a str,
    pub session_id: &'a str,
    pub before: &'a str,
}
event_type!(RunCancelledQueued, "run.cancelled");

/// `run.cancel_requested`: someone asked a queued or running run to stop.
#[derive(Debug, Serialize, JsonSchema)]
pub struct RunCancelRequested<'a> {
    pub session_id: &'a str,
    pub status: &'a str,
}
event_type!(RunCancelRequested, "run.cancel_requested");

/// `tool.call`: a tool is about to run (written before it can have an effect).
#[derive(Debug, Serialize, JsonSchema)]
pub struct ToolCall<'a> {
    pub request_id: &'a str,
    pub tool: &'a str,
    /// The registry's name for it (`null` for a tool bob does not know).
    pub canonical_tool: Option<&'a str>,
    pub input: &'a Value,
    pub timeout_ms: u64,
    pub session_id: Option<&'a str>,
    pub mutating: Option<bool>,
}
event_type!(ToolCall, "tool.call");

/// `tool.result`: what a tool returned; an output over the audit cap is kept as
/// `{snippet, bytes, sha256}`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ToolResult<'a> {
    pub request_id: &'a str,
    pub tool: &'a str,
    pub ok: bool,
    pub output: Value,
    pub error: Option<&'a Error>,
    pub duration_ms: u64,
}
event_type!(ToolResult, "tool.result");

/// Message counts of the session's recent messages before and after a change.
#[derive(Debug, Serialize, JsonSchema)]
pub struct BeforeAfter {
    pub before: usize,
    pub after: usize,
}

/// `state.set`: a human replaced or merged a session's state.
#[derive(Debug, Serialize, JsonSchema)]
pub struct StateSet<'a> {
    pub session_id: &'a str,
    /// `replace` or `merge`.
    pub mode: &'a str,
    pub fields: &'a [&'static str],
    pub changed: &'a [&'static str],
    pub recent_messages: BeforeAfter,
    pub from_revision: u64,
    pub revision: u64,
}
event_type!(StateSet, "state.set");

/// `caps.request`, `caps.grant` or `caps.revoke` (by `act`): a human changed a capability.
#[derive(Debug, Serialize, JsonSchema)]
pub struct CapabilityChanged<'a> {
    #[serde(skip)]
    pub act: &'static str,
    pub session_id: &'a str,
    pub capability: &'a str,
    pub changed: bool,
    pub revision: u64,
}

impl AuditPayload for CapabilityChanged<'_> {
    fn event_type(&self) -> &'static str {
        self.act
    }
}

/// `notes.apply`: a human applied a NOTES patch to a session.
#[derive(Debug, Serialize, JsonSchema)]
pub struct NotesApplied<'a> {
    pub session_id: &'a str,
    pub applied: &'a [String],
    pub actions: &'a [String],
    pub granted: &'a [String],
    pub requested: &'a [String],
    pub from_revision: u64,
    pub revision: u64,
}
event_type!(NotesApplied, "notes.apply");

/// `tool.enable` or `tool.disable` (by `enable`): a human changed a session's tools.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ToolsChanged<'a> {
    #[serde(skip)]
    pub enable: bool,
    pub session_id: &'a str,
    pub names: &'a [String],
    pub enabled: &'a [String],
    pub was_enabled: &'a [String],
}

impl AuditPayload for ToolsChanged<'_> {
    fn event_type(&self) -> &'static str {
        if self.enable {
            "tool.enable"
        } else {
            "tool.disable"
        }
    }
}

/// `tool.confirm`: a human confirmed a tool call a chat-mode turn staged.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ToolConfirmed<'a> {
    pub session_id: &'a str,
    pub confirm_id: &'a str,
    pub request_id: &'a str,
    pub tool: &'a str,
}
event_type!(ToolConfirmed, "tool.confirm");

/// `turbotime.set`: TURBOTIME switched or its tools selected.
#[derive(Debug, Serialize, JsonSchema)]
pub struct TurbotimeSet<'a> {
    pub session_id: &'a str,
    pub on: bool,
    pub selected: &'a [String],
    pub was_on: bool,
    pub was_selected: &'a [String],
}
event_type!(TurbotimeSet, "turbotime.set");

/// `memory.decision`: a human approved or rejected a memory candidate (the approval ledger
/// holds the record at `ledger_seq`).
#[derive(Debug, Serialize, JsonSchema)]
pub struct MemoryDecision<'a> {
    pub candidate_id: &'a str,
    pub decision: Option<&'a str>,
    pub user: &'a str,
    pub by: &'a str,
    pub ledger_seq: u64,
    pub memory_id: Option<&'a str>,
    pub content_digest: Option<&'a str>,
}
event_type!(MemoryDecision, "memory.decision");

/// The published schema of every audit payload: `(name, generator)`.
pub const AUDIT_SCHEMAS: &[(&str, super::SchemaFn)] = &[
    ("audit-run-created", || {
        schemars::schema_for!(RunCreated<'static>)
    }),
    ("audit-run-started", || {
        schemars::schema_for!(RunStarted<'static>)
    }),
    ("audit-model-requested", || {
        schemars::schema_for!(ModelRequested<'static>)
    }),
    ("audit-run-ended", || {
        schemars::schema_for!(RunEnded<'static>)
    }),
    ("audit-run-cancelled-queued", || {
        schemars::schema_for!(RunCancelledQueued<'static>)
    }),
    ("audit-run-cancel-requested", || {
        schemars::schema_for!(RunCancelRequested<'static>)
    }),
    ("audit-tool-call", || {
        schemars::schema_for!(ToolCall<'static>)
    }),
    ("audit-tool-result", || {
        schemars::schema_for!(ToolResult<'static>)
    }),
    ("audit-state-set", || {
        schemars::schema_for!(StateSet<'static>)
    }),
    ("audit-caps-change", || {
        schemars::schema_for!(CapabilityChanged<'static>)
    }),
    ("audit-notes-apply", || {
        schemars::schema_for!(NotesApplied<'static>)
    }),
    ("audit-tool-enable", || {
        schemars::schema_for!(ToolsChanged<'static>)
    }),
    ("audit-tool-confirm", || {
        schemars::schema_for!(ToolConfirmed<'static>)
    }),
    ("audit-turbotime-set", || {
        schemars::schema_for!(TurbotimeSet<'static>)
    }),
    ("audit-memory-decision", || {
        schemars::schema_for!(MemoryDecision<'static>)
    }),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_schema_builds_and_run_ended_names_its_event_by_status() {
        for (name, schema) in AUDIT_SCHEMAS {
            assert!(
                schema().as_object().is_some_and(|o| !o.is_empty()),
                "{name}"
            );
        }
        let ended = |status| RunEnded {
            status,
            session_id: "s",
            revision: None,
            tools: 0,
            output_chars: 0,
            usage: None,
            cost: None,
            latency_ms: 0,
            error: None,
        };
        assert_eq!(ended("completed").event_type(), "run.completed");
        assert_eq!(ended("cancelled").event_type(), "run.cancelled");
        assert_eq!(ended("incomplete").event_type(), "run.failed");
    }
}
