//! What a subcommand prints about what it just did or was asked to show, where no subsystem
//! type already is that document: a config edit, trace events appended, a tool's schema, a
//! session's failure loop.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `bob config set KEY VALUE`: the setting, the value as given, the TOML written.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct ConfigSet {
    pub key: String,
    pub value: String,
    pub toml: String,
    pub config_file: String,
}

/// `bob config unset KEY`: whether the file held it.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct ConfigUnset {
    pub key: String,
    pub removed: bool,
    pub config_file: String,
}

/// `bob trace append`: how many events were appended to the session's trace.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct TraceAppended {
    pub session_id: String,
    pub appended: u64,
}

/// `bob tool schema NAME`: the tool and the JSON Schema of its input (a schema document,
/// free-form by nature).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct ToolSchema {
    pub name: String,
    pub description: String,
    pub mutating: bool,
    pub input_schema: schemars::Schema,
}

/// `bob tool loop --session ID`: the session's failure-loop state and record.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct FailureLoopReport<S, L> {
    pub session_id: String,
    pub state: S,
    #[serde(rename = "loop")]
    pub record: L,
}
