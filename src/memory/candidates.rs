//! Candidates, human decisions and the approval ledger.
//!
//! A decision (approve / edit / reject) runs under the ledger's lock file
//! (`memory_approvals.jsonl.lock`): the candidate must still be `pending` (otherwise
//! `conflict`), the decision is appended to the keyed, hash-chained ledger FIRST
//! ([`crate::chain`]), and only then applied to the database in one transaction that also
//! marks the ledger `seq` as seen (`ledger_seen`). The same holds for `gc` and `import`
//! records.
//!
//! Every decision is also a human act in the audit log (`memory.decision`, actor `human`,
//! the decider's name as `by`, its ledger `seq`): the audit log is checked for appending
//! before the ledger record and the event is written after the decision is applied.
//!
//! Crash recovery: whatever instant a kill lands, the ledger is the truth. Every
//! [`Memory::open`] (and every decision, under the lock, before it looks at the candidate)
//! compares the ledger's last whole record (read from the log itself, never from a side file
//! that a crash may have left behind) with what `ledger_seen` holds; if any seq is missing,
//! every unseen record is replayed in order. A replayed decision on a candidate that is still
//! pending is applied; one on a candidate the database already shows decided, or whose
//! digest does not match the candidate (impossible unless the files were edited), is marked
//! seen and not applied. Every decision seen is also recorded per candidate
//! (`ledger_decided`, same transaction), so once the ledger holds a decision for a
//! candidate, applied or not, a second decision is `conflict`: a candidate is never decided
//! twice. An `import` record whose batch never reached the database cannot be
//! replayed (the ledger lists ids and digests, not bodies): it is marked seen, unapplied, and
//! running the same import again completes it (records already stored are left as they are).

use super::ltm::{self, BLOB_THRESHOLD_BYTES, LtmStore};
use super::{DEFAULT_USER, Memory, ProposeCtx, final_candidate, mark_decided};
use crate::clock;
use crate::contracts::{
    CANDIDATE_SOURCES, CANDIDATE_TYPES, CandidateRow, LedgerEntry, LedgerRecordRef,
    MemoryCandidate, MemoryRecord, Promotion, StmEntry,
};
use crate::error::{Error, Result};
use crate::store;
use rusqlite::{OptionalExtension, params};
use serde_json::{Map, Value, json};

/// Opening marker of a candidate block inside THINK output.
pub const BLOCK_OPEN: &str = "<<<MEMORY_CANDIDATES_JSON>>>";
/// Closing marker of a candidate block.
pub const BLOCK_CLOSE: &str = "<<<END_MEMORY_CANDIDATES_JSON>>>";
/// The Bob v0 runtime: the model proposes at most this many candidates per THINK output.
pub const MAX_PER_THINK: usize = 2;
/// At most this many candidates in one direct (non-THINK) proposal.
pub const MAX_PER_PROPOSAL: usize = 100;
/// Largest candidate text accepted.
pub const MAX_TEXT_BYTES: usize = 1024 * 1024;

/// Candidates found in an input and what was left out.
#[derive(Debug, Clone, Default)]
pub struct Extracted {
    pub candidates: Vec<MemoryCandidate>,
    /// Candidates beyond the per-THINK cap, not taken.
    pub dropped: usize,
    /// True when the input was THINK output (markers or a `memory_candidates` field).
    pub from_think: bool,
}

fn candidates_of(v: &Value, out: &mut Vec<Value>) -> bool {
    match v {
        Value::Array(items) => {
            for i in items {
                candidates_of(i, out);
            }
            true
        }
        Value::Object(m) => {
            for key in [
                "save_plan",
                "suggest_memory_save",
                "memory_candidates",
                "candidates",
            ] {
                if let Some(inner) = m.get(key) {
                    if !inner.is_null() {
                        candidates_of(inner, out);
                    }
                    return true;
                }
            }
            if m.get("action").and_then(Value::as_str) == Some("save_memory")
                && let Some(p) = m.get("payload")
            {
                return candidates_of(p, out);
            }
            if let Some(ti) = m.get("tool_intent") {
                return candidates_of(ti, out);
            }
            if m.contains_key("text") || m.contains_key("body_md") {
                out.push(v.clone());
                return true;
            }
            false
        }
        _ => false,
    }
}

