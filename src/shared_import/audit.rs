//! The audit events of a home, for `bob db import`: each audit day file of the home
//! (`audit/<agent_id>/<day>.jsonl`) becomes one chain of the shared store's `audit_events`,
//! named `<agent_id>/<day>` (the live chains are named by the agent alone), its records copied
//! verbatim (same `seq`, `prev`, `hash`), so each still verifies as it did in the home.
//!
//! Every record must be keyed with this node's chain key and sit at its position (a whole,
//! keyed log: `bob ledger verify` passes on that home), else `conflict` and nothing is
//! written. A record already in the database at its place is `unchanged` when it is the same;
//! another record there is `conflict` (a chain never holds two versions).

use super::{Counts, same_json};
use crate::db::Database;
use crate::error::{Error, Result};
use crate::home::Home;
use serde_json::Value;

/// One day file's records, as JSON texts in line order.
pub(super) struct DayFile {
    chain: String,
    records: Vec<(String, String, String)>,
}

/// Reads every audit day file of `from`, checking each record's key and place.
pub(super) fn read(from: &Home, key_id: Option<&str>) -> Result<Vec<DayFile>> {
    let root = from.root().join("audit");
    let mut files = Vec::new();
    let Ok(agents) = std::fs::read_dir(&root) else {
        return Ok(files);
    };
    let mut paths: Vec<(String, std::path::PathBuf)> = Vec::new();
    for agent in agents.flatten() {
        let Some(name) = agent.file_name().to_str().map(str::to_string) else {
            continue;
        };
        let Ok(days) = std::fs::read_dir(agent.path()) else {
            continue;
        };
        for day in days.flatten() {
            let p = day.path();
            if p.extension().is_some_and(|x| x == "jsonl")
                && let Some(stem) = p.file_stem().and_then(|s| s.to_str())
            {
                paths.push((format!("{name}/{stem}"), p.clone()));
            }
        }
    }
    paths.sort();
    for (chain, path) in paths {
        let log = crate::store::read_jsonl(&path)?;
        if let Some(b) = log.bad.first() {
            return Err(Error::conflict(format!(
                "{} line {} is {} ({}): run `bob ledger verify` on that home first",
                path.display(),
                b.line,
                b.kind,
                b.reason
            ))
            .retryable(false));
        }
        let mut records = Vec::with_capacity(log.records.len());
        for (i, (line, r)) in log.records.into_iter().enumerate() {
            let rid = r
                .get(crate::chain::RECORD_KEY_FIELD)
                .and_then(Value::as_str);
            if rid.is_none() || rid != key_id || r["seq"].as_u64() != Some(i as u64) {
                return Err(Error::conflict(format!(
                    "{} line {line} is not a record keyed with this node's chain key ({}) at \
                     its place: point keys.file (BOB_KEY_FILE) at the key that home used, and \
                     run `bob ledger verify` there",
                    path.display(),
                    key_id.unwrap_or("none")
                ))
                .retryable(false));
            }
            let text = |k: &str| r[k].as_str().unwrap_or_default().to_string();
            let (run_id, event_type) = (text("run_id"), text("event_type"));
            let json = serde_json::to_string(&r).map_err(|e| Error::internal(e.to_string()))?;
            records.push((run_id, event_type, json));
        }
        files.push(DayFile { chain, records });
    }
    Ok(files)
}

/// Copies `files` in the import's transaction, counting into `counts`; returns the chains it
/// copied records into.
pub(super) fn copy(
    db: &Database,
    tx: &mut postgres::Transaction<'_>,
    files: &[DayFile],
    counts: &mut Counts,
) -> Result<Vec<String>> {
    let mut extended = Vec::new();
    for f in files {
        let before = counts.copied;
        for (seq, (run_id, event_type, record)) in f.records.iter().enumerate() {
            let seq = seq as i64;
            let n = tx
                .execute(
                    "INSERT INTO audit_events (chain, seq, run_id, event_type, record)
                     VALUES ($1, $2, $3, $4, $5) ON CONFLICT (chain, seq) DO NOTHING",
                    &[&f.chain, &seq, run_id, event_type, record],
                )
                .map_err(|e| db.error(e))?;
            if n == 1 {
                counts.copied += 1;
                continue;
            }
            let held: String = tx
                .query_one(
                    "SELECT record FROM audit_events WHERE chain = $1 AND seq = $2",
                    &[&f.chain, &seq],
                )
                .map_err(|e| db.error(e))?
                .get(0);
            if !same_json(&held, record) {
                return Err(Error::conflict(format!(
                    "the database's audit chain {} holds another record at seq {seq} than \
                     this home's day file: nothing was imported",
                    f.chain
                ))
                .retryable(false));
            }
            counts.unchanged += 1;
        }
        if counts.copied > before {
            extended.push(f.chain.clone());
        }
    }
    Ok(extended)
}
