//! A human decision on a pending candidate: the ledger record first, under the ledger's lock,
//! then the database, and the records an approval creates.

use super::super::Memory;
use super::super::ltm::{self, BLOB_THRESHOLD_BYTES};
use super::extract::{candidate_digest, canonicalize, validate};
use crate::clock;
use crate::contracts::{CandidateRow, LedgerEntry, MemoryCandidate, MemoryRecord};
use crate::error::{Error, Result};
use crate::store;
use rusqlite::OptionalExtension;
use serde_json::{Map, Value};

/// A human decision on a candidate.
#[derive(Debug, Clone)]
pub enum Decision {
    Approve,
    /// Approve with these fields replaced (a JSON object of candidate fields).
    Edit(Value),
    Reject {
        reason: String,
    },
}

/// The outcome of a decision: the wire type itself, one type for the store and its answers.
pub use crate::contracts::CandidateDecided as Decided;

pub(super) fn parse_row(s: &str) -> Result<CandidateRow> {
    serde_json::from_str(s).map_err(|e| Error::internal(format!("candidate row: {e}")))
}

pub(super) fn to_json<T: serde::Serialize>(v: &T) -> Result<String> {
    serde_json::to_string(v).map_err(|e| Error::internal(e.to_string()))
}

pub(super) fn to_map<T: serde::Serialize>(v: &T) -> Result<Map<String, Value>> {
    match serde_json::to_value(v).map_err(|e| Error::internal(e.to_string()))? {
        Value::Object(m) => Ok(m),
        _ => Err(Error::internal("ledger entry is not an object")),
    }
}

impl Memory {
    pub(super) fn ledger_lock(&self) -> Result<store::Lock> {
        store::Lock::exclusive(&store::lock_path(&self.home()?.ledger_path()))
    }

    /// A ledger record as it is chained: the whole entry redacted (source paths, reasons,
    /// edits) before it is hashed.
    pub(crate) fn ledger_map(&self, entry: &LedgerEntry) -> Result<Map<String, Value>> {
        let mut map = to_map(entry)?;
        let redactor = self.redactor()?;
        for v in map.values_mut() {
            redactor.redact_value(v, "");
        }
        Ok(map)
    }

    pub(super) fn append_ledger(&self, entry: &LedgerEntry) -> Result<u64> {
        let map = self.ledger_map(entry)?;
        let home = self.home()?;
        let keys = crate::chain::Keyring::open(home.root())?;
        let written = crate::chain::append(&keys, &home.ledger_path(), map)?;
        written
            .get("seq")
            .and_then(Value::as_u64)
            .ok_or_else(|| Error::internal("ledger append returned no seq"))
    }

    /// Decides a pending candidate: ledger first, then the database. A candidate already
    /// decided is a `conflict`; an unknown one `not_found`.
    pub fn decide(&self, id: &str, decision: Decision, actor: &str) -> Result<Decided> {
        self.decide_for(id, decision, actor, None)
    }

    /// [`Memory::decide`] for a candidate that must belong to `user` (a memory user or
    /// profile name): another user's candidate is `not_found`, as if it did not exist.
    ///
    /// An approved record is embedded right after it is stored (see [`super::super::vectors`]); when
    /// that fails the record stays stored and queued, and `embedding` says why.
    pub fn decide_for(
        &self,
        id: &str,
        decision: Decision,
        actor: &str,
        user: Option<&str>,
    ) -> Result<Decided> {
        let before = self.max_rid()?;
        let mut decided = match self.shared {
            Some(db) => self.decide_shared(db, id, decision, actor, user)?,
            None => self.decide_unembedded(id, decision, actor, user)?,
        };
        decided.embedding = self.embed_after(before);
        Ok(decided)
    }

