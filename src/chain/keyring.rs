//! The home's chain key: where its file lives, loading and creating it, and the manifest it
//! authenticates (read, written and re-read under its lock).

use super::manifest::{
    KEY_FILE, KEYS_DIR, MANIFEST_FILE, MANIFEST_VERSION, Manifest, ManifestRead, RETIRED_DIR,
    absolute, create_private_dir, has_records, io, peek_manifest,
};
use crate::error::{Error, Result};
use crate::store::{self, Lock};
use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256};
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

type HmacSha256 = Hmac<Sha256>;

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

/// A home's chain key. Its `Debug` form never shows the key.
#[derive(Clone)]
pub struct Keyring {
    pub(super) root: PathBuf,
    pub(super) key: [u8; 32],
    pub(super) key_id: String,
}

impl std::fmt::Debug for Keyring {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Keyring")
            .field("root", &self.root)
            .field("key_id", &self.key_id)
            .finish_non_exhaustive()
    }
}

/// The error of a writer or a verification that finds no key where a home's logs need one.
pub(super) fn key_missing(root: &Path, manifest_key: Option<&str>) -> Error {
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

/// Writes a key file, mode 0600: created once (hard-linked into place, so two processes
/// racing to create it end up with one key) or, with `replace`, renamed over the old one.
pub(super) fn write_key(path: &Path, key: &[u8; 32], replace: bool) -> Result<()> {
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

    pub(super) fn load_file(root: &Path, path: &Path) -> Result<Option<Keyring>> {
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
    pub(super) fn retired(root: &Path, key_id: &str) -> Option<Keyring> {
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

    pub(super) fn from_bytes(root: &Path, key: [u8; 32]) -> Keyring {
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
    pub(super) fn after_rekey(&self) -> Option<(Keyring, Manifest)> {
        let now = Self::load(&self.root).ok().flatten()?;
        let manifest = now.read_manifest().ok().flatten()?;
        let known =
            now.key_id == self.key_id || manifest.epochs.iter().any(|e| e.key_id == self.key_id);
        known.then_some((now, manifest))
    }

    pub(super) fn mac_hex(&self, bytes: &[u8]) -> String {
        let mut m =
            <HmacSha256 as Mac>::new_from_slice(&self.key).expect("HMAC takes a key of any length");
        m.update(bytes);
        hex::encode(m.finalize().into_bytes())
    }

    pub(super) fn mac_ok(&self, bytes: &[u8], hex_mac: &str) -> bool {
        let Ok(want) = hex::decode(hex_mac) else {
            return false;
        };
        let mut m =
            <HmacSha256 as Mac>::new_from_slice(&self.key).expect("HMAC takes a key of any length");
        m.update(bytes);
        m.verify_slice(&want).is_ok()
    }

    pub(super) fn manifest_path(&self) -> PathBuf {
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

    pub(super) fn path_of(&self, rel: &str) -> PathBuf {
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
    pub(super) fn read_manifest_as_read(&self) -> Result<Option<ManifestRead>> {
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
    pub(super) fn authenticate(&self, bytes: &[u8]) -> Result<Manifest> {
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
    pub(super) fn reread_manifest(&self, before: ManifestRead) -> Result<Manifest> {
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
    pub(super) fn write_manifest(&self, m: &mut Manifest, sync_dir: bool) -> Result<()> {
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

    pub(super) fn manifest_or_missing(&self) -> Result<Manifest> {
        Ok(self.manifest_as_read()?.manifest)
    }

    pub(super) fn manifest_as_read(&self) -> Result<ManifestRead> {
        self.read_manifest_as_read()?.ok_or_else(|| self.missing())
    }

    pub(super) fn missing(&self) -> Error {
        Error::conflict(format!(
            "{} is missing while the chain key exists (deleted?); bob will not append \
             to logs it can no longer anchor",
            self.manifest_path().display()
        ))
        .retryable(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
