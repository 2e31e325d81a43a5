//! `bob serve`: the HTTP front end (docs/design.md#a-served-run). Like the CLI, it is a front
//! end over the same subsystems: a run is one turn of [`crate::turn::pipeline`], exactly what
//! `bob turn` does. The server owns only HTTP, auth, the durable run queue and its workers.
//!
//! * [`auth`]: bearer tokens, stored hashed in `serve/tokens.json`, compared in constant time.
//! * [`queue`]: the durable run queue, `serve/queue.db` (SQLite, WAL), and its crash rule.
//! * [`routes`]: the endpoints and the guard in front of them.
//! * [`api`]: what every endpoint shares: the Openclawssy error bodies and their HTTP statuses,
//!   body parsing, admitting and queueing a run.
//! * [`chat`]: chat messages in persisted sessions, `/new`, `/resume`, the per-sender rate.
//! * [`admin`]: the dashboard's admin APIs; [`dashboard`]: the embedded page at `/`.
//! * [`conversation`]: the dashboard's conversation view of a session and its list of every
//!   run of the home (`bob turn`, the scheduler and served runs alike).
//! * [`limits`]: the per-address connection cap.
//! * [`openapi`]: the OpenAPI document at `/openapi.json`, and the list of endpoints.
//!
//! Threads: the HTTP side runs on a small tokio runtime; each of `--workers` workers is an OS
//! thread with its own one-thread runtime and its own queue connection, because a turn is a
//! blocking pipeline (tools spawn processes, SQLite, fsyncs). Workers claim runs from the queue
//! (one run per session at a time) and are woken when a run is accepted, else every 250 ms (a
//! run left queued by an earlier server). On the shared store the process keeps up to
//! `--workers` + 3 database connections (workers, the HTTP side, the lease keeper) rather than
//! one for all.
//!
//! Caps: request bodies (`--max-body`, 1 MiB), the request head (16 KiB, and it must arrive
//! within `serve.header_timeout_s`, 5 s, also on an idle kept-alive connection: slowloris and
//! idle sockets), the time to answer a request (`--request-timeout`, 30 s; an SSE stream counts
//! only until its head is sent), an SSE stream's life (`serve.sse_max_s`, an hour), concurrent
//! connections (`serve.max_connections`, 1,024; more wait in the kernel backlog) and those of
//! one client address (`serve.max_connections_per_ip`, 128; more are answered `503` and
//! closed at once, so one client cannot hold every slot), runs each token queues
//! (`serve.run_rate`, 600 a minute, a token bucket), chat messages per sender (`--chat-rate`).
//! Each of these numbers is checked before the server starts ([`Options::validate`]): one it
//! cannot run with is `invalid.request` naming the setting, never a clamp or a panic later.
//!
//! The server does not start when the redaction rules do not load (every answer passes them).
//!
//! One server per home: it holds `serve/server.lock` (a second one gets `conflict`). It may
//! share the home with the CLI (`bob turn`, `bob schedule tick`): the checkpoint revision
//! check settles concurrent turns of one session.
//!
//! SIGTERM (or SIGINT) drains: the listener closes, open connections finish their request, SSE
//! streams end, workers claim no more runs (queued runs stay queued for the next start) and get
//! `--drain-timeout` (20 s) to finish the run they hold. A run still running then is cut short
//! through its cancel signal: if it had called no tool (so nothing of it took effect) it goes
//! back to the queue and the next server runs it; otherwise it is `failed` with reason
//! `interrupted`, as after a crash. The cut-short attempt's turn record (status `cancelled`)
//! stays in `turns.jsonl`. Then the process exits 0.
//!
//! `POST /v1/runs/{id}/cancel` cancels a queued or running run (see [`cancel`]).

mod admin;
mod api;
pub mod auth;
mod chat;
mod conversation;
mod dashboard;
mod limits;
mod live;
pub mod openapi;
pub mod queue;
mod queue_pg;
mod routes;
mod takeover;
mod tokens_pg;

