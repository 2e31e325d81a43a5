//! The sealed values of a node: the secrets key (a file of this node, never a database row),
//! sealing and opening a value with it, and the home's own store of sealed rows
//! (`secrets/secrets.db`).
//!
//! This module promises:
//!
//! * **The key.** `secrets/key` (or `bob-secrets.key` next to the chain key when the keys live
//!   outside the home, [`install_key_file`]): 32 random bytes, mode 0600 in a 0700 directory,
//!   made on first use ([`ensure_key`]); a key file readable by group or others is refused
//!   (`policy.denied`).
//! * **Sealing.** [`Sealer`] seals a value with XChaCha20-Poly1305 under a fresh 24-byte nonce,
//!   the secret's name as associated data (a ciphertext moved to another name does not open).
//! * **Rows.** [`SecretRows`] is what a store of sealed rows does (names, nonces, ciphertexts,
//!   times, bindings; never a key or a value); [`HomeSecretRows`] is the home's SQLite one.
//! * **The node-local value** ([`local_value`]): a value read from the home's own store whatever
//!   backend the other stores use. The shared database's password (`secret:NAME` in
//!   `database.url`) is read this way: it cannot live in the database it unlocks. This module
//!   sits below the shared database's module for that reason, and knows nothing of it.

use crate::error::{Error, Result};
use crate::home::Home;
use chacha20poly1305::aead::{Aead, KeyInit, Payload};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};
use rand::RngCore;
use rusqlite::{Connection, OptionalExtension, params};
use std::io::Write;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// What a config value starts with to name a secret: `api_key = "secret:openai"`.
pub const REF_PREFIX: &str = "secret:";

/// A stored secret, without its value: the wire type itself (one type, so what is stored,
/// printed and served cannot drift apart).
pub use crate::contracts::http::SecretShown as SecretInfo;

pub fn dir(home: &Home) -> PathBuf {
    home.root().join("secrets")
}

/// The secrets key's file name next to the chain key when the keys live outside the home.
pub const OUTSIDE_KEY_FILE: &str = "bob-secrets.key";

/// Where the secrets key lives when it is not `<home>/secrets/key` (installed once per process
/// by the settings: next to the chain key when that is outside the home).
static KEY_FILE_OVERRIDE: std::sync::RwLock<Option<PathBuf>> = std::sync::RwLock::new(None);

/// Sets the secrets key's file for every home this process opens (`None`: `<home>/secrets/key`).
pub fn install_key_file(path: Option<PathBuf>) {
    *KEY_FILE_OVERRIDE.write().unwrap_or_else(|e| e.into_inner()) =
        path.map(|p| std::path::absolute(&p).unwrap_or(p));
}

/// The secrets key's file for `home`: the installed one (outside the home), else
/// `<home>/secrets/key`.
pub fn key_path(home: &Home) -> PathBuf {
    KEY_FILE_OVERRIDE
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .clone()
        .unwrap_or_else(|| home_key_path(home))
}

/// The secrets key's file inside the home (used when no key file is installed).
pub fn home_key_path(home: &Home) -> PathBuf {
    dir(home).join("key")
}

/// Creates the key file if missing (owner-only), else checks its mode. Returns the key.
///
/// With the key outside the home, a missing outside key while the home still holds its own
/// `secrets/key` is `conflict`: making a new key there would leave every stored secret
/// undecryptable, so the home's key must be moved (or imported with `bob keys import`) first.
pub fn ensure_key(home: &Home) -> Result<[u8; 32]> {
    let d = dir(home);
    if !d.is_dir() {
        std::fs::create_dir_all(&d).map_err(|e| Error::io(&d, e))?;
        std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o700))
            .map_err(|e| Error::io(&d, e))?;
    }
    let path = key_path(home);
    let inside = home_key_path(home);
    if path != inside && !path.exists() && inside.exists() {
        return Err(Error::conflict(format!(
            "the secrets key belongs at {} (next to the chain key outside the home), but this \
             home still holds its own key {}: move that file there (or run `bob keys export` \
             without keys.file, then `bob keys import`), so the stored secrets stay readable",
            path.display(),
            inside.display()
        ))
        .with("path", path.display().to_string())
        .retryable(false));
    }
    if let Some(parent) = path.parent()
        && !parent.is_dir()
    {
        std::fs::create_dir_all(parent).map_err(|e| Error::io(parent, e))?;
        std::fs::set_permissions(parent, std::fs::Permissions::from_mode(0o700))
            .map_err(|e| Error::io(parent, e))?;
    }
    match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&path)
    {
        Ok(mut f) => {
            let mut key = [0u8; 32];
            rand::rngs::OsRng.fill_bytes(&mut key);
            f.write_all(&key).map_err(|e| Error::io(&path, e))?;
            f.sync_all().map_err(|e| Error::io(&path, e))?;
            Ok(key)
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => read_key(&path),
        Err(e) => Err(Error::io(&path, e)),
    }
}

