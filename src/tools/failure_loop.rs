//! Openclawssy failure-loop bookkeeping for a tool loop.
//!
//! * Normal: 2 consecutive failing tool results switch on recovery mode (the next model turn
//!   runs in explicit error-recovery mode).
//! * Recovery: every failure counts; the 3rd failure while recovery is active escalates: the
//!   runner must stop and ask the user for guidance, showing the recent attempts, errors and
//!   output snippets carried by [`LoopState::Escalate`]. After an escalation the counter
//!   restarts (recovery stays on), so a user who says "go on" gets 3 more tries.
//! * Recovery clears only after sustained success: [`CLEAR_AFTER_SUCCESSES`] (3) consecutive
//!   successes. A single success in between failures does not clear it.
//!
//! Persisted per session in `sessions/<id>/failure_loop.json` by `bob tool run --session`.

use crate::error::Result;
use crate::home::Home;
use crate::store;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// Consecutive failures that switch on recovery mode.
pub const RECOVERY_AFTER_FAILURES: u32 = 2;
/// Failures while in recovery that escalate to the user.
pub const ESCALATE_AFTER_FAILURES: u32 = 3;
/// Consecutive successes that clear recovery mode.
pub const CLEAR_AFTER_SUCCESSES: u32 = 3;
/// Attempts kept for an escalation report.
pub const KEEP_ATTEMPTS: usize = 6;
/// Cap on an output snippet, in characters.
pub const SNIPPET_CHARS: usize = 400;

/// One tool attempt as remembered for an escalation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AttemptSummary {
    pub request_id: String,
    pub tool: String,
    pub ok: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_code: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The first characters of the output (or error details).
    #[serde(default)]
    pub snippet: String,
    #[serde(default)]
    pub at: String,
}

impl AttemptSummary {
    /// Summarises a response envelope.
    pub fn from_response(r: &crate::contracts::ToolResponse) -> AttemptSummary {
        let source = match (&r.output, &r.error) {
            (Some(o), _) => bounded_json(o),
            (None, Some(e)) if !e.details.is_empty() => bounded_json(&e.details),
            _ => String::new(),
        };
        AttemptSummary {
            request_id: r.request_id.clone(),
            tool: r.tool.clone(),
            ok: r.ok,
            error_code: r.error.as_ref().map(|e| e.code.as_str().to_string()),
            error: r.error.as_ref().map(|e| e.message.clone()),
            snippet: snippet(&source),
            at: r.finished_at.clone(),
        }
    }
}

/// The first [`SNIPPET_CHARS`] characters of `source` once redacted: the cut comes after the
/// redaction, so a secret the cut would split (a PEM block losing its END line, a known value
/// losing its tail) is still recognised whole and masked.
fn snippet(source: &str) -> String {
    crate::redact::before_cut(source)
        .chars()
        .take(SNIPPET_CHARS)
        .collect()
}

/// Bytes of a value's JSON read for a snippet: far more than [`SNIPPET_CHARS`] characters, so
/// that a secret cut by this bound lies well past where the snippet ends even after masks
/// have shortened the text before it.
const SOURCE_BYTES: usize = SNIPPET_CHARS * 4 + 16 * 1024;

/// The first [`SOURCE_BYTES`] of a value's JSON, without serializing all of a large output.
fn bounded_json<T: Serialize>(v: &T) -> String {
    struct Capped(Vec<u8>);
    impl std::io::Write for Capped {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            let room = SOURCE_BYTES.saturating_sub(self.0.len());
            if room == 0 {
                return Err(std::io::Error::other("snippet full"));
            }
            let n = b.len().min(room);
            self.0.extend_from_slice(&b[..n]);
            Ok(n)
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut w = Capped(Vec::new());
    let _ = serde_json::to_writer(&mut w, v);
    String::from_utf8_lossy(&w.0).into_owned()
}

/// What the tool loop must do next.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "lowercase")]
pub enum LoopState {
    Normal,
    Recovery,
    Escalate {
        attempts: Vec<AttemptSummary>,
        errors: Vec<String>,
        snippets: Vec<String>,
    },
}

/// The counters, persisted between turns.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct FailureLoop {
    pub consecutive_failures: u32,
    pub recovery: bool,
    pub recovery_failures: u32,
    pub consecutive_successes: u32,
    pub escalations: u32,
    pub recent: VecDeque<AttemptSummary>,
}

