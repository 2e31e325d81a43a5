//! API tokens: `serve/tokens.json`, hashed (with `database.url` set: one row of the shared
//! database, so every node accepts the same tokens; see `tokens_pg`).
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
//!
//! Scopes: a token carries some of `runs`, `chat`, `read` and `admin` ([`Scopes`]), chosen when
//! it is created (`runs,chat,read` unless asked; `admin` only when named). A token written
//! before scopes existed has no `scopes` field and keeps every scope, so it goes on doing what
//! it did. Each route accepts a set of scopes ([`Scopes::required`]); the check is a bitmask test
//! on the token's entry, cached with its hash. No scope lets a token change what only a person
//! at the machine may change (see the config allowlist in `admin`).

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

/// What a token may do, as a bitmask of [`Scopes::RUNS`], [`Scopes::CHAT`], [`Scopes::READ`]
/// and [`Scopes::ADMIN`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Scopes(pub u8);

impl Scopes {
    /// Queue and cancel runs, and read runs (`POST /v1/runs`, `…/cancel`, `GET /v1/runs…`).
    pub const RUNS: Scopes = Scopes(1);
    /// Send chat messages and follow their runs (`POST /v1/chat/messages`, `GET /v1/runs/{id}…`).
    pub const CHAT: Scopes = Scopes(2);
    /// Every `GET`: runs and the admin views (status, config, secret names, jobs, candidates,
    /// chat sessions, TURBOTIME).
    pub const READ: Scopes = Scopes(4);
    /// The admin writes (`POST`/`DELETE /api/admin/…`), and everything the others allow.
    pub const ADMIN: Scopes = Scopes(8);
    pub const ALL: Scopes = Scopes(15);
    /// What `bob serve token create` gives without `--scope`: everything but `admin`.
    pub const DEFAULT: Scopes = Scopes(7);
    const NAMES: [(&'static str, Scopes); 4] = [
        ("runs", Scopes::RUNS),
        ("chat", Scopes::CHAT),
        ("read", Scopes::READ),
        ("admin", Scopes::ADMIN),
    ];

    /// Parses scope names (each may be a comma list); empty is [`Scopes::DEFAULT`].
    pub fn parse<S: AsRef<str>>(names: &[S]) -> Result<Scopes> {
        let mut bits = 0u8;
        let mut any = false;
        for name in names.iter().flat_map(|n| n.as_ref().split(',')) {
            let name = name.trim();
            let Some((_, s)) = Self::NAMES.iter().find(|(n, _)| *n == name) else {
                return Err(Error::invalid(format!(
                    "unknown scope {name:?}: use runs, chat, read or admin"
                ))
                .with("field", "scope"));
            };
            bits |= s.0;
            any = true;
        }
        Ok(if any { Scopes(bits) } else { Scopes::DEFAULT })
    }

    /// The scope names, in a fixed order.
    pub fn names(self) -> Vec<&'static str> {
        Self::NAMES
            .iter()
            .filter(|(_, s)| self.0 & s.0 != 0)
            .map(|(n, _)| *n)
            .collect()
    }

    /// Whether a token with these scopes may use a route that accepts `accepted`.
    pub fn allows(self, accepted: Scopes) -> bool {
        self.0 & accepted.0 != 0
    }

    /// The scopes a route accepts (any one of them is enough; `admin` is always one), by
    /// whether the method writes and the request path (of a route the router matched).
    /// Anything not listed needs `admin`.
    pub fn required(write: bool, path: &str) -> Scopes {
        let run = path.starts_with("/v1/runs/");
        let s = match write {
            true if path == "/v1/runs" || (run && path.ends_with("/cancel")) => Scopes::RUNS.0,
            true if path == "/v1/chat/messages" => Scopes::CHAT.0,
            false if path == "/v1/runs" => Scopes::RUNS.0 | Scopes::READ.0,
            false if run => Scopes::ALL.0,
            false if path.starts_with("/api/admin/") => Scopes::READ.0,
            _ => 0,
        };
        Scopes(s | Scopes::ADMIN.0)
    }
}

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
    /// The token's scopes; absent on a token made before scopes existed, which has them all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scopes: Option<Vec<String>>,
}

impl TokenEntry {
    /// What the token may do (every scope for a token made before scopes existed; an unknown
    /// name in the file counts for nothing).
    pub fn scopes(&self) -> Scopes {
        match &self.scopes {
            None => Scopes::ALL,
            Some(names) => Scopes(
                names
                    .iter()
                    .filter_map(|n| Scopes::parse(&[n]).ok())
                    .fold(0, |a, s| a | s.0),
            ),
        }
    }
}

