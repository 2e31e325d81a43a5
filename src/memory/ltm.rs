//! Long-term records: building them, their stable ids, and the SQLite FTS5 backend of the
//! [`LtmStore`] trait.
//!
//! Ranking: FTS5 BM25 over title (weight 4), summary (2), body (1) and tags (2) picks the best
//! `max(4k, 40)` matches; each is then scored
//! `score = rel * (0.8 + 0.1 * importance/10 + 0.1 * 0.5^(age_days/90))` with
//! `rel = 0.5 * s / s_best + 0.5 * s / (s + 1)`, `s = -bm25` (`s_best` the best match of the
//! query), so scores lie in 0..1, and the top `k` are returned.
//!
//! **Rank budget.** FTS5's `ORDER BY rank` computes bm25 (a docsize lookup and the position
//! lists of every phrase) for EVERY matching row, a few µs each: a query whose words are common
//! in a 1M-record store pays for tens of thousands of rows. So each query word's document
//! frequency `df` is read first (the word tokenized by a private in-memory FTS5 table with the
//! same `porter unicode61` tokenizer, then an index lookup in an `fts5vocab` table):
//!
//! * when the store has at most `budget` rows, the query has one word, or `Σ df ≤ budget`,
//!   the ranking is exact, as above;
//! * otherwise the **candidates** are the rows matching the rarest words, taken rarest first
//!   while their `Σ df` fits the budget or is still below the number of rows wanted
//!   (`max(4k, 40)`), plus the rows that have one of the other words in the TITLE (weight 4,
//!   the likeliest way for a common word to reach the top), those words taken by title
//!   frequency, rarest first, while the running total stays within the budget. The candidates
//!   are ranked with the bm25 of the FULL query expression, so their scores are those of the
//!   exact path: either FTS5 walks the full expression's doclists (cheap) testing each row for
//!   candidacy and computes bm25 only for candidates, or, when the query matches over 8 times
//!   more rows than the candidates, bm25 of `(full) AND (candidates)` minus bm25 of
//!   `(candidates)` (bm25 is a sum over phrases) spares the walk. When the candidates' `Σ df`
//!   is over half the query's, the exact ranking is used instead (it is then no slower).
//!
//! The approximation: a row that matches only left-out words outside the title candidates is
//! never returned, even if its bm25 would have placed it in the top `k`. The budget is
//! [`DEFAULT_RANK_BUDGET`] = 5000 rows; `bob memory query` reads `BOB_MEMORY_RANK_BUDGET`
//! (a row count, or `exact` to rank every match), which `scripts/bench-memory.sh` uses to
//! report how often the budgeted top 5 equals the exact one.

use super::QueryOpts;
use crate::contracts::{Hit, MemoryRecord};
use crate::error::{Error, Result};
use rusqlite::{Connection, OptionalExtension, params};

mod record;
pub use record::*;

/// The seam between callers and the long-term backend (Bob v0 "LTM store interface").
pub trait LtmStore {
    /// Stores a record; returns its id. Storing a record whose id already exists is a no-op.
    fn upsert(&self, record: &MemoryRecord) -> Result<String>;
    /// Ranked full-text query; never returns expired records or another user's records.
    fn query(&self, text: &str, opts: &QueryOpts) -> Result<Vec<Hit>>;
}

/// How many matching rows a query may rank with FTS5's bm25 before it ranks a smaller
/// candidate set instead (see the module docs).
pub const DEFAULT_RANK_BUDGET: u64 = 5000;

/// (bm25 rank, rowid, id, importance, created_unix, expires_unix, user, tags joined by spaces)
type FtsRow = (f64, i64, String, i64, i64, Option<i64>, String, String);

/// One [`FtsRow`] from a statement selecting exactly those columns, in that order.
fn fts_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<FtsRow> {
    Ok((
        r.get(0)?,
        r.get(1)?,
        r.get(2)?,
        r.get(3)?,
        r.get(4)?,
        r.get(5)?,
        r.get(6)?,
        r.get(7)?,
    ))
}

/// The SQLite/FTS5 long-term store.
pub struct SqliteLtm<'a> {
    pub(crate) conn: &'a Connection,
    /// "Now" in unix seconds, for TTL and recency.
    pub(crate) now: i64,
    /// Rank budget in rows; `None` ranks every match exactly.
    pub(crate) budget: Option<u64>,
}

