//! Bare private-key bodies: base64 lines of key length printed without their BEGIN/END lines.

use super::rules::MASK;

/// Shortest and longest line of a private key's base64 body that [`mask_key_bodies`] counts
/// (PEM writes 64 characters a line, OpenSSH 70, MIME 76).
const KEY_LINE_CHARS: std::ops::RangeInclusive<usize> = 60..=80;

/// `text` with every bare base64 key body masked, or `None` when it holds none: three or more
/// consecutive lines of [`KEY_LINE_CHARS`] base64 characters (plus a shorter closing line),
/// with upper- and lower-case letters and digits among them — a private key printed without
/// its BEGIN/END lines (`sed -n 2,6p id_ed25519`). A body right under a `-----BEGIN` line that
/// does not name a private key (a certificate, a public key) is left alone.
pub(super) fn mask_key_bodies(text: &str) -> Option<String> {
    let b = text.as_bytes();
    if b.len() < 3 * KEY_LINE_CHARS.start()
        || memchr::memchr_iter(b'\n', b).nth(1).is_none()
        || !three_key_lines(text)
    {
        return None;
    }
    let is_b64 = |l: &str| {
        !l.is_empty()
            && l.bytes()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'='))
    };
    // (start, end) of each line's trimmed content.
    let mut lines = Vec::new();
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let content = line.trim_end_matches(['\n', '\r']);
        let lead = content.len() - content.trim_start().len();
        let t = content.trim();
        lines.push((at + lead, at + lead + t.len()));
        at += line.len();
    }
    let mut spans: Vec<(usize, usize)> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let full = |j: usize| {
            let (s, e) = lines[j];
            KEY_LINE_CHARS.contains(&(e - s)) && is_b64(&text[s..e])
        };
        if !full(i) {
            i += 1;
            continue;
        }
        let first = i;
        while i < lines.len() && full(i) {
            i += 1;
        }
        let full_lines = i - first;
        // The body may open after other text on its first line (`{"text":"b3Bl…`) and close
        // before other text on its last (`…VM=","ok":true}`): those parts are masked too.
        let b64_byte = |c: u8| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'=');
        let mut end = lines[i - 1].1;
        if i < lines.len() {
            let (s, e) = lines[i];
            let lead = text[s..e].bytes().take_while(|&c| b64_byte(c)).count();
            if lead > 0 {
                end = s + lead;
                i += 1;
            }
        }
        if full_lines < 3 {
            continue;
        }
        let mut start = lines[first].0;
        if first > 0 {
            let (s, e) = lines[first - 1];
            let tail = text[s..e]
                .bytes()
                .rev()
                .take_while(|&c| b64_byte(c))
                .count();
            if tail >= 8 && e - tail >= spans.last().map_or(0, |l: &(usize, usize)| l.1) {
                start = e - tail;
            }
        }
        let (first_line_start, last) = (lines[first].0, end);
        let body = &text[first_line_start..last];
        let varied = body.bytes().any(|c| c.is_ascii_uppercase())
            && body.bytes().any(|c| c.is_ascii_lowercase())
            && body.bytes().any(|c| c.is_ascii_digit());
        let header = first
            .checked_sub(1)
            .map(|h| text[lines[h].0..lines[h].1].trim());
        let public = header.is_some_and(|h| h.starts_with("-----BEGIN") && !h.contains("PRIVATE"));
        if varied && !public {
            spans.push((start, end));
        }
    }
    if spans.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    let mut from = 0;
    for (s, e) in spans {
        out.push_str(&text[from..s]);
        out.push_str(MASK);
        from = e;
    }
    out.push_str(&text[from..]);
    Some(out)
}

/// Whether `text` has three consecutive lines of [`KEY_LINE_CHARS`] base64 characters (each
/// trimmed), without which [`mask_key_bodies`] finds nothing: one pass, no allocation.
fn three_key_lines(text: &str) -> bool {
    let mut run = 0;
    for line in text.split('\n') {
        let t = line.trim();
        let full = KEY_LINE_CHARS.contains(&t.len())
            && t.bytes()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'='));
        run = if full { run + 1 } else { 0 };
        if run == 3 {
            return true;
        }
    }
    false
}
