//! Pipeline profiles and their roles (DESIGN.md §4).
//!
//! | profile | roles | retrieval |
//! | --- | --- | --- |
//! | `bob` (default) | think → respond | think |
//! | `spectator` | reflection → planner → critic → governor | planner |
//! | `solo` | solo (bounded tool loop) | solo |
//! | `panda` | thinking → solver (seed 004, JSON outputs) | thinking |
//! | `bob` with TURBOTIME on | goal → plan → answer (seed 001's planning path) | plan |
//!
//! The last role of a profile is the only one that finalizes the answer and the only one that
//! may execute tools in a loop. Seed 001's THINK (`plans_tools`) may request read-only tools,
//! which the runtime runs once, between THINK and RESPOND (seed 001 stage 2, "Tools
//! (runtime)"). Roles marked `proposes_memory` may emit memory candidates.
//!
//! Each profile is a plug-in ([`Plugin`], one module each): it says which roles run and how
//! their output is read, and may add to the shared stages at the points the trait names. The
//! shared stages (context assembly, role call, tool loop, commit) name no profile: they ask
//! the turn's plug-in.

mod bob;
mod panda;
mod solo;
mod spectator;
mod turbotime;

use super::recap::Recap;
use super::work::{Asked, Work};
use crate::contracts::{ChatMessage, Checkpoint, ToolRequest, ToolResponse};
use crate::error::Result;
use crate::tools::CallDefaults;
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
    /// Gets the retrieved-memory block (seed 000 §5, seed 002 §5.3 `wants_retrieval`).
    pub wants_retrieval: bool,
    /// May propose memory candidates (seed 001: THINK; spectator: planner).
    pub proposes_memory: bool,
    /// Finalizes the visible answer and may execute tools.
    pub is_final: bool,
    /// Seed 001 THINK: its read-only tool requests run in the runtime's Tools stage (same
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

    /// The roles in pipeline order; the last one is final.
    pub fn roles(self) -> &'static [RoleSpec] {
        self.plugin().roles()
    }

    /// The profile's plug-in: what the shared stages ask of it.
    pub(in crate::turn) fn plugin(self) -> &'static dyn Plugin {
        match self {
            Profile::Bob => &bob::Bob,
            Profile::Spectator => &spectator::Spectator,
            Profile::Solo => &solo::Solo,
            Profile::Panda => &panda::Panda,
        }
    }

    /// The role called `name` in this profile.
    pub fn role(self, name: &str) -> Option<&'static RoleSpec> {
        self.roles().iter().find(|r| r.name == name)
    }

    /// The roles a turn of this profile may run: its TURBOTIME planning path's first when
    /// TURBOTIME is on and it has one, then its own.
    pub(in crate::turn) fn turn_roles(self, turbotime_on: bool) -> Vec<&'static RoleSpec> {
        let path = self.plugin().turbotime().filter(|_| turbotime_on);
        path.map(|p| p.roles())
            .unwrap_or_default()
            .iter()
            .chain(self.roles())
            .collect()
    }

    /// The role called `name` among [`Profile::turn_roles`].
    pub(in crate::turn) fn turn_role(
        self,
        name: &str,
        turbotime_on: bool,
    ) -> Option<&'static RoleSpec> {
        self.turn_roles(turbotime_on)
            .into_iter()
            .find(|r| r.name == name)
    }
}

/// What the roles of one pass worked from, for a plug-in that runs them again
/// ([`Plugin::after_roles`]).
pub(in crate::turn) struct Pass<'x> {
    pub(in crate::turn) cp: &'x Checkpoint,
    pub(in crate::turn) history: &'x [ChatMessage],
    /// The user's message as the roles see it (the pronoun rewrite applied).
    pub(in crate::turn) user_text: &'x str,
    /// The user's message as written (the retrieval query).
    pub(in crate::turn) message: &'x str,
    pub(in crate::turn) recap: Option<&'x Recap>,
}

/// A profile as the shared stages see it: which roles run, how their output is read, and what
/// it adds at fixed points of the turn. Every method but [`Plugin::roles`] has the shared
/// behaviour as its default, so a profile names only what it does differently.
pub(in crate::turn) trait Plugin: Sync {
    /// The roles in pipeline order; the last one is final.
    fn roles(&self) -> &'static [RoleSpec];

    /// Reads a role's raw output the profile's own way: keeps what it carries (NOTES patch,
    /// memory candidates) in `w` and returns the text to sanitize into the role's visible
    /// text. `None`: the output is read the shared way (NOTES and memory-candidate blocks).
    fn read_output(&self, _w: &mut Work<'_>, _role: &RoleSpec, _raw: &str) -> Option<String> {
        None
    }

    /// The tool calls a final-role reply asks for in the profile's own format, when it asked
    /// for none the shared way (native `tool_calls`, marker blocks); a malformed request is
    /// the error message.
    fn own_tool_calls(
        &self,
        _w: &mut Work<'_>,
        _raw: &str,
        _defaults: &CallDefaults,
    ) -> (Vec<Asked>, Option<String>) {
        (Vec::new(), None)
    }

    /// The tool calls a planning role's reply (`plans_tools`) asks for in the profile's own
    /// format, when it asked for none the shared way; they run in the Tools stage under the
    /// same gate (read-only tools only, the session's policy).
    fn planned_tool_calls(
        &self,
        _role: &RoleSpec,
        _raw: &str,
        _defaults: &CallDefaults,
    ) -> (Vec<Asked>, Option<String>) {
        (Vec::new(), None)
    }

    /// The planning path this profile runs when TURBOTIME is on for the session (seed 001:
    /// goal framing → plan → tools → answer); `None`: TURBOTIME changes only which tools are
    /// enabled.
    fn turbotime(&self) -> Option<&'static dyn Plugin> {
        None
    }

    /// After each final-role reply was read, with the calls it asked for (ids assigned) and
    /// whether its call block was malformed.
    fn after_final_reply(
        &self,
        _w: &mut Work<'_>,
        _round: usize,
        _raw: &str,
        _calls: &[ToolRequest],
        _malformed: bool,
    ) -> Result<()> {
        Ok(())
    }

    /// After one tool call of the turn ran (not for calls staged for confirmation).
    fn after_tool(&self, _w: &mut Work<'_>, _req: &ToolRequest, _resp: &ToolResponse) {}

    /// After the roles ran: the answer that stands (a profile may run its roles again).
    fn after_roles(&self, _w: &mut Work<'_>, _pass: &Pass<'_>, answer: String) -> Result<String> {
        Ok(answer)
    }
}
