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

/// One line of a run bundle's `tool_results.json`: a `tool.result` event, shortened.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct ToolResultLine {
    pub tool: String,
    /// The tool call's id, as the event held it.
    pub tool_call_id: serde_json::Value,
    /// A display-friendly line.
    pub summary: String,
    /// The output as text (`""` when there was none).
    pub output: String,
    /// `"code: message"`, `""` when the call succeeded.
    pub error: String,
}

/// `bob runs list`: one run bundle (or, on the shared store, another node's run), in short.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct RunSummary {
    pub run_id: String,
    pub session_id: String,
    pub agent_id: String,
    pub status: String,
    pub ts: String,
    /// How many tool calls the turn made.
    pub tools: u64,
    pub output_chars: u64,
}

/// `bob runs show`: one bundle read back. `path` and `request` are `null` for a run another
/// node ran (its record is in the shared database; its events and tool results stay there).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct RunBundle {
    pub run_id: String,
    pub path: Option<String>,
    /// The run request as `request.json` holds it.
    pub request: Option<serde_json::Value>,
    /// The turn record as `record.json` holds it.
    pub record: serde_json::Value,
    /// The run's audit events, as chained in the audit log.
    pub events: Vec<serde_json::Value>,
    /// `tool_results.json` (`[]` when the bundle has none).
    pub tool_results: serde_json::Value,
}

/// `bob config show`: the effective settings and the files they came from.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ConfigShow {
    pub home: String,
    pub config_file: String,
    pub config_file_exists: bool,
    pub user_config_file: Option<String>,
    /// Each setting by its `config.toml` key, in the order of the settings table.
    #[serde(serialize_with = "as_map")]
    #[schemars(with = "std::collections::BTreeMap<String, SettingShown>")]
    pub settings: Vec<(String, SettingShown)>,
    /// The open tables (`prices`) as config.toml has them: free-form.
    pub tables: serde_json::Map<String, serde_json::Value>,
}

/// One setting of [`ConfigShow`].
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SettingShown {
    /// Typed when it parses (a bool, number or list), else the text; `"***"` for a secret
    /// that is set; `null` when unset.
    pub value: serde_json::Value,
    /// Secrets only: whether it is set.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub set: Option<bool>,
    /// `flag`, `env`, `config`, `default`.
    pub source: String,
    /// The variable, file or flag that set it (`default` when none did).
    pub origin: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub env: Vec<String>,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub flag: String,
    pub kind: String,
}

fn as_map<S: serde::Serializer, V: Serialize>(
    pairs: &[(String, V)],
    s: S,
) -> Result<S::Ok, S::Error> {
    s.collect_map(pairs.iter().map(|(k, v)| (k, v)))
}

/// `bob config path`: the config files bob reads.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct ConfigPaths {
    pub home: String,
    pub config_file: String,
    pub config_file_exists: bool,
    pub user_config_file: Option<String>,
    pub user_config_file_exists: bool,
}

/// `bob init`: the home, the files and directories it created this time, the config file and
/// the commands to run next.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct InitReport {
    pub home: String,
    pub created: Vec<String>,
    pub config_file: String,
    pub next: Vec<String>,
}

/// `bob sanitize --neutralize`: the text with its markup neutralised, and whether that changed it.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Neutralized {
    pub text: String,
    pub neutralized: bool,
}

/// `bob keys export FILE`: where the bundle went and which keys it holds.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct KeysExported {
    pub path: String,
    pub chain_key_id: String,
    pub secrets_key_id: String,
    /// Where the keys were read from.
    pub chain_key_file: String,
    pub secrets_key_file: String,
}

/// `bob secrets set NAME`: the secret as stored (never its value).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct SecretStored {
    pub name: String,
    pub created_at: String,
    pub updated_at: String,
    /// The origin the secret is sent to; `null` until it is bound.
    pub bound_to: Option<String>,
    /// Always `true`.
    pub stored: bool,
}

/// `bob secrets rm NAME`: the secret is gone.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct SecretRemoved {
    pub name: String,
    /// Always `true`.
    pub removed: bool,
}

/// `bob ledger repair FILE`: whether a torn last line was cut off, and where it was kept.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct TailRepaired {
    pub path: String,
    pub repaired: bool,
    /// The side file holding the torn bytes; `null` when nothing was torn.
    pub torn_saved_to: Option<String>,
}

/// One row of `bob tool list`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct ToolListed {
    pub name: String,
    /// What the tool needs: `fs`, `shell`, `net`, `data` or `game`.
    pub kind: String,
    pub mutating: bool,
    /// Other names the tool answers to.
    pub aliases: Vec<String>,
    pub description: String,
    /// Present (`true`) on the TURBOTIME tools.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turbotime: Option<bool>,
    /// With `--session`: whether the session may call the tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
    /// With `--session`, on the TURBOTIME tools: whether the session selected it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turbotime_selected: Option<bool>,
}
