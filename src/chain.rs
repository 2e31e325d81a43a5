//! Keyed hash-chained logs (the approval ledger and the audit log) and the manifest that
//! anchors them (docs/design.md#conventions; the key lives in `keys/`, docs/design.md#home-layout).
//!
//! # Records
//!
//! Every record carries `key_id` (the fingerprint of the key it was written under), `seq` (its
//! 0-based position), `prev` (the previous record's `hash`, 64 zeros for the first) and `hash`
//! = **HMAC-SHA256** under the home's chain key of the record serialized without its `hash`
//! field. Editing, deleting, inserting or reordering a line
//! breaks the chain at that line, and nobody without the key can recompute a chain that
//! verifies: a chain rebuilt "from scratch" with plain SHA-256 (or with another key) fails at
//! its first record.
//!
//! # The key
//!
//! 32 random bytes from the OS, mode 0600, kept out of every log, never printed (`Keyring`'s
//! `Debug` shows only the key id). Its file ([`key_path`], installed per process by the
//! settings): `BOB_KEY_FILE`, else systemd's `$CREDENTIALS_DIRECTORY/bob-chain.key` when that
//! file exists, else `keys.file` of `config.toml`, else `<home>/keys/chain.key` (in a 0700
//! `keys/`). Outside the home, a process that can write the home cannot read it.
//!
//! The key id (fingerprint) is the first 16 hex digits of the key's SHA-256: one-way, and
//! recorded in the manifest, in every record and in every anchor statement.
//!
//! **A key is never made where one is needed.** Only a brand-new home (no manifest, no chained
//! record) gets a new key, on its first chained append (never on a read such as `bob ledger
//! verify`), created atomically (a temp file hard-linked into place, so two processes racing
//! to create it end up with one key). A missing key with a manifest or chained records, or a
//! key other than the one the manifest names, is `conflict` for every writer and a failure for
//! verify, until a human runs `bob ledger rekey` ([`rekey`]). A lost key therefore can never
//! become a new key that silently adopts whatever the logs hold (issue 23, T1).
//!
//! # Key epochs
//!
//! [`rekey`] starts a new epoch: the manifest's `epochs` lists every earlier key (`retired`:
//! kept as `keys/retired/<key_id>.key`, or `missing`: lost before the rekey), and every log is
//! adopted as it stands (its last record becomes its head, `keyed_from` the next seq, and
//! `prefix_sha256` the digest of the adopted bytes). Records before `keyed_from` are checked
//! with the key they name when bob holds it (current or retired), as plain SHA-256 links when
//! they are legacy, and by their links and the prefix digest only when their epoch's key is
//! missing (`unverifiable`). A retired key may sit in the home: the prefix it signed is frozen
//! by the keyed records and manifest after it, so it can no longer forge anything that
//! verifies. Records no key can check (legacy, unverifiable) fail verification unless the
//! verifier is told to accept them ([`Verifier::allow_legacy`]).
//!
//! # Anchor statements
//!
//! [`anchor_statement`] signs the manifest's heads, generation, epoch, key id and a timestamp
//! under the chain key (with a label of its own, so a statement and a manifest never stand for
//! each other). Kept outside the home, it lets [`Verifier::with_anchor`] find a log that is
//! behind or diverges from it: a whole-home rollback (logs, manifest and key together), which
//! nothing inside the home can reveal.

//! # The manifest
//!
//! `keys/manifest.json` lists every chained log of the home (path relative to the home, or
//! absolute for a log outside it) with its head `{seq, hash}` and `keyed_from` (the first seq
//! hashed with the key; see "Legacy" below). The whole document carries an HMAC (`mac`) and a
//! `generation` counter. Every append takes the log's lock, then the manifest's lock
//! (`keys/manifest.json.lock`; always in that order), checks the log's end and writes the
//! records; it fdatasyncs them, then replaces the manifest atomically with the new head under
//! the manifest's lock. For a log the manifest lists already, both locks are let go before
//! the fdatasync, so concurrent appends (serve's workers share one audit log) do not queue
//! behind each other's syncs, and the anchoring is skipped when a later append anchored a
//! later head meanwhile (its fdatasync covered these records). So `bob ledger verify` also detects
//!
//! * the tail of a log deleted together with its `.head` side file (the manifest still
//!   anchors the old head);
//! * a whole day file of the audit log deleted (it is still listed);
//! * a log that is not listed (written without the key);
//! * an edited or deleted manifest (its MAC fails, or it is missing while the key exists).
//!
//! A crash between the log's fdatasync and the manifest's rename leaves records past the
//! anchored head; they verify with the key (nobody else could have written them), are
//! reported as `unanchored`, and the next append re-anchors them. Appending to a log whose
//! manifest check fails (shorter than its anchor, last record not keyed, manifest missing or
//! forged) is refused with `conflict`: bob does not write on top of a tampered log.
//!
//! # Durability of an append
//!
//! The records are fdatasynced before the manifest is replaced, and the new manifest's temp
//! file is fsynced before its rename. The `keys/` directory is fsynced after the rename only
//! when the log is listed for the first time. For a log already listed, a power loss that
//! loses the rename (or the renames of the last few appends) brings back an older manifest,
//! MAC intact, that anchors the log at an older head: exactly the crash case above
//! (unanchored records that verify, re-anchored by the next append). The cost of skipping
//! that fsync (two per `bob turn`) is that `generation` can step back by the appends whose
//! renames were lost, which an external copy of it taken in the seconds before the power loss
//! would report as a rollback; the logs themselves lose nothing.
//!
//! Limits: the manifest is one file per home, rewritten on every append (its size grows with
//! the number of day files). Someone who can write the home can still *roll back* the home
//! as a whole to an older consistent state (old logs and the old manifest together), or
//! delete `keys/` together with every log; an anchor statement kept elsewhere detects both.
//! With the key in the home, they can also read it and re-sign everything: keep it outside.
//!
//! # Legacy (unkeyed) logs
//!
//! Logs written before keys existed are chained with plain SHA-256 (no `key_id`) and anchored
//! by a `<log>.head` side file. A home holding them and no key refuses writers like any home
//! whose key is missing; `bob ledger rekey` adopts them (their last record becomes the head,
//! later records are keyed: `integrity: "mixed"`), and rewriting the adopted prefix is then
//! detected. Verified without a key they are `integrity: "legacy"`, and their records fail
//! unless accepted ([`Verifier::allow_legacy`]), with a warning that a chain recomputed from
//! scratch cannot be told apart, never a silent pass. New records are never written unkeyed,
//! and `.head` is no longer written (the manifest replaces it).

use crate::clock;
use crate::error::{Error, Result};
use crate::store::{self, Lock};
use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

type HmacSha256 = Hmac<Sha256>;

/// `prev` of the first record in a chain.
pub const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// The directory of the chain key and the manifest, relative to the home.
pub const KEYS_DIR: &str = "keys";
const KEY_FILE: &str = "chain.key";
const MANIFEST_FILE: &str = "manifest.json";
/// Retired keys of earlier epochs, `keys/retired/<key_id>.key`.
const RETIRED_DIR: &str = "retired";
/// 2: `epochs` (retired key epochs) and the `key_id` of every record.
const MANIFEST_VERSION: u32 = 2;
/// The field of every keyed record that names the key it was written under.
pub const RECORD_KEY_FIELD: &str = "key_id";

/// Where the chain key lives when it is not `<home>/keys/chain.key` (installed once per process
/// by the settings: `BOB_KEY_FILE`, systemd's credential, `keys.file`).
static KEY_FILE_OVERRIDE: std::sync::RwLock<Option<PathBuf>> = std::sync::RwLock::new(None);

/// Sets the chain key's file for every home this process opens (`None`: `<home>/keys/chain.key`).
pub fn install_key_file(path: Option<PathBuf>) {
    *KEY_FILE_OVERRIDE.write().unwrap_or_else(|e| e.into_inner()) = path.map(|p| absolute(&p));
}

/// The chain key's file for the home at `root` (absolute).
pub fn key_path(root: &Path) -> PathBuf {
    KEY_FILE_OVERRIDE
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .clone()
        .unwrap_or_else(|| root.join(KEYS_DIR).join(KEY_FILE))
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
    move |e| Error::io(path, e)
}