/// Finds memory candidates in an input: a JSON candidate, an array of them, an object
/// wrapping them (`save_plan`, `suggest_memory_save`, `memory_candidates`, `candidates`, a
/// `save_memory` tool intent), or THINK text containing
/// `<<<MEMORY_CANDIDATES_JSON>>>…<<<END_MEMORY_CANDIDATES_JSON>>>` blocks. THINK output (marker
/// blocks or a `memory_candidates` field) yields at most [`MAX_PER_THINK`] candidates.
pub fn extract_candidates(input: &str) -> Result<Extracted> {
    let mut raw = Vec::new();
    let trimmed = input.trim();
    let from_think: bool;
    if let Ok(v) = serde_json::from_str::<Value>(trimmed) {
        from_think = v.get("memory_candidates").is_some();
        if !candidates_of(&v, &mut raw) {
            return Err(Error::invalid(
                "no memory candidate in the input: expected {text,…}, {title, body_md,…}, an \
                 array, or {save_plan|suggest_memory_save|memory_candidates: …}",
            ));
        }
    } else if input.contains(BLOCK_OPEN) {
        from_think = true;
        let mut rest = input;
        while let Some(i) = rest.find(BLOCK_OPEN) {
            let after = &rest[i + BLOCK_OPEN.len()..];
            let Some(j) = after.find(BLOCK_CLOSE) else {
                return Err(Error::invalid(format!(
                    "{BLOCK_OPEN} block is not closed by {BLOCK_CLOSE}"
                )));
            };
            let body = after[..j].trim();
            let v: Value = serde_json::from_str(body)
                .map_err(|e| Error::bad_json("memory candidates block", &e))?;
            candidates_of(&v, &mut raw);
            rest = &after[j + BLOCK_CLOSE.len()..];
        }
    } else if trimmed.is_empty() {
        return Err(Error::invalid(
            "no input (expected memory candidates on stdin)",
        ));
    } else {
        return Err(Error::invalid(format!(
            "input is neither JSON nor THINK output with a {BLOCK_OPEN} block"
        )));
    }
    let mut candidates = Vec::with_capacity(raw.len());
    for (i, v) in raw.into_iter().enumerate() {
        let c: MemoryCandidate = serde_json::from_value(v)
            .map_err(|e| Error::invalid(format!("candidate {i}: {e}")).with("index", i))?;
        candidates.push(c);
    }
    let cap = if from_think {
        MAX_PER_THINK
    } else {
        MAX_PER_PROPOSAL
    };
    let dropped = candidates.len().saturating_sub(cap);
    if !from_think && dropped > 0 {
        return Err(Error::invalid(format!(
            "at most {MAX_PER_PROPOSAL} candidates per proposal (got {})",
            candidates.len()
        )));
    }
    candidates.truncate(cap);
    Ok(Extracted {
        candidates,
        dropped,
        from_think,
    })
}

/// Spells `type` and `source` the canonical way (trimmed, lower case), so `"Preference "`
/// from a model is the seed's `preference`.
pub fn canonicalize(c: &mut MemoryCandidate) {
    for (v, accepted) in [
        (&mut c.kind, CANDIDATE_TYPES),
        (&mut c.source, CANDIDATE_SOURCES),
    ] {
        let canon = v.trim().to_ascii_lowercase();
        if canon != *v && accepted.contains(&canon.as_str()) {
            *v = canon;
        }
    }
}