    pub(super) fn decide_unembedded(
        &self,
        id: &str,
        decision: Decision,
        actor: &str,
        user: Option<&str>,
    ) -> Result<Decided> {
        let user = user.map(|u| self.resolve_user(u)).transpose()?;
        let _lock = self.ledger_lock()?;
        self.reconcile_locked()?;
        let Some(row) = self
            .candidate(id)?
            .filter(|r| user.as_ref().is_none_or(|u| *u == r.user))
        else {
            let mut e = Error::not_found(match &user {
                Some(u) => format!("no candidate {id:?} for user {u:?}"),
                None => format!("no candidate {id:?}"),
            })
            .with("id", id);
            if let Some(u) = user {
                e = e.with("user", u);
            }
            return Err(e);
        };
        let on_ledger: Option<i64> = self
            .conn
            .query_row(
                "SELECT seq FROM ledger_decided WHERE candidate_id = ?1",
                [id],
                |r| r.get(0),
            )
            .optional()?;
        if let Some(seq) = on_ledger
            && row.status == "pending"
        {
            // The ledger decided it, but that decision could not be applied (its record did
            // not match the candidate): still decided, once.
            return Err(Error::conflict(format!(
                "candidate {id} was already decided on the ledger (seq {seq}), a decision the \
                 database could not apply"
            ))
            .with("id", id)
            .with("ledger_seq", seq)
            .retryable(false));
        }
        if row.status != "pending" {
            return Err(Error::conflict(format!(
                "candidate {id} was already {} ({})",
                row.status,
                row.decided_at.as_deref().unwrap_or("?")
            ))
            .with("id", id)
            .with("status", row.status.clone())
            .retryable(false));
        }
        let entry = self.ledger_entry(&row, decision, actor)?;
        // A human act: the ledger record is its first record; the audit log (actor `human`,
        // the decider's name as `by`) must be writable before it and gets the event after.
        let mut audit = crate::audit::open_human(self.home()?)?;
        let seq = self.append_ledger(&entry)?;
        let decided = self
            .apply_entry(seq, &entry)?
            .ok_or_else(|| Error::internal(format!("ledger record {seq} could not be applied")))?;
        audit.record(
            "human",
            &crate::contracts::audit::MemoryDecision {
                candidate_id: &row.id,
                decision: entry.decision.as_deref(),
                user: &row.user,
                by: actor,
                ledger_seq: seq,
                memory_id: entry.memory_id.as_deref(),
                content_digest: entry.content_digest.as_deref(),
            },
        )?;
        Ok(decided)
    }

    /// The ledger record of `decision` on the pending candidate `row` by `actor` (the edited
    /// candidate checked and redacted, a rejection's reason redacted).
    pub(crate) fn ledger_entry(
        &self,
        row: &CandidateRow,
        decision: Decision,
        actor: &str,
    ) -> Result<LedgerEntry> {
        let ts = clock::rfc3339(self.now()?);
        let mut entry = LedgerEntry {
            kind: "decision".into(),
            ts: ts.clone(),
            actor: actor.to_string(),
            user: row.user.clone(),
            decision: None,
            candidate_id: Some(row.id.clone()),
            memory_id: None,
            content_digest: None,
            edited: None,
            reason: None,
            records: Vec::new(),
            count: None,
            batch_digest: None,
            source_path: None,
        };
        match decision {
            Decision::Approve => {
                entry.decision = Some("approve".into());
                entry.content_digest = Some(candidate_digest(&row.candidate));
                entry.memory_id = Some(self.build_record(row, &row.candidate, &ts, 0)?.id);
            }
            Decision::Edit(patch) => {
                let Value::Object(patch) = patch else {
                    return Err(Error::invalid(
                        "--edit must be a JSON object of candidate fields",
                    ));
                };
                let mut base = to_map(&row.candidate)?;
                for (k, v) in patch {
                    base.insert(if k == "body_md" { "text".into() } else { k }, v);
                }
                let mut edited: MemoryCandidate = serde_json::from_value(Value::Object(base))
                    .map_err(|e| Error::invalid(format!("--edit: {e}")))?;
                canonicalize(&mut edited);
                validate(&edited)?;
                let (edited, _) = self.redact_candidate(&edited)?;
                entry.decision = Some("edit".into());
                entry.content_digest = Some(candidate_digest(&edited));
                entry.memory_id = Some(self.build_record(row, &edited, &ts, 0)?.id);
                entry.edited = Some(edited);
            }
            Decision::Reject { reason } => {
                if reason.trim().is_empty() {
                    return Err(Error::invalid("a rejection needs a --reason"));
                }
                entry.decision = Some("reject".into());
                entry.content_digest = Some(candidate_digest(&row.candidate));
                entry.reason = Some(self.redactor()?.redact_str(&reason).into_owned());
            }
        }
        Ok(entry)
    }

