//! The `data` of each trace kind a turn writes, one type per kind (kinds written in several
//! situations are an enum whose variants serialize flat, without a tag). `bob schema
//! trace-<kind>` prints each one's JSON Schema. Every payload names its `run_id`.
//!
//! Free-form parts stay [`Value`]: the backend's self-description, and what a panda Solver
//! asked for (the model's own JSON).

use super::{ActionNote, Actor, CondenseOutcome, NotesPatch, TraceData, Usage};
use crate::error::Error;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

macro_rules! kind {
    ($t:ident, $kind:literal) => {
        impl TraceData for $t<'_> {
            const KIND: &'static str = $kind;
        }
    };
}

/// A tool call as the trace names it; `ignored_ids` lists the id fields the model set and bob
/// replaced (ids are bob's, never the model's).
#[derive(Debug, Serialize, JsonSchema)]
pub struct CallRef<'a> {
    pub id: &'a str,
    pub tool: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ignored_ids: Option<&'a [&'static str]>,
}

/// `llm_req`: a role is about to call the model.
#[derive(Debug, Serialize, JsonSchema)]
pub struct LlmReq<'a> {
    pub run_id: &'a str,
    pub role: &'a str,
    pub round: usize,
    pub messages: usize,
    pub chars: usize,
    pub tools: usize,
    /// The backend's own description (`kind`, and `base_url`/`model` or the script it replays).
    pub backend: Value,
    pub stream: bool,
}
kind!(LlmReq, "llm_req");

/// `llm_stream`: what a streamed reply delivered.
#[derive(Debug, Serialize, JsonSchema)]
pub struct LlmStream<'a> {
    pub run_id: &'a str,
    pub role: &'a str,
    pub round: usize,
    pub deltas: usize,
    pub chars: usize,
    pub first_delta_ms: Option<u64>,
}
kind!(LlmStream, "llm_stream");

/// `llm_done`: the model call ended (`ok` says how).
#[derive(Debug, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum LlmDone<'a> {
    Answered {
        run_id: &'a str,
        role: &'a str,
        round: usize,
        ok: bool,
        usage: Option<Usage>,
        cost: Option<f64>,
        latency_ms: u64,
        model: &'a str,
        finish_reason: Option<&'a str>,
        attempts: u32,
        tool_calls: usize,
    },
    Failed {
        run_id: &'a str,
        role: &'a str,
        round: usize,
        ok: bool,
        error: &'a Error,
    },
}
kind!(LlmDone, "llm_done");

/// One retrieved memory and its rank score.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ScoredId<'a> {
    pub id: &'a str,
    pub score: f64,
}

/// `retrieval`: long-term memory asked for a role's context.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum Retrieval<'a> {
    Hits {
        run_id: &'a str,
        role: &'a str,
        query: &'a str,
        hits: Vec<ScoredId<'a>>,
        /// Why nothing was searched (no memory store yet).
        #[serde(skip_serializing_if = "Option::is_none")]
        note: Option<&'a str>,
        /// `semantic` or `hybrid` when embeddings ranked the hits (absent: lexical).
        #[serde(skip_serializing_if = "Option::is_none")]
        ranking: Option<&'a str>,
        /// Why the ranking fell back to lexical (the embedder failed).
        #[serde(skip_serializing_if = "Option::is_none")]
        fallback: Option<String>,
    },
    Failed {
        run_id: &'a str,
        role: &'a str,
        query: &'a str,
        error: &'a Error,
    },
}
kind!(Retrieval, "retrieval");

/// A short-term memory entry shown to the turn, after its access was counted.
#[derive(Debug, Serialize, JsonSchema)]
pub struct StmTouch<'a> {
    pub id: &'a str,
    pub access_count: u64,
    pub sessions_seen: usize,
}

/// `stm_context`: the short-term entries in the turn's context.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum StmContext<'a> {
    Touched {
        run_id: &'a str,
        entries: Vec<StmTouch<'a>>,
    },
    Failed {
        run_id: &'a str,
        error: &'a Error,
    },
}
kind!(StmContext, "stm_context");

/// `stm`: the turn's own short-term entry.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum Stm<'a> {
    Written {
        run_id: &'a str,
        id: &'a str,
        tainted: bool,
    },
    Failed {
        run_id: &'a str,
        error: &'a Error,
    },
}
kind!(Stm, "stm");

/// `state_json`: the session's compact `state.json` could not be written (the turn stands).
#[derive(Debug, Serialize, JsonSchema)]
pub struct StateJsonFailed<'a> {
    pub run_id: &'a str,
    pub error: &'a Error,
}
kind!(StateJsonFailed, "state_json");

/// `continuity`: where the session's running summary came from this turn.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Continuity<'a> {
    pub run_id: &'a str,
    /// `notes` (the model's NOTES block) or `fallback` (derived by bob).
    pub source: &'a str,
    pub active_context: &'a str,
    pub open_threads: usize,
}
kind!(Continuity, "continuity");

