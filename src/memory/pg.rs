//! Long-term memory, candidates and the approval ledger in the shared database, for a home
//! whose `database.url` is set (the tables of the `memory` migration).
//!
//! This module promises:
//!
//! * **One decision per candidate, cluster-wide.** A decision is one transaction: the
//!   candidate's row is locked (`SELECT … FOR UPDATE`), must still be `pending` (else
//!   `conflict`, exit 5), the ledger record is chained and inserted, the record(s) stored and
//!   the candidate marked decided, and all of it commits together or not at all. A second
//!   node deciding the same candidate waits on the row lock and then finds it decided. So the
//!   ledger and the tables never disagree, and no replay (the embedded store's reconcile) is
//!   needed.
//! * **The ledger keeps its keyed chain.** Each row of `memory_ledger` is one record chained
//!   exactly as a line of `memory_approvals.jsonl` ([`crate::chain::link`]: `key_id`, `seq`,
//!   `prev`, and the HMAC under the chain key), appended under a transaction-scoped advisory
//!   lock so `seq` has no gaps or forks. Every node of one database must use the same chain
//!   key (`keys.file` / `BOB_KEY_FILE`); the key never enters the database. A trigger refuses
//!   UPDATE, DELETE and TRUNCATE of ledger rows; an edit made anyway (as the table's owner,
//!   with the trigger disabled) is found by [`verify_ledger`].
//! * **Full-text ranking.** Records carry a weighted `tsvector` (title A, tags and summary B,
//!   body C, the 4:2:1 weights of the embedded store's bm25); a query's [`ltm::query_words`]
//!   are ranked by the embedded store's bm25, within a rank budget ([`super::pg_rank`]), and
//!   scored by the same [`ltm::score`] (importance and recency), so hits and scores read as
//!   the embedded store's: 0..1, best first.
//! * **Blobs stay node-local.** A body over [`ltm::BLOB_THRESHOLD_BYTES`] is written to the
//!   deciding node's `memory/blobs/` as today; the stored record keeps its summary, digest and
//!   path.

use super::ltm::{self, LtmStore};
use super::{Memory, QueryOpts};
use crate::clock;
use crate::contracts::{CandidateRow, Hit, MemoryRecord};
use crate::db::Database;
use crate::error::{Error, Result};
use serde_json::Value;

/// The advisory lock key the ledger is appended under ("bobledgr" as bytes).
pub(crate) const LEDGER_LOCK: i64 = 0x0062_6f62_6c65_6467;

/// Where the ledger lives, as `bob ledger verify` names it.
pub const LEDGER_NAME: &str = "postgres:memory_ledger";

fn parse_row(text: &str) -> Result<CandidateRow> {
    serde_json::from_str(text).map_err(|e| Error::internal(format!("candidate row: {e}")))
}

fn parse_record(text: &str) -> Result<MemoryRecord> {
    serde_json::from_str(text).map_err(|e| Error::internal(format!("memory record row: {e}")))
}

fn to_json<T: serde::Serialize>(v: &T) -> Result<String> {
    serde_json::to_string(v).map_err(|e| Error::internal(e.to_string()))
}

/// Long-term records in the shared database: the [`LtmStore`] of a home on PostgreSQL.
pub struct PgLtm {
    db: &'static Database,
    /// "Now" in unix seconds, for TTL and recency.
    now: i64,
    /// Rank budget in rows ([`super::pg_rank`]); `None` ranks every match.
    budget: Option<u64>,
    /// Where this node keeps the full-text column's statistics ([`super::pg_stats`]; `None`:
    /// in the process only).
    stats_file: Option<std::path::PathBuf>,
}

impl PgLtm {
    pub fn new(db: &'static Database, now: i64) -> PgLtm {
        PgLtm {
            db,
            now,
            budget: Some(super::pg_rank::DEFAULT_RANK_BUDGET),
            stats_file: None,
        }
    }

