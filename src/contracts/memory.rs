//! Memory contracts: candidates, long-term records, short-term entries, query hits and the
//! approval ledger's decision record.
//!
//! Wire examples:
//!
//! ```json
//! {"text":"User prefers metric units","type":"preference","tags":["units"],"ttl_days":null,"source":"user_said","why_store":"stable preference"}
//! {"title":"Drone parts","tags":["drone"],"body_md":"## BOM ...","importance":6,"ttl_days":null}
//! {"id":"mem_0123456789abcdef","score":0.412,"excerpt":"User prefers metric…","title":"…","tags":["units"],"created_at":"2026-02-15T00:00:00Z"}
//! ```

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A proposed long-term memory awaiting a human decision.
///
/// Canonical: Bob v0 `{text, type, tags, ttl_days, source, why_store}`. Also accepted: JSON I/O
/// `save_plan` / `suggest_memory_save` `{title, tags, body_md, importance, ttl_days}`
/// (`body_md` → `text`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MemoryCandidate {
    #[serde(alias = "body_md")]
    pub text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default = "default_type", rename = "type")]
    pub kind: String,
    #[serde(default)]
    pub tags: Vec<String>,
    #[serde(default)]
    pub ttl_days: Option<u32>,
    #[serde(default = "default_source")]
    pub source: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why_store: Option<String>,
    /// 1..=10 (the JSON I/O contracts); absent means 5.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub importance: Option<u8>,
}

/// Accepted candidate `type`s: Bob v0's six, then the kinds bob's own producers write
/// (`lesson`: `bob memory practice`; `reference`: a web search asked to persist its results).
pub const CANDIDATE_TYPES: &[&str] = &[
    "preference",
    "fact",
    "procedure",
    "project_decision",
    "mtg_profile",
    "mtg_lesson",
    "lesson",
    "reference",
];

/// Accepted candidate `source`s: Bob v0's three, then bob's own producers (`practice`,
/// `mtg_journal`: MTGLessons, `web.search`). `tool:<name>` (lower-case tool name, the output of
/// that one tool, a narrower `tool_output`) is accepted too.
pub const CANDIDATE_SOURCES: &[&str] = &[
    "user_said",
    "assistant_inferred",
    "tool_output",
    "practice",
    "mtg_journal",
    "web.search",
];

impl MemoryCandidate {
    /// A Bob v0 candidate with defaults (`type` fact, `source` assistant_inferred).
    pub fn new(text: impl Into<String>) -> Self {
        MemoryCandidate {
            text: text.into(),
            title: None,
            kind: default_type(),
            tags: Vec::new(),
            ttl_days: None,
            source: default_source(),
            why_store: None,
            importance: None,
        }
    }
}

fn default_type() -> String {
    "fact".into()
}
fn default_source() -> String {
    "assistant_inferred".into()
}

/// JSON I/O memory JSON record plus `type`, `importance`, `user` and provenance.
///
/// `metadata` holds provenance: `{candidate_id, ledger_seq, promoted_from?, mirrored_from?,
/// body_blob?: {path, sha256, bytes}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MemoryRecord {
    #[serde(default)]
    pub id: String,
    pub title: String,
    pub created_at: String,
    #[serde(default)]
    pub tags: Vec<String>,
    #[serde(default)]
    pub summary: String,
    #[serde(default)]
    pub facts: Vec<String>,
    #[serde(default)]
    pub body_md: String,
    #[serde(default)]
    pub source: String,
    #[serde(default)]
    pub token_est: u64,
    #[serde(default)]
    pub ttl_days: Option<u32>,
    #[serde(default = "default_type", rename = "type")]
    pub kind: String,
    #[serde(default)]
    pub importance: Option<u8>,
    #[serde(default)]
    pub user: Option<String>,
    /// `{candidate_id, ledger_seq, promoted_from?}`.
    #[serde(default, skip_serializing_if = "Value::is_null")]
    pub metadata: Value,
}

/// The tag index of a long-term store (`bob memory export --index`): the seed's `index.json`,
/// tags → record ids, and each record's metadata (everything but the body).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MemoryIndex {
    /// Records indexed (every stored record, as `bob memory export` writes them).
    pub records: usize,
    /// Each tag → the ids of the records carrying it, in storage order. Records without tags
    /// are listed under no tag (they are in `memories`).
    pub tags: std::collections::BTreeMap<String, Vec<String>>,
    /// Each record's id → its metadata.
    pub memories: std::collections::BTreeMap<String, MemoryIndexEntry>,
}

/// One record's metadata in a [`MemoryIndex`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MemoryIndexEntry {
    pub title: String,
    pub created_at: String,
    pub tags: Vec<String>,
    pub summary: String,
    pub source: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub token_est: u64,
    pub ttl_days: Option<u32>,
    pub importance: Option<u8>,
    pub user: Option<String>,
}

/// One ranked long-term memory returned by a query (Spectator retrieval item).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Hit {
    pub id: String,
    /// Relevance weighted by importance and recency, normalized to 0..1.
    pub score: f64,
    pub excerpt: String,
    pub title: String,
    pub tags: Vec<String>,
    pub created_at: String,
    /// The hit's lexical (full-text) score, when embeddings are configured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lexical_score: Option<f64>,
    /// The cosine of the hit's vector and the query's, when it was ranked by vectors.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub semantic_score: Option<f64>,
}

