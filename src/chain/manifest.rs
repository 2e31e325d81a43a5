//! The manifest (`keys/manifest.json`) and what every part of the chain shares: the fields of a
//! chained record, the layout of the home's `keys/`, and the chained logs a home holds.

use crate::error::{Error, Result};
use crate::store;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// `prev` of the first record in a chain.
pub const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// The directory of the chain key and the manifest, relative to the home.
pub const KEYS_DIR: &str = "keys";
pub(super) const KEY_FILE: &str = "chain.key";
pub(super) const MANIFEST_FILE: &str = "manifest.json";
/// Retired keys of earlier epochs, `keys/retired/<key_id>.key`.
pub(super) const RETIRED_DIR: &str = "retired";
/// 2: `epochs` (retired key epochs) and the `key_id` of every record.
pub(super) const MANIFEST_VERSION: u32 = 2;
/// The field of every keyed record that names the key it was written under.
pub const RECORD_KEY_FIELD: &str = "key_id";

pub(super) fn io(path: &Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
    move |e| Error::io(path, e)
}

/// One log's anchor in the manifest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// seq of the last record anchored.
    pub seq: u64,
    /// hash of that record.
    pub hash: String,
    /// The first seq hashed with the current key (records before it are adopted: legacy
    /// links, or records of an earlier key epoch).
    pub keyed_from: u64,
    /// SHA-256 of the log's bytes before `keyed_from` as `bob ledger rekey` adopted them: the
    /// content of records whose key is lost is bound by nothing else.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefix_sha256: Option<String>,
}

/// A key epoch that `bob ledger rekey` ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Epoch {
    /// 1 for the home's first key.
    pub epoch: u64,
    pub key_id: String,
    pub retired_at: String,
    /// `retired` (kept as `keys/retired/<key_id>.key`) or `missing` (lost before the rekey).
    pub key: String,
}

/// `keys/manifest.json`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Manifest {
    pub version: u32,
    pub key_id: String,
    pub generation: u64,
    /// The key epochs before the current one, oldest first (the current epoch is
    /// `epochs.len() + 1`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub epochs: Vec<Epoch>,
    pub files: BTreeMap<String, Entry>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mac: Option<String>,
}

impl Manifest {
    /// The current key epoch (1 for a home that was never rekeyed).
    pub fn epoch(&self) -> u64 {
        self.epochs.len() as u64 + 1
    }
}

pub(super) fn absolute(p: &Path) -> PathBuf {
    std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
}

/// Reads a manifest's `key_id` and `generation` without authenticating it.
pub(super) fn peek_manifest(root: &Path) -> Result<Option<Manifest>> {
    let path = root.join(KEYS_DIR).join(MANIFEST_FILE);
    match std::fs::read(&path) {
        Ok(bytes) => Ok(serde_json::from_slice(&bytes)
            .ok()
            .or(Some(Manifest::default()))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::io(&path, e)),
    }
}

/// Whether any chained log of the home holds a record.
pub(super) fn has_records(root: &Path) -> bool {
    discover(root)
        .iter()
        .any(|p| std::fs::metadata(p).is_ok_and(|m| m.len() > 0))
}

/// The manifest as read, with the bytes it was read from.
pub(super) struct ManifestRead {
    pub(super) bytes: Vec<u8>,
    pub(super) manifest: Manifest,
}

pub(super) fn create_private_dir(dir: &Path) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700)).map_err(io(dir))
}

/// The chained logs found in a home: the approval ledger and every `audit/**/*.jsonl`.
pub fn discover(home_root: &Path) -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        paths.sort();
        for p in paths {
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|e| e == "jsonl") {
                out.push(p);
            }
        }
    }
    let root = absolute(home_root);
    let mut files = Vec::new();
    let ledger = root.join("memory_approvals.jsonl");
    if ledger.exists() {
        files.push(ledger);
    }
    walk(&root.join("audit"), &mut files);
    files
}

/// SHA-256 of a log's first `records` lines (`None` when it has fewer whole lines).
pub(super) fn prefix_digest(path: &Path, records: Option<u64>) -> Result<Option<String>> {
    let Some(n) = records else {
        return Ok(None);
    };
    let bytes = std::fs::read(path).map_err(io(path))?;
    Ok(prefix_end(&bytes, n).map(|end| store::sha256_hex(&bytes[..end])))
}

/// The byte offset just past the `n`th line of `bytes`.
pub(super) fn prefix_end(bytes: &[u8], n: u64) -> Option<usize> {
    let mut end = 0;
    for _ in 0..n {
        end += memchr::memchr(b'\n', &bytes[end..])? + 1;
    }
    Some(end)
}

pub(super) fn plain_hash(body: &[u8]) -> String {
    store::sha256_hex(body)
}