/// The secrets key if this home has one (never creates it).
pub fn load_key(home: &Home) -> Result<Option<[u8; 32]>> {
    let path = key_path(home);
    if !path.exists() {
        return Ok(None);
    }
    read_key(&path).map(Some)
}

/// Whether the home's secret store holds at least one secret (encrypted under the current key).
pub fn holds_secrets(home: &Home) -> Result<bool> {
    if !dir(home).join("secrets.db").exists() {
        return Ok(false);
    }
    let conn = Connection::open(dir(home).join("secrets.db"))?;
    let has_table: bool = conn
        .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'secrets'")?
        .exists([])?;
    if !has_table {
        return Ok(false);
    }
    Ok(conn.prepare("SELECT 1 FROM secrets LIMIT 1")?.exists([])?)
}

/// A key file's 32 bytes, refusing one readable by group or others (`policy.denied`).
pub fn read_key(path: &Path) -> Result<[u8; 32]> {
    let meta = std::fs::metadata(path).map_err(|e| Error::io(path, e))?;
    if meta.permissions().mode() & 0o077 != 0 {
        return Err(Error::denied(format!(
            "{} is readable by others (mode {:o}); it must be 0600",
            path.display(),
            meta.permissions().mode() & 0o777
        )));
    }
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    bytes
        .try_into()
        .map_err(|_| Error::internal(format!("{} is not a 32-byte key", path.display())))
}

/// Seals and opens values under one secrets key.
pub struct Sealer {
    cipher: XChaCha20Poly1305,
}

impl Sealer {
    pub fn new(key: &[u8; 32]) -> Sealer {
        Sealer {
            cipher: XChaCha20Poly1305::new(key.into()),
        }
    }

    /// `value` sealed for the secret `name`: (nonce, ciphertext).
    pub fn seal(&self, name: &str, value: &str) -> Result<(Vec<u8>, Vec<u8>)> {
        let mut nonce = [0u8; 24];
        rand::rngs::OsRng.fill_bytes(&mut nonce);
        let ct = self
            .cipher
            .encrypt(
                XNonce::from_slice(&nonce),
                Payload {
                    msg: value.as_bytes(),
                    aad: name.as_bytes(),
                },
            )
            .map_err(|_| Error::internal("encrypting the secret failed"))?;
        Ok((nonce.to_vec(), ct))
    }

    /// The value of the secret `name` sealed as (`nonce`, `ct`); `internal.error` when it does
    /// not open with this key.
    pub fn open(&self, name: &str, nonce: &[u8], ct: &[u8]) -> Result<String> {
        if nonce.len() != 24 {
            return Err(Error::internal(format!("secret {name:?}: bad nonce")));
        }
        let pt = self
            .cipher
            .decrypt(
                XNonce::from_slice(nonce),
                Payload {
                    msg: ct,
                    aad: name.as_bytes(),
                },
            )
            .map_err(|_| {
                Error::internal(format!(
                    "secret {name:?} does not decrypt with this home's key (tampered, or the key changed)"
                ))
            })?;
        String::from_utf8(pt).map_err(|_| Error::internal(format!("secret {name:?} is not UTF-8")))
    }
}

/// A sealed row: name, nonce, ciphertext.
pub type Sealed = (String, Vec<u8>, Vec<u8>);

/// Where sealed rows live: the home's `secrets/secrets.db` ([`HomeSecretRows`]) or the shared
/// database (when `database.url` is set). Rows hold only names, nonces, ciphertexts, times and
/// bindings; sealing and opening happen in [`Sealer`], with the key from the node's own file.
pub trait SecretRows: Send {
    /// Inserts or replaces a row (a replaced one keeps `created_at`); `binding`: `None` keeps
    /// the row's binding, `Some(b)` sets it to `b`. One transaction.
    fn upsert(
        &mut self,
        name: &str,
        nonce: &[u8],
        ciphertext: &[u8],
        now: &str,
        binding: Option<Option<&str>>,
    ) -> Result<()>;
    fn info(&self, name: &str) -> Result<Option<SecretInfo>>;
    /// Every row's info, sorted by name.
    fn list(&self) -> Result<Vec<SecretInfo>>;
    /// Removes a row; whether there was one.
    fn remove(&mut self, name: &str) -> Result<bool>;
    /// The nonce and ciphertext of a row.
    fn sealed(&self, name: &str) -> Result<Option<(Vec<u8>, Vec<u8>)>>;
    /// Every row's name, nonce and ciphertext.
    fn all_sealed(&self) -> Result<Vec<Sealed>>;
    /// Binds an unbound row to `origin`; the row's binding after that (`None`: no such row).
    fn bind(&self, name: &str, origin: &str) -> Result<Option<String>>;
}

/// The sealed rows in the home's `secrets/secrets.db`.
pub struct HomeSecretRows {
    conn: Connection,
}

