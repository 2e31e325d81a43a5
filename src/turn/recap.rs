//! Recap (the JSON I/O contracts): a recap question ("what were we just talking about?") or a pronoun-heavy
//! follow-up ("tell me more about that") gets a `Recent conversation summary` system message
//! built from the checkpoint's `recent_messages` and `episode_summary`; a follow-up is also
//! rewritten with the latest topic (the rewrite is traced by the caller). If the model's answer
//! to a recap question ignores the summary, [`fallback`] gives a deterministic recap instead.

use crate::contracts::{ChatMessage, Checkpoint, Role};
use serde::Serialize;

/// Recap questions. Each phrase is a sequence of words separated by ASCII whitespace; a word
/// may list alternatives with `|`; a phrase matches whole words only.
const RECAP_PHRASES: &[&str] = &[
    "what were we talking|discussing|chatting|saying about",
    "what were we just talking|discussing|chatting|saying about",
    "where were we",
    "what did we talk|discuss|say",
    "what did we just talk|discuss|say",
    "remind me what we",
    "recap",
    "summarise|summarize our|the|this conversation|chat|discussion",
];

/// Follow-up requests; a follow-up also needs a [`PRONOUNS`] word after the phrase, on the
/// same line.
const FOLLOWUP_PHRASES: &[&str] = &[
    "tell me more",
    "more about",
    "expand on",
    "elaborate",
    "go on about",
    "explain",
    "what about",
    "why is",
    "how does",
    "go deeper on|into",
];

const PRONOUNS: &str = "this|that|it|those|them|these";

/// What kind of recap a message asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    Question,
    FollowUp,
}

impl Kind {
    /// The name it is serialized as.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Question => "question",
            Kind::FollowUp => "follow_up",
        }
    }
}

/// The words of a text: maximal runs of ASCII word bytes (`[0-9A-Za-z_]`), as byte ranges,
/// the same words an ASCII `\b` delimits.
fn words(text: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < text.len() {
        if is_word(text[i]) {
            let s = i;
            while i < text.len() && is_word(text[i]) {
                i += 1;
            }
            out.push((s, i));
        } else {
            i += 1;
        }
    }
    out
}

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// ASCII `\s`: space, tab, newline, vertical tab, form feed, carriage return.
fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r')
}

fn one_of(alternatives: &str, word: &[u8]) -> bool {
    alternatives.split('|').any(|a| a.as_bytes() == word)
}

/// If `phrase` matches the words starting at index `at`, the index of its last word.
fn phrase_at(text: &[u8], ws: &[(usize, usize)], at: usize, phrase: &str) -> Option<usize> {
    let mut k = at;
    for (n, alternatives) in phrase.split(' ').enumerate() {
        let &(s, e) = ws.get(k)?;
        if n > 0 && !text[ws[k - 1].1..s].iter().all(|&b| is_space(b)) {
            return None;
        }
        if !one_of(alternatives, &text[s..e]) {
            return None;
        }
        k += 1;
    }
    Some(k - 1)
}

/// Classifies the user's message. A hand-written matcher over whole words (no regex to
/// compile on every turn).
pub fn classify(message: &str) -> Option<Kind> {
    let lower = message.to_lowercase();
    let text = lower.as_bytes();
    let ws = words(text);
    let any = |phrases: &[&str], at: usize| {
        phrases
            .iter()
            .filter_map(|p| phrase_at(text, &ws, at, p))
            .min()
    };
    if (0..ws.len()).any(|i| any(RECAP_PHRASES, i).is_some()) {
        return Some(Kind::Question);
    }
    if lower.split_whitespace().count() > 14 {
        return None;
    }
    for i in 0..ws.len() {
        let Some(last) = any(FOLLOWUP_PHRASES, i) else {
            continue;
        };
        let end = ws[last].1;
        for &(s, e) in &ws[last + 1..] {
            if text[end..s].contains(&b'\n') {
                break;
            }
            if one_of(PRONOUNS, &text[s..e]) {
                return Some(Kind::FollowUp);
            }
        }
    }
    None
}

/// The summary injected for a recap, and what it was built from.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Recap {
    pub kind: Kind,
    /// The summary text (the system message is `Recent conversation summary:\n` + this).
    pub summary: String,
    /// The latest topic: the last user message before this turn that was not itself a recap
    /// question (asking "what were we talking about?" twice keeps the topic).
    pub topic: String,
    /// For a follow-up: the message rewritten with the topic.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rewritten: Option<String>,
}

