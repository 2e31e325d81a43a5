//! The vectors of a home's long-term records (`ltm_vectors` of `memory.db`), for `bob db
//! import`: each joins its record in the database (`memory_vectors`, by the record's id) as it
//! is, with the model that made it, so a semantic or hybrid query on any node finds the copied
//! records without `bob memory reindex` when the nodes use that model (with another model they
//! need one, as at home). Only vectors of records the database holds as the home has them are
//! copied: a record the database holds in another version (`differing`) keeps its own vector
//! or none (`differing` here too), since the home's vector is of the home's text. A record's
//! vector already in the database is `unchanged` when it is the same model and vector, else
//! `differing` and left as it is. Written in batches of multi-row statements.

use super::Counts;
use crate::db::Database;
use crate::error::Result;
use crate::home::Home;
use std::collections::HashSet;

/// How many vectors one statement carries.
const BATCH: usize = 1000;

/// One vector of the home: its record's id, the model, the dimension and the bytes (`dim`
/// little-endian f32, as both stores keep them).
pub(super) struct Vector {
    id: String,
    model: String,
    dim: i32,
    bytes: Vec<u8>,
}

/// The home's vectors (none when its store never embedded), read-only.
pub(super) fn read(from: &Home) -> Result<Vec<Vector>> {
    let path = from.memory_db();
    if !path.exists() {
        return Ok(Vec::new());
    }
    let conn =
        rusqlite::Connection::open_with_flags(&path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)?;
    conn.busy_timeout(crate::memory::db::BUSY_TIMEOUT)?;
    let has_table = conn
        .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'ltm_vectors'")?
        .exists([])?;
    if !has_table {
        return Ok(Vec::new());
    }
    let mut stmt = conn.prepare(
        "SELECT v.id, v.model, v.dim, v.vector FROM ltm_vectors v JOIN ltm l ON l.rid = v.rid \
         ORDER BY v.rid",
    )?;
    let rows = stmt
        .query_map([], |r| {
            Ok(Vector {
                id: r.get(0)?,
                model: r.get(1)?,
                dim: r.get(2)?,
                bytes: r.get(3)?,
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

/// Copies the vectors of the records not in `differing_records` in the import's transaction
/// (after the records themselves).
pub(super) fn copy(
    db: &Database,
    tx: &mut postgres::Transaction<'_>,
    vectors: &[Vector],
    differing_records: &HashSet<String>,
    counts: &mut Counts,
) -> Result<()> {
    let (skipped, wanted): (Vec<&Vector>, Vec<&Vector>) = vectors
        .iter()
        .partition(|v| differing_records.contains(&v.id));
    counts.differing += skipped.len() as u64;
    for batch in wanted.chunks(BATCH) {
        let ids: Vec<&str> = batch.iter().map(|v| v.id.as_str()).collect();
        let models: Vec<&str> = batch.iter().map(|v| v.model.as_str()).collect();
        let dims: Vec<i32> = batch.iter().map(|v| v.dim).collect();
        let bytes: Vec<&[u8]> = batch.iter().map(|v| v.bytes.as_slice()).collect();
        let inserted: HashSet<String> = tx
            .query(
                "INSERT INTO memory_vectors (rid, id, user_id, model, dim, vector) \
                 SELECT r.rid, r.id, r.user_id, x.model, x.dim, x.vector \
                 FROM unnest($1::text[], $2::text[], $3::integer[], $4::bytea[]) \
                     AS x(id, model, dim, vector) \
                 JOIN memory_records r ON r.id = x.id \
                 ON CONFLICT (rid) DO NOTHING RETURNING id",
                &[&ids, &models, &dims, &bytes],
            )
            .map_err(|e| db.error(e))?
            .iter()
            .map(|r| r.get(0))
            .collect();
        counts.copied += inserted.len() as u64;
        let rest: Vec<&str> = ids
            .iter()
            .copied()
            .filter(|id| !inserted.contains(*id))
            .collect();
        if rest.is_empty() {
            continue;
        }
        let held: std::collections::HashMap<String, (String, Vec<u8>)> = tx
            .query(
                "SELECT r.id, v.model, v.vector FROM memory_records r \
                 JOIN memory_vectors v ON v.rid = r.rid WHERE r.id = ANY($1)",
                &[&rest],
            )
            .map_err(|e| db.error(e))?
            .iter()
            .map(|r| (r.get(0), (r.get(1), r.get(2))))
            .collect();
        for v in batch.iter().filter(|v| !inserted.contains(&v.id)) {
            match held.get(&v.id) {
                Some((model, bytes)) if *model == v.model && *bytes == v.bytes => {
                    counts.unchanged += 1
                }
                // Another model's vector, another vector, or no record to hang it on.
                _ => counts.differing += 1,
            }
        }
    }
    Ok(())
}
