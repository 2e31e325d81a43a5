//! The full-text ranking of the shared store's long-term records: which rows a query ranks,
//! and their bm25.
//!
//! This module promises:
//!
//! * **The embedded store's scores.** A row is scored with the bm25 SQLite's FTS5 computes for
//!   the embedded store (k1 1.2, b 0.75, `idf = ln((N - df + 0.5) / (df + 0.5))`, a term's
//!   frequency weighted 4 in the title, 2 in the tags and summary, 1 in the body), computed
//!   here from each ranked record's postings or its `tsvector` (read in PostgreSQL's binary
//!   form), which hold the same frequencies: so a rare word counts for more than a common
//!   one, as it does at home. The differences left: words are
//!   stemmed by PostgreSQL's `english` configuration (not porter over unicode61), a row's
//!   length counts its words other than stop words, the average length is that of the rows
//!   ranked, and `df` and `N` are counted among the user's rows ranked.
//! * **Postings first.** A query without a tag filter reads the postings of its lexemes. A
//!   common word's postings live in blocks (`memory_blocks`, schema 16: a row per user, lexeme
//!   and up to 64 records, holding each record's id, weighted frequency of that lexeme and
//!   length in 16 bytes, and the records' expiries), a row per 64 postings where an index
//!   entry per posting cost the server several times as much; postings not yet packed are read
//!   from `memory_terms` (one index entry each; a rare word's stay there), and a packed
//!   posting of a record since deleted or changed is left out by its mark in
//!   `memory_terms_gone` (see [`super::pg_pack`]). All three come in one statement, so in one
//!   snapshot, and a word's waiting postings come packed as a block's are: the client walks 16
//!   bytes a posting (a protocol row per posting cost ~1.5 µs each, arrays more than twice the
//!   bytes) and leaves out expired records. What is read is bounded by the cap below: a query
//!   reads at most `cap` postings (and so `cap` blocks), and past it ranks rows instead. Every
//!   match is then ranked exactly (`df` and `N` as above, the average length that of the rows
//!   matched), and only the ids, importance and times of the best rows are looked up. The same
//!   statement stems the query, so a query is three round trips: postings, ids, excerpts.
//! * **Rows within a budget otherwise.** When the query's lexemes have more than ten postings
//!   per row of the budget (their words are common), or the query filters on tags, the rows
//!   ranked come from `memory_rank` (what ranking needs of each record, kept by a trigger on
//!   `memory_records`; schema 14), by its `tsvector` index, and their number is bounded.
//!   Reading a row's `tsvector` costs a heap fetch and more (a few µs, far more under load),
//!   so a query whose words are common would pay for tens of thousands of rows. Each query
//!   word's document frequency is estimated from the planner's statistics of the `tsv` column
//!   (`pg_stats.most_common_elems`, kept by `ANALYZE` / autovacuum, and by each node while
//!   they are unchanged: [`super::pg_stats`]), and, as the embedded store's rank budget does:
//!   - when the table holds at most `budget` rows (or has no statistics yet), the query has one
//!     word, or the words' estimated frequencies add up to at most `budget`, every matching
//!     row is ranked;
//!   - otherwise only the rows matching the rarest words are ranked, those words taken rarest
//!     first while their estimated frequencies fit the budget or add up to fewer rows than
//!     wanted (and the next rarest again while the rows read are fewer than wanted: a rare
//!     word's estimate is only an upper bound), plus the rows holding two of the words left
//!     out, pairs taken by their estimated joint frequency (as if independent) while the
//!     budget allows (the index finds such rows without reading the others); each row is
//!     still scored with every query word it holds, common ones too.
//!
//!   The approximation: a row holding none of the rarer words and only one of the others is
//!   never returned, even when that word (in its title, say) would have placed it in the top.
//!   [`DEFAULT_RANK_BUDGET`] is smaller than the embedded store's, since a row costs more to
//!   read here.

use crate::db::Database;
use crate::error::Result;
use postgres::types::{FromSql, Type};

/// How many rows a query on the shared store may rank before it ranks only the rows of its
/// rarer words (see the module docs).
pub const DEFAULT_RANK_BUDGET: u64 = 2000;

