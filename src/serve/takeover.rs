//! The crash rule across nodes: how a run left `running` by a node that died ends when this
//! node holds neither its run bundle nor its turn record. With the shared store the run's
//! audit events are in the database, so what the run did is known on every node, and the rule
//! of the home's queue applies: a run that called no tool is queued again, one that did ends
//! `failed` with reason `interrupted`.
//!
//! Only the events of the run's latest attempt count (each attempt's turn writes its own
//! `run.created`; a drain leaves an earlier attempt's events behind). Of those:
//!
//! * a terminal event (`run.completed`, `run.failed`, `run.cancelled`): the turn ended and only
//!   the queue update was lost; the run ends as that event says (its output stays in the dead
//!   node's turn record);
//! * a `run.cancel_requested`: someone asked it to stop; it ends `cancelled`;
//! * a `tool.call`: a tool may have had effects; it ends `failed` / `interrupted`;
//! * the session's checkpoint is no longer at the revision the turn started from
//!   (`run.started`): the turn may have committed its exchange; `failed` / `interrupted`;
//! * otherwise nothing of it took effect, and it is queued again (to run on any node).
//!
//! Without the shared store there is nothing to read: the caller keeps the home's rule.

use super::queue::{Finish, RunRow};
use crate::error::Result;
use crate::home::Home;
use serde_json::Value;

/// What becomes of a run whose node died.
pub(super) enum Verdict {
    /// Nothing of it took effect: queue it again.
    Requeue,
    /// It ends so.
    End(Box<Finish>),
}

/// The verdict for `row` (a `running` run whose lease ran out, held now by this node) from
/// its audit events in the shared store; `None` without the shared store.
pub(super) fn verdict(home: &Home, row: &RunRow, now: &str) -> Result<Option<Verdict>> {
    let Some(db) = crate::db::audit_connection()? else {
        return Ok(None);
    };
    let events = crate::audit::pg::run_events(db, &row.agent_id, &row.id, None)?;
    Ok(Some(judge(
        home,
        row,
        &latest_attempt(&events, row.attempts),
        now,
    )?))
}

/// The events of the latest attempt (the `attempts`-th): from its `run.created` on; none when
/// that attempt wrote nothing.
fn latest_attempt(events: &[Value], attempts: u64) -> Vec<Value> {
    let starts: Vec<usize> = events
        .iter()
        .enumerate()
        .filter(|(_, e)| e["event_type"] == "run.created")
        .map(|(i, _)| i)
        .collect();
    if (starts.len() as u64) < attempts.max(1) {
        return Vec::new();
    }
    starts
        .last()
        .map(|&i| events[i..].to_vec())
        .unwrap_or_default()
}

fn judge(home: &Home, row: &RunRow, events: &[Value], now: &str) -> Result<Verdict> {
    let of = |t: &str| events.iter().find(|e| e["event_type"] == t);
    let ended = events.iter().find(|e| {
        matches!(
            e["event_type"].as_str(),
            Some("run.completed" | "run.failed" | "run.cancelled")
        )
    });
    if let Some(e) = ended {
        let p = &e["payload"];
        return Ok(Verdict::End(Box::new(Finish {
            status: p["status"].as_str().unwrap_or("failed").to_string(),
            finished_at: now.to_string(),
            duration_ms: p["latency_ms"].as_u64().unwrap_or(0),
            output: None,
            error: Some(p["error"].clone()).filter(|e| !e.is_null()),
            tool_calls: p["tools"].as_u64().unwrap_or(0),
            ..Finish::default()
        })));
    }
    if let Some(e) = of("run.cancel_requested") {
        let by = e["actor"].as_str().unwrap_or("someone");
        return Ok(Verdict::End(Box::new(Finish {
            status: "cancelled".into(),
            finished_at: now.to_string(),
            error: serde_json::to_value(super::cancel::cancelled_error(by)).ok(),
            ..Finish::default()
        })));
    }
    let interrupted = || {
        Verdict::End(Box::new(Finish {
            status: "failed".into(),
            finished_at: now.to_string(),
            error: serde_json::to_value(super::cancel::interrupted_error()).ok(),
            ..Finish::default()
        }))
    };
    if of("tool.call").is_some() {
        return Ok(interrupted());
    }
    if let Some(started) = of("run.started") {
        let from = started["payload"]["revision"].as_u64();
        let now_at =
            crate::checkpoint::load_existing(home, &row.session_id)?.map_or(0, |cp| cp.revision);
        if from != Some(now_at) {
            return Ok(interrupted());
        }
    }
    Ok(Verdict::Requeue)
}
