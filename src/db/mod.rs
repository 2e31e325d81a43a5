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
//!   choose TLS as in libpq ([`tls`]: `prefer` by default; never over a unix socket), and
//!   `sslcert`/`sslkey` a client certificate ([`url`] parses the rest).
//! * **Connecting.** [`Database::connect`] connects once per process (within a 10 s connect
//!   timeout, or the URL's `connect_timeout`, for the whole connection: socket, TLS handshake
//!   and signing in) and brings the schema up to date
//!   ([`connection`]). A one-shot command uses one connection; a long-running process that
//!   calls the stores from several threads (`bob serve`) raises [`set_pool_size`], and each
//!   call then takes a free connection of that many, opened as they are first needed (a call
//!   finding them all busy waits for one). Any failure to reach or talk to the server
//!   (refused, unknown host, authentication, a missing database, a dropped connection) is
//!   `upstream.error` (exit 6) naming the host and saying its cause (`details.cause`, see
//!   [`errors`]), never a panic and never the password (a failed TLS negotiation says so,
//!   with the mode and why). A connection found closed is opened again on the next call; a
//!   transaction cut off by a dropped connection is rolled back whole by the server.
//! * **Migrations.** [`MIGRATIONS`] are numbered; [`Database::migrate`] applies the missing
//!   ones in one transaction under a transaction-scoped advisory lock, so two nodes starting at
//!   once apply each migration exactly once. A node checks the version once and then keeps
//!   it in its home's cache, checking again after a statement fails as a changed schema would
//!   make it fail (`schema_mark`). A database whose schema is newer than this binary
//!   knows is refused (`conflict`): an older node never writes into a newer schema.

mod connection;
mod errors;
mod migrations;
mod schema_mark;
pub mod tls;
mod url;

pub use connection::{Database, MAX_POOL, latest_version, set_pool_size};
pub use migrations::MIGRATIONS;
pub use url::{DbUrl, shown_url};

use crate::error::{Error, Result};
use crate::home::Home;
use std::sync::{Mutex, OnceLock};

/// The setting that selects the shared store.
pub const SETTING: &str = "database.url";

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
/// [`shared`]'s connection is idle uses that one (a [`Database`] beside it), so a command
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
