//! Moving a node's keys to another node: `bob keys export` / `bob keys import`.
//!
//! Several nodes of one shared database must hold the same chain key (the ledger and audit
//! chains in the database are keyed with it) and the same secrets key. Neither ever sits in
//! the database. This module promises:
//!
//! * **One bundle.** [`export`] gives the chain key and the secrets key as one JSON document
//!   (`{"format":"bob-keys","version":1,"chain_key_id","chain_key","secrets_key_id",
//!   "secrets_key"}`, keys in hex). It makes the keys of a brand-new home first (as its first
//!   chained write would), so the first node can hand them out before anything else; a home
//!   whose chained logs lost their key is refused as every writer is (`conflict`).
//! * **Owner-only, never on a terminal.** [`write_bundle`] creates the file with mode 0600 and
//!   never overwrites one (`conflict`); the CLI refuses to write the bundle to a terminal.
//!   [`read_bundle`] refuses a bundle file readable by group or others (`policy.denied`).
//! * **Import never loses data.** [`import`] installs each key where this node reads it (the
//!   home, or outside it with `keys.file`). The same key already there is left alone
//!   (`unchanged`). A different key is replaced only when nothing depends on it: a chain key
//!   under which no chained record was written (its empty manifest is dropped with it and
//!   written again under the imported key), a secrets key with no stored secret. A different
//!   key that records or secrets depend on is `conflict` (exit 5), naming both fingerprints:
//!   import into a fresh home instead. There is no `--force`: a replaced key in use would leave
//!   this node's logs unverifiable or its secrets unreadable. On the shared database, a
//!   secrets key that does not open every secret the database holds is `conflict` too (naming
//!   the secret): the bundle must come from a node of that database.
//! * **Audited.** An import that changed anything is recorded as a human act
//!   (`keys.import`, fingerprints only), under the imported chain key.

use crate::chain::{self, Keyring};
use crate::error::{Error, Result};
use crate::home::Home;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::io::Write;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// The bundle's `format`.
pub const FORMAT: &str = "bob-keys";
const VERSION: u32 = 1;

/// The exported keys. Its `Debug` form shows fingerprints only.
#[derive(Clone, Serialize, Deserialize)]
pub struct Bundle {
    pub format: String,
    pub version: u32,
    pub chain_key_id: String,
    chain_key: String,
    pub secrets_key_id: String,
    secrets_key: String,
}

impl std::fmt::Debug for Bundle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bundle")
            .field("chain_key_id", &self.chain_key_id)
            .field("secrets_key_id", &self.secrets_key_id)
            .finish_non_exhaustive()
    }
}

/// A key's fingerprint: the first 16 hex digits of its SHA-256 (as the chain's key id).
pub fn fingerprint(key: &[u8; 32]) -> String {
    hex::encode(Sha256::digest(key))[..16].to_string()
}

fn read_raw(path: &Path) -> Result<[u8; 32]> {
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    bytes.as_slice().try_into().map_err(|_| {
        Error::conflict(format!(
            "{} is damaged ({} bytes, expected 32)",
            path.display(),
            bytes.len()
        ))
        .with("path", path.display().to_string())
    })
}

/// What an export tells (never the keys).
#[derive(Debug, Clone, Serialize)]
pub struct Exported {
    pub chain_key_id: String,
    pub secrets_key_id: String,
    /// Where the keys were read from.
    pub chain_key_file: String,
    pub secrets_key_file: String,
}

/// The bundle of `home`'s keys (made first for a brand-new home; see the module docs).
pub fn export(home: &Home) -> Result<(Bundle, Exported)> {
    let keyring = Keyring::open(home.root())?;
    let chain_path = chain::key_path(home.root());
    let chain_key = read_raw(&chain_path)?;
    if fingerprint(&chain_key) != keyring.key_id() {
        return Err(Error::conflict(format!(
            "the chain key {} changed while it was read; try again",
            chain_path.display()
        )));
    }
    let secrets_key = crate::secrets::ensure_key(home)?;
    let bundle = Bundle {
        format: FORMAT.to_string(),
        version: VERSION,
        chain_key_id: fingerprint(&chain_key),
        chain_key: hex::encode(chain_key),
        secrets_key_id: fingerprint(&secrets_key),
        secrets_key: hex::encode(secrets_key),
    };
    let exported = Exported {
        chain_key_id: bundle.chain_key_id.clone(),
        secrets_key_id: bundle.secrets_key_id.clone(),
        chain_key_file: chain_path.display().to_string(),
        secrets_key_file: crate::secrets::key_path(home).display().to_string(),
    };
    Ok((bundle, exported))
}

