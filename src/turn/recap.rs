//! Recap (seed 004): a recap question ("what were we just talking about?") or a pronoun-heavy
//! follow-up ("tell me more about that") gets a `Recent conversation summary` system message
//! built from the checkpoint's `recent_messages` and `episode_summary`; a follow-up is also
//! rewritten with the latest topic (the rewrite is traced by the caller). If the model's answer
//! to a recap question ignores the summary, [`fallback`] gives a deterministic recap instead.

use crate::contracts::{ChatMessage, Checkpoint, Role};
use regex::Regex;
use serde::Serialize;
use std::sync::LazyLock;

static RECAP: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?-u:\b)(what(?-u:\s)+were(?-u:\s)+we(?-u:\s)+(just(?-u:\s)+)?(talking|discussing|chatting|saying)(?-u:\s)+about|where(?-u:\s)+were(?-u:\s)+we|what(?-u:\s)+did(?-u:\s)+we(?-u:\s)+(just(?-u:\s)+)?(talk|discuss|say)|remind(?-u:\s)+me(?-u:\s)+what(?-u:\s)+we|recap|summari[sz]e(?-u:\s)+(our|the|this)(?-u:\s)+(conversation|chat|discussion))(?-u:\b)",
    )
    .expect("recap pattern")
});

static FOLLOWUP: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?-u:\b)(tell(?-u:\s)+me(?-u:\s)+more|more(?-u:\s)+about|expand(?-u:\s)+on|elaborate((?-u:\s)+on)?|go(?-u:\s)+on(?-u:\s)+about|explain|what(?-u:\s)+about|why(?-u:\s)+is|how(?-u:\s)+does|go(?-u:\s)+deeper(?-u:\s)+(on|into))(?-u:\b).*(?-u:\b)(this|that|it|those|them|these)(?-u:\b)",
    )
    .expect("follow-up pattern")
});

/// What kind of recap a message asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    Question,
    FollowUp,
}

/// Classifies the user's message.
pub fn classify(message: &str) -> Option<Kind> {
    // Matching on a lower-cased copy keeps the patterns free of case folding, which made
    // them slow to compile on every turn.
    let message = &message.to_lowercase();
    if RECAP.is_match(message) {
        Some(Kind::Question)
    } else if message.split_whitespace().count() <= 14 && FOLLOWUP.is_match(message) {
        Some(Kind::FollowUp)
    } else {
        None
    }
}

/// The summary injected for a recap, and what it was built from.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Recap {
    pub kind: Kind,
    /// The summary text (the system message is `Recent conversation summary:\n` + this).
    pub summary: String,
    /// The latest topic: the last user message before this turn.
    pub topic: String,
    /// For a follow-up: the message rewritten with the topic.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rewritten: Option<String>,
}

fn clip(s: &str, n: usize) -> String {
    let s = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if s.chars().count() <= n {
        s
    } else {
        s.chars().take(n).collect::<String>() + "…"
    }
}

fn last(messages: &[ChatMessage], role: Role) -> Option<&ChatMessage> {
    messages
        .iter()
        .rev()
        .find(|m| m.role == role && !m.content.trim().is_empty())
}

/// Builds the recap for `message`, or `None` when it asks for none or there is nothing to
/// recap (no earlier messages and no episode summary).
pub fn build(message: &str, checkpoint: &Checkpoint) -> Option<Recap> {
    let kind = classify(message)?;
    let msgs = &checkpoint.recent_messages;
    let episode = checkpoint.state.episode_summary.trim();
    let user = last(msgs, Role::User);
    let assistant = last(msgs, Role::Assistant);
    if user.is_none() && episode.is_empty() {
        return None;
    }
    let topic = user.map(|m| clip(&m.content, 200)).unwrap_or_default();
    let mut lines = Vec::new();
    if !topic.is_empty() {
        lines.push(format!("- The user last asked: {topic}"));
    }
    if let Some(a) = assistant {
        lines.push(format!("- Bob answered: {}", clip(&a.content, 300)));
    }
    if !episode.is_empty() {
        lines.push(format!("- Episode summary: {}", clip(episode, 400)));
    }
    let open = &checkpoint.state.open_loops;
    if !open.is_empty() {
        lines.push(format!("- Open loops: {}", clip(&open.join("; "), 200)));
    }
    lines.push("Restate these facts first when answering.".into());
    let rewritten = (kind == Kind::FollowUp && !topic.is_empty())
        .then(|| format!("{message} (referring to the latest topic: {topic})"));
    Some(Recap {
        kind,
        summary: lines.join("\n"),
        topic,
        rewritten,
    })
}

fn keywords(text: &str) -> Vec<String> {
    const STOP: &[&str] = &[
        "about", "there", "their", "which", "would", "could", "should", "these", "those", "where",
        "while", "asked", "answered", "user", "summary", "episode", "latest",
    ];
    let mut k: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() >= 5)
        .map(str::to_lowercase)
        .filter(|w| !STOP.contains(&w.as_str()))
        .collect();
    k.sort();
    k.dedup();
    k
}

/// True when `answer` mentions none of the topic's (or episode summary's) keywords.
pub fn ignored(answer: &str, recap: &Recap, checkpoint: &Checkpoint) -> bool {
    let mut k = keywords(&recap.topic);
    k.extend(keywords(&checkpoint.state.episode_summary));
    if k.is_empty() {
        return false;
    }
    let a = answer.to_lowercase();
    !k.iter().any(|w| a.contains(w.as_str()))
}

/// The deterministic recap given when the model ignored the summary.
pub fn fallback(recap: &Recap, checkpoint: &Checkpoint) -> String {
    let mut s = String::new();
    if !recap.topic.is_empty() {
        s.push_str(&format!(
            "We were just talking about: {}.",
            recap.topic.trim_end_matches(['.', '?', '!'])
        ));
    }
    let episode = checkpoint.state.episode_summary.trim();
    if !episode.is_empty() {
        if !s.is_empty() {
            s.push(' ');
        }
        s.push_str(&format!("Summary so far: {}", clip(episode, 400)));
    }
    if let Some(a) = last(&checkpoint.recent_messages, Role::Assistant) {
        s.push_str(&format!(" My last answer was: {}", clip(&a.content, 300)));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_recap_and_follow_ups() {
        assert_eq!(
            classify("what were we just talking about?"),
            Some(Kind::Question)
        );
        assert_eq!(classify("Where were we"), Some(Kind::Question));
        assert_eq!(classify("tell me more about that"), Some(Kind::FollowUp));
        assert_eq!(classify("can you expand on this?"), Some(Kind::FollowUp));
        assert_eq!(classify("list the files in the sandbox"), None);
    }

    #[test]
    fn builds_summary_from_recent_messages() {
        let cp = Checkpoint {
            recent_messages: vec![
                ChatMessage::new(Role::User, "How do sourdough starters work?"),
                ChatMessage::new(Role::Assistant, "A starter is a culture of wild yeast."),
            ],
            ..Checkpoint::default()
        };
        let r = build("what were we talking about", &cp).unwrap();
        assert!(r.summary.contains("sourdough"));
        assert!(ignored("I like turtles", &r, &cp));
        assert!(!ignored("We discussed sourdough starters", &r, &cp));
        assert!(fallback(&r, &cp).contains("sourdough"));
        assert!(build("what were we talking about", &Checkpoint::default()).is_none());
        let f = build("tell me more about that", &cp).unwrap();
        assert!(f.rewritten.unwrap().contains("sourdough"));
    }
}
