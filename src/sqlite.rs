//! What every embedded SQLite store of the home shares in opening its file.

use crate::error::Result;

/// Puts the SQLite database of `conn` in WAL mode (kept in the file) and returns the mode it
/// is in. Switching a new file takes a lock that SQLite does not wait for with the busy
/// timeout, so when another process is creating the same file at that moment (cron and a
/// shell starting together) the switch is tried again until `timeout` has passed, then it is
/// `conflict`.
pub fn use_wal(conn: &rusqlite::Connection, timeout: std::time::Duration) -> Result<String> {
    let deadline = std::time::Instant::now() + timeout;
    loop {
        match conn.pragma_update_and_check(None, "journal_mode", "WAL", |r| r.get(0)) {
            Err(rusqlite::Error::SqliteFailure(e, _))
                if matches!(
                    e.code,
                    rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked
                ) && std::time::Instant::now() < deadline =>
            {
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            other => return Ok(other?),
        }
    }
}
