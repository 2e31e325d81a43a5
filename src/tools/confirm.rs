//! Chat vs Act mode (the JSON I/O contracts): in Chat mode a turn does not execute a mutating tool call; it
//! stages it as `sessions/<id>/pending_intents/<confirm_id>.json` and reports
//! `requires_confirm`. A human runs it later with `bob tool confirm ID --session S`, through
//! the same runner, policy and audit as any call (the confirmation itself is audited as a
//! human act, `tool.confirm`). A staged intent runs at most once: it is removed before it runs.

use crate::audit::Audit;
use crate::contracts::ToolRequest;
use crate::error::{Error, Result};
use crate::home::Home;
use crate::ids;
use crate::store;

use std::path::PathBuf;

fn dir(home: &Home, session_id: &str) -> Result<PathBuf> {
    Ok(home.session_dir(session_id)?.join("pending_intents"))
}

/// Stages a call for confirmation; returns its confirm id, `confirm_<nonce>` (the turn draws
/// the nonce from its ids, so a seeded replay turn stages the same id every time).
pub fn stage(home: &Home, session_id: &str, req: &ToolRequest, nonce: &str) -> Result<String> {
    let id = format!("confirm_{nonce}");
    ids::check("confirm id", &id)?;
    let d = dir(home, session_id)?;
    std::fs::create_dir_all(&d).map_err(|e| Error::io(&d, e))?;
    store::write_json_atomic(&d.join(format!("{id}.json")), req)?;
    Ok(id)
}

/// Takes a staged call out (so it cannot run twice) and records the human's confirmation.
pub fn take(home: &Home, session_id: &str, id: &str) -> Result<ToolRequest> {
    ids::check("confirm id", id)?;
    let p = dir(home, session_id)?.join(format!("{id}.json"));
    let _lock = store::Lock::exclusive(&store::lock_path(&p))?;
    let req: ToolRequest = store::read_json(&p)?.ok_or_else(|| {
        Error::not_found(format!(
            "no pending tool call {id:?} in session {session_id:?} (already confirmed, or never staged)"
        ))
    })?;
    let mut audit = Audit::open(home, "human", &req.run_id)?;
    audit.record(
        "human",
        &crate::contracts::audit::ToolConfirmed {
            session_id,
            confirm_id: id,
            request_id: &req.request_id,
            tool: &req.tool,
        },
    )?;
    std::fs::remove_file(&p).map_err(|e| Error::io(&p, e))?;
    let _ = std::fs::remove_file(store::lock_path(&p));
    Ok(req)
}
