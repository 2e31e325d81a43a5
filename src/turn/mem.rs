//! The turn's use of the memory library: retrieval, candidate extraction, proposals.
//! Kept in one place so the pipeline does not depend on the store's internals.

use crate::contracts::MemoryCandidate;
use crate::error::{Error, Result};
use crate::home::Home;

/// One retrieval hit: id and score, and the rendered seed 000 §5 block for all hits.
pub struct Retrieved {
    pub hits: Vec<(String, f64)>,
    pub block: Option<String>,
}

fn missing() -> Error {
    Error::internal("the memory library is not in this build")
}

/// Ranked long-term query of `user`'s store for `query` (top 5).
pub fn retrieve(_home: &Home, _user: &str, _query: &str) -> Result<Retrieved> {
    Err(missing())
}

/// The candidates in one `<<<MEMORY_CANDIDATES_JSON>>>` payload.
pub fn extract(_payload: &str) -> Result<Vec<MemoryCandidate>> {
    Err(missing())
}

/// Proposes candidates as pending; returns each one's id or error.
pub fn propose(
    _home: &Home,
    cands: Vec<MemoryCandidate>,
    _user: Option<&str>,
    _session_id: &str,
    _run_id: &str,
) -> Result<Vec<Result<String>>> {
    Ok(cands.into_iter().map(|_| Err(missing())).collect())
}
