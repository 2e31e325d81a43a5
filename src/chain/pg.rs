//! The key epochs of the shared store's chains (the table `chain_keys`): which key signs the
//! database's chains now, the keys of earlier epochs, and how a rotation begins.
//!
//! This module promises:
//!
//! * **Keys every node can read.** Each epoch's chain key is a row, sealed with the secrets key
//!   every node of one database shares (XChaCha20-Poly1305, the key's id bound as associated
//!   data), never in the clear. Epoch 1 is the key the chains began with (the nodes' key
//!   file); each `bob ledger rekey` adds the next. A row whose sealed key is not the key its
//!   `key_id` names is refused as tampered.
//! * **No retired key signs after a rotation.** An appender calls [`signing_key`] under its
//!   chain's lock, before it reads the chain's tail: that takes the epoch lock shared and reads
//!   the newest epoch, whose key it then signs with (its own key when that is the newest, else
//!   the sealed one, opened with its secrets key: a long-running node picks up a rotation at its
//!   next append). A node that cannot open the newest key is refused (`conflict`); it never
//!   falls back to its own. [`begin_epoch`] takes the epoch lock exclusively, so every append
//!   lands wholly before the rotation (old key) or wholly after it (new key).
//! * **Copied chains join the epoch in force.** A chain copied in after a rotation (`bob db
//!   import`, records signed with epoch 1's key) gets from [`catch_up`] the epoch records it
//!   lacks, each signed by the key it brings in, under the epoch lock shared.
//! * **Verified across epochs.** [`ChainKeys::verify`] checks a chain record by record: every
//!   record under the key in force, the key changing only at an epoch record (signed by the new
//!   key, naming the epoch before it), and the chain not ending under a retired key.
//!
//! Lock order (so no rotation can wait in a circle with an appender): an appender takes its
//! chain's lock, then the epoch lock shared; a rotation takes the approval ledger's lock (its
//! transaction may wait for an audit append while holding it), then the epoch lock exclusively,
//! and no chain lock after that (every appender of every chain waits for the epoch lock before
//! it reads its chain's tail, so the rotation can write at any chain's end).

use super::keyring::Keyring;
use crate::db::Database;
use crate::error::{Error, Result};
use crate::home::Home;
use crate::sealed::{self, Sealer};
use serde::Serialize;
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Mutex;

/// The advisory lock of the key epochs (taken shared by appenders, exclusively by a rotation).
pub const EPOCH_LOCK: i64 = 0x0062_6f62_6b65_7973;

/// The field of an epoch record: `{epoch, key_id, previous_key_id}`.
pub const EPOCH_FIELD: &str = "key_epoch";

/// The `event_type` (and the ledger's `kind`) of an epoch record.
pub const EPOCH_EVENT: &str = "ledger.key_epoch";

/// The keys this process opened from the database, by key id (opened once per process).
static OPENED: Mutex<BTreeMap<String, [u8; 32]>> = Mutex::new(BTreeMap::new());

/// One row of `chain_keys`.
struct EpochRow {
    epoch: u64,
    key_id: String,
    nonce: Vec<u8>,
    sealed: Vec<u8>,
}

const COLUMNS: &str = "epoch, key_id, nonce, sealed_key";

fn row_of(r: &postgres::Row) -> EpochRow {
    EpochRow {
        epoch: r.get::<_, i64>(0) as u64,
        key_id: r.get(1),
        nonce: r.get(2),
        sealed: r.get(3),
    }
}

/// The associated data a chain key is sealed with.
fn sealed_name(key_id: &str) -> String {
    format!("chain-key:{key_id}")
}

fn no_secrets_key(home: &Home) -> Error {
    Error::conflict(format!(
        "the shared chains' keys are sealed with the secrets key every node of the database \
         shares, and this node has none ({}): install the cluster's keys with `bob keys import`",
        sealed::key_path(home).display()
    ))
    .retryable(false)
}

/// Opens the key of `row` with this node's secrets key (cached per process).
fn open_epoch(root: &Path, row: &EpochRow) -> Result<Keyring> {
    if let Some(k) = OPENED
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(&row.key_id)
    {
        return Ok(Keyring::from_bytes(root, *k));
    }
    let home = Home::at(root);
    let key = sealed::load_key(&home)?.ok_or_else(|| no_secrets_key(&home))?;
    let text = Sealer::new(&key)
        .open(&sealed_name(&row.key_id), &row.nonce, &row.sealed)
        .map_err(|_| {
            Error::conflict(format!(
                "the chain key of key epoch {} ({}) does not open with this node's secrets key \
                 ({}): every node of one database must share the secrets key (bob keys export / \
                 bob keys import), or the row was tampered with",
                row.epoch,
                row.key_id,
                sealed::key_path(&home).display()
            ))
            .retryable(false)
        })?;
    let bytes: Option<[u8; 32]> = hex::decode(text.trim())
        .ok()
        .and_then(|b| b.try_into().ok());
    let keys = bytes.map(|b| Keyring::from_bytes(root, b));
    match keys {
        Some(k) if k.key_id == row.key_id => {
            remember(&k);
            Ok(k)
        }
        _ => Err(Error::conflict(format!(
            "the sealed key of key epoch {} is not the key {} its row names (chain_keys was \
             tampered with)",
            row.epoch, row.key_id
        ))
        .retryable(false)),
    }
}

