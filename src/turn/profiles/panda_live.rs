//! The user's view of a panda Solver reply while it streams: the Solver answers with one JSON
//! object, and only its top-level `final` string is the answer. [`FinalText`] reads the reply
//! piece by piece as it arrives and gives back the decoded characters of `final` as soon as
//! they are known, so a terminal can show the answer before the object is complete.
//!
//! The promise: the concatenation of what [`FinalText::push`] returns is a prefix of the
//! `final` value serde reads from the whole reply (escapes decoded, a surrogate pair joined),
//! whatever the split of the reply into pieces. A reply that does not open with `{` (after
//! whitespace and a ```json fence) is not a panda object: it is read like any role's text, so
//! it passes through as it is. Other keys (`analysis` above all) are never given back.

/// Where the scanner is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum At {
    /// Before the object: whitespace and a code fence are skipped.
    Start,
    /// The reply is not a JSON object: everything passes through.
    Plain,
    /// Inside the object (`depth` counts brackets), outside any string.
    Object,
    /// Inside a string; `key`: it is a top-level key; `answer`: it is the `final` value.
    Str { key: bool, answer: bool },
    /// The object ended: nothing more is the answer.
    Done,
}

/// Decodes a streamed panda Solver reply's `final` string (see the module docs).
#[derive(Debug)]
pub struct FinalText {
    at: At,
    depth: usize,
    /// At depth 1, the next string is a key (after `{` or `,`), not a value (after `:`).
    expect_key: bool,
    /// The last top-level key read, and the one being read.
    key: String,
    /// The current value is the top-level `final`.
    in_final_value: bool,
    /// `final` was read once: a second one is not shown (serde keeps the last; the whole
    /// answer is printed again at the end if they differ).
    final_seen: bool,
    /// An escape in progress: after `\`, or the hex digits of `\u` read so far.
    escape: Option<String>,
    /// A high surrogate waiting for its low half.
    high: Option<u16>,
    /// Start-of-reply text not yet known to be a fence or the object.
    lead: String,
}

impl Default for FinalText {
    fn default() -> Self {
        FinalText {
            at: At::Start,
            depth: 0,
            expect_key: true,
            key: String::new(),
            in_final_value: false,
            final_seen: false,
            escape: None,
            high: None,
            lead: String::new(),
        }
    }
}

impl FinalText {
    /// Reads the next piece of the reply; returns the answer text it completes.
    pub fn push(&mut self, piece: &str) -> String {
        let mut out = String::new();
        for c in piece.chars() {
            self.step(c, &mut out);
        }
        out
    }

    fn step(&mut self, c: char, out: &mut String) {
        match self.at {
            At::Done => {}
            At::Plain => out.push(c),
            At::Start => {
                self.lead.push(c);
                let t = self.lead.trim_start();
                if t.is_empty() {
                    return;
                }
                if t.starts_with('{') {
                    self.at = At::Object;
                    self.depth = 1;
                    self.expect_key = true;
                } else if "```json".starts_with(t) || "```".starts_with(t) {
                    // Still possibly a fence.
                } else if let Some(rest) = t.strip_prefix("```") {
                    // A fence (with or without `json`): wait for the object.
                    let rest = rest.trim_start_matches("json").trim_start();
                    if rest.starts_with('{') {
                        self.at = At::Object;
                        self.depth = 1;
                        self.expect_key = true;
                    } else if !rest.is_empty() {
                        self.plain(out);
                    }
                } else {
                    self.plain(out);
                }
            }
            At::Object => match c {
                '"' => {
                    let key = self.depth == 1 && self.expect_key;
                    let answer = self.depth == 1 && !key && self.in_final_value;
                    if key {
                        self.key.clear();
                    }
                    self.at = At::Str { key, answer };
                }
                '{' | '[' => {
                    self.depth += 1;
                    if self.depth == 2 {
                        self.in_final_value = false;
                    }
                }
                '}' | ']' => {
                    self.depth = self.depth.saturating_sub(1);
                    if self.depth == 0 {
                        self.at = At::Done;
                    }
                }
                ':' if self.depth == 1 => {
                    self.expect_key = false;
                    self.in_final_value = self.key == "final" && !self.final_seen;
                }
                ',' if self.depth == 1 => {
                    self.expect_key = true;
                    self.in_final_value = false;
                }
                _ => {}
            },
            At::Str { key, answer } => {
                if let Some(esc) = &mut self.escape {
                    esc.push(c);
                    let esc = esc.clone();
                    if let Some(ch) = self.unescape(&esc) {
                        self.escape = None;
                        if let Some(ch) = ch {
                            self.emit(ch, key, answer, out);
                        }
                    }
                    return;
                }
                match c {
                    '\\' => self.escape = Some(String::new()),
                    '"' => {
                        self.at = At::Object;
                        if answer {
                            self.final_seen = true;
                            self.in_final_value = false;
                        }
                    }
                    c => self.emit(c, key, answer, out),
                }
            }
        }
    }

