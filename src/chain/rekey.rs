//! `bob ledger rekey`: a new key epoch, with the previous key retired (or recorded missing)
//! and every chained log adopted as it stands.

use super::append::tail;
use super::keyring::{Keyring, key_path, write_key};
use super::manifest::{
    Entry, Epoch, KEYS_DIR, MANIFEST_FILE, MANIFEST_VERSION, Manifest, RETIRED_DIR, absolute,
    create_private_dir, discover, io, peek_manifest, prefix_digest,
};
use crate::clock;
use crate::error::{Error, Result};
use crate::store::{self, Lock};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fs::OpenOptions;
use std::path::Path;

impl crate::contracts::AuditPayload for Rekeyed {
    fn event_type(&self) -> &'static str {
        "ledger.rekey"
    }
}

/// What `bob ledger rekey` did: also the payload of its `ledger.rekey` audit event.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Rekeyed {
    /// The new key epoch.
    pub epoch: u64,
    pub key_id: String,
    /// The key file of the new epoch.
    pub key_file: String,
    /// `created` (a new random key), or `adopted` (the key file already held a key the
    /// manifest did not name).
    pub key: &'static str,
    /// The key the manifest named before, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub previous_key_id: Option<String>,
    /// `retired` (kept as keys/retired/<key_id>.key), `missing` (lost: its epoch's records
    /// are reported unverifiable) or `none` (a home of legacy logs, or no manifest).
    pub previous_key: &'static str,
    /// Whether the previous manifest authenticated under its key (`false` when that key is
    /// missing or the manifest was forged or damaged).
    pub previous_manifest_authentic: bool,
    pub generation: u64,
    /// Logs adopted as they are now (their last record becomes their head in the new epoch).
    pub adopted: Vec<String>,
    /// Logs the previous manifest listed that are gone or empty now.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub dropped: Vec<String>,
    /// Logs left out (their last record is not readable): verify reports them unlisted.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<String>,
}

