//! Deterministic condensation of a message list to the context caps of Openclawssy.
//!
//! [`condense`] is a pure function: the same messages, caps and mode give the same output, byte
//! for byte. Lengths are counted in Unicode scalar values (`char`s), never bytes, and every cut
//! falls on a char boundary. A cut text ends in `…` (one char, counted inside the cap).
//!
//! The steps, in order:
//!
//! 1. **Tool messages** (`role:"tool"`) are normalized into concise context text:
//!    `tool <name> result (<id>)` on the first line, then `status: ok|failed`, and the
//!    `summary:` (≤ [`Caps::tool_summary`]), `error:` (≤ [`Caps::tool_error`]) and `output:`
//!    (≤ [`Caps::tool_output`]) excerpts. The content may be the Spectator tool message
//!    `{id, tool, ok, output, error}`, an Openclawssy response envelope
//!    `{request_id, tool, ok, output, error, …}`, or plain text (kept as the output excerpt;
//!    name and id then come from the message's `name` / `tool_call_id`). Text that already
//!    starts with `tool ` is taken as normalized and left alone, which keeps condensing
//!    idempotent.
//! 2. **Per-message cap**: every message's content is cut to [`Caps::per_message`].
//! 3. **Total cap** on the sum of content lengths. [`Mode::Pressure`] acts only when the sum is
//!    over [`Caps::total`]; [`Mode::Force`] (the `condense_now` action) condenses to half of it
//!    now, leaving room for the turns to come. Over budget, the OLDEST messages are dropped first
//!    so the latest turns and recent tool results stay; the kept messages are always a suffix of
//!    the input. A leading system message (index 0) is always kept, cut to the budget if it
//!    alone exceeds it, because it is the authoritative prompt. When even the newest message
//!    does not fit in what remains, it is cut to fit (if at least [`MIN_CAP`] chars remain)
//!    rather than lost. Tool results at the start of the kept suffix (their assistant turn was
//!    dropped) are dropped too, so no orphan `tool` message reaches an OpenAI-compatible backend.
//!
//! Caps below [`MIN_CAP`] are raised to it, so a cut tool message keeps its `tool ` prefix.

use crate::contracts::{ChatMessage, Role};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The smallest cap honoured; smaller caps are raised to this.
pub const MIN_CAP: usize = 16;

/// What a cut text ends with (one char, counted inside the cap).
pub const ELLIPSIS: char = '…';

/// Openclawssy truncation caps, in chars.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Caps {
    /// Cap on every message's content (1400).
    pub per_message: usize,
    /// Cap on a tool result's summary excerpt (220).
    pub tool_summary: usize,
    /// Cap on a tool result's error excerpt (320).
    pub tool_error: usize,
    /// Cap on a tool result's output excerpt (1000).
    pub tool_output: usize,
    /// Cap on the sum of all message contents (12000).
    pub total: usize,
}

impl Default for Caps {
    fn default() -> Self {
        Caps {
            per_message: 1400,
            tool_summary: 220,
            tool_error: 320,
            tool_output: 1000,
            total: 12000,
        }
    }
}

impl Caps {
    /// The caps as applied: each raised to at least [`MIN_CAP`] (`total` is not raised).
    pub fn effective(&self) -> Caps {
        Caps {
            per_message: self.per_message.max(MIN_CAP),
            tool_summary: self.tool_summary.max(MIN_CAP),
            tool_error: self.tool_error.max(MIN_CAP),
            tool_output: self.tool_output.max(MIN_CAP),
            total: self.total,
        }
    }
}

/// When the total cap applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Drop old messages only when the total is over [`Caps::total`].
    Pressure,
    /// Condense now to half of [`Caps::total`] (the `condense_now` action).
    Force,
}

impl Mode {
    /// The total budget this mode condenses to.
    pub fn target(self, caps: &Caps) -> usize {
        match self {
            Mode::Pressure => caps.total,
            Mode::Force => caps.total / 2,
        }
    }
}

/// A message removed to meet the total cap.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Dropped {
    /// Index in the input list.
    pub index: usize,
    pub role: Role,
    /// Length of its original content, in chars.
    pub chars: usize,
}

/// The result of [`condense`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Condensed {
    /// The kept messages, in their original order.
    pub messages: Vec<ChatMessage>,
    /// Messages dropped to meet the total cap, oldest first.
    pub dropped: Vec<Dropped>,
    /// Input indices of kept messages whose content was cut or rewritten.
    pub truncated: Vec<usize>,
    /// Sum of the kept contents' lengths, in chars.
    pub total_chars: usize,
}

