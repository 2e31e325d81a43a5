//! Proposing candidates: a candidate stored `pending` after redaction, listed and read back,
//! and STM entries nominated as candidates.

use super::super::ltm;
use super::super::{DEFAULT_USER, Memory, ProposeCtx};
use super::decide::{parse_row, to_json};
use super::extract::{candidate_digest, canonicalize, validate};
use crate::clock;
use crate::contracts::{CandidateRow, MemoryCandidate, Promotion, StmEntry};
use crate::error::{Error, Result};
use rusqlite::{OptionalExtension, params};

impl Memory {
    pub(super) fn redact_candidate(
        &self,
        c: &MemoryCandidate,
    ) -> Result<(MemoryCandidate, Vec<String>)> {
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
            return super::super::pg::propose(db, &row, &digest);
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
    pub(super) fn pending_row(
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
            return super::super::pg::candidate(db, id);
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
            return super::super::pg::candidates(db, status, user.as_deref());
        }
        let mut stmt = self.conn.prepare(
            "SELECT row FROM candidates WHERE (?1 IS NULL OR status = ?1) \
             AND (?2 IS NULL OR user = ?2) ORDER BY created_unix, id",
        )?;
        let rows = stmt.query_map(params![status, user], |r| r.get::<_, String>(0))?;
        rows.map(|r| parse_row(&r?)).collect()
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
pub(super) fn stm_candidate(e: &StmEntry) -> MemoryCandidate {
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
