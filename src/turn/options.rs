//! How a turn is run ([`TurnOptions`]): what its caller (`bob turn`, the server's queue, an
//! eval, a schedule) decides before the turn starts. Every front end describes the turn it
//! wants as a run request ([`TurnRequest`]) and gets its options from
//! [`TurnOptions::for_request`], the one place a request's fields become the turn's options;
//! a new request option is added there once. Only what a process lends the turn (its memory
//! connections, a live view) is set on the options afterwards: it is no part of what was
//! asked and is not written with the request.

use super::{Profile, ThinkingMode};
use crate::contracts::TurnRequest;
use crate::error::{Error, Result};
use crate::tools::PolicyOverrides;

pub use crate::contracts::MAX_TOOL_ROUNDS;

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

impl TurnOptions {
    /// The options of the turn `request` asks for: its session, agent, user, profile,
    /// thinking mode, chat or act mode, the run id a queue gave it, and the caller's knobs
    /// (expected revision, streaming, tool rounds, replay seed, policy overrides). What a
    /// process lends the turn starts empty (the memory store opened per turn, nobody
    /// watching) for the caller to set on the result. An unknown profile or thinking mode is
    /// `invalid.request`.
    pub fn for_request(
        request: &TurnRequest,
        settings: crate::settings::Settings,
    ) -> Result<TurnOptions> {
        let profile = Profile::parse(&request.profile)
            .ok_or_else(|| Error::invalid(format!("unknown profile {:?}", request.profile)))?;
        let thinking_mode = ThinkingMode::parse(&request.thinking_mode).ok_or_else(|| {
            Error::invalid(format!("unknown thinking mode {:?}", request.thinking_mode))
        })?;
        Ok(TurnOptions {
            session_id: request.session_id.clone(),
            agent_id: request.agent_id.clone(),
            user_id: request.user_id.clone(),
            profile,
            thinking_mode,
            expect_revision: request.expect_revision,
            stream: request.stream,
            max_tool_rounds: request.tool_rounds(),
            chat_mode: request.mode.stages_mutations(),
            run_id: request.run_id.clone(),
            seed: request.seed,
            policy: request.policy.clone(),
            settings,
            memory_pool: None,
            watch: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contracts::RunMode;

    fn settings() -> crate::settings::Settings {
        crate::settings::Settings::load(Default::default(), Vec::<(String, String)>::new()).unwrap()
    }

    #[test]
    fn a_request_s_fields_become_the_turn_s_options() {
        let r = TurnRequest::new("http", "agent_a", "s1", "hi")
            .with_user(Some("u".into()))
            .with_thinking_mode("on_error")
            .with_profile("panda")
            .with_mode(RunMode::Chat)
            .queued("run_1", "2026-02-15T10:00:00Z");
        let o = TurnOptions::for_request(&r, settings()).unwrap();
        assert_eq!(
            (
                o.session_id.as_str(),
                o.agent_id.as_str(),
                o.user_id.as_deref()
            ),
            ("s1", "agent_a", Some("u"))
        );
        assert_eq!(
            (o.profile, o.thinking_mode),
            (Profile::Panda, ThinkingMode::OnError)
        );
        assert!(o.chat_mode);
        assert_eq!(o.run_id.as_deref(), Some("run_1"));
        // What only the caller knows starts at its default unless the request says.
        assert_eq!(
            (o.expect_revision, o.stream, o.max_tool_rounds, o.seed),
            (None, false, MAX_TOOL_ROUNDS, None)
        );
        let knobs = r
            .with_expect_revision(Some(3))
            .with_stream(true)
            .with_max_tool_rounds(99)
            .with_seed(Some(7))
            .with_policy(PolicyOverrides {
                allow_loopback: true,
                ..Default::default()
            });
        let o = TurnOptions::for_request(&knobs, settings()).unwrap();
        assert_eq!(
            (o.expect_revision, o.stream, o.max_tool_rounds, o.seed),
            (
                Some(3),
                true,
                crate::contracts::MAX_TOOL_ROUNDS_CAP,
                Some(7)
            )
        );
        assert!(o.policy.allow_loopback);
        let act =
            TurnOptions::for_request(&TurnRequest::new("cli", "a", "s", "m"), settings()).unwrap();
        assert!(!act.chat_mode && act.run_id.is_none());
        assert_eq!(
            (act.profile, act.thinking_mode),
            (Profile::Bob, ThinkingMode::Never)
        );
    }

    #[test]
    fn an_unknown_profile_or_thinking_mode_is_invalid() {
        for r in [
            TurnRequest::new("http", "a", "s", "m").with_profile("robot"),
            TurnRequest::new("http", "a", "s", "m").with_thinking_mode("sometimes"),
        ] {
            let e = TurnOptions::for_request(&r, settings()).unwrap_err();
            assert_eq!(e.code.as_str(), "invalid.request", "{e:?}");
        }
    }
}
