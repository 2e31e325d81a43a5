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
//! full `bob memory reindex`) embeds it. With `memory.embed_queue = defer` the writes never
//! embed: every new record is queued that way.
//!
//! **Search.** Exact over every vector, no approximate index: a user's vectors are held in one
//! contiguous f32 buffer (loaded once per process and store, reloaded when the table changed),
//! plus a copy quantised to one signed byte per dimension (each vector scaled by its own
//! largest component). A store of more than [`QUANTISED_ABOVE`] vectors is scanned in the byte
//! copy (a quarter of the memory traffic of the f32 scan; AVX2 integer dot products where the
//! CPU has them), the best `4n` (at least `n + 64`) are kept and rescored exactly in f32, and
//! the best `n` of those are returned with their exact cosines (all vectors being unit length,
//! the dot product is the cosine). Quantisation moves a score by about 1/127 of a component,
//! far less than the margin the 4× oversampling covers, so the result equals the exact scan's
//! (a unit test checks it on random vectors). At 100,000 records × 384 dimensions the scan is
//! a few milliseconds (docs/performance.md).
//!
//! **Hybrid ranking** scores every record of either ranking's best `max(4k, 40)` by the
//! cosine, the lexical score ([`super::ltm`]'s, in 0..1) and how much of the query's rare
//! words the record holds ([`super::fusion`] says the rule and why). Unlike reciprocal-rank
//! fusion (which was measured and ranked worse at 1), a weak lexical match (one shared common
//! word) weighs little against a strong match by meaning, and a lexical match on the whole
//! query keeps its place. Each hit carries both component scores (`lexical_score`,
//! `semantic_score`).
//!
//! **Model change.** Vectors of another model than the configured one make semantic and
//! hybrid queries fail with `conflict` until `bob memory reindex` re-embeds them; the turn's
//! retrieval falls back to lexical ranking and says so in its trace.

use super::embed::{self, Embedder};
use super::fusion;
use super::{Memory, QueryOpts};
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

/// Records embedded and written per transaction by [`Memory::reindex`].
pub const REINDEX_CHUNK: usize = 512;

/// Weight of the cosine in the hybrid score; the whole rule is [`fusion::hybrid_score`].
pub const HYBRID_SEMANTIC_WEIGHT: f64 = fusion::SEMANTIC_WEIGHT;

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
    /// `data` quantised: `round(x / scale)` per component, one scale per vector.
    q8: Vec<i8>,
    q8_scale: Vec<f32>,
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

    /// The `n` best live vectors for `q` (index, cosine), best first; ties by index.
    pub fn search(&self, q: &[f32], now: i64, n: usize) -> Vec<(usize, f32)> {
        if self.dim == 0 || q.len() != self.dim || n == 0 {
            return Vec::new();
        }
        if self.len() > QUANTISED_ABOVE && self.q8.len() == self.data.len() {
            self.search_quantised(q, now, n)
        } else {
            self.search_exact(q, now, n)
        }
    }

    fn live(&self, i: usize, now: i64) -> bool {
        self.expires[i].is_none_or(|e| e > now)
    }

    fn search_exact(&self, q: &[f32], now: i64, n: usize) -> Vec<(usize, f32)> {
        let scored: Vec<(usize, f32)> = self
            .data
            .chunks_exact(self.dim)
            .enumerate()
            .filter(|&(i, _)| self.live(i, now))
            .map(|(i, v)| (i, dot(q, v)))
            .collect();
        best(scored, n)
    }

    /// The byte scan, then the exact rescoring of its best `4n` (see the module docs).
    fn search_quantised(&self, q: &[f32], now: i64, n: usize) -> Vec<(usize, f32)> {
        let (qq, qs) = quantise(q);
        let mut raw = vec![0i32; self.len()];
        dot_i8_rows(&qq, &self.q8, self.dim, &mut raw);
        let scored: Vec<(usize, f32)> = raw
            .iter()
            .enumerate()
            .filter(|&(i, _)| self.live(i, now))
            .map(|(i, &d)| (i, d as f32 * qs * self.q8_scale[i]))
            .collect();
        let shortlist = best(scored, n.saturating_mul(4).max(n + 64));
        let exact = shortlist
            .into_iter()
            .map(|(i, _)| (i, dot(q, &self.data[i * self.dim..(i + 1) * self.dim])))
            .collect();
        best(exact, n)
    }

    /// Adds one vector (of the index's dimension; the first sets it). False, and nothing
    /// added, when its length differs.
    pub fn push(&mut self, id: String, expires_unix: Option<i64>, v: &[f32]) -> bool {
        if v.is_empty() || (self.dim != 0 && v.len() != self.dim) {
            return false;
        }
        self.dim = v.len();
        self.ids.push(id);
        self.expires.push(expires_unix);
        self.data.extend_from_slice(v);
        let (qv, scale) = quantise(v);
        self.q8.extend(qv);
        self.q8_scale.push(scale);
        true
    }

    pub fn id(&self, i: usize) -> &str {
        &self.ids[i]
    }

    /// The `i`th vector and when its record expires (unix seconds).
    pub fn entry(&self, i: usize) -> (&[f32], Option<i64>) {
        (
            &self.data[i * self.dim..(i + 1) * self.dim],
            self.expires[i],
        )
    }
}