use crate::backend::{Backend, Cancel, Overrides, Route};
use crate::contracts::TurnRecord;
use crate::contracts::audit;
use crate::contracts::http::RunAccepted;
use crate::error::{Error, Result};
use crate::home::Home;
use crate::turn::pipeline::{self, TurnOptions};
use crate::turn::{ThinkingMode, TurnInput};
use queue::{Finish, Queue, RunRow};
use serde_json::Value;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

pub use crate::settings::DEFAULT_BIND;
pub use dashboard::welcome;

/// How the server runs.
#[derive(Debug, Clone)]
pub struct Options {
    pub bind: SocketAddr,
    pub workers: usize,
    /// Most runs waiting in the queue before `queue.full`.
    pub queue_cap: u64,
    pub max_body: usize,
    pub request_timeout: Duration,
    /// `--backend` for every run (else `BOB_BACKEND`, config.toml, the chat settings).
    pub backend: Option<String>,
    /// Chat messages each sender may send per minute.
    pub chat_rate: u32,
    /// How long a drain lets running runs finish before it cuts them short and re-queues them.
    pub drain_timeout: Duration,
    /// The process's settings; `config.toml` is read again for each run.
    pub settings: crate::settings::Settings,
    /// Runs each token may queue per minute (0: no limit).
    pub run_rate: u32,
    /// Connections served at once.
    pub max_connections: usize,
    /// Connections one client address may hold open at once.
    pub max_connections_per_ip: usize,
    /// Time a connection has to send a request's head.
    pub header_timeout: Duration,
    /// Longest an SSE stream stays open.
    pub sse_max: Duration,
    /// With a shared database: how long a claimed run's lease lasts without renewal (another
    /// node recovers the run after it).
    pub lease: Duration,
}

/// The range each of the server's counts must be in: the one table [`Options::from_settings`]
/// and [`Options::validate`] check against (`u64::MAX`: no upper bound).
const COUNTS: &[(&str, u64, u64)] = &[
    ("serve.workers", 1, 256),
    ("serve.queue", 1, u64::MAX),
    ("serve.max_body", 1024, u64::MAX),
    ("serve.chat_rate", 1, u32::MAX as u64),
    // 0: no limit.
    ("serve.run_rate", 0, u32::MAX as u64),
    ("serve.max_connections", 1, 1 << 20),
    ("serve.max_connections_per_ip", 1, u64::MAX),
];

/// The least each of the server's durations may be, in seconds; the most is [`MAX_SECONDS`].
const DURATIONS: &[(&str, f64)] = &[
    ("serve.request_timeout_s", 1.0),
    ("serve.drain_timeout_s", 0.0),
    ("serve.header_timeout_s", 0.1),
    ("serve.sse_max_s", 1.0),
    ("serve.lease_s", 1.0),
];

/// The longest any of the server's durations may be: a year (longer would only overflow a clock).
const MAX_SECONDS: f64 = 365.0 * 24.0 * 3600.0;

