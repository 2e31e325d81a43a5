//! The shared store's batch writes to long-term memory: an admin import (`bob memory import`)
//! and the removal of expired records (`bob memory gc`).
//!
//! This module promises what the embedded store promises of them, in one transaction of the
//! database instead of a ledger line and a SQLite commit:
//!
//! * **Import.** The records are inserted (redacted for storage; one already stored, by id or
//!   under its legacy `mem_` id, is left as it is; up to 500 records per statement, so 10,000
//!   records take some forty round trips, not 20,000), then one `import` record is chained onto
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
use crate::contracts::MemoryRecord;
use crate::db::Database;
use crate::error::Result;
use std::collections::HashSet;

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
        let mut chunk = Chunk::default();
        let report = db.transaction(|tx| {
            let mut batch = ImportBatch::default();
            let mut imported = 0;
            source(&mut |r| {
                batch.add(&r);
                chunk.records.push(r);
                if chunk.records.len() >= Chunk::ROWS {
                    imported += chunk.insert(db, tx)?;
                }
                Ok(())
            })?;
            imported += chunk.insert(db, tx)?;
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
        })?;
        super::pg_pack::records(db, &chunk.inserted);
        Ok(report)
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
        let mut words = Vec::new();
        let gone = db.transaction(|tx| {
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
            let entry = super::candidates::gc_entry(
                clock::rfc3339(self.now()?),
                actor,
                user.clone(),
                &expired,
            );
            super::pg::append_ledger(db, tx, &keys, self.ledger_map(&entry)?)?;
            let ids: Vec<String> = expired.into_iter().map(|(i, _, _)| i).collect();
            words = super::pg_pack::words_of(db, tx, &ids)?;
            tx.execute("DELETE FROM memory_records WHERE id = ANY($1)", &[&ids])
                .map_err(|e| db.error(e))?;
            Ok(ids)
        })?;
        super::pg_pack::words(db, &words);
        Ok(gone)
    }
}

/// Records of an import waiting to be inserted together, and the ids the import has inserted
/// or found stored so far.
#[derive(Default)]
struct Chunk {
    records: Vec<MemoryRecord>,
    stored: HashSet<String>,
    /// The ids inserted so far.
    inserted: Vec<String>,
}

impl Chunk {
    /// Records inserted per statement: each statement is one round trip.
    const ROWS: usize = 500;

    /// Inserts the waiting records, in their order, each unless its id is stored or its content
    /// is stored under its legacy `mem_` id (as one statement per record would); how many
    /// were inserted.
    fn insert(
        &mut self,
        db: &'static Database,
        tx: &mut postgres::Transaction<'_>,
    ) -> Result<usize> {
        if self.records.is_empty() {
            return Ok(0);
        }
        let records = std::mem::take(&mut self.records);
        // A content id's legacy form: stored before this import, or inserted by it earlier.
        let legacy: Vec<Option<String>> = records.iter().map(legacy_id).collect();
        let asked: Vec<&str> = legacy.iter().flatten().map(String::as_str).collect();
        let before: HashSet<String> = if asked.is_empty() {
            HashSet::new()
        } else {
            tx.query(
                "SELECT id FROM memory_records WHERE id = ANY($1)",
                &[&asked],
            )
            .map_err(|e| db.error(e))?
            .iter()
            .map(|r| r.get(0))
            .collect()
        };
        let mut kept = Vec::with_capacity(records.len());
        for (r, legacy) in records.into_iter().zip(legacy) {
            let known = legacy
                .as_ref()
                .is_some_and(|l| before.contains(l) || self.stored.contains(l));
            if !known {
                self.stored.insert(r.id.clone());
                kept.push(r);
            }
        }
        let inserted = super::pg::insert_records(db, tx, &kept)?;
        let before = self.inserted.len();
        self.inserted.extend(
            kept.into_iter()
                .zip(inserted)
                .filter(|(_, new)| *new)
                .map(|(r, _)| r.id),
        );
        Ok(self.inserted.len() - before)
    }
}

/// The legacy `mem_` id of `r`'s content when `r` carries its content id (else `None`).
fn legacy_id(r: &MemoryRecord) -> Option<String> {
    let user = r.user.as_deref().unwrap_or(super::DEFAULT_USER);
    (r.id == ltm::record_id(user, &r.title, &r.body_md, &r.tags, &r.kind))
        .then(|| ltm::legacy_record_id(user, &r.title, &r.body_md, &r.tags, &r.kind))
}
