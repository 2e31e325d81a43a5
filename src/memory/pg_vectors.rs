//! Vectors of the shared store's long-term records (`memory_vectors`), and the semantic and
//! hybrid ranking over them.
//!
//! This module promises:
//!
//! * **The embedded store's ranking.** A query is embedded, scored against every vector of the
//!   user and the configured model by exact dot products ([`super::vectors::Index`], the
//!   embedded store's search), and fused with the full-text ranking ([`super::pg::PgLtm`]) by
//!   the embedded store's [`super::vectors::fuse`]: same scores, same order, same component
//!   scores on each hit, same errors (`conflict` while vectors of another model are stored,
//!   `invalid.request` with no embeddings configured), same lexical fallback with its reason.
//! * **Stored in the database, with their model.** One row per record: the model's name, the
//!   dimension and the vector (`dim` little-endian f32 in a `bytea`: half the bytes of a
//!   `real[]` on the wire, and read straight into the index). A record's vector goes with
//!   it when it is deleted. Writes are the embedded store's: approving, editing, importing
//!   and promoting embed the new records right after they commit (queued for `bob memory
//!   reindex --missing` when the embedder fails or `memory.embed_queue` is `defer`); a full
//!   reindex re-embeds every record and drops vectors of other models.
//! * **A node-local cache, never stale.** Reading 100,000 vectors from the database costs
//!   seconds, so each node keeps the vectors it read: in the process (for `bob serve`) and in
//!   a file of the home (`cache/memory-vectors/`, for one-shot commands). The database counts
//!   each user's vectors per model and keeps a change counter (`memory_vector_marks`, raised
//!   by a trigger under the row's lock with every insert, update or delete, so it grows in
//!   commit order). A query reads that one row: unchanged, the cache is used as it is;
//!   changed, only the vectors written since (a higher `seq`) are read, in one snapshot with
//!   the counter; and when a vector was replaced or deleted the cache is read again whole.
//!   A cache file of another database (its `memory_vector_store` token), user or model, or
//!   one cut short, is never used.

use super::QueryOpts;
use super::embed::{self, Embedder};
use super::pg::PgLtm;
use super::vectors::{self, Index, Mode, REINDEX_CHUNK, Ranked, ReindexReport};
use crate::db::Database;
use crate::error::{Error, Result};
use crate::home::Home;
use std::collections::HashSet;
use std::sync::Mutex;

/// One record to embed.
struct Pending {
    rid: i64,
    id: String,
    user: String,
    text: String,
}

/// Records (rid above `after`) with no vector of `model`, or every record when `all`.
fn pending(db: &Database, model: &str, after: i64, all: bool) -> Result<Vec<Pending>> {
    let rows = db.with(|c| {
        c.query(
            "SELECT r.rid, r.id, r.user_id, r.title, r.body FROM memory_records r \
             WHERE r.rid > $1 AND ($3 OR NOT EXISTS (SELECT 1 FROM memory_vectors v \
                 WHERE v.rid = r.rid AND v.model = $2)) \
             ORDER BY r.rid",
            &[&after, &model, &all],
        )
    })?;
    Ok(rows
        .iter()
        .map(|r| Pending {
            rid: r.get(0),
            id: r.get(1),
            user: r.get(2),
            text: embed::record_text(r.get(3), r.get(4)),
        })
        .collect())
}