impl Options {
    /// The server's options from its settings (a command's flags layered in) and `--backend`,
    /// each number checked as [`Options::validate`] checks it, with an error that also says
    /// where its value came from.
    pub fn from_settings(
        settings: &crate::settings::Settings,
        backend: Option<String>,
    ) -> Result<Options> {
        let bind_text = settings.text("serve.bind").unwrap_or(DEFAULT_BIND);
        let bind: SocketAddr = bind_text.parse().map_err(|_| {
            Error::invalid(format!(
                "{} must be an IP address and port such as 127.0.0.1:8765, not {bind_text:?}",
                origin(settings, "serve.bind")
            ))
            .with("setting", "serve.bind")
        })?;
        let count = |key: &str, default: u64| -> Result<u64> {
            check_count(settings, key, settings.u64(key)?.unwrap_or(default))
        };
        // Checked against ranges that fit the field, so nothing is cut down to fit.
        let size = |key: &str, default: u64| -> Result<usize> {
            count(key, default).map(|n| usize::try_from(n).unwrap_or(usize::MAX))
        };
        let rate = |key: &str, default: u64| -> Result<u32> {
            count(key, default).map(|n| u32::try_from(n).unwrap_or(u32::MAX))
        };
        let seconds = |key: &str, default: f64| -> Result<Duration> {
            check_seconds(settings, key, settings.seconds(key)?.unwrap_or(default))
        };
        Ok(Options {
            bind,
            workers: size("serve.workers", 2)?,
            queue_cap: count("serve.queue", 1000)?,
            max_body: size("serve.max_body", 1024 * 1024)?,
            request_timeout: seconds("serve.request_timeout_s", 30.0)?,
            backend,
            chat_rate: rate("serve.chat_rate", 20)?,
            drain_timeout: seconds("serve.drain_timeout_s", 20.0)?,
            run_rate: rate("serve.run_rate", 600)?,
            max_connections: size("serve.max_connections", 1024)?,
            max_connections_per_ip: size("serve.max_connections_per_ip", 128)?,
            header_timeout: seconds("serve.header_timeout_s", 5.0)?,
            sse_max: seconds("serve.sse_max_s", 3600.0)?,
            lease: seconds("serve.lease_s", 30.0)?,
            settings: settings.clone(),
        })
    }

    /// Checks that every number is one the server can run with, whoever built the options
    /// ([`run`] checks before it starts): `invalid.request` naming the setting and the range it
    /// must be in. Counts: workers 1-256, queue at least 1, max_body at least 1024 bytes,
    /// chat_rate at least 1 (run_rate 0 is no limit), max_connections 1-1048576,
    /// max_connections_per_ip at least 1. Durations: request_timeout and sse_max at least 1 s,
    /// header_timeout at least 0.1 s, each at most a year.
    pub fn validate(&self) -> Result<()> {
        let s = &self.settings;
        let wide = |n: usize| u64::try_from(n).unwrap_or(u64::MAX);
        check_count(s, "serve.workers", wide(self.workers))?;
        check_count(s, "serve.queue", self.queue_cap)?;
        check_count(s, "serve.max_body", wide(self.max_body))?;
        check_count(s, "serve.chat_rate", self.chat_rate.into())?;
        check_count(s, "serve.run_rate", self.run_rate.into())?;
        check_count(s, "serve.max_connections", wide(self.max_connections))?;
        check_count(
            s,
            "serve.max_connections_per_ip",
            wide(self.max_connections_per_ip),
        )?;
        for (key, d) in [
            ("serve.request_timeout_s", self.request_timeout),
            ("serve.drain_timeout_s", self.drain_timeout),
            ("serve.header_timeout_s", self.header_timeout),
            ("serve.sse_max_s", self.sse_max),
            ("serve.lease_s", self.lease),
        ] {
            check_seconds(s, key, d.as_secs_f64())?;
        }
        Ok(())
    }
}

/// `n` when it is in count `key`'s range ([`COUNTS`]), else `invalid.request` naming it.
fn check_count(settings: &crate::settings::Settings, key: &str, n: u64) -> Result<u64> {
    let (lo, hi) = COUNTS
        .iter()
        .find(|(k, ..)| *k == key)
        .map_or((0, u64::MAX), |(_, lo, hi)| (*lo, *hi));
    if (lo..=hi).contains(&n) {
        return Ok(n);
    }
    let range = if hi == u64::MAX {
        format!("at least {lo}")
    } else {
        format!("between {lo} and {hi}")
    };
    Err(out_of_range(settings, key, &range, &n))
}