/// A home's chain key. Its `Debug` form never shows the key.
#[derive(Clone)]
pub struct Keyring {
    root: PathBuf,
    key: [u8; 32],
    key_id: String,
}

impl std::fmt::Debug for Keyring {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Keyring")
            .field("root", &self.root)
            .field("key_id", &self.key_id)
            .finish_non_exhaustive()
    }
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

fn absolute(p: &Path) -> PathBuf {
    std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
}

/// The error of a writer or a verification that finds no key where a home's logs need one.
fn key_missing(root: &Path, manifest_key: Option<&str>) -> Error {
    let path = key_path(root);
    let what = match manifest_key {
        Some("") => "keys/manifest.json exists (unreadable)".to_string(),
        Some(id) => format!("keys/manifest.json was written under key {id}"),
        None => "the home holds chained logs written without this key".to_string(),
    };
    Error::conflict(format!(
        "the chain key {} is missing, but {what}: bob will not create a new key on its own. \
         Restore the key (or point keys.file / BOB_KEY_FILE at it), or run `bob ledger rekey` \
         to start a new key epoch",
        path.display()
    ))
    .with("path", path.display().to_string())
    .retryable(false)
}

/// Reads a manifest's `key_id` and `generation` without authenticating it.
fn peek_manifest(root: &Path) -> Result<Option<Manifest>> {
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
fn has_records(root: &Path) -> bool {
    discover(root)
        .iter()
        .any(|p| std::fs::metadata(p).is_ok_and(|m| m.len() > 0))
}

/// Writes a key file, mode 0600: created once (hard-linked into place, so two processes
/// racing to create it end up with one key) or, with `replace`, renamed over the old one.
fn write_key(path: &Path, key: &[u8; 32], replace: bool) -> Result<()> {
    use std::os::unix::fs::OpenOptionsExt;
    let dir = path.parent().unwrap_or(Path::new("/"));
    if !dir.exists() {
        create_private_dir(dir)?;
    }
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("key");
    let tmp = dir.join(format!(".{name}.tmp.{}", std::process::id()));
    let written = (|| {
        let mut f = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(&tmp)
            .map_err(io(&tmp))?;
        f.write_all(key).map_err(io(&tmp))?;
        f.sync_all().map_err(io(&tmp))?;
        if replace {
            std::fs::rename(&tmp, path).map_err(io(path))?;
        } else {
            std::fs::hard_link(&tmp, path).map_err(io(path))?;
        }
        File::open(dir).and_then(|d| d.sync_all()).map_err(io(dir))
    })();
    let _ = std::fs::remove_file(&tmp);
    written
}

impl Keyring {
    /// The home's key, for a writer. A brand-new home (no manifest, no chained record) gets a
    /// new key and an empty manifest; a home whose manifest or logs need a key that is not
    /// there is refused (`conflict`) until `bob ledger rekey`, so a lost key never silently
    /// becomes a new one that adopts whatever the logs hold.
    pub fn open(home_root: &Path) -> Result<Keyring> {
        let root = absolute(home_root);
        if let Some(k) = Self::load(&root)?
            && k.manifest_path().exists()
        {
            return Ok(k);
        }
        let dir = root.join(KEYS_DIR);
        create_private_dir(&dir)?;
        let _lock = Lock::exclusive(&store::lock_path(&dir.join(MANIFEST_FILE)))?;
        let keys = match Self::load(&root)? {
            Some(k) if k.manifest_path().exists() => return Ok(k),
            Some(k) => k,
            None => {
                if let Some(m) = peek_manifest(&root)? {
                    return Err(key_missing(&root, Some(&m.key_id)));
                }
                if has_records(&root) {
                    return Err(key_missing(&root, None));
                }
                let mut key = [0u8; 32];
                rand::RngCore::fill_bytes(&mut rand::rngs::OsRng, &mut key);
                let path = key_path(&root);
                match write_key(&path, &key, false) {
                    Ok(()) => {}
                    // Another process made it first (outside this home's lock: a key shared by
                    // several homes): use theirs.
                    Err(_) if path.exists() => {}
                    Err(e) => return Err(e),
                }
                Self::load(&root)?.ok_or_else(|| key_missing(&root, None))?
            }
        };
        // A key without a manifest: a brand-new home (the key was made, or provisioned outside
        // the home) gets an empty manifest; a home with records lost its manifest and
        // appends are refused (see `Keyring::missing`).
        if !has_records(&root) {
            keys.write_manifest(
                &mut Manifest {
                    version: MANIFEST_VERSION,
                    key_id: keys.key_id.clone(),
                    ..Manifest::default()
                },
                true,
            )?;
        }
        Ok(keys)
    }

    /// The home's key if it has one (never creates it).
    pub fn load(home_root: &Path) -> Result<Option<Keyring>> {
        let root = absolute(home_root);
        Self::load_file(&root, &key_path(&root))
    }

    fn load_file(root: &Path, path: &Path) -> Result<Option<Keyring>> {
        let bytes = match std::fs::read(path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(Error::io(path, e)),
        };
        let key: [u8; 32] = bytes.as_slice().try_into().map_err(|_| {
            Error::conflict(format!(
                "{} is damaged ({} bytes, expected 32)",
                path.display(),
                bytes.len()
            ))
            .with("path", path.display().to_string())
        })?;
        Ok(Some(Keyring::from_bytes(root, key)))
    }

    /// The retired key `key_id` of an earlier epoch, if it was kept.
    fn retired(root: &Path, key_id: &str) -> Option<Keyring> {
        if key_id.is_empty() || !key_id.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        let path = root
            .join(KEYS_DIR)
            .join(RETIRED_DIR)
            .join(format!("{key_id}.key"));
        Self::load_file(root, &path)
            .ok()
            .flatten()
            .filter(|k| k.key_id == key_id)
    }

    fn from_bytes(root: &Path, key: [u8; 32]) -> Keyring {
        let key_id = hex::encode(Sha256::digest(key))[..16].to_string();
        Keyring {
            root: root.to_path_buf(),
            key,
            key_id,
        }
    }

    /// The first 16 hex digits of the key's SHA-256 (safe to show).
    pub fn key_id(&self) -> &str {
        &self.key_id
    }

    /// The home's key now, with its manifest, when a `bob ledger rekey` has run since this key
    /// was loaded (a long-running writer, or one that raced the rekey): the manifest
    /// authenticates under the key file's key, and that is this key or the manifest's epochs
    /// name this key as retired. Anything else (a lost or swapped key) is `None`, and the
    /// caller keeps its refusal. The caller holds the manifest's lock, so no rekey is half
    /// done (a rekey writes the key file, then the manifest, under that lock).
    fn after_rekey(&self) -> Option<(Keyring, Manifest)> {
        let now = Self::load(&self.root).ok().flatten()?;
        let manifest = now.read_manifest().ok().flatten()?;
        let known =
            now.key_id == self.key_id || manifest.epochs.iter().any(|e| e.key_id == self.key_id);
        known.then_some((now, manifest))
    }

    fn mac_hex(&self, bytes: &[u8]) -> String {
        let mut m =
            <HmacSha256 as Mac>::new_from_slice(&self.key).expect("HMAC takes a key of any length");
        m.update(bytes);
        hex::encode(m.finalize().into_bytes())
    }

    fn mac_ok(&self, bytes: &[u8], hex_mac: &str) -> bool {
        let Ok(want) = hex::decode(hex_mac) else {
            return false;
        };
        let mut m =
            <HmacSha256 as Mac>::new_from_slice(&self.key).expect("HMAC takes a key of any length");
        m.update(bytes);
        m.verify_slice(&want).is_ok()
    }

    fn manifest_path(&self) -> PathBuf {
        self.root.join(KEYS_DIR).join(MANIFEST_FILE)
    }

    /// How the manifest names `path`: relative to the home when inside it, else absolute.
    pub fn rel(&self, path: &Path) -> String {
        let abs = absolute(path);
        match abs.strip_prefix(&self.root) {
            Ok(r) => r.to_string_lossy().into_owned(),
            Err(_) => abs.to_string_lossy().into_owned(),
        }
    }

    fn path_of(&self, rel: &str) -> PathBuf {
        let p = Path::new(rel);
        if p.is_absolute() {
            p.to_path_buf()
        } else {
            self.root.join(p)
        }
    }

    /// Reads and authenticates the manifest; `Ok(None)` when there is none.
    pub fn read_manifest(&self) -> Result<Option<Manifest>> {
        Ok(self.read_manifest_as_read()?.map(|r| r.manifest))
    }

    /// [`Keyring::read_manifest`], keeping the bytes it was read from.
    fn read_manifest_as_read(&self) -> Result<Option<ManifestRead>> {
        let path = self.manifest_path();
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(Error::io(&path, e)),
        };
        let manifest = self.authenticate(&bytes)?;
        Ok(Some(ManifestRead { bytes, manifest }))
    }

    /// Parses the manifest's bytes and checks its MAC and key.
    fn authenticate(&self, bytes: &[u8]) -> Result<Manifest> {
        let path = self.manifest_path();
        let mut m: Manifest = serde_json::from_slice(bytes).map_err(|e| {
            Error::bad_json(&path.display().to_string(), &e)
                .with("path", path.display().to_string())
        })?;
        let bad = |why: &str| {
            Error::conflict(format!("{}: {why}", path.display()))
                .with("path", path.display().to_string())
                .retryable(false)
        };
        let Some(mac) = m.mac.take() else {
            return Err(bad("the manifest carries no mac"));
        };
        if m.key_id != self.key_id {
            return Err(bad(&format!(
                "the manifest was written under key {}, but the chain key {} is {}: bob will \
                 not adopt the logs under another key; restore the key, or run `bob ledger \
                 rekey` to start a new key epoch",
                m.key_id,
                key_path(&self.root).display(),
                self.key_id
            )));
        }
        let body = serde_json::to_vec(&m).map_err(|e| Error::internal(e.to_string()))?;
        if !self.mac_ok(&body, &mac) {
            return Err(bad(
                "the manifest's mac does not match (edited, or written without the key)",
            ));
        }
        Ok(m)
    }

    /// The manifest again (under its lock): `before` itself when the file still holds the same
    /// bytes, so an unchanged manifest is not parsed and authenticated twice.
    fn reread_manifest(&self, before: ManifestRead) -> Result<Manifest> {
        let path = self.manifest_path();
        match std::fs::read(&path) {
            Ok(bytes) if bytes == before.bytes => Ok(before.manifest),
            Ok(bytes) => self.authenticate(&bytes),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(self.missing()),
            Err(e) => Err(Error::io(&path, e)),
        }
    }

    /// Writes the manifest (the caller holds its lock); with `sync_dir` false, without the
    /// `keys/` directory fsync after the rename (see "Durability of an append" in the module
    /// docs for when that is safe). It is replaced by a rename, never rewritten in place:
    /// appends read it without its lock.
    fn write_manifest(&self, m: &mut Manifest, sync_dir: bool) -> Result<()> {
        m.mac = None;
        m.version = MANIFEST_VERSION;
        m.key_id = self.key_id.clone();
        let body = serde_json::to_vec(&*m).map_err(|e| Error::internal(e.to_string()))?;
        m.mac = Some(self.mac_hex(&body));
        let mut bytes =
            serde_json::to_vec_pretty(&*m).map_err(|e| Error::internal(e.to_string()))?;
        bytes.push(b'\n');
        if sync_dir {
            store::write_bytes_atomic(&self.manifest_path(), &bytes)
        } else {
            store::write_bytes_atomic_rename_unsynced(&self.manifest_path(), &bytes)
        }
    }

    fn manifest_or_missing(&self) -> Result<Manifest> {
        Ok(self.manifest_as_read()?.manifest)
    }

    fn manifest_as_read(&self) -> Result<ManifestRead> {
        self.read_manifest_as_read()?.ok_or_else(|| self.missing())
    }

    fn missing(&self) -> Error {
        Error::conflict(format!(
            "{} is missing while the chain key exists (deleted?); bob will not append \
             to logs it can no longer anchor",
            self.manifest_path().display()
        ))
        .retryable(false)
    }
}

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

