//! Vectors of long-term records, exact vector search, and hybrid ranking.
//!
//! **Storage.** One row per record in `ltm_vectors(rid, id, user, model, dim, vector)` of
//! `memory.db`: `vector` is `dim` little-endian f32 (unit length), `model` the embedder's
//! identity ([`super::embed::Embedder::model`]). The table is created on the first write (a
//! store that never embeds is unchanged); deleting a record deletes its vector (trigger).
//!
//! **The queue.** A record with no vector of the configured model is queued: approving,
//! editing, importing (and so promoting, which goes through approval) embeds the new records
//! right after they are stored; when the embedder is down or broken the record is stored all
//! the same, found lexically, and stays queued until `bob memory reindex --missing` (or the
//! full `bob memory reindex`) embeds it.
//!
//! **Search.** Exact: a user's vectors are held in one contiguous f32 buffer (loaded once per
//! process and store, reloaded when the table changed) and every one is scored by a dot
//! product with the query's vector (cosine, all vectors being unit length). No approximate
//! index: at 100,000 records × 384 dimensions a scan is a few milliseconds
//! (docs/performance.md).
//!
//! **Hybrid ranking** is reciprocal-rank fusion: each of the lexical ranking (FTS5, see
//! [`super::ltm`]) and the vector ranking contributes `1 / (60 + rank)` (rank from 1) for its
//! best `max(4k, 40)` records; the fused score is normalised so that a record first in both
//! scores 1. Each hit carries both component scores (`lexical_score`, `semantic_score`).
//!
//! **Model change.** Vectors of another model than the configured one make semantic and
//! hybrid queries fail with `conflict` until `bob memory reindex` re-embeds them; the turn's
//! retrieval falls back to lexical ranking and says so in its trace.

use super::embed::{self, Embedder};
use super::{LtmStore, Memory, QueryOpts};
use crate::contracts::Hit;
use crate::error::{Error, Result};
use rusqlite::{OptionalExtension, params};
use serde::Serialize;

const SCHEMA: &str = r#"
CREATE TABLE IF NOT EXISTS ltm_vectors(
  rid INTEGER PRIMARY KEY,
  id TEXT NOT NULL,
  user TEXT NOT NULL,
  model TEXT NOT NULL,
  dim INTEGER NOT NULL,
  vector BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS ltm_vectors_user ON ltm_vectors(user, model);
CREATE TRIGGER IF NOT EXISTS ltm_vectors_ad AFTER DELETE ON ltm BEGIN
  DELETE FROM ltm_vectors WHERE rid = old.rid;
END;
"#;

/// Reciprocal-rank fusion constant.
pub const RRF_K: f64 = 60.0;

/// How a query ranks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    Lexical,
    Semantic,
    Hybrid,
}

impl Mode {
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Lexical => "lexical",
            Mode::Semantic => "semantic",
            Mode::Hybrid => "hybrid",
        }
    }

    /// `lexical`, `semantic` or `hybrid`.
    pub fn parse(s: &str) -> Result<Mode> {
        match s {
            "lexical" => Ok(Mode::Lexical),
            "semantic" => Ok(Mode::Semantic),
            "hybrid" => Ok(Mode::Hybrid),
            other => Err(Error::invalid(format!(
                "mode must be lexical, semantic or hybrid, not {other:?}"
            ))),
        }
    }

    /// Hybrid when embeddings are configured, else lexical.
    pub fn default_for(provider: embed::Provider) -> Mode {
        if provider == embed::Provider::None {
            Mode::Lexical
        } else {
            Mode::Hybrid
        }
    }
}

/// A ranked query's hits and how they were ranked.
#[derive(Debug, Clone)]
pub struct Ranked {
    pub hits: Vec<Hit>,
    /// The ranking used (lexical when a vector ranking was asked for but fell back).
    pub mode: Mode,
    /// Why the vector ranking was not used, when it was asked for.
    pub fallback: Option<String>,
    /// The user's records with no vector of the current model (found lexically only).
    pub unembedded: usize,
}

/// What `bob memory reindex` did.
#[derive(Debug, Clone, Serialize)]
pub struct ReindexReport {
    pub model: String,
    pub dim: usize,
    pub embedded: usize,
    /// Records left queued (their embedding failed).
    pub failed: usize,
    pub missing_only: bool,
    pub elapsed_ms: u64,
}

