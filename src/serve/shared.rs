//! What the HTTP handlers and the workers share ([`Shared`]): the home, the options, the run
//! queue's connections and group commit, the runs in flight and their cancel signals, the
//! rate limits and whether the shared database is reachable.

use super::options::Options;
use super::queue::{self, Queue};
use super::{auth, live};
use crate::backend::Cancel;
use crate::error::{Error, Result};
use crate::home::Home;
use crate::turn::ThinkingMode;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Instant;

/// `serve/` under the home.
pub fn serve_dir(home: &Home) -> PathBuf {
    home.root().join("serve")
}

/// What the HTTP handlers and the workers share.
pub(crate) struct Shared {
    pub home: Home,
    pub opts: Options,
    pub verifier: auth::Verifier,
    /// The queue's one writing connection, shared by the HTTP side and the workers: writers
    /// wait on this lock (woken at once) rather than in SQLite's busy handler (which sleeps).
    pub queue: Mutex<Queue>,
    /// A second connection for reads: in WAL mode they never wait for a commit's sync.
    pub reader: Mutex<Queue>,
    /// Accepted runs waiting for the next group commit (see [`Shared::accept`]).
    pub(super) accepting: Mutex<Vec<(queue::NewRun, std::sync::mpsc::SyncSender<Result<()>>)>>,
    pub draining: AtomicBool,
    /// Set once the workers are done: the lease keeper stops.
    pub(super) leases_done: AtomicBool,
    /// The last failure to reach the shared database (`None`: reachable, or no database):
    /// `/healthz` answers `ok: false` and other routes 503 while it is set.
    pub(super) store_down: Mutex<Option<crate::contracts::http::StoreDown>>,
    /// Wakes idle workers when a run is accepted.
    pub wake: (Mutex<u64>, Condvar),
    /// `output.thinking_mode` from config.toml, else `never`.
    pub default_thinking: ThinkingMode,
    /// Arrival times of each chat sender's messages in the last minute, by agent, room and
    /// normalised sender (see `chat`).
    pub chat_rate: Mutex<std::collections::HashMap<String, std::collections::VecDeque<Instant>>>,
    /// Each token's run allowance (see [`Shared::admit_run`]).
    pub run_rate: Mutex<std::collections::HashMap<String, (f64, Instant)>>,
    /// The cancel signal of each claimed run, and who cancelled it (see [`cancel`]).
    pub inflight: Mutex<std::collections::HashMap<String, Inflight>>,
    /// The workers' memory store connections, kept between runs (each turn's retrieval and its
    /// writes use one at a time: up to two per worker).
    pub memory: Arc<crate::memory::MemoryPool>,
}

/// A run a worker holds (or is about to): its turn's cancel signal and who pulled it.
#[derive(Default)]
pub(crate) struct Inflight {
    pub cancel: Cancel,
    /// `http:<token id>` for a cancel request, [`DRAIN`] for a drain that ran out of time.
    pub by: Option<String>,
    /// The answer as it streams, for the run's event stream ([`live`]).
    pub answer: Arc<Mutex<live::AnswerSoFar>>,
}

/// Who cuts a run short when the drain window ends.
pub(super) const DRAIN: &str = "drain";

impl Shared {
    /// The home's redactor (rules and every stored secret), reloaded when a source changes.
    pub fn redactor(&self) -> Result<Arc<crate::redact::Redactor>> {
        crate::redact::for_home(&self.home)
    }

    /// The cancel signal of run `id`, registered for the worker that claimed it. A cancel that
    /// arrived between the claim and this call is already set on it.
    pub(super) fn claim_signal(&self, id: &str) -> Cancel {
        let mut m = self.inflight.lock().unwrap_or_else(|e| e.into_inner());
        m.entry(id.to_string()).or_default().cancel.clone()
    }

    /// Run `id`'s answer so far, while a worker holds it.
    pub(super) fn answer_so_far(&self, id: &str) -> Option<Arc<Mutex<live::AnswerSoFar>>> {
        let m = self.inflight.lock().unwrap_or_else(|e| e.into_inner());
        m.get(id).map(|f| f.answer.clone())
    }

