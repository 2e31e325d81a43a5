//! API tokens: `serve/tokens.json`, hashed.
//!
//! A token is `bob_` + 64 hex digits (32 random bytes from the OS generator). Only its SHA-256
//! is stored, with an id (`tok_` + 8 hex digits, what `list` and `revoke` use), a name and the
//! creation / revocation times. The token itself is printed once by `create` and never again.
//! Since a token carries 256 bits of entropy, an unsalted fast hash is enough: there is nothing
//! to guess.
//!
//! Checking: the presented token is hashed and compared with every active hash in constant
//! time ([`subtle::ConstantTimeEq`]), all of them, so the time taken says nothing about which
//! or how many bytes matched. The server re-reads the file when its modification time changes,
//! so a revocation takes effect on the next request.

use crate::error::{Error, Result};
use crate::store;
use rand::RngCore;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::SystemTime;
use subtle::ConstantTimeEq;

/// The token a request was authenticated with (its id), for recording who acted.
#[derive(Debug, Clone)]
pub struct Caller(pub String);

/// Longest `Authorization` value looked at; longer is refused before hashing.
pub const MAX_TOKEN_LEN: usize = 256;

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TokenEntry {
    pub id: String,
    pub name: String,
    /// SHA-256 of the token, hex.
    pub sha256: String,
    pub created_at: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revoked_at: Option<String>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct TokenFile {
    tokens: Vec<TokenEntry>,
}

pub fn tokens_path(serve_dir: &Path) -> PathBuf {
    serve_dir.join("tokens.json")
}

fn load(path: &Path) -> Result<TokenFile> {
    Ok(store::read_json(path)?.unwrap_or_default())
}

fn digest(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

/// Creates a token named `name`; returns the entry and the token (shown once).
pub fn create(serve_dir: &Path, name: &str, now: &str) -> Result<(TokenEntry, String)> {
    if name.is_empty() || name.len() > 64 || name.chars().any(char::is_control) {
        return Err(Error::invalid(
            "token name must be 1-64 characters with no control characters",
        ));
    }
    std::fs::create_dir_all(serve_dir).map_err(|e| Error::io(serve_dir, e))?;
    let path = tokens_path(serve_dir);
    let _lock = store::Lock::exclusive(&store::lock_path(&path))?;
    let mut file = load(&path)?;
    let mut raw = [0u8; 32];
    rand::rngs::OsRng.fill_bytes(&mut raw);
    let token = format!("bob_{}", hex::encode(raw));
    let mut id_raw = [0u8; 4];
    rand::rngs::OsRng.fill_bytes(&mut id_raw);
    let entry = TokenEntry {
        id: format!("tok_{}", hex::encode(id_raw)),
        name: name.to_string(),
        sha256: hex::encode(digest(&token)),
        created_at: now.to_string(),
        revoked_at: None,
    };
    file.tokens.push(entry.clone());
    store::write_json_atomic(&path, &file)?;
    Ok((entry, token))
}

/// Every token entry (hashes included: they are not secrets, but callers show only ids).
pub fn list(serve_dir: &Path) -> Result<Vec<TokenEntry>> {
    Ok(load(&tokens_path(serve_dir))?.tokens)
}

/// Revokes the token with this id (`not_found` if none; revoking twice is a no-op).
pub fn revoke(serve_dir: &Path, id: &str, now: &str) -> Result<TokenEntry> {
    let path = tokens_path(serve_dir);
    if !path.exists() {
        return Err(Error::not_found(format!("no token {id:?}")));
    }
    let _lock = store::Lock::exclusive(&store::lock_path(&path))?;
    let mut file = load(&path)?;
    let Some(entry) = file.tokens.iter_mut().find(|t| t.id == id) else {
        return Err(Error::not_found(format!("no token {id:?}")).with("id", id));
    };
    if entry.revoked_at.is_none() {
        entry.revoked_at = Some(now.to_string());
    }
    let out = entry.clone();
    store::write_json_atomic(&path, &file)?;
    Ok(out)
}

/// An active token: its SHA-256 and its id.
type Active = ([u8; 32], String);

/// The server's view of the token file, re-read when it changes.
pub struct Verifier {
    path: PathBuf,
    /// (modification time, [(hash, token id)] of the active tokens)
    cache: Mutex<(Option<SystemTime>, Vec<Active>)>,
}

impl Verifier {
    pub fn new(serve_dir: &Path) -> Verifier {
        Verifier {
            path: tokens_path(serve_dir),
            cache: Mutex::new((None, Vec::new())),
        }
    }

    fn active(&self) -> Result<Vec<Active>> {
        let mtime = std::fs::metadata(&self.path)
            .and_then(|m| m.modified())
            .ok();
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        if cache.0.is_none() || cache.0 != mtime {
            let file = load(&self.path)?;
            let hashes = file
                .tokens
                .iter()
                .filter(|t| t.revoked_at.is_none())
                .filter_map(|t| Some((hex::decode(&t.sha256).ok()?.try_into().ok()?, t.id.clone())))
                .collect();
            *cache = (mtime, hashes);
        }
        Ok(cache.1.clone())
    }

    /// The id of the active token `token` is, if any. Compares against every active hash,
    /// whatever matched, so the time taken does not depend on which one did.
    pub fn check(&self, token: &str) -> Result<Option<String>> {
        let d = digest(token);
        let mut found = None;
        for (h, id) in self.active()? {
            let hit = h.ct_eq(&d);
            if bool::from(hit) {
                found = Some(id);
            }
        }
        Ok(found)
    }
}
