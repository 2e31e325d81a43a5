//! The audit events in the shared database, for a home whose `database.url` is set (the
//! `audit_events` table): the same records the home's `audit/<agent_id>/` files hold, one row
//! each, so any node reads any run's events.
//!
//! This module promises:
//!
//! * **One keyed chain per agent.** The rows of one agent (`chain`) are chained exactly as the
//!   lines of an audit day file ([`crate::chain::link`]: `key_id`, `seq`, `prev`, and the HMAC
//!   under the chain key), appended in one transaction under a transaction-scoped advisory
//!   lock of that chain, so `seq` has no gaps or forks whatever the nodes writing at once. A
//!   batch is written whole or not at all. Every node of one database must use the same chain
//!   key (`keys.file`); the key never enters the database.
//! * **Append-only.** A trigger refuses UPDATE, DELETE and TRUNCATE; an edit made anyway (as
//!   the table's owner, with the trigger disabled) is found by [`verify`], which checks every
//!   chain (`postgres:audit_events/<agent_id>`).
//! * **Its own connection.** The rows are written on [`crate::db::audit_connection`], not on
//!   the connection the other stores use: an act is recorded while the store carrying it out
//!   may hold its transaction open, and its audit row commits before that change does.
//! * **Reading one run.** [`run_events`] returns a run's events in chain order, from any node.
//!
//! Redaction happens before anything reaches here ([`super::Audit`] redacts every payload
//! before it is chained).

use crate::chain::{self, ChainReport, Keyring};
use crate::db::Database;
use crate::error::{Error, Result};
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

/// Where the audit chains live, as `bob ledger verify` names them (`…/<agent_id>`).
pub const NAME: &str = "postgres:audit_events";

/// The seed of the advisory lock of a chain (`hashtextextended(agent_id, SEED)`): other locks
/// hash their keys with other seeds.
const LOCK_SEED: i64 = 0x0061_7564;

/// How the audit log of `agent_id` is named in the shared store (what `Audit::path` gives).
pub fn chain_name(agent_id: &str) -> PathBuf {
    PathBuf::from(format!("{NAME}/{agent_id}"))
}

fn text<T: serde::Serialize>(v: &T) -> Result<String> {
    serde_json::to_string(v).map_err(|e| Error::internal(e.to_string()))
}

/// Appends `records` to the chain of `agent_id` in one transaction; returns them as written
/// (with `key_id`, `seq`, `prev`, `hash`). Refuses (`conflict`) a chain whose last row carries
/// no hash (it was tampered with).
pub fn append(
    db: &Database,
    keys: &Keyring,
    agent_id: &str,
    records: Vec<Map<String, Value>>,
) -> Result<Vec<Map<String, Value>>> {
    if records.is_empty() {
        return Ok(records);
    }
    db.transaction(|tx| {
        tx.execute(
            "SELECT pg_advisory_xact_lock(hashtextextended($1, $2))",
            &[&agent_id, &LOCK_SEED],
        )
        .map_err(|e| db.error(e))?;
        append_locked(db, tx, keys, agent_id, records)
    })
}

/// [`append`] in `tx`, whose caller holds the chain's lock, or the key epochs' lock
/// exclusively (a rotation writing its epoch record: every appender waits for that lock
/// before it reads its chain's tail). Signs with the newest epoch's key.
pub fn append_locked(
    db: &Database,
    tx: &mut postgres::Transaction<'_>,
    keys: &Keyring,
    agent_id: &str,
    records: Vec<Map<String, Value>>,
) -> Result<Vec<Map<String, Value>>> {
    let keys = &chain::pg::signing_key(db, tx, keys)?;
    let last = tx
        .query_opt(
            "SELECT seq, record FROM audit_events WHERE chain = $1 ORDER BY seq DESC LIMIT 1",
            &[&agent_id],
        )
        .map_err(|e| db.error(e))?;
    let (mut seq, mut prev) = match last {
        None => (0u64, chain::GENESIS.to_string()),
        Some(r) => {
            let last: Value = serde_json::from_str(r.get(1)).unwrap_or_default();
            let Some(hash) = last.get("hash").and_then(Value::as_str) else {
                return Err(Error::conflict(format!(
                    "the shared audit log of {agent_id}: its last record carries no hash \
                     (it was tampered with); run `bob ledger verify`"
                ))
                .retryable(false));
            };
            (r.get::<_, i64>(0) as u64 + 1, hash.to_string())
        }
    };
    let mut written = Vec::with_capacity(records.len());
    for record in records {
        let linked = chain::link(keys, seq, &prev, record)?;
        let run_id = linked.get("run_id").and_then(Value::as_str).unwrap_or("");
        let event_type = linked
            .get("event_type")
            .and_then(Value::as_str)
            .unwrap_or("");
        tx.execute(
            "INSERT INTO audit_events (chain, seq, run_id, event_type, record)
             VALUES ($1, $2, $3, $4, $5)",
            &[
                &agent_id,
                &(seq as i64),
                &run_id,
                &event_type,
                &text(&linked)?,
            ],
        )
        .map_err(|e| db.error(e))?;
        prev = linked
            .get("hash")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        seq += 1;
        written.push(linked);
    }
    Ok(written)
}

/// The events of run `run_id` of agent `agent_id` past chain position `after` (all when
/// `None`), in chain order (from the agent's chain, or from a day file `bob db import` copied
/// as the chain `<agent_id>/<day>`). A row that does not parse is left out (verify names it).
pub fn run_events(
    db: &Database,
    agent_id: &str,
    run_id: &str,
    after: Option<u64>,
) -> Result<Vec<Value>> {
    let after = after.map_or(-1, |s| s as i64);
    let rows = db.with(|c| {
        c.query(
            "SELECT record FROM audit_events
              WHERE run_id = $1 AND (chain = $2 OR starts_with(chain, $2 || '/')) AND seq > $3
              ORDER BY chain, seq",
            &[&run_id, &agent_id, &after],
        )
    })?;
    Ok(rows
        .iter()
        .filter_map(|r| serde_json::from_str(r.get::<_, &str>(0)).ok())
        .collect())
}

/// Verifies every audit chain in the database with this node's chain key (see
/// [`crate::chain::verify_records`]), one report per agent, named
/// `postgres:audit_events/<agent_id>`. A database without audit events gives none.
pub fn verify(db: &Database, home_root: &Path) -> Result<Vec<ChainReport>> {
    let chains = db.with(|c| {
        c.query(
            "SELECT DISTINCT chain FROM audit_events ORDER BY chain",
            &[],
        )
    })?;
    let chains: Vec<String> = chains.iter().map(|r| r.get(0)).collect();
    if chains.is_empty() {
        return Ok(Vec::new());
    }
    let Some(keys) = Keyring::load(home_root)? else {
        return Err(Error::conflict(format!(
            "the shared audit log holds {} chain(s) but this node has no chain key: point \
             keys.file (BOB_KEY_FILE) at the key the other nodes use",
            chains.len()
        ))
        .retryable(false));
    };
    let keys = chain::pg::ChainKeys::load(db, &keys)?;
    let mut reports = Vec::with_capacity(chains.len());
    for agent in chains {
        let rows = db.with(|c| {
            c.query(
                "SELECT record FROM audit_events WHERE chain = $1 ORDER BY seq",
                &[&agent],
            )
        })?;
        let records: Vec<String> = rows.iter().map(|r| r.get::<_, String>(0)).collect();
        let name = chain_name(&agent);
        reports.push(keys.verify(&name.display().to_string(), &records));
    }
    Ok(reports)
}