    /// The same store keeping the full-text statistics in `cache_dir` (the home's cache) too.
    pub fn with_cache_dir(mut self, cache_dir: Option<&std::path::Path>) -> PgLtm {
        self.stats_file = cache_dir.map(super::pg_stats::file_in);
        self
    }

    /// The same store with another rank budget (`None`: rank every match).
    pub fn with_rank_budget(mut self, budget: Option<u64>) -> PgLtm {
        self.budget = budget;
        self
    }

    /// The database it reads.
    pub(crate) fn db(&self) -> &'static Database {
        self.db
    }

    /// Its "now", in unix seconds.
    pub(crate) fn now(&self) -> i64 {
        self.now
    }

    /// One record by id.
    pub fn get(&self, id: &str) -> Result<Option<MemoryRecord>> {
        let row = self
            .db
            .with(|c| c.query_opt("SELECT record FROM memory_records WHERE id = $1", &[&id]))?;
        row.map(|r| parse_record(r.get(0))).transpose()
    }

    /// Records newest first (of one user, or of all), at most `limit`, hiding expired ones.
    pub fn list(&self, user: Option<&str>, limit: usize) -> Result<Vec<MemoryRecord>> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows = self.db.with(|c| {
            c.query(
                "SELECT record FROM memory_records WHERE ($1::text IS NULL OR user_id = $1) \
                 AND (expires_unix IS NULL OR expires_unix > $2) \
                 ORDER BY created_unix DESC, rid DESC LIMIT $3",
                &[&user, &self.now, &limit],
            )
        })?;
        rows.iter().map(|r| parse_record(r.get(0))).collect()
    }

    /// Every stored record's JSON (of one user, or of all; expired ones not yet collected
    /// too), in insertion order, handed to `each`; returns how many.
    pub fn each(
        &self,
        user: Option<&str>,
        each: &mut dyn FnMut(&str) -> Result<()>,
    ) -> Result<usize> {
        let rows = self.db.with(|c| {
            c.query(
                "SELECT record FROM memory_records WHERE ($1::text IS NULL OR user_id = $1) \
                 ORDER BY rid",
                &[&user],
            )
        })?;
        for r in &rows {
            each(r.get(0))?;
        }
        Ok(rows.len())
    }

    /// The number of records stored.
    pub fn count(&self) -> Result<i64> {
        self.db
            .with(|c| c.query_one("SELECT count(*) FROM memory_records", &[]))
            .map(|r| r.get(0))
    }
}

/// A record as its row holds it: redacted for storage, with the columns it is found by.
struct Row {
    id: String,
    user: String,
    title: String,
    summary: String,
    body: String,
    tags: Vec<String>,
    importance: i32,
    created: i64,
    expires: Option<i64>,
    digest: String,
    record: String,
}

impl Row {
    /// `r`'s row, `r` redacted for storage first.
    fn of(r: &MemoryRecord) -> Result<Row> {
        let (masked, v) = ltm::for_storage(r)?;
        let r = &*masked;
        Ok(Row {
            id: r.id.clone(),
            user: r.user.as_deref().unwrap_or(super::DEFAULT_USER).to_string(),
            title: r.title.clone(),
            summary: r.summary.clone(),
            body: r.body_md.clone(),
            tags: r.tags.clone(),
            importance: i32::from(r.importance.unwrap_or(5)),
            created: clock::parse_rfc3339(&r.created_at)
                .map(|t| t.timestamp())
                .unwrap_or_default(),
            expires: ltm::expires_unix(r),
            digest: ltm::record_digest(r),
            record: v.to_string(),
        })
    }
}

/// Inserts `r` (redacted for storage first) unless its id is stored; true when inserted.
pub(crate) fn insert_record(
    db: &'static Database,
    c: &mut impl postgres::GenericClient,
    r: &MemoryRecord,
) -> Result<bool> {
    Ok(insert_records(db, c, std::slice::from_ref(r))?[0])
}