impl Bundle {
    /// The bundle as written to its file (one JSON line).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = serde_json::to_vec(self).expect("a bundle serializes");
        out.push(b'\n');
        out
    }

    /// Parses and checks a bundle (`invalid.request` for anything else).
    pub fn parse(bytes: &[u8]) -> Result<Bundle> {
        let bad = |m: &str| Error::invalid(format!("not a bob keys bundle: {m}"));
        let b: Bundle = serde_json::from_slice(bytes).map_err(|e| bad(&e.to_string()))?;
        if b.format != FORMAT {
            return Err(bad(&format!(
                "format is {:?}, expected {FORMAT:?}",
                b.format
            )));
        }
        if b.version != VERSION {
            return Err(bad(&format!("version {} is not {VERSION}", b.version)));
        }
        for (key, id, what) in [
            (b.chain_key()?, &b.chain_key_id, "chain"),
            (b.secrets_key()?, &b.secrets_key_id, "secrets"),
        ] {
            if &fingerprint(&key) != id {
                return Err(bad(&format!(
                    "the {what} key does not match its fingerprint (damaged)"
                )));
            }
        }
        Ok(b)
    }

    fn decode(hex_key: &str, what: &str) -> Result<[u8; 32]> {
        hex::decode(hex_key)
            .ok()
            .and_then(|v| <[u8; 32]>::try_from(v.as_slice()).ok())
            .ok_or_else(|| {
                Error::invalid(format!(
                    "not a bob keys bundle: the {what} key is not 64 hex digits"
                ))
            })
    }

    fn chain_key(&self) -> Result<[u8; 32]> {
        Self::decode(&self.chain_key, "chain")
    }

    fn secrets_key(&self) -> Result<[u8; 32]> {
        Self::decode(&self.secrets_key, "secrets")
    }
}

/// Writes a bundle to a new owner-only file (mode 0600); an existing file is `conflict`.
pub fn write_bundle(path: &Path, bundle: &Bundle) -> Result<()> {
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
        .map_err(|e| {
            if e.kind() == std::io::ErrorKind::AlreadyExists {
                Error::conflict(format!(
                    "{} exists: a keys bundle is never written over a file",
                    path.display()
                ))
                .with("path", path.display().to_string())
                .retryable(false)
            } else {
                Error::io(path, e)
            }
        })?;
    let written = f
        .write_all(&bundle.to_bytes())
        .and_then(|()| f.sync_all())
        .map_err(|e| Error::io(path, e));
    if written.is_err() {
        let _ = std::fs::remove_file(path);
    }
    written
}

/// Reads a bundle file, refusing one readable by group or others (`policy.denied`).
pub fn read_bundle(path: &Path) -> Result<Bundle> {
    let meta = std::fs::metadata(path).map_err(|e| Error::io(path, e))?;
    let mode = meta.permissions().mode() & 0o777;
    if mode & 0o077 != 0 {
        return Err(Error::denied(format!(
            "{} is readable by others (mode {mode:o}); a keys bundle must be 0600",
            path.display()
        ))
        .with("path", path.display().to_string()));
    }
    Bundle::parse(&std::fs::read(path).map_err(|e| Error::io(path, e))?)
}

/// What happened to one key on import.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum KeyChange {
    /// The node had no key: the imported one is installed.
    Installed,
    /// The node held this very key.
    Unchanged,
    /// The node held another key nothing depended on; it was replaced.
    Replaced,
}

/// What an import did.
#[derive(Debug, Clone, Serialize)]
pub struct Imported {
    pub chain_key_id: String,
    pub chain: KeyChange,
    pub chain_key_file: String,
    pub secrets_key_id: String,
    pub secrets: KeyChange,
    pub secrets_key_file: String,
}

/// The payload of the `keys.import` audit event.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct KeysImported<'a> {
    pub chain_key_id: &'a str,
    pub chain: &'a str,
    pub secrets_key_id: &'a str,
    pub secrets: &'a str,
}

impl crate::contracts::AuditPayload for KeysImported<'_> {
    fn event_type(&self) -> &'static str {
        "keys.import"
    }
}

fn in_use(what: &str, have: &str, new: &str, path: &Path, why: &str) -> Error {
    Error::conflict(format!(
        "this node already holds another {what} key ({have}, at {}) that {why}; importing {new} \
         would make them unreadable. Import into a fresh home instead",
        path.display()
    ))
    .with("path", path.display().to_string())
    .with("key_id", have.to_string())
    .with("imported_key_id", new.to_string())
    .retryable(false)
}