/// `citations`: the answer's `[mem:<id>]` citations checked against what was retrieved.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Citations<'a> {
    pub run_id: &'a str,
    pub cited: &'a [String],
    pub removed: &'a [String],
}
kind!(Citations, "citations");

/// `recap`: a "what were we talking about?" question or a pronoun follow-up.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum Recap<'a> {
    Answered {
        run_id: &'a str,
        /// `question` or `follow_up`.
        kind: &'a str,
        topic: &'a str,
        rewritten: Option<&'a str>,
        summary: &'a str,
    },
    /// The answer ignored the summary; bob's own recap replaced it.
    Fallback {
        run_id: &'a str,
        fallback: bool,
        reason: &'a str,
    },
}
kind!(Recap, "recap");

/// `turbotime`: TURBOTIME is on and the profile's planning path runs instead of its roles.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Turbotime<'a> {
    pub run_id: &'a str,
    pub path: &'a str,
    pub selected: &'a [String],
    pub roles: Vec<&'a str>,
}
kind!(Turbotime, "turbotime");

/// `tool_plan`: what a role asked to run, and what bob made of it.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum ToolPlan<'a> {
    /// The final role's calls of one round, to run now.
    Round {
        run_id: &'a str,
        role: &'a str,
        round: usize,
        calls: Vec<CallRef<'a>>,
        malformed: Option<&'a str>,
    },
    /// The tool-round limit was reached: the calls were not run.
    LimitReached {
        run_id: &'a str,
        role: &'a str,
        round: usize,
        refused: &'a str,
        calls: usize,
    },
    /// The read-only calls a planning role's tools stage runs.
    Stage {
        run_id: &'a str,
        role: &'a str,
        stage: &'a str,
        calls: Vec<CallRef<'a>>,
        malformed: Option<&'a str>,
    },
    /// One call refused before it ran.
    Refused {
        run_id: &'a str,
        role: &'a str,
        id: &'a str,
        tool: &'a str,
        ignored: bool,
        reason: &'a str,
    },
    /// Calls in a role that does not run tools.
    NotRun {
        run_id: &'a str,
        role: &'a str,
        ignored: bool,
        reason: &'a str,
        native_calls: usize,
        marker_block: bool,
    },
    /// Chat mode: a changing call waits for a human's `bob tool confirm`.
    AwaitsConfirm {
        run_id: &'a str,
        id: &'a str,
        tool: &'a str,
        requires_confirm: bool,
        confirm_id: &'a str,
    },
    /// The failure loop escalated: the turn ends.
    Escalated {
        run_id: &'a str,
        role: &'a str,
        escalated: bool,
    },
}
kind!(ToolPlan, "tool_plan");

/// `tool_start`: a call is about to run.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ToolStart<'a> {
    pub run_id: &'a str,
    pub id: &'a str,
    pub tool: &'a str,
}
kind!(ToolStart, "tool_start");

/// `tool_done`: a call ended (`error` is its error code).
#[derive(Debug, Serialize, JsonSchema)]
pub struct ToolDone<'a> {
    pub run_id: &'a str,
    pub id: &'a str,
    pub tool: &'a str,
    pub ok: bool,
    pub error: Option<&'a str>,
    pub duration_ms: u64,
}
kind!(ToolDone, "tool_done");

/// `panda_loop`: one Solver round of the panda profile.
#[derive(Debug, Serialize, JsonSchema)]
pub struct PandaLoop<'a> {
    pub run_id: &'a str,
    pub round: usize,
    /// The Solver's `analysis`, as it wrote it.
    pub solver_self_history: Option<&'a Value>,
    pub note_frames: &'a NotesPatch,
    pub tool_intents: Vec<CallRef<'a>>,
    /// `final`, `needs_more_context`, `tool_limit`, or `null` while tools run.
    pub termination_reason: Option<&'a str>,
}
kind!(PandaLoop, "panda_loop");

/// `panda_context_loop`: the Solver asked for more context and Thinking runs again (or the
/// loop limit stopped it).
#[derive(Debug, Serialize, JsonSchema)]
pub struct PandaContextLoop<'a> {
    pub run_id: &'a str,
    #[serde(rename = "loop")]
    pub loop_no: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped: Option<&'a str>,
    /// The Solver's `requests`, as it wrote them.
    pub requests: &'a Value,
}
kind!(PandaContextLoop, "panda_context_loop");

/// `notes_patch`: a NOTES patch applied to a session's checkpoint, by a turn or by
/// `bob notes apply` (a block that was not applied is [`super::NotesPatchRejected`]).
#[derive(Debug, Serialize, JsonSchema)]
pub struct NotesPatchApplied<'a> {
    /// The checkpoint revision the patch was committed in.
    pub revision: u64,
    pub actor: Actor,
    pub patch: &'a NotesPatch,
    /// Patch keys applied, in application order.
    pub applied: &'a [String],
    /// Payload keys no accepted shape has.
    pub ignored_keys: &'a [String],
    /// The turn that applied it (absent for `bob notes apply`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run_id: Option<&'a str>,
    /// Messages the turn's pressure condensation dropped afterwards (a turn only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub condensed_dropped: Option<usize>,
}
kind!(NotesPatchApplied, "notes_patch");

