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
mod cancel;
mod chat;
mod conversation;
mod dashboard;
mod limits;
mod live;
pub mod openapi;
mod options;
pub mod queue;
mod queue_pg;
mod recover;
mod routes;
mod server;
mod shared;
mod takeover;
mod tokens_pg;
mod worker;

pub use crate::settings::DEFAULT_BIND;
pub use cancel::interrupted_error;
pub use dashboard::welcome;
pub use options::{Options, is_loopback};
pub use server::run;
pub use shared::serve_dir;
pub(crate) use shared::{Shared, default_thinking};
