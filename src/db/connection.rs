//! The connections of this process to the shared database: opened when first needed, up to a
//! pool's size, opened again when found closed, each statement's error mapped ([`super::errors`]),
//! and the schema brought up to date under an advisory lock.

use super::errors::{map_error, too_new};
use super::{DbUrl, MIGRATIONS, SETTING, schema_mark, tls};
use crate::error::{Code, Error, Result};
use crate::home::Home;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Mutex, MutexGuard, TryLockError};
use std::time::Duration;

/// The advisory lock key migrations run under ("bobmigr" as bytes): any fixed number works,
/// as long as every bob uses the same one.
const MIGRATION_LOCK: i64 = 0x0062_6f62_6d69_6772;

/// How long connecting may take before the database counts as unreachable (unless the URL
/// says `connect_timeout`).
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// The most connections one process opens to the shared database.
pub const MAX_POOL: usize = 64;

/// How many connections a [`Database`] uses at most (see [`set_pool_size`]).
static POOL_SIZE: AtomicUsize = AtomicUsize::new(1);

/// Lets this process use up to `n` connections at once (1..=[`MAX_POOL`]; the default 1 suits
/// a one-shot command). Takes effect at the next call, also on a database already connected.
pub fn set_pool_size(n: usize) {
    POOL_SIZE.store(n.clamp(1, MAX_POOL), Ordering::Relaxed);
}

/// The database connections of this process (up to [`set_pool_size`]), each opened when first
/// needed and again when found closed.
pub struct Database {
    url: DbUrl,
    config: postgres::Config,
    /// The TLS connector (`None`: plain connections only, `sslmode=disable` or unix sockets).
    tls: Option<tokio_postgres_rustls::MakeRustlsConnect>,
    slots: Vec<Mutex<Option<postgres::Client>>>,
    /// Where a call that finds every connection busy waits next (round robin).
    next: AtomicUsize,
    /// Another database of this process whose idle open connections this one uses before
    /// opening its own (the audit log's, see [`super::audit_connection`]).
    borrows_from: Option<&'static Database>,
    /// A connection attempt its caller gave up on (the connect timeout passed) that may still
    /// end: the next attempt waits for it instead of starting another, so a server that never
    /// answers holds at most one such attempt (and its thread) per database.
    pending: Mutex<Option<Receiver<Result<postgres::Client>>>>,
}

impl std::fmt::Debug for Database {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Database").field("url", &self.url).finish()
    }
}

impl Database {
    /// Resolves the password (a `secret:NAME` reference from `home`'s secret store), connects
    /// and brings the schema up to date.
    pub fn connect(url: DbUrl, home: &Home) -> Result<Database> {
        let db = Database::open(url, home)?;
        db.migrate()?;
        Ok(db)
    }

