//! Checkpoints: one revisioned [`Checkpoint`] per session, at
//! `sessions/<session_id>/checkpoint.json` (docs/design.md#home-layout, the Checkpoint contract)
//! or, when `database.url` is set, in the shared database's `checkpoints` table ([`store`]
//! picks the backend; both implement [`CheckpointStore`]).
//!
//! * [`load`] reads a checkpoint; a session with no checkpoint yet reads as a fresh one
//!   (revision 0, empty [`State`]). A stored checkpoint that does not parse is an error and is
//!   never overwritten: fix or remove it by hand.
//! * [`update`] is the only way a checkpoint changes. The whole read-modify-write runs with no
//!   other writer in between (an exclusive lock on `checkpoint.json.lock`; in the database a
//!   row lock in one transaction, so two machines writing one session never lose an update);
//!   it checks an optional expected revision (`conflict` otherwise), enforces the capability
//!   invariant (nothing granted is also pending, every capability is well formed), bumps the
//!   revision by exactly 1, stamps `updated_ts` from [`crate::clock::now`] and replaces the
//!   checkpoint atomically ([`commit`] is that rule, shared by both backends). If anything
//!   fails, nothing is written.
//!
//! Capabilities (the State contract; the tool registry contract gates on them) are tokens `name` or `name:scope`, e.g. `net` or
//! `net:huggingface.co`. Requesting one adds it to `capabilities_pending` unless it is
//! already granted; granting (a human act) moves it to `capabilities_granted`; revoking
//! removes it from both lists.

use crate::clock;
use crate::contracts::{Checkpoint, State};
use crate::error::{Error, Result};
use crate::home::Home;
use crate::store;
use std::path::Path;

mod pg;

/// Longest capability token accepted.
pub const MAX_CAPABILITY_LEN: usize = 256;

/// A checkpoint that does not exist yet: revision 0, empty state.
pub fn fresh(session_id: &str) -> Checkpoint {
    Checkpoint {
        session_id: session_id.to_string(),
        ..Checkpoint::default()
    }
}

/// Where checkpoints live: the home's files ([`HomeCheckpoints`]) or the shared database
/// (`pg::PgCheckpoints`). Both keep the same promises (see the module docs): a read never
/// writes, and an update is one compare-and-set of the next revision.
pub trait CheckpointStore {
    /// The session's checkpoint; `Ok(None)` when the session has none yet.
    fn load_existing(&self, session_id: &str) -> Result<Option<Checkpoint>>;

    /// Reads the session's checkpoint (fresh when none), applies `edit` through [`commit`]
    /// and stores the result, all or nothing, with no other writer in between.
    fn update(
        &self,
        session_id: &str,
        expect_revision: Option<u64>,
        edit: &mut dyn FnMut(&mut Checkpoint) -> Result<()>,
    ) -> Result<Checkpoint>;
}

/// The checkpoint store of this process: the shared database when `database.url` is set,
/// else the home's files.
pub fn store(home: &Home) -> Result<Box<dyn CheckpointStore + '_>> {
    Ok(match crate::db::shared()? {
        Some(db) => Box::new(pg::PgCheckpoints::new(db, home)),
        None => Box::new(HomeCheckpoints { home }),
    })
}

/// Reads the session's checkpoint; `Ok(None)` when the session has none yet.
///
/// A file that is not a checkpoint is `internal.error` (details: `path`), never a fresh state.
pub fn load_existing(home: &Home, session_id: &str) -> Result<Option<Checkpoint>> {
    store(home)?.load_existing(session_id)
}

/// Reads the session's checkpoint; a session with none yet reads as [`fresh`].
pub fn load(home: &Home, session_id: &str) -> Result<Checkpoint> {
    Ok(load_existing(home, session_id)?.unwrap_or_else(|| fresh(session_id)))
}

/// Applies `f` to the session's checkpoint with no other writer in between and commits the
/// result.
///
/// * `expect_revision`: when given and different from the stored revision, returns
///   `conflict` (exit 5) with details `expected` and `actual`, and writes nothing.
/// * `f` runs on the freshly re-read checkpoint; if it returns an error nothing is written.
/// * Afterwards the capability invariant is enforced (see [`normalize_capabilities`]), the
///   revision is bumped by 1, `updated_ts` is set from the clock, and the checkpoint is
///   replaced atomically.
///
/// Returns the committed checkpoint and `f`'s result.
pub fn update<R>(
    home: &Home,
    session_id: &str,
    expect_revision: Option<u64>,
    f: impl FnOnce(&mut Checkpoint) -> Result<R>,
) -> Result<(Checkpoint, R)> {
    // The session id names the directory written: never one the redactor would mask.
    crate::ids::check_in_home(home, crate::ids::Kind::Id, "session_id", session_id)?;
    let mut f = Some(f);
    let mut out = None;
    let cp = store(home)?.update(session_id, expect_revision, &mut |cp| {
        let f = f
            .take()
            .ok_or_else(|| Error::internal("a checkpoint edit ran twice"))?;
        out = Some(f(cp)?);
        Ok(())
    })?;
    let out = out.ok_or_else(|| Error::internal("a checkpoint edit did not run"))?;
    Ok((cp, out))
}