fn remember(keys: &Keyring) {
    OPENED
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(keys.key_id.clone(), keys.key);
}

/// The key the shared chains are signed with now, for an appender that holds its chain's lock
/// in `tx` and has not read the chain's tail yet (see the module docs): `keys` (this node's
/// chain key) while no rotation has happened or when it is the newest epoch's key, else the
/// newest epoch's key opened from the database. Refused (`conflict`) when this node cannot
/// open it: nothing is ever signed with a retired key.
pub fn signing_key(
    db: &Database,
    tx: &mut postgres::Transaction<'_>,
    keys: &Keyring,
) -> Result<Keyring> {
    tx.execute("SELECT pg_advisory_xact_lock_shared($1)", &[&EPOCH_LOCK])
        .map_err(|e| db.error(e))?;
    let newest = tx
        .query_opt(
            &format!("SELECT {COLUMNS} FROM chain_keys ORDER BY epoch DESC LIMIT 1"),
            &[],
        )
        .map_err(|e| db.error(e))?;
    match newest.as_ref().map(row_of) {
        None => Ok(keys.clone()),
        Some(row) if row.key_id == keys.key_id => Ok(keys.clone()),
        Some(row) => open_epoch(&keys.root, &row),
    }
}

/// The epoch records a chain whose last record is signed under `key_id` lacks to end under the
/// newest epoch's key, in order: for each later epoch, its mark and its key (each epoch record
/// is signed by the key it brings in). Empty when no rotation happened or the chain already
/// ends under the newest key. Takes the epoch lock shared in `tx` (as an appender does), so no
/// rotation lands before `tx` ends. `conflict` when `key_id` is no key epoch of the database
/// (its records could never verify) or this node cannot open a later epoch's key.
pub fn catch_up(
    db: &Database,
    tx: &mut postgres::Transaction<'_>,
    node: &Keyring,
    key_id: &str,
) -> Result<Vec<(EpochMark, Keyring)>> {
    tx.execute("SELECT pg_advisory_xact_lock_shared($1)", &[&EPOCH_LOCK])
        .map_err(|e| db.error(e))?;
    let epochs: Vec<EpochRow> = tx
        .query(
            &format!("SELECT {COLUMNS} FROM chain_keys ORDER BY epoch"),
            &[],
        )
        .map_err(|e| db.error(e))?
        .iter()
        .map(row_of)
        .collect();
    if epochs.is_empty() {
        return Ok(Vec::new());
    }
    let Some(at) = epochs.iter().position(|e| e.key_id == key_id) else {
        return Err(Error::conflict(format!(
            "records signed under key {key_id} cannot join the shared store's chains: that key \
             is none of its key epochs ({}), so they would never verify",
            epochs
                .iter()
                .map(|e| format!("{}: {}", e.epoch, e.key_id))
                .collect::<Vec<_>>()
                .join(", ")
        ))
        .retryable(false));
    };
    epochs
        .windows(2)
        .skip(at)
        .map(|pair| {
            let keys = open_epoch(&node.root, &pair[1])?;
            let mark = EpochMark {
                epoch: pair[1].epoch,
                key_id: pair[1].key_id.clone(),
                previous_key_id: pair[0].key_id.clone(),
            };
            Ok((mark, keys))
        })
        .collect()
}

/// What a rotation of the shared chains' key began (see [`begin_epoch`]).
pub struct Begun {
    pub epoch: u64,
    /// The new key (already in this process's cache, so [`signing_key`] gives it).
    pub keys: Keyring,
    pub previous_key_id: String,
    /// Whether the key the chains began with was recorded as epoch 1 by this rotation.
    pub first_recorded: bool,
}