    /// Like [`Database::connect`], without touching the schema (`bob db status`).
    pub fn open(url: DbUrl, home: &Home) -> Result<Database> {
        let mut config = url.config.clone();
        if let Some(name) = &url.password_ref {
            // From the home's own store, never the database: the password unlocks it.
            let password = crate::sealed::local_value(home, name)?.ok_or_else(|| {
                Error::not_found(format!(
                    "{SETTING} names secret {name:?} but this home's own secret store has no \
                     such secret (bob secrets set {name})"
                ))
                .with("setting", SETTING)
                .with("name", name.as_str())
            })?;
            config.password(password);
        }
        // The URL's `connect_timeout` (seconds, as in libpq), else ours.
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(CONNECT_TIMEOUT);
        }
        let tls = match url.over_tcp {
            true => url.tls.connector(SETTING)?,
            false => None,
        };
        let db = Database {
            url,
            config,
            tls,
            slots: (0..MAX_POOL).map(|_| Mutex::new(None)).collect(),
            next: AtomicUsize::new(0),
            borrows_from: None,
            pending: Mutex::new(None),
        };
        drop(db.client()?);
        Ok(db)
    }

    /// A database on `main`'s URL that uses an idle open connection of `main` when there is
    /// one and opens its own only when all of `main`'s are busy (never waiting for them): so
    /// a command that audits outside a store's transaction uses one connection, not two.
    pub(super) fn beside(main: &'static Database) -> Database {
        Database {
            url: main.url.clone(),
            config: main.config.clone(),
            tls: main.tls.clone(),
            slots: (0..MAX_POOL).map(|_| Mutex::new(None)).collect(),
            next: AtomicUsize::new(0),
            borrows_from: Some(main),
            pending: Mutex::new(None),
        }
    }

    /// One of this database's open connections that nobody uses now.
    fn idle_open(&self) -> Option<MutexGuard<'_, Option<postgres::Client>>> {
        let size = POOL_SIZE.load(Ordering::Relaxed).clamp(1, self.slots.len());
        self.slots[..size].iter().find_map(|m| {
            m.try_lock()
                .ok()
                .filter(|g| g.as_ref().is_some_and(|c| !c.is_closed()))
        })
    }

    /// The URL this database was opened with.
    pub fn url(&self) -> &DbUrl {
        &self.url
    }

    /// A free connection (one already open first), opened (again) when there is none or it
    /// was closed; when all [`set_pool_size`] are busy, waits for one.
    fn client(&self) -> Result<MutexGuard<'_, Option<postgres::Client>>> {
        if let Some(g) = self.borrows_from.and_then(Database::idle_open) {
            return Ok(g);
        }
        let size = POOL_SIZE.load(Ordering::Relaxed).clamp(1, self.slots.len());
        let slots = &self.slots[..size];
        let free = |open: bool| {
            slots.iter().find_map(|m| match m.try_lock() {
                Ok(g) if g.is_some() == open => Some(g),
                Ok(_) | Err(TryLockError::WouldBlock) => None,
                Err(TryLockError::Poisoned(p)) => {
                    let g = p.into_inner();
                    (g.is_some() == open).then_some(g)
                }
            })
        };
        let mut guard = match free(true).or_else(|| free(false)) {
            Some(g) => g,
            None => {
                let i = self.next.fetch_add(1, Ordering::Relaxed) % size;
                slots[i].lock().unwrap_or_else(|p| p.into_inner())
            }
        };
        if guard.as_ref().is_none_or(|c| c.is_closed()) {
            *guard = None;
            *guard = Some(self.new_client()?);
        }
        Ok(guard)
    }

    /// A new connection, made within the connect timeout as a whole: reaching the socket, the
    /// TLS handshake and signing in. The client library bounds only the first, so the
    /// connection is made on a thread of its own and given up on when the timeout passes
    /// (`upstream.error`, cause `timeout`, naming the host); that attempt is kept and waited
    /// for by the next one (see [`Database::pending`]).
    fn new_client(&self) -> Result<postgres::Client> {
        let timeout = self
            .config
            .get_connect_timeout()
            .copied()
            .unwrap_or(CONNECT_TIMEOUT);
        let earlier = self
            .pending
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take();
        let waited = earlier.is_some();
        let attempt = match earlier {
            Some(rx) => rx,
            None => self.start_connecting()?,
        };
        match attempt.recv_timeout(timeout) {
            // An earlier attempt's connection, closed since it was made: connect afresh.
            Ok(Ok(c)) if waited && c.is_closed() => self.new_client(),
            Ok(made) => made,
            Err(RecvTimeoutError::Timeout) => {
                let mut pending = self.pending.lock().unwrap_or_else(|p| p.into_inner());
                if pending.is_none() {
                    *pending = Some(attempt);
                }
                Err(self.timed_out(timeout))
            }
            Err(RecvTimeoutError::Disconnected) => Err(Error::internal(
                "the thread connecting to the database ended without an answer",
            )),
        }
    }

    /// Starts connecting on a thread of its own; its outcome arrives on the receiver.
    fn start_connecting(&self) -> Result<Receiver<Result<postgres::Client>>> {
        let (tx, rx) = mpsc::channel();
        let (url, config, tls) = (self.url.clone(), self.config.clone(), self.tls.clone());
        std::thread::Builder::new()
            .name("bob-db-connect".into())
            .spawn(move || {
                let made = connect_now(&config, tls, url.tls.mode()).map_err(|e| {
                    schema_mark::forget_on(&e);
                    map_error(&url, e)
                });
                let _ = tx.send(made);
            })
            .map_err(|e| Error::internal(format!("cannot start connecting: {e}")))?;
        Ok(rx)
    }

    /// The error of a connection that did not finish within `timeout`.
    fn timed_out(&self, timeout: Duration) -> Error {
        let host = self.url.host().to_string();
        Error::new(
            Code::UpstreamError,
            format!(
                "database at {host} is unreachable: timed out while connecting: no answer \
                 within {} s (connect_timeout) from the socket, the TLS handshake or signing in",
                timeout.as_secs_f64()
            ),
        )
        .with("host", host)
        .with("url", self.url.shown().to_string())
        .with("cause", "timeout")
    }

    /// Whether this process's connection to the server is encrypted (`None` when the server
    /// cannot say: it has no `pg_stat_ssl`).
    pub fn encrypted(&self) -> Option<bool> {
        self.with(|c| c.simple_query("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()"))
            .ok()?
            .iter()
            .find_map(|m| match m {
                postgres::SimpleQueryMessage::Row(r) => r.get(0).map(|v| v == "t"),
                _ => None,
            })
    }

    /// Runs `f` on the connection; a PostgreSQL error is mapped by [`Database::error`].
    pub fn with<R>(
        &self,
        f: impl FnOnce(&mut postgres::Client) -> std::result::Result<R, postgres::Error>,
    ) -> Result<R> {
        let mut guard = self.client()?;
        let client = guard.as_mut().expect("client() leaves a connection");
        f(client).map_err(|e| self.error(e))
    }

    /// Runs `f` in one transaction: committed when `f` returns `Ok`, rolled back otherwise
    /// (and by the server, whole, when the connection drops before the commit).
    pub fn transaction<R>(
        &self,
        f: impl FnOnce(&mut postgres::Transaction<'_>) -> Result<R>,
    ) -> Result<R> {
        self.transaction_retrying(f, true)
    }

    fn transaction_retrying<R>(
        &self,
        f: impl FnOnce(&mut postgres::Transaction<'_>) -> Result<R>,
        retry: bool,
    ) -> Result<R> {
        let mut f = Some(f);
        let done = {
            let mut guard = self.client()?;
            let client = guard.as_mut().expect("client() leaves a connection");
            let done = match client.transaction() {
                Ok(mut tx) => {
                    let run = f.take().expect("f is called once");
                    Some(run(&mut tx).and_then(|out| {
                        tx.commit().map_err(|e| self.error(e))?;
                        Ok(out)
                    }))
                }
                Err(e) => {
                    let e = self.error(e);
                    // A connection the server ended while it sat idle (a restart, an
                    // administrator) is found out only when used: BEGIN failed and nothing
                    // was done, so it is made again, once.
                    (!retry || e.code != Code::UpstreamError).then_some(Err(e))
                }
            };
            if done.is_none() {
                *guard = None;
            }
            done
        };
        match (done, f) {
            (Some(out), _) => out,
            (None, Some(f)) => self.transaction_retrying(f, false),
            (None, None) => Err(Error::internal("a transaction ran without an outcome")),
        }
    }

    /// Maps a PostgreSQL error: anything about reaching or keeping the server (no answer,
    /// refused, authentication, a missing database, the server shutting down, a dropped
    /// connection) is `upstream.error` naming the host; a serialization failure or deadlock is
    /// a retryable `conflict`; any other SQL error is `internal.error` with its SQLSTATE.
    pub fn error(&self, e: postgres::Error) -> Error {
        schema_mark::forget_on(&e);
        map_error(&self.url, e)
    }

    /// The schema version the database is at (0 for an empty database).
    pub fn schema_version(&self) -> Result<i32> {
        self.with(schema_version)
    }

    /// Applies the missing [`MIGRATIONS`] (see the module docs); returns the versions applied.
    pub fn migrate(&self) -> Result<Vec<i32>> {
        let latest = latest_version();
        let current = self.schema_version()?;
        if current > latest {
            return Err(too_new(current, latest));
        }
        if current == latest {
            return Ok(Vec::new());
        }
        self.transaction(|tx| {
            tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
                .map_err(|e| map_error(&self.url, e))?;
            tx.batch_execute(
                "CREATE TABLE IF NOT EXISTS bob_schema (
                     version integer PRIMARY KEY,
                     name text NOT NULL,
                     applied_at timestamptz NOT NULL DEFAULT now())",
            )
            .map_err(|e| map_error(&self.url, e))?;
            // Read again under the lock: another node may have migrated meanwhile.
            let current = schema_version_tx(tx).map_err(|e| map_error(&self.url, e))?;
            if current > latest {
                return Err(too_new(current, latest));
            }
            let mut applied = Vec::new();
            for m in MIGRATIONS.iter().filter(|m| m.version > current) {
                tx.batch_execute(m.sql)
                    .map_err(|e| map_error(&self.url, e).with("migration", m.version))?;
                tx.execute(
                    "INSERT INTO bob_schema (version, name) VALUES ($1, $2)",
                    &[&m.version, &m.name],
                )
                .map_err(|e| map_error(&self.url, e))?;
                applied.push(m.version);
            }
            Ok(applied)
        })
    }
}