/// The one rule of a checkpoint update, whatever the backend: checks `expect_revision`
/// against `cp` (the stored checkpoint, or [`fresh`]), applies `edit`, enforces the capability
/// invariant, bumps the revision by exactly 1 and stamps `updated_ts` with `now`.
pub fn commit(
    cp: &mut Checkpoint,
    session_id: &str,
    expect_revision: Option<u64>,
    now: chrono::DateTime<chrono::Utc>,
    edit: &mut dyn FnMut(&mut Checkpoint) -> Result<()>,
) -> Result<()> {
    if let Some(expected) = expect_revision
        && expected != cp.revision
    {
        return Err(Error::conflict(format!(
            "checkpoint of session {session_id:?} is at revision {}, not {expected}",
            cp.revision
        ))
        .with("session_id", session_id)
        .with("expected", expected)
        .with("actual", cp.revision));
    }
    let next = cp.revision.checked_add(1).ok_or_else(|| {
        Error::internal(format!(
            "checkpoint of session {session_id:?} is at the last revision ({})",
            cp.revision
        ))
        .with("session_id", session_id)
    })?;
    edit(cp)?;
    normalize_capabilities(&mut cp.state)?;
    cp.session_id = session_id.to_string();
    cp.revision = next;
    cp.updated_ts = clock::unix_f64(now);
    Ok(())
}

/// Checkpoints as files under the home: `sessions/<id>/checkpoint.json`, each update a
/// read-modify-write under an exclusive lock on `checkpoint.json.lock`.
pub struct HomeCheckpoints<'a> {
    pub home: &'a Home,
}

impl CheckpointStore for HomeCheckpoints<'_> {
    fn load_existing(&self, session_id: &str) -> Result<Option<Checkpoint>> {
        let path = self.home.checkpoint_path(session_id)?;
        read_checkpoint(&path, session_id)
    }

    fn update(
        &self,
        session_id: &str,
        expect_revision: Option<u64>,
        edit: &mut dyn FnMut(&mut Checkpoint) -> Result<()>,
    ) -> Result<Checkpoint> {
        let path = self.home.checkpoint_path(session_id)?;
        let now = clock::now()?;
        let _lock = store::Lock::exclusive(&store::lock_path(&path))?;
        let mut cp = read_checkpoint(&path, session_id)?.unwrap_or_else(|| fresh(session_id));
        commit(&mut cp, session_id, expect_revision, now, edit).map_err(|e| with_path(e, &path))?;
        store::write_json_atomic(&path, &cp)?;
        Ok(cp)
    }
}

/// Adds the file's path to an internal error about it (the last-revision case).
fn with_path(e: Error, path: &Path) -> Error {
    if e.code == crate::error::Code::InternalError && !e.details.contains_key("path") {
        e.with("path", path.display().to_string())
    } else {
        e
    }
}

fn read_checkpoint(path: &Path, session_id: &str) -> Result<Option<Checkpoint>> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::io(path, e)),
    };
    let mut cp: Checkpoint = serde_json::from_slice(&bytes).map_err(|e| {
        Error::internal(format!(
            "checkpoint {} is corrupt ({e}); it is left untouched: repair or remove it",
            path.display()
        ))
        .with("path", path.display().to_string())
        .with("session_id", session_id)
    })?;
    // The directory names the session; a copied session directory belongs to its new name.
    cp.session_id = session_id.to_string();
    Ok(Some(cp))
}

/// Checks a capability token and returns its canonical form.
///
/// A capability is `name` or `name:scope`: `name` is 1+ of `[A-Za-z0-9._-]`, `scope` is
/// non-empty; no whitespace or control characters anywhere, at most
/// [`MAX_CAPABILITY_LEN`] bytes. The domain of `net:<domain>` is lower-cased (domains are
/// case-insensitive). Anything else is `invalid.request`.
pub fn parse_capability(cap: &str) -> Result<String> {
    let bad = |why: &str| {
        Error::invalid(format!("capability {cap:?} is not valid: {why}")).with("capability", cap)
    };
    if cap.is_empty() {
        return Err(bad("empty"));
    }
    if cap.len() > MAX_CAPABILITY_LEN {
        return Err(bad("too long"));
    }
    if cap.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(bad("contains whitespace or control characters"));
    }
    let (name, scope) = match cap.split_once(':') {
        Some((n, s)) => (n, Some(s)),
        None => (cap, None),
    };
    if name.is_empty()
        || !name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
    {
        return Err(bad(
            "the name must be letters, digits, '.', '_' or '-' (e.g. net, net:example.com)",
        ));
    }
    match scope {
        Some("") => Err(bad("empty scope after ':'")),
        Some(s) if name == "net" => Ok(format!("net:{}", s.to_ascii_lowercase())),
        _ => Ok(cap.to_string()),
    }
}

