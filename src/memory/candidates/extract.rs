//! Finding memory candidates in an input (JSON, or THINK output's marker blocks), and checking
//! and spelling each candidate's fields the canonical way.

use super::super::ltm::{self};
use crate::contracts::{CANDIDATE_SOURCES, CANDIDATE_TYPES, MemoryCandidate};
use crate::error::{Error, Result};
use crate::store;
use serde_json::Value;

/// Opening marker of a candidate block inside THINK output.
pub const BLOCK_OPEN: &str = "<<<MEMORY_CANDIDATES_JSON>>>";
/// Closing marker of a candidate block.
pub const BLOCK_CLOSE: &str = "<<<END_MEMORY_CANDIDATES_JSON>>>";
/// The Bob v0 runtime: the model proposes at most this many candidates per THINK output.
pub const MAX_PER_THINK: usize = 2;
/// At most this many candidates in one direct (non-THINK) proposal.
pub const MAX_PER_PROPOSAL: usize = 100;
/// Largest candidate text accepted.
pub const MAX_TEXT_BYTES: usize = 1024 * 1024;

/// Candidates found in an input and what was left out.
#[derive(Debug, Clone, Default)]
pub struct Extracted {
    pub candidates: Vec<MemoryCandidate>,
    /// Candidates beyond the per-THINK cap, not taken.
    pub dropped: usize,
    /// True when the input was THINK output (markers or a `memory_candidates` field).
    pub from_think: bool,
}

pub(super) fn candidates_of(v: &Value, out: &mut Vec<Value>) -> bool {
    match v {
        Value::Array(items) => {
            for i in items {
                candidates_of(i, out);
            }
            true
        }
        Value::Object(m) => {
            for key in [
                "save_plan",
                "suggest_memory_save",
                "memory_candidates",
                "candidates",
            ] {
                if let Some(inner) = m.get(key) {
                    if !inner.is_null() {
                        candidates_of(inner, out);
                    }
                    return true;
                }
            }
            if m.get("action").and_then(Value::as_str) == Some("save_memory")
                && let Some(p) = m.get("payload")
            {
                return candidates_of(p, out);
            }
            if let Some(ti) = m.get("tool_intent") {
                return candidates_of(ti, out);
            }
            if m.contains_key("text") || m.contains_key("body_md") {
                out.push(v.clone());
                return true;
            }
            false
        }
        _ => false,
    }
}

/// Finds memory candidates in an input: a JSON candidate, an array of them, an object
/// wrapping them (`save_plan`, `suggest_memory_save`, `memory_candidates`, `candidates`, a
/// `save_memory` tool intent), or THINK text containing
/// `<<<MEMORY_CANDIDATES_JSON>>>…<<<END_MEMORY_CANDIDATES_JSON>>>` blocks. THINK output (marker
/// blocks or a `memory_candidates` field) yields at most [`MAX_PER_THINK`] candidates.
pub fn extract_candidates(input: &str) -> Result<Extracted> {
    let mut raw = Vec::new();
    let trimmed = input.trim();
    let from_think: bool;
    if let Ok(v) = serde_json::from_str::<Value>(trimmed) {
        from_think = v.get("memory_candidates").is_some();
        if !candidates_of(&v, &mut raw) {
            return Err(Error::invalid(
                "no memory candidate in the input: expected {text,…}, {title, body_md,…}, an \
                 array, or {save_plan|suggest_memory_save|memory_candidates: …}",
            ));
        }
    } else if input.contains(BLOCK_OPEN) {
        from_think = true;
        let mut rest = input;
        while let Some(i) = rest.find(BLOCK_OPEN) {
            let after = &rest[i + BLOCK_OPEN.len()..];
            let Some(j) = after.find(BLOCK_CLOSE) else {
                return Err(Error::invalid(format!(
                    "{BLOCK_OPEN} block is not closed by {BLOCK_CLOSE}"
                )));
            };
            let body = after[..j].trim();
            let v: Value = serde_json::from_str(body)
                .map_err(|e| Error::bad_json("memory candidates block", &e))?;
            candidates_of(&v, &mut raw);
            rest = &after[j + BLOCK_CLOSE.len()..];
        }
    } else if trimmed.is_empty() {
        return Err(Error::invalid(
            "no input (expected memory candidates on stdin)",
        ));
    } else {
        return Err(Error::invalid(format!(
            "input is neither JSON nor THINK output with a {BLOCK_OPEN} block"
        )));
    }
    let mut candidates = Vec::with_capacity(raw.len());
    for (i, v) in raw.into_iter().enumerate() {
        let c: MemoryCandidate = serde_json::from_value(v)
            .map_err(|e| Error::invalid(format!("candidate {i}: {e}")).with("index", i))?;
        candidates.push(c);
    }
    let cap = if from_think {
        MAX_PER_THINK
    } else {
        MAX_PER_PROPOSAL
    };
    let dropped = candidates.len().saturating_sub(cap);
    if !from_think && dropped > 0 {
        return Err(Error::invalid(format!(
            "at most {MAX_PER_PROPOSAL} candidates per proposal (got {})",
            candidates.len()
        )));
    }
    candidates.truncate(cap);
    Ok(Extracted {
        candidates,
        dropped,
        from_think,
    })
}