/// Connects with TLS as the URL asks (`tls`: `None` for plain connections only). Under
/// `prefer`, a failed handshake is tried again without TLS, as libpq does.
fn connect_now(
    config: &postgres::Config,
    tls: Option<tokio_postgres_rustls::MakeRustlsConnect>,
    mode: tls::SslMode,
) -> std::result::Result<postgres::Client, postgres::Error> {
    let Some(tls) = tls else {
        return config.connect(postgres::NoTls);
    };
    match config.connect(tls) {
        Err(e) if mode == tls::SslMode::Prefer && tls::is_tls_failure(&e).is_some() => {
            let mut plain = config.clone();
            plain.ssl_mode(postgres::config::SslMode::Disable);
            plain.connect(postgres::NoTls)
        }
        other => other,
    }
}

/// The newest schema version this binary knows.
pub fn latest_version() -> i32 {
    MIGRATIONS.iter().map(|m| m.version).max().unwrap_or(0)
}

/// The schema version, in one round trip (every command of a node asks it once): a simple
/// query, no statement prepared first; a database with no `bob_schema` table is at 0.
fn schema_version(c: &mut postgres::Client) -> std::result::Result<i32, postgres::Error> {
    let rows = match c.simple_query("SELECT coalesce(max(version), 0) FROM bob_schema") {
        Ok(rows) => rows,
        Err(e) if e.code() == Some(&postgres::error::SqlState::UNDEFINED_TABLE) => return Ok(0),
        Err(e) => return Err(e),
    };
    Ok(rows
        .iter()
        .find_map(|m| match m {
            postgres::SimpleQueryMessage::Row(r) => r.get(0).and_then(|v| v.parse().ok()),
            _ => None,
        })
        .unwrap_or(0))
}