/// Inserts `records` (each redacted for storage first) in one statement, in their order, each
/// unless its id is stored (or came earlier in `records`); per record, whether it was
/// inserted.
pub(crate) fn insert_records(
    db: &'static Database,
    c: &mut impl postgres::GenericClient,
    records: &[MemoryRecord],
) -> Result<Vec<bool>> {
    if records.is_empty() {
        return Ok(Vec::new());
    }
    let rows = records.iter().map(Row::of).collect::<Result<Vec<Row>>>()?;
    let col = |f: fn(&Row) -> &str| rows.iter().map(f).collect::<Vec<&str>>();
    // A row's tags are a JSON array: one text[] per row does not fit in one array parameter.
    let tags = rows
        .iter()
        .map(|r| serde_json::to_string(&r.tags).map_err(|e| Error::internal(e.to_string())))
        .collect::<Result<Vec<String>>>()?;
    let tag_words: Vec<String> = rows.iter().map(|r| r.tags.join(" ")).collect();
    let importance: Vec<i32> = rows.iter().map(|r| r.importance).collect();
    let created: Vec<i64> = rows.iter().map(|r| r.created).collect();
    let expires: Vec<Option<i64>> = rows.iter().map(|r| r.expires).collect();
    use postgres::types::Type;
    let inserted = c
        .query_typed(
            "INSERT INTO memory_records (id, user_id, title, summary, body, tags, tag_words, \
             importance, created_unix, expires_unix, digest, record) \
             SELECT x.id, x.user_id, x.title, x.summary, x.body, \
                 ARRAY(SELECT jsonb_array_elements_text(x.tags::jsonb)), x.tag_words, \
                 x.importance, x.created_unix, x.expires_unix, x.digest, x.record \
             FROM unnest($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) WITH ORDINALITY \
                 AS x(id, user_id, title, summary, body, tags, tag_words, importance, \
                      created_unix, expires_unix, digest, record, ord) \
             ORDER BY x.ord \
             ON CONFLICT (id) DO NOTHING RETURNING id",
            &[
                (&col(|r| &r.id), Type::TEXT_ARRAY),
                (&col(|r| &r.user), Type::TEXT_ARRAY),
                (&col(|r| &r.title), Type::TEXT_ARRAY),
                (&col(|r| &r.summary), Type::TEXT_ARRAY),
                (&col(|r| &r.body), Type::TEXT_ARRAY),
                (&tags, Type::TEXT_ARRAY),
                (&tag_words, Type::TEXT_ARRAY),
                (&importance, Type::INT4_ARRAY),
                (&created, Type::INT8_ARRAY),
                (&expires, Type::INT8_ARRAY),
                (&col(|r| &r.digest), Type::TEXT_ARRAY),
                (&col(|r| &r.record), Type::TEXT_ARRAY),
            ],
        )
        .map_err(|e| db.error(e))?;
    let mut fresh: std::collections::HashSet<String> =
        inserted.iter().map(|r| r.get::<_, String>(0)).collect();
    // The first of two records with one id is the one inserted.
    Ok(rows.iter().map(|r| fresh.remove(&r.id)).collect())
}

impl LtmStore for PgLtm {
    fn upsert(&self, r: &MemoryRecord) -> Result<String> {
        let db = self.db;
        if db.transaction(|tx| insert_record(db, tx, r))? {
            super::pg_pack::records(db, std::slice::from_ref(&r.id));
        }
        Ok(r.id.clone())
    }

    fn query(&self, text: &str, opts: &QueryOpts) -> Result<Vec<Hit>> {
        let scored = self.scored(text, opts, opts.k)?;
        let found = self.excerpted(text, scored.iter().map(|(_, id)| id.as_str()))?;
        scored
            .into_iter()
            .map(|(score, id)| {
                let (rec, snip) = found
                    .get(&id)
                    .ok_or_else(|| Error::internal(format!("memory record {id} vanished")))?;
                Ok(hit(rec.clone(), score, Some(snip)))
            })
            .collect()
    }
}

