//! Go's `time.ParseDuration`, exactly: a possibly signed sequence of decimal numbers, each with
//! an optional fraction and a unit suffix (`300ms`, `-1.5h`, `2h45m10s`). Units are `ns`,
//! `us` (or `µs` U+00B5, `μs` U+03BC), `ms`, `s`, `m`, `h`. The result is a signed count of
//! nanoseconds that fits an `i64`, as Go's `time.Duration` does.
//!
//! Written here because the crate that ports it (`go-parse-duration` 0.1.1) does not parse Go
//! durations exactly: it mixes char and byte indices (`µs`), computes its overflow bounds as
//! `1 << 62` (operator precedence), panics on overflow in debug builds, and loops forever on a
//! fraction with more than 18 digits.

use std::fmt;

/// Why a string is not a Go duration; the message mirrors Go's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DurationError(pub String);

impl fmt::Display for DurationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for DurationError {}

const NANOS_PER_UNIT: &[(&str, u64)] = &[
    ("ns", 1),
    ("us", 1_000),
    ("\u{b5}s", 1_000),
    ("\u{3bc}s", 1_000),
    ("ms", 1_000_000),
    ("s", 1_000_000_000),
    ("m", 60_000_000_000),
    ("h", 3_600_000_000_000),
];

const LIMIT: u64 = 1 << 63;

/// Parses a Go duration string into nanoseconds (`i64`, negative allowed).
pub fn parse_go_duration(orig: &str) -> Result<i64, DurationError> {
    let invalid = || DurationError(format!("invalid duration {orig:?}"));
    let mut s = orig.as_bytes();
    let mut neg = false;
    if let Some(&c) = s.first()
        && (c == b'-' || c == b'+')
    {
        neg = c == b'-';
        s = &s[1..];
    }
    if s == b"0" {
        return Ok(0);
    }
    if s.is_empty() {
        return Err(invalid());
    }
    let mut d: u64 = 0;
    while !s.is_empty() {
        if !(s[0] == b'.' || s[0].is_ascii_digit()) {
            return Err(invalid());
        }
        let before = s.len();
        let (v, rest) = leading_int(s).ok_or_else(invalid)?;
        s = rest;
        let pre = before != s.len();
        let (mut f, mut scale, mut post) = (0u64, 1f64, false);
        if s.first() == Some(&b'.') {
            s = &s[1..];
            let before = s.len();
            let (x, sc, rest) = leading_fraction(s);
            (f, scale, s) = (x, sc, rest);
            post = before != s.len();
        }
        if !pre && !post {
            return Err(invalid());
        }
        let i = s
            .iter()
            .position(|&c| c == b'.' || c.is_ascii_digit())
            .unwrap_or(s.len());
        if i == 0 {
            return Err(DurationError(format!("missing unit in duration {orig:?}")));
        }
        // The unit ends before an ASCII byte (or at the end), so it is whole UTF-8.
        let unit_text = String::from_utf8_lossy(&s[..i]);
        s = &s[i..];
        let Some(&(_, unit)) = NANOS_PER_UNIT.iter().find(|(u, _)| *u == unit_text) else {
            return Err(DurationError(format!(
                "unknown unit {unit_text:?} in duration {orig:?}"
            )));
        };
        if v > LIMIT / unit {
            return Err(invalid());
        }
        let mut v = v * unit;
        if f > 0 {
            // f64 keeps fractions of hours nanosecond-accurate (Go does the same).
            v += (f as f64 * (unit as f64 / scale)) as u64;
            if v > LIMIT {
                return Err(invalid());
            }
        }
        d = d
            .checked_add(v)
            .filter(|&d| d <= LIMIT)
            .ok_or_else(invalid)?;
    }
    if neg {
        return Ok((d as i64).wrapping_neg());
    }
    if d > LIMIT - 1 {
        return Err(invalid());
    }
    Ok(d as i64)
}

/// Consumes leading `[0-9]*`; `None` on overflow past 2^63.
fn leading_int(s: &[u8]) -> Option<(u64, &[u8])> {
    let mut x: u64 = 0;
    let mut i = 0;
    while i < s.len() && s[i].is_ascii_digit() {
        if x > LIMIT / 10 {
            return None;
        }
        x = x * 10 + u64::from(s[i] - b'0');
        if x > LIMIT {
            return None;
        }
        i += 1;
    }
    Some((x, &s[i..]))
}