/// Stores up to this many vectors are scanned exactly in f32; larger ones in bytes first.
pub const QUANTISED_ABOVE: usize = 2048;

/// The `n` best of `scored`, best first (ties by index).
fn best(mut scored: Vec<(usize, f32)>, n: usize) -> Vec<(usize, f32)> {
    let by_score = |a: &(usize, f32), b: &(usize, f32)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
    if scored.len() > n {
        scored.select_nth_unstable_by(n - 1, by_score);
        scored.truncate(n);
    }
    scored.sort_unstable_by(by_score);
    scored
}

/// `v` as signed bytes and the scale that maps them back (`x ≈ byte * scale`).
fn quantise(v: &[f32]) -> (Vec<i8>, f32) {
    let top = v.iter().fold(0f32, |m, x| m.max(x.abs()));
    if top == 0.0 || !top.is_finite() {
        return (vec![0; v.len()], 0.0);
    }
    let scale = top / 127.0;
    let q = v
        .iter()
        .map(|x| (x / scale).round().clamp(-127.0, 127.0) as i8)
        .collect();
    (q, scale)
}

/// `out[i]` = the integer dot product of `q` with row `i` of `rows` (rows of `q.len()`
/// bytes), with AVX2 where the CPU has it.
fn dot_i8_rows(q: &[i8], rows: &[i8], dim: usize, out: &mut [i32]) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2, checked just above; the function only reads and writes
        // through the slices it is given.
        unsafe { dot_i8_rows_avx2(q, rows, dim, out) };
        return;
    }
    dot_i8_rows_plain(q, rows, dim, out);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn dot_i8_rows_avx2(q: &[i8], rows: &[i8], dim: usize, out: &mut [i32]) {
    dot_i8_rows_plain(q, rows, dim, out);
}