    /// The start of the reply is not a panda object: it passes through from its beginning.
    fn plain(&mut self, out: &mut String) {
        self.at = At::Plain;
        out.push_str(&std::mem::take(&mut self.lead));
    }

    fn emit(&mut self, c: char, key: bool, answer: bool, out: &mut String) {
        if key {
            self.key.push(c);
        } else if answer {
            out.push(c);
        }
    }

    /// The escape `\` + `esc` read so far: `None` while incomplete, `Some(None)` when complete
    /// but giving no character yet (a high surrogate), `Some(Some(c))` when it gives `c`.
    fn unescape(&mut self, esc: &str) -> Option<Option<char>> {
        let first = esc.chars().next()?;
        let simple = match first {
            '"' => Some('"'),
            '\\' => Some('\\'),
            '/' => Some('/'),
            'b' => Some('\u{8}'),
            'f' => Some('\u{c}'),
            'n' => Some('\n'),
            'r' => Some('\r'),
            't' => Some('\t'),
            'u' => None,
            _ => return Some(None),
        };
        if let Some(c) = simple {
            self.high = None;
            return Some(Some(c));
        }
        if esc.len() < 5 {
            return None;
        }
        let unit = u16::from_str_radix(&esc[1..5], 16).ok();
        let Some(unit) = unit else {
            return Some(None);
        };
        match (self.high.take(), unit) {
            (_, 0xD800..=0xDBFF) => {
                self.high = Some(unit);
                Some(None)
            }
            (Some(hi), 0xDC00..=0xDFFF) => {
                let code = 0x10000 + ((u32::from(hi) - 0xD800) << 10) + (u32::from(unit) - 0xDC00);
                Some(char::from_u32(code))
            }
            (_, 0xDC00..=0xDFFF) => Some(None),
            (_, u) => Some(char::from_u32(u32::from(u))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    /// What the scanner gives for `reply` split into pieces of `n` characters.
    fn streamed(reply: &str, n: usize) -> String {
        let chars: Vec<char> = reply.chars().collect();
        let mut f = FinalText::default();
        chars
            .chunks(n)
            .map(|c| f.push(&c.iter().collect::<String>()))
            .collect()
    }

    #[test]
    fn only_the_final_string_is_given_whatever_the_split() {
        let reply = r#"{"analysis":"secret plan {\"final\":\"no\"}","requests":[{"final":"nested"}],
            "tool_intent":null,"final":"Line one\nsays \"hi\" \u00e9 \ud83d\ude00 done","x":1}"#;
        let want = serde_json::from_str::<Value>(reply).unwrap()["final"]
            .as_str()
            .unwrap()
            .to_string();
        for n in 1..12 {
            assert_eq!(streamed(reply, n), want, "pieces of {n}");
        }
    }

    #[test]
    fn a_fenced_object_is_read_and_plain_text_passes_through() {
        assert_eq!(streamed("```json\n{\"final\": \"ok\"}\n```", 3), "ok");
        assert_eq!(
            streamed("  Just text, not JSON.", 2),
            "  Just text, not JSON."
        );
        assert_eq!(streamed(r#"{"final":"a","final":"b"}"#, 1), "a");
        assert_eq!(streamed(r#"{"analysis":"x"}"#, 1), "");
    }

    #[test]
    fn any_split_gives_a_prefix_of_the_answer() {
        let reply = r#"{"final":"abc\tdef\u0041"}"#;
        let mut f = FinalText::default();
        let mut so_far = String::new();
        for c in reply.chars() {
            so_far.push_str(&f.push(&c.to_string()));
            assert!("abc\tdefA".starts_with(&so_far), "{so_far:?}");
        }
        assert_eq!(so_far, "abc\tdefA");
    }
}