/// `tool:<name>`: the output of one named tool (a narrower `tool_output`).
fn is_tool_source(s: &str) -> bool {
    s.strip_prefix("tool:").is_some_and(|name| {
        (1..=64).contains(&name.len())
            && name
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"._-".contains(&b))
    })
}

/// Checks a candidate's fields: text, importance, tags, and `type` / `source` among
/// [`CANDIDATE_TYPES`] / [`CANDIDATE_SOURCES`] (or `tool:<name>` for a source)
/// (`invalid.request` otherwise).
pub fn validate(c: &MemoryCandidate) -> Result<()> {
    if c.text.trim().is_empty() {
        return Err(
            Error::invalid("candidate text (or body_md) must not be empty").with("field", "text"),
        );
    }
    if c.text.len() > MAX_TEXT_BYTES {
        return Err(Error::invalid(format!(
            "candidate text is {} bytes; the limit is {MAX_TEXT_BYTES}",
            c.text.len()
        ))
        .with("field", "text"));
    }
    if let Some(i) = c.importance
        && !(1..=10).contains(&i)
    {
        return Err(
            Error::invalid(format!("importance must be 1..10 (got {i})"))
                .with("field", "importance"),
        );
    }
    for (field, value, accepted) in [
        ("type", &c.kind, CANDIDATE_TYPES),
        ("source", &c.source, CANDIDATE_SOURCES),
    ] {
        let ok = accepted.contains(&value.as_str()) || field == "source" && is_tool_source(value);
        if !ok {
            // The refused value is echoed cut short: it is input, not a place for secrets.
            let shown = ltm::truncate_chars(value, 64);
            let also = if field == "source" {
                ", tool:<name>"
            } else {
                ""
            };
            return Err(Error::invalid(format!(
                "candidate {field} {shown:?} is not one of {}{also}",
                accepted.join(", ")
            ))
            .with("field", field)
            .with("value", shown)
            .with("accepted", accepted));
        }
    }
    if c.tags.len() > 32 || c.tags.iter().any(|t| t.trim().is_empty() || t.len() > 64) {
        return Err(Error::invalid("at most 32 tags of 1-64 characters each").with("field", "tags"));
    }
    Ok(())
}

/// SHA-256 of the candidate's canonical JSON.
pub fn candidate_digest(c: &MemoryCandidate) -> String {
    store::sha256_hex(serde_json::to_string(c).unwrap_or_default().as_bytes())
}

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

fn parse_row(s: &str) -> Result<CandidateRow> {
    serde_json::from_str(s).map_err(|e| Error::internal(format!("candidate row: {e}")))
}

fn to_json<T: serde::Serialize>(v: &T) -> Result<String> {
    serde_json::to_string(v).map_err(|e| Error::internal(e.to_string()))
}

fn to_map<T: serde::Serialize>(v: &T) -> Result<Map<String, Value>> {
    match serde_json::to_value(v).map_err(|e| Error::internal(e.to_string()))? {
        Value::Object(m) => Ok(m),
        _ => Err(Error::internal("ledger entry is not an object")),
    }
}

impl Memory {
    fn redact_candidate(&self, c: &MemoryCandidate) -> Result<(MemoryCandidate, Vec<String>)> {
        let mut v = serde_json::to_value(c).map_err(|e| Error::internal(e.to_string()))?;
        let paths = self.redactor()?.redact_value(&mut v, "candidate");
        let c = serde_json::from_value(v).map_err(|e| Error::internal(e.to_string()))?;
        Ok((c, paths))
    }

    /// Stores a candidate as `pending` after redacting secrets. Proposing the same (redacted)
    /// content again for the same user while it is pending returns the existing row.
    pub fn propose(&self, candidate: MemoryCandidate, ctx: ProposeCtx) -> Result<CandidateRow> {
        self.propose_from(candidate, ctx, None)
    }

