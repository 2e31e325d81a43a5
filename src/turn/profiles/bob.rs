//! The `bob` profile (the default, the Bob v0 runtime): THINK → RESPOND. THINK recalls and plans and
//! may ask for read-only tools, which run in the Tools stage before RESPOND answers. Its roles'
//! output is read the shared way (NOTES blocks, memory candidate blocks, visible text). With
//! TURBOTIME on, the turn takes TURBOTIME's planning path instead.

use super::{Plugin, RoleSpec};

/// The `bob` profile's plug-in: its roles; everything else is the shared stages' default.
pub(super) struct Bob;

impl Plugin for Bob {
    fn roles(&self) -> &'static [RoleSpec] {
        ROLES
    }

    /// bob is the chat layer TURBOTIME runs alongside: with TURBOTIME on, its planning path.
    fn turbotime(&self) -> Option<&'static dyn Plugin> {
        Some(&super::turbotime::Planning)
    }
}

const THINK: &str = "You are the THINK/RECALL stage. Understand the user's request and its \
constraints, recall what the STATE and HISTORY_JSON say, and decide what the responder needs \
(facts, tools it should use, open questions). Write short private notes for the responder; the \
user never sees them. You may ask the runtime to run read-only tools before the responder \
answers (it gets their results); you cannot write, run commands or change anything.";

const RESPOND: &str = "You are the RESPOND stage. Write the answer the user will see: natural, \
direct, without mentioning stages, notes, markers or tools mechanics. Use the THINK notes in \
UPSTREAM as private guidance.";

const ROLES: &[RoleSpec] = &[
    RoleSpec {
        name: "think",
        instructions: THINK,
        wants_retrieval: true,
        proposes_memory: true,
        is_final: false,
        plans_tools: true,
    },
    RoleSpec {
        name: "respond",
        instructions: RESPOND,
        wants_retrieval: false,
        proposes_memory: false,
        is_final: true,
        plans_tools: false,
    },
];
