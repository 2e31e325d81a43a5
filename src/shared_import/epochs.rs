//! A home's chains joining the shared store after a rotation of its key (`bob ledger rekey` on
//! the database): the records copied from the home are signed with the home's key, which the
//! rotation retired for the database's chains (it is epoch 1's key), so each copied chain is
//! brought to the key in force the way the rotation brought every chain then: an epoch record
//! per later epoch, signed by the key it brings in, chained at its end. `bob ledger verify
//! --all` then checks the copied records under the retired key (counted as
//! `retired_key_records`) and the chain ending under the key in force, as for a chain the
//! rotation found in the database.
//!
//! Runs in the import's transaction under the same locks as an appender: the chain's (the
//! ledger's advisory lock; an imported audit day file is a chain no appender writes) and then
//! the key epochs' lock shared ([`crate::chain::pg::catch_up`]), so a rotation waits for the
//! import and then finds the copied chains, or the import waits for it and sees its epoch.

use crate::chain::{self, Keyring};
use crate::db::Database;
use crate::error::{Error, Result};
use serde_json::Value;

/// The last record's `seq`, `hash` and key of a chain (`None`: empty).
fn tail_of(record: Option<(i64, String)>) -> Result<Option<(u64, String, String)>> {
    let Some((seq, text)) = record else {
        return Ok(None);
    };
    let v: Value = serde_json::from_str(&text).unwrap_or_default();
    let field = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
    match (field("hash"), field(chain::RECORD_KEY_FIELD)) {
        (Some(hash), Some(key_id)) => Ok(Some((seq as u64, hash, key_id))),
        _ => Err(Error::conflict(
            "a copied chain's last record carries no hash or key: run `bob ledger verify` on \
             the home",
        )
        .retryable(false)),
    }
}

/// Chains the epoch records the approval ledger lacks (see the module docs); returns how many.
/// The caller holds the ledger's lock in `tx`.
pub(super) fn catch_up_ledger(
    db: &Database,
    tx: &mut postgres::Transaction<'_>,
    node: &Keyring,
    now: &str,
) -> Result<u64> {
    catch_up_chain(
        db,
        tx,
        node,
        (
            "SELECT seq, record FROM memory_ledger ORDER BY seq DESC LIMIT 1",
            &[],
        ),
        |mark| chain::pg::ledger_record(mark, now),
        |tx, seq, record| {
            tx.execute(
                "INSERT INTO memory_ledger (seq, record) VALUES ($1, $2)",
                &[&seq, &record],
            )
        },
    )
}

/// Chains the epoch records the audit chain `name` (a copied day file) lacks; returns how many.
pub(super) fn catch_up_audit(
    db: &Database,
    tx: &mut postgres::Transaction<'_>,
    node: &Keyring,
    name: &str,
    now: &str,
) -> Result<u64> {
    catch_up_chain(
        db,
        tx,
        node,
        (
            "SELECT seq, record FROM audit_events WHERE chain = $1 ORDER BY seq DESC LIMIT 1",
            &[&name],
        ),
        |mark| chain::pg::audit_record(mark, name, now),
        |tx, seq, record| {
            tx.execute(
                "INSERT INTO audit_events (chain, seq, run_id, event_type, record)
                 VALUES ($1, $2, '', $3, $4)",
                &[&name, &seq, &chain::pg::EPOCH_EVENT, &record],
            )
        },
    )
}

/// One chain's catch-up: its last record (`tail`: the statement and its parameters), then one
/// epoch record per later epoch (`record` makes it), linked and signed by that epoch's key and
/// written by `insert` (at `seq`, as JSON text).
fn catch_up_chain(
    db: &Database,
    tx: &mut postgres::Transaction<'_>,
    node: &Keyring,
    tail: (&str, &[&(dyn postgres::types::ToSql + Sync)]),
    record: impl Fn(&chain::pg::EpochMark) -> serde_json::Map<String, Value>,
    insert: impl Fn(
        &mut postgres::Transaction<'_>,
        i64,
        &str,
    ) -> std::result::Result<u64, postgres::Error>,
) -> Result<u64> {
    let last = tx
        .query_opt(tail.0, tail.1)
        .map_err(|e| db.error(e))?
        .map(|r| (r.get(0), r.get(1)));
    let Some((mut seq, mut prev, key_id)) = tail_of(last)? else {
        return Ok(0);
    };
    let mut written = 0;
    for (mark, keys) in chain::pg::catch_up(db, tx, node, &key_id)? {
        seq += 1;
        let linked = chain::link(&keys, seq, &prev, record(&mark))?;
        insert(tx, seq as i64, &text(&linked)?).map_err(|e| db.error(e))?;
        prev = hash_of(&linked);
        written += 1;
    }
    Ok(written)
}

fn text(v: &serde_json::Map<String, Value>) -> Result<String> {
    serde_json::to_string(v).map_err(|e| Error::internal(e.to_string()))
}

fn hash_of(v: &serde_json::Map<String, Value>) -> String {
    v.get("hash")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}