/// Starts a new key epoch for the home (the human act behind `bob ledger rekey`; the caller
/// audits it). The key file (see [`key_path`]) is used as it is when it holds a key the
/// manifest does not name; when it is missing a new key is created there; when it holds the
/// manifest's own key (a rotation) that key is retired to `keys/retired/<key_id>.key` and a
/// new one takes its place. A previous key that is still at hand (current or retired) is
/// kept under `keys/retired/`, so its epoch's records stay verifiable; a lost one is recorded
/// as `missing` and its records are reported as unverifiable from then on. Every chained log
/// is adopted as it stands now: its last record becomes its head, checked by links (and by the
/// retired key when there is one) before it, by the new key after it.
pub fn rekey(home_root: &Path) -> Result<Rekeyed> {
    let root = absolute(home_root);
    let dir = root.join(KEYS_DIR);
    create_private_dir(&dir)?;
    // Every log's lock, then the manifest's (the appenders' order): no append lands between
    // reading a log's tail and the new manifest, and an appender that waited finds the new
    // manifest, which its old key does not authenticate, and writes nothing.
    let mut held = Vec::new();
    let mut candidates = discover(&root);
    if let Some(m) = peek_manifest(&root)? {
        for rel in m.files.keys() {
            let p = Path::new(rel);
            let p = if p.is_absolute() {
                p.to_path_buf()
            } else {
                root.join(p)
            };
            if !candidates.contains(&p) {
                candidates.push(p);
            }
        }
    }
    for p in &candidates {
        match OpenOptions::new().read(true).append(true).open(p) {
            Ok(f) => {
                f.lock().map_err(io(p))?;
                held.push(f);
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(Error::io(p, e)),
        }
    }
    let _lock = Lock::exclusive(&store::lock_path(&dir.join(MANIFEST_FILE)))?;
    let before = peek_manifest(&root)?;
    let current = Keyring::load(&root)?;
    let previous_key_id = before
        .as_ref()
        .map(|m| m.key_id.clone())
        .filter(|id| !id.is_empty());
    // The key the previous manifest was written under, if it is still at hand.
    let previous = previous_key_id.as_deref().and_then(|id| match &current {
        Some(k) if k.key_id == id => Some(k.clone()),
        _ => Keyring::retired(&root, id),
    });
    let previous_manifest_authentic = match (&previous, &before) {
        (Some(k), Some(_)) => k.read_manifest().is_ok(),
        _ => false,
    };
    let path = key_path(&root);
    let (keys, how) = match &current {
        Some(k) if Some(k.key_id.as_str()) != previous_key_id.as_deref() => (k.clone(), "adopted"),
        _ => {
            let mut key = [0u8; 32];
            rand::RngCore::fill_bytes(&mut rand::rngs::OsRng, &mut key);
            (Keyring::from_bytes(&root, key), "created")
        }
    };
    // Keep the previous key before anything replaces it.
    if let Some(k) = &previous {
        let retired = dir.join(RETIRED_DIR).join(format!("{}.key", k.key_id));
        if Keyring::retired(&root, &k.key_id).is_none() {
            create_private_dir(&dir.join(RETIRED_DIR))?;
            let _ = std::fs::remove_file(&retired);
            write_key(&retired, &k.key, false)?;
        }
    }
    if how == "created" {
        write_key(&path, &keys.key, current.is_some())?;
    }
    let mut epochs = before
        .as_ref()
        .map(|m| m.epochs.clone())
        .unwrap_or_default();
    if let Some(id) = &previous_key_id {
        epochs.push(Epoch {
            epoch: epochs.len() as u64 + 1,
            key_id: id.clone(),
            retired_at: clock::rfc3339(clock::now()?),
            key: if previous.is_some() {
                "retired"
            } else {
                "missing"
            }
            .into(),
        });
    }
    let mut manifest = Manifest {
        version: MANIFEST_VERSION,
        key_id: keys.key_id.clone(),
        generation: before.as_ref().map_or(0, |m| m.generation) + 1,
        epochs,
        files: BTreeMap::new(),
        mac: None,
    };
    let mut logs = discover(&root);
    for rel in before.iter().flat_map(|m| m.files.keys()) {
        let p = keys.path_of(rel);
        if !logs.contains(&p) {
            logs.push(p);
        }
    }
    let listed_before = |rel: &str| before.as_ref().is_some_and(|m| m.files.contains_key(rel));
    let (mut adopted, mut dropped, mut skipped) = (Vec::new(), Vec::new(), Vec::new());
    for p in logs {
        let rel = keys.rel(&p);
        let found = tail(&p).and_then(|t| {
            let digest = prefix_digest(&p, t.as_ref().map(|(s, _)| s + 1))?;
            Ok((t, digest))
        });
        match found {
            Ok((Some((seq, hash)), Some(digest))) => {
                manifest.files.insert(
                    rel.clone(),
                    Entry {
                        seq,
                        hash,
                        keyed_from: seq + 1,
                        prefix_sha256: Some(digest),
                    },
                );
                adopted.push(rel);
            }
            Ok((Some(_), None)) => skipped.push(rel),
            Ok((None, _)) if listed_before(&rel) => dropped.push(rel),
            Ok((None, _)) => {}
            Err(_) => skipped.push(rel),
        }
    }
    keys.write_manifest(&mut manifest, true)?;
    Ok(Rekeyed {
        epoch: manifest.epoch(),
        key_id: keys.key_id.clone(),
        key_file: path.display().to_string(),
        key: how,
        previous_key_id,
        previous_key: match (&before, &previous) {
            (Some(_), Some(_)) => "retired",
            (Some(m), None) if !m.key_id.is_empty() => "missing",
            _ => "none",
        },
        previous_manifest_authentic,
        generation: manifest.generation,
        adopted,
        dropped,
        skipped,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chain::manifest::prefix_end;
    use crate::chain::{Verifier, append};
    use serde_json::{Map, Value};

    fn rec(n: u64) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("n".into(), Value::from(n));
        m
    }

    #[test]
    fn a_lost_key_is_never_remade_over_records_until_a_rekey() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("memory_approvals.jsonl");
        let keys = Keyring::open(dir.path()).unwrap();
        append(&keys, &log, rec(0)).unwrap();
        append(&keys, &log, rec(1)).unwrap();
        std::fs::remove_file(dir.path().join("keys/chain.key")).unwrap();
        let e = Keyring::open(dir.path()).unwrap_err();
        assert_eq!(e.code, crate::error::Code::Conflict, "{e:?}");
        assert!(!dir.path().join("keys/chain.key").exists());
        let v = Verifier::for_home(dir.path()).unwrap();
        let r = v.verify(&log).unwrap();
        assert!(!r.ok && r.integrity == "key_missing", "{r:?}");

        let done = rekey(dir.path()).unwrap();
        assert_eq!((done.epoch, done.previous_key), (2, "missing"));
        let keys = Keyring::open(dir.path()).unwrap();
        assert_eq!(keys.key_id(), done.key_id);
        append(&keys, &log, rec(2)).unwrap();
        let r = Verifier::for_home(dir.path())
            .unwrap()
            .verify(&log)
            .unwrap();
        assert!(!r.ok && r.unverifiable == 2, "{r:?}");
        let r = Verifier::for_home(dir.path())
            .unwrap()
            .allow_legacy(true)
            .verify(&log)
            .unwrap();
        assert!(r.ok && r.unverifiable == 2 && r.verified == 3, "{r:?}");
        assert_eq!(prefix_end(b"a\nb\nc", 2), Some(4));
        assert_eq!(prefix_end(b"a\nb", 2), None);
    }
}
