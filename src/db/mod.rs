//! The shared store: one PostgreSQL database that several bob nodes use at once.
//!
//! When the setting `database.url` is unset (the default) nothing here is used and every store
//! lives under the home as it always did. When it is set, the stores that support it keep
//! their data in that database instead; each store decides through [`shared`] (the one place a
//! backend is chosen), so a command never knows which backend it talks to.
//!
//! This module promises:
//!
//! * **The URL.** [`DbUrl::parse`] takes a `postgres://` or `postgresql://` URL (a host name or
//!   a unix-socket directory as `host=` or a percent-encoded host, port, user, password,
//!   dbname, `sslmode`). Anything else is `invalid.request` naming the setting. A password
//!   written `secret:NAME` is read from the home's secret store when connecting, so the
//!   password itself sits in no config file. [`DbUrl::shown`] is the URL with every password
//!   blanked (`***`): the only form bob ever prints or records. `sslmode` and `sslrootcert`
//!   choose TLS as in libpq ([`tls`]: `prefer` by default; never over a unix socket).
//! * **Connecting.** [`Database::connect`] connects once per process (with a 10 s connect
//!   timeout) and brings the schema up to date. A one-shot command uses one connection; a
//!   long-running process that calls the stores from several threads (`bob serve`) raises
//!   [`set_pool_size`], and each call then takes a free connection of that many, opened as
//!   they are first needed (a call finding them all busy waits for one). Any failure to reach or talk to the server
//!   (refused, unknown host, authentication, a missing database, a dropped connection) is
//!   `upstream.error` (exit 6) naming the host, never a panic (a failed TLS negotiation says
//!   so, with the mode and why). A connection found closed is
//!   opened again on the next call; a transaction cut off by a dropped connection is rolled
//!   back whole by the server.
//! * **Migrations.** [`MIGRATIONS`] are numbered; [`Database::migrate`] applies the missing
//!   ones in one transaction under a transaction-scoped advisory lock, so two nodes starting at
//!   once apply each migration exactly once. A node checks the version once and then keeps
//!   it in its home's cache, checking again after a statement fails as a changed schema would
//!   make it fail (`schema_mark`). A database whose schema is newer than this binary
//!   knows is refused (`conflict`): an older node never writes into a newer schema.

mod migrations;
mod schema_mark;
pub mod tls;

pub use migrations::MIGRATIONS;

use crate::error::{Code, Error, Result};
use crate::home::Home;
use std::str::FromStr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock, TryLockError};
use std::time::Duration;

/// The setting that selects the shared store.
pub const SETTING: &str = "database.url";

/// The advisory lock key migrations run under ("bobmigr" as bytes): any fixed number works,
/// as long as every bob uses the same one.
const MIGRATION_LOCK: i64 = 0x0062_6f62_6d69_6772;

/// How long connecting may take before the database counts as unreachable.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// A parsed `database.url`.
#[derive(Clone)]
pub struct DbUrl {
    config: postgres::Config,
    shown: String,
    host: String,
    password_ref: Option<String>,
    tls: tls::TlsSettings,
    /// Whether a host of the URL is reached over TCP (a unix socket never uses TLS).
    over_tcp: bool,
}

impl std::fmt::Debug for DbUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.shown)
    }
}

fn bad_url(message: impl std::fmt::Display) -> Error {
    Error::invalid(format!("{SETTING}: {message}")).with("setting", SETTING)
}