/// The hit of a record: `excerpt` the query's headline in its body, else (none, or empty) its
/// summary.
pub(crate) fn hit(rec: MemoryRecord, score: f64, excerpt: Option<&str>) -> Hit {
    let excerpt = match excerpt {
        Some(e) if !e.is_empty() => e.to_string(),
        _ => rec.summary,
    };
    Hit {
        id: rec.id,
        score,
        excerpt,
        title: rec.title,
        tags: rec.tags,
        created_at: rec.created_at,
        lexical_score: None,
        semantic_score: None,
    }
}

impl PgLtm {
    /// The best `k` records of `opts.user` for the words of `text` (score in 0..1, id), best
    /// first (ties by id): the ranking of [`LtmStore::query`] without the excerpts.
    pub(crate) fn scored(
        &self,
        text: &str,
        opts: &QueryOpts,
        k: usize,
    ) -> Result<Vec<(f64, String)>> {
        let words = ltm::query_words(text);
        if words.is_empty() || k == 0 {
            return Ok(Vec::new());
        }
        let limit = k.saturating_mul(4).max(40);
        let filter = super::pg_rank::Filter {
            user: &opts.user,
            now: self.now,
            tags: &opts.tags,
        };
        let rows = super::pg_rank::ranked(
            self.db,
            &words,
            &filter,
            limit,
            self.budget,
            self.stats_file.as_deref(),
        )?;
        let best = rows.iter().map(|r| r.bm25).fold(0.0f64, f64::max);
        let mut scored: Vec<(f64, String)> = rows
            .into_iter()
            .map(|r| {
                let s = ltm::score(-r.bm25, best, r.importance, r.created_unix, self.now);
                (s, r.id)
            })
            .collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
        scored.truncate(k);
        Ok(scored)
    }

    /// The records of `ids` with the query's headline in each body, one line (empty when the
    /// query has no words); ids not stored are left out.
    pub(crate) fn excerpted<'a>(
        &self,
        text: &str,
        ids: impl Iterator<Item = &'a str>,
    ) -> Result<std::collections::HashMap<String, (MemoryRecord, String)>> {
        let ids: Vec<&str> = ids.collect();
        if ids.is_empty() {
            return Ok(Default::default());
        }
        // The words are letters and digits only (query_words), so the websearch syntax sees
        // nothing but terms and `or`. A headline is the costly part: made for these rows only.
        let q = ltm::query_words(text).join(" or ");
        let found = self.db.with(|c| {
            c.query_typed(
                "SELECT record, CASE WHEN $1 = '' THEN '' ELSE ts_headline('english', body, \
                     websearch_to_tsquery('english', $1), \
                     'StartSel=\"\", StopSel=\"\", MaxWords=24, MinWords=8, MaxFragments=1') END \
                 FROM memory_records WHERE id = ANY($2)",
                &[
                    (&q, postgres::types::Type::TEXT),
                    (&ids, postgres::types::Type::TEXT_ARRAY),
                ],
            )
        })?;
        found
            .iter()
            .map(|row| {
                let rec = parse_record(row.get(0))?;
                let snip = row
                    .get::<_, &str>(1)
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ");
                Ok((rec.id.clone(), (rec, snip)))
            })
            .collect()
    }
}