/// Enforces the State contract on a state: every capability is well formed (canonicalised by
/// [`parse_capability`]), neither list repeats an entry, and `capabilities_pending` holds
/// nothing that is granted.
pub fn normalize_capabilities(state: &mut State) -> Result<()> {
    let canon = |list: &[String]| -> Result<Vec<String>> {
        let mut out: Vec<String> = Vec::with_capacity(list.len());
        for c in list {
            let c = parse_capability(c)?;
            if !out.contains(&c) {
                out.push(c);
            }
        }
        Ok(out)
    };
    let granted = canon(&state.capabilities_granted)?;
    let mut pending = canon(&state.capabilities_pending)?;
    pending.retain(|c| !granted.contains(c));
    state.capabilities_granted = granted;
    state.capabilities_pending = pending;
    Ok(())
}

impl State {
    /// True when `cap` (canonical form) is granted.
    pub fn is_granted(&self, cap: &str) -> bool {
        self.capabilities_granted.iter().any(|c| c == cap)
    }

    /// True when `cap` (canonical form) awaits a human.
    pub fn is_pending(&self, cap: &str) -> bool {
        self.capabilities_pending.iter().any(|c| c == cap)
    }

    /// Adds `cap` to `capabilities_pending` unless it is granted or already pending.
    /// Returns whether the state changed.
    pub fn request_capability(&mut self, cap: &str) -> Result<bool> {
        let cap = parse_capability(cap)?;
        if self.is_granted(&cap) || self.is_pending(&cap) {
            return Ok(false);
        }
        self.capabilities_pending.push(cap);
        Ok(true)
    }

    /// Grants `cap` (adds it to `capabilities_granted`, removes it from pending). Granting is
    /// a human act: only `bob caps grant` and human-originated patches call this.
    /// Returns whether the state changed.
    pub fn grant_capability(&mut self, cap: &str) -> Result<bool> {
        let cap = parse_capability(cap)?;
        let was_pending = self.is_pending(&cap);
        self.capabilities_pending.retain(|c| *c != cap);
        if self.is_granted(&cap) {
            return Ok(was_pending);
        }
        self.capabilities_granted.push(cap);
        Ok(true)
    }

    /// Removes `cap` from both the granted and the pending list.
    /// Returns whether the state changed.
    pub fn revoke_capability(&mut self, cap: &str) -> Result<bool> {
        let cap = parse_capability(cap)?;
        let before = self.capabilities_granted.len() + self.capabilities_pending.len();
        self.capabilities_granted.retain(|c| *c != cap);
        self.capabilities_pending.retain(|c| *c != cap);
        Ok(before != self.capabilities_granted.len() + self.capabilities_pending.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capability_tokens() {
        for ok in [
            "net",
            "net:huggingface.co",
            "fs.write",
            "shell:ls",
            "net:localhost:8080",
        ] {
            assert!(parse_capability(ok).is_ok(), "{ok}");
        }
        assert_eq!(
            parse_capability("net:Example.COM").unwrap(),
            "net:example.com"
        );
        for bad in [
            "",
            " net",
            "net ",
            "net:",
            ":x",
            "a b",
            "net:\u{7}",
            "n\u{0}et",
            "net\n",
        ] {
            let e = parse_capability(bad).unwrap_err();
            assert_eq!(e.code, crate::error::Code::InvalidRequest, "{bad:?}");
        }
        assert!(parse_capability(&"x".repeat(MAX_CAPABILITY_LEN + 1)).is_err());
    }

    #[test]
    fn request_grant_revoke_keep_the_invariant() {
        let mut s = State::default();
        assert!(s.request_capability("net").unwrap());
        assert!(!s.request_capability("net").unwrap());
        assert_eq!(s.capabilities_pending, ["net"]);
        assert!(s.grant_capability("net").unwrap());
        assert_eq!(s.capabilities_granted, ["net"]);
        assert!(s.capabilities_pending.is_empty());
        assert!(
            !s.request_capability("net").unwrap(),
            "granted is never pending"
        );
        assert!(s.capabilities_pending.is_empty());
        assert!(s.revoke_capability("net").unwrap());
        assert!(!s.revoke_capability("net").unwrap());
        assert!(s.capabilities_granted.is_empty());
    }

    #[test]
    fn normalize_drops_granted_from_pending_and_dedupes() {
        let mut s = State {
            capabilities_granted: vec!["net".into(), "net".into()],
            capabilities_pending: vec!["net".into(), "net:a.b".into(), "net:A.b".into()],
            ..State::default()
        };
        normalize_capabilities(&mut s).unwrap();
        assert_eq!(s.capabilities_granted, ["net"]);
        assert_eq!(s.capabilities_pending, ["net:a.b"]);
        s.capabilities_pending.push("bad cap".into());
        assert!(normalize_capabilities(&mut s).is_err());
    }
}