/// The manifest as read, with the bytes it was read from.
struct ManifestRead {
    bytes: Vec<u8>,
    manifest: Manifest,
}

fn create_private_dir(dir: &Path) -> Result<()> {
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
fn prefix_digest(path: &Path, records: Option<u64>) -> Result<Option<String>> {
    let Some(n) = records else {
        return Ok(None);
    };
    let bytes = std::fs::read(path).map_err(io(path))?;
    Ok(prefix_end(&bytes, n).map(|end| store::sha256_hex(&bytes[..end])))
}

/// The byte offset just past the `n`th line of `bytes`.
fn prefix_end(bytes: &[u8], n: u64) -> Option<usize> {
    let mut end = 0;
    for _ in 0..n {
        end += memchr::memchr(b'\n', &bytes[end..])? + 1;
    }
    Some(end)
}

fn plain_hash(body: &[u8]) -> String {
    store::sha256_hex(body)
}

/// The `(seq, hash)` of the last whole record of a log (a torn last line is skipped);
/// `Ok(None)` for a missing or empty log.
pub fn tail(path: &Path) -> Result<Option<(u64, String)>> {
    let mut file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::io(path, e)),
    };
    let Some(line) = store::last_line(&mut file, path)? else {
        return Ok(None);
    };
    let last: Map<String, Value> = serde_json::from_slice(&line).map_err(|e| {
        Error::conflict(format!(
            "last record of {} is not valid JSON: {e}",
            path.display()
        ))
    })?;
    match (
        last.get("seq").and_then(Value::as_u64),
        last.get("hash").and_then(Value::as_str),
    ) {
        (Some(s), Some(h)) => Ok(Some((s, h.to_string()))),
        _ => Err(Error::conflict(format!(
            "last record of {} carries no seq/hash",
            path.display()
        ))),
    }
}

/// Checks that a log can take the next append, as [`append_batch`] would, without writing:
/// the log opens for appending (it is created if missing), does not end in a torn record, the
/// manifest authenticates, and the log's last record matches its anchor and the key. A writer
/// calls this before it does anything it must audit, so a damaged log stops it up front.
/// When a `bob ledger rekey` ran since `keys` was loaded, `keys` becomes the key it left.
pub fn check_appendable(keys: &mut Keyring, path: &Path) -> Result<()> {
    let mut file = store::open_log(path)?;
    let _manifest_lock = Lock::exclusive(&store::lock_path(&keys.manifest_path()))?;
    let manifest = match keys.manifest_or_missing() {
        Ok(m) => m,
        Err(e) => {
            let (now, m) = keys.after_rekey().ok_or(e)?;
            *keys = now;
            m
        }
    };
    tip(keys, &mut file, path, &manifest).map(|_| ())
}

fn torn_error(path: &Path) -> Error {
    Error::conflict(format!(
        "{} ends in a torn record left by an interrupted write; run `bob ledger repair {}`",
        path.display(),
        path.display()
    ))
    .with("path", path.display().to_string())
}

/// Where the next record of a log goes.
struct Tip {
    seq: u64,
    prev: String,
    keyed_from: u64,
    prefix_sha256: Option<String>,
}