#[inline(always)]
fn dot_i8_rows_plain(q: &[i8], rows: &[i8], dim: usize, out: &mut [i32]) {
    for (o, row) in out.iter_mut().zip(rows.chunks_exact(dim)) {
        *o = q
            .iter()
            .zip(row)
            .map(|(&a, &b)| i32::from(a) * i32::from(b))
            .sum();
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
pub(crate) struct Fused {
    pub id: String,
    pub score: f64,
    pub lexical: Option<f64>,
    cosine: Option<f64>,
    pub semantic: Option<f64>,
}

/// The best `k` of the lexical ranking `lex` (score in 0..1, id) and the vector ranking `sem`
/// (id, cosine) fused as `mode` ranks (see [`fusion`]), best first (ties by id); the shared
/// store ranks with it too. `coverage` gives the query's coverage of each pooled record (in
/// the order of the ids it is given); only the hybrid mode asks for it.
pub(crate) fn fuse<'a>(
    lex: impl Iterator<Item = (f64, &'a str)>,
    sem: &[(String, f64)],
    mode: Mode,
    k: usize,
    coverage: impl FnOnce(&[String]) -> Result<Vec<f64>>,
) -> Result<Vec<Fused>> {
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
    for (score, id) in lex {
        let i = entry(&mut fused, id);
        fused[i].lexical = Some(score);
    }
    for (id, s) in sem {
        let i = entry(&mut fused, id);
        fused[i].cosine = Some(*s);
        fused[i].semantic = Some(round3(*s));
    }
    if mode == Mode::Hybrid {
        // The score grows with coverage (0..1), so a record's score lies between its score at
        // coverage 0 and at coverage 1. Coverage is counted only for records whose best case
        // reaches the k-th best worst case: the others cannot enter the best `k`, and the
        // ranking is the same as if every record had been counted.
        let low = |f: &Fused| fusion::hybrid_score(f.lexical, f.cosine, 0.0);
        let mut lows: Vec<f64> = fused.iter().map(low).collect();
        lows.sort_by(|a, b| b.total_cmp(a));
        let bar = k
            .checked_sub(1)
            .and_then(|i| lows.get(i).copied())
            .unwrap_or(f64::NEG_INFINITY);
        let counted: Vec<usize> = (0..fused.len())
            .filter(|&i| fusion::hybrid_score(fused[i].lexical, fused[i].cosine, 1.0) >= bar)
            .collect();
        let ids: Vec<String> = counted.iter().map(|&i| fused[i].id.clone()).collect();
        for f in &mut fused {
            f.score = low(f);
        }
        for (&i, c) in counted.iter().zip(coverage(&ids)?) {
            fused[i].score = fusion::hybrid_score(fused[i].lexical, fused[i].cosine, c);
        }
    } else {
        for f in &mut fused {
            f.score = f.cosine.unwrap_or(0.0);
        }
    }
    fused.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.id.cmp(&b.id)));
    fused.truncate(k);
    Ok(fused)
}

/// A score as hits show it: three decimals.
pub(crate) fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// The error of a vector ranking asked for with no embeddings configured.
pub(crate) fn needs_embeddings(mode: Mode) -> Error {
    Error::invalid(format!(
        "--mode {} needs embeddings: set memory.embeddings (BOB_MEMORY_EMBEDDINGS) to local or openai",
        mode.as_str()
    ))
    .with("setting", "memory.embeddings")
}

/// The error of a vector ranking over vectors of another model than the configured one.
pub(crate) fn stale_vectors(stale: i64, user: &str, model: &str) -> Error {
    Error::conflict(format!(
        "{stale} memories of user {user:?} were embedded by another model than the configured {model}; run `bob memory reindex`"
    ))
    .with("model", model)
    .with("stale", stale)
}

/// The embedder a write embeds its new records with, or why they stay queued (`None`:
/// embeddings are off, nothing is queued).
pub(crate) fn write_embedder() -> std::result::Result<std::sync::Arc<dyn Embedder>, Option<String>>
{
    if embed::provider() != embed::Provider::None
        && embed::queue_policy() == embed::QueuePolicy::Defer
    {
        return Err(Some(
            "queued for `bob memory reindex --missing` (memory.embed_queue is defer)".into(),
        ));
    }
    match embed::shared() {
        Ok(Some(e)) => Ok(e),
        Ok(None) => Err(None),
        Err(err) => Err(Some(queued_note(&err))),
    }
}

/// The note of records a failed embedding left queued.
pub(crate) fn queued_note(err: &Error) -> String {
    format!(
        "not embedded, queued for `bob memory reindex --missing`: {}",
        err.message
    )
}

