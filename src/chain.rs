//! Keyed hash-chained logs (the approval ledger and the audit log) and the manifest that
//! anchors them (DESIGN.md §1 "Tamper evidence", §2 `keys/`).
//!
//! # Records
//!
//! Every record carries `seq` (its 0-based position), `prev` (the previous record's `hash`, 64
//! zeros for the first) and `hash` = **HMAC-SHA256** under the home's chain key of the record
//! serialized without its `hash` field. Editing, deleting, inserting or reordering a line
//! breaks the chain at that line, and nobody without the key can recompute a chain that
//! verifies: a chain rebuilt "from scratch" with plain SHA-256 (or with another key) fails at
//! its first record.
//!
//! # The key
//!
//! `keys/chain.key`: 32 random bytes from the OS, created on the first chained append of a
//! home (never by a read such as `bob ledger verify`), mode 0600 in a 0700 directory, kept
//! out of every log, never printed (`Keyring`'s `Debug` shows only the key id, the first 16
//! hex digits of the key's SHA-256). It is created atomically (written to a temp file, then
//! hard-linked into place, so two processes racing to create it end up with one key).
//!
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
//! delete `keys/` together with every log; an external copy of the manifest's `generation`
//! and heads (e.g. shipped off the machine by cron) detects both.
//!
//! # Legacy (unkeyed) logs
//!
//! Logs written before keys existed are chained with plain SHA-256 and anchored by a
//! `<log>.head` side file. When a home's key is created, every chained log already in the
//! home (`memory_approvals.jsonl`, `audit/**/*.jsonl`) is *adopted*: its current last record
//! becomes its manifest head, with `keyed_from` = the next seq. Records before `keyed_from`
//! are verified as legacy SHA-256 links, and the adopted head is checked against the
//! keyed manifest, so rewriting the legacy prefix after adoption is detected. A home without
//! a key (nothing chained was written by this version yet) verifies its logs as legacy:
//! the report says `integrity: "legacy"` with a warning that a recomputed chain cannot be
//! told apart, never a silent pass. New records are never written unkeyed, and `.head` is
//! no longer written (the manifest replaces it).

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
const MANIFEST_VERSION: u32 = 1;

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
    /// The first seq hashed with the key (records before it are adopted legacy links).
    pub keyed_from: u64,
}

/// `keys/manifest.json`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Manifest {
    pub version: u32,
    pub key_id: String,
    pub generation: u64,
    pub files: BTreeMap<String, Entry>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mac: Option<String>,
}

fn absolute(p: &Path) -> PathBuf {
    std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
}

impl Keyring {
    /// The home's key, created (with the manifest, adopting existing logs) when missing.
    pub fn open(home_root: &Path) -> Result<Keyring> {
        let root = absolute(home_root);
        if let Some(k) = Self::load(&root)? {
            return Ok(k);
        }
        let dir = root.join(KEYS_DIR);
        create_private_dir(&dir)?;
        let _lock = Lock::exclusive(&store::lock_path(&dir.join(MANIFEST_FILE)))?;
        if let Some(k) = Self::load(&root)? {
            return Ok(k);
        }
        let mut key = [0u8; 32];
        rand::RngCore::fill_bytes(&mut rand::rngs::OsRng, &mut key);
        let keys = Keyring::from_bytes(&root, key);
        // Adopt the logs already in the home before the key exists for anyone else: every
        // writer needs the key and then this lock before it writes.
        let mut manifest = Manifest {
            version: MANIFEST_VERSION,
            key_id: keys.key_id.clone(),
            ..Manifest::default()
        };
        for path in discover(&root) {
            // A log whose last line is damaged is left out: verify reports it as unlisted.
            if let Ok(Some((seq, hash))) = tail(&path) {
                manifest.files.insert(
                    keys.rel(&path),
                    Entry {
                        seq,
                        hash,
                        keyed_from: seq + 1,
                    },
                );
            }
        }
        keys.write_manifest(&mut manifest, true)?;
        let path = dir.join(KEY_FILE);
        let tmp = dir.join(format!(".{KEY_FILE}.tmp.{}", std::process::id()));
        let written = (|| {
            use std::os::unix::fs::OpenOptionsExt;
            let mut f = OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(true)
                .mode(0o600)
                .open(&tmp)
                .map_err(io(&tmp))?;
            f.write_all(&key).map_err(io(&tmp))?;
            f.sync_all().map_err(io(&tmp))?;
            std::fs::hard_link(&tmp, &path).map_err(io(&path))?;
            File::open(&dir)
                .and_then(|d| d.sync_all())
                .map_err(io(&dir))
        })();
        let _ = std::fs::remove_file(&tmp);
        written?;
        Ok(keys)
    }