impl FailureLoop {
    /// Records one tool result and returns the state the loop is now in.
    pub fn record(&mut self, ok: bool, attempt: AttemptSummary) -> LoopState {
        self.recent.push_back(attempt);
        while self.recent.len() > KEEP_ATTEMPTS {
            self.recent.pop_front();
        }
        if ok {
            self.consecutive_failures = 0;
            self.consecutive_successes += 1;
            if self.recovery && self.consecutive_successes >= CLEAR_AFTER_SUCCESSES {
                self.recovery = false;
                self.recovery_failures = 0;
            }
            return self.state();
        }
        self.consecutive_successes = 0;
        self.consecutive_failures += 1;
        if self.recovery {
            self.recovery_failures += 1;
            if self.recovery_failures >= ESCALATE_AFTER_FAILURES {
                self.recovery_failures = 0;
                self.escalations += 1;
                let attempts: Vec<AttemptSummary> = self.recent.iter().cloned().collect();
                return LoopState::Escalate {
                    errors: attempts
                        .iter()
                        .filter_map(|a| {
                            a.error.as_ref().map(|e| {
                                format!("{}: {} {e}", a.tool, a.error_code.as_deref().unwrap_or(""))
                            })
                        })
                        .collect(),
                    snippets: attempts
                        .iter()
                        .filter(|a| !a.snippet.is_empty())
                        .map(|a| a.snippet.clone())
                        .collect(),
                    attempts,
                };
            }
        } else if self.consecutive_failures >= RECOVERY_AFTER_FAILURES {
            self.recovery = true;
            self.recovery_failures = 0;
        }
        self.state()
    }

    /// The current state without recording anything (never `Escalate`).
    pub fn state(&self) -> LoopState {
        if self.recovery {
            LoopState::Recovery
        } else {
            LoopState::Normal
        }
    }

    /// Loads a session's loop (default when absent).
    pub fn load(home: &Home, session_id: &str) -> Result<FailureLoop> {
        Ok(
            store::read_json(&home.session_dir(session_id)?.join("failure_loop.json"))?
                .unwrap_or_default(),
        )
    }

    /// Saves a session's loop atomically.
    pub fn save(&self, home: &Home, session_id: &str) -> Result<()> {
        store::write_json_atomic(
            &home.session_dir(session_id)?.join("failure_loop.json"),
            self,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn a(ok: bool) -> AttemptSummary {
        AttemptSummary {
            request_id: "r".into(),
            tool: "fs.read_text".into(),
            ok,
            error_code: (!ok).then(|| "not_found".into()),
            error: (!ok).then(|| "missing".into()),
            snippet: "x".into(),
            at: String::new(),
        }
    }

    #[test]
    fn two_failures_recover_three_more_escalate_three_successes_clear() {
        let mut f = FailureLoop::default();
        assert_eq!(f.record(false, a(false)), LoopState::Normal);
        assert_eq!(f.record(false, a(false)), LoopState::Recovery);
        assert_eq!(f.record(false, a(false)), LoopState::Recovery);
        assert_eq!(f.record(true, a(true)), LoopState::Recovery);
        assert_eq!(f.record(false, a(false)), LoopState::Recovery);
        match f.record(false, a(false)) {
            LoopState::Escalate {
                attempts,
                errors,
                snippets,
            } => {
                assert!(!attempts.is_empty() && !errors.is_empty() && !snippets.is_empty());
            }
            s => panic!("{s:?}"),
        }
        assert_eq!(f.record(true, a(true)), LoopState::Recovery);
        assert_eq!(f.record(true, a(true)), LoopState::Recovery);
        assert_eq!(f.record(true, a(true)), LoopState::Normal);
    }

    #[test]
    fn a_success_between_failures_does_not_start_recovery() {
        let mut f = FailureLoop::default();
        f.record(false, a(false));
        f.record(true, a(true));
        assert_eq!(f.record(false, a(false)), LoopState::Normal);
    }
}