/// Writes the vectors of `rows` (made by `e`) in one transaction, replacing any they had; a
/// record deleted meanwhile is skipped.
fn store(
    db: &'static Database,
    e: &dyn Embedder,
    rows: &[Pending],
    vecs: &[Vec<f32>],
) -> Result<()> {
    let rids: Vec<i64> = rows.iter().map(|p| p.rid).collect();
    let ids: Vec<&str> = rows.iter().map(|p| p.id.as_str()).collect();
    let users: Vec<&str> = rows.iter().map(|p| p.user.as_str()).collect();
    let dims: Vec<i32> = vecs.iter().map(|v| v.len() as i32).collect();
    let blobs: Vec<Vec<u8>> = vecs.iter().map(|v| vectors::to_blob(v)).collect();
    db.transaction(|tx| {
        // Delete, then insert: an upsert would count a replaced vector twice in the marks.
        tx.execute("DELETE FROM memory_vectors WHERE rid = ANY($1)", &[&rids])
            .map_err(|err| db.error(err))?;
        tx.execute(
            "INSERT INTO memory_vectors (rid, id, user_id, model, dim, vector) \
             SELECT x.rid, x.id, x.user_id, $5, x.dim, x.vector \
             FROM unnest($1::bigint[], $2::text[], $3::text[], $4::integer[], $6::bytea[]) \
                 AS x(rid, id, user_id, dim, vector) \
             WHERE EXISTS (SELECT 1 FROM memory_records r WHERE r.rid = x.rid) \
             ORDER BY x.rid",
            &[&rids, &ids, &users, &dims, &e.model(), &blobs],
        )
        .map_err(|err| db.error(err))?;
        Ok(())
    })
}

/// The newest record's rid (0 when there is none): what [`embed_after`] is given after a
/// write.
pub(crate) fn max_rid(db: &Database) -> Result<i64> {
    db.with(|c| c.query_one("SELECT coalesce(max(rid), 0) FROM memory_records", &[]))
        .map(|r| r.get(0))
}

/// Embeds the records stored after rid `after` that have no vector of `e`'s model; how many.
pub(crate) fn embed_after(db: &'static Database, e: &dyn Embedder, after: i64) -> Result<usize> {
    let rows = pending(db, e.model(), after, false)?;
    if rows.is_empty() {
        return Ok(0);
    }
    let texts: Vec<String> = rows.iter().map(|p| p.text.clone()).collect();
    let vecs = e.embed(&texts)?;
    store(db, e, &rows, &vecs)?;
    Ok(rows.len())
}

