//! The run request: what one turn was asked to do, whoever asked (`bob turn`, a served run, a
//! chat message, a scheduled job, an eval case). Built by [`TurnRequest::new`] and its `with_*`
//! steps, the one constructor every front end uses; kept in the run bundle as `request.json`
//! and, for a served run, in the queue.
//!
//! Wire example (`runs/<run_id>/request.json` of a served run):
//!
//! ```json
//! {"run_id":"run_3f…","source":"http","agent_id":"agent_default","session_id":"s1","user_id":null,
//!  "message":"Summarize repository status","thinking_mode":"never","profile":"panda","mode":"chat",
//!  "created_at":"2026-02-15T10:00:00Z"}
//! ```
//!
//! `mode` is written only for a chat-mode run (act is the default); `run_id` and `created_at`
//! only once the run was queued. What only the caller decides (its own `system` text, an
//! expected revision, a replay seed, streaming, the tool-round limit, policy overrides) is
//! written only when set, so a request that sets none reads and writes as it did before they
//! were fields. [`TurnRequest::input`] is the form `bob turn` reads on stdin.

use super::PolicyOverrides;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Most tool-loop rounds of the final role (one LLM call each, plus the closing call): a
/// request's default.
pub const MAX_TOOL_ROUNDS: usize = 4;

/// The most tool-loop rounds a request may ask for.
pub const MAX_TOOL_ROUNDS_CAP: usize = 16;

/// JSON I/O's mode of a turn: `chat` stages mutating tool calls for a human's confirmation
/// (`requires_confirm`), `act` runs them when enabled and valid.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RunMode {
    Chat,
    #[default]
    Act,
}

impl RunMode {
    pub fn parse(s: &str) -> Option<RunMode> {
        match s.trim() {
            "chat" => Some(RunMode::Chat),
            "act" => Some(RunMode::Act),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            RunMode::Chat => "chat",
            RunMode::Act => "act",
        }
    }

    pub fn is_act(&self) -> bool {
        *self == RunMode::Act
    }

    /// True for chat mode: mutating tool calls are staged, not run.
    pub fn stages_mutations(self) -> bool {
        self == RunMode::Chat
    }
}

/// What one turn was asked to do. The front ends check the ids, the message and the names
/// (thinking mode, profile) before they build one; this type carries them as given.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TurnRequest {
    /// The run's id, once a queue assigned it (served runs) or its caller chose it (an eval
    /// case); absent: the turn draws one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    /// Who asked: `cli`, `http`, `chat`, `schedule` or `eval`.
    pub source: String,
    pub agent_id: String,
    pub session_id: String,
    /// The memory user (`null` when none).
    #[serde(default)]
    pub user_id: Option<String>,
    pub message: String,
    /// `never`, `on_error` or `always`.
    pub thinking_mode: String,
    /// The pipeline profile: `bob`, `spectator`, `solo` or `panda`.
    pub profile: String,
    /// `chat` or `act` (absent: act).
    #[serde(default, skip_serializing_if = "RunMode::is_act")]
    pub mode: RunMode,
    /// When the run was queued (RFC 3339; served runs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_at: Option<String>,
    /// The caller's own instructions for this turn, given to every role after bob's rules
    /// (which they do not override): `bob turn --system`, `POST /v1/runs`'s `system`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system: Option<String>,
    /// Commit only if the session's checkpoint is still at this revision (else `conflict`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expect_revision: Option<u64>,
    /// The replay seed every id of the turn derives from (`--seed`, setting `turn.seed`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// Stream every LLM call (absent: no, unless the front end streams to show the answer).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub stream: bool,
    /// Most tool-loop rounds of the final role, at most [`MAX_TOOL_ROUNDS_CAP`] (absent: the
    /// default, [`MAX_TOOL_ROUNDS`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tool_rounds: Option<usize>,
    /// The calling human's tool-policy overrides (absent: none).
    #[serde(default, skip_serializing_if = "PolicyOverrides::is_empty")]
    pub policy: PolicyOverrides,
}

/// `bob turn`'s stdin form of a request: `{session_id, message, user_id?, thinking_mode?,
/// system?}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TurnRequestInput {
    pub session_id: String,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_id: Option<String>,
    /// Absent when `never` (the default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking_mode: Option<String>,
    /// The caller's own instructions for every role (absent: none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system: Option<String>,
}

impl TurnRequest {
    /// The one constructor: a request from `source` for `agent_id`'s turn in `session_id`,
    /// with no user, thinking mode `never`, profile `bob`, mode act, not queued.
    pub fn new(
        source: &str,
        agent_id: impl Into<String>,
        session_id: impl Into<String>,
        message: impl Into<String>,
    ) -> TurnRequest {
        TurnRequest {
            run_id: None,
            source: source.to_string(),
            agent_id: agent_id.into(),
            session_id: session_id.into(),
            user_id: None,
            message: message.into(),
            thinking_mode: "never".into(),
            profile: "bob".into(),
            mode: RunMode::Act,
            created_at: None,
            system: None,
            expect_revision: None,
            seed: None,
            stream: false,
            max_tool_rounds: None,
            policy: PolicyOverrides::default(),
        }
    }

    /// A run id the caller chose (a queue's comes with [`TurnRequest::queued`]).
    pub fn with_run_id(mut self, run_id: impl Into<String>) -> TurnRequest {
        self.run_id = Some(run_id.into());
        self
    }

    /// The caller's own instructions for every role (`None`: none).
    pub fn with_system(mut self, system: Option<String>) -> TurnRequest {
        self.system = system;
        self
    }

