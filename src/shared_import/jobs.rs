//! The scheduler's jobs of a home (`schedule/jobs.json`), for `bob db import`: each job joins
//! the shared jobs document by its id, under the document's row lock in the import's
//! transaction. A job the database already holds is `unchanged` when it is the same, else
//! `differing` and left as the database has it (it may have run on the cluster since); the
//! database's pause flag is kept.

use super::Counts;
use crate::contracts::JobsFile;
use crate::db::Database;
use crate::error::{Error, Result};
use crate::home::Home;

/// The home's jobs (empty when it has none); a `jobs.json` that does not parse is an error.
pub(super) fn read(from: &Home) -> Result<JobsFile> {
    let path = from.schedule_dir().join("jobs.json");
    Ok(crate::store::read_json::<JobsFile>(&path)
        .map_err(|e| e.with("path", path.display().to_string()))?
        .unwrap_or_default())
}

/// Adds the home's jobs to the shared document in the import's transaction.
pub(super) fn copy(
    db: &Database,
    tx: &mut postgres::Transaction<'_>,
    home: &JobsFile,
    counts: &mut Counts,
) -> Result<()> {
    if home.jobs.is_empty() {
        return Ok(());
    }
    let empty =
        serde_json::to_string(&JobsFile::default()).map_err(|e| Error::internal(e.to_string()))?;
    tx.execute(
        "INSERT INTO schedule_jobs (id, doc) VALUES (1, $1) ON CONFLICT (id) DO NOTHING",
        &[&empty],
    )
    .map_err(|e| db.error(e))?;
    let doc: String = tx
        .query_one("SELECT doc FROM schedule_jobs WHERE id = 1 FOR UPDATE", &[])
        .map_err(|e| db.error(e))?
        .get(0);
    let mut shared: JobsFile = serde_json::from_str(&doc).map_err(|e| {
        Error::internal(format!(
            "the shared scheduler's jobs document does not parse (left untouched): {e}"
        ))
    })?;
    let mut changed = false;
    for job in &home.jobs {
        match shared.jobs.iter().find(|j| j.id == job.id) {
            Some(j) if j == job => counts.unchanged += 1,
            Some(_) => counts.differing += 1,
            None => {
                shared.jobs.push(job.clone());
                counts.copied += 1;
                changed = true;
            }
        }
    }
    if changed {
        let text = serde_json::to_string(&shared).map_err(|e| Error::internal(e.to_string()))?;
        tx.execute(
            "UPDATE schedule_jobs SET doc = $1, updated_at = now() WHERE id = 1",
            &[&text],
        )
        .map_err(|e| db.error(e))?;
    }
    Ok(())
}