impl<'a> SqliteLtm<'a> {
    pub fn new(conn: &'a Connection, now: i64) -> Self {
        SqliteLtm {
            conn,
            now,
            budget: Some(DEFAULT_RANK_BUDGET),
        }
    }

    /// The same store with another rank budget (`None`: always rank every match exactly).
    pub fn with_rank_budget(mut self, budget: Option<u64>) -> Self {
        self.budget = budget;
        self
    }

    /// True when a record with this id is stored.
    pub fn exists(&self, id: &str) -> Result<bool> {
        Ok(self
            .conn
            .query_row("SELECT 1 FROM ltm WHERE id = ?1", [id], |_| Ok(()))
            .optional()?
            .is_some())
    }

    /// Reads one stored record.
    pub fn get(&self, id: &str) -> Result<Option<MemoryRecord>> {
        let row: Option<String> = self
            .conn
            .query_row("SELECT record FROM ltm WHERE id = ?1", [id], |r| r.get(0))
            .optional()?;
        row.map(|s| {
            serde_json::from_str(&s).map_err(|e| Error::internal(format!("ltm row {id}: {e}")))
        })
        .transpose()
    }

    /// Deletes records by id; returns how many existed.
    pub fn delete(&self, ids: &[String]) -> Result<usize> {
        let mut stmt = self.conn.prepare_cached("DELETE FROM ltm WHERE id = ?1")?;
        let mut n = 0;
        for id in ids {
            n += stmt.execute([id])?;
        }
        Ok(n)
    }