    /// Commit only at this checkpoint revision (`None`: whatever it is).
    pub fn with_expect_revision(mut self, revision: Option<u64>) -> TurnRequest {
        self.expect_revision = revision;
        self
    }

    /// The replay seed (`None`: random ids).
    pub fn with_seed(mut self, seed: Option<u64>) -> TurnRequest {
        self.seed = seed;
        self
    }

    pub fn with_stream(mut self, stream: bool) -> TurnRequest {
        self.stream = stream;
        self
    }

    /// At most `rounds` tool-loop rounds, capped at [`MAX_TOOL_ROUNDS_CAP`]; the default
    /// ([`MAX_TOOL_ROUNDS`]) is not written.
    pub fn with_max_tool_rounds(mut self, rounds: usize) -> TurnRequest {
        let rounds = rounds.min(MAX_TOOL_ROUNDS_CAP);
        self.max_tool_rounds = (rounds != MAX_TOOL_ROUNDS).then_some(rounds);
        self
    }

    pub fn with_policy(mut self, policy: PolicyOverrides) -> TurnRequest {
        self.policy = policy;
        self
    }

    /// The tool-loop rounds the turn gets.
    pub fn tool_rounds(&self) -> usize {
        self.max_tool_rounds
            .unwrap_or(MAX_TOOL_ROUNDS)
            .min(MAX_TOOL_ROUNDS_CAP)
    }

    pub fn with_user(mut self, user_id: Option<String>) -> TurnRequest {
        self.user_id = user_id;
        self
    }

    pub fn with_thinking_mode(mut self, thinking_mode: &str) -> TurnRequest {
        self.thinking_mode = thinking_mode.to_string();
        self
    }

    pub fn with_profile(mut self, profile: &str) -> TurnRequest {
        self.profile = profile.to_string();
        self
    }

    pub fn with_mode(mut self, mode: RunMode) -> TurnRequest {
        self.mode = mode;
        self
    }

    /// The request as a queue accepted it: its run id and when.
    pub fn queued(mut self, run_id: impl Into<String>, created_at: impl Into<String>) -> Self {
        self.run_id = Some(run_id.into());
        self.created_at = Some(created_at.into());
        self
    }

    /// What `bob turn` reads on stdin for this request (the agent, the profile and the mode
    /// are its flags).
    pub fn input(&self) -> TurnRequestInput {
        TurnRequestInput {
            session_id: self.session_id.clone(),
            message: self.message.clone(),
            user_id: self.user_id.clone(),
            thinking_mode: (self.thinking_mode != "never").then(|| self.thinking_mode.clone()),
            system: self.system.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_served_request_keeps_its_field_order_and_leaves_out_act() {
        let r = TurnRequest::new("http", "a", "s1", "hi").queued("run_1", "2026-02-15T10:00:00Z");
        assert_eq!(
            serde_json::to_string(&r).unwrap(),
            r#"{"run_id":"run_1","source":"http","agent_id":"a","session_id":"s1","user_id":null,"message":"hi","thinking_mode":"never","profile":"bob","created_at":"2026-02-15T10:00:00Z"}"#
        );
        let chat = r.with_mode(RunMode::Chat).with_profile("panda");
        let v = serde_json::to_value(&chat).unwrap();
        assert_eq!(v["mode"], "chat");
        assert_eq!(v["profile"], "panda");
        let back: TurnRequest = serde_json::from_value(v).unwrap();
        assert_eq!(back, chat);
    }

    #[test]
    fn the_caller_s_knobs_are_written_only_when_set() {
        let plain = TurnRequest::new("cli", "a", "s1", "hi").with_max_tool_rounds(MAX_TOOL_ROUNDS);
        let text = r#"{"source":"cli","agent_id":"a","session_id":"s1","user_id":null,"message":"hi","thinking_mode":"never","profile":"bob"}"#;
        assert_eq!(serde_json::to_string(&plain).unwrap(), text);
        assert_eq!(serde_json::from_str::<TurnRequest>(text).unwrap(), plain);
        let knobs = plain
            .with_system(Some("Be brief.".into()))
            .with_expect_revision(Some(2))
            .with_seed(Some(5))
            .with_stream(true)
            .with_max_tool_rounds(40)
            .with_policy(PolicyOverrides {
                allow_loopback: true,
                ..Default::default()
            });
        let text = serde_json::to_string(&knobs).unwrap();
        assert!(
            text.ends_with(r#""system":"Be brief.","expect_revision":2,"seed":5,"stream":true,"max_tool_rounds":16,"policy":{"allow_loopback":true}}"#),
            "{text}"
        );
        assert_eq!(serde_json::from_str::<TurnRequest>(&text).unwrap(), knobs);
        assert_eq!(knobs.tool_rounds(), MAX_TOOL_ROUNDS_CAP);
        assert_eq!(knobs.input().system.as_deref(), Some("Be brief."));
    }

    #[test]
    fn the_stdin_form_is_what_bob_turn_reads() {
        let r = TurnRequest::new("schedule", "a", "job-r", "report");
        assert_eq!(
            serde_json::to_string(&r.input()).unwrap(),
            r#"{"session_id":"job-r","message":"report"}"#
        );
        let r = r.with_user(Some("u".into())).with_thinking_mode("always");
        assert_eq!(
            serde_json::to_string(&r.input()).unwrap(),
            r#"{"session_id":"job-r","message":"report","user_id":"u","thinking_mode":"always"}"#
        );
    }
}
