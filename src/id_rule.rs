//! The id rule itself: patterns and checks that need nothing but the id, so the home (where an
//! id becomes a path component) can use them without depending on the redactor. The checks
//! against the home's redactor, and the drawing of ids, are in [`crate::ids`].

use crate::error::{Error, Result};

/// The id rule, as a regular expression (also the JSON Schema pattern `bob serve` publishes).
pub const PATTERN: &str = "^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$";
/// Longest id.
pub const MAX_LEN: usize = 64;
/// The user id rule (memory users, chat senders and rooms), as a regular expression.
pub const USER_PATTERN: &str = "^[A-Za-z0-9@][A-Za-z0-9_.:@-]{0,127}$";
/// Longest user id.
pub const MAX_USER_LEN: usize = 128;
/// Actors of the audit log that are never agent ids.
pub const RESERVED_ACTORS: [&str; 2] = ["human", "system"];

/// Whether `s` follows the id rule ([`PATTERN`]).
pub fn is_valid(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b.len() <= MAX_LEN
        && b[0].is_ascii_alphanumeric()
        && b.iter()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'-'))
}

/// Whether `s` follows the user id rule ([`USER_PATTERN`]).
pub fn is_valid_user(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b.len() <= MAX_USER_LEN
        && (b[0].is_ascii_alphanumeric() || b[0] == b'@')
        && b.iter()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'-' | b':' | b'@'))
}

/// What is wrong with `s`, without repeating it (a refused id may hold a secret, and an error
/// is printed, served and sometimes stored).
fn why(s: &str, max: usize, first_ok: fn(u8) -> bool, ok: fn(u8) -> bool) -> String {
    let b = s.as_bytes();
    if b.is_empty() {
        return "it is empty".into();
    }
    if b.len() > max {
        return format!("it is {} bytes long", b.len());
    }
    if !first_ok(b[0]) {
        return match b[0] {
            c if c.is_ascii_graphic() => format!("it starts with {:?}", c as char),
            _ => "it starts with a character outside the pattern".into(),
        };
    }
    match b.iter().position(|&c| !ok(c)) {
        Some(i) if b[i].is_ascii_graphic() || b[i] == b' ' => {
            format!("character {} is {:?}", i + 1, b[i] as char)
        }
        Some(i) => format!("byte {} is outside the pattern", i + 1),
        None => "it does not match".into(),
    }
}

fn refuse(field: &str, pattern: &str, reason: String) -> Error {
    Error::invalid(format!("{field} must match {pattern} ({reason})"))
        .with("field", field)
        .with("pattern", pattern)
}

/// Checks `s` against the id rule; `field` names it in the `invalid.request` error. The error
/// never repeats the value.
pub fn check<'a>(field: &str, s: &'a str) -> Result<&'a str> {
    if is_valid(s) {
        return Ok(s);
    }
    Err(refuse(
        field,
        PATTERN,
        why(
            s,
            MAX_LEN,
            |c| c.is_ascii_alphanumeric(),
            |c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'-'),
        ),
    ))
}

/// [`check`], and not one of the [`RESERVED_ACTORS`]: an agent id.
pub fn check_agent<'a>(field: &str, s: &'a str) -> Result<&'a str> {
    check(field, s)?;
    if RESERVED_ACTORS.contains(&s) {
        return Err(Error::invalid(format!(
            "{field} may not be {s:?}: \"human\" and \"system\" are reserved actors of the \
             audit log, never agent ids"
        ))
        .with("field", field)
        .with("reserved", s.to_string()));
    }
    Ok(s)
}

/// Checks `s` against the user id rule ([`USER_PATTERN`]).
pub fn check_user<'a>(field: &str, s: &'a str) -> Result<&'a str> {
    if is_valid_user(s) {
        return Ok(s);
    }
    Err(refuse(
        field,
        USER_PATTERN,
        why(
            s,
            MAX_USER_LEN,
            |c| c.is_ascii_alphanumeric() || c == b'@',
            |c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'-' | b':' | b'@'),
        ),
    ))
}
