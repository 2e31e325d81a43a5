use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Seed 003 §4 scheduler job, plus bob's bookkeeping (`next_run`, `last_status`, `last_run_id`).
///
/// ```json
/// {"id":"job_daily_report","agentID":"agent_default","schedule":"@every 1h",
///  "message":"Generate status report","enabled":true,"lastRun":"2026-02-15T00:00:00Z"}
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Job {
    pub id: String,
    #[serde(rename = "agentID", alias = "agent_id", default)]
    pub agent_id: String,
    pub schedule: String,
    #[serde(default)]
    pub message: String,
    #[serde(default = "yes")]
    pub enabled: bool,
    #[serde(
        rename = "lastRun",
        alias = "last_run",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub last_run: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_run: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_status: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_run_id: Option<String>,
}

fn yes() -> bool {
    true
}
