//! The session state and the checkpoint that carries it.

use super::ChatMessage;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Spectator long-lived agent state, stored in the checkpoint.
///
/// Also accepted: Bob v0 `active_context` (→ `episode_summary`) and `open_threads`
/// (→ `open_loops`).
///
/// ```json
/// {"goals":["ship v1"],"open_loops":[],"decisions":[],"constraints":[],"episode_summary":"",
///  "memory_tags":[],"memory_refs":[],"capabilities_granted":["net:example.com"],"capabilities_pending":[]}
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct State {
    pub goals: Vec<String>,
    #[serde(alias = "open_threads")]
    pub open_loops: Vec<String>,
    pub decisions: Vec<String>,
    pub constraints: Vec<String>,
    #[serde(alias = "active_context")]
    pub episode_summary: String,
    pub memory_tags: Vec<String>,
    pub memory_refs: Vec<String>,
    pub capabilities_granted: Vec<String>,
    /// Requested capabilities awaiting a human; never holds a granted one.
    pub capabilities_pending: Vec<String>,
}

/// The Checkpoint contract: the persisted unit, one per session, revisioned.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Checkpoint {
    pub session_id: String,
    #[serde(default)]
    pub revision: u64,
    #[serde(default)]
    pub updated_ts: f64,
    #[serde(default)]
    pub state: State,
    #[serde(default)]
    pub recent_messages: Vec<ChatMessage>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub trace_tail: Vec<String>,
}

/// Spectator NOTES payload: a structured request to change the state. Absent keys change
/// nothing. Also accepted: JSON I/O NoteFrames `{facts, open_qs, decisions, todos}` (see
/// [`NoteFrames`]). Parsing, merging and applying live in [`crate::notes`].
///
/// ```json
/// {"set_goals":["ship v1"],"add_open_loops":["pick a vector store"],"close_open_loops":[],
///  "add_decisions":["use SQLite"],"add_constraints":[],"set_episode_summary":"planning",
///  "add_memory_tags":["memory"],"actions":["condense_smart","request_permission:net:huggingface.co"]}
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct NotesPatch {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub set_goals: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub add_open_loops: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub close_open_loops: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub add_decisions: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub add_constraints: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub set_episode_summary: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub add_memory_tags: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actions: Option<Vec<String>>,
}

/// JSON I/O Thinking-output NoteFrames, accepted wherever a [`NotesPatch`] is (bare, inside
/// `<<<NOTES_JSON>>>` markers, or wrapped as `{"notes": {...}}` in a Thinking output).
///
/// ```json
/// {"facts":["budget is $200"],"open_qs":["which frame size?"],"decisions":["use 5\" props"],
///  "todos":["price the motors"]}
/// ```
///
/// Converted by [`NoteFrames::into_patch`] with this mapping (NoteFrames only ever add; they
/// never replace goals or the episode summary and never carry actions):
///
/// | NoteFrames | NotesPatch | why |
/// | --- | --- | --- |
/// | `decisions` | `add_decisions` | same meaning |
/// | `open_qs` | `add_open_loops` | an open question is an open loop |
/// | `todos` | `add_open_loops` | a to-do is an open loop until closed |
/// | `facts` | `add_constraints` | established facts bound the work that follows |
///
/// Open questions come before to-dos in the resulting `add_open_loops`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct NoteFrames {
    pub facts: Vec<String>,
    pub open_qs: Vec<String>,
    pub decisions: Vec<String>,
    pub todos: Vec<String>,
}

impl NoteFrames {
    /// The canonical patch these frames stand for (mapping in the type's documentation).
    /// Empty frames map to absent keys, so they change nothing.
    pub fn into_patch(self) -> NotesPatch {
        let some = |v: Vec<String>| (!v.is_empty()).then_some(v);
        let loops: Vec<String> = self.open_qs.into_iter().chain(self.todos).collect();
        NotesPatch {
            add_open_loops: some(loops),
            add_decisions: some(self.decisions),
            add_constraints: some(self.facts),
            ..NotesPatch::default()
        }
    }
}
