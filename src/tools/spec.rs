//! What the registry knows of a tool: its name, description, kind and input schema. Each tool
//! module declares its own [`ToolSpec`]; [`super::registry`] lists them in one table.

use serde::Serialize;

/// Which subsystem a tool needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// Filesystem under the sandbox root.
    Fs,
    /// A process in the sandbox root.
    Shell,
    /// Capability-gated network.
    Net,
    /// Computation on its input only (no files, no network).
    Data,
    /// The MTG engine's games under `<home>/mtg/` (no sandbox root, no network: MTG bypasses
    /// TURBOTIME, the Bob v0 runtime).
    Game,
}

impl Kind {
    /// The kind as `bob tool list` shows it (its serialized name).
    pub fn name(self) -> &'static str {
        match self {
            Kind::Fs => "fs",
            Kind::Shell => "shell",
            Kind::Net => "net",
            Kind::Data => "data",
            Kind::Game => "game",
        }
    }
}

/// One registered tool.
#[derive(Debug, Clone)]
pub struct ToolSpec {
    pub name: &'static str,
    pub description: &'static str,
    pub kind: Kind,
    /// Changes something outside bob (a file, a process): its audit `tool.call` is written
    /// durably before it runs.
    pub mutating: bool,
    pub schema: fn() -> schemars::Schema,
}

/// An alternative name from another seed and how its input maps to the canonical tool's.
#[derive(Debug, Clone)]
pub struct Alias {
    pub name: &'static str,
    pub target: &'static str,
    /// (alias field, canonical field); a canonical field of `""` drops the alias field.
    pub renames: &'static [(&'static str, &'static str)],
    pub from: &'static str,
}

/// A tool's answer as the JSON value a tool returns: `value` serialized (its field order kept).
pub fn answer<T: Serialize>(value: &T) -> crate::error::Result<serde_json::Value> {
    serde_json::to_value(value).map_err(|e| crate::error::Error::internal(e.to_string()))
}
