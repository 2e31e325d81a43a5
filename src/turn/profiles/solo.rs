//! The `solo` profile: one role that answers, with the bounded tool loop; its output is read
//! the shared way.

use super::{Plugin, RoleSpec};

/// The `solo` profile's plug-in: its role; everything else is the shared stages' default.
pub(super) struct Solo;

impl Plugin for Solo {
    fn roles(&self) -> &'static [RoleSpec] {
        ROLES
    }
}

const SOLO: &str = "You are a single agent. Answer the user's request, using tools when they \
are needed; write the final answer naturally, without mentioning markers or tool mechanics.";

const ROLES: &[RoleSpec] = &[RoleSpec {
    name: "solo",
    instructions: SOLO,
    wants_retrieval: true,
    proposes_memory: true,
    is_final: true,
    plans_tools: false,
}];