#[derive(Debug, Default, Serialize, Deserialize)]
pub(super) struct TokenFile {
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

/// Creates a token named `name` with `scopes`; returns the entry and the token (shown once).
pub fn create(
    serve_dir: &Path,
    name: &str,
    scopes: Scopes,
    now: &str,
) -> Result<(TokenEntry, String)> {
    if name.is_empty() || name.len() > 64 || name.chars().any(char::is_control) {
        return Err(Error::invalid(
            "token name must be 1-64 characters with no control characters",
        ));
    }
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
        scopes: Some(scopes.names().into_iter().map(String::from).collect()),
    };
    if let Some(db) = crate::db::shared()? {
        super::tokens_pg::mutate(db, |file: &mut TokenFile| {
            file.tokens.push(entry.clone());
            Ok(())
        })?;
        return Ok((entry, token));
    }
    std::fs::create_dir_all(serve_dir).map_err(|e| Error::io(serve_dir, e))?;
    let path = tokens_path(serve_dir);
    let _lock = store::Lock::exclusive(&store::lock_path(&path))?;
    let mut file = load(&path)?;
    file.tokens.push(entry.clone());
    store::write_json_atomic(&path, &file)?;
    Ok((entry, token))
}

/// Every token entry (hashes included: they are not secrets, but callers show only ids).
pub fn list(serve_dir: &Path) -> Result<Vec<TokenEntry>> {
    if let Some(db) = crate::db::shared()? {
        return Ok(super::tokens_pg::load::<TokenFile>(db)?.tokens);
    }
    Ok(load(&tokens_path(serve_dir))?.tokens)
}

fn revoke_in(file: &mut TokenFile, id: &str, now: &str) -> Result<TokenEntry> {
    let Some(entry) = file.tokens.iter_mut().find(|t| t.id == id) else {
        return Err(Error::not_found(format!("no token {id:?}")).with("id", id));
    };
    if entry.revoked_at.is_none() {
        entry.revoked_at = Some(now.to_string());
    }
    Ok(entry.clone())
}

/// Revokes the token with this id (`not_found` if none; revoking twice is a no-op).
pub fn revoke(serve_dir: &Path, id: &str, now: &str) -> Result<TokenEntry> {
    if let Some(db) = crate::db::shared()? {
        return super::tokens_pg::mutate(db, |file: &mut TokenFile| revoke_in(file, id, now));
    }
    let path = tokens_path(serve_dir);
    if !path.exists() {
        return Err(Error::not_found(format!("no token {id:?}")));
    }
    let _lock = store::Lock::exclusive(&store::lock_path(&path))?;
    let mut file = load(&path)?;
    let out = revoke_in(&mut file, id, now)?;
    store::write_json_atomic(&path, &file)?;
    Ok(out)
}

/// An active token: its SHA-256, its id and its scopes.
type Active = ([u8; 32], String, Scopes);

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

    fn active(&self, fresh: bool) -> Result<Vec<Active>> {
        let shared = crate::db::shared()?;
        // The file: re-read when its modification time changes. The shared database: re-read
        // once the cached copy is a second old.
        let stamp = match shared {
            Some(_) => {
                let now = SystemTime::now();
                let cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
                match cache.0 {
                    Some(t)
                        if !fresh && now.duration_since(t).is_ok_and(|d| d.as_secs_f64() < 1.0) =>
                    {
                        return Ok(cache.1.clone());
                    }
                    _ => Some(now),
                }
            }
            None => std::fs::metadata(&self.path)
                .and_then(|m| m.modified())
                .ok(),
        };
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        if shared.is_some() || cache.0.is_none() || cache.0 != stamp {
            let file = match shared {
                Some(db) => super::tokens_pg::load::<TokenFile>(db)?,
                None => load(&self.path)?,
            };
            let hashes = file
                .tokens
                .iter()
                .filter(|t| t.revoked_at.is_none())
                .filter_map(|t| {
                    let hash = hex::decode(&t.sha256).ok()?.try_into().ok()?;
                    Some((hash, t.id.clone(), t.scopes()))
                })
                .collect();
            *cache = (stamp, hashes);
        }
        Ok(cache.1.clone())
    }

    /// The id and scopes of the active token `token` is, if any. Compares against every
    /// active hash, whatever matched, so the time taken does not depend on which one did.
    pub fn check(&self, token: &str) -> Result<Option<(String, Scopes)>> {
        let d = digest(token);
        let find = |active: Vec<Active>| {
            let mut found = None;
            for (h, id, scopes) in active {
                let hit = h.ct_eq(&d);
                if bool::from(hit) {
                    found = Some((id, scopes));
                }
            }
            found
        };
        let found = find(self.active(false)?);
        // With the shared store, a token another node made since the last read is looked for
        // in a fresh copy (revocations still wait for the second a copy is kept).
        if found.is_none() && crate::db::is_configured() {
            return Ok(find(self.active(true)?));
        }
        Ok(found)
    }
}
