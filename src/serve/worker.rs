//! The worker pool's one worker: an OS thread that claims runs from the queue, runs each as
//! one turn of the pipeline and records how it ended.

use super::cancel::{cancelled_error, interrupted_error};
use super::live;
use super::queue::{Finish, RunRow};
use super::recover::finish_of;
use super::shared::{DRAIN, Shared};
use crate::backend::{Backend, Overrides, Route};
use crate::contracts::TurnRecord;
use crate::error::Result;
use crate::turn::TurnInput;
use crate::turn::pipeline::{self, TurnOptions};
use serde_json::Value;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// Runs one claimed run to its end and records it (bundle, then queue row). A run that a
/// drain cut short before it called any tool goes back to the queue (nothing of it took
/// effect: no tool ran and the checkpoint was not committed); one that had called tools is
/// `failed` with reason `interrupted`, as after a crash.
fn execute(shared: &Shared, rt: &tokio::runtime::Runtime, row: RunRow) {
    let started = Instant::now();
    let home = &shared.home;
    let cancel = shared.claim_signal(&row.id);
    let result = (|| -> Result<(TurnRecord, Vec<Value>, Backend)> {
        let request = row.request();
        let input = TurnInput::of_request(&request)?;
        // Read per run, as `bob turn` does: config or key changes apply to the next run.
        let mut opts = TurnOptions::for_request(&request, shared.opts.settings.reload()?)?;
        opts.memory_pool = Some(shared.memory.clone());
        // Resolved per run, as `bob turn` does: config or key changes apply to the next run,
        // and a replay script starts afresh.
        let backend = Backend::resolve(
            home,
            &opts.settings,
            shared.opts.backend.as_deref(),
            Route::Chat,
            &Overrides::default(),
        )?;
        // The answer streams when the backend can, for the run's event stream.
        let mut opts = opts;
        opts.stream = backend.streams();
        opts.watch = shared.answer_so_far(&row.id).map(live::watch);
        let outcome = pipeline::run(home, &backend, rt, &input, &opts, &cancel)?;
        Ok((outcome.record, outcome.events, backend))
    })();
    let by = shared.cancelled_by(&row.id);
    let drained = by.as_deref() == Some(DRAIN);
    if drained
        && let Ok((record, _, _)) = &result
        && record.status == "cancelled"
        && record.tools.is_empty()
        && shared.writer().requeue(&row.id).is_ok()
    {
        shared.release(&row.id);
        return;
    }
    let now = crate::clock::now()
        .map(crate::clock::rfc3339)
        .unwrap_or_default();
    // Whether the crash rule would rebuild this very ending (from the bundle, else from the
    // turn record the turn made durable in turns.jsonl).
    let mut rebuildable = false;
    let mut finish = match result {
        Ok((record, events, backend)) => {
            // The bundle takes the events the turn kept as it wrote them (no read of the
            // day's audit log, which every worker appends to), unless a cancel request added
            // one of its own to the run: then the log is read back for all of them.
            let kept = by.is_none().then_some(events);
            let written = crate::runs::write_with_events(home, &row.request(), &record, kept);
            let mut f = finish_of(&record, Some(&backend), &now);
            rebuildable =
                written.is_ok() && matches!(f.status.as_str(), "completed" | "incomplete");
            if let Err(e) = written {
                f.status = "failed".into();
                f.error = serde_json::to_value(e).ok();
            } else if record.status == "cancelled" {
                f.error = by.as_deref().and_then(|b| {
                    let e = if drained {
                        interrupted_error()
                    } else {
                        cancelled_error(b)
                    };
                    serde_json::to_value(e).ok()
                });
                if drained {
                    f.status = "failed".into();
                }
            }
            f
        }
        Err(e) => Finish {
            status: "failed".into(),
            finished_at: now,
            duration_ms: started.elapsed().as_millis() as u64,
            error: serde_json::to_value(&e).ok(),
            ..Finish::default()
        },
    };
    // The queue holds no known secret: output and error are redacted like every durable write.
    if let Ok(r) = shared.redactor() {
        if let Some(o) = &finish.output {
            finish.output = Some(r.redact_str(o).into_owned());
        }
        if let Some(e) = finish.error.as_mut() {
            r.redact_value(e, "error");
        }
    }
    // A failure here leaves the row `running`: the next start applies the crash rule to it.
    // An ending the crash rule would rebuild the same from durable data need not wait
    // for its own sync: the next claim or accept syncs it (one sync less per run).
    {
        let mut q = shared.writer();
        let _ = if rebuildable {
            q.finish_relaxed(&row.id, &finish)
        } else {
            q.finish(&row.id, &finish)
        };
    }
    shared.release(&row.id);
}

pub(super) fn worker(shared: Arc<Shared>) {
    let Ok(rt) = crate::backend::runtime() else {
        return;
    };
    loop {
        if shared.draining.load(Ordering::SeqCst) {
            return;
        }
        let now = crate::clock::now()
            .map(crate::clock::rfc3339)
            .unwrap_or_default();
        let seen = *shared.wake.0.lock().unwrap_or_else(|e| e.into_inner());
        let claimed = shared.writer().claim(&now);
        match claimed {
            Ok(Some(row)) => {
                execute(&shared, &rt, row);
                // A finished run may unblock a queued run of the same session.
                shared.kick();
            }
            Ok(None) | Err(_) => {
                let (m, c) = &shared.wake;
                let g = m.lock().unwrap_or_else(|e| e.into_inner());
                if *g == seen {
                    let _ = c.wait_timeout(g, Duration::from_millis(250));
                }
            }
        }
    }
}