/// The vectors of one user and model, contiguous.
#[derive(Debug, Default)]
pub struct Index {
    user: String,
    model: String,
    dim: usize,
    ids: Vec<String>,
    expires: Vec<Option<i64>>,
    data: Vec<f32>,
    /// (count, max rid) of the rows it was loaded from.
    stamp: (i64, i64),
    /// (data_version, total_changes) when the stamp was last checked.
    seen: (i64, u64),
    stale: i64,
    unembedded: i64,
}

impl Index {
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// The `n` best live vectors for `q` (index, cosine), best first.
    pub fn search(&self, q: &[f32], now: i64, n: usize) -> Vec<(usize, f32)> {
        if self.dim == 0 || q.len() != self.dim || n == 0 {
            return Vec::new();
        }
        let mut scored: Vec<(usize, f32)> = self
            .data
            .chunks_exact(self.dim)
            .enumerate()
            .map(|(i, v)| (i, dot(q, v)))
            .filter(|&(i, _)| self.expires[i].is_none_or(|e| e > now))
            .collect();
        let by_score = |a: &(usize, f32), b: &(usize, f32)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
        if scored.len() > n {
            scored.select_nth_unstable_by(n - 1, by_score);
            scored.truncate(n);
        }
        scored.sort_unstable_by(by_score);
        scored
    }

    pub fn id(&self, i: usize) -> &str {
        &self.ids[i]
    }
}

/// Dot product, eight lanes at a time (the compiler vectorises the lanes).
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut acc = [0f32; 8];
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for ((a, x), y) in acc.iter_mut().zip(x).zip(y) {
            *a += x * y;
        }
    }
    let tail: f32 = ra.iter().zip(rb).map(|(x, y)| x * y).sum();
    acc.iter().sum::<f32>() + tail
}

pub fn to_blob(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

pub fn extend_from_blob(out: &mut Vec<f32>, b: &[u8]) {
    out.extend(
        b.chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])),
    );
}

/// One record in the fused ranking.
#[derive(Default)]
struct Fused {
    id: String,
    score: f64,
    lexical: Option<f64>,
    semantic: Option<f64>,
}

/// One record to embed.
struct Pending {
    rid: i64,
    id: String,
    user: String,
    text: String,
}

impl Memory {
    pub(crate) fn vectors_ready(&self) -> Result<bool> {
        Ok(self
            .conn
            .query_row(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'ltm_vectors'",
                [],
                |_| Ok(()),
            )
            .optional()?
            .is_some())
    }

    fn ensure_vectors_table(&self) -> Result<()> {
        if !self.vectors_ready()? {
            self.conn.execute_batch(SCHEMA)?;
        }
        Ok(())
    }

