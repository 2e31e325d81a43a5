//! The scheduler's jobs in the shared database: one row holding the jobs document (the
//! `jobs.json` of the home's scheduler), so every node's `bob schedule` reads and changes the
//! same jobs.
//!
//! A change reads the row `FOR UPDATE` and writes it back in the same transaction: the row lock
//! is the cluster-wide form of the home's `jobs.json` lock. A tick claims its due jobs that
//! way, so `bob schedule tick` run by cron on several machines at the same second runs each due
//! job once (the second tick reads the claimed jobs' advanced `next_run` and finds them not
//! due). The run history stays node-local (`schedule/history.jsonl` of the node that ran it).

use crate::contracts::JobsFile;
use crate::db::Database;
use crate::error::{Error, Result};

fn parse(doc: &str) -> Result<JobsFile> {
    serde_json::from_str(doc).map_err(|e| {
        Error::internal(format!(
            "the shared scheduler's jobs document does not parse (left untouched): {e}"
        ))
    })
}

/// The jobs (empty when none were ever stored).
pub fn load(db: &Database) -> Result<JobsFile> {
    let row = db.with(|c| c.query_opt("SELECT doc FROM schedule_jobs WHERE id = 1", &[]))?;
    match row {
        Some(r) => parse(r.get(0)),
        None => Ok(JobsFile::default()),
    }
}

/// Read-modify-write of the jobs under the row lock; `f` returns its result and whether it
/// changed anything (nothing is written otherwise).
pub fn mutate<T>(db: &Database, f: impl FnOnce(&mut JobsFile) -> Result<(T, bool)>) -> Result<T> {
    db.transaction(|tx| {
        // The row exists before it is locked, so two first writers queue on one lock.
        let empty = serde_json::to_string(&JobsFile::default())
            .map_err(|e| Error::internal(e.to_string()))?;
        tx.execute(
            "INSERT INTO schedule_jobs (id, doc) VALUES (1, $1) ON CONFLICT (id) DO NOTHING",
            &[&empty],
        )
        .map_err(|e| db.error(e))?;
        let doc: String = tx
            .query_one("SELECT doc FROM schedule_jobs WHERE id = 1 FOR UPDATE", &[])
            .map_err(|e| db.error(e))?
            .get(0);
        let mut file = parse(&doc)?;
        let (out, changed) = f(&mut file)?;
        if changed {
            let text = serde_json::to_string(&file).map_err(|e| Error::internal(e.to_string()))?;
            tx.execute(
                "UPDATE schedule_jobs SET doc = $1, updated_at = now() WHERE id = 1",
                &[&text],
            )
            .map_err(|e| db.error(e))?;
        }
        Ok(out)
    })
}