/// Stores the pending candidate `row` (its `digest` the redacted candidate's), or returns the
/// pending row the same user already has for the same content.
pub(crate) fn propose(
    db: &'static Database,
    row: &CandidateRow,
    digest: &str,
) -> Result<CandidateRow> {
    let created = clock::parse_rfc3339(&row.created_at)
        .map(|t| t.timestamp())
        .unwrap_or_default();
    let text = to_json(row)?;
    db.transaction(|tx| {
        let n = tx
            .execute(
                "INSERT INTO memory_candidates (id, user_id, status, digest, created_unix, row) \
                 VALUES ($1, $2, 'pending', $3, $4, $5) \
                 ON CONFLICT (user_id, digest) WHERE status = 'pending' DO NOTHING",
                &[&row.id, &row.user, &digest, &created, &text],
            )
            .map_err(|e| db.error(e))?;
        if n == 1 {
            return Ok(row.clone());
        }
        let existing = tx
            .query_opt(
                "SELECT row FROM memory_candidates \
                 WHERE user_id = $1 AND digest = $2 AND status = 'pending'",
                &[&row.user, &digest],
            )
            .map_err(|e| db.error(e))?;
        match existing {
            Some(r) => parse_row(r.get(0)),
            // Decided between the two statements: propose again.
            None => Err(Error::conflict(
                "the same candidate was decided while it was being proposed; propose it again",
            )),
        }
    })
}

/// One candidate by id.
pub(crate) fn candidate(db: &'static Database, id: &str) -> Result<Option<CandidateRow>> {
    let row =
        db.with(|c| c.query_opt("SELECT row FROM memory_candidates WHERE id = $1", &[&id]))?;
    row.map(|r| parse_row(r.get(0))).transpose()
}

/// Candidates, oldest first, filtered by status and user.
pub(crate) fn candidates(
    db: &'static Database,
    status: Option<&str>,
    user: Option<&str>,
) -> Result<Vec<CandidateRow>> {
    let rows = db.with(|c| {
        c.query(
            "SELECT row FROM memory_candidates WHERE ($1::text IS NULL OR status = $1) \
             AND ($2::text IS NULL OR user_id = $2) ORDER BY created_unix, id",
            &[&status, &user],
        )
    })?;
    rows.iter().map(|r| parse_row(r.get(0))).collect()
}

impl Memory {
    /// [`Memory::decide_for`] on the shared database (see the module docs): the candidate
    /// locked, the ledger record chained, the record(s) stored and the candidate marked, in
    /// one transaction; the audit event (node-local) after the commit.
    pub(crate) fn decide_shared(
        &self,
        db: &'static Database,
        id: &str,
        decision: super::Decision,
        actor: &str,
        user: Option<&str>,
    ) -> Result<super::Decided> {
        let user = user.map(|u| self.resolve_user(u)).transpose()?;
        let home = self.home()?;
        let keys = crate::chain::Keyring::open(home.root())?;
        // A human act: the audit log must be writable before the decision is made.
        let mut audit = crate::audit::open_human(home)?;
        let (decided, entry) = db.transaction(|tx| {
            let locked = tx
                .query_opt(
                    "SELECT row FROM memory_candidates WHERE id = $1 FOR UPDATE",
                    &[&id],
                )
                .map_err(|e| db.error(e))?;
            let Some(mut row) = locked
                .map(|r| parse_row(r.get(0)))
                .transpose()?
                .filter(|r| user.as_ref().is_none_or(|u| *u == r.user))
            else {
                let mut e = Error::not_found(match &user {
                    Some(u) => format!("no candidate {id:?} for user {u:?}"),
                    None => format!("no candidate {id:?}"),
                })
                .with("id", id);
                if let Some(u) = &user {
                    e = e.with("user", u.clone());
                }
                return Err(e);
            };
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
            let map = self.ledger_map(&entry)?;
            let seq = append_ledger(db, tx, &keys, map)?;
            let record = super::final_candidate(&row, &entry)
                .map(|c| self.decision_records(&row, &c, &entry.ts, seq))
                .transpose()?;
            let mut mirrored = Vec::new();
            if let Some((r, mirror)) = &record {
                insert_record(db, tx, r)?;
                if let Some(m) = mirror {
                    insert_record(db, tx, m)?;
                    mirrored.push(m.id.clone());
                }
            }
            super::mark_decided(&mut row, &entry, seq, record.as_ref().map(|(r, _)| r));
            tx.execute(
                "UPDATE memory_candidates SET status = $2, row = $3 WHERE id = $1",
                &[&row.id, &row.status, &to_json(&row)?],
            )
            .map_err(|e| db.error(e))?;
            let decided = super::Decided {
                candidate: row,
                ledger_seq: seq,
                record: record.map(|(r, _)| r),
                mirrored,
                embedding: None,
            };
            Ok((decided, entry))
        })?;
        let stored = decided.record.iter().map(|r| r.id.clone());
        super::pg_pack::records(
            db,
            &stored.chain(decided.mirrored.clone()).collect::<Vec<_>>(),
        );
        audit.record(
            "human",
            &crate::contracts::audit::MemoryDecision {
                candidate_id: &decided.candidate.id,
                decision: entry.decision.as_deref(),
                user: &decided.candidate.user,
                by: actor,
                ledger_seq: decided.ledger_seq,
                memory_id: entry.memory_id.as_deref(),
                content_digest: entry.content_digest.as_deref(),
            },
        )?;
        Ok(decided)
    }
}

