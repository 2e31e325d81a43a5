//! What a PostgreSQL error means to a command: the canonical code, the host named, and, for
//! a connection that failed, its cause in words and as `details.cause` (never the password).

use super::{DbUrl, tls};
use crate::error::{Code, Error};

pub(super) fn too_new(current: i32, latest: i32) -> Error {
    Error::conflict(format!(
        "the database's schema is at version {current}, newer than this bob knows ({latest}): \
         upgrade bob on this node"
    ))
    .retryable(false)
    .with("schema_version", current)
    .with("latest_version", latest)
}

pub(super) fn map_error(url: &DbUrl, e: postgres::Error) -> Error {
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
    if top.contains("password missing") || detail.contains("password missing") {
        return named(
            "auth_failed",
            "the server asks for a password and the URL gives none",
        );
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
