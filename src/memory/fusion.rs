//! How the hybrid ranking fuses the lexical and the semantic ranking of one query.
//!
//! Every record in either ranking's pool (the best `max(4k, 40)` of each) is scored
//!
//! ```text
//! w × cosine + (1 − w) × lexical × coverage² + b × coverage²
//! ```
//!
//! with `w` = [`SEMANTIC_WEIGHT`] and `b` = [`COVERAGE_WEIGHT`]; a record missing from one
//! ranking scores 0 there. `lexical` is the lexical ranking's score (0..1, relative to its
//! best hit), `cosine` the query's cosine with the record's vector.
//!
//! **Coverage** is the share of the query's information the record holds: of the query's
//! words (as the lexical ranking reads them: stop words dropped, stemmed by the full-text
//! index's own porter tokenizer), each weighted by its inverse document frequency in the
//! store (`ln(1 + (N − df + ½) / (df + ½))`, the bm25 weight), the part that occurs in the
//! record's title, body or tags. A record holding every rare word of the query has coverage
//! near 1; one that shares only a common word has little.
//!
//! Why coverage: the lexical ranking's score is relative to its own best hit, so its top hit
//! scores the same whether it holds every word of the query or one common word of it. Among
//! the Debian queries that the lexical ranking got right at 1 and the plain weighted sum did
//! not, the lexical top hit held more of the query's rare words than the hybrid's top hit
//! (variants such as "… library (development files)" against "… library (runtime)"); where the
//! weighted sum was right and lexical wrong, the two held about as much. Weighting the lexical
//! score by coverage keeps a lexical top hit that matches the whole query, and lets a match
//! on common words alone weigh little against a strong match by meaning (the personal
//! paraphrase case, where queries share few words with the memories).
//!
//! The weights were chosen by `scripts/memory-fusion-tune.py` on dev queries only (the
//! even-numbered Debian queries and a paraphrase set of another seed) and are reported on
//! the held-out ones (docs/performance.md).

use crate::error::Result;
use rusqlite::{Connection, params};
use std::collections::HashMap;

/// Weight of the cosine in the hybrid score.
pub const SEMANTIC_WEIGHT: f64 = 0.5;
/// Weight of the coverage alone in the hybrid score.
pub const COVERAGE_WEIGHT: f64 = 0.1;
/// The power coverage is raised to.
const COVERAGE_POWER: i32 = 2;

/// The hybrid score of one record (see the module docs); a component the record is missing
/// from is `None`.
pub fn hybrid_score(lexical: Option<f64>, cosine: Option<f64>, coverage: f64) -> f64 {
    let c = coverage.clamp(0.0, 1.0).powi(COVERAGE_POWER);
    SEMANTIC_WEIGHT * cosine.unwrap_or(0.0)
        + (1.0 - SEMANTIC_WEIGHT) * lexical.unwrap_or(0.0) * c
        + COVERAGE_WEIGHT * c
}