    fn fetch(&self, expr: &str, limit: i64) -> Result<Vec<FtsRow>> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT f.rank, f.rowid, l.id, l.importance, l.created_unix, l.expires_unix, l.user, \
                    l.tags \
             FROM (SELECT rowid, rank FROM ltm_fts WHERE ltm_fts MATCH ?1 ORDER BY rank LIMIT ?2) \
                  AS f \
             JOIN ltm l ON l.rid = f.rowid",
        )?;
        let rows = stmt.query_map(params![expr, limit], fts_row)?;
        rows.collect::<std::result::Result<Vec<_>, _>>()
            .map_err(Error::from)
    }

    /// The best `limit` rows matching `full` among those matching `among`, by the bm25 of
    /// `full` (the same scores as [`Self::fetch`]): FTS5 walks the doclists of `full` and tests
    /// each row against `among`'s rows, but computes bm25 only for those. Cheap when `full`
    /// matches not many more rows than `among`.
    fn fetch_among_in(&self, full: &str, among: &str, limit: i64) -> Result<Vec<FtsRow>> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT f.s, f.rowid, l.id, l.importance, l.created_unix, l.expires_unix, l.user, \
                    l.tags \
             FROM (SELECT rowid, bm25(ltm_fts, 4.0, 2.0, 1.0, 2.0, 0.0) AS s FROM ltm_fts \
                   WHERE ltm_fts MATCH ?1 \
                     AND +rowid IN (SELECT rowid FROM ltm_fts WHERE ltm_fts MATCH ?2) \
                   ORDER BY s LIMIT ?3) AS f \
             JOIN ltm l ON l.rid = f.rowid",
        )?;
        let rows = stmt.query_map(params![full, among, limit], fts_row)?;
        rows.collect::<std::result::Result<Vec<_>, _>>()
            .map_err(Error::from)
    }

    /// [`Self::fetch_among_in`] for a `full` that matches many more rows than `among` (the same
    /// scores, up to floating-point rounding), without walking `full`'s doclists row by row.
    ///
    /// FTS5's bm25 is a sum over the phrases of the expression, each term depending only on that
    /// phrase's idf and frequency in the row. So over the rows of `(full) AND (among)` (FTS5
    /// seeks `full`'s doclists to `among`'s rows), that expression's bm25 minus the bm25 of
    /// `among` alone is the bm25 of `full`. bm25 is computed twice per candidate row.
    fn fetch_among_and(&self, full: &str, among: &str, limit: i64) -> Result<Vec<FtsRow>> {
        let scores = |expr: &str| -> Result<std::collections::HashMap<i64, f64>> {
            let mut stmt = self.conn.prepare_cached(
                "SELECT rowid, bm25(ltm_fts, 4.0, 2.0, 1.0, 2.0, 0.0) FROM ltm_fts \
                 WHERE ltm_fts MATCH ?1",
            )?;
            let rows =
                stmt.query_map([expr], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, f64>(1)?)))?;
            rows.collect::<std::result::Result<_, _>>()
                .map_err(Error::from)
        };
        let both = scores(&format!("({full}) AND ({among})"))?;
        let part = scores(among)?;
        let mut ranked: Vec<(f64, i64)> = both
            .into_iter()
            .filter_map(|(rowid, s)| part.get(&rowid).map(|p| (s - p, rowid)))
            .collect();
        ranked.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        ranked.truncate(usize::try_from(limit).unwrap_or(0));
        let mut stmt = self.conn.prepare_cached(
            "SELECT id, importance, created_unix, expires_unix, user, tags FROM ltm WHERE rid = ?1",
        )?;
        let mut out = Vec::with_capacity(ranked.len());
        for (s, rowid) in ranked {
            let row = stmt
                .query_row([rowid], |r| {
                    Ok((
                        s,
                        rowid,
                        r.get::<_, String>(0)?,
                        r.get::<_, i64>(1)?,
                        r.get::<_, i64>(2)?,
                        r.get::<_, Option<i64>>(3)?,
                        r.get::<_, String>(4)?,
                        r.get::<_, String>(5)?,
                    ))
                })
                .optional()?;
            out.extend(row);
        }
        Ok(out)
    }

    /// For each word, upper bounds of the rows it matches, `(in any column, in the title)`:
    /// the FTS5 document frequencies of its token (the smallest one when the tokenizer splits
    /// the word), read from `fts5vocab` tables by index lookups. Words are turned into tokens by
    /// a private in-memory FTS5 table with the same tokenizer as `ltm_fts` (so `running` is
    /// looked up as `run`).
    fn word_dfs(&self, words: &[String]) -> Result<Vec<(u64, u64)>> {
        self.conn.execute_batch(
            "PRAGMA temp_store = MEMORY;
             CREATE VIRTUAL TABLE IF NOT EXISTS temp.bob_qtok
               USING fts5(w, tokenize = 'porter unicode61');
             CREATE VIRTUAL TABLE IF NOT EXISTS temp.bob_qinst
               USING fts5vocab(temp, bob_qtok, instance);
             CREATE VIRTUAL TABLE IF NOT EXISTS temp.bob_vocab
               USING fts5vocab(main, ltm_fts, row);
             CREATE VIRTUAL TABLE IF NOT EXISTS temp.bob_vocab_col
               USING fts5vocab(main, ltm_fts, col);
             DELETE FROM temp.bob_qtok;",
        )?;
        {
            let mut ins = self
                .conn
                .prepare_cached("INSERT INTO temp.bob_qtok(rowid, w) VALUES (?1, ?2)")?;
            for (i, w) in words.iter().enumerate() {
                ins.execute(params![i as i64 + 1, w])?;
            }
        }
        let mut dfs = vec![(0u64, 0u64); words.len()];
        let mut stmt = self.conn.prepare_cached(
            "SELECT i.doc, min(coalesce(v.doc, 0)), min(coalesce(c.doc, 0)) \
             FROM temp.bob_qinst i \
             LEFT JOIN temp.bob_vocab v ON v.term = i.term \
             LEFT JOIN temp.bob_vocab_col c ON c.term = i.term AND c.col = 'title' \
             GROUP BY i.doc",
        )?;
        let rows = stmt.query_map([], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, i64>(1)?,
                r.get::<_, i64>(2)?,
            ))
        })?;
        for row in rows {
            let (doc, df, title_df) = row?;
            if let Some(slot) = usize::try_from(doc - 1).ok().and_then(|i| dfs.get_mut(i)) {
                *slot = (df.max(0) as u64, title_df.max(0) as u64);
            }
        }
        Ok(dfs)
    }

    /// The best `limit` rows for `words`, where `wrap` turns an OR of quoted words into the
    /// full expression (column filter, tag and owner terms). Exact (FTS5 `ORDER BY rank`) when
    /// the words together match at most the rank budget; otherwise the candidates are the rows
    /// of the rarest words, taken while their frequencies fit the budget or add up to fewer
    /// than `limit`, plus the title rows of the other words while the budget allows, ranked by
    /// the bm25 of the FULL expression.
    fn ranked(
        &self,
        words: &[String],
        wrap: &dyn Fn(&str) -> String,
        limit: i64,
    ) -> Result<Vec<FtsRow>> {
        let full = wrap(&or_terms(words));
        let Some(budget) = self.budget else {
            return self.fetch(&full, limit);
        };
        // A store no larger than the budget cannot match more rows than it.
        if words.len() < 2 || u64::try_from(self.max_rid()?).unwrap_or(0) <= budget {
            return self.fetch(&full, limit);
        }
        let dfs = self.word_dfs(words)?;
        let total = dfs.iter().map(|d| d.0).sum::<u64>();
        if total <= budget {
            return self.fetch(&full, limit);
        }
        let mut order: Vec<usize> = (0..words.len()).collect();
        order.sort_by_key(|&i| (dfs[i].0, i));
        let mut picked = Vec::new();
        let mut sum = 0u64;
        let mut rest = Vec::new();
        for i in order {
            if !rest.is_empty()
                || (sum.saturating_add(dfs[i].0) > budget && sum >= limit.max(0) as u64)
            {
                rest.push(i);
                continue;
            }
            sum = sum.saturating_add(dfs[i].0);
            picked.push(i);
        }
        if rest.is_empty() {
            return self.fetch(&full, limit);
        }
        // The words left out can still put a row near the top through the title (weight 4):
        // their title rows join the candidates, the rarest first, while the budget allows.
        rest.sort_by_key(|&i| (dfs[i].1, i));
        let mut titled = Vec::new();
        for i in rest {
            if sum.saturating_add(dfs[i].1) > budget {
                break;
            }
            sum = sum.saturating_add(dfs[i].1);
            titled.push(i);
        }
        // Walking the full expression costs too: a candidate set over half the matches saves
        // less than it costs.
        if sum.saturating_mul(2) > total {
            return self.fetch(&full, limit);
        }
        picked.sort_unstable();
        titled.sort_unstable();
        let mut terms = or_terms(picked.iter().map(|&i| &words[i]));
        if !titled.is_empty() {
            terms.push_str(&format!(
                " OR {{title}} : ({})",
                or_terms(titled.iter().map(|&i| &words[i]))
            ));
        }
        let among = wrap(&terms);
        // Testing every row of `full` costs ~0.4 µs a row, a second bm25 ~3 µs a candidate.
        if total > sum.saturating_mul(8) {
            self.fetch_among_and(&full, &among, limit)
        } else {
            self.fetch_among_in(&full, &among, limit)
        }
    }
}

