//! Runs that do not end by themselves: `POST /v1/runs/{id}/cancel`, and the errors a cancelled
//! or interrupted run ends with.

use super::queue::RunRow;
use super::shared::Shared;
use crate::contracts::audit;
use crate::contracts::http::RunAccepted;
use crate::error::{Error, Result};
use crate::home::Home;

/// The error a run gets when the server that ran it died (see [`queue`]).
pub fn interrupted_error() -> Error {
    Error::internal("interrupted: the server stopped while the run was running; it was not retried")
        .with("reason", "interrupted")
}

/// The error of a run a caller cancelled.
pub(crate) fn cancelled_error(by: &str) -> Error {
    Error::new(crate::error::Code::Cancelled, format!("cancelled by {by}"))
        .with("reason", "cancelled")
        .with("cancelled_by", by)
}

/// `POST /v1/runs/{id}/cancel` (a human act, audited with the caller as actor): a queued run
/// becomes `cancelled` at once, without starting (its audit log gets `run.created` and
/// `run.cancelled`); a running run's turn is cancelled through its [`Cancel`] signal (the
/// backend call in flight is dropped, no further tool call starts) and it ends `cancelled`
/// with `run.cancelled`; the answer is then `status: "cancelling"`. A run that already ended
/// is a `conflict`. A turn that completes before it sees the signal stays `completed`.
pub(crate) fn cancel(shared: &Shared, id: &str, actor: &str) -> Result<RunAccepted> {
    let get = || -> Result<RunRow> {
        let q = shared.reader.lock().unwrap_or_else(|e| e.into_inner());
        q.get(id)?
            .ok_or_else(|| Error::not_found(format!("no run {id:?}")).with("run_id", id))
    };
    let ended = |row: &RunRow| {
        Error::conflict(format!("run {id} already ended ({})", row.status))
            .with("run_id", id)
            .with("status", row.status.clone())
    };
    let row = get()?;
    let redactor = shared.redactor()?;
    if row.status == "queued" {
        let now = crate::clock::rfc3339(crate::clock::now()?);
        let err = serde_json::to_value(cancelled_error(actor)).unwrap_or_default();
        let done = {
            let mut q = shared.queue.lock().unwrap_or_else(|e| e.into_inner());
            q.cancel_queued(id, &now, &err)?
        };
        if done {
            let mut audit = audit_of(shared, &row.agent_id, id, &redactor)?;
            audit.queue_payload(
                "system",
                &audit::RunCreated {
                    session_id: &row.session_id,
                    profile: &row.profile,
                    user_id: row.user_id.as_deref(),
                    message_chars: None,
                },
            )?;
            audit.queue_payload(
                actor,
                &audit::RunCancelledQueued {
                    status: "cancelled",
                    session_id: &row.session_id,
                    before: "queued",
                },
            )?;
            audit.flush()?;
            return Ok(RunAccepted {
                id: id.to_string(),
                status: "cancelled".into(),
                session_id: None,
            });
        }
    } else if row.status != "running" {
        return Err(ended(&row));
    }
    // Running (or claimed since we looked), here or on another node of a shared queue: mark
    // it; the worker's turn sees the signal (another node's at its next heartbeat).
    let shared_queue = {
        let mut q = shared.writer();
        q.request_cancel(id, actor)?;
        q.is_shared()
    };
    {
        // A run this node holds is signalled now. On a shared queue a run this node has not
        // registered runs on another node (or was claimed here a moment ago): its node's
        // heartbeat hands it the cancel, so nothing is kept here for it, where no worker would
        // ever release it. This node's own queue keeps the signal for a run claimed since we
        // looked, for its worker to find.
        let mut m = shared.inflight.lock().unwrap_or_else(|e| e.into_inner());
        let f = if shared_queue {
            m.get_mut(id)
        } else {
            Some(m.entry(id.to_string()).or_default())
        };
        if let Some(f) = f {
            f.by.get_or_insert_with(|| actor.to_string());
            f.cancel.cancel();
        }
    }
    let row = get()?;
    if !matches!(row.status.as_str(), "queued" | "running") {
        shared.release(id);
        return Err(ended(&row));
    }
    let mut audit = audit_of(shared, &row.agent_id, id, &redactor)?;
    audit.record(
        actor,
        &audit::RunCancelRequested {
            session_id: &row.session_id,
            status: &row.status,
        },
    )?;
    Ok(RunAccepted {
        id: id.to_string(),
        status: "cancelling".into(),
        session_id: None,
    })
}

/// The audit log of `agent`'s run `run_id`, written through the home's current redactor.
fn audit_of(
    shared: &Shared,
    agent: &str,
    run_id: &str,
    redactor: &crate::redact::Redactor,
) -> Result<crate::audit::Audit> {
    crate::audit::Audit::with_redactor(home_of(shared), agent, run_id, redactor.clone())
}

fn home_of(shared: &Shared) -> &Home {
    &shared.home
}
