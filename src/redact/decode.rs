//! Escaped and encoded text: decoding it (JSON and shell escapes, URL encoding, JSON held in a
//! string), and the escaped forms a known value takes in such text.

use serde_json::Value;

/// `text` with its backslash escapes decoded, or `None` when it holds none: JSON's (`\"`,
/// `\\`, `\/`, `\n`, `\r`, `\t`, `\b`, `\f`, `\uXXXX` with surrogate pairs) and a shell's
/// `$'…'` quoting's (`\'`, `\a`, `\v`, `\e`, `\xHH`, `\0`). An unknown escape is kept as
/// written.
pub fn unescape(text: &str) -> Option<String> {
    let b = text.as_bytes();
    let mut i = memchr::memchr(b'\\', b)?;
    let mut out = String::with_capacity(text.len());
    out.push_str(&text[..i]);
    let hex = |s: &str| u32::from_str_radix(s, 16).ok();
    let mut changed = false;
    while i < b.len() {
        if b[i] != b'\\' || i + 1 >= b.len() {
            let next = memchr::memchr(b'\\', &b[i + 1..]).map_or(b.len(), |n| i + 1 + n);
            out.push_str(&text[i..next]);
            i = next;
            continue;
        }
        let simple = match b[i + 1] {
            b'"' => Some('"'),
            b'\\' => Some('\\'),
            b'/' => Some('/'),
            b'\'' => Some('\''),
            b'n' => Some('\n'),
            b'r' => Some('\r'),
            b't' => Some('\t'),
            b'b' => Some('\u{8}'),
            b'f' => Some('\u{c}'),
            b'a' => Some('\u{7}'),
            b'v' => Some('\u{b}'),
            b'e' => Some('\u{1b}'),
            b'0' => Some('\0'),
            _ => None,
        };
        if let Some(c) = simple {
            out.push(c);
            i += 2;
            changed = true;
            continue;
        }
        let code = |len: usize| text.get(i + 2..i + 2 + len).and_then(hex);
        match b[i + 1] {
            b'x' if code(2).is_some() => {
                out.push(char::from_u32(code(2).unwrap_or(0)).unwrap_or('\u{fffd}'));
                i += 4;
                changed = true;
            }
            b'u' if code(4).is_some() => {
                let hi = code(4).unwrap_or(0);
                let lo = (text.get(i + 6..i + 8) == Some("\\u"))
                    .then(|| text.get(i + 8..i + 12).and_then(hex))
                    .flatten()
                    .filter(|lo| (0xDC00..0xE000).contains(lo));
                match lo {
                    Some(lo) if (0xD800..0xDC00).contains(&hi) => {
                        let c = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
                        out.push(char::from_u32(c).unwrap_or('\u{fffd}'));
                        i += 12;
                    }
                    _ => {
                        out.push(char::from_u32(hi).unwrap_or('\u{fffd}'));
                        i += 6;
                    }
                }
                changed = true;
            }
            _ => {
                out.push('\\');
                i += 1;
            }
        }
    }
    changed.then_some(out)
}

/// `text` with its `%XX` sequences decoded (URL encoding; the bytes read as UTF-8, invalid
/// ones replaced), or `None` when it holds none. With `plus_is_space`, a `+` is a space too, as
/// in a form-encoded query string (`password=correct+horse%21`).
pub fn percent_decode(text: &str, plus_is_space: bool) -> Option<String> {
    let b = text.as_bytes();
    let hexval = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
    let mut out = Vec::with_capacity(b.len());
    let mut changed = false;
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%'
            && i + 2 < b.len()
            && let (Some(h), Some(l)) = (hexval(b[i + 1]), hexval(b[i + 2]))
        {
            out.push(h << 4 | l);
            i += 3;
            changed = true;
        } else if b[i] == b'+' && plus_is_space {
            out.push(b' ');
            i += 1;
            changed = true;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    changed.then(|| String::from_utf8_lossy(&out).into_owned())
}

/// Whether a value is written differently in JSON or shell-escaped text.
pub(super) fn escapes_differently(v: &str) -> bool {
    v.bytes()
        .any(|b| matches!(b, b'"' | b'\\' | b'\'' | 0..=0x1f | 0x7f))
}

/// How a known value appears in escaped text, where that differs from the value: JSON-escaped
/// (a JSON document held in a JSON string, as tool messages are in `checkpoint.json`), JSON-escaped
/// twice, and in a shell's `$'…'` quoting (GNU `ls`/`cat -v` style: `\\`, `\'`, `\n`, `\t`, `\r`,
/// other control bytes as `\ooo`).
pub(super) fn escaped_forms(value: &str) -> Vec<String> {
    let json = |s: &str| {
        let q = serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into());
        q[1..q.len() - 1].to_string()
    };
    let once = json(value);
    let twice = json(&once);
    let mut shell = String::with_capacity(value.len() + 4);
    for c in value.chars() {
        match c {
            '\\' => shell.push_str("\\\\"),
            '\'' => shell.push_str("\\'"),
            '\n' => shell.push_str("\\n"),
            '\t' => shell.push_str("\\t"),
            '\r' => shell.push_str("\\r"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                shell.push_str(&format!("\\{:03o}", c as u32));
            }
            c => shell.push(c),
        }
    }
    let mut out: Vec<String> = Vec::new();
    // Longest first: the twice-escaped form contains pieces of the once-escaped one.
    for f in [twice, once, shell] {
        if f != value && !out.contains(&f) {
            out.push(f);
        }
    }
    out
}

/// A string value that is itself a JSON object or array.
pub(super) fn embedded_json(s: &str) -> Option<Value> {
    let t = s.trim();
    let (first, last) = (t.as_bytes().first()?, t.as_bytes().last()?);
    if !matches!((first, last), (b'{', b'}') | (b'[', b']')) {
        return None;
    }
    serde_json::from_str::<Value>(t)
        .ok()
        .filter(|v| v.is_object() || v.is_array())
}