/// Installs a bundle's keys where `home` reads them (see the module docs).
pub fn import(home: &Home, bundle: &Bundle) -> Result<Imported> {
    let root = home.root();
    let chain_key = bundle.chain_key()?;
    let secrets_key = bundle.secrets_key()?;
    let chain_path = chain::key_path(root);
    let secrets_path = crate::secrets::key_path(home);

    // Decide both before writing either, so a refusal changes nothing.
    let chain_change = match existing(&chain_path)? {
        None => KeyChange::Installed,
        Some(k) if k == chain_key => KeyChange::Unchanged,
        Some(k) => {
            if chained_records(root) {
                return Err(in_use(
                    "chain",
                    &fingerprint(&k),
                    &bundle.chain_key_id,
                    &chain_path,
                    "this node's chained logs were written under",
                ));
            }
            KeyChange::Replaced
        }
    };
    let secrets_change = match existing(&secrets_path)? {
        None => KeyChange::Installed,
        Some(k) if k == secrets_key => KeyChange::Unchanged,
        Some(k) => {
            if crate::secrets::holds_secrets(home)? {
                return Err(in_use(
                    "secrets",
                    &fingerprint(&k),
                    &bundle.secrets_key_id,
                    &secrets_path,
                    "this node's stored secrets are encrypted with",
                ));
            }
            KeyChange::Replaced
        }
    };
    // On the shared database every node must open the secrets other nodes sealed.
    crate::secrets::check_shared_key(&secrets_key, &bundle.secrets_key_id)?;
    // Keys moving out of the home (keys.file set since): the home's own secrets key must be
    // the imported one when secrets depend on it.
    let home_secrets = crate::secrets::home_key_path(home);
    if secrets_change == KeyChange::Installed
        && secrets_path != home_secrets
        && let Some(k) = existing(&home_secrets)?
        && k != secrets_key
        && crate::secrets::holds_secrets(home)?
    {
        return Err(in_use(
            "secrets",
            &fingerprint(&k),
            &bundle.secrets_key_id,
            &home_secrets,
            "this node's stored secrets are encrypted with",
        ));
    }

    if chain_change != KeyChange::Unchanged {
        if chain_change == KeyChange::Replaced {
            // The empty manifest names the old key: drop it, the next writer writes it again.
            let manifest = root.join(chain::KEYS_DIR).join("manifest.json");
            match std::fs::remove_file(&manifest) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(Error::io(&manifest, e)),
            }
        }
        install_key(&chain_path, &chain_key)?;
    }
    if secrets_change != KeyChange::Unchanged {
        install_key(&secrets_path, &secrets_key)?;
    }
    let imported = Imported {
        chain_key_id: bundle.chain_key_id.clone(),
        chain: chain_change,
        chain_key_file: chain_path.display().to_string(),
        secrets_key_id: bundle.secrets_key_id.clone(),
        secrets: secrets_change,
        secrets_key_file: secrets_path.display().to_string(),
    };
    if chain_change != KeyChange::Unchanged || secrets_change != KeyChange::Unchanged {
        crate::audit::human_act(
            home,
            &KeysImported {
                chain_key_id: &imported.chain_key_id,
                chain: change_name(chain_change),
                secrets_key_id: &imported.secrets_key_id,
                secrets: change_name(secrets_change),
            },
        )?;
    }
    Ok(imported)
}

fn change_name(c: KeyChange) -> &'static str {
    match c {
        KeyChange::Installed => "installed",
        KeyChange::Unchanged => "unchanged",
        KeyChange::Replaced => "replaced",
    }
}

fn existing(path: &Path) -> Result<Option<[u8; 32]>> {
    if !path.exists() {
        return Ok(None);
    }
    read_raw(path).map(Some)
}

/// Whether any chained log of the home holds a record.
fn chained_records(root: &Path) -> bool {
    chain::discover(root)
        .iter()
        .any(|p| std::fs::metadata(p).is_ok_and(|m| m.len() > 0))
}

/// Writes `key` to `path` (mode 0600, in a 0700 directory made if missing), atomically.
fn install_key(path: &Path, key: &[u8; 32]) -> Result<()> {
    let dir: PathBuf = path.parent().unwrap_or(Path::new("/")).to_path_buf();
    if !dir.is_dir() {
        std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700))
            .map_err(|e| Error::io(&dir, e))?;
    }
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("key");
    let tmp = dir.join(format!(".{name}.import.{}", std::process::id()));
    let written = (|| {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(&tmp)
            .map_err(|e| Error::io(&tmp, e))?;
        f.write_all(key).map_err(|e| Error::io(&tmp, e))?;
        f.sync_all().map_err(|e| Error::io(&tmp, e))?;
        std::fs::rename(&tmp, path).map_err(|e| Error::io(path, e))?;
        std::fs::File::open(&dir)
            .and_then(|d| d.sync_all())
            .map_err(|e| Error::io(&dir, e))
    })();
    let _ = std::fs::remove_file(&tmp);
    written
}
