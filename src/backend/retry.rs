//! Retry policy for upstream calls: exponential backoff with full jitter on 429, 5xx and
//! connection errors, honouring `Retry-After` (delta-seconds or an HTTP date), bounded attempts.

use chrono::{DateTime, Utc};
use rand::Rng;
use std::time::Duration;

/// Whether an HTTP status is worth retrying (429 and 5xx).
pub fn retryable_status(status: u16) -> bool {
    status == 429 || (500..=599).contains(&status)
}

/// The backoff before retry number `retry` (0-based): a random duration in
/// `[0, min(cap, base * 2^retry)]` ("full jitter"), never below 1 ms.
pub fn backoff(base: Duration, cap: Duration, retry: u32) -> Duration {
    let ceiling = base
        .checked_mul(1u32.checked_shl(retry.min(20)).unwrap_or(u32::MAX))
        .unwrap_or(cap)
        .min(cap);
    let ms = ceiling.as_millis().max(1) as u64;
    Duration::from_millis(rand::thread_rng().gen_range(ms / 2..=ms).max(1))
}

/// Parses a `Retry-After` value: delta-seconds (`"3"`, `"1.5"`) or an HTTP date (RFC 7231
/// IMF-fixdate, which RFC 2822 parsing accepts), relative to `now`. A date in the past is zero.
pub fn parse_retry_after(value: &str, now: DateTime<Utc>) -> Option<Duration> {
    let v = value.trim();
    if let Ok(secs) = v.parse::<f64>() {
        return (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs.min(1e6)));
    }
    let when = DateTime::parse_from_rfc2822(v).ok()?.with_timezone(&Utc);
    Some((when - now).to_std().unwrap_or(Duration::ZERO))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_forms() {
        let now = DateTime::parse_from_rfc3339("2015-10-21T07:28:00Z")
            .unwrap()
            .with_timezone(&Utc);
        assert_eq!(parse_retry_after("2", now), Some(Duration::from_secs(2)));
        assert_eq!(
            parse_retry_after("Wed, 21 Oct 2015 07:28:05 GMT", now),
            Some(Duration::from_secs(5))
        );
        assert_eq!(
            parse_retry_after("Wed, 21 Oct 2015 07:27:00 GMT", now),
            Some(Duration::ZERO)
        );
        assert_eq!(parse_retry_after("soon", now), None);
        assert_eq!(parse_retry_after("-1", now), None);
    }

    #[test]
    fn backoff_is_bounded() {
        let cap = Duration::from_secs(2);
        for r in 0..40 {
            let d = backoff(Duration::from_millis(100), cap, r);
            assert!(d <= cap && d >= Duration::from_millis(1));
        }
    }
}