/// The next position of a log (locked by the caller, manifest lock held), after checking its
/// end against the manifest and the key.
fn tip(keys: &Keyring, file: &mut File, path: &Path, manifest: &Manifest) -> Result<Tip> {
    if store::has_torn_tail(file, path)? {
        return Err(torn_error(path));
    }
    let refuse = |why: String| {
        Err(Error::conflict(format!("{}: {why}", path.display()))
            .with("path", path.display().to_string())
            .retryable(false))
    };
    let entry = manifest.files.get(&keys.rel(path));
    let Some(line) = store::last_line(file, path)? else {
        return match entry {
            None => Ok(Tip {
                seq: 0,
                prev: GENESIS.to_string(),
                keyed_from: 0,
                prefix_sha256: None,
            }),
            Some(e) => refuse(format!(
                "the log is empty but the manifest anchors seq {} (file deleted or truncated)",
                e.seq
            )),
        };
    };
    let mut last: Map<String, Value> = serde_json::from_slice(&line)
        .map_err(|e| Error::conflict(format!("last record of {}: {e}", path.display())))?;
    let hash = match last.shift_remove("hash") {
        Some(Value::String(h)) => h,
        _ => return refuse("the last record carries no hash".into()),
    };
    let Some(s) = last.get("seq").and_then(Value::as_u64) else {
        return refuse("the last record carries no seq".into());
    };
    let Some(e) = entry else {
        // A log the manifest does not list holds records: bob's own only when its last record
        // is keyed with this key (a crash between a first append's write and its manifest
        // update); anything else (a legacy log, a planted one, one of another key) is adopted
        // by `bob ledger rekey` only, never silently.
        let body = serde_json::to_vec(&last).map_err(|e| Error::internal(e.to_string()))?;
        if !keys.mac_ok(&body, &hash) {
            return refuse(
                "the log holds records but the manifest does not list it (a legacy log, or one \
                 written without this key); run `bob ledger rekey` to adopt it"
                    .into(),
            );
        }
        return Ok(Tip {
            seq: s + 1,
            prev: hash,
            keyed_from: 0,
            prefix_sha256: None,
        });
    };
    if s < e.seq {
        return refuse(format!(
            "the log ends at seq {s}, before its anchored head seq {} (tail deleted)",
            e.seq
        ));
    }
    if s == e.seq && hash != e.hash {
        return refuse("the last record differs from the anchored head".into());
    }
    if s >= e.keyed_from {
        let body = serde_json::to_vec(&last).map_err(|e| Error::internal(e.to_string()))?;
        if !keys.mac_ok(&body, &hash) {
            return refuse("the last record's hash is not keyed with this home's key".into());
        }
    }
    Ok(Tip {
        seq: s + 1,
        prev: hash,
        keyed_from: e.keyed_from,
        prefix_sha256: e.prefix_sha256.clone(),
    })
}

/// Appends `record` to a keyed chain; returns it as written (with `seq`, `prev`, `hash`).
pub fn append(
    keys: &Keyring,
    path: &Path,
    record: Map<String, Value>,
) -> Result<Map<String, Value>> {
    let mut written = append_batch(keys, path, vec![record])?;
    written
        .pop()
        .ok_or_else(|| Error::internal("append_batch wrote nothing"))
}

/// Appends several records under one lock with one write and one fdatasync, then one
/// manifest update, chaining them exactly as [`append`] would one by one. An empty batch
/// writes nothing. Refuses (`conflict`) a torn tail (`bob ledger repair` first) and a log that
/// fails its manifest check (see [`check_appendable`]).
///
/// A log the manifest lists already is checked against the manifest as it stands, read
/// without its lock (it is replaced whole, so a read sees one version or the next, and an
/// anchor only moves forward); its lock is let go before the fdatasync and [`anchor`] does
/// the rest. A log listed for the first time is written, synced and anchored under the
/// manifest's lock: an appender that found it unlisted would adopt it as a legacy log.
pub fn append_batch(
    keys: &Keyring,
    path: &Path,
    records: Vec<Map<String, Value>>,
) -> Result<Vec<Map<String, Value>>> {
    append_under(keys, path, records, REKEY_RETRIES)
}

/// How many rekeys one append follows before it gives up (each one it meets while rekeys
/// run back to back).
const REKEY_RETRIES: u32 = 8;

fn append_under(
    keys: &Keyring,
    path: &Path,
    records: Vec<Map<String, Value>>,
    retries: u32,
) -> Result<Vec<Map<String, Value>>> {
    if records.is_empty() {
        return Ok(records);
    }
    let mut file = store::open_log(path)?;
    let seen = match keys.manifest_as_read() {
        Ok(seen) => seen,
        // A rekey ran (or is running) since this writer loaded its key: nothing is written
        // yet, so once the rekey is done the records go in under the key it left.
        Err(e) => {
            drop(file);
            let now = {
                let _lock = Lock::exclusive(&store::lock_path(&keys.manifest_path()))?;
                keys.after_rekey()
            };
            return match now {
                Some((now, _)) if retries > 0 => append_under(&now, path, records, retries - 1),
                _ => Err(e),
            };
        }
    };
    let rel = keys.rel(path);
    if !seen.manifest.files.contains_key(&rel) {
        // A log listed for the first time: written, synced and anchored under the manifest's
        // lock, with the `keys/` directory fsync unless another append listed it meanwhile
        // (an older manifest would not list the log at all).
        let _lock = Lock::exclusive(&store::lock_path(&keys.manifest_path()))?;
        let mut manifest = keys.reread_manifest(seen)?;
        let c = chain(keys, tip(keys, &mut file, path, &manifest)?, records)?;
        file.write_all(&c.bytes).map_err(io(path))?;
        file.sync_data().map_err(io(path))?;
        let listed = manifest.files.insert(rel, c.head).is_some();
        manifest.generation += 1;
        keys.write_manifest(&mut manifest, !listed)?;
        return Ok(c.records);
    }
    let c = chain(keys, tip(keys, &mut file, path, &seen.manifest)?, records)?;
    file.write_all(&c.bytes).map_err(io(path))?;
    // Unanchored until `anchor`: a state the chain accepts (see "Durability of an append").
    let synced = store::SyncGroup::wrote(path);
    file.unlock().map_err(io(path))?;
    synced.sync(&file, path)?;
    anchor(keys, path, c.head, seen)?;
    Ok(c.records)
}

/// Records chained on from a tip, ready to append.
struct Chained {
    /// The lines to write.
    bytes: Vec<u8>,
    /// The records as written (with `seq`, `prev`, `hash`).
    records: Vec<Map<String, Value>>,
    /// The log's head once they are written.
    head: Entry,
}

/// Chains `records` on from `tip`.
fn chain(keys: &Keyring, tip: Tip, records: Vec<Map<String, Value>>) -> Result<Chained> {
    let Tip {
        mut seq,
        mut prev,
        keyed_from,
        prefix_sha256,
    } = tip;
    let mut buf = Vec::new();
    let mut written = Vec::with_capacity(records.len());
    for mut record in records {
        for k in [RECORD_KEY_FIELD, "seq", "prev", "hash"] {
            record.shift_remove(k);
        }
        record.insert(RECORD_KEY_FIELD.into(), Value::from(keys.key_id.as_str()));
        record.insert("seq".into(), Value::from(seq));
        record.insert("prev".into(), Value::from(prev.clone()));
        let body = serde_json::to_vec(&record).map_err(|e| Error::internal(e.to_string()))?;
        let hash = keys.mac_hex(&body);
        record.insert("hash".into(), Value::from(hash.clone()));
        buf.extend_from_slice(&store::jsonl_line_verbatim(&record)?);
        written.push(record);
        prev = hash;
        seq += 1;
    }
    Ok(Chained {
        bytes: buf,
        records: written,
        head: Entry {
            seq: seq - 1,
            hash: prev,
            keyed_from,
            prefix_sha256,
        },
    })
}

/// A log of one home: (manifest path, the log as the manifest names it).
type LogKey = (PathBuf, String);

/// This process's anchoring state: heads synced but not yet anchored, and the head this
/// process last anchored, per log.
struct Anchors {
    pending: BTreeMap<LogKey, Entry>,
    anchored: BTreeMap<LogKey, u64>,
}

static ANCHORS: std::sync::Mutex<Anchors> = std::sync::Mutex::new(Anchors {
    pending: BTreeMap::new(),
    anchored: BTreeMap::new(),
});
/// One manifest write at a time in this process: appenders that synced meanwhile wait here,
/// and the next writer anchors all their heads at once (group commit of the manifest).
static ANCHORING: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn with_anchors<R>(f: impl FnOnce(&mut Anchors) -> R) -> R {
    f(&mut ANCHORS.lock().unwrap_or_else(|e| e.into_inner()))
}