/// Normalized score of a hit (see the module docs); `best` is the largest `-bm25` among the
/// candidates of the same query.
pub fn score(bm25: f64, best: f64, importance: i64, created_unix: i64, now: i64) -> f64 {
    let s = (-bm25).max(0.0);
    let relative = if best > 0.0 { (s / best).min(1.0) } else { 0.0 };
    let rel = 0.5 * relative + 0.5 * s / (s + 1.0);
    let imp = (importance.clamp(1, 10) as f64) / 10.0;
    let age_days = ((now - created_unix).max(0) as f64) / 86_400.0;
    let rec = 0.5f64.powf(age_days / 90.0);
    let v = rel * (0.8 + 0.1 * imp + 0.1 * rec);
    (v * 1000.0).round() / 1000.0
}

impl SqliteLtm<'_> {
    /// Inserts a record and indexes it, unless its id is already stored; true when it was
    /// inserted. Outside a transaction it opens one, so a row is never left unindexed.
    pub fn insert_new(&self, r: &MemoryRecord) -> Result<bool> {
        let own = self.conn.is_autocommit();
        if own {
            self.conn.execute_batch("BEGIN IMMEDIATE")?;
        }
        let result = (|| {
            if !self.insert_row(r)? {
                return Ok(false);
            }
            let rid = self.conn.last_insert_rowid();
            self.index_after(rid - 1)?;
            Ok(true)
        })();
        if own {
            let end = if result.is_ok() { "COMMIT" } else { "ROLLBACK" };
            if let Err(e) = self.conn.execute_batch(end) {
                let _ = self.conn.execute_batch("ROLLBACK");
                return Err(e.into());
            }
        }
        result
    }

    /// Inserts the row of a record WITHOUT indexing it (bulk import: the caller, inside one
    /// transaction, calls [`SqliteLtm::index_after`] with the [`SqliteLtm::max_rid`] read before
    /// the first row); true when it was inserted (false: the id is already stored).
    ///
    /// The row is redacted on the way in ([`crate::redact::for_storage`]): callers mask records
    /// before they derive ids and digests from them, and this is the last line that no secret
    /// reaches the database whoever calls it.
    pub fn insert_row(&self, r: &MemoryRecord) -> Result<bool> {
        let (masked, v) = for_storage(r)?;
        let r = &*masked;
        let user = r.user.as_deref().unwrap_or("default");
        // A content id whose content is stored under its legacy `mem_` id is stored already.
        if r.id == record_id(user, &r.title, &r.body_md, &r.tags, &r.kind) {
            let legacy = legacy_record_id(user, &r.title, &r.body_md, &r.tags, &r.kind);
            let mut stmt = self
                .conn
                .prepare_cached("SELECT 1 FROM ltm WHERE id = ?1")?;
            if stmt.exists([&legacy])? {
                return Ok(false);
            }
        }
        let record = v.to_string();
        let mut stmt = self.conn.prepare_cached(
            "INSERT OR IGNORE INTO ltm(id, user, owner, title, summary, body, tags, importance, \
             created_unix, expires_unix, digest, record) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
        )?;
        let n = stmt.execute(params![
            r.id,
            user,
            owner_token(user),
            r.title,
            r.summary,
            r.body_md,
            r.tags.join(" "),
            i64::from(r.importance.unwrap_or(5)),
            unix_of(&r.created_at),
            expires_unix(r),
            record_digest(r),
            record,
        ])?;
        Ok(n == 1)
    }

    /// The largest row id stored (0 when empty); rows inserted later have larger ones.
    pub fn max_rid(&self) -> Result<i64> {
        Ok(self
            .conn
            .query_row("SELECT coalesce(max(rid), 0) FROM ltm", [], |r| r.get(0))?)
    }

    /// Adds every row with a row id above `rid` to the full-text index, in one statement
    /// (bulk: FTS5 builds its segments once instead of row by row); returns how many.
    pub fn index_after(&self, rid: i64) -> Result<usize> {
        let mut stmt = self.conn.prepare_cached(
            "INSERT INTO ltm_fts(rowid, title, summary, body, tags, owner) \
             SELECT rid, title, summary, body, tags, owner FROM ltm WHERE rid > ?1 ORDER BY rid",
        )?;
        Ok(stmt.execute([rid])?)
    }
}

