//! A long-term record's identity and text: its stable id and digests, the summary, facts and
//! token estimate of its body, the record built from an approved candidate, its expiry, and
//! the words a query searches for.

use crate::clock;
use crate::contracts::{MemoryCandidate, MemoryRecord};
use crate::store::sha256_hex;
use serde_json::Value;

/// Summary cap (the JSON I/O contracts).
pub const SUMMARY_MAX_CHARS: usize = 200;

/// Bodies larger than this are stored as a blob file with a digest and a short summary.
pub const BLOB_THRESHOLD_BYTES: usize = 16 * 1024;

/// The stable id of a record: a UUID in the version-4 layout (the seed's `uuid4` record id,
/// hyphenated, lowercase) whose 122 free bits are the first bits of SHA-256 over the canonical
/// content (user, title, body_md, tags, type) instead of random ones. So the same content
/// keeps one id: approving or importing it again stores nothing new, and a store rebuilt
/// from the ledger gets the ids it had.
///
/// Stores made before kept `mem_` + 16 hex of the same digest ([`legacy_record_id`]); those
/// ids stay valid everywhere, and a record whose legacy id is stored counts as stored.
pub fn record_id(user: &str, title: &str, body_md: &str, tags: &[String], kind: &str) -> String {
    uuid_of_digest(&content_digest(user, title, body_md, tags, kind))
}

/// The id [`record_id`] gave the same content before ids were UUIDs: `mem_` + 16 hex.
pub fn legacy_record_id(
    user: &str,
    title: &str,
    body_md: &str,
    tags: &[String],
    kind: &str,
) -> String {
    format!(
        "mem_{}",
        &content_digest(user, title, body_md, tags, kind)[..16]
    )
}

/// The version-4-layout UUID of a hex SHA-256 digest (its first 16 bytes).
pub(super) fn uuid_of_digest(hex_digest: &str) -> String {
    let mut bytes = [0u8; 16];
    if let Ok(raw) = hex::decode(&hex_digest[..32]) {
        bytes.copy_from_slice(&raw);
    }
    uuid::Builder::from_random_bytes(bytes)
        .into_uuid()
        .hyphenated()
        .to_string()
}

/// SHA-256 over the canonical content of a record.
pub fn content_digest(
    user: &str,
    title: &str,
    body_md: &str,
    tags: &[String],
    kind: &str,
) -> String {
    // A tuple serializes as a JSON array: `[user, title, body_md, tags, kind]`.
    let canon = serde_json::to_string(&(user, title, body_md, tags, kind)).unwrap_or_default();
    sha256_hex(canon.as_bytes())
}

/// The digest of a record as stored (ledger `digest`).
pub fn record_digest(r: &MemoryRecord) -> String {
    content_digest(
        r.user.as_deref().unwrap_or("default"),
        &r.title,
        &r.body_md,
        &r.tags,
        &r.kind,
    )
}

/// Cuts `s` to at most `max` characters, ending with `…` when cut.
pub fn truncate_chars(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut out: String = s.chars().take(max.saturating_sub(1)).collect();
    out = out.trim_end().to_string();
    out.push('…');
    out
}

/// The first paragraph of markdown that is not a heading, whitespace-collapsed, ≤200 chars.
pub fn summarize(md: &str) -> String {
    let mut para = Vec::new();
    let mut in_front = false;
    for (i, line) in md.lines().enumerate() {
        let t = line.trim();
        if i == 0 && t == "---" {
            in_front = true;
            continue;
        }
        if in_front {
            if t == "---" {
                in_front = false;
            }
            continue;
        }
        if t.is_empty() || t.starts_with('#') {
            if !para.is_empty() {
                break;
            }
            continue;
        }
        let t = t
            .trim_start_matches(['-', '*', '+'])
            .trim_start()
            .to_string();
        para.push(t);
    }
    let text = para.join(" ");
    truncate_chars(
        &text.split_whitespace().collect::<Vec<_>>().join(" "),
        SUMMARY_MAX_CHARS,
    )
}

/// Bullet-list items of markdown (`-`, `*`, `+`, `1.`).
pub fn facts(md: &str) -> Vec<String> {
    md.lines()
        .filter_map(|l| {
            let t = l.trim_start();
            let rest = if let Some(r) = t
                .strip_prefix("- ")
                .or_else(|| t.strip_prefix("* "))
                .or_else(|| t.strip_prefix("+ "))
            {
                r
            } else {
                let digits = t.bytes().take_while(u8::is_ascii_digit).count();
                if digits > 0 && t[digits..].starts_with(". ") {
                    &t[digits + 2..]
                } else {
                    return None;
                }
            };
            let rest = rest.trim();
            (!rest.is_empty()).then(|| rest.to_string())
        })
        .collect()
}

/// Token estimate: characters / 4, rounded up.
pub fn token_est(s: &str) -> u64 {
    (s.chars().count() as u64).div_ceil(4)
}

