//! The turn's use of the memory library: retrieval, candidate extraction, proposals.
//! Kept in one place so the pipeline does not depend on the store's internals.

use crate::contracts::MemoryCandidate;
use crate::error::Result;
use crate::home::Home;
use crate::memory::{self, Memory, ProposeCtx, QueryOpts};

/// Retrieval hits (id, score) and the rendered seed 000 §5 block (`None` without hits).
pub struct Retrieved {
    pub hits: Vec<(String, f64)>,
    pub block: Option<String>,
}

/// How many hits a role gets.
pub const RETRIEVAL_K: usize = 5;

/// Ranked long-term query of `user`'s store for `query`. A home without a memory store yet
/// has no hits (the store is not created just to be searched).
pub fn retrieve(home: &Home, user: &str, query: &str) -> Result<Retrieved> {
    if !home.memory_db().exists() {
        return Ok(Retrieved {
            hits: Vec::new(),
            block: None,
        });
    }
    let opts = QueryOpts {
        k: RETRIEVAL_K,
        tags: Vec::new(),
        user: user.to_string(),
    };
    let hits = Memory::open_fast(home)?.query(query, &opts)?;
    Ok(Retrieved {
        hits: hits.iter().map(|h| (h.id.clone(), h.score)).collect(),
        block: (!hits.is_empty()).then(|| memory::render_block(&hits)),
    })
}

/// The candidates in one `<<<MEMORY_CANDIDATES_JSON>>>` payload (at most 2 per THINK output).
pub fn extract(payload: &str) -> Result<Vec<MemoryCandidate>> {
    let text = format!(
        "{}{payload}{}",
        memory::candidates::BLOCK_OPEN,
        memory::candidates::BLOCK_CLOSE
    );
    Ok(memory::extract_candidates(&text)?.candidates)
}

/// Proposes candidates as pending; returns each one's id or error.
pub fn propose(
    home: &Home,
    cands: Vec<MemoryCandidate>,
    user: Option<&str>,
    session_id: &str,
    run_id: &str,
) -> Result<Vec<Result<String>>> {
    let mem = Memory::open(home)?;
    Ok(cands
        .into_iter()
        .map(|c| {
            mem.propose(
                c,
                ProposeCtx {
                    user: user.map(str::to_string),
                    session_id: Some(session_id.to_string()),
                    run_id: Some(run_id.to_string()),
                },
            )
            .map(|row| row.id)
        })
        .collect())
}
