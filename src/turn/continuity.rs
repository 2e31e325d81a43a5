//! Compact continuity (Bob v0 "State commit (minimal)"): every turn updates the state's
//! `active_context` (bob's `episode_summary`) and `open_threads` (`open_loops`), so continuity
//! does not depend on the transcript.
//!
//! * **active_context**: the model's `set_episode_summary` when its NOTES give one; otherwise a
//!   deterministic fallback built from this turn, `Last turn: <request> → <answer>` (each part
//!   one line, cut). Either way at most [`SUMMARY_CHARS`] chars on one line.
//! * **open_threads**: the model's `add_open_loops`/`close_open_loops` as applied by the NOTES
//!   patch; when the turn did not answer (`incomplete`) and the model added none, the request
//!   itself becomes a thread (`unfinished: <request>`). Each thread is one line of at most
//!   [`THREAD_CHARS`] chars, duplicates are dropped, and only the newest [`MAX_THREADS`] are kept.
//!
//! Pure functions: the same inputs give the same state, byte for byte.
//!
//! After every committed turn, [`write_state_json`] leaves Bob v0's compact view of the
//! session's state, `{active_context, open_threads}`, in `sessions/<id>/state.json`.

use crate::condense::truncate_chars;
use crate::contracts::State;
use crate::error::Result;
use crate::home::Home;
use crate::store;
use serde::Serialize;

/// Bob v0's `state.json`: only the compact continuity of the session.
#[derive(Debug, Serialize)]
struct StateJson<'a> {
    active_context: &'a str,
    open_threads: &'a [String],
}

/// Writes `sessions/<id>/state.json` from the session's committed checkpoint: atomically and
/// redacted (through [`store::write_json_atomic`]), under the checkpoint's lock, so two turns
/// committing one after the other leave the later one's state, never an older one.
pub fn write_state_json(home: &Home, session_id: &str) -> Result<()> {
    let cp_path = home.checkpoint_path(session_id)?;
    let _lock = store::Lock::exclusive(&store::lock_path(&cp_path))?;
    let cp = crate::checkpoint::load(home, session_id)?;
    let path = home.session_dir(session_id)?.join("state.json");
    store::write_json_atomic(
        &path,
        &StateJson {
            active_context: &cp.state.episode_summary,
            open_threads: &cp.state.open_loops,
        },
    )
}

/// Longest `episode_summary` (chars).
pub const SUMMARY_CHARS: usize = 400;
/// Longest open thread (chars).
pub const THREAD_CHARS: usize = 200;
/// Most open threads kept (the newest).
pub const MAX_THREADS: usize = 8;

/// Where the turn's continuity came from (traced as `continuity`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// The model's NOTES set the summary.
    Notes,
    /// The deterministic fallback.
    Fallback,
}

impl Source {
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Notes => "notes",
            Source::Fallback => "fallback",
        }
    }
}

/// What one turn contributes.
pub struct TurnFacts<'a> {
    /// The user's message.
    pub request: &'a str,
    /// The visible answer.
    pub answer: &'a str,
    /// The model's NOTES set `episode_summary` this turn.
    pub model_summary: bool,
    /// The model's NOTES added open loops this turn.
    pub model_threads: bool,
    /// The turn ended without answering.
    pub incomplete: bool,
}

fn one_line(s: &str, max: usize) -> String {
    truncate_chars(&s.split_whitespace().collect::<Vec<_>>().join(" "), max)
}

/// Updates `state` after the NOTES patch was applied; returns where the summary came from.
pub fn update(state: &mut State, t: &TurnFacts<'_>) -> Source {
    let source = if t.model_summary && !state.episode_summary.trim().is_empty() {
        Source::Notes
    } else {
        state.episode_summary = format!(
            "Last turn: {} → {}",
            one_line(t.request, 160),
            one_line(t.answer, 200)
        );
        Source::Fallback
    };
    state.episode_summary = one_line(&state.episode_summary, SUMMARY_CHARS);
    if t.incomplete && !t.model_threads {
        state
            .open_loops
            .push(format!("unfinished: {}", one_line(t.request, 160)));
    }
    let mut threads: Vec<String> = Vec::new();
    for l in &state.open_loops {
        let l = one_line(l, THREAD_CHARS);
        if !l.is_empty() && !threads.contains(&l) {
            threads.push(l);
        }
    }
    let extra = threads.len().saturating_sub(MAX_THREADS);
    threads.drain(..extra);
    state.open_loops = threads;
    source
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts<'a>(request: &'a str, answer: &'a str) -> TurnFacts<'a> {
        TurnFacts {
            request,
            answer,
            model_summary: false,
            model_threads: false,
            incomplete: false,
        }
    }

    #[test]
    fn fallback_is_compact_and_deterministic() {
        let mut a = State::default();
        let long = "word ".repeat(500);
        let src = update(&mut a, &facts("what is\n on my list?", &long));
        assert_eq!(src, Source::Fallback);
        assert!(
            a.episode_summary
                .starts_with("Last turn: what is on my list? → word")
        );
        assert!(a.episode_summary.chars().count() <= SUMMARY_CHARS);
        let mut b = State::default();
        update(&mut b, &facts("what is\n on my list?", &long));
        assert_eq!(a, b);
    }

    #[test]
    fn the_models_summary_wins_and_threads_stay_bounded() {
        let mut s = State {
            episode_summary: "planning the trip".into(),
            open_loops: (0..12).map(|i| format!("loop {i}")).collect(),
            ..State::default()
        };
        s.open_loops.push("loop 11".into());
        let mut f = facts("go on", "ok");
        f.model_summary = true;
        assert_eq!(update(&mut s, &f), Source::Notes);
        assert_eq!(s.episode_summary, "planning the trip");
        assert_eq!(s.open_loops.len(), MAX_THREADS);
        assert_eq!(s.open_loops.last().unwrap(), "loop 11");
        let mut f = facts("fix the build", "I stopped.");
        f.incomplete = true;
        update(&mut s, &f);
        assert_eq!(s.open_loops.last().unwrap(), "unfinished: fix the build");
    }
}