/// Consumes leading `[0-9]*` of a fraction: (digits value, 10^digits kept, rest). Digits past
/// the precision of a u64 are consumed but ignored, as in Go.
fn leading_fraction(s: &[u8]) -> (u64, f64, &[u8]) {
    let mut x: u64 = 0;
    let mut scale = 1f64;
    let mut overflow = false;
    let mut i = 0;
    while i < s.len() && s[i].is_ascii_digit() {
        let c = s[i];
        i += 1;
        if overflow {
            continue;
        }
        if x > (LIMIT - 1) / 10 {
            overflow = true;
            continue;
        }
        let y = x * 10 + u64::from(c - b'0');
        if y > LIMIT {
            overflow = true;
            continue;
        }
        x = y;
        scale *= 10.0;
    }
    (x, scale, &s[i..])
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const S: i64 = 1_000_000_000;

    // The accepting cases of Go's own time.ParseDuration test table.
    #[test]
    fn accepts_what_go_accepts() {
        let cases: &[(&str, i64)] = &[
            ("0", 0),
            ("5s", 5 * S),
            ("30s", 30 * S),
            ("1478s", 1478 * S),
            ("-5s", -5 * S),
            ("+5s", 5 * S),
            ("-0", 0),
            ("+0", 0),
            ("5.0s", 5 * S),
            ("5.6s", 5 * S + 600_000_000),
            ("5.s", 5 * S),
            (".5s", S / 2),
            ("1.0s", S),
            ("1.00s", S),
            ("1.004s", S + 4_000_000),
            ("1.0040s", S + 4_000_000),
            ("100.00100s", 100 * S + 1_000_000),
            ("10ns", 10),
            ("11us", 11_000),
            ("12\u{b5}s", 12_000),
            ("12\u{3bc}s", 12_000),
            ("13ms", 13_000_000),
            ("14s", 14 * S),
            ("15m", 15 * 60 * S),
            ("16h", 16 * 3600 * S),
            ("3h30m", (3 * 3600 + 30 * 60) * S),
            ("10.5s4m", 4 * 60 * S + 10 * S + S / 2),
            ("-2m3.4s", -(2 * 60 * S + 3 * S + 400_000_000)),
            (
                "1h2m3s4ms5us6ns",
                3600 * S + 2 * 60 * S + 3 * S + 4_000_000 + 5_000 + 6,
            ),
            ("39h9m14.425s", (39 * 3600 + 9 * 60 + 14) * S + 425_000_000),
            ("52763797000ns", 52_763_797_000),
            ("0.3333333333333333333h", 20 * 60 * S),
            ("9007199254740993ns", (1 << 53) + 1),
            ("9223372036854775807ns", i64::MAX),
            ("9223372036854775.807us", i64::MAX),
            ("9223372036s854ms775us807ns", i64::MAX),
            ("-9223372036854775808ns", i64::MIN),
            ("-9223372036854775.808us", i64::MIN),
            ("-9223372036s854ms775us808ns", i64::MIN),
            ("-2562047h47m16.854775808s", i64::MIN),
            ("0.100000000000000000000h", 6 * 60 * S),
            (
                "0.830103483285477580700h",
                49 * 60 * S + 48 * S + 372_539_827,
            ),
            ("1.5h", 90 * 60 * S),
            ("2h45m10s", (2 * 3600 + 45 * 60 + 10) * S),
            ("90s", 90 * S),
            ("1h30m", 90 * 60 * S),
        ];
        for (input, want) in cases {
            assert_eq!(parse_go_duration(input), Ok(*want), "{input}");
        }
    }

    // The rejecting cases of Go's test table, plus the forms bob's users will try.
    #[test]
    fn rejects_what_go_rejects() {
        for input in [
            "",
            "3",
            "-",
            "s",
            ".",
            "-.",
            ".s",
            "+.s",
            "1d",
            "\u{1}\u{2}",
            "9223372036854775808ns",
            "9223372036854775.808us",
            "9223372036854ms775us808ns",
            "-9223372036854775809ns",
            "5x",
            "-5x",
            "5 m",
            " 5m",
            "5m ",
            "1h-30m",
            "5M",
            "1w",
            "00000000000000000000000000000000000000000000000000001h1",
            "2562048h",
            "9223372036854775808ns9223372036854775808ns",
        ] {
            assert!(parse_go_duration(input).is_err(), "{input:?} should fail");
        }
    }

    #[test]
    fn error_messages_name_the_problem() {
        assert_eq!(
            parse_go_duration("3").unwrap_err().0,
            "missing unit in duration \"3\""
        );
        assert_eq!(
            parse_go_duration("5x").unwrap_err().0,
            "unknown unit \"x\" in duration \"5x\""
        );
        assert_eq!(
            parse_go_duration("").unwrap_err().0,
            "invalid duration \"\""
        );
    }

    #[test]
    fn long_fractions_terminate() {
        let long = format!("1.{}s", "9".repeat(500));
        let d = parse_go_duration(&long).unwrap();
        assert!((2 * S - 2..=2 * S).contains(&d), "{d}");
    }

    proptest! {
        #[test]
        fn never_panics(s in "\\PC{0,40}") {
            let _ = parse_go_duration(&s);
        }

        #[test]
        fn hms_round_trip(h in 0i64..10_000, m in 0i64..60, sec in 0i64..60, ms in 0i64..1000) {
            let text = format!("{h}h{m}m{sec}s{ms}ms");
            let want = ((h * 3600 + m * 60 + sec) * 1000 + ms) * 1_000_000;
            prop_assert_eq!(parse_go_duration(&text), Ok(want));
            let neg = format!("-{text}");
            prop_assert_eq!(parse_go_duration(&neg), Ok(-want));
        }

        #[test]
        fn grammar_strings_never_panic(s in "[-+]?([0-9]{0,25}(\\.[0-9]{0,25})?(ns|us|µs|ms|s|m|h|x)?){1,4}") {
            let _ = parse_go_duration(&s);
        }
    }
}