/// The coverage (0..1, see the module docs) of the query words `words` by each record of
/// `ids` (ids missing from the store cover nothing), in `ids`' order. Tokenizes with the
/// full-text index's tokenizer in private temp tables of `conn` (writes the caller may need
/// to discount from `total_changes`).
pub fn coverage(conn: &Connection, words: &[String], ids: &[String]) -> Result<Vec<f64>> {
    if words.is_empty() || ids.is_empty() {
        return Ok(vec![0.0; ids.len()]);
    }
    conn.execute_batch(
        "PRAGMA temp_store = MEMORY;
         CREATE VIRTUAL TABLE IF NOT EXISTS temp.bob_fuse_q
           USING fts5(w, tokenize = 'porter unicode61');
         CREATE VIRTUAL TABLE IF NOT EXISTS temp.bob_fuse_qi
           USING fts5vocab(temp, bob_fuse_q, instance);
         CREATE VIRTUAL TABLE IF NOT EXISTS temp.bob_fuse_c
           USING fts5(t, tokenize = 'porter unicode61');
         CREATE VIRTUAL TABLE IF NOT EXISTS temp.bob_fuse_ci
           USING fts5vocab(temp, bob_fuse_c, instance);
         CREATE VIRTUAL TABLE IF NOT EXISTS temp.bob_fuse_df
           USING fts5vocab(main, ltm_fts, row);
         DELETE FROM temp.bob_fuse_q;
         DELETE FROM temp.bob_fuse_c;",
    )?;
    {
        let mut ins =
            conn.prepare_cached("INSERT INTO temp.bob_fuse_q(rowid, w) VALUES (?1, ?2)")?;
        for (i, w) in words.iter().enumerate() {
            ins.execute(params![i as i64 + 1, w])?;
        }
        let mut ins = conn.prepare_cached(
            "INSERT INTO temp.bob_fuse_c(rowid, t) \
             SELECT ?1, title || char(10) || body || char(10) || tags FROM ltm WHERE id = ?2",
        )?;
        for (i, id) in ids.iter().enumerate() {
            ins.execute(params![i as i64 + 1, id])?;
        }
    }
    let n = conn
        .query_row("SELECT coalesce(max(rid), 0) FROM ltm", [], |r| {
            r.get::<_, i64>(0)
        })?
        .max(1) as f64;
    // Each query word's weight (a word the tokenizer splits takes its rarest part's).
    let mut weight = vec![0.0f64; words.len()];
    {
        let mut stmt = conn.prepare_cached(
            "SELECT q.doc, max(coalesce(d.doc, 0)) FROM temp.bob_fuse_qi q \
             LEFT JOIN temp.bob_fuse_df d ON d.term = q.term GROUP BY q.doc",
        )?;
        let rows = stmt.query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?)))?;
        for row in rows {
            let (doc, df) = row?;
            if let Some(slot) = usize::try_from(doc - 1)
                .ok()
                .and_then(|i| weight.get_mut(i))
            {
                let df = df.max(0) as f64;
                *slot = (1.0 + (n - df + 0.5).max(0.0) / (df + 0.5)).ln();
            }
        }
    }
    let total: f64 = weight.iter().sum();
    let mut held: HashMap<usize, f64> = HashMap::new();
    {
        let mut stmt = conn.prepare_cached(
            "SELECT DISTINCT q.doc, c.doc FROM temp.bob_fuse_qi q \
             JOIN temp.bob_fuse_ci c ON c.term = q.term",
        )?;
        let rows = stmt.query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?)))?;
        for row in rows {
            let (word, cand) = row?;
            let (Ok(w), Ok(c)) = (usize::try_from(word - 1), usize::try_from(cand - 1)) else {
                continue;
            };
            if let Some(x) = weight.get(w) {
                *held.entry(c).or_default() += x;
            }
        }
    }
    Ok((0..ids.len())
        .map(|i| {
            if total > 0.0 {
                (held.get(&i).copied().unwrap_or(0.0) / total).clamp(0.0, 1.0)
            } else {
                0.0
            }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coverage_weighs_rare_words_over_common_ones() {
        let m = crate::memory::Memory::in_memory().unwrap();
        let conn = &m.conn;
        let now = 1_700_000_000i64;
        let rows = [
            ("m1", "zlib compression library development files"),
            ("m2", "zlib compression library runtime"),
            ("m3", "a library"),
            ("m4", "another library"),
            ("m5", "yet another library"),
        ];
        for (i, (id, text)) in rows.iter().enumerate() {
            conn.execute(
                "INSERT INTO ltm(id, user, owner, title, summary, body, tags, importance, \
                 created_unix, digest, record) VALUES (?1, 'u', 'o', '', '', ?2, '', 5, ?3, ?1, '{}')",
                params![id, text, now + i as i64],
            )
            .unwrap();
        }
        // The store indexes its own writes; these raw rows are indexed in one go.
        conn.execute("INSERT INTO ltm_fts(ltm_fts) VALUES ('rebuild')", [])
            .unwrap();
        let words: Vec<String> = ["zlib", "libraries", "development"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let ids: Vec<String> = ["m1", "m2", "m3", "nope"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let c = coverage(conn, &words, &ids).unwrap();
        assert!((c[0] - 1.0).abs() < 1e-9, "{c:?}");
        assert!(c[1] > c[2] && c[1] < c[0], "{c:?}");
        // "libraries" is stemmed as the index stems it, and is the commonest word.
        assert!(c[2] > 0.0 && c[2] < 0.2, "{c:?}");
        assert_eq!(c[3], 0.0);
        assert_eq!(
            coverage(conn, &[], &ids).unwrap(),
            vec![0.0; 4],
            "no words, no coverage"
        );
    }

    #[test]
    fn full_coverage_lifts_a_lexical_match_and_none_leaves_the_cosine() {
        let whole = hybrid_score(Some(0.8), Some(0.5), 1.0);
        let part = hybrid_score(Some(0.8), Some(0.5), 0.3);
        assert!(whole > part);
        assert_eq!(
            hybrid_score(Some(0.8), Some(0.5), 0.0),
            SEMANTIC_WEIGHT * 0.5
        );
        assert_eq!(hybrid_score(None, None, 0.0), 0.0);
    }
}
