//! Short-term memory in the shared database (`stm` of the `stm` migration), so every node
//! serving one user's sessions sees the same entries, access counts and sessions seen.
//!
//! The rules are the embedded store's ([`super::StmRows`]): an insert evicts the user's
//! entries beyond [`STM_MAX_ENTRIES`] in its own transaction (under a per-user advisory lock,
//! so two nodes inserting at once keep exactly the newest 200); a touch locks each row
//! (`FOR UPDATE`) while it edits it, so two nodes touching one entry at once count two
//! accesses, never one.

use super::{STM_MAX_ENTRIES, StmRows, parse_entry};
use crate::contracts::StmEntry;
use crate::db::Database;
use crate::error::{Error, Result};

/// STM in the shared database.
pub struct PgStm {
    db: &'static Database,
}

impl PgStm {
    pub fn new(db: &'static Database) -> PgStm {
        PgStm { db }
    }
}

fn to_text(e: &StmEntry) -> Result<String> {
    serde_json::to_string(e).map_err(|e| Error::internal(e.to_string()))
}

fn limit_of(limit: usize) -> i64 {
    i64::try_from(limit).unwrap_or(i64::MAX)
}

impl StmRows for PgStm {
    fn insert(&self, user: &str, created_unix: i64, entry: &StmEntry, _synced: bool) -> Result<()> {
        let text = to_text(entry)?;
        let db = self.db;
        db.transaction(|tx| {
            tx.execute(
                "SELECT pg_advisory_xact_lock(hashtextextended('bob.stm:' || $1, 0))",
                &[&user],
            )
            .map_err(|e| db.error(e))?;
            tx.execute(
                "INSERT INTO stm (id, user_id, created_unix, entry) VALUES ($1, $2, $3, $4)",
                &[&entry.id, &user, &created_unix, &text],
            )
            .map_err(|e| db.error(e))?;
            tx.execute(
                "DELETE FROM stm WHERE user_id = $1 AND seq <= \
                 (SELECT seq FROM stm WHERE user_id = $1 ORDER BY seq DESC LIMIT 1 OFFSET $2)",
                &[&user, &STM_MAX_ENTRIES],
            )
            .map_err(|e| db.error(e))?;
            Ok(())
        })
    }

    fn touch(
        &self,
        ids: &[String],
        cutoff: i64,
        touch: &dyn Fn(&mut StmEntry),
        _synced: bool,
    ) -> Result<Vec<StmEntry>> {
        let db = self.db;
        db.transaction(|tx| {
            let mut out = Vec::new();
            for id in ids {
                let row = tx
                    .query_opt(
                        "SELECT entry FROM stm WHERE id = $1 AND created_unix > $2 FOR UPDATE",
                        &[id, &cutoff],
                    )
                    .map_err(|e| db.error(e))?;
                let Some(row) = row else { continue };
                let mut e = parse_entry(row.get(0))?;
                touch(&mut e);
                tx.execute(
                    "UPDATE stm SET entry = $2 WHERE id = $1",
                    &[&e.id, &to_text(&e)?],
                )
                .map_err(|e| db.error(e))?;
                out.push(e);
            }
            Ok(out)
        })
    }

    fn save(&self, e: &StmEntry) -> Result<()> {
        let text = to_text(e)?;
        self.db
            .with(|c| c.execute("UPDATE stm SET entry = $2 WHERE id = $1", &[&e.id, &text]))?;
        Ok(())
    }

    fn list(&self, user: Option<&str>, cutoff: i64, limit: usize) -> Result<Vec<StmEntry>> {
        let rows = self.db.with(|c| {
            c.query(
                "SELECT entry FROM stm WHERE created_unix > $1 \
                 AND ($2::text IS NULL OR user_id = $2) ORDER BY seq DESC LIMIT $3",
                &[&cutoff, &user, &limit_of(limit)],
            )
        })?;
        rows.iter().map(|r| parse_entry(r.get(0))).collect()
    }

    fn owner(&self, id: &str) -> Result<Option<String>> {
        let row = self
            .db
            .with(|c| c.query_opt("SELECT user_id FROM stm WHERE id = $1", &[&id]))?;
        Ok(row.map(|r| r.get(0)))
    }

    fn gc(&self, user: Option<&str>, cutoff: i64) -> Result<Vec<String>> {
        let rows = self.db.with(|c| {
            c.query(
                "WITH gone AS (DELETE FROM stm WHERE created_unix <= $1 \
                 AND ($2::text IS NULL OR user_id = $2) RETURNING seq, id) \
                 SELECT id FROM gone ORDER BY seq",
                &[&cutoff, &user],
            )
        })?;
        Ok(rows.iter().map(|r| r.get(0)).collect())
    }
}