impl SqliteLtm<'_> {
    /// Builds the hit for one ranked row: the record's title, tags and date, and an FTS5
    /// snippet around the matched words (the summary when there is none).
    pub(crate) fn hit(&self, expr: &str, score: f64, rowid: i64, id: String) -> Result<Hit> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT snippet(ltm_fts, -1, '', '', '…', 24) FROM ltm_fts \
             WHERE ltm_fts MATCH ?1 AND rowid = ?2",
        )?;
        let snip: Option<String> = stmt
            .query_row(params![expr, rowid], |r| r.get(0))
            .optional()?;
        let rec = self
            .get(&id)?
            .ok_or_else(|| Error::internal(format!("ltm row {id} vanished")))?;
        let s = snip
            .unwrap_or_default()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        Ok(Hit {
            id,
            score,
            excerpt: if s.is_empty() { rec.summary.clone() } else { s },
            title: rec.title,
            tags: rec.tags,
            created_at: rec.created_at,
            lexical_score: None,
            semantic_score: None,
        })
    }
}

impl LtmStore for SqliteLtm<'_> {
    fn upsert(&self, r: &MemoryRecord) -> Result<String> {
        self.insert_new(r)?;
        Ok(r.id.clone())
    }

    fn query(&self, text: &str, opts: &QueryOpts) -> Result<Vec<Hit>> {
        let limit = (opts.k as i64).saturating_mul(4).max(40);
        let Some(ranking) = self.scored(text, opts, opts.k, limit)? else {
            return Ok(Vec::new());
        };
        ranking
            .rows
            .into_iter()
            .map(|(score, rowid, id)| self.hit(&ranking.expr, score, rowid, id))
            .collect()
    }
}

