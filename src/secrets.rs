//! The one-way secrets store (docs/design.md#home-layout, docs/design.md#security-model): `secrets/`, values encrypted at rest.
//!
//! * `secrets/key`: 32 random bytes, mode 0600 in a 0700 directory, made on first use (and by
//!   `bob init`). A key file readable by group or others is refused (`policy.denied`). When
//!   the chain key lives outside the home (`keys.file`, `BOB_KEY_FILE`, systemd's credential),
//!   the secrets key lives next to it as `bob-secrets.key` ([`key_path`]), so every node of one
//!   cluster can hold the same pair of keys and neither sits in the home or the database.
//! * `secrets/secrets.db`: SQLite, one row per secret: name, a fresh 24-byte nonce per write,
//!   and the XChaCha20-Poly1305 ciphertext with the secret's name as associated data (a
//!   ciphertext moved to another name does not decrypt). SQLite rather than a JSON document so
//!   no text layer (the storage layer's redaction) ever rewrites ciphertext bytes.
//!
//! One-way: `bob secrets` and the HTTP API set, list (names and times only) and remove; no
//! command or endpoint returns a value. Values are read only inside the process that uses them:
//! [`resolve_ref`] for `secret:NAME` references (the backend's `api_key`, the SerpAPI key), and
//! [`Secrets::values`] so [`crate::redact::Redactor::load`] masks every stored value wherever
//! bob writes.
//!
//! Binding: each secret is sent to one origin (`scheme://host[:port]`), recorded in its row
//! (`bound_to`). `bob secrets set NAME --for URL` binds it to URL's origin; `bob secrets set
//! NAME` without `--for` leaves it unbound, and its first use binds it to the origin it is then
//! sent to (the configured base URL, which only a person at the machine can change). Setting a
//! value over HTTP keeps the binding it had. From then on [`resolve_ref`] refuses
//! (`policy.denied`, naming the setting) to hand the value to any other origin: pointing a base
//! URL elsewhere needs the secret set again at the machine, with `--for` the new URL.

use crate::error::{Error, Result};
use crate::home::Home;
use chacha20poly1305::aead::{Aead, KeyInit, Payload};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};
use rand::RngCore;
use rusqlite::{Connection, OptionalExtension, params};
use serde::Serialize;
use std::io::Write;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// Longest secret value accepted, in bytes.
pub const MAX_VALUE: usize = 64 * 1024;
/// Shortest secret value accepted, in characters: every value is masked wherever it appears
/// in anything bob writes, so a value of a few characters would mask ordinary text.
pub const MIN_VALUE: usize = 8;
/// What a config value starts with to name a secret: `api_key = "secret:openai"`.
pub const REF_PREFIX: &str = "secret:";

/// A stored secret, without its value.
#[derive(Debug, Clone, Serialize)]
pub struct SecretInfo {
    pub name: String,
    pub created_at: String,
    pub updated_at: String,
    /// The origin the secret is sent to; absent until it is bound (see the module docs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bound_to: Option<String>,
}

pub struct Secrets {
    conn: Connection,
    cipher: XChaCha20Poly1305,
}

pub fn dir(home: &Home) -> PathBuf {
    home.root().join("secrets")
}

