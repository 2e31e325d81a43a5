//! The names a turn is made of: the pipeline [`Profile`]s and the [`RoleSpec`] of one role.
//! Plain data that prompt assembly and the stages share; what each profile does with its
//! roles is its plug-in's business ([`super::profiles`]).

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Profile {
    #[default]
    Bob,
    Spectator,
    Solo,
    Panda,
}

/// One role of a profile: one LLM call (the final role: one call per tool-loop round).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RoleSpec {
    pub name: &'static str,
    /// What this role does, appended to the global rules in its system message.
    pub instructions: &'static str,
    /// Gets the retrieved-memory block (the retrieved-memory block, Spectator v1 `wants_retrieval`).
    pub wants_retrieval: bool,
    /// May propose memory candidates (the Bob v0 runtime: THINK; spectator: planner).
    pub proposes_memory: bool,
    /// Finalizes the visible answer and may execute tools.
    pub is_final: bool,
    /// Bob v0 THINK: its read-only tool requests run in the runtime's Tools stage (same
    /// runner, policy, caps and audit) before the final role, which gets their results. Its
    /// mutating requests are refused: actions belong to the role that answers.
    pub plans_tools: bool,
}

impl Profile {
    pub fn as_str(self) -> &'static str {
        match self {
            Profile::Bob => "bob",
            Profile::Spectator => "spectator",
            Profile::Solo => "solo",
            Profile::Panda => "panda",
        }
    }

    pub fn parse(s: &str) -> Option<Profile> {
        match s.trim().to_ascii_lowercase().as_str() {
            "bob" => Some(Profile::Bob),
            "spectator" => Some(Profile::Spectator),
            "solo" => Some(Profile::Solo),
            "panda" => Some(Profile::Panda),
            _ => None,
        }
    }
}