/// Anchors a listed log's synced head in the manifest, with the heads other threads of this
/// process synced meanwhile, in one manifest write; returns at once when a later head of the
/// log is anchored already (its fdatasync, after this head's write, covered it). The `keys/`
/// directory is not fsynced: a lost rename brings back a manifest that anchors the log at an
/// older head, which the chain accepts (unanchored records, re-anchored by the next append).
///
/// `seen` is the manifest as the append read it: re-read under the lock, it is parsed and
/// authenticated again only when another append replaced it meanwhile.
fn anchor(keys: &Keyring, path: &Path, head: Entry, seen: ManifestRead) -> Result<()> {
    let manifest_path = keys.manifest_path();
    let key: LogKey = (manifest_path.clone(), keys.rel(path));
    let seq = head.seq;
    let covered = |a: &Anchors| a.anchored.get(&key).is_some_and(|&s| s >= seq);
    with_anchors(|a| {
        if a.pending.get(&key).is_none_or(|e| e.seq < seq) {
            a.pending.insert(key.clone(), head);
        }
    });
    let _turn = ANCHORING.lock().unwrap_or_else(|e| e.into_inner());
    if with_anchors(|a| covered(a)) {
        return Ok(());
    }
    let _lock = Lock::exclusive(&store::lock_path(&manifest_path))?;
    let mut manifest = match keys.reread_manifest(seen) {
        Ok(m) => m,
        // A rekey ran between the write and this anchor: it adopted the log as it stood,
        // this record included, into the retired key's epoch. The append is anchored; an
        // error here would report as refused an act whose record is in the log.
        Err(e) => match keys.after_rekey() {
            Some((_, now)) if now.files.get(&key.1).is_some_and(|m| m.seq >= seq) => {
                with_anchors(|a| {
                    a.pending.remove(&key);
                });
                return Ok(());
            }
            _ => return Err(e),
        },
    };
    let batch: Vec<(LogKey, Entry)> = with_anchors(|a| {
        a.pending
            .iter()
            .filter(|((m, _), _)| *m == manifest_path)
            .map(|(k, e)| (k.clone(), e.clone()))
            .collect()
    });
    let mut changed = false;
    for ((_, rel), e) in &batch {
        if manifest.files.get(rel).is_none_or(|m| m.seq < e.seq) {
            manifest.files.insert(rel.clone(), e.clone());
            changed = true;
        }
    }
    if changed {
        manifest.generation += 1;
        keys.write_manifest(&mut manifest, false)?;
    }
    with_anchors(|a| {
        for (k, e) in batch {
            let now = manifest.files.get(&k.1).map_or(e.seq, |m| m.seq);
            if a.pending.get(&k).is_some_and(|p| p.seq <= now) {
                a.pending.remove(&k);
            }
            a.anchored.insert(k, now);
        }
    });
    Ok(())
}

/// The result of verifying one chained log.
#[derive(Debug, Clone, Serialize)]
pub struct ChainReport {
    pub path: String,
    pub ok: bool,
    /// `keyed` (every record under the home's key), `mixed` (an adopted prefix, legacy or of
    /// an earlier key epoch, then keyed records), `legacy` (plain SHA-256 only: a recomputed
    /// chain cannot be told apart), `missing` (listed in the manifest, absent from disk) or
    /// `key_missing` (the home has a manifest but not its key: nothing can be checked).
    pub integrity: &'static str,
    /// Whole records that verified, from the start of the file.
    pub verified: u64,
    /// Of those, the records verified as legacy SHA-256 links.
    #[serde(skip_serializing_if = "is_zero")]
    pub legacy_records: u64,
    /// Of those, the records verified with the retired key of an earlier epoch.
    #[serde(skip_serializing_if = "is_zero")]
    pub retired_key_records: u64,
    /// Of those, records of an earlier epoch whose key is missing: their links (and the head
    /// the rekey anchored) are checked, their hashes cannot be.
    #[serde(skip_serializing_if = "is_zero")]
    pub unverifiable: u64,
    /// Keyed records past the manifest's head (a crash between the log's write and the
    /// manifest's update; re-anchored by the next append).
    #[serde(skip_serializing_if = "is_zero")]
    pub unanchored: u64,
    /// The verified records by key epoch, in log order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub epochs: Vec<EpochRecords>,
    /// With `--anchor`: `ok`, `behind` (the log ends before the kept head) or `diverges`
    /// (another record sits at the kept head's seq).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub anchor: Option<&'static str>,
    /// The first line that breaks the chain (1-based), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_bad_line: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// A torn last record left by an interrupted append (never counted as verified).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub torn_line: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
}

/// A run of consecutive records of one log written under one key (or none).
#[derive(Debug, Clone, Serialize)]
pub struct EpochRecords {
    /// The key epoch (absent for legacy records).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub epoch: Option<u64>,
    /// The key they were written under (absent for legacy records, and for keyed records
    /// written before records named their key).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key_id: Option<String>,
    /// The 1-based lines.
    pub first_line: usize,
    pub last_line: usize,
    /// How they were checked: `key` (the current key), `retired_key`, `sha256` (legacy
    /// links) or `links_only` (their key is missing).
    pub checked: &'static str,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl ChainReport {
    fn new(path: &Path) -> ChainReport {
        ChainReport {
            path: path.display().to_string(),
            ok: true,
            integrity: "keyed",
            verified: 0,
            legacy_records: 0,
            retired_key_records: 0,
            unverifiable: 0,
            unanchored: 0,
            epochs: Vec::new(),
            anchor: None,
            first_bad_line: None,
            reason: None,
            torn_line: None,
            warning: None,
        }
    }

    fn fail(&mut self, line: usize, reason: impl Into<String>) {
        if self.ok {
            self.ok = false;
            self.first_bad_line = Some(line);
            self.reason = Some(reason.into());
        }
    }

    fn note(
        &mut self,
        line: usize,
        epoch: Option<u64>,
        key_id: Option<&str>,
        checked: &'static str,
    ) {
        if let Some(last) = self.epochs.last_mut()
            && last.checked == checked
            && last.key_id.as_deref() == key_id
            && last.last_line + 1 == line
        {
            last.last_line = line;
            return;
        }
        self.epochs.push(EpochRecords {
            epoch,
            key_id: key_id.map(str::to_string),
            first_line: line,
            last_line: line,
            checked,
        });
    }

    fn warn(&mut self, w: String) {
        self.warning = Some(match self.warning.take() {
            Some(before) => format!("{before}; {w}"),
            None => w,
        });
    }
}

/// A chain's head as an anchor keeps it: its last record's `seq` and `hash`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Head {
    pub seq: u64,
    pub hash: String,
}

fn head_path(path: &Path) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(".head");
    PathBuf::from(s)
}