    pub(crate) fn propose_from(
        &self,
        candidate: MemoryCandidate,
        ctx: ProposeCtx,
        promoted_from: Option<String>,
    ) -> Result<CandidateRow> {
        let mut candidate = candidate;
        canonicalize(&mut candidate);
        validate(&candidate)?;
        let user = self.resolve_user(ctx.user.as_deref().unwrap_or(DEFAULT_USER))?;
        let (c, redactions) = self.redact_candidate(&candidate)?;
        let digest = candidate_digest(&c);
        if let Some(db) = self.shared {
            let row = self.pending_row(c, user, ctx, promoted_from, redactions)?;
            return super::pg::propose(db, &row, &digest);
        }
        let tx = self.begin()?;
        let existing: Option<String> = tx
            .query_row(
                "SELECT row FROM candidates WHERE user = ?1 AND digest = ?2 AND status = 'pending'",
                params![user, digest],
                |r| r.get(0),
            )
            .optional()?;
        if let Some(row) = existing {
            return parse_row(&row);
        }
        let row = self.pending_row(c, user, ctx, promoted_from, redactions)?;
        let created = clock::parse_rfc3339(&row.created_at)
            .map(|t| t.timestamp())
            .unwrap_or_default();
        tx.execute(
            "INSERT INTO candidates(id, user, status, digest, created_unix, row) \
             VALUES (?1, ?2, 'pending', ?3, ?4, ?5)",
            params![row.id, row.user, digest, created, to_json(&row)?],
        )?;
        tx.commit()?;
        Ok(row)
    }

    /// A new pending candidate row of `user` for the (redacted) candidate `c`.
    fn pending_row(
        &self,
        c: MemoryCandidate,
        user: String,
        ctx: ProposeCtx,
        promoted_from: Option<String>,
        redactions: Vec<String>,
    ) -> Result<CandidateRow> {
        Ok(CandidateRow {
            id: self.new_id("cand"),
            status: "pending".into(),
            user,
            created_at: clock::rfc3339(self.now()?),
            candidate: c,
            session_id: ctx.session_id,
            run_id: ctx.run_id,
            promoted_from,
            redactions,
            decided_at: None,
            decision: None,
            ledger_seq: None,
            memory_id: None,
            reason: None,
        })
    }

    /// One candidate by id.
    pub fn candidate(&self, id: &str) -> Result<Option<CandidateRow>> {
        if let Some(db) = self.shared {
            return super::pg::candidate(db, id);
        }
        let row: Option<String> = self
            .conn
            .query_row("SELECT row FROM candidates WHERE id = ?1", [id], |r| {
                r.get(0)
            })
            .optional()?;
        row.map(|r| parse_row(&r)).transpose()
    }

    /// Candidates, oldest first, filtered by status and user.
    pub fn candidates(
        &self,
        status: Option<&str>,
        user: Option<&str>,
    ) -> Result<Vec<CandidateRow>> {
        let user = user.map(|u| self.resolve_user(u)).transpose()?;
        if let Some(db) = self.shared {
            return super::pg::candidates(db, status, user.as_deref());
        }
        let mut stmt = self.conn.prepare(
            "SELECT row FROM candidates WHERE (?1 IS NULL OR status = ?1) \
             AND (?2 IS NULL OR user = ?2) ORDER BY created_unix, id",
        )?;
        let rows = stmt.query_map(params![status, user], |r| r.get::<_, String>(0))?;
        rows.map(|r| parse_row(&r?)).collect()
    }