/// `bob memory reindex` on the shared store, as the embedded store's
/// ([`super::Memory::reindex`]).
pub(crate) fn reindex(
    db: &'static Database,
    e: &dyn Embedder,
    missing_only: bool,
    started: std::time::Instant,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<ReindexReport> {
    let mut rows = pending(db, e.model(), 0, !missing_only)?;
    rows.sort_by_key(|p| (p.text.len(), p.rid));
    let total = rows.len();
    progress(0, total);
    let mut done = 0;
    for chunk in rows.chunks(REINDEX_CHUNK) {
        let texts: Vec<String> = chunk.iter().map(|p| p.text.clone()).collect();
        let vecs = e.embed(&texts)?;
        store(db, e, chunk, &vecs)?;
        done += chunk.len();
        progress(done, total);
    }
    if !missing_only {
        db.with(|c| {
            c.execute(
                "DELETE FROM memory_vectors WHERE model <> $1",
                &[&e.model()],
            )
        })?;
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

/// A node's copy of one user's vectors of one model, and what it was read at.
struct Cached {
    /// The database's `memory_vector_store` token.
    token: String,
    user: String,
    model: String,
    /// `memory_vector_marks` (n, high) when read.
    n: i64,
    high: i64,
    /// The newest record's rid and the user's record count when counted.
    records_high: i64,
    total: i64,
    index: Index,
}

impl Cached {
    fn is_for(&self, token: &str, user: &str, model: &str) -> bool {
        self.token == token && self.user == user && self.model == model
    }
}

/// The vectors this process read last (one user and model).
static CACHE: Mutex<Option<Cached>> = Mutex::new(None);

/// What the database says of one user's vectors now.
struct Marks {
    token: String,
    /// (n, high) of the configured model.
    current: (i64, i64),
    /// Vectors of other models.
    stale: i64,
    records_high: i64,
}

fn marks(db: &Database, user: &str, model: &str) -> Result<Marks> {
    let rows = db.with(|c| {
        c.query_typed(
            "SELECT s.token, m.model, coalesce(m.n, 0), coalesce(m.high, 0), \
                 (SELECT coalesce(max(rid), 0) FROM memory_records) \
             FROM memory_vector_store s LEFT JOIN memory_vector_marks m ON m.user_id = $1",
            &[(&user, postgres::types::Type::TEXT)],
        )
    })?;
    let first = rows
        .first()
        .ok_or_else(|| Error::internal("memory_vector_store holds no token"))?;
    let mut out = Marks {
        token: first.get(0),
        current: (0, 0),
        stale: 0,
        records_high: first.get(4),
    };
    for r in &rows {
        match r.get::<_, Option<&str>>(1) {
            Some(m) if m == model => out.current = (r.get(2), r.get(3)),
            Some(_) => out.stale += r.get::<_, i64>(2).max(0),
            None => {}
        }
    }
    Ok(out)
}

/// Pushes the vector rows of `rows` (id, expires, dim, vector) onto `ix`; the ids pushed.
fn push_rows(ix: &mut Index, rows: &[postgres::Row]) -> Vec<String> {
    let mut v: Vec<f32> = Vec::with_capacity(embed::LOCAL_DIM);
    let mut pushed = Vec::with_capacity(rows.len());
    for r in rows {
        let dim = r.get::<_, i32>(2) as usize;
        let blob: &[u8] = r.get(3);
        if dim == 0 || blob.len() != dim * 4 {
            continue;
        }
        v.clear();
        vectors::extend_from_blob(&mut v, blob);
        let id: String = r.get(0);
        if ix.push(id.clone(), r.get(1), &v) {
            pushed.push(id);
        }
    }
    pushed
}

const ROWS_SQL: &str = "SELECT v.id, r.expires_unix, v.dim, v.vector FROM memory_vectors v \
     JOIN memory_records r ON r.rid = v.rid \
     WHERE v.user_id = $1 AND v.model = $2 AND v.seq > $3 ORDER BY v.seq";

/// `base` brought up to the database's state (or read whole when there is none, or it
/// cannot be brought up to date), in one snapshot.
fn refresh(
    db: &Database,
    base: Option<Cached>,
    token: &str,
    user: &str,
    model: &str,
) -> Result<Cached> {
    db.with(|c| {
        let mut tx = c
            .build_transaction()
            .isolation_level(postgres::IsolationLevel::RepeatableRead)
            .read_only(true)
            .start()?;
        let (n, high): (i64, i64) = tx
            .query_opt(
                "SELECT n, high FROM memory_vector_marks WHERE user_id = $1 AND model = $2",
                &[&user, &model],
            )?
            .map(|r| (r.get(0), r.get(1)))
            .unwrap_or((0, 0));
        let records_high: i64 = tx
            .query_one("SELECT coalesce(max(rid), 0) FROM memory_records", &[])?
            .get(0);
        let total: i64 = tx
            .query_one(
                "SELECT count(*) FROM memory_records WHERE user_id = $1",
                &[&user],
            )?
            .get(0);
        let fresh = |index: Index| Cached {
            token: token.to_string(),
            user: user.to_string(),
            model: model.to_string(),
            n,
            high,
            records_high,
            total,
            index,
        };
        if let Some(mut b) = base {
            let rows = tx.query(ROWS_SQL, &[&user, &model, &b.high])?;
            let known: HashSet<&str> = if rows.is_empty() {
                HashSet::new()
            } else {
                (0..b.index.len()).map(|i| b.index.id(i)).collect()
            };
            let replaced = rows.iter().any(|r| known.contains(r.get::<_, &str>(0)));
            drop(known);
            if !replaced {
                push_rows(&mut b.index, &rows);
                if b.index.len() as i64 == n {
                    tx.commit()?;
                    return Ok(fresh(b.index));
                }
            }
        }
        let rows = tx.query(ROWS_SQL, &[&user, &model, &0i64])?;
        let mut index = Index::default();
        push_rows(&mut index, &rows);
        tx.commit()?;
        Ok(fresh(index))
    })
}

/// Runs `f` on the user's vectors of `model`, brought up to date (see the module docs), with
/// the count of vectors of other models and of the user's records with none.
fn with_index<T>(
    db: &Database,
    home: Option<&Home>,
    user: &str,
    model: &str,
    f: impl FnOnce(&Index) -> T,
) -> Result<(T, i64, i64)> {
    let now = marks(db, user, model)?;
    let mut guard = CACHE.lock().unwrap_or_else(|p| p.into_inner());
    let mut base = guard.take().filter(|c| c.is_for(&now.token, user, model));
    if base.is_none()
        && let Some(h) = home
    {
        base = read_file(
            &file_of(h, &now.token, user, model),
            &now.token,
            user,
            model,
        );
    }
    let cached = match base {
        Some(mut b) if (b.n, b.high) == now.current => {
            if b.records_high != now.records_high {
                b.total = db
                    .with(|c| {
                        c.query_one(
                            "SELECT count(*) FROM memory_records WHERE user_id = $1",
                            &[&user],
                        )
                    })?
                    .get(0);
                b.records_high = now.records_high;
            }
            b
        }
        base => {
            let c = refresh(db, base, &now.token, user, model)?;
            if let Some(h) = home {
                // A cache: a write that fails costs the next process a read, nothing more.
                let _ = write_file(h, &c);
            }
            c
        }
    };
    let out = f(&cached.index);
    let unembedded = (cached.total - cached.index.len() as i64).max(0);
    *guard = Some(cached);
    Ok((out, now.stale, unembedded))
}

/// The cache file's first bytes (the format's version is in them).
const MAGIC: &[u8] = b"bob memory vectors 1\n";

fn file_of(home: &Home, token: &str, user: &str, model: &str) -> std::path::PathBuf {
    use sha2::Digest;
    let key = sha2::Sha256::digest(format!("{token}\0{user}\0{model}").as_bytes());
    home.cache_dir()
        .join("memory-vectors")
        .join(format!("{}.bin", &hex::encode(key)[..32]))
}

#[derive(serde::Serialize, serde::Deserialize)]
struct FileHeader {
    token: String,
    user: String,
    model: String,
    n: i64,
    high: i64,
    records_high: i64,
    total: i64,
    count: usize,
    dim: usize,
}

/// Writes `c` to its cache file: the magic, a JSON header line, then per vector the id's
/// length (u16), the id, the expiry (i64, `i64::MIN` for none) and `dim` f32, little-endian.
fn write_file(home: &Home, c: &Cached) -> Result<()> {
    let path = file_of(home, &c.token, &c.user, &c.model);
    let dir = path.parent().expect("a cache file has a directory");
    home.ensure_dir(dir)?;
    let dim = if c.index.is_empty() {
        0
    } else {
        c.index.entry(0).0.len()
    };
    let header = FileHeader {
        token: c.token.clone(),
        user: c.user.clone(),
        model: c.model.clone(),
        n: c.n,
        high: c.high,
        records_high: c.records_high,
        total: c.total,
        count: c.index.len(),
        dim,
    };
    let mut out = Vec::with_capacity(MAGIC.len() + 256 + c.index.len() * (dim * 4 + 48));
    out.extend_from_slice(MAGIC);
    serde_json::to_writer(&mut out, &header).map_err(|e| Error::internal(e.to_string()))?;
    out.push(b'\n');
    for i in 0..c.index.len() {
        let id = c.index.id(i).as_bytes();
        let (v, expires) = c.index.entry(i);
        out.extend_from_slice(&(id.len().min(u16::MAX as usize) as u16).to_le_bytes());
        out.extend_from_slice(&id[..id.len().min(u16::MAX as usize)]);
        out.extend_from_slice(&expires.unwrap_or(i64::MIN).to_le_bytes());
        for x in v {
            out.extend_from_slice(&x.to_le_bytes());
        }
    }
    // Unsynced: a cache lost to a crash is read again from the database; one cut short is
    // refused by its length.
    let tmp = dir.join(format!(
        ".{}.{}",
        std::process::id(),
        uuid::Uuid::new_v4().simple()
    ));
    std::fs::write(&tmp, &out).map_err(|e| Error::internal(format!("{}: {e}", tmp.display())))?;
    std::fs::rename(&tmp, &path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        Error::internal(format!("{}: {e}", path.display()))
    })
}

/// The cache file at `path` when it is whole and of this database, user and model.
fn read_file(path: &std::path::Path, token: &str, user: &str, model: &str) -> Option<Cached> {
    let bytes = std::fs::read(path).ok()?;
    let rest = bytes.strip_prefix(MAGIC)?;
    let nl = rest.iter().position(|&b| b == b'\n')?;
    let h: FileHeader = serde_json::from_slice(&rest[..nl]).ok()?;
    if h.token != token || h.user != user || h.model != model {
        return None;
    }
    let mut raw = &rest[nl + 1..];
    let mut index = Index::default();
    let mut v: Vec<f32> = Vec::with_capacity(h.dim);
    for _ in 0..h.count {
        let len = u16::from_le_bytes(raw.get(..2)?.try_into().ok()?) as usize;
        let id = std::str::from_utf8(raw.get(2..2 + len)?).ok()?.to_string();
        raw = &raw[2 + len..];
        let expires = i64::from_le_bytes(raw.get(..8)?.try_into().ok()?);
        let vec = raw.get(8..8 + h.dim * 4)?;
        raw = &raw[8 + h.dim * 4..];
        v.clear();
        vectors::extend_from_blob(&mut v, vec);
        if !index.push(id, (expires != i64::MIN).then_some(expires), &v) {
            return None;
        }
    }
    if !raw.is_empty() {
        return None;
    }
    Some(Cached {
        token: h.token,
        user: h.user,
        model: h.model,
        n: h.n,
        high: h.high,
        records_high: h.records_high,
        total: h.total,
        index,
    })
}

/// The query words' coverage of each record of `ids` (in that order), as
/// [`super::fusion::coverage`] weighs it on the embedded store: each word by its bm25 inverse
/// document frequency over every record, held when the record's full-text vector matches it.
/// The words are read by the database's own `english` parser (its stop words weigh nothing;
/// a word it splits is held when every part is).
fn coverage(db: &Database, words: &[String], ids: &[String]) -> Result<Vec<f64>> {
    if words.is_empty() || ids.is_empty() {
        return Ok(vec![0.0; ids.len()]);
    }
    let rows = db.with(|c| {
        c.query(
            "WITH q AS (
                 SELECT plainto_tsquery('english', w) AS tq
                 FROM unnest($1::text[]) AS t(w)
             )
             SELECT (SELECT count(*) FROM memory_records m WHERE m.tsv @@ q.tq)::float8,
                    ARRAY(SELECT c.ord FROM unnest($2::text[]) WITH ORDINALITY AS c(id, ord)
                          JOIN memory_records m ON m.id = c.id WHERE m.tsv @@ q.tq),
                    (SELECT greatest(coalesce(max(rid), 0), 1) FROM memory_records)::float8
             FROM q WHERE numnode(q.tq) > 0",
            &[&words, &ids],
        )
    })?;
    let mut held = vec![0.0f64; ids.len()];
    let mut total = 0.0;
    for r in &rows {
        let (df, holders, n): (f64, Vec<i64>, f64) = (r.get(0), r.get(1), r.get(2));
        let weight = (1.0 + (n - df + 0.5).max(0.0) / (df + 0.5)).ln();
        total += weight;
        for i in holders {
            if let Some(h) = usize::try_from(i - 1).ok().and_then(|i| held.get_mut(i)) {
                *h += weight;
            }
        }
    }
    Ok(held
        .into_iter()
        .map(|h| {
            if total > 0.0 {
                (h / total).clamp(0.0, 1.0)
            } else {
                0.0
            }
        })
        .collect())
}

/// The vector ranking of the shared store in `mode` (`opts.user` resolved), as
/// [`super::Memory::query_ranked`] ranks the embedded store.
pub(crate) fn vector_ranked(
    store: &PgLtm,
    home: Option<&Home>,
    text: &str,
    opts: &QueryOpts,
    mode: Mode,
) -> Result<Ranked> {
    let e = embed::shared()?.ok_or_else(|| vectors::needs_embeddings(mode))?;
    let db = store.db();
    let pool = opts.k.saturating_mul(4).max(40);
    let embed_query = || -> Result<Vec<f32>> {
        if text.trim().is_empty() || opts.k == 0 {
            return Ok(Vec::new());
        }
        Ok(e.embed(&[text.to_string()])?.pop().unwrap_or_default())
    };
    // The query's embedding runs on its own thread while the full-text ranking runs here.
    let (q, lex) = std::thread::scope(|s| -> Result<_> {
        let job = s.spawn(embed_query);
        let lex = if mode == Mode::Hybrid {
            store.scored(text, opts, pool)
        } else {
            Ok(Vec::new())
        };
        let q = job
            .join()
            .map_err(|_| Error::internal("the query's embedding panicked"))?;
        Ok((q?, lex?))
    })?;
    let now = store.now();
    let want = if opts.tags.is_empty() {
        pool
    } else {
        pool.saturating_mul(8)
    };
    let (found, stale, unembedded) = with_index(db, home, &opts.user, e.model(), |ix| {
        ix.search(&q, now, want)
            .into_iter()
            .map(|(i, s)| (ix.id(i).to_string(), s))
            .collect::<Vec<(String, f32)>>()
    })?;
    if stale > 0 {
        return Err(vectors::stale_vectors(stale, &opts.user, e.model()));
    }
    let tagged: Option<HashSet<String>> = if opts.tags.is_empty() || found.is_empty() {
        None
    } else {
        let ids: Vec<&str> = found.iter().map(|(id, _)| id.as_str()).collect();
        let rows = db.with(|c| {
            c.query(
                "SELECT id FROM memory_records WHERE id = ANY($1) AND tags @> $2",
                &[&ids, &opts.tags],
            )
        })?;
        Some(rows.iter().map(|r| r.get(0)).collect())
    };
    let sem: Vec<(String, f64)> = found
        .into_iter()
        .filter(|(id, _)| tagged.as_ref().is_none_or(|t| t.contains(id)))
        .take(pool)
        .map(|(id, s)| (id, f64::from(s.clamp(-1.0, 1.0))))
        .collect();
    let words = super::ltm::query_words(text);
    let fused = vectors::fuse(
        lex.iter().map(|(s, id)| (*s, id.as_str())),
        &sem,
        mode,
        opts.k,
        |ids| coverage(db, &words, ids),
    )?;
    let mut records = store.excerpted(text, fused.iter().map(|f| f.id.as_str()))?;
    let mut hits = Vec::with_capacity(fused.len());
    for f in fused {
        let Some((rec, snip)) = records.remove(&f.id) else {
            continue;
        };
        let excerpt = f.lexical.is_some().then_some(snip.as_str());
        let mut h = super::pg::hit(rec, vectors::round3(f.score.max(0.0)), excerpt);
        h.lexical_score = f.lexical;
        h.semantic_score = f.semantic;
        hits.push(h);
    }
    Ok(Ranked {
        hits,
        mode,
        fallback: None,
        unembedded: unembedded as usize,
    })
}