/// A lexical ranking without its hits (see [`SqliteLtm::scored`]).
pub(crate) struct Scored {
    /// The FTS5 expression the rows matched (for [`SqliteLtm::hit`]'s excerpt).
    pub expr: String,
    /// (score, rowid, id), best first.
    pub rows: Vec<(f64, i64, String)>,
}

impl SqliteLtm<'_> {
    /// The best `want` of the user's live matches of `text` by score, best first, out of the
    /// best `limit` rows by bm25 (more when filtering by user, expiry and tags leaves fewer
    /// than `want`), without building their hits; `None` when the text has no words.
    pub(crate) fn scored(
        &self,
        text: &str,
        opts: &QueryOpts,
        want: usize,
        limit: i64,
    ) -> Result<Option<Scored>> {
        let words = query_words(text);
        if words.is_empty() || want == 0 {
            return Ok(None);
        }
        // Most stores are dominated by one user: the query first runs without the owner term
        // (which would make FTS5 walk a doclist as long as the store) and filters by user
        // afterwards; only when that leaves too few hits does it add the owner term.
        let mut tag_terms = String::new();
        for t in &opts.tags {
            if let Some(tt) = fts_terms_all(t) {
                tag_terms.push_str(&format!(" AND tags : ({tt})"));
            }
        }
        let owner = owner_token(&opts.user);
        let base = |terms: &str| format!("{{title summary body tags}} : ({terms}){tag_terms}");
        let owned = |terms: &str| format!("owner : \"{owner}\" AND {}", base(terms));
        let expr_of = |owner_filtered: bool| {
            if owner_filtered {
                owned(&or_terms(&words))
            } else {
                base(&or_terms(&words))
            }
        };
        let mut owner_filtered = false;
        let mut limit = limit.max(1);
        loop {
            let expr = expr_of(owner_filtered);
            let rows = if owner_filtered {
                self.ranked(&words, &owned, limit)?
            } else {
                self.ranked(&words, &base, limit)?
            };
            let full = rows.len() as i64 >= limit;
            let best = rows.iter().map(|r| -r.0).fold(0.0f64, f64::max);
            let mut scored = Vec::new();
            for (rank, rowid, id, imp, created, expires, user, tags) in rows {
                if user != opts.user || expires.is_some_and(|e| e <= self.now) {
                    continue;
                }
                if !opts.tags.is_empty() {
                    let have: Vec<&str> = tags.split(' ').collect();
                    // Tags may contain spaces: check against the record when the cheap test fails.
                    if !opts.tags.iter().all(|t| have.contains(&t.as_str())) {
                        let Some(rec) = self.get(&id)? else { continue };
                        if !opts.tags.iter().all(|t| rec.tags.contains(t)) {
                            continue;
                        }
                    }
                }
                scored.push((score(rank, best, imp, created, self.now), rowid, id));
            }
            if scored.len() >= want || !full {
                scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.2.cmp(&b.2)));
                scored.truncate(want);
                return Ok(Some(Scored { expr, rows: scored }));
            }
            if owner_filtered {
                limit = limit.saturating_mul(8);
            } else {
                owner_filtered = true;
            }
        }
    }
}

