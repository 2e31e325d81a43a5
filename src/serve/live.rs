//! A run's answer while it streams, for the run's event stream (`GET /v1/runs/{id}/events`):
//! the worker's turn tells [`AnswerSoFar`] each piece of the answering role's text (for panda,
//! the Solver's `final` as it is decoded), and each reader of the stream is sent what of it
//! is safe, as `answer.delta` events `{"event_type":"answer.delta","run_id","text"}` (and
//! `answer.reset` when a later call of the answering role starts over, after a tool round).
//!
//! The promise: no secret the home's redactor knows is ever sent in clear, even split across
//! pieces. Each poll cleans the whole text so far (sanitized, then redacted, as the turn
//! record's answer is) and sends only what lies more than [`window`] characters before its
//! end; that window is at least the longest known secret value (in every form the redactor
//! matches) and at least [`PATTERN_WINDOW`] characters, longer than the provider-key formats
//! of the rule set, so a secret or a pattern match still arriving sits in the held-back tail
//! until it is whole and masked. What was sent must stay a prefix of each later cleaning; if a
//! mask ever reaches back into it (a match longer than the window), the stream stops sending
//! deltas for that call. The held-back tail is never sent: the run's final, audited answer
//! (its turn record) replaces the streamed text when the run ends.

use crate::backend::{LiveEvent, Watch};
use crate::redact::Redactor;
use serde::Serialize;
use std::sync::{Arc, Mutex};

/// Characters always held back, whatever secrets are stored: longer than the token formats of
/// the shipped rules (provider keys, bearer tokens, URL passwords); a PEM private key is
/// masked from its header on, so its length does not matter.
pub(crate) const PATTERN_WINDOW: usize = 256;

/// The answering role's raw text of one run, as it arrives.
#[derive(Debug, Default)]
pub(crate) struct AnswerSoFar {
    /// Counts the answering role's calls (a tool round starts a new one).
    call: u64,
    /// The current call is the answering role's.
    answering: bool,
    raw: String,
}

/// A watch for the run's turn that keeps its answer in `so_far`.
pub(crate) fn watch(so_far: Arc<Mutex<AnswerSoFar>>) -> Watch {
    Watch::new(move |e| {
        let mut a = so_far.lock().unwrap_or_else(|p| p.into_inner());
        match e {
            LiveEvent::Call { answers, .. } => {
                a.answering = *answers;
                if *answers {
                    a.call += 1;
                    a.raw.clear();
                }
            }
            LiveEvent::Text(t) if a.answering => a.raw.push_str(t),
            _ => {}
        }
    })
}

/// Characters held back by `redactor` (see the module docs).
pub(crate) fn window(redactor: &Redactor) -> usize {
    redactor.longest_literal_chars().max(PATTERN_WINDOW)
}

/// One answer event of the run's stream, its data as sent: the event's name (`event_type`)
/// first, then the run, then for a delta the text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "event_type")]
pub(crate) enum AnswerEvent {
    /// The next piece of the answer.
    #[serde(rename = "answer.delta")]
    Delta { run_id: String, text: String },
    /// A later call of the answering role starts the answer over.
    #[serde(rename = "answer.reset")]
    Reset { run_id: String },
}

impl AnswerEvent {
    /// The event's name, as the stream's `event:` line and the data's `event_type` give it.
    pub(crate) fn name(&self) -> &'static str {
        match self {
            AnswerEvent::Delta { .. } => "answer.delta",
            AnswerEvent::Reset { .. } => "answer.reset",
        }
    }
}

/// What one reader of the stream was sent of the answer.
#[derive(Debug, Default)]
pub(crate) struct Sent {
    call: u64,
    text: String,
    stopped: bool,
}

impl Sent {
    /// The events that bring this reader up to date with `so_far`.
    pub(crate) fn next(
        &mut self,
        run_id: &str,
        so_far: &Mutex<AnswerSoFar>,
        redactor: &Redactor,
    ) -> Vec<AnswerEvent> {
        let (call, raw) = {
            let a = so_far.lock().unwrap_or_else(|p| p.into_inner());
            (a.call, a.raw.clone())
        };
        let mut out = Vec::new();
        if call != self.call {
            if !self.text.is_empty() {
                out.push(AnswerEvent::Reset {
                    run_id: run_id.to_string(),
                });
            }
            *self = Sent {
                call,
                ..Sent::default()
            };
        }
        if self.stopped || raw.is_empty() {
            return out;
        }
        let clean = redactor
            .redact_str(&crate::sanitize::sanitize(&raw))
            .into_owned();
        let keep = clean.chars().count().saturating_sub(window(redactor));
        let stable: String = clean.chars().take(keep).collect();
        // A mask shortens the text: what was sent must still begin the cleaned text, and
        // only what lies beyond it and before the window is new.
        if !clean.starts_with(self.text.as_str()) {
            self.stopped = true;
        } else if let Some(new) = stable.strip_prefix(self.text.as_str())
            && !new.is_empty()
        {
            out.push(AnswerEvent::Delta {
                run_id: run_id.to_string(),
                text: new.to_string(),
            });
            self.text = stable;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fed(pieces: &[&str]) -> Arc<Mutex<AnswerSoFar>> {
        let a = Arc::new(Mutex::new(AnswerSoFar::default()));
        let w = watch(a.clone());
        w.tell(&LiveEvent::Call {
            role: "respond",
            answers: true,
        });
        for p in pieces {
            w.tell(&LiveEvent::Text(p));
        }
        a
    }

    #[test]
    fn a_secret_split_across_pieces_is_never_sent_in_clear() {
        let secret = "hunter2-correct-horse-battery-staple";
        let mut r = Redactor::default();
        r.add_literal(secret);
        let filler: String = (0..80).map(|i| format!("w{i} ")).collect();
        let so_far = Arc::new(Mutex::new(AnswerSoFar::default()));
        let w = watch(so_far.clone());
        w.tell(&LiveEvent::Call {
            role: "respond",
            answers: true,
        });
        let text = format!("{filler}the key is {secret} and {filler}");
        let mut sent = Sent::default();
        let mut all = String::new();
        // One character at a time: every split of the secret is seen.
        for c in text.chars() {
            w.tell(&LiveEvent::Text(&c.to_string()));
            for ev in sent.next("r1", &so_far, &r) {
                if let AnswerEvent::Delta { text, .. } = ev {
                    all.push_str(&text);
                }
            }
            assert!(!all.contains(&secret[..8]), "{all}");
        }
        assert!(!all.contains("hunter2"), "{all}");
        assert!(all.contains("[REDACTED]"), "{all}");
        assert!(text.starts_with(&all.replace("[REDACTED]", secret)));
    }

    #[test]
    fn only_the_answering_role_is_streamed_and_a_new_call_resets() {
        let r = Redactor::default();
        let long: String = (0..200).map(|i| format!("x{i} ")).collect();
        let a = fed(&[&long]);
        let mut sent = Sent::default();
        let evs = sent.next("r1", &a, &r);
        assert_eq!(evs.len(), 1);
        assert_eq!(evs[0].name(), "answer.delta");
        let w = watch(a.clone());
        w.tell(&LiveEvent::Call {
            role: "think",
            answers: false,
        });
        w.tell(&LiveEvent::Text("planning text"));
        w.tell(&LiveEvent::Call {
            role: "respond",
            answers: true,
        });
        let evs = sent.next("r1", &a, &r);
        assert_eq!(
            serde_json::to_string(&evs).unwrap(),
            r#"[{"event_type":"answer.reset","run_id":"r1"}]"#
        );
    }
}