/// `s` on one line, redacted, then cut to `n` characters (the recap is stored).
fn clip(s: &str, n: usize) -> String {
    let s = crate::redact::before_cut(s);
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
    // The topic is the last exchange's subject, not a recap question asked since.
    let topic = msgs
        .iter()
        .rev()
        .find(|m| {
            m.role == Role::User
                && !m.content.trim().is_empty()
                && classify(&m.content) != Some(Kind::Question)
        })
        .map(|m| clip(&m.content, 200))
        .unwrap_or_default();
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
    use proptest::strategy::Strategy;

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
        assert_eq!(classify("Could you RECAP?"), Some(Kind::Question));
        assert_eq!(classify("recaps"), None);
        assert_eq!(classify("somewhat were we"), None);
        assert_eq!(classify("summarize the chat"), Some(Kind::Question));
        assert_eq!(classify("explain\nthat"), None);
        assert_eq!(classify("explain, please, that"), Some(Kind::FollowUp));
        assert_eq!(classify("what.were we talking about"), None);
        assert_eq!(classify("elaborate on it"), Some(Kind::FollowUp));
        assert_eq!(classify("why is the sky blue"), None);
    }

    /// The regexes the matcher replaced: it must agree with them on every input.
    fn by_regex(message: &str) -> Option<Kind> {
        let recap = regex::Regex::new(
            r"(?-u:\b)(what(?-u:\s)+were(?-u:\s)+we(?-u:\s)+(just(?-u:\s)+)?(talking|discussing|chatting|saying)(?-u:\s)+about|where(?-u:\s)+were(?-u:\s)+we|what(?-u:\s)+did(?-u:\s)+we(?-u:\s)+(just(?-u:\s)+)?(talk|discuss|say)|remind(?-u:\s)+me(?-u:\s)+what(?-u:\s)+we|recap|summari[sz]e(?-u:\s)+(our|the|this)(?-u:\s)+(conversation|chat|discussion))(?-u:\b)",
        )
        .unwrap();
        let followup = regex::Regex::new(
            r"(?-u:\b)(tell(?-u:\s)+me(?-u:\s)+more|more(?-u:\s)+about|expand(?-u:\s)+on|elaborate((?-u:\s)+on)?|go(?-u:\s)+on(?-u:\s)+about|explain|what(?-u:\s)+about|why(?-u:\s)+is|how(?-u:\s)+does|go(?-u:\s)+deeper(?-u:\s)+(on|into))(?-u:\b).*(?-u:\b)(this|that|it|those|them|these)(?-u:\b)",
        )
        .unwrap();
        let m = message.to_lowercase();
        if recap.is_match(&m) {
            Some(Kind::Question)
        } else if m.split_whitespace().count() <= 14 && followup.is_match(&m) {
            Some(Kind::FollowUp)
        } else {
            None
        }
    }

    proptest::proptest! {
        #[test]
        fn matcher_agrees_with_the_regexes(parts in proptest::collection::vec(
            proptest::prop_oneof![
                proptest::sample::select(vec![
                    "what", "were", "we", "just", "talking", "about", "where", "did", "talk",
                    "say", "remind", "me", "recap", "summarise", "summarize", "our", "the",
                    "conversation", "chat", "tell", "more", "expand", "on", "elaborate", "go",
                    "explain", "why", "is", "how", "does", "deeper", "into", "this", "that",
                    "it", "those", "them", "these", "What", "RECAP", "x", "_", "9", "é", "\u{212a}", "İ", "summa", "rize",
                ]).prop_map(str::to_string),
                proptest::sample::select(vec![
                    " ", "  ", "\t", "\n", "\x0b", "\x0c", "\r", ",", ".", "-", "'", "\u{a0}", "",
                ]).prop_map(str::to_string),
            ],
            0..24,
        )) {
            let message = parts.concat();
            proptest::prop_assert_eq!(classify(&message), by_regex(&message), "{:?}", message);
        }
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
        // A recap question asked since is not the topic.
        let mut cp = cp;
        cp.recent_messages.extend([
            ChatMessage::new(Role::User, "what were we just talking about?"),
            ChatMessage::new(Role::Assistant, "Sourdough starters."),
        ]);
        let f = build("tell me more about that", &cp).unwrap();
        assert!(f.topic.contains("sourdough"), "{}", f.topic);
        assert!(f.rewritten.unwrap().contains("sourdough"));
    }
}