fn schema_version_tx(
    tx: &mut postgres::Transaction<'_>,
) -> std::result::Result<i32, postgres::Error> {
    Ok(tx
        .query_one("SELECT coalesce(max(version), 0) FROM bob_schema", &[])?
        .get(0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::AtomicUsize;

    /// A database whose server accepts connections and never says a word.
    fn hung_server() -> (Database, Arc<AtomicUsize>) {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let accepted = Arc::new(AtomicUsize::new(0));
        let seen = accepted.clone();
        std::thread::spawn(move || {
            let mut held = Vec::new();
            for s in listener.incoming().flatten() {
                seen.fetch_add(1, Ordering::SeqCst);
                held.push(s);
            }
        });
        let url = DbUrl::parse(&format!(
            "postgresql://bob@127.0.0.1:{port}/bob?sslmode=disable&connect_timeout=1"
        ))
        .unwrap();
        let db = Database {
            config: url.config.clone(),
            tls: None,
            slots: (0..MAX_POOL).map(|_| Mutex::new(None)).collect(),
            next: AtomicUsize::new(0),
            borrows_from: None,
            pending: Mutex::new(None),
            url,
        };
        (db, accepted)
    }

    #[test]
    fn a_server_that_never_answers_holds_one_attempt_however_often_bob_tries() {
        let (db, accepted) = hung_server();
        for _ in 0..3 {
            let e = db
                .new_client()
                .err()
                .expect("a hung server is not a connection");
            assert_eq!(e.code, Code::UpstreamError, "{e:?}");
            assert_eq!(e.details["cause"], "timeout", "{e:?}");
        }
        // The first attempt is still waiting for its answer; the later calls waited for it
        // rather than opening connections of their own.
        assert_eq!(accepted.load(Ordering::SeqCst), 1);
        assert!(db.pending.lock().unwrap().is_some());
    }
}
