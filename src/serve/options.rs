//! How `bob serve` runs: [`Options`] from the settings, each number checked against the range
//! the server can run with before it starts.

use crate::error::{Error, Result};
use crate::settings::DEFAULT_BIND;
use std::net::SocketAddr;
use std::time::Duration;

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

/// Whether binding `addr` keeps the server on this machine.
pub fn is_loopback(addr: &SocketAddr) -> bool {
    addr.ip().is_loopback()
}