/// Appends `map` to the shared ledger in `tx`, chained after its last record under the ledger's
/// advisory lock (held until `tx` ends, so `seq` never forks); returns its `seq`.
pub(crate) fn append_ledger(
    db: &'static Database,
    tx: &mut postgres::Transaction<'_>,
    keys: &crate::chain::Keyring,
    map: serde_json::Map<String, Value>,
) -> Result<u64> {
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&LEDGER_LOCK])
        .map_err(|e| db.error(e))?;
    // The key of the newest epoch, checked under the ledger's lock (a rotation waits for it).
    let keys = &crate::chain::pg::signing_key(db, tx, keys)?;
    let last = tx
        .query_opt(
            "SELECT seq, record FROM memory_ledger ORDER BY seq DESC LIMIT 1",
            &[],
        )
        .map_err(|e| db.error(e))?;
    let (seq, prev) = match last {
        None => (0u64, crate::chain::GENESIS.to_string()),
        Some(r) => {
            let last: Value = serde_json::from_str(r.get(1)).unwrap_or_default();
            let Some(hash) = last.get("hash").and_then(Value::as_str) else {
                return Err(Error::conflict(
                    "the shared ledger's last record carries no hash: it was \
                     tampered with; run `bob ledger verify`",
                )
                .retryable(false));
            };
            (r.get::<_, i64>(0) as u64 + 1, hash.to_string())
        }
    };
    let linked = crate::chain::link(keys, seq, &prev, map)?;
    tx.execute(
        "INSERT INTO memory_ledger (seq, record) VALUES ($1, $2)",
        &[&(seq as i64), &to_json(&linked)?],
    )
    .map_err(|e| db.error(e))?;
    Ok(seq)
}

/// Verifies the shared ledger's chain with this node's chain key (see
/// [`crate::chain::verify_records`]); `None` when the database holds no ledger record and
/// this node has no key.
pub fn verify_ledger(
    db: &'static Database,
    home_root: &std::path::Path,
) -> Result<Option<crate::chain::ChainReport>> {
    let rows = db.with(|c| c.query("SELECT record FROM memory_ledger ORDER BY seq", &[]))?;
    let records: Vec<String> = rows.iter().map(|r| r.get::<_, String>(0)).collect();
    let Some(keys) = crate::chain::Keyring::load(home_root)? else {
        if records.is_empty() {
            return Ok(None);
        }
        return Err(Error::conflict(format!(
            "the shared ledger holds {} records but this node has no chain key: point keys.file \
             (BOB_KEY_FILE) at the key the other nodes use",
            records.len()
        ))
        .retryable(false));
    };
    Ok(Some(
        crate::chain::pg::ChainKeys::load(db, &keys)?.verify(LEDGER_NAME, &records),
    ))
}