/// bm25's parameters, as FTS5's `bm25()`.
const K1: f64 = 1.2;
const B: f64 = 0.75;

/// One ranked row: its id, bm25 (positive, higher is better), importance and creation time.
pub(crate) struct RankedRow {
    pub id: String,
    pub bm25: f64,
    pub importance: i64,
    pub created_unix: i64,
}

/// What one query ranks over.
pub(crate) struct Filter<'a> {
    pub user: &'a str,
    pub now: i64,
    pub tags: &'a [String],
}

/// A `tsvector` in PostgreSQL's binary form, read in place: a row's is walked once, without
/// copying its lexemes (a query ranks up to the budget's rows of dozens of lexemes each).
struct TsVector<'a>(&'a [u8]);

impl<'a> FromSql<'a> for TsVector<'a> {
    fn from_sql(
        _: &Type,
        raw: &'a [u8],
    ) -> std::result::Result<Self, Box<dyn std::error::Error + Sync + Send>> {
        Ok(TsVector(raw))
    }

    fn accepts(ty: &Type) -> bool {
        *ty == Type::TS_VECTOR
    }
}

impl TsVector<'_> {
    /// Calls `each` with every lexeme and its positions (each a big-endian u16 whose top two
    /// bits are the weight, 3 = A … 0 = D); an error when the value is cut short.
    fn each(&self, mut each: impl FnMut(&[u8], &[u8])) -> std::result::Result<(), String> {
        fn take<'b>(raw: &mut &'b [u8], n: usize) -> std::result::Result<&'b [u8], String> {
            if raw.len() < n {
                return Err("truncated tsvector".to_string());
            }
            let (head, tail) = raw.split_at(n);
            *raw = tail;
            Ok(head)
        }
        let mut raw = self.0;
        let head = take(&mut raw, 4)?;
        let count = u32::from_be_bytes([head[0], head[1], head[2], head[3]]);
        for _ in 0..count {
            let end = raw
                .iter()
                .position(|&b| b == 0)
                .ok_or("tsvector lexeme without its end")?;
            let lexeme = take(&mut raw, end + 1)?;
            let n = take(&mut raw, 2)?;
            let npos = usize::from(u16::from_be_bytes([n[0], n[1]]));
            let positions = take(&mut raw, npos * 2)?;
            each(&lexeme[..end], positions);
        }
        Ok(())
    }
}

/// The weights (3 = A … 0 = D) of `positions` as [`TsVector::each`] gives them.
fn weights(positions: &[u8]) -> impl Iterator<Item = u8> + '_ {
    positions.chunks_exact(2).map(|p| p[0] >> 6)
}

/// A position's weight in bm25's term frequency: the embedded store's column weights (title
/// 4, tags and summary 2, body 1).
fn weight(w: u8) -> f64 {
    match w {
        3 => 4.0,
        2 => 2.0,
        _ => 1.0,
    }
}

/// A query lexeme and the estimated number of rows holding it (`None`: no statistics).
type Estimate = (String, Option<f64>);

/// What a query reads the rows of: one lexeme's rows, or those holding both of two.
type Term = Vec<String>;