/// Spells `type` and `source` the canonical way (trimmed, lower case), so `"Preference "`
/// from a model is the seed's `preference`.
pub fn canonicalize(c: &mut MemoryCandidate) {
    for (v, accepted) in [
        (&mut c.kind, CANDIDATE_TYPES),
        (&mut c.source, CANDIDATE_SOURCES),
    ] {
        let canon = v.trim().to_ascii_lowercase();
        if canon != *v && accepted.contains(&canon.as_str()) {
            *v = canon;
        }
    }
}

/// `tool:<name>`: the output of one named tool (a narrower `tool_output`).
pub(super) fn is_tool_source(s: &str) -> bool {
    s.strip_prefix("tool:").is_some_and(|name| {
        (1..=64).contains(&name.len())
            && name
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"._-".contains(&b))
    })
}

/// Checks a candidate's fields: text, importance, tags, and `type` / `source` among
/// [`CANDIDATE_TYPES`] / [`CANDIDATE_SOURCES`] (or `tool:<name>` for a source)
/// (`invalid.request` otherwise).
pub fn validate(c: &MemoryCandidate) -> Result<()> {
    if c.text.trim().is_empty() {
        return Err(
            Error::invalid("candidate text (or body_md) must not be empty").with("field", "text"),
        );
    }
    if c.text.len() > MAX_TEXT_BYTES {
        return Err(Error::invalid(format!(
            "candidate text is {} bytes; the limit is {MAX_TEXT_BYTES}",
            c.text.len()
        ))
        .with("field", "text"));
    }
    if let Some(i) = c.importance
        && !(1..=10).contains(&i)
    {
        return Err(
            Error::invalid(format!("importance must be 1..10 (got {i})"))
                .with("field", "importance"),
        );
    }
    for (field, value, accepted) in [
        ("type", &c.kind, CANDIDATE_TYPES),
        ("source", &c.source, CANDIDATE_SOURCES),
    ] {
        let ok = accepted.contains(&value.as_str()) || field == "source" && is_tool_source(value);
        if !ok {
            // The refused value is echoed cut short: it is input, not a place for secrets.
            let shown = ltm::truncate_chars(value, 64);
            let also = if field == "source" {
                ", tool:<name>"
            } else {
                ""
            };
            return Err(Error::invalid(format!(
                "candidate {field} {shown:?} is not one of {}{also}",
                accepted.join(", ")
            ))
            .with("field", field)
            .with("value", shown)
            .with("accepted", accepted));
        }
    }
    if c.tags.len() > 32 || c.tags.iter().any(|t| t.trim().is_empty() || t.len() > 64) {
        return Err(Error::invalid("at most 32 tags of 1-64 characters each").with("field", "tags"));
    }
    Ok(())
}

/// SHA-256 of the candidate's canonical JSON.
pub fn candidate_digest(c: &MemoryCandidate) -> String {
    store::sha256_hex(serde_json::to_string(c).unwrap_or_default().as_bytes())
}