impl DbUrl {
    /// Parses a `postgres://` / `postgresql://` URL (see the module docs).
    pub fn parse(text: &str) -> Result<DbUrl> {
        let text = text.trim();
        let url = url::Url::parse(text)
            .map_err(|e| bad_url(format!("not a URL ({e}); expected postgres://…")))?;
        if !matches!(url.scheme(), "postgres" | "postgresql") {
            return Err(bad_url(format!(
                "scheme {:?} is not postgres:// or postgresql://",
                url.scheme()
            )));
        }
        let shown = blank_password(&url);
        let pairs: Vec<(String, String)> = url
            .query_pairs()
            .map(|(k, v)| (k.into(), v.into()))
            .collect();
        let tls = tls::TlsSettings::from_pairs(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .map_err(bad_url)?;
        // The TLS keys are read here, not by the client (which knows fewer modes).
        let text = without_query_keys(&query_host_wins(text, &url), &tls::KEYS);
        let mut config = postgres::Config::from_str(&text).map_err(bad_url)?;
        let over_tcp = config
            .get_hosts()
            .iter()
            .any(|h| matches!(h, postgres::config::Host::Tcp(_)));
        config.ssl_mode(if over_tcp {
            tls.client_mode()
        } else {
            postgres::config::SslMode::Disable
        });
        let host = match (config.get_hosts().first(), config.get_ports().first()) {
            (None, _) => {
                return Err(bad_url(
                    "names no host: give a host name or a unix-socket directory \
                     (postgres://user@host/db or postgres:///db?host=/run/postgresql)",
                ));
            }
            (Some(postgres::config::Host::Tcp(h)), port) => {
                format!("{h}:{}", port.copied().unwrap_or(5432))
            }
            (Some(postgres::config::Host::Unix(dir)), _) => dir.display().to_string(),
        };
        let password_ref = config
            .get_password()
            .and_then(|p| std::str::from_utf8(p).ok())
            .and_then(|p| p.strip_prefix(crate::sealed::REF_PREFIX))
            .map(|name| name.trim().to_string());
        Ok(DbUrl {
            config,
            shown,
            host,
            password_ref,
            tls,
            over_tcp,
        })
    }

    /// The `sslmode` asked for (`prefer` when the URL names none).
    pub fn ssl_mode(&self) -> tls::SslMode {
        self.tls.mode()
    }

    /// The URL with every password blanked: the only form bob prints.
    pub fn shown(&self) -> &str {
        &self.shown
    }

    /// The password written in the URL itself (not a `secret:NAME` reference), for the
    /// redactor's list of values never to record.
    pub fn literal_password(&self) -> Option<String> {
        if self.password_ref.is_some() {
            return None;
        }
        self.config
            .get_password()
            .map(|p| String::from_utf8_lossy(p).into_owned())
            .filter(|p| !p.is_empty())
    }

    /// The server the URL names: `host:port`, or the unix-socket directory.
    pub fn host(&self) -> &str {
        &self.host
    }
}

/// `text` without the host of its authority when its query names `host` too and the authority
/// names no port (`postgresql://bob@localhost/db?host=/run/postgresql`): the query's host
/// wins, as in libpq, so the client never tries (and waits on) a server the URL did not mean.
fn query_host_wins(text: &str, url: &url::Url) -> String {
    if !url.query_pairs().any(|(k, _)| k == "host") || url.port().is_some() {
        return text.to_string();
    }
    let Some(host) = url.host_str().filter(|h| !h.is_empty()) else {
        return text.to_string();
    };
    let Some((scheme, rest)) = text.split_once("://") else {
        return text.to_string();
    };
    let end = rest.find(['/', '?']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(end);
    let (user, at) = match authority.rfind('@') {
        Some(i) => (&authority[..i], "@"),
        None => ("", ""),
    };
    let host_part = &authority[user.len() + at.len()..];
    if !host_part.eq_ignore_ascii_case(host) {
        return text.to_string();
    }
    format!("{scheme}://{user}{at}{tail}")
}

/// `text` without the query pairs named `keys`.
fn without_query_keys(text: &str, keys: &[&str]) -> String {
    let Some((head, query)) = text.split_once('?') else {
        return text.to_string();
    };
    let kept: Vec<&str> = query
        .split('&')
        .filter(|pair| !keys.contains(&pair.split_once('=').map_or(*pair, |(k, _)| k)))
        .collect();
    if kept.is_empty() {
        head.to_string()
    } else {
        format!("{head}?{}", kept.join("&"))
    }
}

/// `text` with its password blanked, for `bob config show`: the URL with `***` for the
/// password when it parses as a URL, else `***` whole (a malformed value may hold anything).
pub fn shown_url(text: &str) -> String {
    url::Url::parse(text.trim())
        .map(|u| blank_password(&u))
        .unwrap_or_else(|_| "***".to_string())
}

fn blank_password(url: &url::Url) -> String {
    let mut u = url.clone();
    if u.password().is_some() {
        let _ = u.set_password(Some("***"));
    }
    if u.query_pairs().any(|(k, _)| k == "password") {
        let pairs: Vec<(String, String)> = u
            .query_pairs()
            .map(|(k, v)| {
                let v = if k == "password" {
                    "***".to_string()
                } else {
                    v.into_owned()
                };
                (k.into_owned(), v)
            })
            .collect();
        u.query_pairs_mut().clear().extend_pairs(pairs);
    }
    u.to_string()
}

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
    /// opening its own (the audit log's, see [`audit_connection`]).
    borrows_from: Option<&'static Database>,
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
        };
        drop(db.client()?);
        Ok(db)
    }

    /// A database on `main`'s URL that uses an idle open connection of `main` when there is
    /// one and opens its own only when all of `main`'s are busy (never waiting for them): so
    /// a command that audits outside a store's transaction uses one connection, not two.
    fn beside(main: &'static Database) -> Database {
        Database {
            url: main.url.clone(),
            config: main.config.clone(),
            tls: main.tls.clone(),
            slots: (0..MAX_POOL).map(|_| Mutex::new(None)).collect(),
            next: AtomicUsize::new(0),
            borrows_from: Some(main),
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

    /// A new connection, with TLS as the URL asks. Under `prefer`, a failed handshake is tried
    /// again without TLS, as libpq does.
    fn new_client(&self) -> Result<postgres::Client> {
        let Some(tls) = &self.tls else {
            return self
                .config
                .connect(postgres::NoTls)
                .map_err(|e| self.error(e));
        };
        match self.config.connect(tls.clone()) {
            Err(e)
                if self.url.tls.mode() == tls::SslMode::Prefer
                    && tls::is_tls_failure(&e).is_some() =>
            {
                let mut plain = self.config.clone();
                plain.ssl_mode(postgres::config::SslMode::Disable);
                plain.connect(postgres::NoTls).map_err(|e| self.error(e))
            }
            other => other.map_err(|e| self.error(e)),
        }
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

/// The newest schema version this binary knows.
pub fn latest_version() -> i32 {
    MIGRATIONS.iter().map(|m| m.version).max().unwrap_or(0)
}

fn too_new(current: i32, latest: i32) -> Error {
    Error::conflict(format!(
        "the database's schema is at version {current}, newer than this bob knows ({latest}): \
         upgrade bob on this node"
    ))
    .retryable(false)
    .with("schema_version", current)
    .with("latest_version", latest)
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

fn map_error(url: &DbUrl, e: postgres::Error) -> Error {
    let host = url.host().to_string();
    if let Some(why) = tls::is_tls_failure(&e) {
        let mode = url.ssl_mode().name();
        return Error::new(
            Code::UpstreamError,
            format!("database at {host}: TLS failed (sslmode={mode}): {why}"),
        )
        .with("host", host)
        .with("url", url.shown().to_string())
        .with("sslmode", mode)
        .with("tls", true);
    }
    let Some(db) = e.as_db_error() else {
        // No answer from the server: refused, unreachable, timed out, closed mid-way.
        let (cause, why) = cause_of(&e);
        return Error::new(
            Code::UpstreamError,
            format!("database at {host} is unreachable: {why}"),
        )
        .with("host", host)
        .with("url", url.shown().to_string())
        .with("cause", cause);
    };
    let state = db.code().code().to_string();
    let class = &state[..2.min(state.len())];
    let err = match (class, state.as_str()) {
        // Connection exception, insufficient resources, operator intervention (shutdown),
        // invalid authorization, an unknown database.
        ("08" | "53" | "57" | "28", _) | (_, "3D000") => Error::new(
            Code::UpstreamError,
            format!("database at {host}: {}", db.message()),
        )
        .with("cause", server_cause(&state)),
        (_, "40001" | "40P01") => {
            Error::conflict(format!("database at {host}: {} (retry)", db.message()))
        }
        _ => Error::internal(format!("database at {host}: {}", db.message())),
    };
    err.with("host", host).with("sqlstate", state)
}

/// Why a connection the server answered was refused or ended, by its SQLSTATE: the `cause` of
/// the error's details.
fn server_cause(state: &str) -> &'static str {
    match state {
        "28P01" | "28000" => "auth_failed",
        "3D000" => "no_database",
        "53300" => "too_many_connections",
        "57P03" => "server_starting",
        s if s.starts_with("57") => "server_shutting_down",
        s if s.starts_with("53") => "server_resources",
        _ => "connection_lost",
    }
}

/// Why connecting failed when the server gave no answer of its own, as a short name (the
/// `cause` of the error's details) and in words: the client's own error says only that
/// connecting failed, the cause is among its sources. Holds no password (no source of this
/// kind carries one).
fn cause_of(e: &postgres::Error) -> (&'static str, String) {
    use std::io::ErrorKind;
    let top = e.to_string();
    let mut chain = Vec::new();
    let mut source = std::error::Error::source(e);
    let mut io = None;
    while let Some(s) = source {
        chain.push(s.to_string());
        if io.is_none() {
            io = s.downcast_ref::<std::io::Error>();
        }
        source = s.source();
    }
    let detail = chain.join(": ");
    let named = |cause: &'static str, words: &str| {
        let why = if detail.is_empty() {
            words.to_string()
        } else {
            format!("{words} ({detail})")
        };
        (cause, why)
    };
    if let Some(io) = io {
        let text = io.to_string();
        return match io.kind() {
            ErrorKind::ConnectionRefused => {
                named("refused", "connection refused: no server listens there")
            }
            ErrorKind::TimedOut => named("timeout", "timed out while connecting"),
            ErrorKind::NotFound => named("no_socket", "no server socket in that directory"),
            ErrorKind::PermissionDenied => named("permission_denied", "permission denied"),
            ErrorKind::HostUnreachable | ErrorKind::NetworkUnreachable => {
                named("host_unreachable", "no route to the host")
            }
            ErrorKind::ConnectionReset
            | ErrorKind::ConnectionAborted
            | ErrorKind::BrokenPipe
            | ErrorKind::UnexpectedEof => named("closed", "the server closed the connection"),
            _ if text.contains("lookup address") => {
                named("unknown_host", "the host name could not be resolved")
            }
            _ => named("io", &top),
        };
    }
    if top.starts_with("authentication error") {
        return named("auth_failed", "authentication failed");
    }
    if top.starts_with("connection closed") {
        return named("closed", "the server closed the connection");
    }
    if top.starts_with("timeout") {
        return named("timeout", "timed out waiting for the server");
    }
    named("unreachable", &top)
}

/// What this process was told about the shared store at start-up.
struct Installed {
    url: Option<String>,
    home: Home,
}

static INSTALLED: OnceLock<Installed> = OnceLock::new();
static SHARED: OnceLock<Database> = OnceLock::new();
static CONNECTING: Mutex<()> = Mutex::new(());

/// Records the process's `database.url` (unset: `None`) and home, once, at start-up; nothing
/// connects until a store asks ([`shared`]).
pub fn install(url: Option<&str>, home: &Home) {
    let _ = INSTALLED.set(Installed {
        url: url.map(str::to_string),
        home: home.clone(),
    });
}

/// Whether this process uses the shared store (`database.url` is set).
pub fn is_configured() -> bool {
    INSTALLED.get().is_some_and(|i| i.url.is_some())
}

/// The one place a store learns its backend: `None` when `database.url` is unset (the home's
/// embedded stores), else the process's connection to the shared database, connected and
/// migrated on first use. A bad URL is `invalid.request`; an unreachable database is
/// `upstream.error` naming the host (tried again on the next call).
pub fn shared() -> Result<Option<&'static Database>> {
    let Some(installed) = INSTALLED.get() else {
        return Ok(None);
    };
    let Some(text) = &installed.url else {
        return Ok(None);
    };
    if let Some(db) = SHARED.get() {
        return Ok(Some(db));
    }
    let _one = CONNECTING.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(db) = SHARED.get() {
        return Ok(Some(db));
    }
    let url = DbUrl::parse(text)?;
    let latest = latest_version();
    // A node that found this database at this binary's schema before does not ask again
    // (see `schema_mark`).
    let db = if schema_mark::is_current(&installed.home, &url, latest) {
        Database::open(url, &installed.home)?
    } else {
        let db = Database::connect(url, &installed.home)?;
        schema_mark::remember(&installed.home, db.url(), latest);
        db
    };
    Ok(Some(SHARED.get_or_init(|| db)))
}

static AUDIT: OnceLock<Database> = OnceLock::new();
static SECRETS: OnceLock<Database> = OnceLock::new();

/// The audit log's connections to the shared database (`None` when `database.url` is unset).
/// An act is audited while the store carrying it out may hold its own transaction open on
/// [`shared`]'s connection (the act is recorded before the change commits), so an audit write
/// made then needs a connection of its own: the audit row commits first. One made while
/// [`shared`]'s connection is idle uses that one (see [`Database::beside`]), so a command
/// opens a second connection only when it needs one.
pub fn audit_connection() -> Result<Option<&'static Database>> {
    side_connection(&AUDIT)
}