/// The terms whose rows are ranked, in the order they are taken (the rarest lexemes first,
/// then pairs of the others, rarest first), and how many of them the budget takes (see the
/// module docs); every lexeme alone when the ranking is exact.
fn chosen(
    lexemes: &[Estimate],
    n: Option<f64>,
    limit: usize,
    budget: Option<u64>,
) -> (Vec<Term>, usize) {
    let all = || {
        let v: Vec<Term> = lexemes.iter().map(|(l, _)| vec![l.clone()]).collect();
        let n = v.len();
        (v, n)
    };
    let (Some(budget), Some(n)) = (budget, n) else {
        return all();
    };
    let budget = budget as f64;
    if lexemes.len() < 2 || n <= budget {
        return all();
    }
    let Some(mut dfs) = lexemes
        .iter()
        .map(|(l, df)| df.map(|d| (d, l)))
        .collect::<Option<Vec<_>>>()
    else {
        return all();
    };
    if dfs.iter().map(|(d, _)| d).sum::<f64>() <= budget {
        return all();
    }
    dfs.sort_by(|a, b| a.0.total_cmp(&b.0).then_with(|| a.1.cmp(b.1)));
    let mut sum = 0.0;
    let mut take = 0;
    for (df, _) in &dfs {
        if sum + df > budget && sum >= limit as f64 {
            break;
        }
        sum += df;
        take += 1;
    }
    // The words left out are common: the rows holding two of them (as many as the two are
    // independent) are few, and such a row is likely to rank high.
    let rest = &dfs[take..];
    let mut pairs: Vec<(f64, Term)> = Vec::new();
    for (i, (da, a)) in rest.iter().enumerate() {
        for (db, b) in &rest[i + 1..] {
            pairs.push((da * db / n, vec![(*a).clone(), (*b).clone()]));
        }
    }
    pairs.sort_by(|a, b| a.0.total_cmp(&b.0).then_with(|| a.1.cmp(&b.1)));
    let mut order: Vec<Term> = dfs.iter().map(|(_, l)| vec![(*l).clone()]).collect();
    let singles = order.split_off(take);
    for (df, pair) in &pairs {
        if sum + df > budget {
            break;
        }
        sum += df;
        order.push(pair.clone());
    }
    let take = order.len();
    // Beyond the budget (read only while the rows read are fewer than wanted): the others.
    order.extend(singles);
    (order, take)
}

/// `terms` as a tsquery: each lexeme quoted, a pair AND-ed, the terms OR-ed.
fn tsquery(terms: &[Term]) -> String {
    let quote = |l: &String| format!("'{}'", l.replace('\\', "\\\\").replace('\'', "''"));
    terms
        .iter()
        .map(|t| format!("({})", t.iter().map(quote).collect::<Vec<_>>().join(" & ")))
        .collect::<Vec<_>>()
        .join(" | ")
}

/// A row read for ranking: what bm25 needs of it, its `tsvector` already walked.
struct Scanned {
    id: String,
    importance: i64,
    created_unix: i64,
    /// Its length: the positions of its lexemes (a lexeme without positions counts one).
    len: f64,
    /// Its weighted frequency of each query lexeme (0: absent).
    tf: Vec<f64>,
}

/// The rows of `filter`'s user matching the tsquery `q`, each walked as it arrives (its
/// `tsvector`, the bulk of what is read, is dropped at once rather than held for all rows).
fn scan(
    db: &'static Database,
    q: &str,
    filter: &Filter<'_>,
    lexemes: &[Estimate],
) -> Result<Vec<Scanned>> {
    let read = db.with(|c| {
        use postgres::fallible_iterator::FallibleIterator;
        let mut rows = c.query_typed_raw(
            "SELECT m.id, m.importance, m.created_unix, m.tsv \
             FROM memory_rank m \
             WHERE m.tsv @@ $1::text::tsquery AND m.user_id = $2 \
               AND (m.expires_unix IS NULL OR m.expires_unix > $3) AND m.tags @> $4",
            [
                (&q as &(dyn postgres::types::ToSql + Sync), Type::TEXT),
                (&filter.user, Type::TEXT),
                (&filter.now, Type::INT8),
                (&filter.tags, Type::TEXT_ARRAY),
            ],
        )?;
        let mut out = Vec::new();
        while let Some(r) = rows.next()? {
            let tsv: TsVector = r.get(3);
            let mut len = 0usize;
            let mut tf = vec![0f64; lexemes.len()];
            let walked = tsv.each(|lexeme, positions| {
                len += (positions.len() / 2).max(1);
                if let Some(i) = lexemes.iter().position(|(l, _)| l.as_bytes() == lexeme) {
                    tf[i] = if positions.is_empty() {
                        1.0
                    } else {
                        weights(positions).map(weight).sum()
                    };
                }
            });
            if let Err(e) = walked {
                return Ok(Err(e));
            }
            out.push(Scanned {
                id: r.get(0),
                importance: i64::from(r.get::<_, i32>(1)),
                created_unix: r.get(2),
                len: len as f64,
                tf,
            });
        }
        Ok(Ok(out))
    })?;
    read.map_err(|e| crate::error::Error::internal(format!("a memory record's tsv: {e}")))
}

