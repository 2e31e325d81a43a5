//! Turn records: where the record of every turn is kept once the turn has ended.
//!
//! This module promises:
//!
//! * **One log per store.** [`log`] is the one place the turn log learns its backend: the
//!   home's `turns.jsonl` (one redacted JSON line per record, appended and fsynced, exactly as
//!   before the shared store existed) when `database.url` is unset, else the table
//!   `turn_records` of the shared database, where a record committed on one node is read by
//!   every other.
//! * **Append only.** A record is appended once and never changed; several records of one run
//!   (a run drained and re-queued has one per attempt) are read back in the order written.
//! * **Redacted at rest.** A record is masked for storage (stored secrets and credentials) the
//!   same way in both backends before it is written.

mod pg;

use crate::contracts::TurnRecord;
use crate::error::Result;
use crate::home::Home;
use crate::store;
use serde_json::Value;

/// Where turn records live: the home's `turns.jsonl` ([`HomeTurnLog`]) or the shared database
/// (`pg::PgTurnLog`).
pub trait TurnLog {
    /// Appends one record, durable when this returns.
    fn append(&self, record: &TurnRecord) -> Result<()>;

    /// Every record, in the order written. A line of `turns.jsonl` that is not a record (torn
    /// by a crash) is skipped, as every reader of the log always did.
    fn all(&self) -> Result<Vec<Value>>;

    /// The records of the runs `run_ids`, in the order written.
    fn of_runs(&self, run_ids: &[&str]) -> Result<Vec<Value>>;

    /// The latest record of each run, for listing runs: `Some` only for a log other nodes
    /// write to (the shared database), where a run may have no bundle on this node. The home's
    /// own log answers `None`: its runs are listed from their bundles.
    fn latest_of_every_run(&self) -> Result<Option<Vec<TurnRecord>>>;

    /// The latest record of `run_id`, where other nodes write to this log (see
    /// [`TurnLog::latest_of_every_run`]); `None` otherwise.
    fn latest_of_run(&self, run_id: &str) -> Result<Option<TurnRecord>>;
}

/// The turn log of this process: the shared database when `database.url` is set, else the
/// home's `turns.jsonl`.
pub fn log(home: &Home) -> Result<Box<dyn TurnLog + '_>> {
    Ok(match crate::db::shared()? {
        Some(db) => Box::new(pg::PgTurnLog::new(db)),
        None => Box::new(HomeTurnLog { home }),
    })
}

/// The turn log of a home: `turns.jsonl`.
pub struct HomeTurnLog<'a> {
    pub home: &'a Home,
}

impl TurnLog for HomeTurnLog<'_> {
    fn append(&self, record: &TurnRecord) -> Result<()> {
        store::append_jsonl(&self.home.turns_path(), record)
    }

    fn all(&self) -> Result<Vec<Value>> {
        Ok(store::read_jsonl(&self.home.turns_path())?
            .records
            .into_iter()
            .map(|(_, v)| v)
            .collect())
    }

    fn of_runs(&self, run_ids: &[&str]) -> Result<Vec<Value>> {
        let mut all = self.all()?;
        all.retain(|r| {
            r.get("run_id")
                .and_then(Value::as_str)
                .is_some_and(|id| run_ids.contains(&id))
        });
        Ok(all)
    }

    fn latest_of_every_run(&self) -> Result<Option<Vec<TurnRecord>>> {
        Ok(None)
    }

    fn latest_of_run(&self, _run_id: &str) -> Result<Option<TurnRecord>> {
        Ok(None)
    }
}

/// The stored text of a record: its redacted JSON line without the newline.
fn stored_text(record: &TurnRecord) -> Result<String> {
    let line = store::jsonl_line(record)?;
    let bytes = line.as_bytes();
    let text = std::str::from_utf8(bytes.strip_suffix(b"\n").unwrap_or(bytes))
        .map_err(|e| crate::error::Error::internal(format!("turn record: {e}")))?;
    Ok(text.to_string())
}
