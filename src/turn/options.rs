//! How a turn is run ([`TurnOptions`]): what its caller (`bob turn`, the server's queue, an
//! eval, a schedule) decides before the turn starts.

use super::{Profile, ThinkingMode};
use crate::tools::PolicyOverrides;

/// How to run a turn.
#[derive(Debug, Clone)]
pub struct TurnOptions {
    pub session_id: String,
    pub agent_id: String,
    pub user_id: Option<String>,
    pub profile: Profile,
    pub thinking_mode: ThinkingMode,
    pub expect_revision: Option<u64>,
    /// Stream every LLM call (traced as `llm_stream`).
    pub stream: bool,
    pub max_tool_rounds: usize,
    /// Chat mode (the JSON I/O contracts): mutating tool calls are staged for a human's confirmation
    /// (`requires_confirm`) instead of run; Act mode (false) runs them.
    pub chat_mode: bool,
    /// The run id to use (the server's queue assigns it before the run starts); a fresh
    /// `run_<uuid>` when `None`.
    pub run_id: Option<String>,
    /// Replay seed (`--seed` / `BOB_SEED`): every id the turn draws (run id, audit nonces,
    /// short-term entry and candidate ids) is derived from it, the session and the
    /// checkpoint's revision, and measured durations are recorded as 0, so with `BOB_NOW` and
    /// a replay backend the turn's output, records and files are byte-identical across runs.
    /// The turn's nonce is a function of `(seed, run_id)` too ([`super::nonce`]); random
    /// when `None`.
    pub seed: Option<u64>,
    /// The calling human's tool-policy overrides (sandbox roots, loopback), on top of the
    /// environment and the session's files.
    pub policy: PolicyOverrides,
    /// The settings the turn reads (tool policy, tool protocol).
    pub settings: crate::settings::Settings,
    /// Connections to the home's memory store kept between turns (a long-running process);
    /// `None`: the turn opens the store and closes it when it ends.
    pub memory_pool: Option<std::sync::Arc<crate::memory::MemoryPool>>,
    /// Told of each role call as it starts, the answering role's text as it streams and
    /// every retry, for a live view (`bob turn` on a terminal); `None`: nobody watches.
    pub watch: Option<crate::backend::Watch>,
}