impl HomeSecretRows {
    /// Opens (creating on first use) the home's `secrets/secrets.db`; the key's directory must
    /// exist ([`ensure_key`] first).
    pub fn open(home: &Home) -> Result<HomeSecretRows> {
        let path = dir(home).join("secrets.db");
        let conn = Connection::open(&path)?;
        conn.busy_timeout(std::time::Duration::from_secs(10))?;
        crate::sqlite::use_wal(&conn, std::time::Duration::from_secs(10))?;
        conn.pragma_update(None, "synchronous", "FULL")?;
        conn.execute_batch(
            "CREATE TABLE IF NOT EXISTS secrets (
                name TEXT PRIMARY KEY,
                nonce BLOB NOT NULL,
                ciphertext BLOB NOT NULL,
                created_at TEXT NOT NULL,
                updated_at TEXT NOT NULL)",
        )?;
        // The origin each secret may be sent to (a column added to stores made before it).
        let has_bound: bool = conn
            .prepare("SELECT 1 FROM pragma_table_info('secrets') WHERE name = 'bound_to'")?
            .exists([])?;
        if !has_bound
            && let Err(e) = conn.execute_batch("ALTER TABLE secrets ADD COLUMN bound_to TEXT")
            && !e.to_string().contains("duplicate column")
        {
            return Err(e.into());
        }
        let _ = std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600));
        Ok(HomeSecretRows { conn })
    }

    /// Whether the home has a store of its own (nothing is created).
    pub fn exists(home: &Home) -> bool {
        dir(home).join("secrets.db").exists()
    }
}

/// The value of the secret `name` in the home's own store (`None`: no store, or no such
/// secret), whatever backend the other stores use. Creates nothing.
pub fn local_value(home: &Home, name: &str) -> Result<Option<String>> {
    if !HomeSecretRows::exists(home) {
        return Ok(None);
    }
    let key = ensure_key(home)?;
    let rows = HomeSecretRows::open(home)?;
    match rows.sealed(name)? {
        Some((nonce, ct)) => Sealer::new(&key).open(name, &nonce, &ct).map(Some),
        None => Ok(None),
    }
}

fn info_of(r: &rusqlite::Row<'_>) -> rusqlite::Result<SecretInfo> {
    Ok(SecretInfo {
        name: r.get(0)?,
        created_at: r.get(1)?,
        updated_at: r.get(2)?,
        bound_to: r.get(3)?,
    })
}

impl SecretRows for HomeSecretRows {
    fn upsert(
        &mut self,
        name: &str,
        nonce: &[u8],
        ciphertext: &[u8],
        now: &str,
        binding: Option<Option<&str>>,
    ) -> Result<()> {
        let tx = self.conn.transaction()?;
        tx.execute(
            "INSERT INTO secrets (name, nonce, ciphertext, created_at, updated_at)
             VALUES (?1, ?2, ?3, ?4, ?4)
             ON CONFLICT(name) DO UPDATE SET nonce = ?2, ciphertext = ?3, updated_at = ?4",
            params![name, nonce, ciphertext, now],
        )?;
        if let Some(b) = binding {
            tx.execute(
                "UPDATE secrets SET bound_to = ?2 WHERE name = ?1",
                params![name, b],
            )?;
        }
        tx.commit()?;
        Ok(())
    }

    fn info(&self, name: &str) -> Result<Option<SecretInfo>> {
        Ok(self
            .conn
            .query_row(
                "SELECT name, created_at, updated_at, bound_to FROM secrets WHERE name = ?1",
                params![name],
                info_of,
            )
            .optional()?)
    }

    fn list(&self) -> Result<Vec<SecretInfo>> {
        let mut st = self
            .conn
            .prepare("SELECT name, created_at, updated_at, bound_to FROM secrets ORDER BY name")?;
        let rows = st
            .query_map([], info_of)?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows)
    }

    fn remove(&mut self, name: &str) -> Result<bool> {
        Ok(self
            .conn
            .execute("DELETE FROM secrets WHERE name = ?1", params![name])?
            > 0)
    }

    fn sealed(&self, name: &str) -> Result<Option<(Vec<u8>, Vec<u8>)>> {
        Ok(self
            .conn
            .query_row(
                "SELECT nonce, ciphertext FROM secrets WHERE name = ?1",
                params![name],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?)
    }

    fn all_sealed(&self) -> Result<Vec<Sealed>> {
        let mut st = self
            .conn
            .prepare("SELECT name, nonce, ciphertext FROM secrets")?;
        let rows = st
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows)
    }

    fn bind(&self, name: &str, origin: &str) -> Result<Option<String>> {
        self.conn.execute(
            "UPDATE secrets SET bound_to = ?2 WHERE name = ?1 AND bound_to IS NULL",
            params![name, origin],
        )?;
        Ok(self
            .conn
            .query_row(
                "SELECT bound_to FROM secrets WHERE name = ?1",
                params![name],
                |r| r.get(0),
            )
            .optional()?
            .flatten())
    }
}