    /// Forgets run `id`'s signal once its row is final; returns who cancelled it, if anyone.
    pub(super) fn release(&self, id: &str) -> Option<String> {
        let mut m = self.inflight.lock().unwrap_or_else(|e| e.into_inner());
        m.remove(id).and_then(|f| f.by)
    }

    pub(super) fn cancelled_by(&self, id: &str) -> Option<String> {
        let m = self.inflight.lock().unwrap_or_else(|e| e.into_inner());
        m.get(id).and_then(|f| f.by.clone())
    }

    /// Puts `run` in the queue, durable on return. Runs accepted at the same moment share one
    /// commit: each caller adds its run to `accepting`, then whoever holds the writer next
    /// commits every run waiting there in one transaction (one sync) and hands each caller
    /// its result.
    pub fn accept(&self, run: queue::NewRun) -> Result<()> {
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        self.accepting
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((run, tx));
        {
            let mut q = self.queue.lock().unwrap_or_else(|e| e.into_inner());
            let batch =
                std::mem::take(&mut *self.accepting.lock().unwrap_or_else(|e| e.into_inner()));
            if !batch.is_empty() {
                let (runs, callers): (Vec<_>, Vec<_>) = batch.into_iter().unzip();
                let results = q.enqueue_all(&runs, self.opts.queue_cap);
                for (caller, r) in callers.into_iter().zip(results) {
                    let _ = caller.send(r);
                }
            }
        }
        rx.recv()
            .unwrap_or_else(|_| Err(Error::internal("the run was not committed")))
    }

    /// Counts one run queued by token `token`: a token bucket of `run_rate` runs that refills
    /// at `run_rate` per minute. `Err(seconds to wait)` when it is empty.
    pub fn admit_run(&self, token: &str) -> std::result::Result<(), u64> {
        let rate = f64::from(self.opts.run_rate);
        if rate == 0.0 {
            return Ok(());
        }
        let now = Instant::now();
        let mut map = self.run_rate.lock().unwrap_or_else(|e| e.into_inner());
        let (tokens, at) = map.entry(token.to_string()).or_insert((rate, now));
        *tokens = (*tokens + now.duration_since(*at).as_secs_f64() * rate / 60.0).min(rate);
        *at = now;
        if *tokens < 1.0 {
            return Err(((1.0 - *tokens) * 60.0 / rate).ceil().max(1.0) as u64);
        }
        *tokens -= 1.0;
        Ok(())
    }

    /// Why the shared database is unreachable, when it is (see [`keep_leases`]).
    pub fn store_down(&self) -> Option<crate::contracts::http::StoreDown> {
        self.store_down
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    pub(super) fn set_store_down(&self, err: Option<&Error>) {
        *self.store_down.lock().unwrap_or_else(|e| e.into_inner()) =
            err.map(|e| crate::contracts::http::StoreDown {
                code: e.code,
                message: e.message.clone(),
                host: e.details.get("host").cloned(),
            });
    }

    /// The writer connection (see [`Shared::queue`]).
    pub fn writer(&self) -> std::sync::MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn kick(&self) {
        let (m, c) = &self.wake;
        *m.lock().unwrap_or_else(|e| e.into_inner()) += 1;
        c.notify_all();
    }
}

/// `[output] thinking_mode` of config.toml (the Openclawssy contracts: the default of a run's `thinking_mode`).
pub(crate) fn default_thinking(home: &Home) -> Result<ThinkingMode> {
    let path = home.config_path();
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Ok(ThinkingMode::default());
    };
    let v: toml::Value = toml::from_str(&text)
        .map_err(|e| Error::invalid(format!("{}: {}", path.display(), e.message())))?;
    match v.get("output").and_then(|o| o.get("thinking_mode")) {
        None => Ok(ThinkingMode::default()),
        Some(m) => m.as_str().and_then(ThinkingMode::parse).ok_or_else(|| {
            Error::invalid(format!(
                "{}: output.thinking_mode must be never, on_error or always",
                path.display()
            ))
        }),
    }
}