/// Number of chars in `s`.
pub fn char_len(s: &str) -> usize {
    s.chars().count()
}

/// `s` cut to at most `max` chars; a cut text ends in [`ELLIPSIS`].
pub fn truncate_chars(s: &str, max: usize) -> String {
    if max == 0 {
        return String::new();
    }
    match s.char_indices().nth(max) {
        None => s.to_string(),
        Some(_) => {
            // Keep max-1 chars and the ellipsis.
            let end = s.char_indices().nth(max - 1).map_or(s.len(), |(i, _)| i);
            let mut out = String::with_capacity(end + ELLIPSIS.len_utf8());
            out.push_str(&s[..end]);
            out.push(ELLIPSIS);
            out
        }
    }
}

fn value_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn error_text(v: &Value) -> Option<String> {
    match v {
        Value::Null => None,
        Value::String(s) if s.is_empty() => None,
        Value::Object(m) => {
            let code = m.get("code").and_then(Value::as_str);
            let msg = m.get("message").and_then(Value::as_str);
            Some(match (code, msg) {
                (Some(c), Some(msg)) => format!("{c}: {msg}"),
                (None, Some(msg)) => msg.to_string(),
                _ => v.to_string(),
            })
        }
        other => Some(value_text(other)),
    }
}

/// One-line, space-free rendering of a header field.
fn header_field(s: &str) -> String {
    let s: String = s
        .chars()
        .map(|c| if c.is_whitespace() { '_' } else { c })
        .collect();
    truncate_chars(&s, 64)
}

/// The concise context text of one tool result (the chat context caps): `tool <name> result (<id>)` and
/// the status, summary, error and output excerpts, each within its cap. `name` and `id` are the
/// message's own `name` / `tool_call_id`, used when the content does not carry them.
pub fn tool_context_text(
    content: &str,
    name: Option<&str>,
    id: Option<&str>,
    caps: &Caps,
) -> String {
    let caps = caps.effective();
    let parsed = match serde_json::from_str::<Value>(content.trim()) {
        Ok(Value::Object(m)) => Some(m),
        _ => None,
    };
    let Some(obj) = parsed else {
        let mut out = format!(
            "tool {} result ({})",
            header_field(name.unwrap_or("unknown")),
            header_field(id.unwrap_or("-"))
        );
        let body = content.trim();
        if !body.is_empty() {
            out.push_str("\noutput: ");
            out.push_str(&truncate_chars(body, caps.tool_output));
        }
        return out;
    };
    let str_field = |keys: &[&str]| {
        keys.iter()
            .find_map(|k| {
                obj.get(*k)
                    .and_then(Value::as_str)
                    .filter(|s| !s.is_empty())
            })
            .map(str::to_string)
    };
    let tool = str_field(&["tool", "name"])
        .or_else(|| name.map(str::to_string))
        .unwrap_or_else(|| "unknown".into());
    let call_id = str_field(&["id", "request_id", "tool_call_id"])
        .or_else(|| id.map(str::to_string))
        .unwrap_or_else(|| "-".into());
    let error = obj.get("error").and_then(error_text);
    let ok = obj
        .get("ok")
        .and_then(Value::as_bool)
        .unwrap_or(error.is_none());
    let output = obj.get("output").filter(|v| !v.is_null());
    let summary = str_field(&["summary"]).or_else(|| {
        output
            .and_then(|o| o.get("summary"))
            .and_then(Value::as_str)
            .map(str::to_string)
    });
    let mut out = format!(
        "tool {} result ({})\nstatus: {}",
        header_field(&tool),
        header_field(&call_id),
        if ok { "ok" } else { "failed" }
    );
    if let Some(s) = summary.filter(|s| !s.trim().is_empty()) {
        out.push_str("\nsummary: ");
        out.push_str(&truncate_chars(s.trim(), caps.tool_summary));
    }
    if let Some(e) = error {
        out.push_str("\nerror: ");
        out.push_str(&truncate_chars(e.trim(), caps.tool_error));
    }
    if let Some(o) = output {
        let text = value_text(o);
        if !text.trim().is_empty() {
            out.push_str("\noutput: ");
            out.push_str(&truncate_chars(text.trim(), caps.tool_output));
        }
    }
    out
}

/// True when a tool message's content is already concise context text.
fn is_normalized(content: &str) -> bool {
    content.starts_with("tool ")
}

