//! One turn: a pass of a pipeline profile over a session (docs/design.md#the-turn).
//!
//! * [`pipeline`]: one turn from start to end, over the shared stages: [`context`] assembly,
//!   the [`role_call`], the [`tool_loop`], the [`commit`] and the retrieval [`prefetch`], all
//!   writing through the turn's [`work`] state.
//! * [`profiles`]: the profiles (`bob`, `spectator`, `solo`, `panda`) and their roles.
//! * [`prompts`]: role-input assembly (SYSTEM, STATE, HISTORY_JSON, UPSTREAM, USER).
//! * [`recap`]: recap questions and pronoun-heavy follow-ups (the JSON I/O contracts).
//! * [`continuity`]: the compact `active_context`/`open_threads` update of every turn (the Bob v0 runtime).
//! * [`identity`]: who bob is and who made it (`[identity]` in `config.toml`).
//! * [`nonce`]: the per-turn nonce every role's system prompt carries.

mod commit;
mod commit_stage;
mod context;
pub mod continuity;
pub mod identity;
mod mem;
mod options;
pub mod pipeline;
mod prefetch;
pub mod profiles;
pub mod prompts;
pub mod recap;
pub mod role;
mod role_call;
mod tool_loop;
mod work;

pub use commit_stage::commit_stage;
pub use context::previous_role;
pub use identity::Identity;
pub use role::{Profile, RoleSpec};

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// The per-turn nonce (16 hex characters) stated in every role's system prompt and recorded in
/// the turn record, so a check can tell this turn's nonce from one planted in history. With a
/// seed it is derived from `(seed, run_id)` (SHA-256), so a seeded replay is reproducible;
/// without one it is drawn from the OS's random source.
pub fn nonce(run_id: &str, seed: Option<u64>) -> String {
    let bytes: [u8; 8] = match seed {
        Some(seed) => {
            let mut h = Sha256::new();
            h.update(b"bob-turn-nonce\0");
            h.update(seed.to_le_bytes());
            h.update(run_id.as_bytes());
            let d = h.finalize();
            let mut b = [0u8; 8];
            b.copy_from_slice(&d[..8]);
            b
        }
        None => {
            use rand::RngCore;
            let mut b = [0u8; 8];
            rand::rngs::OsRng.fill_bytes(&mut b);
            b
        }
    };
    hex::encode(bytes)
}

/// Openclawssy `thinking_mode`: whether the sanitized role notes go into the turn record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ThinkingMode {
    /// Never include them (the default).
    #[default]
    Never,
    /// Include them when the turn failed or a tool failed.
    OnError,
    /// Always include them.
    Always,
}

impl ThinkingMode {
    pub fn parse(s: &str) -> Option<ThinkingMode> {
        match s.trim() {
            "never" => Some(ThinkingMode::Never),
            "on_error" => Some(ThinkingMode::OnError),
            "always" => Some(ThinkingMode::Always),
            _ => None,
        }
    }

    /// The mode's name, as a run request and the wire carry it.
    pub fn as_str(self) -> &'static str {
        match self {
            ThinkingMode::Never => "never",
            ThinkingMode::OnError => "on_error",
            ThinkingMode::Always => "always",
        }
    }
}

/// What `bob turn` reads: `{session_id, message, user_id?, thinking_mode?, system?}`, or plain
/// text (the whole input is the message). `system`: the person's own instructions for this
/// turn, given to every role after bob's rules (`bob turn --system`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TurnInput {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking_mode: Option<ThinkingMode>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system: Option<String>,
}

impl TurnInput {
    /// A message given as it is (the command line's `bob turn "text"`): never read as JSON.
    /// An empty message is an `invalid.request`.
    pub fn parse_message(message: &str) -> Result<TurnInput> {
        if message.trim().is_empty() {
            return Err(Error::invalid("the message is empty"));
        }
        Ok(TurnInput {
            message: message.to_string(),
            ..TurnInput::default()
        })
    }

    /// Input starting with `{` must be the JSON object; anything else is the message itself
    /// (trailing newlines trimmed). An empty message is an `invalid.request`.
    pub fn parse(text: &str) -> Result<TurnInput> {
        let t = text.trim();
        let input = if t.starts_with('{') {
            let v: serde_json::Value =
                serde_json::from_str(t).map_err(|e| Error::bad_json("turn input", &e))?;
            if !v.get("message").is_some_and(serde_json::Value::is_string) {
                return Err(Error::invalid(
                    "turn input: \"message\" (a string) is required",
                ));
            }
            serde_json::from_value(v).map_err(|e| Error::bad_json("turn input", &e))?
        } else {
            TurnInput {
                message: text.trim_end_matches(['\n', '\r']).to_string(),
                ..TurnInput::default()
            }
        };
        if input.message.trim().is_empty() {
            return Err(Error::invalid("turn input: the message is empty"));
        }
        Ok(input)
    }

    /// What a run request asks of the turn, read as `bob turn` reads its stdin form
    /// ([`crate::contracts::TurnRequest::input`]), so a served, scheduled or eval turn is held
    /// to the same rules as a typed one.
    pub fn of_request(request: &crate::contracts::TurnRequest) -> Result<TurnInput> {
        let text =
            serde_json::to_string(&request.input()).map_err(|e| Error::internal(e.to_string()))?;
        TurnInput::parse(&text)
    }
}