/// Begins a new key epoch in `tx`: takes the epoch lock exclusively (the caller took the
/// approval ledger's lock first), records the key in force as epoch 1 when no rotation
/// happened yet (this node's chain key, `keys`), then a new random key as the next epoch,
/// sealed with this node's secrets key. The caller writes the epoch record at the end of every
/// chain (under this lock) before it commits.
pub fn begin_epoch(
    db: &Database,
    tx: &mut postgres::Transaction<'_>,
    keys: &Keyring,
    now: &str,
) -> Result<Begun> {
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&EPOCH_LOCK])
        .map_err(|e| db.error(e))?;
    let newest = tx
        .query_opt(
            &format!("SELECT {COLUMNS} FROM chain_keys ORDER BY epoch DESC LIMIT 1"),
            &[],
        )
        .map_err(|e| db.error(e))?
        .as_ref()
        .map(row_of);
    let home = Home::at(&keys.root);
    let secrets_key = match sealed::load_key(&home)? {
        Some(k) => k,
        None => {
            let any_secret = tx
                .query_one("SELECT EXISTS (SELECT 1 FROM secrets)", &[])
                .map_err(|e| db.error(e))?
                .get::<_, bool>(0);
            if newest.is_some() || any_secret {
                return Err(no_secrets_key(&home));
            }
            sealed::ensure_key(&home)?
        }
    };
    let sealer = Sealer::new(&secrets_key);
    let insert = |tx: &mut postgres::Transaction<'_>,
                  epoch: u64,
                  k: &Keyring,
                  previous: Option<&str>|
     -> Result<()> {
        let (nonce, ct) = sealer.seal(&sealed_name(&k.key_id), &hex::encode(k.key))?;
        tx.execute(
            "INSERT INTO chain_keys (epoch, key_id, nonce, sealed_key, previous_key_id, created_at)
             VALUES ($1, $2, $3, $4, $5, $6)",
            &[&(epoch as i64), &k.key_id, &nonce, &ct, &previous, &now],
        )
        .map_err(|e| db.error(e))?;
        Ok(())
    };
    let (current, epoch, first_recorded) = match &newest {
        Some(row) => (open_epoch(&keys.root, row)?, row.epoch, false),
        None => {
            insert(tx, 1, keys, None)?;
            (keys.clone(), 1, true)
        }
    };
    let mut fresh = [0u8; 32];
    rand::RngCore::fill_bytes(&mut rand::rngs::OsRng, &mut fresh);
    let next = Keyring::from_bytes(&keys.root, fresh);
    insert(tx, epoch + 1, &next, Some(&current.key_id))?;
    remember(&current);
    remember(&next);
    Ok(Begun {
        epoch: epoch + 1,
        keys: next,
        previous_key_id: current.key_id,
        first_recorded,
    })
}

/// The fields of the epoch record [`begin_epoch`]'s caller writes at a chain's end (the chain
/// adds `key_id`, `seq`, `prev` and `hash`, under the new key).
#[derive(Debug, Clone, Serialize)]
pub struct EpochMark {
    pub epoch: u64,
    pub key_id: String,
    pub previous_key_id: String,
}

impl EpochMark {
    pub fn of(begun: &Begun) -> EpochMark {
        EpochMark {
            epoch: begun.epoch,
            key_id: begun.keys.key_id.clone(),
            previous_key_id: begun.previous_key_id.clone(),
        }
    }

    /// The mark as the value of [`EPOCH_FIELD`].
    pub fn value(&self) -> Value {
        serde_json::to_value(self).unwrap_or_default()
    }
}

/// One epoch as a verifier knows it: its key, or why this node cannot open it.
struct KnownEpoch {
    epoch: u64,
    key_id: String,
    keys: std::result::Result<Keyring, String>,
}

/// Every key of the shared chains, for verifying them on this node (see the module docs).
pub struct ChainKeys {
    node: Keyring,
    epochs: Vec<KnownEpoch>,
}

impl ChainKeys {
    /// Reads every epoch of the database (none: the chains are checked with `node`, this
    /// node's chain key, as before any rotation). A key this node cannot open fails the
    /// records that need it, with the reason.
    pub fn load(db: &Database, node: &Keyring) -> Result<ChainKeys> {
        let rows = db.with(|c| {
            c.query(
                &format!("SELECT {COLUMNS} FROM chain_keys ORDER BY epoch"),
                &[],
            )
        })?;
        let epochs = rows
            .iter()
            .map(row_of)
            .map(|row| KnownEpoch {
                epoch: row.epoch,
                keys: open_epoch(&node.root, &row).map_err(|e| e.message.clone()),
                key_id: row.key_id,
            })
            .collect();
        Ok(ChainKeys {
            node: node.clone(),
            epochs,
        })
    }

