//! Turn records and short-term memory of a home, for `bob db import`: `turns.jsonl` line by
//! line into `turn_records` (keyed by `(run_id, digest)` of the line, so a record copied before
//! is `unchanged`), and the `stm` rows of `memory.db` into `stm` (by entry id: the same entry
//! is `unchanged`, another one under that id `differing`, left as the database has it). Both
//! are written with one multi-row statement per batch of rows, in the home's order.

use super::{Counts, same_json};
use crate::db::Database;
use crate::error::{Error, Result};
use crate::home::Home;
use serde_json::Value;

/// Rows per multi-row statement.
const BATCH: usize = 2000;

/// A turn record of the home: run id, session id, time, digest, the line as the home holds it.
pub(super) struct Turn {
    run_id: String,
    session_id: String,
    ts: String,
    digest: String,
    text: String,
}

/// Reads `turns.jsonl`; a line that is not a whole record is `conflict` (nothing written).
pub(super) fn read_turns(from: &Home) -> Result<Vec<Turn>> {
    let path = from.turns_path();
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(Error::io(&path, e)),
    };
    let mut turns = Vec::new();
    for (i, line) in bytes.split(|b| *b == b'\n').enumerate() {
        if line.is_empty() {
            continue;
        }
        let bad = |why: String| {
            Error::conflict(format!(
                "{} line {} is not a turn record ({why}): move the line aside and import again",
                path.display(),
                i + 1
            ))
            .with("path", path.display().to_string())
            .with("line", i + 1)
            .retryable(false)
        };
        let text = std::str::from_utf8(line).map_err(|e| bad(e.to_string()))?;
        let v: Value = serde_json::from_str(text).map_err(|e| bad(e.to_string()))?;
        let field = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
        let (Some(run_id), Some(session_id)) = (field("run_id"), field("session_id")) else {
            return Err(bad("no run_id or session_id".into()));
        };
        turns.push(Turn {
            run_id,
            session_id,
            ts: field("ts").unwrap_or_default(),
            digest: crate::store::sha256_hex(text.as_bytes()),
            text: text.to_string(),
        });
    }
    Ok(turns)
}

/// Copies the turn records in the import's transaction.
pub(super) fn copy_turns(
    db: &Database,
    tx: &mut postgres::Transaction<'_>,
    turns: &[Turn],
    counts: &mut Counts,
) -> Result<()> {
    for batch in turns.chunks(BATCH) {
        let col = |f: fn(&Turn) -> &str| batch.iter().map(f).collect::<Vec<&str>>();
        let (runs, sessions, ts, digests, texts) = (
            col(|t| &t.run_id),
            col(|t| &t.session_id),
            col(|t| &t.ts),
            col(|t| &t.digest),
            col(|t| &t.text),
        );
        let n = tx
            .execute(
                "INSERT INTO turn_records (run_id, session_id, ts, digest, record)
                 SELECT run_id, session_id, ts, digest, record
                 FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[])
                     WITH ORDINALITY AS t(run_id, session_id, ts, digest, record, n)
                 ORDER BY n
                 ON CONFLICT (run_id, digest) DO NOTHING",
                &[&runs, &sessions, &ts, &digests, &texts],
            )
            .map_err(|e| db.error(e))?;
        // A row kept by the key is the same line (same run, same digest).
        counts.copied += n;
        counts.unchanged += batch.len() as u64 - n;
    }
    Ok(())
}

/// A short-term memory entry of the home: id, user, creation time, entry JSON.
pub(super) struct StmRow {
    id: String,
    user: String,
    created_unix: i64,
    entry: String,
}

/// Reads the `stm` rows of the home's `memory.db` (read-only), oldest first.
pub(super) fn read_stm(conn: Option<&rusqlite::Connection>) -> Result<Vec<StmRow>> {
    let Some(conn) = conn else {
        return Ok(Vec::new());
    };
    let has_table: bool = conn
        .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'stm'")?
        .exists([])?;
    if !has_table {
        return Ok(Vec::new());
    }
    let mut stmt = conn.prepare("SELECT id, user, created_unix, entry FROM stm ORDER BY seq")?;
    let rows = stmt
        .query_map([], |r| {
            Ok(StmRow {
                id: r.get(0)?,
                user: r.get(1)?,
                created_unix: r.get(2)?,
                entry: r.get(3)?,
            })
        })?
        .collect::<rusqlite::Result<_>>()?;
    Ok(rows)
}

/// Copies the STM entries in the import's transaction.
pub(super) fn copy_stm(
    db: &Database,
    tx: &mut postgres::Transaction<'_>,
    rows: &[StmRow],
    counts: &mut Counts,
) -> Result<()> {
    for batch in rows.chunks(BATCH) {
        let ids: Vec<&str> = batch.iter().map(|r| r.id.as_str()).collect();
        let users: Vec<&str> = batch.iter().map(|r| r.user.as_str()).collect();
        let created: Vec<i64> = batch.iter().map(|r| r.created_unix).collect();
        let entries: Vec<&str> = batch.iter().map(|r| r.entry.as_str()).collect();
        let inserted: std::collections::HashSet<String> = tx
            .query(
                "INSERT INTO stm (id, user_id, created_unix, entry)
                 SELECT id, user_id, created_unix, entry
                 FROM unnest($1::text[], $2::text[], $3::bigint[], $4::text[])
                     WITH ORDINALITY AS t(id, user_id, created_unix, entry, n)
                 ORDER BY n
                 ON CONFLICT (id) DO NOTHING RETURNING id",
                &[&ids, &users, &created, &entries],
            )
            .map_err(|e| db.error(e))?
            .iter()
            .map(|r| r.get(0))
            .collect();
        counts.copied += inserted.len() as u64;
        let kept: Vec<&str> = ids
            .iter()
            .copied()
            .filter(|id| !inserted.contains(*id))
            .collect();
        if kept.is_empty() {
            continue;
        }
        let held: std::collections::HashMap<String, String> = tx
            .query("SELECT id, entry FROM stm WHERE id = ANY($1)", &[&kept])
            .map_err(|e| db.error(e))?
            .iter()
            .map(|r| (r.get(0), r.get(1)))
            .collect();
        for r in batch.iter().filter(|r| !inserted.contains(&r.id)) {
            if held.get(&r.id).is_some_and(|h| same_json(h, &r.entry)) {
                counts.unchanged += 1;
            } else {
                counts.differing += 1;
            }
        }
    }
    Ok(())
}