/// `secs` as a duration when it is in duration `key`'s range ([`DURATIONS`], [`MAX_SECONDS`]),
/// else `invalid.request` naming it.
fn check_seconds(settings: &crate::settings::Settings, key: &str, secs: f64) -> Result<Duration> {
    let lo = DURATIONS
        .iter()
        .find(|(k, _)| *k == key)
        .map_or(0.0, |(_, lo)| *lo);
    if (lo..=MAX_SECONDS).contains(&secs) {
        return Ok(Duration::from_secs_f64(secs));
    }
    let range = format!("between {lo} and {MAX_SECONDS} seconds");
    Err(out_of_range(settings, key, &range, &secs))
}

/// Where setting `key`'s value came from, as an error names it: the key, and its flag,
/// variable or config line when that is not the key itself.
fn origin(settings: &crate::settings::Settings, key: &str) -> String {
    match settings.get(key).map(|e| e.origin.as_str()) {
        Some(o) if o != "default" && !o.contains(key) => format!("{key} ({o})"),
        Some(o) if o != "default" => o.to_string(),
        _ => key.to_string(),
    }
}

/// `invalid.request`: setting `key` is `value`, not in `range`.
fn out_of_range(
    settings: &crate::settings::Settings,
    key: &str,
    range: &str,
    value: &dyn std::fmt::Display,
) -> Error {
    Error::invalid(format!(
        "{} must be {range}, got {value}",
        origin(settings, key)
    ))
    .with("setting", key.to_string())
}

/// `serve/` under the home.
pub fn serve_dir(home: &Home) -> PathBuf {
    home.root().join("serve")
}

