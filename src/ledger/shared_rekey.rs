//! `bob ledger rekey` on the shared store: a new key epoch for every chain of the database.
//!
//! This module promises:
//!
//! * **One transaction.** Under the approval ledger's lock and then the key epochs' lock
//!   (exclusive), the new key is recorded (sealed, [`crate::chain::pg::begin_epoch`]) and an
//!   epoch record, signed by the new key and naming the key it retires, is chained at the end of
//!   the approval ledger and of every audit chain that holds records. Either all of it commits
//!   or none of it.
//! * **Every node follows.** Appenders on every node check the epoch under their chain's lock
//!   and sign with its key from then on (a node holding the old key in memory picks up the new
//!   one at its next append); no record signed by the retired key lands after an epoch record.
//! * **The key files stay.** The nodes' key files (`keys.file`) are not changed: they keep
//!   signing each home's own logs and anchor statements, and are epoch 1's key.

use crate::chain::pg::{self as epochs, EpochMark};
use crate::chain::{self, Keyring};
use crate::db::Database;
use crate::error::{Error, Result};
use crate::home::Home;
use serde::Serialize;

/// Where a rotation wrote its epoch record.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ChainEpoch {
    /// The chain, as `bob ledger verify` names it.
    pub chain: String,
    /// The epoch record's `seq` in that chain.
    pub seq: u64,
}

/// What `bob ledger rekey` did on the shared store: also the payload of its `ledger.rekey`
/// audit event.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct SharedRekeyed {
    /// Always `postgres`: the database's chains were rekeyed, not the home's files.
    pub backend: &'static str,
    /// The new key epoch.
    pub epoch: u64,
    pub key_id: String,
    /// The key it retires (still used to verify the records before each epoch record).
    pub previous_key_id: String,
    /// Whether the key the chains began with was recorded as epoch 1 by this rotation.
    pub first_epoch_recorded: bool,
    /// The epoch record of every chain that held records.
    pub chains: Vec<ChainEpoch>,
}

impl crate::contracts::AuditPayload for SharedRekeyed {
    fn event_type(&self) -> &'static str {
        "ledger.rekey"
    }
}

/// Rotates the key of the database's chains (see the module docs), then records the act
/// under the new key. This node must hold the chain key in force (its key file before the
/// first rotation) or the secrets key that opens it.
pub fn rekey(home: &Home, db: &'static Database) -> Result<SharedRekeyed> {
    let keys = Keyring::load(home.root())?.ok_or_else(|| {
        Error::conflict(format!(
            "this node has no chain key ({}): point keys.file (BOB_KEY_FILE) at the key the \
             other nodes use before rotating it",
            chain::key_path(home.root()).display()
        ))
        .retryable(false)
    })?;
    let now = crate::clock::rfc3339(crate::clock::now()?);
    let done = db.transaction(|tx| {
        // The ledger's lock first: a memory decision holding it may wait for its audit row.
        tx.execute(
            "SELECT pg_advisory_xact_lock($1)",
            &[&crate::memory::pg::LEDGER_LOCK],
        )
        .map_err(|e| db.error(e))?;
        let begun = epochs::begin_epoch(db, tx, &keys, &now)?;
        refuse_foreign_heads(db, tx, &begun.previous_key_id)?;
        let mark = EpochMark::of(&begun);
        let mut chains = Vec::new();
        let ledger_rows = tx
            .query_one("SELECT EXISTS (SELECT 1 FROM memory_ledger)", &[])
            .map_err(|e| db.error(e))?
            .get::<_, bool>(0);
        if ledger_rows {
            let seq = crate::memory::pg::append_ledger(
                db,
                tx,
                &begun.keys,
                epochs::ledger_record(&mark, &now),
            )?;
            chains.push(ChainEpoch {
                chain: crate::memory::pg::LEDGER_NAME.to_string(),
                seq,
            });
        }
        let audit_chains: Vec<String> = tx
            .query(
                "SELECT DISTINCT chain FROM audit_events ORDER BY chain",
                &[],
            )
            .map_err(|e| db.error(e))?
            .iter()
            .map(|r| r.get(0))
            .collect();
        for agent in audit_chains {
            let written = crate::audit::pg::append_locked(
                db,
                tx,
                &begun.keys,
                &agent,
                vec![epochs::audit_record(&mark, &agent, &now)],
            )?;
            let seq = written
                .first()
                .and_then(|r| r.get("seq"))
                .and_then(serde_json::Value::as_u64)
                .unwrap_or_default();
            chains.push(ChainEpoch {
                chain: crate::audit::pg::chain_name(&agent).display().to_string(),
                seq,
            });
        }
        Ok(SharedRekeyed {
            backend: "postgres",
            epoch: begun.epoch,
            key_id: begun.keys.key_id().to_string(),
            previous_key_id: begun.previous_key_id,
            first_epoch_recorded: begun.first_recorded,
            chains,
        })
    })?;
    crate::audit::human_act(home, &done)?;
    Ok(done)
}

/// Refuses (`conflict`, nothing written) a rotation when a chain's last record is not under the
/// key in force: its epoch record would vouch for records no epoch's key signed.
fn refuse_foreign_heads(
    db: &Database,
    tx: &mut postgres::Transaction<'_>,
    in_force: &str,
) -> Result<()> {
    let mut heads: Vec<(String, String)> = Vec::new();
    if let Some(r) = tx
        .query_opt(
            "SELECT record FROM memory_ledger ORDER BY seq DESC LIMIT 1",
            &[],
        )
        .map_err(|e| db.error(e))?
    {
        heads.push((crate::memory::pg::LEDGER_NAME.to_string(), r.get(0)));
    }
    for r in tx
        .query(
            "SELECT DISTINCT ON (chain) chain, record FROM audit_events ORDER BY chain, seq DESC",
            &[],
        )
        .map_err(|e| db.error(e))?
    {
        let chain: String = r.get(0);
        heads.push((
            crate::audit::pg::chain_name(&chain).display().to_string(),
            r.get(1),
        ));
    }
    for (name, record) in heads {
        let v: serde_json::Value = serde_json::from_str(&record).unwrap_or_default();
        let key_id = v.get(chain::RECORD_KEY_FIELD).and_then(|k| k.as_str());
        if key_id != Some(in_force) {
            return Err(Error::conflict(format!(
                "{name} ends with a record under key {}, not the key in force {in_force}: \
                 rotating would vouch for records no key epoch signed; run `bob ledger verify \
                 --all` and settle that chain first",
                key_id.unwrap_or("(none)")
            ))
            .with("chain", name)
            .retryable(false));
        }
    }
    Ok(())
}
