//! The shared store's batch writes to long-term memory: an admin import (`bob memory import`)
//! and the removal of expired records (`bob memory gc`).
//!
//! This module promises what the embedded store promises of them, in one transaction of the
//! database instead of a ledger line and a SQLite commit:
//!
//! * **Import.** The records are inserted (redacted for storage; one already stored, by id or
//!   under its legacy `mem_` id, is left as it is), then one `import` record is chained onto
//!   the shared ledger listing the batch (ids and digests when at most 1000, always covered by
//!   its `batch_digest`), and all of it commits together: the ledger holds every batch the
//!   tables have, and an error anywhere (a bad record, a failed read) writes nothing.
//! * **Gc.** The expired records (of one user, or of all) are locked, one `gc` ledger record
//!   lists them, and they are deleted (their vectors with them), all in one transaction. Two
//!   nodes collecting at once give one ledger record per record removed: the second waits on
//!   the rows' locks and then finds them gone.

use super::candidates::{ImportBatch, ImportReport};
use super::{Memory, ltm};
use crate::clock;
use crate::contracts::{LedgerEntry, LedgerRecordRef, MemoryRecord};
use crate::db::Database;
use crate::error::Result;

impl Memory {
    /// [`Memory::import_stream`] on the shared store, without the embedding after it.
    #[allow(clippy::type_complexity)] // a callback that takes a callback; an alias hides nothing
    pub(crate) fn import_shared(
        &self,
        db: &'static Database,
        actor: &str,
        user: &str,
        source_path: &str,
        source: &mut dyn FnMut(&mut dyn FnMut(MemoryRecord) -> Result<()>) -> Result<()>,
    ) -> Result<ImportReport> {
        let keys = crate::chain::Keyring::open(self.home()?.root())?;
        db.transaction(|tx| {
            let mut batch = ImportBatch::default();
            let mut imported = 0;
            source(&mut |r| {
                batch.add(&r);
                if !stored_under_legacy_id(db, tx, &r)? && super::pg::insert_record(db, tx, &r)? {
                    imported += 1;
                }
                Ok(())
            })?;
            let (entry, count, ids) =
                batch.finish(clock::rfc3339(self.now()?), actor, user, source_path)?;
            let seq = super::pg::append_ledger(db, tx, &keys, self.ledger_map(&entry)?)?;
            Ok(ImportReport {
                ledger_seq: seq,
                count,
                imported,
                unchanged: count - imported,
                ids,
                embedding: None,
            })
        })
    }

    /// [`Memory::ltm_gc`] on the shared store (`user` resolved).
    pub(crate) fn ltm_gc_shared(
        &self,
        db: &'static Database,
        actor: &str,
        user: Option<String>,
    ) -> Result<Vec<String>> {
        let keys = crate::chain::Keyring::open(self.home()?.root())?;
        let now = self.now_unix();
        db.transaction(|tx| {
            let rows = tx
                .query(
                    "SELECT id, digest, user_id FROM memory_records \
                     WHERE expires_unix IS NOT NULL AND expires_unix <= $1 \
                     AND ($2::text IS NULL OR user_id = $2) ORDER BY rid FOR UPDATE",
                    &[&now, &user],
                )
                .map_err(|e| db.error(e))?;
            if rows.is_empty() {
                return Ok(Vec::new());
            }
            let expired: Vec<(String, String, String)> = rows
                .iter()
                .map(|r| (r.get(0), r.get(1), r.get(2)))
                .collect();
            let records: Vec<LedgerRecordRef> = expired
                .iter()
                .map(|(id, d, u)| LedgerRecordRef {
                    id: id.clone(),
                    digest: d.clone(),
                    user: Some(u.clone()),
                })
                .collect();
            let entry = LedgerEntry {
                reason: Some("ttl expired".into()),
                ..LedgerEntry::batch(
                    "gc",
                    clock::rfc3339(self.now()?),
                    actor,
                    user.clone().unwrap_or_else(|| "*".into()),
                    records,
                    expired.len(),
                    super::candidates::batch_digest(
                        expired.iter().map(|(i, d, _)| (i.as_str(), d.as_str())),
                    ),
                )
            };
            super::pg::append_ledger(db, tx, &keys, self.ledger_map(&entry)?)?;
            let ids: Vec<String> = expired.into_iter().map(|(i, _, _)| i).collect();
            tx.execute("DELETE FROM memory_records WHERE id = ANY($1)", &[&ids])
                .map_err(|e| db.error(e))?;
            Ok(ids)
        })
    }
}

/// Whether `r`'s content is stored already under its legacy `mem_` id (a content id only).
fn stored_under_legacy_id(
    db: &'static Database,
    tx: &mut postgres::Transaction<'_>,
    r: &MemoryRecord,
) -> Result<bool> {
    let user = r.user.as_deref().unwrap_or(super::DEFAULT_USER);
    if r.id != ltm::record_id(user, &r.title, &r.body_md, &r.tags, &r.kind) {
        return Ok(false);
    }
    let legacy = ltm::legacy_record_id(user, &r.title, &r.body_md, &r.tags, &r.kind);
    tx.query_opt("SELECT 1 FROM memory_records WHERE id = $1", &[&legacy])
        .map(|r| r.is_some())
        .map_err(|e| db.error(e))
}
