use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A proposed long-term memory awaiting a human decision.
///
/// Canonical: seed 001 `{text, type, tags, ttl_days, source, why_store}`. Also accepted: seed 004
/// `save_plan` / `suggest_memory_save` `{title, tags, body_md, importance, ttl_days}`
/// (`body_md` → `text`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MemoryCandidate {
    #[serde(alias = "body_md")]
    pub text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default = "default_type", rename = "type")]
    pub kind: String,
    #[serde(default)]
    pub tags: Vec<String>,
    #[serde(default)]
    pub ttl_days: Option<u32>,
    #[serde(default = "default_source")]
    pub source: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why_store: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub importance: Option<u8>,
}

fn default_type() -> String {
    "fact".into()
}
fn default_source() -> String {
    "assistant_inferred".into()
}

/// Seed 004 memory JSON record plus `type`, `importance`, `user` and provenance.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MemoryRecord {
    pub id: String,
    pub title: String,
    pub created_at: String,
    #[serde(default)]
    pub tags: Vec<String>,
    #[serde(default)]
    pub summary: String,
    #[serde(default)]
    pub facts: Vec<String>,
    #[serde(default)]
    pub body_md: String,
    #[serde(default)]
    pub source: String,
    #[serde(default)]
    pub token_est: u64,
    #[serde(default)]
    pub ttl_days: Option<u32>,
    #[serde(default = "default_type", rename = "type")]
    pub kind: String,
    #[serde(default)]
    pub importance: Option<u8>,
    #[serde(default)]
    pub user: Option<String>,
    /// `{candidate_id, ledger_seq, promoted_from?}`.
    #[serde(default, skip_serializing_if = "Value::is_null")]
    pub metadata: Value,
}
