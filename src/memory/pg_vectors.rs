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
//! * **A node-local cache, never stale**, per database, user and model
//!   ([`super::pg_vector_cache`]): a query reads one row when nothing changed since the node
//!   last searched that user's vectors, only the new vectors when some were added.

use super::QueryOpts;
use super::embed::{self, Embedder};
use super::pg::PgLtm;
use super::vectors::{self, Mode, REINDEX_CHUNK, Ranked, ReindexReport};
use crate::db::Database;
use crate::error::Result;
use crate::home::Home;
use std::collections::HashSet;

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

/// The query words' coverage of each record of `ids` (in that order), as
/// [`super::fusion::coverage`] weighs it on the embedded store: each word by its bm25 inverse
/// document frequency over every record, held when the record's full-text vector matches it.
/// The words are read by the database's own `english` parser (its stop words weigh nothing;
/// a word it splits is held when every part is).
fn coverage(db: &Database, words: &[String], ids: &[String]) -> Result<Vec<f64>> {
    if words.is_empty() || ids.is_empty() {
        return Ok(vec![0.0; ids.len()]);
    }
    // Typed: one round trip, no statement prepared first.
    let rows = db.with(|c| {
        c.query_typed(
            "WITH q AS (
                 SELECT plainto_tsquery('english', w) AS tq
                 FROM unnest($1::text[]) AS t(w)
             )
             SELECT (SELECT count(*) FROM memory_records m WHERE m.tsv @@ q.tq)::float8,
                    ARRAY(SELECT c.ord FROM unnest($2::text[]) WITH ORDINALITY AS c(id, ord)
                          JOIN memory_records m ON m.id = c.id WHERE m.tsv @@ q.tq),
                    (SELECT greatest(coalesce(max(rid), 0), 1) FROM memory_records)::float8
             FROM q WHERE numnode(q.tq) > 0",
            &[
                (&words, postgres::types::Type::TEXT_ARRAY),
                (&ids, postgres::types::Type::TEXT_ARRAY),
            ],
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
    // The query's embedding runs on its own thread while the full-text ranking runs here.
    let (q, lex) = vectors::embed_beside(e.as_ref(), text, opts.k, || {
        if mode == Mode::Hybrid {
            store.scored(text, opts, pool)
        } else {
            Ok(Vec::new())
        }
    })?;
    let now = store.now();
    let want = if opts.tags.is_empty() {
        pool
    } else {
        pool.saturating_mul(8)
    };
    let (found, stale, unembedded) =
        super::pg_vector_cache::with_index(db, home, &opts.user, e.model(), |ix| {
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