    /// The home's key if it has one (never creates it).
    pub fn load(home_root: &Path) -> Result<Option<Keyring>> {
        let root = absolute(home_root);
        let path = root.join(KEYS_DIR).join(KEY_FILE);
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(Error::io(&path, e)),
        };
        let key: [u8; 32] = bytes.as_slice().try_into().map_err(|_| {
            Error::conflict(format!(
                "{} is damaged ({} bytes, expected 32)",
                path.display(),
                bytes.len()
            ))
            .with("path", path.display().to_string())
        })?;
        Ok(Some(Keyring::from_bytes(&root, key)))
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
        let body = serde_json::to_vec(&m).map_err(|e| Error::internal(e.to_string()))?;
        if !self.mac_ok(&body, &mac) {
            return Err(bad(
                "the manifest's mac does not match (edited, or written without the key)",
            ));
        }
        if m.key_id != self.key_id {
            return Err(bad("the manifest belongs to another key"));
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
pub fn check_appendable(keys: &Keyring, path: &Path) -> Result<()> {
    let mut file = store::open_log(path)?;
    let _manifest_lock = Lock::exclusive(&store::lock_path(&keys.manifest_path()))?;
    let manifest = keys.manifest_or_missing()?;
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
        // A legacy log seen for the first time: adopted as it is.
        return Ok(Tip {
            seq: s + 1,
            prev: hash,
            keyed_from: s + 1,
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
    if records.is_empty() {
        return Ok(records);
    }
    let mut file = store::open_log(path)?;
    let seen = keys.manifest_as_read()?;
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
    } = tip;
    let mut buf = Vec::new();
    let mut written = Vec::with_capacity(records.len());
    for mut record in records {
        for k in ["seq", "prev", "hash"] {
            record.shift_remove(k);
        }
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
    let mut manifest = keys.reread_manifest(seen)?;
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
    /// `keyed` (every record under the home's key), `mixed` (an adopted legacy prefix, then
    /// keyed records), `legacy` (plain SHA-256 only: a recomputed chain cannot be told apart)
    /// or `missing` (listed in the manifest, absent from disk).
    pub integrity: &'static str,
    /// Whole records that verified, from the start of the file.
    pub verified: u64,
    /// Of those, the records verified as legacy SHA-256 links.
    #[serde(skip_serializing_if = "is_zero")]
    pub legacy_records: u64,
    /// Keyed records past the manifest's head (a crash between the log's write and the
    /// manifest's update; re-anchored by the next append).
    #[serde(skip_serializing_if = "is_zero")]
    pub unanchored: u64,
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
            unanchored: 0,
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
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Head {
    seq: u64,
    hash: String,
}

fn head_path(path: &Path) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(".head");
    PathBuf::from(s)
}

/// What a verification knows about the home: its key and authenticated manifest, if any.
#[derive(Debug)]
pub struct Verifier {
    keys: Option<Keyring>,
    manifest: Option<Manifest>,
    /// Why the manifest could not be used (forged, missing), reported on every file.
    manifest_error: Option<String>,
}

impl Verifier {
    /// Loads the home's key and manifest (creating nothing).
    pub fn for_home(home_root: &Path) -> Result<Verifier> {
        let keys = Keyring::load(home_root)?;
        let (manifest, manifest_error) = match &keys {
            None => (None, None),
            Some(k) => match k.read_manifest() {
                Ok(Some(m)) => (Some(m), None),
                Ok(None) => (
                    None,
                    Some("keys/manifest.json is missing while the chain key exists".to_string()),
                ),
                Err(e) => (None, Some(e.message)),
            },
        };
        Ok(Verifier {
            keys,
            manifest,
            manifest_error,
        })
    }

    /// Every log of the home: the ones found on disk and the ones the manifest lists.
    pub fn all_logs(&self, home_root: &Path) -> Vec<PathBuf> {
        let mut files = discover(home_root);
        if let (Some(k), Some(m)) = (&self.keys, &self.manifest) {
            for rel in m.files.keys() {
                let p = k.path_of(rel);
                if !files.contains(&p) {
                    files.push(p);
                }
            }
        }
        files
    }

    /// Verifies one log: every link, the key, and its manifest anchor.
    pub fn verify(&self, path: &Path) -> Result<ChainReport> {
        let mut report = ChainReport::new(path);
        let entry = match (&self.keys, &self.manifest) {
            (Some(k), Some(m)) => m.files.get(&k.rel(path)).cloned(),
            _ => None,
        };
        let bytes = match std::fs::read(path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && entry.is_some() => {
                let e = entry.as_ref().map_or(0, |e| e.seq);
                report.integrity = "missing";
                report.fail(
                    1,
                    format!(
                        "the file is gone but the manifest anchors it at seq {e} (file deleted)"
                    ),
                );
                return Ok(report);
            }
            Err(e) => return Err(Error::io(path, e)),
        };
        let contents = store::parse_jsonl(&bytes);
        let keys = self.keys.as_ref();
        if let Some(err) = &self.manifest_error {
            report.fail(1, err.clone());
        }
        let keyed_from = match (keys, &entry) {
            (None, _) => u64::MAX,
            (Some(_), Some(e)) => e.keyed_from,
            (Some(_), None) => 0,
        };
        if keys.is_some()
            && self.manifest.is_some()
            && entry.is_none()
            && !contents.records.is_empty()
        {
            report.fail(
                1,
                "the log is not listed in the manifest (written without the key, or its entry \
                 removed)",
            );
        }
        let mut bad = contents.bad.iter().peekable();
        let mut prev = GENESIS.to_string();
        let mut expected_seq = 0u64;
        let mut anchored_hash: Option<String> = None;
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
            if map.get("seq").and_then(Value::as_u64) != Some(expected_seq) {
                report.fail(
                    *lineno,
                    format!("seq is not {expected_seq} (line deleted, inserted or reordered)"),
                );
                break;
            }
            if map.get("prev").and_then(Value::as_str) != Some(prev.as_str()) {
                report.fail(
                    *lineno,
                    "prev does not match the previous record's hash (line deleted or reordered)",
                );
                break;
            }
            let body = serde_json::to_vec(&map).map_err(|e| Error::internal(e.to_string()))?;
            let good = match keys {
                Some(k) if expected_seq >= keyed_from => k.mac_ok(&body, &hash),
                _ => plain_hash(&body) == hash,
            };
            if !good {
                report.fail(
                    *lineno,
                    if keys.is_some() && expected_seq >= keyed_from {
                        "hash does not match the record under the home's key (line edited, or \
                         chain recomputed without the key)"
                    } else {
                        "hash does not match the record's content (line edited)"
                    },
                );
                break;
            }
            if expected_seq < keyed_from {
                report.legacy_records += 1;
            }
            if entry.as_ref().is_some_and(|e| e.seq == expected_seq) {
                anchored_hash = Some(hash.clone());
            }
            prev = hash;
            expected_seq += 1;
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
        let last_seq = expected_seq.checked_sub(1);
        let records = contents.records.len();
        match (keys, &entry) {
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
                    } else if anchored_hash.as_deref() != Some(e.hash.as_str()) {
                        report.fail(
                            e.seq as usize + 1,
                            "the record at the anchored seq differs from the manifest's head",
                        );
                    } else {
                        report.unanchored = last_seq.map_or(0, |s| s - e.seq);
                    }
                }
                report.integrity = if e.keyed_from > 0 { "mixed" } else { "keyed" };
            }
            (Some(_), None) => {}
            (None, _) => {
                report.integrity = "legacy";
                if records > 0 {
                    report.warning = Some(
                        "unkeyed legacy chain (this home has no chain key yet): edits, \
                         deletions and reordering are detected, a chain recomputed from \
                         scratch is not"
                            .into(),
                    );
                }
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
                    } else if last_seq == Some(head.seq) && prev != head.hash {
                        report.fail(records, "last record differs from the anchored hash");
                    }
                }
            }
        }
        Ok(report)
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