/// Condenses `messages` to `caps` (see the module docs for the rules). Pure and deterministic.
pub fn condense(messages: &[ChatMessage], caps: &Caps, mode: Mode) -> Condensed {
    let caps = caps.effective();
    let target = mode.target(&caps);

    // Steps 1 and 2: normalize tool messages, cap every message.
    let mut shaped: Vec<(ChatMessage, usize)> = messages
        .iter()
        .map(|m| {
            let mut m = m.clone();
            if m.role == Role::Tool && !is_normalized(&m.content) {
                m.content = tool_context_text(
                    &m.content,
                    m.name.as_deref(),
                    m.tool_call_id.as_deref(),
                    &caps,
                );
            }
            m.content = truncate_chars(&m.content, caps.per_message);
            let len = char_len(&m.content);
            (m, len)
        })
        .collect();

    // Step 3: the total cap.
    let total: usize = shaped.iter().map(|(_, n)| n).sum();
    let mut keep_from = 0; // first kept index after the leading system message
    let has_system = shaped.first().is_some_and(|(m, _)| m.role == Role::System);
    if total > target {
        let mut remaining = target;
        let start = usize::from(has_system);
        if has_system {
            let (m, n) = &mut shaped[0];
            if *n > remaining {
                m.content = truncate_chars(&m.content, remaining);
                *n = char_len(&m.content);
            }
            remaining -= *n;
        }
        let last = shaped.len().saturating_sub(1);
        keep_from = shaped.len();
        for i in (start..shaped.len()).rev() {
            let (m, n) = &mut shaped[i];
            if *n <= remaining {
                remaining -= *n;
                keep_from = i;
            } else {
                if i == last && remaining >= MIN_CAP {
                    m.content = truncate_chars(&m.content, remaining);
                    *n = char_len(&m.content);
                    keep_from = i;
                }
                break;
            }
        }
        keep_from = keep_from.max(start);
        // A tool result whose assistant turn was dropped would be an orphan that
        // OpenAI-compatible backends reject: drop it too (it is among the oldest kept).
        while keep_from < last && shaped[keep_from].0.role == Role::Tool {
            keep_from += 1;
        }
    }

    let mut out = Condensed {
        messages: Vec::new(),
        dropped: Vec::new(),
        truncated: Vec::new(),
        total_chars: 0,
    };
    for (i, ((m, n), orig)) in shaped.into_iter().zip(messages).enumerate() {
        let kept = (i == 0 && has_system) || i >= keep_from;
        if kept {
            if m.content != orig.content {
                out.truncated.push(i);
            }
            out.total_chars += n;
            out.messages.push(m);
        } else {
            out.dropped.push(Dropped {
                index: i,
                role: orig.role,
                chars: char_len(&orig.content),
            });
        }
    }
    out
}

/// A session's history condensed in place ([`session`]): the result, and the revision the
/// checkpoint is at afterwards.
#[derive(Debug, Clone, Serialize)]
pub struct SessionCondensed {
    #[serde(flatten)]
    pub result: Condensed,
    pub session_id: String,
    pub revision: u64,
}