/// Builds the long-term record for an approved candidate. `body_md` is the (possibly blob-
/// replaced) body; `metadata` the provenance.
pub fn record_from_candidate(
    c: &MemoryCandidate,
    user: &str,
    created_at: &str,
    body_md: String,
    metadata: Value,
) -> MemoryRecord {
    let title = match c.title.as_deref().map(str::trim) {
        Some(t) if !t.is_empty() => truncate_chars(t, 120),
        _ => {
            let s = summarize(&c.text);
            truncate_chars(if s.is_empty() { c.text.trim() } else { &s }, 80)
        }
    };
    let mut f = facts(&c.text);
    if f.is_empty() && !c.text.contains('\n') && c.text.chars().count() <= SUMMARY_MAX_CHARS {
        f.push(c.text.trim().to_string());
    }
    let summary = summarize(&body_md);
    let id = record_id(user, &title, &body_md, &c.tags, &c.kind);
    MemoryRecord {
        id,
        title,
        created_at: created_at.to_string(),
        tags: c.tags.clone(),
        summary,
        facts: f,
        token_est: token_est(&body_md),
        body_md,
        source: c.source.clone(),
        ttl_days: c.ttl_days,
        kind: c.kind.clone(),
        importance: c.importance,
        user: Some(user.to_string()),
        metadata,
    }
}

/// The FTS token naming a user's store (hex, so no tokenizer or stemmer can alter it).
pub fn owner_token(user: &str) -> String {
    format!("u{}x", hex::encode(user.as_bytes()))
}

pub(super) fn unix_of(ts: &str) -> i64 {
    clock::parse_rfc3339(ts)
        .map(|t| t.timestamp())
        .unwrap_or_default()
}

/// Unix time at which a record expires, if it has a TTL.
pub fn expires_unix(r: &MemoryRecord) -> Option<i64> {
    r.ttl_days
        .map(|d| unix_of(&r.created_at).saturating_add(i64::from(d) * 86_400))
}

pub(super) const STOPWORDS: &[&str] = &[
    "a", "about", "all", "am", "an", "and", "any", "are", "as", "at", "be", "been", "but", "by",
    "can", "could", "did", "do", "does", "for", "from", "had", "has", "have", "he", "her", "him",
    "his", "how", "i", "if", "in", "into", "is", "it", "its", "me", "my", "of", "on", "or", "our",
    "she", "should", "so", "that", "the", "their", "them", "then", "there", "these", "they",
    "this", "to", "us", "was", "we", "were", "what", "when", "where", "which", "who", "whom",
    "why", "will", "with", "would", "you", "your",
];

/// The words of arbitrary user text that a query searches for: runs of letters and digits,
/// lowercased, deduplicated, at most 32; common English stop words are dropped unless nothing
/// else remains.
pub fn query_words(text: &str) -> Vec<String> {
    let words: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let mut picked: Vec<&String> = words
        .iter()
        .filter(|w| !STOPWORDS.contains(&w.as_str()))
        .collect();
    if picked.is_empty() {
        picked = words.iter().collect();
    }
    let mut seen = std::collections::HashSet::new();
    picked
        .into_iter()
        .filter(|w| seen.insert(w.as_str()))
        .take(32)
        .cloned()
        .collect()
}

/// Words (see [`query_words`]) each quoted as an FTS5 string and OR-ed.
pub(super) fn or_terms<'w>(words: impl IntoIterator<Item = &'w String>) -> String {
    words
        .into_iter()
        .map(|w| format!("\"{}\"", w.replace('"', "\"\"")))
        .collect::<Vec<_>>()
        .join(" OR ")
}

/// Turns arbitrary user text into a safe FTS5 expression: the [`query_words`], each quoted as a
/// string, OR-ed. `None` when the text has no words at all.
pub fn fts_terms(text: &str) -> Option<String> {
    let words = query_words(text);
    (!words.is_empty()).then(|| or_terms(&words))
}

/// `r` as it may be stored, with its JSON: masked by [`crate::redact::for_storage`] when any
/// of its fields holds a secret, borrowed unchanged otherwise. Both backends pass every row
/// through it, the last line that no secret reaches a database.
pub fn for_storage(
    r: &MemoryRecord,
) -> crate::error::Result<(std::borrow::Cow<'_, MemoryRecord>, Value)> {
    use crate::error::Error;
    let mut v = serde_json::to_value(r).map_err(|e| Error::internal(e.to_string()))?;
    if crate::redact::for_storage()?
        .redact_value(&mut v, "")
        .is_empty()
    {
        return Ok((std::borrow::Cow::Borrowed(r), v));
    }
    let masked = serde_json::from_value(v.clone()).map_err(|e| Error::internal(e.to_string()))?;
    Ok((std::borrow::Cow::Owned(masked), v))
}
