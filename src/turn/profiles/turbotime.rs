//! TURBOTIME's planning path (Bob v0 "TURBOTIME (agentic layer)": goal framing, planning
//! and tool use), which the `bob` profile runs when TURBOTIME is on for the session:
//! GOAL frames the goal → PLAN writes the plan and asks for read-only tools (the selected
//! TURBOTIME tools are enabled) → the Tools stage runs them → ANSWER answers from their
//! results, with the bounded tool loop. Its roles' output is read the shared way, and it uses
//! the same memory approval, logging and tool policy as every turn.

use super::{Plugin, RoleSpec};

/// The planning path's plug-in: its roles; everything else is the shared stages' default.
pub(super) struct Planning;

impl Plugin for Planning {
    fn roles(&self) -> &'static [RoleSpec] {
        ROLES
    }
}

const GOAL: &str = "You are the GOAL stage of the planning path. Frame the user's goal: what \
they want to achieve, the constraints, what is already known from STATE and HISTORY_JSON, and \
what a complete answer must contain. Private notes only; you cannot run tools.";

const PLAN: &str = "You are the PLAN stage of the planning path. From the goal in UPSTREAM, \
write a short numbered plan, and ask the runtime for the read-only tools the plan needs; they \
run before the answer is written, which gets their results. You cannot write, run commands or \
change anything.";

const ANSWER: &str = "You are the ANSWER stage, the only one that answers the user. Follow the \
goal and plan in UPSTREAM and the tool results as private guidance, use tools when still \
needed, and write the final answer: natural, direct, without mentioning stages, plans, markers \
or tool mechanics.";

const ROLES: &[RoleSpec] = &[
    RoleSpec {
        name: "goal",
        instructions: GOAL,
        wants_retrieval: false,
        proposes_memory: false,
        is_final: false,
        plans_tools: false,
    },
    RoleSpec {
        name: "plan",
        instructions: PLAN,
        wants_retrieval: true,
        proposes_memory: true,
        is_final: false,
        plans_tools: true,
    },
    RoleSpec {
        name: "answer",
        instructions: ANSWER,
        wants_retrieval: false,
        proposes_memory: false,
        is_final: true,
        plans_tools: false,
    },
];
