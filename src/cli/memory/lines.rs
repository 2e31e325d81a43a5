//! The lines `bob memory` prints: the terminal tables' rows and the warnings on stderr.

use serde::Serialize;
use serde_json::Value;

/// What `bob memory` warns about on stderr (see [`warn`]).
#[derive(Serialize)]
#[serde(untagged)]
pub(super) enum Warning<'a> {
    /// Candidates beyond the cap of one THINK output were dropped.
    Dropped {
        dropped_candidates: usize,
        reason: String,
    },
    /// The query was ranked lexically, and why.
    Lexical {
        ranking: &'static str,
        fallback: &'a str,
    },
    /// Memories without a vector yet.
    Unembedded {
        unembedded: usize,
        note: &'static str,
    },
}

/// Prints one `{"warning":{…}}` line on stderr.
pub(super) fn warn(warning: Warning<'_>) {
    crate::cli::output::warn(warning);
}

/// A candidate as the terminal table shows it.
#[derive(Serialize)]
pub(super) struct CandidateLine<'a> {
    pub(super) id: &'a str,
    pub(super) status: &'a str,
    pub(super) user: &'a str,
    #[serde(rename = "type")]
    pub(super) kind: &'a str,
    pub(super) text: &'a str,
    pub(super) created_at: &'a str,
}

/// A short-term entry as the terminal table shows it.
#[derive(Serialize)]
pub(super) struct StmLine<'a> {
    pub(super) id: &'a str,
    pub(super) user: &'a str,
    pub(super) intent: &'a str,
    pub(super) created_at: &'a str,
    pub(super) access_count: u64,
    pub(super) sessions: usize,
}

/// A long-term record as the terminal table shows it: its body or its summary.
#[derive(Serialize)]
pub(super) struct RecordLine<'a> {
    pub(super) id: &'a str,
    pub(super) user: &'a Option<String>,
    pub(super) title: &'a str,
    pub(super) tags: &'a [String],
    pub(super) created_at: &'a str,
    pub(super) ttl_days: Option<u32>,
    pub(super) promoted_from: Option<&'a Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) body_md: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) summary: Option<&'a str>,
}
