//! Anchor statements: every chain's head and the manifest's generation at one moment, signed
//! with the chain key, for the user to keep outside the home.

use super::keyring::{Keyring, key_missing};
use super::manifest::{Manifest, absolute, peek_manifest};
use crate::clock;
use crate::error::{Error, Result};
use crate::store::{self, Lock};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// A chain's head as an anchor keeps it: its last record's `seq` and `hash`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Head {
    pub seq: u64,
    pub hash: String,
}

/// The MAC input of an anchor statement: a label, so an anchor and a manifest can never stand
/// for each other, then the statement without its `mac`.
const ANCHOR_LABEL: &[u8] = b"bob ledger anchor v1\n";

/// `bob ledger anchor`: every chain's head and the manifest's generation at one moment, under
/// the chain key's MAC, for the user to keep outside the home. `bob ledger verify --anchor`
/// then finds a log that is behind it or diverges from it (a whole-home rollback).
///
/// ```json
/// {"anchor":1,"home":"/srv/bob","ts":"2026-02-15T12:00:00Z","key_id":"1a2b3c4d5e6f7081",
///  "epoch":1,"generation":42,"files":{"memory_approvals.jsonl":{"seq":4,"hash":"…"}},
///  "mac":"…"}
/// ```
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Anchor {
    /// The statement's format (1).
    pub anchor: u32,
    /// The home it was taken of (information only: a home may be checked from elsewhere).
    pub home: String,
    pub ts: String,
    pub key_id: String,
    pub epoch: u64,
    pub generation: u64,
    pub(super) files: BTreeMap<String, Head>,
    /// The heads of the chains kept outside the home (the shared database's, named as
    /// `bob ledger verify` reports them); absent when there are none.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub shared: BTreeMap<String, Head>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mac: Option<String>,
}

fn anchor_body(a: &Anchor) -> Result<Vec<u8>> {
    let mut unsigned = a.clone();
    unsigned.mac = None;
    let mut body = ANCHOR_LABEL.to_vec();
    body.extend(serde_json::to_vec(&unsigned).map_err(|e| Error::internal(e.to_string()))?);
    Ok(body)
}

/// Takes an anchor statement of the home: the authenticated manifest's heads, read under its
/// lock, signed with the chain key. Refused (`conflict`) when the key or the manifest cannot
/// be trusted (the same checks as an append).
pub fn anchor_statement(home_root: &Path) -> Result<Anchor> {
    anchor_statement_with(home_root, BTreeMap::new())
}

/// [`anchor_statement`] with the heads of chains kept outside the home (`shared`) signed in
/// too. With such heads, a home that has chained nothing itself yet (no manifest) is anchored
/// with no files.
pub fn anchor_statement_with(home_root: &Path, shared: BTreeMap<String, Head>) -> Result<Anchor> {
    let root = absolute(home_root);
    let keys = match Keyring::load(&root)? {
        Some(k) => k,
        None => {
            return Err(match peek_manifest(&root)? {
                Some(m) => key_missing(&root, Some(&m.key_id)),
                None => Error::not_found(format!(
                    "{} has no chain key yet (nothing chained was written): nothing to anchor",
                    root.display()
                )),
            });
        }
    };
    let manifest = {
        let _lock = Lock::exclusive(&store::lock_path(&keys.manifest_path()))?;
        if shared.is_empty() {
            Some(keys.manifest_or_missing()?)
        } else {
            keys.read_manifest_as_read()?.map(|m| m.manifest)
        }
    };
    let mut a = Anchor {
        anchor: 1,
        home: root.display().to_string(),
        ts: clock::rfc3339(clock::now()?),
        key_id: keys.key_id.clone(),
        epoch: manifest.as_ref().map_or(1, Manifest::epoch),
        generation: manifest.as_ref().map_or(0, |m| m.generation),
        files: manifest
            .iter()
            .flat_map(|m| m.files.iter())
            .map(|(rel, e)| {
                (
                    rel.clone(),
                    Head {
                        seq: e.seq,
                        hash: e.hash.clone(),
                    },
                )
            })
            .collect(),
        shared,
        mac: None,
    };
    a.mac = Some(keys.mac_hex(&anchor_body(&a)?));
    Ok(a)
}

/// Reads a kept anchor statement and checks its MAC under the home's current key, or the
/// retired key of the epoch it was taken in. `conflict` when it does not authenticate.
pub fn read_anchor(home_root: &Path, bytes: &[u8]) -> Result<Anchor> {
    let root = absolute(home_root);
    let a: Anchor = serde_json::from_slice(bytes).map_err(|e| {
        Error::invalid(format!(
            "not an anchor statement of `bob ledger anchor`: {e}"
        ))
    })?;
    let bad = |why: String| Error::conflict(why).retryable(false);
    let keys = match Keyring::load(&root)? {
        Some(k) if k.key_id == a.key_id => Some(k),
        _ => Keyring::retired(&root, &a.key_id),
    };
    let Some(keys) = keys else {
        return Err(bad(format!(
            "the anchor was signed with key {}, which this home neither holds nor kept as a \
             retired key: it cannot be checked",
            a.key_id
        )));
    };
    let mac = a.mac.clone().unwrap_or_default();
    if !keys.mac_ok(&anchor_body(&a)?, &mac) {
        return Err(bad(
            "the anchor's mac does not match (edited, or not signed with this home's key)".into(),
        ));
    }
    Ok(a)
}
