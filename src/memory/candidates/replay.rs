//! The ledger as the truth: records the database has not applied (a crash between the two)
//! replayed in order, each marked seen.

use super::super::ltm::{self, LtmStore};
use super::super::{Memory, final_candidate, mark_decided};
use super::decide::{Decided, to_json};
use super::extract::candidate_digest;
use crate::contracts::LedgerEntry;
use crate::error::{Error, Result};
use crate::store;
use rusqlite::{OptionalExtension, params};
use serde_json::Value;

impl Memory {
    /// Applies one ledger record to the database (idempotent: a `seq` already seen is skipped).
    /// Returns the outcome of a decision that was applied.
    pub(super) fn apply_entry(&self, seq: u64, entry: &LedgerEntry) -> Result<Option<Decided>> {
        let seen: Option<i64> = self
            .conn
            .query_row(
                "SELECT applied FROM ledger_seen WHERE seq = ?1",
                [seq as i64],
                |r| r.get(0),
            )
            .optional()?;
        if seen.is_some() {
            return Ok(None);
        }
        match entry.kind.as_str() {
            "decision" => self.apply_decision(seq, entry),
            "gc" => {
                let ids: Vec<String> = entry.records.iter().map(|r| r.id.clone()).collect();
                let tx = self.begin()?;
                self.ltm().delete(&ids)?;
                mark_seen(&tx, seq, "gc", true)?;
                tx.commit()?;
                Ok(None)
            }
            other => {
                // An import batch that never reached the database cannot be replayed from the
                // ledger (it lists digests, not bodies): it is marked as seen, unapplied.
                let tx = self.begin()?;
                mark_seen(&tx, seq, other, false)?;
                tx.commit()?;
                Ok(None)
            }
        }
    }

    pub(super) fn apply_decision(&self, seq: u64, entry: &LedgerEntry) -> Result<Option<Decided>> {
        let id = entry.candidate_id.clone().unwrap_or_default();
        let row = self.candidate(&id)?;
        let Some(mut row) = row.filter(|r| r.status == "pending") else {
            let tx = self.begin()?;
            mark_decision_seen(&tx, seq, "decision", false, Some(&id))?;
            tx.commit()?;
            return Ok(None);
        };
        let final_c = final_candidate(&row, entry);
        if let Some(c) = &final_c
            && entry.content_digest.as_deref() != Some(candidate_digest(c).as_str())
        {
            let tx = self.begin()?;
            mark_decision_seen(&tx, seq, "decision", false, Some(&id))?;
            tx.commit()?;
            return Ok(None);
        }
        let record = final_c
            .as_ref()
            .map(|c| {
                let (mut r, mut mirror) = self.decision_records(&row, c, &entry.ts, seq)?;
                // A decision recorded when ids were `mem_` content ids replays under that id.
                if let Some(mid) = &entry.memory_id
                    && *mid != r.id
                    && *mid
                        == ltm::legacy_record_id(&row.user, &r.title, &r.body_md, &r.tags, &r.kind)
                {
                    if let Some(Value::Object(meta)) = mirror.as_mut().map(|m| &mut m.metadata) {
                        meta.insert("mirrored_from".into(), Value::from(mid.clone()));
                    }
                    r.id = mid.clone();
                }
                Ok::<_, Error>((r, mirror))
            })
            .transpose()?;
        let mut mirrored = Vec::new();
        let tx = self.begin()?;
        if let Some((r, mirror)) = &record {
            let ltm = self.ltm();
            ltm.upsert(r)?;
            if let Some(m) = mirror {
                mirrored.push(ltm.upsert(m)?);
            }
        }
        mark_decided(&mut row, entry, seq, record.as_ref().map(|(r, _)| r));
        tx.execute(
            "UPDATE candidates SET status = ?2, row = ?3 WHERE id = ?1",
            params![row.id, row.status, to_json(&row)?],
        )?;
        mark_decision_seen(&tx, seq, "decision", true, Some(&id))?;
        tx.commit()?;
        Ok(Some(Decided {
            candidate: row,
            ledger_seq: seq,
            record: record.map(|(r, _)| r),
            mirrored,
            embedding: None,
        }))
    }

    /// Replays ledger records the database has not applied (takes the ledger lock).
    pub fn reconcile(&self) -> Result<usize> {
        let Some(home) = &self.home else { return Ok(0) };
        // On the shared store a decision and its ledger record commit together: nothing to
        // replay.
        if self.shared.is_some() || !home.ledger_path().exists() {
            return Ok(0);
        }
        let _lock = self.ledger_lock()?;
        self.reconcile_locked()
    }

    pub(super) fn reconcile_locked(&self) -> Result<usize> {
        let path = self.home()?.ledger_path();
        if !path.exists() {
            return Ok(0);
        }
        // The ledger's own last record, not a side file a crash may have left stale.
        let last = crate::chain::tail(&path).ok().flatten().map(|(s, _)| s);
        let (max_seen, seen): (Option<i64>, i64) =
            self.conn
                .query_row("SELECT max(seq), count(*) FROM ledger_seen", [], |r| {
                    Ok((r.get(0)?, r.get(1)?))
                })?;
        if let Some(last) = last
            && max_seen == Some(last as i64)
            && seen == last as i64 + 1
        {
            return Ok(0);
        }
        let log = store::read_jsonl(&path)?;
        let mut applied = 0;
        for (_, v) in log.records {
            let Some(seq) = v.get("seq").and_then(Value::as_u64) else {
                continue;
            };
            match serde_json::from_value::<LedgerEntry>(v) {
                Ok(entry) => {
                    if self.apply_entry(seq, &entry)?.is_some() {
                        applied += 1;
                    }
                }
                Err(_) => {
                    let tx = self.begin()?;
                    mark_seen(&tx, seq, "malformed", false)?;
                    tx.commit()?;
                }
            }
        }
        Ok(applied)
    }
}

pub(super) fn mark_seen(
    conn: &rusqlite::Connection,
    seq: u64,
    kind: &str,
    applied: bool,
) -> Result<()> {
    mark_decision_seen(conn, seq, kind, applied, None)
}

/// Marks a ledger `seq` as seen (in the caller's transaction), with the candidate a decision
/// is about.
pub(super) fn mark_decision_seen(
    conn: &rusqlite::Connection,
    seq: u64,
    kind: &str,
    applied: bool,
    candidate_id: Option<&str>,
) -> Result<()> {
    conn.execute(
        "INSERT OR IGNORE INTO ledger_seen(seq, kind, applied) VALUES (?1, ?2, ?3)",
        params![seq as i64, kind, applied],
    )?;
    if let Some(c) = candidate_id {
        conn.execute(
            "INSERT OR IGNORE INTO ledger_decided(candidate_id, seq) VALUES (?1, ?2)",
            params![c, seq as i64],
        )?;
    }
    Ok(())
}
