//! The injectable clock. `BOB_NOW` (RFC3339; `--now` sets it) pins "now" so TTLs, schedules and
//! tests are deterministic; otherwise the system clock is used.

use crate::error::{Error, Result};
use chrono::{DateTime, SecondsFormat, Utc};

/// Environment variable that pins the clock.
pub const NOW_ENV: &str = "BOB_NOW";

/// Current time, honouring `BOB_NOW`. An unparsable `BOB_NOW` is an `invalid.request`.
pub fn now() -> Result<DateTime<Utc>> {
    match std::env::var(NOW_ENV) {
        Ok(s) if !s.is_empty() => parse_rfc3339(&s),
        _ => Ok(Utc::now()),
    }
}

/// Parses an RFC3339 timestamp into UTC.
pub fn parse_rfc3339(s: &str) -> Result<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(s.trim())
        .map(|t| t.with_timezone(&Utc))
        .map_err(|e| Error::invalid(format!("not an RFC3339 timestamp: {s:?} ({e})")))
}

/// RFC3339 with second precision and `Z`, the form bob writes.
pub fn rfc3339(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// Unix seconds as a float (the trace event `ts`).
pub fn unix_f64(t: DateTime<Utc>) -> f64 {
    t.timestamp() as f64 + f64::from(t.timestamp_subsec_micros()) / 1e6
}