/// How a log is named relative to a home (absolute when outside it).
fn rel_to(root: &Path, path: &Path) -> String {
    let abs = absolute(path);
    match abs.strip_prefix(root) {
        Ok(r) => r.to_string_lossy().into_owned(),
        Err(_) => abs.to_string_lossy().into_owned(),
    }
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
    files: BTreeMap<String, Head>,
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

/// What a verification knows about the home: its key and authenticated manifest, if any.
#[derive(Debug)]
pub struct Verifier {
    root: PathBuf,
    keys: Option<Keyring>,
    manifest: Option<Manifest>,
    /// Why the manifest could not be used (forged, missing, the key missing or another
    /// one), reported on every file.
    manifest_error: Option<String>,
    /// Logs an unauthenticated manifest names (still verified, so none goes unreported).
    listed: Vec<PathBuf>,
    /// The retired key of each earlier epoch (`None`: the key was missing at the rekey).
    retired: BTreeMap<String, (u64, Option<Keyring>)>,
    allow_legacy: bool,
    anchor: Option<Anchor>,
}

/// How one record was checked.
enum Checked {
    Key,
    Retired(u64),
    Legacy,
    Unverifiable(Option<u64>),
}

impl Verifier {
    /// Loads the home's key and manifest (creating nothing).
    pub fn for_home(home_root: &Path) -> Result<Verifier> {
        let root = absolute(home_root);
        let keys = Keyring::load(&root)?;
        let peeked = peek_manifest(&root)?;
        let (manifest, manifest_error) = match (&keys, &peeked) {
            (None, None) => (None, None),
            (None, Some(m)) => (None, Some(key_missing(&root, Some(&m.key_id)).message)),
            (Some(k), _) => match k.read_manifest() {
                Ok(Some(m)) => (Some(m), None),
                Ok(None) => (
                    None,
                    Some("keys/manifest.json is missing while the chain key exists".to_string()),
                ),
                Err(e) => (None, Some(e.message)),
            },
        };
        let listed = match (&manifest, &peeked) {
            (None, Some(m)) => m
                .files
                .keys()
                .map(|rel| {
                    let p = Path::new(rel);
                    if p.is_absolute() {
                        p.to_path_buf()
                    } else {
                        root.join(p)
                    }
                })
                .collect(),
            _ => Vec::new(),
        };
        let retired = manifest
            .iter()
            .flat_map(|m| &m.epochs)
            .map(|e| {
                let k = (e.key == "retired")
                    .then(|| Keyring::retired(&root, &e.key_id))
                    .flatten();
                (e.key_id.clone(), (e.epoch, k))
            })
            .collect();
        Ok(Verifier {
            root,
            keys,
            manifest,
            manifest_error,
            listed,
            retired,
            allow_legacy: false,
            anchor: None,
        })
    }

    /// Accepts records no key of the home can check (unkeyed legacy links, records of an
    /// epoch whose key was lost), still reported with a warning. Without it they fail.
    pub fn allow_legacy(mut self, allow: bool) -> Verifier {
        self.allow_legacy = allow;
        self
    }

    /// Checks every log against a kept anchor statement (see [`read_anchor`]).
    pub fn with_anchor(mut self, anchor: Anchor) -> Verifier {
        self.anchor = Some(anchor);
        self
    }

    /// Every log of the home: the ones found on disk, the ones the manifest lists, and the
    /// ones the anchor names.
    pub fn all_logs(&self, home_root: &Path) -> Vec<PathBuf> {
        let mut files = discover(home_root);
        let mut add = |p: PathBuf| {
            if !files.contains(&p) {
                files.push(p);
            }
        };
        if let Some(m) = &self.manifest {
            for rel in m.files.keys() {
                add(self.path_of(rel));
            }
        }
        for p in &self.listed {
            add(p.clone());
        }
        if let Some(a) = &self.anchor {
            for rel in a.files.keys() {
                add(self.path_of(rel));
            }
        }
        files
    }

    fn path_of(&self, rel: &str) -> PathBuf {
        let p = Path::new(rel);
        if p.is_absolute() {
            p.to_path_buf()
        } else {
            self.root.join(p)
        }
    }

    /// Checks one record of a log's prefix (before the current key's `keyed_from`), or of a
    /// home without a manifest: under the key it names when bob holds it, as a legacy link,
    /// or (for an epoch whose key the rekey recorded as missing) by its links only.
    fn check_adopted(&self, key_id: Option<&str>, body: &[u8], hash: &str) -> (bool, Checked) {
        let current = self.keys.as_ref().filter(|_| self.manifest.is_some());
        match key_id {
            Some(id) => {
                if let Some(k) = current.filter(|k| k.key_id == id) {
                    return (k.mac_ok(body, hash), Checked::Key);
                }
                match self.retired.get(id) {
                    Some((n, Some(k))) => (k.mac_ok(body, hash), Checked::Retired(*n)),
                    Some((n, None)) => (true, Checked::Unverifiable(Some(*n))),
                    None => (false, Checked::Unverifiable(None)),
                }
            }
            None => {
                if plain_hash(body) == hash {
                    return (true, Checked::Legacy);
                }
                // A keyed record written before records named their key.
                if let Some(k) = current
                    && k.mac_ok(body, hash)
                {
                    return (true, Checked::Key);
                }
                for (n, k) in self.retired.values() {
                    if let Some(k) = k
                        && k.mac_ok(body, hash)
                    {
                        return (true, Checked::Retired(*n));
                    }
                }
                match self.retired.values().find(|(_, k)| k.is_none()) {
                    Some((n, None)) => (true, Checked::Unverifiable(Some(*n))),
                    _ => (false, Checked::Legacy),
                }
            }
        }
    }

    /// Verifies one log: every link, the key, and its manifest anchor.
    /// Verifies one log, step by step: read it, walk its records, check its end against the
    /// manifest, check it against the kept anchor, judge what no key of this home can check.
    pub fn verify(&self, path: &Path) -> Result<ChainReport> {
        let mut report = ChainReport::new(path);
        let rel = rel_to(&self.root, path);
        let entry = self
            .manifest
            .as_ref()
            .and_then(|m| m.files.get(&rel).cloned());
        let kept = self
            .anchor
            .as_ref()
            .and_then(|a| a.files.get(&rel).cloned());
        let Some(bytes) = self.read_log(path, entry.as_ref(), kept.as_ref(), &mut report)? else {
            return Ok(report);
        };
        let contents = store::parse_jsonl(&bytes);
        let keys = self.keys.as_ref().filter(|_| self.manifest.is_some());
        if let Some(err) = &self.manifest_error {
            report.fail(1, err.clone());
        }
        let keyed_from = match (keys, &entry) {
            (None, _) => u64::MAX,
            (Some(_), Some(e)) => e.keyed_from,
            (Some(_), None) => 0,
        };
        if keys.is_some() && entry.is_none() && !contents.records.is_empty() {
            report.fail(
                1,
                "the log is not listed in the manifest (written without the key, or its entry \
                 removed)",
            );
        }
        let w = self.walk_records(
            &contents,
            keys,
            keyed_from,
            entry.as_ref(),
            kept.as_ref(),
            &mut report,
        )?;
        self.check_end(path, &bytes, keys, entry.as_ref(), &w, &mut report)?;
        self.check_kept_anchor(kept.as_ref(), &w, &mut report);
        self.judge_unchecked(&w, &mut report);
        Ok(report)
    }

    /// Step 1: the log's bytes; `None` (reported `missing`) when a log the manifest, the
    /// kept anchor or the listing names is gone.
    fn read_log(
        &self,
        path: &Path,
        entry: Option<&Entry>,
        kept: Option<&Head>,
        report: &mut ChainReport,
    ) -> Result<Option<Vec<u8>>> {
        match std::fs::read(path) {
            Ok(b) => Ok(Some(b)),
            Err(e)
                if e.kind() == std::io::ErrorKind::NotFound
                    && (entry.is_some()
                        || kept.is_some()
                        || self.listed.iter().any(|p| p == path)) =>
            {
                report.integrity = "missing";
                if let Some(k) = kept {
                    report.anchor = Some("behind");
                    report.fail(
                        1,
                        format!(
                            "the file is gone but the kept anchor has it at seq {} (file \
                             deleted, or the home rolled back)",
                            k.seq
                        ),
                    );
                }
                if let Some(err) = &self.manifest_error {
                    report.fail(1, err.clone());
                }
                let e = entry.map_or(0, |e| e.seq);
                report.fail(
                    1,
                    format!(
                        "the file is gone but the manifest anchors it at seq {e} (file deleted)"
                    ),
                );
                Ok(None)
            }
            Err(e) => Err(Error::io(path, e)),
        }
    }

    /// Step 2: every record in order: its seq, its link to the previous record, its MAC under
    /// the key its epoch had (or its adopted legacy/unverifiable form), and the kept anchor's
    /// head; then what follows the last whole record (a torn tail is noted, other damage fails).
    fn walk_records(
        &self,
        contents: &store::LogContents,
        keys: Option<&Keyring>,
        keyed_from: u64,
        entry: Option<&Entry>,
        kept: Option<&Head>,
        report: &mut ChainReport,
    ) -> Result<Walk> {
        let mut bad = contents.bad.iter().peekable();
        let mut w = Walk {
            prev: GENESIS.to_string(),
            next_seq: 0,
            anchored_hash: None,
            first_unchecked: None,
            missing_epochs: Vec::new(),
            records: contents.records.len(),
        };
        for (lineno, value) in &contents.records {
            if !report.ok {
                break;
            }
            if let Some(b) = bad.peek()
                && b.line < *lineno
            {
                report.fail(b.line, format!("{} line: {}", b.kind, b.reason));
                break;
            }
            let Value::Object(map) = value else {
                unreachable!("parse_jsonl keeps objects only")
            };
            let mut map = map.clone();
            let Some(Value::String(hash)) = map.shift_remove("hash") else {
                report.fail(*lineno, "record has no hash");
                break;
            };
            if map.get("seq").and_then(Value::as_u64) != Some(w.next_seq) {
                report.fail(
                    *lineno,
                    format!(
                        "seq is not {} (line deleted, inserted or reordered)",
                        w.next_seq
                    ),
                );
                break;
            }
            if map.get("prev").and_then(Value::as_str) != Some(w.prev.as_str()) {
                report.fail(
                    *lineno,
                    "prev does not match the previous record's hash (line deleted or reordered)",
                );
                break;
            }
            let key_id = map
                .get(RECORD_KEY_FIELD)
                .and_then(Value::as_str)
                .map(str::to_string);
            let body = serde_json::to_vec(&map).map_err(|e| Error::internal(e.to_string()))?;
            let (good, checked) = match keys {
                Some(k) if w.next_seq >= keyed_from => {
                    if let Some(id) = key_id.as_deref().filter(|id| *id != k.key_id) {
                        report.fail(
                            *lineno,
                            format!(
                                "the record names key {id}, not the home's key {} (written \
                                 under another key)",
                                k.key_id
                            ),
                        );
                        break;
                    }
                    (k.mac_ok(&body, &hash), Checked::Key)
                }
                _ => self.check_adopted(key_id.as_deref(), &body, &hash),
            };
            if !good {
                report.fail(
                    *lineno,
                    match checked {
                        Checked::Key => {
                            "hash does not match the record under the home's key (line edited, \
                             or chain recomputed without the key)"
                                .to_string()
                        }
                        Checked::Retired(n) => format!(
                            "hash does not match the record under the retired key of epoch {n} \
                             (line edited)"
                        ),
                        Checked::Unverifiable(_) => format!(
                            "the record names key {}, which this home neither holds nor retired \
                             (written under another key)",
                            key_id.as_deref().unwrap_or("?")
                        ),
                        Checked::Legacy if keys.is_none() && key_id.is_some() => {
                            "the record is keyed but the home has no key to check it".to_string()
                        }
                        Checked::Legacy => {
                            "hash does not match the record's content (line edited)".to_string()
                        }
                    },
                );
                break;
            }
            let epoch_of = |id: &str| self.retired.get(id).map(|(n, _)| *n);
            let current_epoch = self.manifest.as_ref().map(Manifest::epoch);
            match checked {
                Checked::Key => report.note(*lineno, current_epoch, key_id.as_deref(), "key"),
                Checked::Retired(n) => {
                    report.retired_key_records += 1;
                    report.note(*lineno, Some(n), key_id.as_deref(), "retired_key");
                }
                Checked::Legacy => {
                    report.legacy_records += 1;
                    w.first_unchecked.get_or_insert(*lineno);
                    report.note(*lineno, None, None, "sha256");
                }
                Checked::Unverifiable(n) => {
                    report.unverifiable += 1;
                    w.first_unchecked.get_or_insert(*lineno);
                    let n = n.or_else(|| key_id.as_deref().and_then(epoch_of));
                    let label = match (n, &key_id) {
                        (Some(n), Some(id)) => format!("epoch {n} (key {id})"),
                        (Some(n), None) => format!("epoch {n}"),
                        (None, Some(id)) => format!("key {id}"),
                        (None, None) => "an unknown key".to_string(),
                    };
                    if !w.missing_epochs.contains(&label) {
                        w.missing_epochs.push(label);
                    }
                    report.note(*lineno, n, key_id.as_deref(), "links_only");
                }
            }
            if entry.is_some_and(|e| e.seq == w.next_seq) {
                w.anchored_hash = Some(hash.clone());
            }
            if let Some(k) = kept
                && k.seq == w.next_seq
                && k.hash != hash
            {
                report.anchor = Some("diverges");
                report.fail(
                    *lineno,
                    format!(
                        "the record at seq {} differs from the kept anchor's head (the log was \
                         rewritten, or the home rolled back and written again)",
                        k.seq
                    ),
                );
                break;
            }
            w.prev = hash;
            w.next_seq += 1;
            report.verified += 1;
        }
        if report.ok
            && let Some(b) = bad.next()
        {
            if b.kind == "torn" {
                report.torn_line = Some(b.line);
            } else {
                report.fail(b.line, format!("{} line: {}", b.kind, b.reason));
            }
        }
        Ok(w)
    }

    /// Step 3: the log's end against the manifest's anchor (keyed logs: the tail and the head,
    /// and the digest of the records a rekey adopted) or the head file (legacy logs).
    fn check_end(
        &self,
        path: &Path,
        bytes: &[u8],
        keys: Option<&Keyring>,
        entry: Option<&Entry>,
        w: &Walk,
        report: &mut ChainReport,
    ) -> Result<()> {
        let (last_seq, records) = (w.last_seq(), w.records);
        match (keys, entry) {
            (Some(_), Some(e)) => {
                if report.ok {
                    if last_seq.is_none_or(|s| s < e.seq) {
                        report.fail(
                            records + 1,
                            format!(
                                "the log ends before the record seq {} the manifest anchors \
                                 (tail deleted)",
                                e.seq
                            ),
                        );
                    } else if w.anchored_hash.as_deref() != Some(e.hash.as_str()) {
                        report.fail(
                            e.seq as usize + 1,
                            "the record at the anchored seq differs from the manifest's head",
                        );
                    } else if let Some(want) = &e.prefix_sha256
                        && prefix_end(bytes, e.keyed_from)
                            .map(|end| store::sha256_hex(&bytes[..end]))
                            .as_ref()
                            != Some(want)
                    {
                        report.fail(
                            1,
                            format!(
                                "the {} record(s) adopted by the rekey were changed since (their \
                                 bytes no longer match the digest the manifest keeps)",
                                e.keyed_from
                            ),
                        );
                    } else {
                        report.unanchored = last_seq.map_or(0, |s| s - e.seq);
                    }
                }
                report.integrity = if e.keyed_from > 0 { "mixed" } else { "keyed" };
            }
            (Some(_), None) => {}
            (None, _) if self.manifest_error.is_some() => report.integrity = "key_missing",
            (None, _) => {
                report.integrity = "legacy";
                if report.ok
                    && let Some(head) = store::read_json::<Head>(&head_path(path))?
                {
                    if last_seq.is_none_or(|s| s < head.seq) {
                        report.fail(
                            records + 1,
                            format!(
                                "log ends before the anchored record seq {} (tail deleted)",
                                head.seq
                            ),
                        );
                    } else if last_seq == Some(head.seq) && w.prev != head.hash {
                        report.fail(records, "last record differs from the anchored hash");
                    }
                }
            }
        }
        Ok(())
    }

    /// Step 4: the log against the anchor kept outside the home (`--anchor`): a log that ends
    /// before the seq it names rolled back.
    fn check_kept_anchor(&self, kept: Option<&Head>, w: &Walk, report: &mut ChainReport) {
        let (last_seq, records) = (w.last_seq(), w.records);
        if let Some(k) = kept
            && report.anchor.is_none()
        {
            if last_seq.is_none_or(|s| s < k.seq) {
                report.anchor = Some("behind");
                report.fail(
                    records + 1,
                    format!(
                        "the log ends before seq {} that the kept anchor of {} names (the home \
                         or this log rolled back, or its tail deleted)",
                        k.seq,
                        self.anchor.as_ref().map_or("", |a| a.ts.as_str())
                    ),
                );
            } else if report.ok {
                report.anchor = Some("ok");
            }
        }
    }

    /// Step 5: what the records checked without this home's key amount to: warnings, and a
    /// failure unless `--allow-legacy` accepts them.
    fn judge_unchecked(&self, w: &Walk, report: &mut ChainReport) {
        if report.legacy_records > 0 {
            report.warn(if report.integrity == "legacy" {
                "unkeyed legacy chain (this home has no chain key): edits, deletions and \
                 reordering are detected, a chain recomputed from scratch is not"
                    .to_string()
            } else {
                format!(
                    "{} unkeyed legacy record(s) adopted by a rekey: checked as SHA-256 links \
                     and anchored by the keyed records after them, but a prefix recomputed \
                     before the rekey cannot be told apart",
                    report.legacy_records
                )
            });
        }
        if report.unverifiable > 0 {
            report.warn(format!(
                "{} record(s) of {} are unverifiable: that key was missing at the rekey, so \
                 their links and the bytes the rekey adopted are checked, not who wrote them",
                report.unverifiable,
                w.missing_epochs.join(", ")
            ));
        }
        if let Some(line) = w.first_unchecked
            && !self.allow_legacy
        {
            report.fail(
                line,
                "records no key of this home can check (legacy or of a lost key's epoch); \
                 `bob ledger verify --allow-legacy` accepts them, still reported",
            );
        }
    }
}

/// What walking a log's records left: the last record's hash, the next seq, the hash at the
/// manifest's anchored seq, and where records no key of this home can check start.
struct Walk {
    prev: String,
    next_seq: u64,
    anchored_hash: Option<String>,
    first_unchecked: Option<usize>,
    missing_epochs: Vec<String>,
    /// Whole records the log holds.
    records: usize,
}

impl Walk {
    fn last_seq(&self) -> Option<u64> {
        self.next_seq.checked_sub(1)
    }
}

/// Moves a torn last record of a log aside into `<log>.torn.<n>` and truncates it away, so that
/// appends can continue. Returns the side file, or `None` when the log was whole. Whole
/// records (and so the manifest's anchor) are never touched.
pub fn repair_torn_tail(path: &Path) -> Result<Option<PathBuf>> {
    let mut file = store::open_log(path)?;
    if !store::has_torn_tail(&mut file, path)? {
        return Ok(None);
    }
    let len = file.metadata().map_err(io(path))?.len();
    file.seek(SeekFrom::Start(0)).map_err(io(path))?;
    let mut bytes = Vec::with_capacity(len as usize);
    file.read_to_end(&mut bytes).map_err(io(path))?;
    let cut = memchr::memrchr(b'\n', &bytes).map(|i| i + 1).unwrap_or(0);
    let mut n = 0;
    let side = loop {
        let mut s = path.as_os_str().to_owned();
        s.push(format!(".torn.{n}"));
        let p = PathBuf::from(s);
        if !p.exists() {
            break p;
        }
        n += 1;
    };
    store::write_bytes_atomic(&side, &bytes[cut..])?;
    file.set_len(cut as u64).map_err(io(path))?;
    file.sync_all().map_err(io(path))?;
    Ok(Some(side))
}

/// Chains one record onto a chain kept outside a file (the shared store's ledger rows): the
/// record gets `key_id`, `seq`, `prev` and the keyed `hash` exactly as [`append`] gives a line,
/// so one verifier rule covers both. The caller holds the chain's lock and read `prev` (the
/// last record's `hash`, [`GENESIS`] for the first) under it.
pub fn link(
    keys: &Keyring,
    seq: u64,
    prev: &str,
    record: Map<String, Value>,
) -> Result<Map<String, Value>> {
    let tip = Tip {
        seq,
        prev: prev.to_string(),
        keyed_from: 0,
        prefix_sha256: None,
    };
    chain(keys, tip, vec![record])?
        .records
        .pop()
        .ok_or_else(|| Error::internal("chain wrote nothing"))
}

/// Verifies a chain kept outside a file, given as its records' JSON texts in `seq` order
/// (`name` says where it lives): each record must be valid JSON, carry the next `seq`, link
/// to the previous record's `hash` and carry a `hash` that is the MAC of the rest under
/// `keys`. The report reads as a file's (`first_bad_line` is the 1-based record).
pub fn verify_records(keys: &Keyring, name: &str, records: &[String]) -> ChainReport {
    let mut report = ChainReport::new(Path::new(name));
    let mut prev = GENESIS.to_string();
    for (i, text) in records.iter().enumerate() {
        let line = i + 1;
        let mut rec: Map<String, Value> = match serde_json::from_str(text) {
            Ok(r) => r,
            Err(e) => {
                report.fail(line, format!("record {i} is not a JSON object: {e}"));
                return report;
            }
        };
        let hash = match rec.shift_remove("hash") {
            Some(Value::String(h)) => h,
            _ => {
                report.fail(line, format!("record {i} carries no hash"));
                return report;
            }
        };
        if rec.get("seq").and_then(Value::as_u64) != Some(i as u64) {
            report.fail(
                line,
                format!("record {i} carries another seq (deleted or inserted records)"),
            );
            return report;
        }
        if rec.get("prev").and_then(Value::as_str) != Some(prev.as_str()) {
            report.fail(
                line,
                format!("record {i} does not link to the record before it"),
            );
            return report;
        }
        let key_id = rec
            .get(RECORD_KEY_FIELD)
            .and_then(Value::as_str)
            .unwrap_or("");
        if key_id != keys.key_id {
            report.fail(
                line,
                format!(
                    "record {i} was written under key {key_id:?}, not this node's key {} \
                     (every node of one database must share the chain key: keys.file)",
                    keys.key_id
                ),
            );
            return report;
        }
        let body = match serde_json::to_vec(&rec) {
            Ok(b) => b,
            Err(e) => {
                report.fail(line, e.to_string());
                return report;
            }
        };
        if !keys.mac_ok(&body, &hash) {
            report.fail(
                line,
                format!("record {i}'s hash does not match its content"),
            );
            return report;
        }
        report.verified += 1;
        report.note(line, None, Some(key_id), "key");
        prev = hash;
    }
    report
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(n: u64) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("n".into(), Value::from(n));
        m
    }

    #[test]
    fn batched_chain_is_byte_identical_to_one_by_one() {
        let dir = tempfile::tempdir().unwrap();
        let keys = Keyring::open(dir.path()).unwrap();
        let (a, b) = (dir.path().join("a.jsonl"), dir.path().join("b.jsonl"));
        for n in 0..5 {
            append(&keys, &a, rec(n)).unwrap();
        }
        append(&keys, &b, rec(0)).unwrap();
        let written = append_batch(&keys, &b, (1..5).map(rec).collect()).unwrap();
        assert_eq!(written.len(), 4);
        assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
        let v = Verifier::for_home(dir.path()).unwrap();
        let r = v.verify(&b).unwrap();
        assert!(r.ok && r.integrity == "keyed" && r.verified == 5, "{r:?}");
        assert!(append_batch(&keys, &b, Vec::new()).unwrap().is_empty());
    }

    /// Threads of one process (serve's workers) share the fdatasyncs of one log and the
    /// manifest writes that anchor it: whatever the interleaving, every record is there once,
    /// in one chain, and the manifest anchors the last one, for each of two logs.
    #[test]
    fn threads_appending_at_once_share_syncs_and_anchor_every_log_at_its_last_record() {
        let dir = tempfile::tempdir().unwrap();
        let keys = std::sync::Arc::new(Keyring::open(dir.path()).unwrap());
        let logs = [dir.path().join("a.jsonl"), dir.path().join("b.jsonl")];
        for log in &logs {
            append(&keys, log, rec(0)).unwrap();
        }
        let (threads, each) = (8u64, 40u64);
        std::thread::scope(|s| {
            for t in 0..threads {
                let (keys, logs) = (keys.clone(), &logs);
                s.spawn(move || {
                    for i in 0..each {
                        let log = &logs[((t + i) % 2) as usize];
                        append(&keys, log, rec(1 + t * each + i)).unwrap();
                    }
                });
            }
        });
        let manifest = keys.read_manifest().unwrap().unwrap();
        let v = Verifier::for_home(dir.path()).unwrap();
        let mut seen = std::collections::HashSet::new();
        for log in &logs {
            let r = v.verify(log).unwrap();
            assert!(r.ok && r.unanchored == 0, "{r:?}");
            let lines = store::read_jsonl(log).unwrap().records;
            assert_eq!(manifest.files[&keys.rel(log)].seq, lines.len() as u64 - 1);
            for (_, l) in lines {
                seen.insert(l["n"].as_u64().unwrap());
            }
        }
        assert_eq!(
            seen.len() as u64,
            1 + threads * each,
            "a record went missing"
        );
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

    #[test]
    fn the_key_is_private_and_never_shown() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let keys = Keyring::open(dir.path()).unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&dir.path().join("keys")), 0o700);
        assert_eq!(mode(&dir.path().join("keys/chain.key")), 0o600);
        let key = std::fs::read(dir.path().join("keys/chain.key")).unwrap();
        assert!(!format!("{keys:?}").contains(&hex::encode(&key)));
        // A second open reads the same key.
        assert_eq!(Keyring::open(dir.path()).unwrap().key, keys.key);
    }
}