/// A short-term memory entry (Bob v0 STM): a trace of one turn, not a transcript.
///
/// On input only `intent` is required; `id`, `created_at`, `last_accessed`, `access_count` and
/// `sessions_seen` are filled in by the store (`session_id` seeds `sessions_seen`). In Rust,
/// `StmEntry { intent, resolution, session_id, ..Default::default() }`; an empty `user` means
/// `default`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct StmEntry {
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub id: String,
    #[serde(default = "default_user")]
    pub user: String,
    pub intent: String,
    #[serde(default)]
    pub resolution: String,
    /// At most 3.
    #[serde(default)]
    pub open_questions: Vec<String>,
    #[serde(default)]
    pub tools_used: Vec<Value>,
    #[serde(default)]
    pub entities: Vec<String>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub created_at: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub last_accessed: String,
    #[serde(default)]
    pub access_count: u64,
    #[serde(default)]
    pub sessions_seen: Vec<String>,
    /// The session that wrote the entry (added to `sessions_seen`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// Set when the turn that wrote it failed: such an entry is refused, nothing is written.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub error_state: bool,
    /// Content that may be wrong (e.g. a tool failed during the turn); never promoted.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub error_tainted: bool,
    /// When promotion was attempted (each entry is nominated at most once).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub promotion_attempted_at: Option<String>,
}

pub(crate) fn default_user() -> String {
    "default".into()
}

/// A candidate as stored: pending until a human approves, edits or rejects it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CandidateRow {
    pub id: String,
    /// `pending`, `approved` or `rejected`.
    pub status: String,
    pub user: String,
    pub created_at: String,
    /// The candidate after redaction.
    pub candidate: MemoryCandidate,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    /// The STM entry this candidate was promoted from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub promoted_from: Option<String>,
    /// JSON paths that were redacted on the way in.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub redactions: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decided_at: Option<String>,
    /// `approve`, `edit` or `reject`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ledger_seq: Option<u64>,
    /// The long-term record an approval created.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// A decided memory candidate: what the memory store's decisions return (as
/// `crate::memory::Decided`), and `POST /api/admin/memory/candidates/{id}/{action}` answers:
/// the candidate as decided, the ledger entry's seq, and for an approval the record stored.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct CandidateDecided {
    pub candidate: CandidateRow,
    pub ledger_seq: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub record: Option<MemoryRecord>,
    /// Ids of the copies written to a shared user's store.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mirrored: Vec<String>,
    /// Why the stored record is not embedded yet (queued for `bob memory reindex`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub embedding: Option<String>,
}

/// One line of `memory_approvals.jsonl` before chaining (`seq`, `prev`, `hash` are added by
/// `chain::append`, keyed).
///
/// `kind` is `decision` (approve / edit / reject of a candidate), `import` (an admin import
/// batch) or `gc` (expired records removed).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LedgerEntry {
    pub kind: String,
    pub ts: String,
    pub actor: String,
    pub user: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub candidate_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_id: Option<String>,
    /// SHA-256 of the final (redacted) candidate's canonical JSON.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_digest: Option<String>,
    /// The edited (redacted) candidate of an `edit`, so a crash before the DB commit can be
    /// replayed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub edited: Option<MemoryCandidate>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// `import` and `gc`: the records concerned (`[{id, digest}]`, at most 1000 listed).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub records: Vec<LedgerRecordRef>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<u64>,
    /// `import` and `gc`: SHA-256 over the `id digest\n` lines of every record concerned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batch_digest: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_path: Option<String>,
}

impl LedgerEntry {
    /// An `import` or `gc` entry (`kind`) of `count` records, `records` the ones listed, with
    /// their batch digest; the decision fields empty, `reason` and `source_path` unset.
    pub fn batch(
        kind: &str,
        ts: String,
        actor: &str,
        user: String,
        records: Vec<LedgerRecordRef>,
        count: usize,
        batch_digest: String,
    ) -> Self {
        LedgerEntry {
            kind: kind.into(),
            ts,
            actor: actor.into(),
            user,
            decision: None,
            candidate_id: None,
            memory_id: None,
            content_digest: None,
            edited: None,
            reason: None,
            records,
            count: Some(count as u64),
            batch_digest: Some(batch_digest),
            source_path: None,
        }
    }
}

/// A record an `import` or `gc` ledger entry concerns: its id and content digest, and for
/// `gc` its user.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LedgerRecordRef {
    pub id: String,
    pub digest: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user: Option<String>,
}

/// What `bob memory promote` did with one short-term entry: with `--dry-run` the candidate it
/// would propose, else the pending candidate row it proposed.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum Promotion {
    DryRun {
        stm_id: String,
        /// Always true.
        dry_run: bool,
        candidate: MemoryCandidate,
    },
    Proposed {
        stm_id: String,
        candidate: Box<CandidateRow>,
    },
}

/// What `bob memory gc` removed: long-term record ids (recorded on the ledger) and
/// short-term entry ids.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct MemoryGcReport {
    pub long_term_removed: Vec<String>,
    pub short_term_removed: Vec<String>,
}

/// What `bob memory stm gc` removed: short-term entry ids.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct StmGcReport {
    pub short_term_removed: Vec<String>,
}