/// `actions`: what the actions of an applied NOTES patch did.
#[derive(Debug, Serialize, JsonSchema)]
pub struct NotesActions<'a> {
    pub revision: u64,
    pub actor: Actor,
    /// Actions carried out (or, for condensation, handed back).
    pub actions: &'a [String],
    /// Unknown or malformed actions.
    pub ignored_actions: &'a [ActionNote],
    /// Actions the actor may not take (a model granting a capability).
    pub refused: &'a [ActionNote],
    /// Capabilities newly pending.
    pub requested: &'a [String],
    /// Capabilities newly granted.
    pub granted: &'a [String],
    /// The condensation the patch asked for, as run (`null` when none).
    pub condense: Option<&'a CondenseOutcome>,
    /// The turn that applied it (absent for `bob notes apply`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run_id: Option<&'a str>,
}
kind!(NotesActions, "actions");

/// The published schema of every trace kind a turn writes: `(name, generator)`.
pub const TRACE_SCHEMAS: &[(&str, super::SchemaFn)] = &[
    ("trace-llm-req", || schemars::schema_for!(LlmReq<'static>)),
    ("trace-llm-stream", || {
        schemars::schema_for!(LlmStream<'static>)
    }),
    ("trace-llm-done", || schemars::schema_for!(LlmDone<'static>)),
    ("trace-retrieval", || {
        schemars::schema_for!(Retrieval<'static>)
    }),
    ("trace-stm-context", || {
        schemars::schema_for!(StmContext<'static>)
    }),
    ("trace-stm", || schemars::schema_for!(Stm<'static>)),
    ("trace-state-json", || {
        schemars::schema_for!(StateJsonFailed<'static>)
    }),
    ("trace-continuity", || {
        schemars::schema_for!(Continuity<'static>)
    }),
    ("trace-citations", || {
        schemars::schema_for!(Citations<'static>)
    }),
    ("trace-recap", || schemars::schema_for!(Recap<'static>)),
    ("trace-turbotime", || {
        schemars::schema_for!(Turbotime<'static>)
    }),
    ("trace-tool-plan", || {
        schemars::schema_for!(ToolPlan<'static>)
    }),
    ("trace-tool-start", || {
        schemars::schema_for!(ToolStart<'static>)
    }),
    ("trace-tool-done", || {
        schemars::schema_for!(ToolDone<'static>)
    }),
    ("trace-panda-loop", || {
        schemars::schema_for!(PandaLoop<'static>)
    }),
    ("trace-panda-context-loop", || {
        schemars::schema_for!(PandaContextLoop<'static>)
    }),
    ("trace-notes-patch", || {
        schemars::schema_for!(NotesPatchApplied<'static>)
    }),
    ("trace-actions", || {
        schemars::schema_for!(NotesActions<'static>)
    }),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schema_names_follow_the_kinds_and_every_schema_builds() {
        let kinds = [
            LlmReq::KIND,
            LlmStream::KIND,
            LlmDone::KIND,
            Retrieval::KIND,
            StmContext::KIND,
            Stm::KIND,
            StateJsonFailed::KIND,
            Continuity::KIND,
            Citations::KIND,
            Recap::KIND,
            Turbotime::KIND,
            ToolPlan::KIND,
            ToolStart::KIND,
            ToolDone::KIND,
            PandaLoop::KIND,
            PandaContextLoop::KIND,
            NotesPatchApplied::KIND,
            NotesActions::KIND,
        ];
        assert_eq!(kinds.len(), TRACE_SCHEMAS.len());
        for (kind, (name, schema)) in kinds.iter().zip(TRACE_SCHEMAS) {
            assert_eq!(*name, format!("trace-{}", kind.replace('_', "-")));
            assert!(
                schema().as_object().is_some_and(|o| !o.is_empty()),
                "{name}"
            );
        }
    }

    #[test]
    fn variants_serialize_flat_in_declared_order() {
        let ignored = ["run_id"];
        let plan = ToolPlan::Round {
            run_id: "run_1",
            role: "final",
            round: 0,
            calls: vec![CallRef {
                id: "call_1",
                tool: "fs.read_text",
                ignored_ids: Some(&ignored),
            }],
            malformed: None,
        };
        assert_eq!(
            serde_json::to_string(&plan).unwrap(),
            r#"{"run_id":"run_1","role":"final","round":0,"calls":[{"id":"call_1","tool":"fs.read_text","ignored_ids":["run_id"]}],"malformed":null}"#
        );
        let lp = PandaContextLoop {
            run_id: "run_1",
            loop_no: 2,
            stopped: None,
            requests: &Value::Null,
        };
        assert_eq!(
            serde_json::to_string(&lp).unwrap(),
            r#"{"run_id":"run_1","loop":2,"requests":null}"#
        );
    }
}