    fn ledger_lock(&self) -> Result<store::Lock> {
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

    fn append_ledger(&self, entry: &LedgerEntry) -> Result<u64> {
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
    /// An approved record is embedded right after it is stored (see [`super::vectors`]); when
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

    fn decide_unembedded(
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
    fn build_record(
        &self,
        row: &CandidateRow,
        c: &MemoryCandidate,
        ts: &str,
        ledger_seq: u64,
    ) -> Result<MemoryRecord> {
        let mut meta = Map::new();
        meta.insert("candidate_id".into(), json!(row.id));
        meta.insert("ledger_seq".into(), json!(ledger_seq));
        if let Some(p) = &row.promoted_from {
            meta.insert("promoted_from".into(), json!(p));
        }
        let body = if c.text.len() > BLOB_THRESHOLD_BYTES {
            let sha = store::sha256_hex(c.text.as_bytes());
            let rel = format!("memory/blobs/{sha}.md");
            meta.insert(
                "body_blob".into(),
                json!({"path": rel, "sha256": sha, "bytes": c.text.len()}),
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

    fn write_blob(&self, c: &MemoryCandidate) -> Result<()> {
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

    /// Applies one ledger record to the database (idempotent: a `seq` already seen is skipped).
    /// Returns the outcome of a decision that was applied.
    fn apply_entry(&self, seq: u64, entry: &LedgerEntry) -> Result<Option<Decided>> {
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

    fn apply_decision(&self, seq: u64, entry: &LedgerEntry) -> Result<Option<Decided>> {
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
                        meta.insert("mirrored_from".into(), json!(mid));
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
                    meta.insert("mirrored_from".into(), json!(r.id));
                }
                Some(m)
            }
            None => None,
        };
        Ok((r, mirror))
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

    fn reconcile_locked(&self) -> Result<usize> {
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
        let records: Vec<LedgerRecordRef> = expired
            .iter()
            .map(|(id, d, u): &(String, String, String)| LedgerRecordRef {
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
                user.unwrap_or_else(|| "*".into()),
                records,
                expired.len(),
                batch_digest(expired.iter().map(|(i, d, _)| (i.as_str(), d.as_str()))),
            )
        };
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
    fn import_unembedded(
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

    /// Nominates eligible STM entries (see [`Memory::stm_promotable`]) as pending candidates;
    /// each entry is attempted once (marked). With `dry_run`, only lists what would be nominated.
    pub fn promote(&self, user: Option<&str>, dry_run: bool) -> Result<Vec<Promotion>> {
        let mut out = Vec::new();
        for mut e in self.stm_promotable(user)? {
            let c = stm_candidate(&e);
            if dry_run {
                out.push(Promotion::DryRun {
                    stm_id: e.id,
                    dry_run: true,
                    candidate: c,
                });
                continue;
            }
            let row = self.propose_from(
                c,
                ProposeCtx {
                    user: Some(e.user.clone()),
                    session_id: e.sessions_seen.last().cloned(),
                    run_id: None,
                },
                Some(e.id.clone()),
            )?;
            e.promotion_attempted_at = Some(clock::rfc3339(self.now()?));
            self.stm_save(&e)?;
            out.push(Promotion::Proposed {
                stm_id: e.id,
                candidate: Box::new(row),
            });
        }
        Ok(out)
    }
}

/// The candidate an STM entry is promoted as.
fn stm_candidate(e: &StmEntry) -> MemoryCandidate {
    let mut text = e.intent.trim().to_string();
    if !e.resolution.trim().is_empty() {
        text.push_str(&format!("\n\nResolution: {}", e.resolution.trim()));
    }
    if !e.entities.is_empty() {
        text.push_str(&format!("\n\nEntities: {}", e.entities.join(", ")));
    }
    MemoryCandidate {
        text,
        title: Some(ltm::truncate_chars(e.intent.trim(), 80)),
        kind: "fact".into(),
        tags: vec!["stm_promotion".into()],
        ttl_days: None,
        source: "assistant_inferred".into(),
        why_store: Some(format!(
            "accessed {} times across {} sessions",
            e.access_count,
            e.sessions_seen.len()
        )),
        importance: None,
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

fn mark_seen(conn: &rusqlite::Connection, seq: u64, kind: &str, applied: bool) -> Result<()> {
    mark_decision_seen(conn, seq, kind, applied, None)
}

/// Marks a ledger `seq` as seen (in the caller's transaction), with the candidate a decision
/// is about.
fn mark_decision_seen(
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