/// The error of a reindex with no embeddings configured.
pub(crate) fn reindex_needs_embeddings() -> Error {
    Error::invalid(
        "no embeddings are configured: set memory.embeddings (BOB_MEMORY_EMBEDDINGS) to local or openai",
    )
    .with("setting", "memory.embeddings")
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

    /// Embeds the records of the home's store after row `after` with no vector of `e`'s
    /// model (see [`Memory::embed_after`]); how many.
    pub(crate) fn embed_new(&self, e: &dyn Embedder, after: i64) -> Result<usize> {
        self.ensure_vectors_table()?;
        let rows = self.pending(e.model(), after, false)?;
        if rows.is_empty() {
            return Ok(0);
        }
        let texts: Vec<String> = rows.iter().map(|p| p.text.clone()).collect();
        let vecs = e.embed(&texts)?;
        self.store_vectors(e, &rows, &vecs)?;
        Ok(rows.len())
    }

    /// [`Memory::reindex`] of the home's store, with `e`.
    pub(crate) fn reindex_embedded(
        &self,
        e: &dyn Embedder,
        missing_only: bool,
        started: std::time::Instant,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<ReindexReport> {
        self.ensure_vectors_table()?;
        let mut rows = self.pending(e.model(), 0, !missing_only)?;
        // Shortest first across the whole set, so every forward batch holds texts of about
        // one length and pads little (the embedder sorts only within what it is given).
        rows.sort_by_key(|p| (p.text.len(), p.rid));
        let total = rows.len();
        progress(0, total);
        let mut done = 0;
        for chunk in rows.chunks(REINDEX_CHUNK) {
            let texts: Vec<String> = chunk.iter().map(|p| p.text.clone()).collect();
            let vecs = e.embed(&texts)?;
            self.store_vectors(e, chunk, &vecs)?;
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
            self.conn
                .total_changes()
                .wrapping_sub(self.scratch_changes.get()),
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
        let rows = stamp.0.max(0) as usize;
        ix.data.reserve(rows * embed::LOCAL_DIM);
        ix.q8.reserve(rows * embed::LOCAL_DIM);
        let mut stmt = self.conn.prepare(
            "SELECT v.id, l.expires_unix, v.dim, v.vector FROM ltm_vectors v JOIN ltm l ON l.rid = v.rid \
             WHERE v.user = ?1 AND v.model = ?2 ORDER BY v.rid",
        )?;
        let mut rows = stmt.query(params![user, model])?;
        let mut v: Vec<f32> = Vec::with_capacity(embed::LOCAL_DIM);
        while let Some(r) = rows.next()? {
            let dim = r.get::<_, i64>(2)? as usize;
            let blob = r
                .get_ref(3)?
                .as_blob()
                .map_err(|e| Error::internal(e.to_string()))?;
            if dim == 0 || blob.len() != dim * 4 || (ix.dim != 0 && dim != ix.dim) {
                continue;
            }
            v.clear();
            extend_from_blob(&mut v, blob);
            ix.push(r.get(0)?, r.get(1)?, &v);
        }
        ix.unembedded = (total - ix.ids.len() as i64).max(0);
        Ok(ix)
    }

    /// The vector ranking of the home's store (`opts.user` resolved; see
    /// [`Memory::query_ranked`]).
    pub(crate) fn vector_ranked(&self, text: &str, opts: &QueryOpts, mode: Mode) -> Result<Ranked> {
        let e = embed::shared()?.ok_or_else(|| needs_embeddings(mode))?;
        let pool = opts.k.saturating_mul(4).max(40);
        let ltm = self.ltm();
        // The lexical ranking: the best `pool` rows by score out of the best `pool` by bm25,
        // scores only (the excerpts are made at the end, for the kept hits only).
        let (q, lex) = embed_beside(e.as_ref(), text, opts.k, || {
            if mode != Mode::Hybrid {
                return Ok(None);
            }
            // The ranking writes only its private temp tables: those changes must not make
            // the vector index recount its rows (a count over every vector, ~8 ms at 100k).
            let before = self.conn.total_changes();
            let lex = ltm.scored(text, opts, pool, pool as i64);
            let made = self.conn.total_changes().wrapping_sub(before);
            self.scratch_changes
                .set(self.scratch_changes.get().wrapping_add(made));
            lex
        })?;
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
            return Err(stale_vectors(stale, &opts.user, e.model()));
        }
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
        let (expr, lex) = lex.map(|l| (l.expr, l.rows)).unwrap_or_default();
        let words = super::ltm::query_words(text);
        let fused = fuse(
            lex.iter().map(|(s, _, id)| (*s, id.as_str())),
            &sem,
            mode,
            opts.k,
            |ids| {
                let before = self.conn.total_changes();
                let cover = fusion::coverage(&self.conn, &words, ids);
                let made = self.conn.total_changes().wrapping_sub(before);
                self.scratch_changes
                    .set(self.scratch_changes.get().wrapping_add(made));
                cover
            },
        )?;
        let mut hits = Vec::with_capacity(fused.len());
        for Fused {
            id,
            score,
            lexical,
            semantic,
            ..
        } in fused
        {
            let mut h = match lex.iter().find(|l| l.2 == id) {
                Some((s, rowid, _)) => ltm.hit(&expr, *s, *rowid, id.clone())?,
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
            h.score = round3(score.max(0.0));
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

/// The query's embedding (empty for a blank query or `k` = 0), made on its own thread while
/// `lexical` runs on this one, so a hybrid query waits for the slower of the two, not both.
pub(crate) fn embed_beside<T>(
    e: &dyn embed::Embedder,
    text: &str,
    k: usize,
    lexical: impl FnOnce() -> Result<T>,
) -> Result<(Vec<f32>, T)> {
    let embed_query = || -> Result<Vec<f32>> {
        if text.trim().is_empty() || k == 0 {
            return Ok(Vec::new());
        }
        Ok(e.embed(&[text.to_string()])?.pop().unwrap_or_default())
    };
    std::thread::scope(|s| {
        let job = s.spawn(embed_query);
        let lex = lexical();
        let q = job
            .join()
            .map_err(|_| Error::internal("the query's embedding panicked"))?;
        Ok((q?, lex?))
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

    #[test]
    fn the_quantised_scan_returns_what_the_exact_scan_does() {
        // Unit vectors in clusters (near-duplicates are where rounding could reorder).
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 40) as f32 / (1u64 << 24) as f32 - 0.5
        };
        let dim = 384;
        let centres: Vec<Vec<f32>> = (0..20)
            .map(|_| (0..dim).map(|_| next()).collect())
            .collect();
        let mut ix = Index::default();
        for i in 0..QUANTISED_ABOVE + 3000 {
            let mut v: Vec<f32> = centres[i % 20].iter().map(|c| c + 0.3 * next()).collect();
            embed::normalize(&mut v);
            let expires = (i % 7 == 0).then_some(100);
            assert!(ix.push(format!("r{i}"), expires, &v));
        }
        assert!(!ix.push("short".into(), None, &[1.0]));
        for (t, centre) in centres.iter().enumerate() {
            let mut q: Vec<f32> = centre.iter().map(|c| c + 0.3 * next()).collect();
            embed::normalize(&mut q);
            for n in [1, 10, 40] {
                let exact = ix.search_exact(&q, 200, n);
                let fast = ix.search(&q, 200, n);
                assert_eq!(fast, exact, "query {t}, n {n}");
                assert!(
                    fast.iter().all(|&(i, _)| i % 7 != 0),
                    "an expired vector was returned"
                );
            }
        }
    }
}