/// The best `limit` rows of `filter`'s user matching any of `words`, by bm25 (see the module
/// docs), best first (ties by id).
pub(crate) fn ranked(
    db: &'static Database,
    words: &[String],
    filter: &Filter<'_>,
    limit: usize,
    budget: Option<u64>,
    stats_file: Option<&std::path::Path>,
) -> Result<Vec<RankedRow>> {
    if limit == 0 {
        return Ok(Vec::new());
    }
    if filter.tags.is_empty() {
        let cap = budget.map(|b| b.saturating_mul(POSTINGS_PER_BUDGET_ROW));
        if let Some(rows) = by_postings(db, words, filter, limit, cap)? {
            return Ok(rows);
        }
    }
    by_rows(db, words, filter, limit, budget, stats_file)
}

/// How many postings a query may read for each row of its rank budget before it ranks rows
/// instead: a posting is an index entry of a few dozen bytes, a row a page of the heap.
const POSTINGS_PER_BUDGET_ROW: u64 = 10;

/// One posting: a record holding one of the query's lexemes.
struct Posting {
    rid: i64,
    /// The lexeme's place in the query's lexemes.
    lexeme: usize,
    tf: f32,
    len: i32,
}

/// The best `limit` rows of `filter`'s user matching any of `words`, ranked exactly from the
/// postings of every query lexeme (blocks and those waiting, see the module docs), or `None`
/// when those lexemes have more than `cap` postings (or blocks).
fn by_postings(
    db: &'static Database,
    words: &[String],
    filter: &Filter<'_>,
    limit: usize,
    cap: Option<u64>,
) -> Result<Option<Vec<RankedRow>>> {
    let cap = cap.map(|c| i64::try_from(c).unwrap_or(i64::MAX));
    // At most this many blocks are read (a block holds one posting at least); reaching it
    // counts as passing the cap.
    let blocks = cap.map(|c| c.saturating_add(1));
    // The query is stemmed as the records were (`english`), in the statement that reads its
    // postings, a word at a time (by its index however large the table has grown, as after an
    // import's postings are packed and leave `memory_terms` full of free space): its words'
    // blocks (kind 0), their postings waiting to be packed (kind 1, one row a word, packed as
    // a block is) and the records gone from their blocks (kind 2). How many blocks and
    // postings were read and the table's row count (for idf) ride along on each row; past the
    // cap, one row carries them and no postings.
    let words = words.join(" ");
    let rows = db.with(|c| {
        c.query_typed(
            "WITH q AS (SELECT tsvector_to_array(to_tsvector('english', $2)) AS lx), \
             b AS MATERIALIZED (SELECT m.* FROM q, unnest(q.lx) l, LATERAL ( \
                                    SELECT m.lexeme, m.postings, m.exps FROM memory_blocks m \
                                    WHERE m.user_id = $1 AND m.lexeme = l LIMIT $4) m \
                                LIMIT $4), \
             f AS MATERIALIZED (SELECT t.* FROM q, unnest(q.lx) l, LATERAL ( \
                                    SELECT t.lexeme, t.rid, t.tf, t.len, t.expires_unix \
                                    FROM memory_terms t \
                                    WHERE t.user_id = $1 AND t.lexeme = l LIMIT $3 + 1) t \
                                LIMIT $3 + 1), \
             e AS (SELECT 0 AS kind, b.lexeme, b.postings, b.exps, NULL::bigint[] AS gone \
                   FROM b \
                   UNION ALL \
                   SELECT 1, f.lexeme, \
                          string_agg(bob_memory_posting(f.rid, f.tf, f.len), ''::bytea \
                                     ORDER BY f.rid), \
                          array_agg(f.expires_unix ORDER BY f.rid), NULL \
                   FROM f GROUP BY f.lexeme \
                   UNION ALL \
                   SELECT 2, l, NULL, NULL, \
                          ARRAY(SELECT g.rid FROM memory_terms_gone g \
                                WHERE g.user_id = $1 AND g.lexeme = l) \
                   FROM q, unnest(q.lx) l \
                   WHERE EXISTS (SELECT FROM memory_terms_gone g \
                                 WHERE g.user_id = $1 AND g.lexeme = l)), \
             t AS (SELECT count(*) FILTER (WHERE e.kind = 0) AS blocks, \
                          coalesce(sum(length(e.postings) / 16), 0) AS posted FROM e) \
             SELECT e.kind, array_position(q.lx, e.lexeme), e.postings, e.exps, e.gone, \
                    cardinality(q.lx), t.blocks, t.posted::int8, \
                    (SELECT reltuples::float8 FROM pg_class \
                     WHERE oid = 'memory_records'::regclass) \
             FROM q CROSS JOIN t \
             LEFT JOIN e ON $3::int8 IS NULL OR (t.posted <= $3 AND t.blocks < $4)",
            &[
                (&filter.user, Type::TEXT),
                (&words, Type::TEXT),
                (&cap, Type::INT8),
                (&blocks, Type::INT8),
            ],
        )
    })?;
    let Some(first) = rows.first() else {
        return Ok(Some(Vec::new()));
    };
    let (read, posted): (i64, i64) = (first.get(6), first.get(7));
    if cap.is_some_and(|c| posted > c) || blocks.is_some_and(|b| read >= b) {
        return Ok(None);
    }
    let n: Option<f64> = first.get(8);
    let mut df = vec![0.0; first.get::<_, Option<i32>>(5).unwrap_or(0).max(0) as usize];
    // The records gone from each word's blocks.
    let gone: std::collections::HashSet<(usize, i64)> = rows
        .iter()
        .filter(|r| r.get::<_, Option<i32>>(0) == Some(2))
        .flat_map(|r| {
            let lexeme = r.get::<_, i32>(1) as usize - 1;
            r.get::<_, Vec<i64>>(4)
                .into_iter()
                .map(move |rid| (lexeme, rid))
        })
        .collect();
    let mut postings = Vec::new();
    for row in &rows {
        let kind = row.get::<_, Option<i32>>(0);
        if !matches!(kind, Some(0 | 1)) {
            continue;
        }
        let lexeme = row.get::<_, i32>(1) as usize - 1;
        let packed: &[u8] = row.get(2);
        let exps: Option<Vec<Option<i64>>> = row.get(3);
        for (k, p) in packed.chunks_exact(16).enumerate() {
            let int = |at: usize| i32::from_be_bytes([p[at], p[at + 1], p[at + 2], p[at + 3]]);
            let rid = i64::from_be_bytes([p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7]]);
            let expires = exps.as_ref().and_then(|e| e.get(k).copied().flatten());
            let dropped = kind == Some(0) && gone.contains(&(lexeme, rid));
            if dropped || expires.is_some_and(|e| e <= filter.now) {
                continue;
            }
            df[lexeme] += 1.0;
            postings.push(Posting {
                rid,
                lexeme,
                tf: int(8) as f32,
                len: int(12),
            });
        }
    }
    // Each record's postings side by side: its weighted frequency of each lexeme, in a table
    // of a row per record and a column per lexeme.
    postings.sort_unstable_by_key(|p| (p.rid, p.lexeme));
    let lexemes = df.len();
    // Each record's rid and length.
    let mut posted: Vec<(i64, f64)> = Vec::new();
    let mut tf: Vec<f64> = Vec::new();
    for p in &postings {
        if posted.last().is_none_or(|last| last.0 != p.rid) {
            posted.push((p.rid, f64::from(p.len)));
            tf.resize(tf.len() + lexemes, 0.0);
        }
        let row = tf.len() - lexemes;
        tf[row + p.lexeme] = f64::from(p.tf);
    }
    if posted.is_empty() {
        return Ok(Some(Vec::new()));
    }
    let total = n
        .filter(|n| *n > 0.0)
        .unwrap_or(0.0)
        .max(posted.len() as f64);
    let scores = bm25(
        posted
            .iter()
            .zip(tf.chunks_exact(lexemes))
            .map(|(p, tf)| (p.1, tf)),
        &df,
        total,
    );
    let mut best: Vec<(f64, i64)> = scores.into_iter().zip(posted.iter().map(|p| p.0)).collect();
    // The best `limit`, and every row tied with the last of them: ties are broken by id, as
    // the rows' ranking does, so those are looked up too.
    if best.len() > limit {
        best.select_nth_unstable_by(limit - 1, |a, b| b.0.total_cmp(&a.0));
        let last = best[limit - 1].0;
        best.retain(|b| b.0 >= last);
    }
    // Their ids, importance and creation time.
    let rids: Vec<i64> = best.iter().map(|b| b.1).collect();
    let score_of: std::collections::HashMap<i64, f64> = best.iter().map(|b| (b.1, b.0)).collect();
    let mut out: Vec<RankedRow> = db
        .with(|c| {
            c.query_typed(
                "SELECT rid, id, importance, created_unix FROM memory_rank WHERE rid = ANY ($1)",
                &[(&rids, Type::INT8_ARRAY)],
            )
        })?
        .iter()
        .filter_map(|r| {
            Some(RankedRow {
                id: r.get(1),
                bm25: *score_of.get(&r.get::<_, i64>(0))?,
                importance: i64::from(r.get::<_, i32>(2)),
                created_unix: r.get(3),
            })
        })
        .collect();
    out.sort_by(|a, b| b.bm25.total_cmp(&a.bm25).then_with(|| a.id.cmp(&b.id)));
    out.truncate(limit);
    Ok(Some(out))
}

