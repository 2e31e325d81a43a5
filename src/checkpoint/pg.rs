//! Checkpoints in the shared database: one row per session in `checkpoints`.
//!
//! An update is one transaction: the session's row is created if missing (revision 0, no
//! document), locked with `SELECT … FOR UPDATE`, edited by the shared rule
//! ([`super::commit`]) and written back with `UPDATE … WHERE revision = <the revision read>`.
//! Two nodes updating one session queue on the row lock; the second re-reads the first's
//! commit, so an expected revision the first already used is `conflict`, and no update is
//! ever lost.

use super::{CheckpointStore, commit, fresh};
use crate::clock;
use crate::contracts::Checkpoint;
use crate::db::Database;
use crate::error::{Error, Result};
use crate::home::Home;

/// Checkpoints in the shared database.
pub struct PgCheckpoints<'a> {
    db: &'static Database,
    /// Session ids are checked against the home's rules, as for the files.
    home: &'a Home,
}

impl<'a> PgCheckpoints<'a> {
    pub fn new(db: &'static Database, home: &'a Home) -> PgCheckpoints<'a> {
        PgCheckpoints { db, home }
    }
}

fn parse(session_id: &str, revision: i64, doc: &str) -> Result<Checkpoint> {
    let mut cp: Checkpoint = serde_json::from_str(doc).map_err(|e| {
        Error::internal(format!(
            "checkpoint of session {session_id:?} in the database is corrupt ({e}); it is left \
             untouched: repair or remove the row"
        ))
        .with("session_id", session_id)
    })?;
    cp.session_id = session_id.to_string();
    cp.revision = u64::try_from(revision).unwrap_or_default();
    Ok(cp)
}

impl CheckpointStore for PgCheckpoints<'_> {
    fn load_existing(&self, session_id: &str) -> Result<Option<Checkpoint>> {
        self.home.checkpoint_path(session_id)?;
        let row = self.db.with(|c| {
            c.query_opt(
                "SELECT revision, doc FROM checkpoints WHERE session_id = $1 AND doc IS NOT NULL",
                &[&session_id],
            )
        })?;
        row.map(|r| parse(session_id, r.get(0), r.get::<_, &str>(1)))
            .transpose()
    }

    fn update(
        &self,
        session_id: &str,
        expect_revision: Option<u64>,
        edit: &mut dyn FnMut(&mut Checkpoint) -> Result<()>,
    ) -> Result<Checkpoint> {
        self.home.checkpoint_path(session_id)?;
        let now = clock::now()?;
        let db = self.db;
        db.transaction(|tx| {
            tx.execute(
                "INSERT INTO checkpoints (session_id, revision, doc) VALUES ($1, 0, NULL) \
                 ON CONFLICT (session_id) DO NOTHING",
                &[&session_id],
            )
            .map_err(|e| db.error(e))?;
            let row = tx
                .query_one(
                    "SELECT revision, doc FROM checkpoints WHERE session_id = $1 FOR UPDATE",
                    &[&session_id],
                )
                .map_err(|e| db.error(e))?;
            let read: i64 = row.get(0);
            let mut cp = match row.get::<_, Option<&str>>(1) {
                Some(doc) => parse(session_id, read, doc)?,
                None => fresh(session_id),
            };
            commit(&mut cp, session_id, expect_revision, now, edit)?;
            let next = i64::try_from(cp.revision).map_err(|_| {
                Error::internal(format!(
                    "checkpoint of session {session_id:?} is at the last revision ({read})"
                ))
                .with("session_id", session_id)
            })?;
            let doc = serde_json::to_string(&crate::store::redacted_json(&cp)?)
                .map_err(|e| Error::internal(format!("checkpoint JSON: {e}")))?;
            let n = tx
                .execute(
                    "UPDATE checkpoints SET revision = $2, doc = $3, updated_at = now() \
                     WHERE session_id = $1 AND revision = $4",
                    &[&session_id, &next, &doc, &read],
                )
                .map_err(|e| db.error(e))?;
            if n != 1 {
                return Err(Error::conflict(format!(
                    "checkpoint of session {session_id:?} changed while it was being updated"
                ))
                .with("session_id", session_id));
            }
            Ok(cp)
        })
    }
}