/// Whether binding `addr` keeps the server on this machine.
pub fn is_loopback(addr: &SocketAddr) -> bool {
    addr.ip().is_loopback()
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
    accepting: Mutex<Vec<(queue::NewRun, std::sync::mpsc::SyncSender<Result<()>>)>>,
    pub draining: AtomicBool,
    /// Set once the workers are done: the lease keeper stops.
    leases_done: AtomicBool,
    /// The last failure to reach the shared database (`None`: reachable, or no database):
    /// `/healthz` answers `ok: false` and other routes 503 while it is set.
    store_down: Mutex<Option<crate::contracts::http::StoreDown>>,
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
const DRAIN: &str = "drain";

impl Shared {
    /// The home's redactor (rules and every stored secret), reloaded when a source changes.
    pub fn redactor(&self) -> Result<Arc<crate::redact::Redactor>> {
        crate::redact::for_home(&self.home)
    }

    /// The cancel signal of run `id`, registered for the worker that claimed it. A cancel that
    /// arrived between the claim and this call is already set on it.
    fn claim_signal(&self, id: &str) -> Cancel {
        let mut m = self.inflight.lock().unwrap_or_else(|e| e.into_inner());
        m.entry(id.to_string()).or_default().cancel.clone()
    }

    /// Run `id`'s answer so far, while a worker holds it.
    fn answer_so_far(&self, id: &str) -> Option<Arc<Mutex<live::AnswerSoFar>>> {
        let m = self.inflight.lock().unwrap_or_else(|e| e.into_inner());
        m.get(id).map(|f| f.answer.clone())
    }

    /// Forgets run `id`'s signal once its row is final; returns who cancelled it, if anyone.
    fn release(&self, id: &str) -> Option<String> {
        let mut m = self.inflight.lock().unwrap_or_else(|e| e.into_inner());
        m.remove(id).and_then(|f| f.by)
    }

    fn cancelled_by(&self, id: &str) -> Option<String> {
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

    fn set_store_down(&self, err: Option<&Error>) {
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

/// The error a run gets when the server that ran it died (see [`queue`]).
pub fn interrupted_error() -> Error {
    Error::internal("interrupted: the server stopped while the run was running; it was not retried")
        .with("reason", "interrupted")
}

/// The error of a run a caller cancelled.
fn cancelled_error(by: &str) -> Error {
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

/// Applies the crash rule of [`queue`] to rows left `running`. Returns how many were fixed.
fn recover(home: &Home, q: &mut Queue) -> Result<usize> {
    let stale = q.running()?;
    recover_rows(home, q, &stale)
}

/// The crash rule for `stale` rows (left `running` by a process that died): a turn record of
/// the run's latest attempt that this node holds says how it ended; else, with the shared
/// store, the run's audit events there decide ([`takeover`]: queued again when it called no
/// tool); else it failed, `interrupted`, and is never run again.
fn recover_rows(home: &Home, q: &mut Queue, stale: &[RunRow]) -> Result<usize> {
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

fn finish_of(r: &TurnRecord, backend: Option<&Backend>, now: &str) -> Finish {
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

fn worker(shared: Arc<Shared>) {
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

/// Starts the server and serves until SIGTERM or SIGINT. `on_ready` gets the bound address
/// once the listener is up and crashed runs are recovered.
pub fn run(home: &Home, opts: Options, on_ready: impl FnOnce(SocketAddr, usize)) -> Result<()> {
    opts.validate()?;
    let dir = serve_dir(home);
    std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
    let lock_path = dir.join("server.lock");
    let Some(_lock) = crate::store::Lock::try_exclusive(&lock_path)? else {
        return Err(Error::conflict(format!(
            "another bob serve is running on this home ({} is locked)",
            lock_path.display()
        )));
    };
    // A server checks the redactor's sources at every durable write of every run.
    crate::redact::watch_sources();
    // Every answer passes the redactor: rules that do not load would make each one a 500, so
    // the server does not start on them.
    crate::redact::for_home(home).map_err(|e| {
        let mut err = Error::new(
            e.code,
            format!(
                "the redactor (redaction rules and stored secrets) does not load, so no \
                 answer could be served: {}",
                e.message
            ),
        );
        err.details = e.details;
        err
    })?;
    let node = node_id(&dir)?;
    // On the shared store every worker, the HTTP side (queue writer and reader) and the lease
    // keeper call the database at once: one connection each rather than one for all.
    crate::db::set_pool_size(opts.workers.max(1) + 3);
    let mut q = open_queue(&dir, &node, opts.lease)?;
    let recovered = recover(home, &mut q)?;
    let default_thinking = default_thinking(home)?;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| Error::internal(format!("starting the async runtime: {e}")))?;
    let listener = rt
        .block_on(tokio::net::TcpListener::bind(opts.bind))
        .map_err(|e| Error::invalid(format!("cannot bind {}: {e}", opts.bind)))?;
    let addr = listener
        .local_addr()
        .map_err(|e| Error::internal(e.to_string()))?;
    let shared = Arc::new(Shared {
        home: home.clone(),
        verifier: auth::Verifier::new(&dir),
        queue: Mutex::new(q),
        reader: Mutex::new(open_queue(&dir, &node, opts.lease)?),
        accepting: Mutex::new(Vec::new()),
        draining: AtomicBool::new(false),
        leases_done: AtomicBool::new(false),
        store_down: Mutex::new(None),
        wake: (Mutex::new(0), Condvar::new()),
        default_thinking,
        chat_rate: Mutex::new(Default::default()),
        run_rate: Mutex::new(Default::default()),
        inflight: Mutex::new(Default::default()),
        memory: Arc::new(crate::memory::MemoryPool::new(
            home,
            2 * opts.workers.max(1),
        )),
        opts: opts.clone(),
    });
    let workers: Vec<_> = (0..opts.workers.max(1))
        .map(|i| {
            let s = shared.clone();
            std::thread::Builder::new()
                .name(format!("bob-worker-{i}"))
                .spawn(move || worker(s))
                .map_err(|e| Error::internal(format!("starting a worker: {e}")))
        })
        .collect::<Result<_>>()?;
    let keeper = {
        let s = shared.clone();
        std::thread::Builder::new()
            .name("bob-leases".into())
            .spawn(move || keep_leases(s))
            .map_err(|e| Error::internal(format!("starting the lease keeper: {e}")))?
    };
    on_ready(addr, recovered);
    let app = routes::router(shared.clone());
    rt.block_on(routes::serve(listener, app, shared.clone()));
    shared.draining.store(true, Ordering::SeqCst);
    shared.kick();
    // Running runs get the drain window to finish; then they are cut short (and re-queued).
    let deadline = Instant::now() + opts.drain_timeout;
    while workers.iter().any(|w| !w.is_finished()) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    if workers.iter().any(|w| !w.is_finished()) {
        let mut m = shared.inflight.lock().unwrap_or_else(|e| e.into_inner());
        for f in m.values_mut() {
            f.by.get_or_insert_with(|| DRAIN.to_string());
            f.cancel.cancel();
        }
    }
    for w in workers {
        let _ = w.join();
    }
    shared.leases_done.store(true, Ordering::SeqCst);
    let _ = keeper.join();
    Ok(())
}

/// The one place the server's run queue picks its backend: the shared database's when
/// `database.url` is set (this node named `node`, its leases `lease` long), else the home's
/// `dir/queue.db`.
fn open_queue(dir: &std::path::Path, node: &str, lease: Duration) -> Result<Queue> {
    match crate::db::shared()? {
        Some(db) => Ok(Box::new(queue_pg::PgQueue::new(db, node, lease))),
        None => Ok(Box::new(queue::SqliteQueue::open(&dir.join("queue.db"))?)),
    }
}

/// This server's node id (`serve/node`, made once): the owner of the runs it claims in a
/// shared queue, the same across restarts so a restarted node recovers its own runs at once.
fn node_id(dir: &std::path::Path) -> Result<String> {
    let path = dir.join("node");
    match std::fs::read_to_string(&path) {
        Ok(text) if !text.trim().is_empty() => return Ok(text.trim().to_string()),
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(Error::io(&path, e)),
    }
    let id = format!("node_{}", uuid::Uuid::new_v4().simple());
    crate::store::write_text_atomic(&path, &format!("{id}\n"))?;
    Ok(id)
}

/// With a shared queue: renews this node's leases a few times per lease (at most every 2 s),
/// hands cancels asked on other nodes to the runs' turns, and recovers the runs of nodes whose
/// leases ran out. A database that cannot be reached marks the store down (`/healthz` says
/// so) and is tried again, reconnecting, on the next beat.
fn keep_leases(shared: Arc<Shared>) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::Settings;

    /// Options a library caller builds by hand are checked too: `run` refuses them before it
    /// touches the home, where a chat rate of 0 used to reach the rate limiter's `expect`.
    #[test]
    fn options_built_by_hand_are_validated_before_the_server_starts() {
        let good = Options::from_settings(&Settings::default(), None).unwrap();
        assert!(good.validate().is_ok());
        let dir = tempfile::tempdir().unwrap();
        let home = Home::at(dir.path().join("home"));
        for (opts, setting) in [
            (
                Options {
                    chat_rate: 0,
                    ..good.clone()
                },
                "serve.chat_rate",
            ),
            (
                Options {
                    workers: 0,
                    ..good.clone()
                },
                "serve.workers",
            ),
            (
                Options {
                    max_connections: usize::MAX,
                    ..good.clone()
                },
                "serve.max_connections",
            ),
            (
                Options {
                    sse_max: Duration::MAX,
                    ..good.clone()
                },
                "serve.sse_max_s",
            ),
            (
                Options {
                    header_timeout: Duration::ZERO,
                    ..good.clone()
                },
                "serve.header_timeout_s",
            ),
        ] {
            let e = run(&home, opts, |_, _| panic!("the server started")).unwrap_err();
            assert_eq!(e.code, crate::error::Code::InvalidRequest, "{e:?}");
            assert_eq!(e.details["setting"], setting, "{e:?}");
        }
        assert!(
            !home.root().exists(),
            "run wrote to the home before refusing"
        );
    }
}