/// Secret names: 1-64 characters of `[A-Za-z0-9_.-]`.
pub fn check_name(name: &str) -> Result<&str> {
    let ok = !name.is_empty()
        && name.len() <= 64
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'));
    if ok {
        Ok(name)
    } else {
        Err(
            Error::invalid("a secret name is 1-64 characters of letters, digits and _ . -")
                .with("field", "name"),
        )
    }
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

fn read_key(path: &Path) -> Result<[u8; 32]> {
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

impl Secrets {
    /// Opens the store, creating the key and the database on first use.
    pub fn open(home: &Home) -> Result<Secrets> {
        let key = ensure_key(home)?;
        let path = dir(home).join("secrets.db");
        let conn = Connection::open(&path)?;
        conn.busy_timeout(std::time::Duration::from_secs(10))?;
        let _: String = conn.pragma_update_and_check(None, "journal_mode", "WAL", |r| r.get(0))?;
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
        Ok(Secrets {
            conn,
            cipher: XChaCha20Poly1305::new(&key.into()),
        })
    }

    /// Opens the store only if one exists (readers: nothing is created).
    pub fn open_existing(home: &Home) -> Result<Option<Secrets>> {
        if !dir(home).join("secrets.db").exists() {
            return Ok(None);
        }
        Secrets::open(home).map(Some)
    }

    /// Stores (or replaces) a secret; a replaced one keeps its binding, a new one is unbound.
    pub fn set(&mut self, name: &str, value: &str, now: &str) -> Result<SecretInfo> {
        self.store(name, value, now, None)
    }

    /// Stores (or replaces) a secret at the machine, bound to `origin` (from [`origin_of`]),
    /// or unbound (bound at its first use) when `None`.
    pub fn set_for(
        &mut self,
        name: &str,
        value: &str,
        now: &str,
        origin: Option<&str>,
    ) -> Result<SecretInfo> {
        self.store(name, value, now, Some(origin))
    }

    /// `binding`: `None` keeps the row's binding, `Some(b)` sets it to `b`.
    fn store(
        &mut self,
        name: &str,
        value: &str,
        now: &str,
        binding: Option<Option<&str>>,
    ) -> Result<SecretInfo> {
        check_name(name)?;
        if value.chars().count() < MIN_VALUE {
            return Err(Error::invalid(format!(
                "the secret value must be at least {MIN_VALUE} characters"
            ))
            .with("field", "value"));
        }
        if value.len() > MAX_VALUE {
            return Err(Error::invalid(format!(
                "the secret value is longer than {MAX_VALUE} bytes"
            ))
            .with("field", "value"));
        }
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
        let tx = self.conn.transaction()?;
        tx.execute(
            "INSERT INTO secrets (name, nonce, ciphertext, created_at, updated_at)
             VALUES (?1, ?2, ?3, ?4, ?4)
             ON CONFLICT(name) DO UPDATE SET nonce = ?2, ciphertext = ?3, updated_at = ?4",
            params![name, nonce.to_vec(), ct, now],
        )?;
        if let Some(b) = binding {
            tx.execute(
                "UPDATE secrets SET bound_to = ?2 WHERE name = ?1",
                params![name, b],
            )?;
        }
        tx.commit()?;
        self.info(name)?
            .ok_or_else(|| Error::internal("the secret vanished after it was written"))
    }

    fn info(&self, name: &str) -> Result<Option<SecretInfo>> {
        Ok(self
            .conn
            .query_row(
                "SELECT name, created_at, updated_at, bound_to FROM secrets WHERE name = ?1",
                params![name],
                |r| {
                    Ok(SecretInfo {
                        name: r.get(0)?,
                        created_at: r.get(1)?,
                        updated_at: r.get(2)?,
                        bound_to: r.get(3)?,
                    })
                },
            )
            .optional()?)
    }

    /// Names and times, sorted by name.
    pub fn list(&self) -> Result<Vec<SecretInfo>> {
        let mut st = self
            .conn
            .prepare("SELECT name, created_at, updated_at, bound_to FROM secrets ORDER BY name")?;
        let rows = st
            .query_map([], |r| {
                Ok(SecretInfo {
                    name: r.get(0)?,
                    created_at: r.get(1)?,
                    updated_at: r.get(2)?,
                    bound_to: r.get(3)?,
                })
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows)
    }

    /// Removes a secret (`not_found` if there is none).
    pub fn remove(&mut self, name: &str) -> Result<()> {
        check_name(name)?;
        if self
            .conn
            .execute("DELETE FROM secrets WHERE name = ?1", params![name])?
            == 0
        {
            return Err(Error::not_found(format!("no secret named {name:?}")).with("name", name));
        }
        Ok(())
    }

    fn decrypt(&self, name: &str, nonce: &[u8], ct: &[u8]) -> Result<String> {
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

    /// The value of one secret, for the process that uses it. Never print or return it.
    pub fn value(&self, name: &str) -> Result<String> {
        check_name(name)?;
        let row: Option<(Vec<u8>, Vec<u8>)> = self
            .conn
            .query_row(
                "SELECT nonce, ciphertext FROM secrets WHERE name = ?1",
                params![name],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?;
        let (nonce, ct) = row.ok_or_else(|| {
            Error::not_found(format!("no secret named {name:?} (bob secrets set {name})"))
                .with("name", name)
        })?;
        self.decrypt(name, &nonce, &ct)
    }

    /// Every stored value (for the redactor's exact-match literals).
    pub fn values(&self) -> Result<Vec<String>> {
        let mut st = self
            .conn
            .prepare("SELECT name, nonce, ciphertext FROM secrets")?;
        let rows = st
            .query_map([], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, Vec<u8>>(1)?,
                    r.get::<_, Vec<u8>>(2)?,
                ))
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        rows.iter()
            .map(|(n, nonce, ct)| self.decrypt(n, nonce, ct))
            .collect()
    }
}

/// The origin (`scheme://host[:port]`, the port only when not the scheme's default) a secret
/// sent to `url` is bound to. `invalid.request` for anything but an http(s) URL with a host.
pub fn origin_of(url: &str) -> Result<String> {
    let parsed = url::Url::parse(url.trim())
        .map_err(|e| Error::invalid(format!("{url:?} is not a URL: {e}")))?;
    if !matches!(parsed.scheme(), "http" | "https") || parsed.host().is_none() {
        return Err(Error::invalid(format!(
            "{url:?} must be an http(s) URL with a host"
        )));
    }
    Ok(parsed.origin().ascii_serialization())
}

impl Secrets {
    /// Binds an unbound secret to `origin`, then checks that it is bound there: the origin it
    /// is bound to otherwise.
    fn bind_or_check(&self, name: &str, origin: &str) -> Result<std::result::Result<(), String>> {
        self.conn.execute(
            "UPDATE secrets SET bound_to = ?2 WHERE name = ?1 AND bound_to IS NULL",
            params![name, origin],
        )?;
        let bound: Option<String> = self
            .conn
            .query_row(
                "SELECT bound_to FROM secrets WHERE name = ?1",
                params![name],
                |r| r.get(0),
            )
            .optional()?
            .flatten();
        Ok(match bound {
            Some(b) if b == origin => Ok(()),
            Some(b) => Err(b),
            None => Err(String::new()),
        })
    }
}

/// Resolves a config value that is sent to `url` (setting `setting` names it): `secret:NAME`
/// becomes the secret's value if the secret is bound to `url`'s origin (an unbound one is
/// bound to it now), else `policy.denied`; anything else is returned as is. Returns the value
/// and whether it came from the store.
pub fn resolve_ref(home: &Home, value: &str, url: &str, setting: &str) -> Result<(String, bool)> {
    match value.strip_prefix(REF_PREFIX) {
        Some(name) => {
            let name = name.trim();
            let store = Secrets::open_existing(home)?.ok_or_else(|| {
                Error::not_found(format!(
                    "config names secret {name:?} but this home has no secrets (bob secrets set {name})"
                ))
            })?;
            let secret = store.value(name)?;
            let origin = origin_of(url).map_err(|e| e.with("setting", setting))?;
            if let Err(bound) = store.bind_or_check(name, &origin)? {
                return Err(Error::denied(format!(
                    "secret {name:?} is bound to {bound}, not {origin} ({setting}); to send it \
                     there, set it again at the machine: bob secrets set {name} --for {origin}"
                ))
                .with("setting", setting)
                .with("secret", name)
                .with("bound_to", bound)
                .with("origin", origin));
            }
            Ok((secret, true))
        }
        None => Ok((value.to_string(), false)),
    }
}
