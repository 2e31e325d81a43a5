//! Admin batches on long-term memory, each one ledger record: an import of records and a
//! collection of expired ones; the batch's listing and digest.

use super::super::Memory;
use super::super::ltm;
use super::replay::mark_seen;
use crate::clock;
use crate::contracts::{LedgerEntry, LedgerRecordRef, MemoryRecord};
use crate::error::{Error, Result};
use rusqlite::params;

impl Memory {
    /// Removes expired long-term records (of one memory user, or of all when `user` is
    /// `None`): one `gc` ledger record first, then the deletion. Returns the ids removed.
    pub fn ltm_gc(&self, actor: &str, user: Option<&str>) -> Result<Vec<String>> {
        let user = user.map(|u| self.resolve_user(u)).transpose()?;
        if let Some(db) = self.shared {
            return self.ltm_gc_shared(db, actor, user);
        }
        let _lock = self.ledger_lock()?;
        self.reconcile_locked()?;
        let now = self.now_unix();
        let expired: Vec<(String, String, String)> = {
            let mut stmt = self.conn.prepare(
                "SELECT id, digest, user FROM ltm WHERE expires_unix IS NOT NULL AND expires_unix <= ?1 \
                 AND (?2 IS NULL OR user = ?2) ORDER BY rid",
            )?;
            let rows = stmt.query_map(params![now, user], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?))
            })?;
            rows.collect::<std::result::Result<_, _>>()?
        };
        if expired.is_empty() {
            return Ok(Vec::new());
        }
        let entry = gc_entry(clock::rfc3339(self.now()?), actor, user, &expired);
        let seq = self.append_ledger(&entry)?;
        self.apply_entry(seq, &entry)?;
        Ok(expired.into_iter().map(|(i, _, _)| i).collect())
    }

    /// Writes records to LTM as one admin import batch (see [`Memory::import_stream`]).
    /// Records already stored (same id) are left as they are.
    pub fn import_records(
        &self,
        records: &[MemoryRecord],
        actor: &str,
        user: &str,
        source_path: &str,
    ) -> Result<ImportReport> {
        self.import_stream(actor, user, source_path, &mut |each| {
            for r in records {
                each(r.clone())?;
            }
            Ok(())
        })
    }

    /// Stores the records `source` yields (it is called once, and calls its argument once per
    /// record) as one admin import batch: the records are inserted in one transaction, then one
    /// ledger record lists the batch (ids and digests, listed when at most 1000, always covered
    /// by `batch_digest`), and only then is the transaction committed, so the ledger always
    /// holds every batch the database has. An error anywhere (a bad record, a failed read)
    /// rolls everything back and writes no ledger record. Records already stored (same id) are
    /// left as they are. The imported records are embedded once stored (see
    /// [`Memory::decide_for`]).
    #[allow(clippy::type_complexity)] // a callback that takes a callback; an alias hides nothing
    pub fn import_stream(
        &self,
        actor: &str,
        user: &str,
        source_path: &str,
        source: &mut dyn FnMut(&mut dyn FnMut(MemoryRecord) -> Result<()>) -> Result<()>,
    ) -> Result<ImportReport> {
        let before = self.max_rid()?;
        let mut report = match self.shared {
            Some(db) => self.import_shared(db, actor, user, source_path, source)?,
            None => self.import_unembedded(actor, user, source_path, source)?,
        };
        if report.imported > 0 {
            report.embedding = self.embed_after(before);
        }
        Ok(report)
    }

    #[allow(clippy::type_complexity)]
    pub(super) fn import_unembedded(
        &self,
        actor: &str,
        user: &str,
        source_path: &str,
        source: &mut dyn FnMut(&mut dyn FnMut(MemoryRecord) -> Result<()>) -> Result<()>,
    ) -> Result<ImportReport> {
        let _lock = self.ledger_lock()?;
        self.reconcile_locked()?;
        // A bigger page cache for the bulk insert (FTS5 segment merges).
        self.conn.pragma_update(None, "cache_size", -65_536)?;
        let tx = self.begin()?;
        let ltm = self.ltm();
        let before = ltm.max_rid()?;
        let mut batch = ImportBatch::default();
        let mut imported = 0;
        source(&mut |r| {
            batch.add(&r);
            if ltm.insert_row(&r)? {
                imported += 1;
            }
            Ok(())
        })?;
        let (entry, count, ids) =
            batch.finish(clock::rfc3339(self.now()?), actor, user, source_path)?;
        ltm.index_after(before)?;
        let seq = self.append_ledger(&entry)?;
        mark_seen(&tx, seq, "import", true)?;
        tx.commit()?;
        Ok(ImportReport {
            ledger_seq: seq,
            count,
            imported,
            unchanged: count - imported,
            ids,
            embedding: None,
        })
    }
}