/// Condenses the recent messages of session `id` and commits them as a new revision. When
/// nothing would change (and `expect_revision`, if given, is the current one) nothing is
/// written. `not_found` when the session has no checkpoint; `conflict` on a stale
/// `expect_revision`.
pub fn session(
    home: &crate::home::Home,
    id: &str,
    expect_revision: Option<u64>,
    caps: &Caps,
    mode: Mode,
) -> crate::error::Result<SessionCondensed> {
    let Some(cp) = crate::checkpoint::load_existing(home, id)? else {
        return Err(
            crate::error::Error::not_found(format!("session {id:?} has no checkpoint"))
                .with("session_id", id),
        );
    };
    let preview = condense(&cp.recent_messages, caps, mode);
    let unchanged = preview.messages == cp.recent_messages;
    let (revision, result) = if unchanged && expect_revision.is_none_or(|r| r == cp.revision) {
        (cp.revision, preview)
    } else {
        let (cp, result) = crate::checkpoint::update(home, id, expect_revision, |cp| {
            let c = condense(&cp.recent_messages, caps, mode);
            cp.recent_messages = c.messages.clone();
            Ok(c)
        })?;
        (cp.revision, result)
    };
    Ok(SessionCondensed {
        result,
        session_id: id.to_string(),
        revision,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    fn msg(role: Role, content: &str) -> ChatMessage {
        ChatMessage::new(role, content)
    }

    #[test]
    fn truncate_counts_chars_and_cuts_on_boundaries() {
        assert_eq!(truncate_chars("héllo", 5), "héllo");
        assert_eq!(truncate_chars("héllo", 3), "hé…");
        assert_eq!(truncate_chars("日本語テキスト", 4), "日本語…");
        assert_eq!(truncate_chars("abc", 0), "");
        assert_eq!(truncate_chars("abc", 1), "…");
    }

    #[test]
    fn small_history_is_untouched_in_pressure_mode() {
        let msgs = vec![msg(Role::System, "sys"), msg(Role::User, "hi")];
        let c = condense(&msgs, &Caps::default(), Mode::Pressure);
        assert_eq!(c.messages, msgs);
        assert!(c.dropped.is_empty() && c.truncated.is_empty());
        assert_eq!(c.total_chars, 5);
    }

    #[test]
    fn per_message_cap_applies_in_chars() {
        let long = "é".repeat(2000);
        let c = condense(&[msg(Role::User, &long)], &Caps::default(), Mode::Pressure);
        assert_eq!(char_len(&c.messages[0].content), 1400);
        assert!(c.messages[0].content.ends_with(ELLIPSIS));
        assert_eq!(c.truncated, vec![0]);
    }

    #[test]
    fn oldest_dropped_first_system_and_latest_kept() {
        let mut msgs = vec![msg(Role::System, "rules")];
        for i in 0..20 {
            msgs.push(msg(Role::User, &format!("{i:02}{}", "x".repeat(998))));
        }
        let c = condense(&msgs, &Caps::default(), Mode::Pressure);
        assert!(c.total_chars <= 12000);
        assert_eq!(c.messages[0].content, "rules");
        assert_eq!(c.messages.len(), 12); // system + 11 newest (11 * 1000 + 5)
        assert!(c.messages.last().unwrap().content.starts_with("19"));
        assert_eq!(c.dropped.first().unwrap().index, 1);
        assert_eq!(c.dropped.len(), 9);
        assert!(c.dropped.windows(2).all(|w| w[0].index < w[1].index));
    }

    #[test]
    fn force_condenses_to_half_the_total() {
        let msgs: Vec<_> = (0..10)
            .map(|i| msg(Role::User, &format!("{i}{}", "y".repeat(999))))
            .collect();
        let p = condense(&msgs, &Caps::default(), Mode::Pressure);
        assert!(p.dropped.is_empty());
        let f = condense(&msgs, &Caps::default(), Mode::Force);
        assert!(f.total_chars <= 6000);
        assert_eq!(f.messages.len(), 6);
        assert!(f.messages[5].content.starts_with('9'));
    }

    #[test]
    fn seed000_tool_message_is_normalized() {
        let content = json!({"id":"t1","tool":"fs.list_dir","ok":true,
            "output":{"entries":["a".repeat(3000)]},"error":null})
        .to_string();
        let c = condense(
            &[msg(Role::Tool, &content)],
            &Caps::default(),
            Mode::Pressure,
        );
        let text = &c.messages[0].content;
        assert!(text.starts_with("tool fs.list_dir result (t1)\nstatus: ok\noutput: {"));
        assert!(char_len(text) <= 1400);
        let out_line = text.lines().find(|l| l.starts_with("output: ")).unwrap();
        assert_eq!(char_len(out_line), "output: ".len() + 1000);
    }

    #[test]
    fn seed003_envelope_error_is_normalized() {
        let content = json!({"request_id":"req_1","run_id":"r","tool":"fs.write","ok":false,
            "error":{"code":"policy.denied","message":"write outside workspace".repeat(40)},
            "duration_ms":3,"finished_at":"2026-02-15T00:00:00Z"})
        .to_string();
        let c = condense(
            &[msg(Role::Tool, &content)],
            &Caps::default(),
            Mode::Pressure,
        );
        let text = &c.messages[0].content;
        assert!(text.starts_with(
            "tool fs.write result (req_1)\nstatus: failed\nerror: policy.denied: write"
        ));
        let err_line = text.lines().find(|l| l.starts_with("error: ")).unwrap();
        assert_eq!(char_len(err_line), "error: ".len() + 320);
    }

    #[test]
    fn plain_text_tool_content_uses_message_name_and_id() {
        let mut m = msg(Role::Tool, "total 0\ndrwx .");
        m.name = Some("shell.exec".into());
        m.tool_call_id = Some("call 9".into());
        let c = condense(&[m], &Caps::default(), Mode::Pressure);
        assert_eq!(
            c.messages[0].content,
            "tool shell.exec result (call_9)\noutput: total 0\ndrwx ."
        );
    }

    #[test]
    fn summary_comes_from_output() {
        let content = json!({"id":"t","tool":"http.get","ok":true,
            "output":{"summary":"fetched 3 pages","body":"…"}})
        .to_string();
        let text = tool_context_text(&content, None, None, &Caps::default());
        assert!(text.contains("\nsummary: fetched 3 pages\n"));
    }

    #[test]
    fn no_orphan_tool_results_after_dropping() {
        let caps = Caps {
            total: 200,
            ..Caps::default()
        };
        let mut call = msg(Role::Assistant, &"c".repeat(150));
        call.tool_calls = Some(json!([{"id":"c1","type":"function"}]));
        let mut result = msg(Role::Tool, "tool fs.read_text result (c1)\nstatus: ok");
        result.tool_call_id = Some("c1".into());
        let msgs = vec![call, result, msg(Role::User, &"u".repeat(150))];
        let c = condense(&msgs, &caps, Mode::Pressure);
        assert_eq!(c.messages.len(), 1);
        assert_eq!(c.messages[0].role, Role::User);
        assert_eq!(
            c.dropped.iter().map(|d| d.index).collect::<Vec<_>>(),
            [0, 1]
        );
    }

    #[test]
    fn newest_message_cut_to_fit_rather_than_lost() {
        let caps = Caps {
            total: 100,
            ..Caps::default()
        };
        let msgs = vec![
            msg(Role::User, &"a".repeat(50)),
            msg(Role::User, &"b".repeat(500)),
        ];
        let c = condense(&msgs, &caps, Mode::Pressure);
        assert_eq!(c.messages.len(), 1);
        assert_eq!(char_len(&c.messages[0].content), 100);
        assert_eq!(c.dropped[0].index, 0);
        assert_eq!(c.truncated, vec![1]);
    }

    fn arb_role() -> impl Strategy<Value = Role> {
        prop_oneof![
            Just(Role::System),
            Just(Role::User),
            Just(Role::Assistant),
            Just(Role::Tool)
        ]
    }

    fn arb_content() -> impl Strategy<Value = String> {
        prop_oneof![
            ".{0,300}",
            "[a-zé日 \n]{0,3000}",
            (".{0,20}", ".{0,400}", any::<bool>()).prop_map(|(t, o, ok)| json!({
                "id": "t1", "tool": t, "ok": ok, "output": o,
                "error": if ok { Value::Null } else { json!({"code":"timeout","message":o}) }
            })
            .to_string()),
        ]
    }

    fn arb_caps() -> impl Strategy<Value = Caps> {
        (
            0usize..2000,
            0usize..300,
            0usize..400,
            0usize..1200,
            0usize..15000,
        )
            .prop_map(
                |(per_message, tool_summary, tool_error, tool_output, total)| Caps {
                    per_message,
                    tool_summary,
                    tool_error,
                    tool_output,
                    total,
                },
            )
    }

    fn arb_messages() -> impl Strategy<Value = Vec<ChatMessage>> {
        prop::collection::vec(
            (
                arb_role(),
                arb_content(),
                proptest::option::of("[a-z.]{1,12}"),
            )
                .prop_map(|(role, content, name)| {
                    let mut m = ChatMessage::new(role, content);
                    m.name = name;
                    m
                }),
            0..25,
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        #[test]
        fn output_fits_caps_and_is_idempotent(
            msgs in arb_messages(),
            caps in arb_caps(),
            force in any::<bool>(),
        ) {
            let mode = if force { Mode::Force } else { Mode::Pressure };
            let eff = caps.effective();
            let c = condense(&msgs, &caps, mode);
            prop_assert!(c.total_chars <= mode.target(&eff));
            prop_assert_eq!(
                c.total_chars,
                c.messages.iter().map(|m| char_len(&m.content)).sum::<usize>()
            );
            for m in &c.messages {
                prop_assert!(char_len(&m.content) <= eff.per_message);
            }
            prop_assert_eq!(c.messages.len() + c.dropped.len(), msgs.len());
            // Deterministic.
            prop_assert_eq!(&condense(&msgs, &caps, mode), &c);
            // Idempotent.
            let again = condense(&c.messages, &caps, mode);
            prop_assert_eq!(&again.messages, &c.messages);
            prop_assert!(again.dropped.is_empty());
            prop_assert!(again.truncated.is_empty());
        }
    }
}