/// A connection of this process to the shared database for the secrets store (`None` when
/// `database.url` is unset): the redactor reads the secrets during any durable write, which may
/// happen while a store holds its transaction open on [`shared`]'s connection.
pub fn secrets_connection() -> Result<Option<&'static Database>> {
    side_connection(&SECRETS)
}

fn side_connection(cell: &'static OnceLock<Database>) -> Result<Option<&'static Database>> {
    let Some(main) = shared()? else {
        return Ok(None);
    };
    if let Some(db) = cell.get() {
        return Ok(Some(db));
    }
    let _one = CONNECTING.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(db) = cell.get() {
        return Ok(Some(db));
    }
    Ok(Some(cell.get_or_init(|| Database::beside(main))))
}

/// The secret the installed `database.url`'s password names (`secret:NAME`), if any: that
/// secret stays in the home's own store.
pub fn password_secret() -> Option<String> {
    let text = INSTALLED.get()?.url.as_deref()?;
    DbUrl::parse(text).ok()?.password_ref
}

/// What `bob db status` reports.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Status {
    /// `postgres` when `database.url` is set, else `embedded` (the home's own stores).
    pub backend: &'static str,
    /// The URL, password blanked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The server: `host:port` or the unix-socket directory.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    /// The `sslmode` asked for (`prefer` when the URL names none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sslmode: Option<&'static str>,
    /// Whether the connection is encrypted (absent when unreachable or the server cannot say).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tls: Option<bool>,
    pub reachable: bool,
    /// The schema version the database is at (0: not migrated yet); absent when unreachable.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub schema_version: Option<i32>,
    /// The newest schema version this bob knows.
    pub latest_version: i32,
    /// Why the database could not be reached.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

fn installed_url() -> Result<Option<(DbUrl, &'static Home)>> {
    match INSTALLED.get() {
        Some(Installed {
            url: Some(text),
            home,
        }) => Ok(Some((DbUrl::parse(text)?, home))),
        _ => Ok(None),
    }
}

/// The state of this process's shared store, and the error that made it unreachable (the
/// status says so too). Reads only: applies no migration.
pub fn status() -> Result<(Status, Option<Error>)> {
    let latest = latest_version();
    let Some((url, home)) = installed_url()? else {
        let status = Status {
            backend: "embedded",
            url: None,
            host: None,
            sslmode: None,
            tls: None,
            reachable: false,
            schema_version: None,
            latest_version: latest,
            error: None,
        };
        return Ok((status, None));
    };
    let mut status = Status {
        backend: "postgres",
        url: Some(url.shown().to_string()),
        host: Some(url.host().to_string()),
        sslmode: Some(url.ssl_mode().name()),
        tls: None,
        reachable: false,
        schema_version: None,
        latest_version: latest,
        error: None,
    };
    match Database::open(url, home).and_then(|db| Ok((db.schema_version()?, db.encrypted()))) {
        Ok((v, encrypted)) => {
            status.reachable = true;
            status.schema_version = Some(v);
            status.tls = encrypted;
            Ok((status, None))
        }
        Err(e) => {
            status.error = Some(e.message.clone());
            Ok((status, Some(e)))
        }
    }
}

/// What `bob db migrate` did.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Migrated {
    pub url: String,
    pub host: String,
    /// The versions applied now (empty: the schema was up to date).
    pub applied: Vec<i32>,
    pub schema_version: i32,
}