    /// Verifies the chain `name` (its records' texts in `seq` order), across key epochs.
    pub fn verify(&self, name: &str, records: &[String]) -> super::ChainReport {
        if self.epochs.is_empty() {
            return super::verify_records(&self.node, name, records);
        }
        let epochs = &self.epochs;
        let last = epochs.len() - 1;
        let position = |key_id: &str| epochs.iter().position(|e| e.key_id == key_id);
        // The epoch in force, and the record (0-based) where it began.
        let mut in_force: Option<(usize, usize)> = None;
        let mut report = super::verify::walk_records(name, records, |i, key_id, rec| {
            let mark = rec.get(EPOCH_FIELD);
            let (idx, what) = match (mark, in_force) {
                (Some(mark), force) => {
                    let n = mark.get("epoch").and_then(Value::as_u64);
                    let what = format!("the key epoch {} record", n.unwrap_or_default());
                    let Some(idx) = epochs.iter().position(|e| Some(e.epoch) == n) else {
                        return Err(format!(
                            "record {i} is a key epoch record of epoch {n:?}, which the \
                             database's key epochs (chain_keys) do not hold: tampered"
                        ));
                    };
                    let e = &epochs[idx];
                    let named = mark.get("key_id").and_then(Value::as_str);
                    if key_id != e.key_id || named != Some(e.key_id.as_str()) {
                        return Err(format!(
                            "record {i} ({what}) is signed under key {key_id} and names key \
                             {named:?}, but epoch {} is key {}: tampered",
                            e.epoch, e.key_id
                        ));
                    }
                    let before = mark.get("previous_key_id").and_then(Value::as_str);
                    match force {
                        Some((f, _)) if f + 1 == idx && before == Some(&epochs[f].key_id) => {}
                        Some((f, from)) => {
                            return Err(format!(
                                "record {i} ({what}) does not follow the key in force (key {} \
                                 of epoch {} since record {from}): epochs are skipped or \
                                 reordered, or the record was moved",
                                epochs[f].key_id, epochs[f].epoch
                            ));
                        }
                        None => {
                            return Err(format!(
                                "record {i} ({what}) begins the chain: a key epoch record \
                                 follows the records of the key it retires"
                            ));
                        }
                    }
                    in_force = Some((idx, i));
                    (idx, Some(what))
                }
                (None, None) => {
                    let Some(idx) = position(key_id) else {
                        return Err(format!(
                            "record {i} was written under key {key_id:?}, which is no key \
                             epoch of the shared store (chain_keys): written with another key"
                        ));
                    };
                    in_force = Some((idx, i));
                    (idx, None)
                }
                (None, Some((f, from))) => {
                    if epochs[f].key_id != key_id {
                        return Err(match position(key_id) {
                            Some(g) if g < f => format!(
                                "record {i} was signed with key {key_id}, retired at key epoch \
                                 {} (record {from}): no record signed with a retired key may \
                                 follow the rotation",
                                epochs[g + 1].epoch
                            ),
                            _ => format!(
                                "record {i} was written under key {key_id:?}, but the chain is \
                                 under key {} since record {from}: a chain changes key only at a \
                                 key epoch record",
                                epochs[f].key_id
                            ),
                        });
                    }
                    (f, None)
                }
            };
            let e = &epochs[idx];
            let keys = e
                .keys
                .clone()
                .map_err(|why| format!("record {i} needs key {}: {why}", e.key_id))?;
            Ok(super::verify::RecordKey {
                keys,
                epoch: Some(e.epoch),
                checked: if idx == last { "key" } else { "retired_key" },
                what,
            })
        });
        if report.ok
            && let Some((f, from)) = in_force
            && f != last
        {
            report.fail(
                records.len(),
                format!(
                    "the chain ends under key {} (in force since record {from}), retired at key \
                     epoch {}, without that epoch's record: the epoch record was removed, or \
                     the chain was written with the retired key after the rotation",
                    epochs[f].key_id,
                    epochs[f + 1].epoch
                ),
            );
        }
        report
    }
}

/// The fields of an epoch record in the approval ledger.
pub fn ledger_record(mark: &EpochMark, now: &str) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("kind".into(), Value::from("key_epoch"));
    m.insert("ts".into(), Value::from(now));
    m.insert("actor".into(), Value::from("system"));
    m.insert(EPOCH_FIELD.into(), mark.value());
    m
}

/// The fields of an epoch record in the audit chain `chain` (an audit event of its own type,
/// `run_id` empty).
pub fn audit_record(mark: &EpochMark, chain: &str, now: &str) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert(
        "event_id".into(),
        Value::from(format!("evt_{}", uuid::Uuid::new_v4().simple())),
    );
    m.insert("event_type".into(), Value::from(EPOCH_EVENT));
    m.insert("ts".into(), Value::from(now));
    m.insert("run_id".into(), Value::from(""));
    m.insert("agent_id".into(), Value::from(chain));
    m.insert("actor".into(), Value::from("system"));
    m.insert("payload".into(), mark.value());
    m.insert("redactions".into(), Value::Array(Vec::new()));
    m.insert(EPOCH_FIELD.into(), mark.value());
    m
}
