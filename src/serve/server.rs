//! Starting `bob serve` and draining it: the home's server lock, the crash rule, the listener,
//! the workers and the lease keeper, and the shutdown on SIGTERM or SIGINT.

use super::options::Options;
use super::queue::{self, Queue};
use super::recover::{keep_leases, recover};
use super::shared::{DRAIN, Shared, default_thinking, serve_dir};
use super::worker::worker;
use super::{auth, queue_pg, routes};
use crate::error::{Error, Result};
use crate::home::Home;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

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