/// The bm25 of each row (its length and weighted frequency of each query lexeme), given each
/// lexeme's document frequency `df` among `total` rows; the average length is the rows'.
fn bm25<'a>(
    rows: impl ExactSizeIterator<Item = (f64, &'a [f64])> + Clone,
    df: &[f64],
    total: f64,
) -> Vec<f64> {
    let idf: Vec<f64> = df
        .iter()
        .map(|&d| {
            let v = ((total - d + 0.5) / (d + 0.5)).ln();
            if v > 0.0 { v } else { 1e-6 }
        })
        .collect();
    let count = rows.len();
    let avgdl = if count == 0 {
        1.0
    } else {
        (rows.clone().map(|(len, _)| len).sum::<f64>() / count as f64).max(1.0)
    };
    rows.map(|(len, tf)| {
        let norm = K1 * (1.0 - B + B * len / avgdl);
        tf.iter()
            .zip(&idf)
            .filter(|(f, _)| **f > 0.0)
            .map(|(f, idf)| idf * f * (K1 + 1.0) / (f + norm))
            .sum()
    })
    .collect()
}

/// [`ranked`] by the rows matching the query (their `tsvector`s read from `memory_rank`),
/// within the rank budget: for a filter on tags, and for words too common for their postings.
fn by_rows(
    db: &'static Database,
    words: &[String],
    filter: &Filter<'_>,
    limit: usize,
    budget: Option<u64>,
    stats_file: Option<&std::path::Path>,
) -> Result<Vec<RankedRow>> {
    let super::pg_stats::Estimates { lexemes, rows: n } =
        super::pg_stats::estimates(db, words, stats_file)?;
    if lexemes.is_empty() || limit == 0 {
        return Ok(Vec::new());
    }
    let (order, mut take) = chosen(&lexemes, n, limit, budget);
    // A rare word's frequency is an upper bound (it may not occur at all): while the rows read
    // are fewer than wanted, the next rarest word's rows are read too.
    let rows = loop {
        let q = tsquery(&order[..take]);
        let rows = scan(db, &q, filter, &lexemes)?;
        if rows.len() >= limit || take >= order.len() {
            break rows;
        }
        take += 1;
    };
    // The lexemes all of whose rows were read (their frequency is counted, not estimated).
    let taken: Vec<&String> = order[..take]
        .iter()
        .filter(|t| t.len() == 1)
        .map(|t| &t[0])
        .collect();
    let mut df = vec![0f64; lexemes.len()];
    for r in &rows {
        for (d, f) in df.iter_mut().zip(&r.tf) {
            if *f > 0.0 {
                *d += 1.0;
            }
        }
    }
    // A lexeme whose rows were not all read keeps its estimated frequency.
    for (i, (l, est)) in lexemes.iter().enumerate() {
        if !taken.contains(&l) {
            df[i] = est.unwrap_or(df[i]).max(df[i]);
        }
    }
    let total = n.unwrap_or(0.0).max(rows.len() as f64);
    let scores = bm25(rows.iter().map(|r| (r.len, r.tf.as_slice())), &df, total);
    let mut out: Vec<RankedRow> = rows
        .into_iter()
        .zip(scores)
        .map(|(r, bm25)| RankedRow {
            id: r.id,
            bm25,
            importance: r.importance,
            created_unix: r.created_unix,
        })
        .collect();
    out.sort_by(|a, b| b.bm25.total_cmp(&a.bm25).then_with(|| a.id.cmp(&b.id)));
    out.truncate(limit);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lx(v: &[(&str, Option<f64>)]) -> Vec<Estimate> {
        v.iter().map(|(l, d)| (l.to_string(), *d)).collect()
    }

    #[test]
    fn the_rarest_words_are_ranked_within_the_budget() {
        let l = lx(&[
            ("common", Some(8000.0)),
            ("rare", Some(100.0)),
            ("mid", Some(450.0)),
        ]);
        let taken = |n, limit, budget| {
            let (order, take) = chosen(&l, n, limit, budget);
            order[..take]
                .iter()
                .map(|t| t.join("&"))
                .collect::<Vec<_>>()
        };
        // The rarest word, then the pair of the others (8000 × 450 / 100,000 = 36 rows).
        assert_eq!(
            taken(Some(100_000.0), 40, Some(500)),
            ["rare", "mid&common"]
        );
        assert_eq!(taken(Some(100_000.0), 40, Some(120)), ["rare"]);
        assert_eq!(taken(Some(100_000.0), 40, Some(600)), ["rare", "mid"]);
        // Too few rows for the hits wanted: the next word is taken even over the budget.
        assert_eq!(taken(Some(100_000.0), 200, Some(500)), ["rare", "mid"]);
        let (order, _) = chosen(&l, Some(100_000.0), 40, Some(500));
        assert_eq!(
            order.iter().map(|t| t.join("&")).collect::<Vec<_>>(),
            ["rare", "mid&common", "mid", "common"]
        );
        assert_eq!(tsquery(&order[..2]), "('rare') | ('mid' & 'common')");
        // Exact: no budget, a small table, no statistics, one word.
        assert_eq!(taken(Some(100_000.0), 40, None).len(), 3);
        assert_eq!(taken(Some(400.0), 40, Some(500)).len(), 3);
        assert_eq!(taken(None, 40, Some(500)).len(), 3);
        assert_eq!(chosen(&l[..1], Some(100_000.0), 40, Some(500)).1, 1);
        assert_eq!(tsquery(&[vec!["o'k".to_string()]]), "('o''k')");
        let unknown = lx(&[("a", None), ("b", Some(9000.0))]);
        assert_eq!(chosen(&unknown, Some(100_000.0), 40, Some(500)).1, 2);
    }

    #[test]
    fn a_binary_tsvector_reads_its_lexemes_and_weights() {
        // 2 lexemes: "ab" at 1A, 5C; "c" with no positions.
        let mut raw = vec![0, 0, 0, 2];
        raw.extend_from_slice(b"ab\0");
        raw.extend_from_slice(&2u16.to_be_bytes());
        raw.extend_from_slice(&((3u16 << 14) | 1).to_be_bytes());
        raw.extend_from_slice(&((1u16 << 14) | 5).to_be_bytes());
        raw.extend_from_slice(b"c\0");
        raw.extend_from_slice(&0u16.to_be_bytes());
        let read = |raw: &[u8]| {
            let mut out = Vec::new();
            TsVector::from_sql(&Type::TS_VECTOR, raw)
                .unwrap()
                .each(|l, p| {
                    out.push((
                        String::from_utf8_lossy(l).into_owned(),
                        weights(p).collect::<Vec<u8>>(),
                    ))
                })
                .map(|()| out)
        };
        assert_eq!(
            read(&raw).unwrap(),
            vec![("ab".to_string(), vec![3, 1]), ("c".to_string(), vec![])]
        );
        assert!(read(&raw[..raw.len() - 1]).is_err());
        assert!(read(&raw[..9]).is_err());
    }
}