/// Every word of `text` quoted and AND-ed (a phrase-free conjunction for a tag filter).
fn fts_terms_all(text: &str) -> Option<String> {
    let terms: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| format!("\"{}\"", w.to_lowercase().replace('"', "\"\"")))
        .collect();
    (!terms.is_empty()).then(|| terms.join(" AND "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contracts::MemoryCandidate;
    use serde_json::Value;

    #[test]
    fn hostile_query_text_becomes_quoted_terms() {
        assert_eq!(
            fts_terms("\"a\" OR NEAR(x y) col:* AND -z").as_deref(),
            Some("\"near\" OR \"x\" OR \"y\" OR \"col\" OR \"z\"")
        );
        assert_eq!(fts_terms("!!! ''' ***"), None);
        assert_eq!(
            fts_terms("the what").as_deref(),
            Some("\"the\" OR \"what\"")
        );
    }

    proptest::proptest! {
        #[test]
        fn any_query_text_runs_without_error(q in "\\PC{0,60}", tag in "[a-z\"*():^ -]{0,12}") {
            let mem = crate::memory::Memory::in_memory().unwrap();
            let c = MemoryCandidate::new("quoted \"text\" with NEAR and OR * operators");
            let r = record_from_candidate(&c, "default", "2026-01-01T00:00:00Z", c.text.clone(), Value::Null);
            mem.ltm().upsert(&r).unwrap();
            let opts = QueryOpts { k: 3, tags: vec![tag], user: "default".into() };
            proptest::prop_assert!(mem.ltm().query(&q, &opts).is_ok());
            // The same text through the candidate path (every word over budget).
            mem.set_rank_budget(Some(0));
            let text = format!("{q} quoted operators");
            proptest::prop_assert!(mem.ltm().query(&text, &opts).is_ok());
        }
    }

    /// The candidate path's scores (bm25 of `(full) AND (among)` minus bm25 of `among`) are
    /// the exact path's scores of the same rows.
    #[test]
    fn candidate_scores_equal_exact_scores() {
        let mem = crate::memory::Memory::in_memory().unwrap();
        let words = ["harbor", "zephyr", "crane", "tide"];
        for i in 0..120usize {
            let mut c = MemoryCandidate::new(format!(
                "{} {} note {i} {}",
                words[i % 4],
                words[(i * 7 + 1) % 4],
                "filler ".repeat(i % 9)
            ));
            c.title = Some(format!("{} title {i}", words[(i * 3) % 4]));
            c.tags = vec![words[(i * 5 + 2) % 4].to_string()];
            let r = record_from_candidate(
                &c,
                "default",
                "2026-01-01T00:00:00Z",
                c.text.clone(),
                Value::Null,
            );
            mem.ltm().upsert(&r).unwrap();
        }
        let ltm = mem.ltm();
        let full = "{title summary body tags} : (\"harbor\" OR \"zephyr\" OR \"crane\")";
        let among = "{title summary body tags} : (\"zephyr\" OR {title} : (\"crane\"))";
        let exact: std::collections::HashMap<i64, f64> = ltm
            .fetch(full, 1000)
            .unwrap()
            .into_iter()
            .map(|r| (r.1, r.0))
            .collect();
        let in_among = ltm.fetch(among, 1000).unwrap().len();
        for cand in [
            ltm.fetch_among_in(full, among, 1000).unwrap(),
            ltm.fetch_among_and(full, among, 1000).unwrap(),
        ] {
            assert!(
                cand.len() > 10 && cand.len() == in_among,
                "{} {in_among}",
                cand.len()
            );
            for w in cand.windows(2) {
                assert!(w[0].0 <= w[1].0);
            }
            for r in &cand {
                let e = exact[&r.1];
                assert!(
                    (r.0 - e).abs() <= 1e-9 * e.abs().max(1.0),
                    "row {}: {} vs {e}",
                    r.1,
                    r.0
                );
            }
        }
    }

    #[test]
    fn summaries_are_capped_and_facts_are_bullets() {
        let md = "# Title\n\nFirst para line\ncontinues here.\n\n- one\n* two\n3. three\n";
        assert_eq!(summarize(md), "First para line continues here.");
        assert_eq!(facts(md), vec!["one", "two", "three"]);
        assert_eq!(summarize(&"x".repeat(500)).chars().count(), 200);
        assert_eq!(token_est("abcde"), 2);
    }

    #[test]
    fn scores_are_between_zero_and_one() {
        for bm in [-0.0, -0.5, -3.0, -100.0] {
            let s = score(bm, 100.0, 10, 0, 0);
            assert!((0.0..=1.0).contains(&s), "{s}");
        }
        assert_eq!(score(-1e-6, 1e-6, 10, 0, 0), 0.5);
        assert!(score(-3.0, 3.0, 10, 0, 0) > score(-3.0, 3.0, 1, 0, 0));
        assert!(score(-3.0, 3.0, 5, 0, 0) > score(-3.0, 3.0, 5, 0, 400 * 86_400));
    }
}
