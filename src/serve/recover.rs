//! The crash rule: runs left `running` by a server that died are ended from what is durable
//! (their turn record, else their audit events in the shared store) or failed `interrupted`;
//! on a shared queue the lease keeper renews this node's leases and recovers other nodes'.

use super::cancel::interrupted_error;
use super::queue::{Finish, Queue, RunRow};
use super::shared::Shared;
use super::takeover;
use crate::backend::Backend;
use crate::contracts::TurnRecord;
use crate::error::Result;
use crate::home::Home;
use serde_json::Value;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// Applies the crash rule of [`queue`] to rows left `running`. Returns how many were fixed.
pub(super) fn recover(home: &Home, q: &mut Queue) -> Result<usize> {
    let stale = q.running()?;
    recover_rows(home, q, &stale)
}

/// The crash rule for `stale` rows (left `running` by a process that died): a turn record of
/// the run's latest attempt that this node holds says how it ended; else, with the shared
/// store, the run's audit events there decide ([`takeover`]: queued again when it called no
/// tool); else it failed, `interrupted`, and is never run again.
pub(super) fn recover_rows(home: &Home, q: &mut Queue, stale: &[RunRow]) -> Result<usize> {
    if stale.is_empty() {
        return Ok(0);
    }
    // Turn records the queue did not hear about, from the turn log (the bundle may be missing),
    // in the order they were written: one per attempt that got as far as its record.
    let mut records: std::collections::HashMap<String, Vec<TurnRecord>> = Default::default();
    let ids: Vec<&str> = stale.iter().map(|s| s.id.as_str()).collect();
    for r in crate::turn_records::log(home)?.of_runs(&ids)? {
        if let Some(id) = r.get("run_id").and_then(Value::as_str)
            && let Ok(rec) = serde_json::from_value::<TurnRecord>(r.clone())
        {
            records.entry(id.to_string()).or_default().push(rec);
        }
    }
    let now = crate::clock::rfc3339(crate::clock::now()?);
    for row in stale {
        let record = match crate::runs::record(home, &row.id)? {
            Some(r) => Some(r),
            // Each earlier attempt was cut short by a drain and re-queued, leaving its own
            // `cancelled` record: only a record of the latest attempt says how this one ended.
            None => match records
                .remove(&row.id)
                .and_then(|rs| rs.into_iter().nth(row.attempts.saturating_sub(1) as usize))
            {
                Some(r) => {
                    crate::runs::write(home, &row.request(), &r)?;
                    Some(r)
                }
                None => None,
            },
        };
        let finish = match record {
            Some(r) => finish_of(&r, None, &now),
            // Another node's run: its audit events in the shared store say what it did.
            None => match takeover::verdict(home, row, &now)? {
                Some(takeover::Verdict::Requeue) => {
                    q.requeue(&row.id)?;
                    continue;
                }
                Some(takeover::Verdict::End(f)) => *f,
                None => Finish {
                    status: "failed".into(),
                    finished_at: now.clone(),
                    error: serde_json::to_value(interrupted_error()).ok(),
                    ..Finish::default()
                },
            },
        };
        q.finish(&row.id, &finish)?;
    }
    Ok(stale.len())
}

pub(super) fn finish_of(r: &TurnRecord, backend: Option<&Backend>, now: &str) -> Finish {
    let (provider, model) = match backend {
        Some(b) => (
            b.describe()["kind"].as_str().map(str::to_string),
            Some(b.model()),
        ),
        None => (None, None),
    };
    Finish {
        status: r.status.clone(),
        finished_at: now.to_string(),
        duration_ms: r.latency_ms,
        output: Some(r.output.clone()),
        provider,
        model,
        error: r.error.as_ref().and_then(|e| serde_json::to_value(e).ok()),
        tool_calls: r.tools.len() as u64,
    }
}

/// With a shared queue: renews this node's leases a few times per lease (at most every 2 s),
/// hands cancels asked on other nodes to the runs' turns, and recovers the runs of nodes whose
/// leases ran out. A database that cannot be reached marks the store down (`/healthz` says
/// so) and is tried again, reconnecting, on the next beat.
pub(super) fn keep_leases(shared: Arc<Shared>) {
    let beat = (shared.opts.lease / 3)
        .min(Duration::from_secs(2))
        .max(Duration::from_millis(100));
    let mut last = Instant::now() - beat;
    while !shared.leases_done.load(Ordering::SeqCst) {
        if last.elapsed() < beat {
            std::thread::sleep(Duration::from_millis(50));
            continue;
        }
        last = Instant::now();
        let cancels = shared.writer().heartbeat();
        // Only a failure to reach the database marks the store down; it is tried again
        // (reconnecting) at every beat until it answers.
        match &cancels {
            Err(e) if e.code == crate::error::Code::UpstreamError => {
                shared.set_store_down(Some(e));
                continue;
            }
            _ => shared.set_store_down(None),
        }
        for (id, by) in cancels.unwrap_or_default() {
            let mut m = shared.inflight.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(f) = m.get_mut(&id) {
                f.by.get_or_insert(by);
                f.cancel.cancel();
            }
        }
        if shared.draining.load(Ordering::SeqCst) {
            continue;
        }
        let mut q = shared.writer();
        if let Ok(stale) = q.take_expired()
            && !stale.is_empty()
        {
            let _ = recover_rows(&shared.home, &mut q, &stale);
            drop(q);
            shared.kick();
        }
    }
}