/// Brings the shared store's schema up to date. `invalid.request` when `database.url` is
/// unset.
pub fn migrate() -> Result<Migrated> {
    let Some((url, home)) = installed_url()? else {
        return Err(Error::invalid(format!(
            "{SETTING} is not set: this home uses its embedded stores, which need no migration \
             (set BOB_DATABASE_URL or [database] url in config.toml)"
        ))
        .with("setting", SETTING));
    };
    let db = Database::open(url, home)?;
    let applied = db.migrate()?;
    Ok(Migrated {
        url: db.url().shown().to_string(),
        host: db.url().host().to_string(),
        applied,
        schema_version: db.schema_version()?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_host_in_the_query_wins_over_the_authoritys() {
        let u = DbUrl::parse("postgresql://bob@localhost/bob?host=/run/pg").unwrap();
        assert_eq!(u.host(), "/run/pg");
        assert_eq!(u.config.get_hosts().len(), 1);
        assert_eq!(u.config.get_user(), Some("bob"));
        assert_eq!(u.config.get_dbname(), Some("bob"));
        let u = DbUrl::parse("postgresql://bob:pw@LOCALHOST/bob?host=/run/pg").unwrap();
        assert_eq!(u.host(), "/run/pg");
        assert_eq!(u.literal_password().as_deref(), Some("pw"));
        // With a port, or without a host in the query, the URL is read as written.
        let u = DbUrl::parse("postgresql://bob@db:5433/bob?host=/run/pg").unwrap();
        assert_eq!(u.host(), "db:5433");
        let u = DbUrl::parse("postgresql://bob@db/bob").unwrap();
        assert_eq!(u.host(), "db:5432");
    }

    #[test]
    fn the_tls_keys_are_read_by_bob_and_the_rest_by_the_client() {
        let u = DbUrl::parse(
            "postgresql://bob@db:5433/bob?sslmode=verify-full&sslrootcert=/etc/ca.pem&application_name=x",
        )
        .unwrap();
        assert_eq!(u.ssl_mode(), tls::SslMode::VerifyFull);
        assert_eq!(u.config.get_application_name(), Some("x"));
        assert_eq!(u.config.get_ssl_mode(), postgres::config::SslMode::Require);
        // Over a unix socket no TLS is negotiated, whatever the mode.
        let u = DbUrl::parse("postgresql:///bob?host=/run/pg&sslmode=require").unwrap();
        assert_eq!(u.ssl_mode(), tls::SslMode::Require);
        assert_eq!(u.config.get_ssl_mode(), postgres::config::SslMode::Disable);
        assert!(DbUrl::parse("postgresql://db/bob?sslmode=allow").is_err());
        assert_eq!(
            without_query_keys("postgres://h/d?sslmode=require", &tls::KEYS),
            "postgres://h/d"
        );
    }
}