    /// Records (rid above `after`) with no vector of `model`, or every record when `all`.
    fn pending(&self, model: &str, after: i64, all: bool) -> Result<Vec<Pending>> {
        let sql = if all {
            "SELECT l.rid, l.id, l.user, l.title, l.body FROM ltm l WHERE l.rid > ?1 ORDER BY l.rid"
        } else {
            "SELECT l.rid, l.id, l.user, l.title, l.body FROM ltm l WHERE l.rid > ?1 AND NOT EXISTS \
             (SELECT 1 FROM ltm_vectors v WHERE v.rid = l.rid AND v.model = ?2) ORDER BY l.rid"
        };
        let mut stmt = self.conn.prepare(sql)?;
        let map = |r: &rusqlite::Row<'_>| -> rusqlite::Result<Pending> {
            let title: String = r.get(3)?;
            let body: String = r.get(4)?;
            Ok(Pending {
                rid: r.get(0)?,
                id: r.get(1)?,
                user: r.get(2)?,
                text: embed::record_text(&title, &body),
            })
        };
        let rows = if all {
            stmt.query_map(params![after], map)?
                .collect::<rusqlite::Result<Vec<_>>>()?
        } else {
            stmt.query_map(params![after, model], map)?
                .collect::<rusqlite::Result<Vec<_>>>()?
        };
        Ok(rows)
    }

    fn store_vectors(&self, e: &dyn Embedder, rows: &[Pending], vecs: &[Vec<f32>]) -> Result<()> {
        let tx = self.begin()?;
        {
            let mut stmt = tx.prepare_cached(
                "INSERT OR REPLACE INTO ltm_vectors(rid, id, user, model, dim, vector) \
                 SELECT ?1, ?2, ?3, ?4, ?5, ?6 WHERE EXISTS (SELECT 1 FROM ltm WHERE rid = ?1)",
            )?;
            for (p, v) in rows.iter().zip(vecs) {
                stmt.execute(params![
                    p.rid,
                    p.id,
                    p.user,
                    e.model(),
                    v.len() as i64,
                    to_blob(v)
                ])?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// Embeds the records stored after row `after` that have no vector yet (the hook after
    /// an approval or import). Never fails the write that called it: when embeddings are off
    /// it does nothing; when the embedder fails, the records stay queued and the returned
    /// note says so.
    pub fn embed_after(&self, after: i64) -> Option<String> {
        let e = match embed::shared() {
            Ok(Some(e)) => e,
            Ok(None) => return None,
            Err(err) => {
                return Some(format!(
                    "not embedded, queued for `bob memory reindex --missing`: {}",
                    err.message
                ));
            }
        };
        let run = || -> Result<usize> {
            self.ensure_vectors_table()?;
            let rows = self.pending(e.model(), after, false)?;
            if rows.is_empty() {
                return Ok(0);
            }
            let texts: Vec<String> = rows.iter().map(|p| p.text.clone()).collect();
            let vecs = e.embed(&texts)?;
            self.store_vectors(e.as_ref(), &rows, &vecs)?;
            Ok(rows.len())
        };
        match run() {
            Ok(_) => None,
            Err(err) => Some(format!(
                "not embedded, queued for `bob memory reindex --missing`: {}",
                err.message
            )),
        }
    }

    /// Embeds every record (`missing_only`: only those with no vector of the configured
    /// model), in batches, each batch committed on its own; `progress(done, total)`.
    pub fn reindex(
        &self,
        missing_only: bool,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<ReindexReport> {
        let started = std::time::Instant::now();
        let e = embed::shared()?.ok_or_else(|| {
            Error::invalid(
                "no embeddings are configured: set memory.embeddings (BOB_MEMORY_EMBEDDINGS) to local or openai",
            )
            .with("setting", "memory.embeddings")
        })?;
        self.ensure_vectors_table()?;
        let rows = self.pending(e.model(), 0, !missing_only)?;
        let total = rows.len();
        progress(0, total);
        let mut done = 0;
        for chunk in rows.chunks(256) {
            let texts: Vec<String> = chunk.iter().map(|p| p.text.clone()).collect();
            let vecs = e.embed(&texts)?;
            self.store_vectors(e.as_ref(), chunk, &vecs)?;
            done += chunk.len();
            progress(done, total);
        }
        if !missing_only {
            // Nothing of an earlier model is left behind.
            self.conn
                .execute("DELETE FROM ltm_vectors WHERE model != ?1", [e.model()])?;
        }
        Ok(ReindexReport {
            model: e.model().to_string(),
            dim: e.dim(),
            embedded: done,
            failed: 0,
            missing_only,
            elapsed_ms: started.elapsed().as_millis() as u64,
        })
    }

    /// The user's vector index for `model`, loaded or revalidated.
    fn with_index<T>(&self, user: &str, model: &str, f: impl FnOnce(&Index) -> T) -> Result<T> {
        let mut cache = self.vectors.borrow_mut();
        let seen = (
            self.conn
                .pragma_query_value(None, "data_version", |r| r.get::<_, i64>(0))?,
            self.conn.total_changes(),
        );
        let fresh = cache
            .as_ref()
            .is_some_and(|ix| ix.user == user && ix.model == model && ix.seen == seen);
        if !fresh {
            let stamp: (i64, i64) = if self.vectors_ready()? {
                self.conn.query_row(
                    "SELECT count(*), coalesce(max(rid), 0) FROM ltm_vectors WHERE user = ?1 AND model = ?2",
                    params![user, model],
                    |r| Ok((r.get(0)?, r.get(1)?)),
                )?
            } else {
                (0, 0)
            };
            let same = cache
                .as_ref()
                .is_some_and(|ix| ix.user == user && ix.model == model && ix.stamp == stamp);
            if same {
                if let Some(ix) = cache.as_mut() {
                    ix.seen = seen;
                }
            } else {
                *cache = Some(self.load_index(user, model, stamp, seen)?);
            }
        }
        Ok(f(cache.as_ref().expect("index loaded above")))
    }

    fn load_index(
        &self,
        user: &str,
        model: &str,
        stamp: (i64, i64),
        seen: (i64, u64),
    ) -> Result<Index> {
        let mut ix = Index {
            user: user.to_string(),
            model: model.to_string(),
            stamp,
            seen,
            ..Index::default()
        };
        let total: i64 =
            self.conn
                .query_row("SELECT count(*) FROM ltm WHERE user = ?1", [user], |r| {
                    r.get(0)
                })?;
        if !self.vectors_ready()? {
            ix.unembedded = total;
            return Ok(ix);
        }
        ix.stale = self.conn.query_row(
            "SELECT count(*) FROM ltm_vectors WHERE user = ?1 AND model != ?2",
            params![user, model],
            |r| r.get(0),
        )?;
        ix.data.reserve(stamp.0.max(0) as usize * embed::LOCAL_DIM);
        let mut stmt = self.conn.prepare(
            "SELECT v.id, l.expires_unix, v.dim, v.vector FROM ltm_vectors v JOIN ltm l ON l.rid = v.rid \
             WHERE v.user = ?1 AND v.model = ?2 ORDER BY v.rid",
        )?;
        let mut rows = stmt.query(params![user, model])?;
        while let Some(r) = rows.next()? {
            let dim = r.get::<_, i64>(2)? as usize;
            let blob = r
                .get_ref(3)?
                .as_blob()
                .map_err(|e| Error::internal(e.to_string()))?;
            if dim == 0 || blob.len() != dim * 4 || (ix.dim != 0 && dim != ix.dim) {
                continue;
            }
            ix.dim = dim;
            ix.ids.push(r.get(0)?);
            ix.expires.push(r.get(1)?);
            extend_from_blob(&mut ix.data, blob);
        }
        ix.unembedded = (total - ix.ids.len() as i64).max(0);
        Ok(ix)
    }

    /// Ranked long-term query of one user's store in `mode` (see the module docs). When the
    /// embedder cannot be used and `strict` is false, the lexical ranking is returned with
    /// `fallback` saying why; with `strict`, that is the error.
    pub fn query_ranked(
        &self,
        text: &str,
        opts: &QueryOpts,
        mode: Mode,
        strict: bool,
    ) -> Result<Ranked> {
        let mut opts = opts.clone();
        opts.user = self.resolve_user(&opts.user)?;
        if let Some(shared) = self.shared_ltm() {
            return shared_ranked(&shared, text, &opts, mode, strict);
        }
        if mode == Mode::Lexical {
            let mut hits = self.ltm().query(text, &opts)?;
            if embed::provider() != embed::Provider::None {
                for h in &mut hits {
                    h.lexical_score = Some(h.score);
                }
            }
            return Ok(Ranked {
                hits,
                mode,
                fallback: None,
                unembedded: 0,
            });
        }
        match self.vector_ranked(text, &opts, mode) {
            Ok(r) => Ok(r),
            Err(e) if !strict => Ok(Ranked {
                hits: self.ltm().query(text, &opts)?,
                mode: Mode::Lexical,
                fallback: Some(e.message),
                unembedded: 0,
            }),
            Err(e) => Err(e),
        }
    }

    fn vector_ranked(&self, text: &str, opts: &QueryOpts, mode: Mode) -> Result<Ranked> {
        let e = embed::shared()?.ok_or_else(|| {
            Error::invalid(format!(
                "--mode {} needs embeddings: set memory.embeddings (BOB_MEMORY_EMBEDDINGS) to local or openai",
                mode.as_str()
            ))
            .with("setting", "memory.embeddings")
        })?;
        let pool = opts.k.saturating_mul(4).max(40);
        let q = if text.trim().is_empty() || opts.k == 0 {
            Vec::new()
        } else {
            e.embed(&[text.to_string()])?.pop().unwrap_or_default()
        };
        let now = self.now_unix();
        let (stale, unembedded, semantic) = self.with_index(&opts.user, e.model(), |ix| {
            let want = if opts.tags.is_empty() {
                pool
            } else {
                pool.saturating_mul(8)
            };
            let found: Vec<(String, f32)> = ix
                .search(&q, now, want)
                .into_iter()
                .map(|(i, s)| (ix.id(i).to_string(), s))
                .collect();
            (ix.stale, ix.unembedded, found)
        })?;
        if stale > 0 {
            return Err(Error::conflict(format!(
                "{stale} memories of user {:?} were embedded by another model than the configured {}; run `bob memory reindex`",
                opts.user,
                e.model()
            ))
            .with("model", e.model())
            .with("stale", stale));
        }
        let ltm = self.ltm();
        let mut sem: Vec<(String, f64)> = Vec::new();
        for (id, s) in semantic {
            if sem.len() >= pool {
                break;
            }
            if !opts.tags.is_empty() {
                let Some(rec) = ltm.get(&id)? else { continue };
                if !opts.tags.iter().all(|t| rec.tags.contains(t)) {
                    continue;
                }
            }
            sem.push((id, f64::from(s.clamp(-1.0, 1.0))));
        }
        let lex = if mode == Mode::Hybrid {
            ltm.query(
                text,
                &QueryOpts {
                    k: pool,
                    ..opts.clone()
                },
            )?
        } else {
            Vec::new()
        };
        let round = |x: f64| (x * 1000.0).round() / 1000.0;
        let mut fused: Vec<Fused> = Vec::new();
        let entry = |fused: &mut Vec<Fused>, id: &str| -> usize {
            match fused.iter().position(|f| f.id == id) {
                Some(i) => i,
                None => {
                    fused.push(Fused {
                        id: id.to_string(),
                        ..Fused::default()
                    });
                    fused.len() - 1
                }
            }
        };
        for (rank, h) in lex.iter().enumerate() {
            let i = entry(&mut fused, &h.id);
            fused[i].score += 1.0 / (RRF_K + rank as f64 + 1.0);
            fused[i].lexical = Some(h.score);
        }
        for (rank, (id, s)) in sem.iter().enumerate() {
            let i = entry(&mut fused, id);
            fused[i].score += if mode == Mode::Hybrid {
                1.0 / (RRF_K + rank as f64 + 1.0)
            } else {
                *s
            };
            fused[i].semantic = Some(round(*s));
        }
        if mode == Mode::Hybrid {
            let best = 2.0 / (RRF_K + 1.0);
            for f in &mut fused {
                f.score /= best;
            }
        }
        fused.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.id.cmp(&b.id)));
        fused.truncate(opts.k);
        let mut hits = Vec::with_capacity(fused.len());
        for Fused {
            id,
            score,
            lexical,
            semantic,
        } in fused
        {
            let mut h = match lex.iter().find(|h| h.id == id) {
                Some(h) => h.clone(),
                None => {
                    let Some(rec) = ltm.get(&id)? else { continue };
                    Hit {
                        id: id.clone(),
                        score: 0.0,
                        excerpt: rec.summary.clone(),
                        title: rec.title,
                        tags: rec.tags,
                        created_at: rec.created_at,
                        lexical_score: None,
                        semantic_score: None,
                    }
                }
            };
            h.score = round(score.max(0.0));
            h.lexical_score = lexical;
            h.semantic_score = semantic;
            hits.push(h);
        }
        Ok(Ranked {
            hits,
            mode,
            fallback: None,
            unembedded: unembedded.max(0) as usize,
        })
    }
}

/// A query of the shared store's records: ranked full-text. A semantic or hybrid ranking
/// (vectors are not in the shared store yet) falls back to the full-text one with the reason
/// in `fallback`, or is `invalid.request` when `strict` (an explicit `--mode`).
fn shared_ranked(
    store: &super::pg::PgLtm,
    text: &str,
    opts: &QueryOpts,
    mode: Mode,
    strict: bool,
) -> Result<Ranked> {
    let fallback = match mode {
        Mode::Lexical => None,
        m if strict => {
            return Err(Error::invalid(format!(
                "--mode {} is not available on the shared store (database.url) yet: \
                 use --mode lexical",
                m.as_str()
            ))
            .with("setting", crate::db::SETTING));
        }
        m => Some(format!(
            "{} ranking is not available on the shared store yet",
            m.as_str()
        )),
    };
    Ok(Ranked {
        hits: super::LtmStore::query(store, text, opts)?,
        mode: Mode::Lexical,
        fallback,
        unembedded: 0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dot_matches_the_plain_sum() {
        let a: Vec<f32> = (0..389).map(|i| (i as f32 * 0.37).sin()).collect();
        let b: Vec<f32> = (0..389).map(|i| (i as f32 * 0.11).cos()).collect();
        let plain: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
        assert!((dot(&a, &b) - plain).abs() < 1e-3);
        let mut v = Vec::new();
        extend_from_blob(&mut v, &to_blob(&a));
        assert_eq!(v, a);
    }

    #[test]
    fn search_returns_the_best_live_vectors_first() {
        let ix = Index {
            dim: 2,
            ids: vec!["a".into(), "b".into(), "c".into()],
            expires: vec![None, Some(10), None],
            data: vec![1.0, 0.0, 0.0, 1.0, 0.6, 0.8],
            ..Index::default()
        };
        let got = ix.search(&[0.0, 1.0], 5, 2);
        assert_eq!(got.iter().map(|g| g.0).collect::<Vec<_>>(), [1, 2]);
        let got = ix.search(&[0.0, 1.0], 50, 2);
        assert_eq!(got.iter().map(|g| g.0).collect::<Vec<_>>(), [2, 0]);
    }
}
