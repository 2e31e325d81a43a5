//! Anchoring the shared database's chains outside the database, so deleting a chain's newest
//! rows is found: the chained rows themselves cannot tell a shorter chain from a truncated one.
//!
//! This module promises:
//!
//! * **Heads.** [`heads`] reads the head (last `seq` and `hash`) of the approval ledger and of
//!   every audit chain, named as `bob ledger verify` reports them.
//! * **Kept in the home.** On the shared store `bob ledger anchor` signs those heads into its
//!   statement (with the chain key, which never enters the database) and keeps the statement
//!   in the home as [`KEPT`] (owner-only), replacing the one before; the operator may copy it
//!   elsewhere too.
//! * **Checked by verify.** [`check`] compares the database with an anchor (the one given with
//!   `--anchor`, else the kept one): a chain whose anchored `seq` is gone (`anchor: behind`:
//!   its newest rows were deleted) or holds another record there (`diverges`) fails, and the
//!   report names the chain; a chain anchored but absent altogether is reported failing too.

use crate::chain::{self, Anchor, ChainReport, Head, Keyring};
use crate::db::Database;
use crate::error::{Error, Result};
use crate::home::Home;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// The home's last anchor statement of the shared chains (under `keys/`).
pub const KEPT: &str = "shared_anchor.json";

/// Where the home keeps its last anchor statement.
pub fn kept_path(home: &Home) -> PathBuf {
    home.root().join(chain::KEYS_DIR).join(KEPT)
}

fn head_of(name: &str, record: &str) -> Result<Head> {
    let v: serde_json::Value = serde_json::from_str(record).map_err(|e| {
        Error::conflict(format!(
            "the head record of {name} is not JSON ({e}): run `bob ledger verify --all`"
        ))
        .retryable(false)
    })?;
    match (v["seq"].as_u64(), v["hash"].as_str()) {
        (Some(seq), Some(hash)) => Ok(Head {
            seq,
            hash: hash.to_string(),
        }),
        _ => Err(Error::conflict(format!(
            "the head record of {name} carries no seq and hash: run `bob ledger verify --all`"
        ))
        .retryable(false)),
    }
}

/// The head of every chain of the shared database.
pub fn heads(db: &Database) -> Result<BTreeMap<String, Head>> {
    let mut out = BTreeMap::new();
    let ledger = db.with(|c| {
        c.query_opt(
            "SELECT record FROM memory_ledger ORDER BY seq DESC LIMIT 1",
            &[],
        )
    })?;
    if let Some(r) = ledger {
        let name = crate::memory::pg::LEDGER_NAME;
        out.insert(name.to_string(), head_of(name, r.get(0))?);
    }
    let audit = db.with(|c| {
        c.query(
            "SELECT DISTINCT ON (chain) chain, record FROM audit_events ORDER BY chain, seq DESC",
            &[],
        )
    })?;
    for r in audit {
        let name = crate::audit::pg::chain_name(r.get(0)).display().to_string();
        let head = head_of(&name, r.get(1))?;
        out.insert(name, head);
    }
    Ok(out)
}

/// Takes the anchor statement of the home and the shared chains, and keeps it in the home.
pub fn anchor(home: &Home, db: &Database) -> Result<Anchor> {
    let a = chain::anchor_statement_with(home.root(), heads(db)?)?;
    let path = kept_path(home);
    crate::store::write_json_atomic(&path, &a)?;
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600))
        .map_err(|e| Error::io(&path, e))?;
    Ok(a)
}

/// The anchor kept in the home, authenticated (`None` when there is none).
pub fn kept(home: &Home) -> Result<Option<Anchor>> {
    let path = kept_path(home);
    match std::fs::read(&path) {
        Ok(bytes) => chain::read_anchor(home.root(), &bytes)
            .map(Some)
            .map_err(|e| e.with("path", path.display().to_string())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::io(&path, e)),
    }
}

/// The record of chain `name` at `seq` (`None`: no such row).
fn record_at(db: &Database, name: &str, seq: u64) -> Result<Option<String>> {
    let seq = seq as i64;
    let row = if name == crate::memory::pg::LEDGER_NAME {
        db.with(|c| c.query_opt("SELECT record FROM memory_ledger WHERE seq = $1", &[&seq]))?
    } else if let Some(agent) = name
        .strip_prefix(crate::audit::pg::NAME)
        .and_then(|r| r.strip_prefix('/'))
    {
        db.with(|c| {
            c.query_opt(
                "SELECT record FROM audit_events WHERE chain = $1 AND seq = $2",
                &[&agent, &seq],
            )
        })?
    } else {
        None
    };
    Ok(row.map(|r| r.get(0)))
}

/// Checks the database's chains against `anchor`'s shared heads, marking `reports` (adding a
/// failing report for an anchored chain that has none: every row of it is gone).
pub fn check(
    db: &Database,
    keys: &Keyring,
    anchor: &Anchor,
    reports: &mut Vec<ChainReport>,
) -> Result<()> {
    for (name, head) in &anchor.shared {
        let held = record_at(db, name, head.seq)?;
        let verdict = match &held {
            None => "behind",
            Some(r) if head_of(name, r).is_ok_and(|h| h.hash == head.hash) => "ok",
            Some(_) => "diverges",
        };
        let i = match reports.iter().position(|r| r.path == *name) {
            Some(i) => i,
            None => {
                reports.push(chain::verify_records(keys, name, &[]));
                reports.len() - 1
            }
        };
        let r = &mut reports[i];
        r.anchor = Some(verdict);
        if verdict != "ok" {
            r.ok = false;
            let why = match verdict {
                "behind" => format!(
                    "{name} ends before its anchored head (seq {}, anchored {}): its newest \
                     rows were deleted",
                    head.seq, anchor.ts
                ),
                _ => format!(
                    "{name} holds another record at its anchored head (seq {}, anchored {})",
                    head.seq, anchor.ts
                ),
            };
            r.reason = Some(match r.reason.take() {
                Some(before) => format!("{before}; {why}"),
                None => why,
            });
        }
    }
    Ok(())
}