/// What an import did.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ImportReport {
    pub ledger_seq: u64,
    pub count: usize,
    pub imported: usize,
    pub unchanged: usize,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ids: Vec<String>,
    /// Why the imported records are not embedded yet (queued for `bob memory reindex`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub embedding: Option<String>,
}

/// The `gc` ledger entry of the `expired` records (id, content digest, user) of `user`
/// (`None`: every user, written `*`), both backends' one shape.
pub fn gc_entry(
    ts: String,
    actor: &str,
    user: Option<String>,
    expired: &[(String, String, String)],
) -> LedgerEntry {
    let records = expired
        .iter()
        .map(|(id, d, u)| LedgerRecordRef {
            id: id.clone(),
            digest: d.clone(),
            user: Some(u.clone()),
        })
        .collect();
    LedgerEntry {
        reason: Some("ttl expired".into()),
        ..LedgerEntry::batch(
            "gc",
            ts,
            actor,
            user.unwrap_or_else(|| "*".into()),
            records,
            expired.len(),
            batch_digest(expired.iter().map(|(i, d, _)| (i.as_str(), d.as_str()))),
        )
    }
}

/// SHA-256 over `id digest\n` lines.
pub fn batch_digest<'a>(items: impl Iterator<Item = (&'a str, &'a str)>) -> String {
    let mut b = BatchDigest::default();
    for (i, d) in items {
        b.add(i, d);
    }
    b.finish()
}

/// Incremental [`batch_digest`].
#[derive(Default)]
pub(crate) struct BatchDigest {
    hasher: sha2::Sha256,
    pub(crate) count: usize,
}

impl BatchDigest {
    pub(crate) fn add(&mut self, id: &str, digest: &str) {
        use sha2::Digest;
        self.hasher.update(id.as_bytes());
        self.hasher.update(b" ");
        self.hasher.update(digest.as_bytes());
        self.hasher.update(b"\n");
        self.count += 1;
    }
    pub(crate) fn finish(self) -> String {
        use sha2::Digest;
        hex::encode(self.hasher.finalize())
    }
}

/// An admin import batch as it is read, on either backend: the digest over every record and
/// the ids and digests its ledger record lists (the first [`ImportBatch::LISTED`], none when
/// the batch has more).
#[derive(Default)]
pub(crate) struct ImportBatch {
    digest: BatchDigest,
    listed: Vec<LedgerRecordRef>,
    ids: Vec<String>,
}

impl ImportBatch {
    /// Import batches list their records in the ledger up to this many.
    const LISTED: usize = 1000;

    pub(crate) fn add(&mut self, r: &MemoryRecord) {
        let d = ltm::record_digest(r);
        if self.digest.count < Self::LISTED {
            self.listed.push(LedgerRecordRef {
                id: r.id.clone(),
                digest: d.clone(),
                user: None,
            });
            self.ids.push(r.id.clone());
        }
        self.digest.add(&r.id, &d);
    }

    /// The batch's `import` ledger entry, its count and the ids its report lists; a batch of
    /// no record is `invalid.request`.
    pub(crate) fn finish(
        mut self,
        ts: String,
        actor: &str,
        user: &str,
        source_path: &str,
    ) -> Result<(LedgerEntry, usize, Vec<String>)> {
        let count = self.digest.count;
        if count == 0 {
            return Err(Error::invalid(format!(
                "nothing to import from {source_path}"
            )));
        }
        if count > Self::LISTED {
            self.listed.clear();
            self.ids.clear();
        }
        let entry = LedgerEntry {
            source_path: Some(source_path.to_string()),
            ..LedgerEntry::batch(
                "import",
                ts,
                actor,
                user.to_string(),
                self.listed,
                count,
                self.digest.finish(),
            )
        };
        Ok((entry, count, self.ids))
    }
}
