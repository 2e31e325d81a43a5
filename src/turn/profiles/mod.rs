//! Pipeline profiles and their roles (docs/design.md#the-turn).
//!
//! | profile | roles | retrieval |
//! | --- | --- | --- |
//! | `bob` (default) | think → respond | think |
//! | `spectator` | reflection → planner → critic → governor | planner |
//! | `solo` | solo (bounded tool loop) | solo |
//! | `panda` | thinking → solver (the JSON I/O contracts, JSON outputs) | thinking |
//! | `bob` with TURBOTIME on | goal → plan → answer (Bob v0's planning path) | plan |
//!
//! The last role of a profile is the only one that finalizes the answer and the only one that
//! may execute tools in a loop. Bob v0's THINK (`plans_tools`) may request read-only tools,
//! which the runtime runs once, between THINK and RESPOND (Bob v0 stage 2, "Tools
//! (runtime)"). Roles marked `proposes_memory` may emit memory candidates.
//!
//! Each profile is a plug-in ([`Plugin`], one module each): it says which roles run and how
//! their output is read, and may add to the shared stages at the points the trait names. The
//! shared stages (context assembly, role call, tool loop, commit) name no profile: they ask
//! the turn's plug-in.

mod bob;
mod panda;
mod panda_live;
mod solo;
mod spectator;
mod turbotime;

pub use super::role::{Profile, RoleSpec};
pub(in crate::turn) use super::work::{LiveAnswer, Pass, Plugin};

impl Profile {
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
