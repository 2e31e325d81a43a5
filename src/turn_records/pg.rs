//! Turn records in the shared database: one row per record in `turn_records`, numbered in the
//! order the rows were committed (`seq`), with the record's redacted JSON as its text.

use super::{TurnLog, stored_text};
use crate::contracts::TurnRecord;
use crate::db::Database;
use crate::error::{Error, Result};
use serde_json::Value;

/// Turn records in the shared database.
pub struct PgTurnLog {
    db: &'static Database,
}

impl PgTurnLog {
    pub fn new(db: &'static Database) -> PgTurnLog {
        PgTurnLog { db }
    }
}

fn parse(text: &str) -> Result<Value> {
    serde_json::from_str(text).map_err(|e| {
        Error::internal(format!(
            "a turn record in the database is corrupt ({e}); it is left untouched"
        ))
    })
}

fn typed(text: &str) -> Result<TurnRecord> {
    serde_json::from_value(parse(text)?)
        .map_err(|e| Error::internal(format!("a turn record in the database is corrupt ({e})")))
}

impl TurnLog for PgTurnLog {
    fn append(&self, record: &TurnRecord) -> Result<()> {
        let text = stored_text(record)?;
        let digest = crate::store::sha256_hex(text.as_bytes());
        self.db.with(|c| {
            c.execute(
                "INSERT INTO turn_records (run_id, session_id, ts, digest, record) \
                 VALUES ($1, $2, $3, $4, $5) ON CONFLICT (run_id, digest) DO NOTHING",
                &[
                    &record.run_id,
                    &record.session_id,
                    &record.ts,
                    &digest,
                    &text,
                ],
            )
        })?;
        Ok(())
    }

    fn all(&self) -> Result<Vec<Value>> {
        let rows = self
            .db
            .with(|c| c.query("SELECT record FROM turn_records ORDER BY seq", &[]))?;
        rows.iter().map(|r| parse(r.get(0))).collect()
    }

    fn of_runs(&self, run_ids: &[&str]) -> Result<Vec<Value>> {
        let ids: Vec<String> = run_ids.iter().map(|s| s.to_string()).collect();
        let rows = self.db.with(|c| {
            c.query(
                "SELECT record FROM turn_records WHERE run_id = ANY($1) ORDER BY seq",
                &[&ids],
            )
        })?;
        rows.iter().map(|r| parse(r.get(0))).collect()
    }

    fn latest_of_every_run(&self) -> Result<Option<Vec<TurnRecord>>> {
        let rows = self.db.with(|c| {
            c.query(
                "SELECT DISTINCT ON (run_id) record FROM turn_records \
                 ORDER BY run_id, seq DESC",
                &[],
            )
        })?;
        rows.iter()
            .map(|r| typed(r.get(0)))
            .collect::<Result<Vec<_>>>()
            .map(Some)
    }

    fn latest_of_run(&self, run_id: &str) -> Result<Option<TurnRecord>> {
        let row = self.db.with(|c| {
            c.query_opt(
                "SELECT record FROM turn_records WHERE run_id = $1 ORDER BY seq DESC LIMIT 1",
                &[&run_id],
            )
        })?;
        row.map(|r| typed(r.get(0))).transpose()
    }
}