    /// The record an approval of `c` (candidate `row`) creates; large bodies go to a blob.
    pub(super) fn build_record(
        &self,
        row: &CandidateRow,
        c: &MemoryCandidate,
        ts: &str,
        ledger_seq: u64,
    ) -> Result<MemoryRecord> {
        let mut meta = Map::new();
        meta.insert("candidate_id".into(), Value::from(row.id.clone()));
        meta.insert("ledger_seq".into(), Value::from(ledger_seq));
        if let Some(p) = &row.promoted_from {
            meta.insert("promoted_from".into(), Value::from(p.clone()));
        }
        let body = if c.text.len() > BLOB_THRESHOLD_BYTES {
            let sha = store::sha256_hex(c.text.as_bytes());
            let rel = format!("memory/blobs/{sha}.md");
            let blob = BodyBlob {
                path: &rel,
                sha256: &sha,
                bytes: c.text.len(),
            };
            meta.insert(
                "body_blob".into(),
                serde_json::to_value(blob).map_err(|e| Error::internal(e.to_string()))?,
            );
            format!(
                "{}\n\n[full body: {rel} ({} bytes, sha256 {sha})]",
                ltm::summarize(&c.text),
                c.text.len()
            )
        } else {
            c.text.clone()
        };
        let mut r = ltm::record_from_candidate(c, &row.user, ts, body, Value::Object(meta));
        if let Some(blob) = r.metadata.get("body_blob") {
            r.token_est = ltm::token_est(&c.text);
            let _ = blob;
        }
        Ok(r)
    }

    pub(super) fn write_blob(&self, c: &MemoryCandidate) -> Result<()> {
        if c.text.len() > BLOB_THRESHOLD_BYTES {
            let sha = store::sha256_hex(c.text.as_bytes());
            let path = self
                .home()?
                .root()
                .join("memory")
                .join("blobs")
                .join(format!("{sha}.md"));
            if !path.exists() {
                store::write_bytes_atomic(&path, c.text.as_bytes())?;
            }
        }
        Ok(())
    }

    /// The records an approved or edited candidate `c` of `row` becomes: its own and, when
    /// the user's profile names a shared user, the mirror in that store. A large body is
    /// written to its blob file first.
    pub(crate) fn decision_records(
        &self,
        row: &CandidateRow,
        c: &MemoryCandidate,
        ts: &str,
        seq: u64,
    ) -> Result<(MemoryRecord, Option<MemoryRecord>)> {
        self.write_blob(c)?;
        let r = self.build_record(row, c, ts, seq)?;
        let mirror = match self.shared_user_of(&row.user)? {
            Some(shared) => {
                let mut mrow = row.clone();
                mrow.user = shared;
                let mut m = self.build_record(&mrow, c, ts, seq)?;
                if let Value::Object(meta) = &mut m.metadata {
                    meta.insert("mirrored_from".into(), Value::from(r.id.clone()));
                }
                Some(m)
            }
            None => None,
        };
        Ok((r, mirror))
    }
}

/// Where a long approved body went (`metadata.body_blob` of its record): the file under the
/// home, its SHA-256 and its length in bytes.
#[derive(serde::Serialize)]
struct BodyBlob<'a> {
    path: &'a str,
    sha256: &'a str,
    bytes: usize,
}
