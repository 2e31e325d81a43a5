//! The process-wide redactor of a home: loaded once per process and home, loaded again when
//! one of its sources (the secrets store, the rule file, and in a long-lived process on the
//! shared database its secrets, followed twice a second) changes, and the storage layer's
//! redactor.

use super::installed::rules_file;
use super::redactor::Redactor;
use super::watch;
use crate::error::Result;
use crate::home::Home;
use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

static PROCESS_HOME: OnceLock<PathBuf> = OnceLock::new();

/// Names the home this process writes to, so the storage layer ([`for_storage`]) uses its rule
/// file. Called once by the CLI; later calls are ignored.
pub fn set_process_home(home: &Home) {
    let _ = PROCESS_HOME.set(home.root().to_path_buf());
}

/// The redactor of `home`, loaded once per process and home and loaded again when one of its
/// sources changes (a secret stored or removed, the rule file edited), so a long-lived process
/// such as `bob serve` masks a secret from the moment it is stored.
pub fn for_home(home: &Home) -> Result<Arc<Redactor>> {
    for_root(home.root())
}

/// (modification time, length) of each file a home's redactor is built from.
type Sources = Vec<Option<(std::time::SystemTime, u64)>>;

/// The files a home's redactor is built from: the secrets store (its database and WAL) and the
/// rule file.
fn source_paths(root: &Path) -> [PathBuf; 3] {
    let secrets = crate::secrets::dir(&Home::at(root));
    [
        secrets.join("secrets.db"),
        secrets.join("secrets.db-wal"),
        rules_file(root),
    ]
}

fn sources(root: &Path) -> Sources {
    source_paths(root)
        .iter()
        .map(|p| {
            let m = std::fs::metadata(p).ok()?;
            Some((m.modified().ok()?, m.len()))
        })
        .collect()
}

/// A home's redactor as loaded, with what it was loaded from.
struct Loaded {
    root: PathBuf,
    seen: Sources,
    redactor: Arc<Redactor>,
    watch: Option<watch::Watch>,
    /// The shared database's generation of secrets it was loaded with (`database.url` set and
    /// sources watched: [`crate::secrets::shared_generation`]).
    shared: Option<i64>,
}

static WATCHING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// For a long-lived process (`bob serve`): from now on a loaded redactor's sources are watched
/// with inotify, so a durable write that finds nothing changed since the last one skips the
/// stat of each source file (one read of the watch instead of three path walks). Any event
/// that may concern a source falls back to comparing them, as without a watch. Short-lived
/// processes do not watch (inotify instances are a per-user resource).
pub fn watch_sources() {
    WATCHING.store(true, std::sync::atomic::Ordering::Relaxed);
}

pub(super) fn for_root(root: &Path) -> Result<Arc<Redactor>> {
    static LOADED: Mutex<Vec<Loaded>> = Mutex::new(Vec::new());
    if WATCHING.load(std::sync::atomic::Ordering::Relaxed) {
        // A long-lived process follows the shared database's secrets from a thread of its own
        // (the redactor is also used on async threads, which must not wait on the database);
        // started by the first load after the process asked to watch (a no-op after that).
        crate::secrets::follow_shared(&Home::at(root))?;
    }
    let mut loaded = LOADED.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(l) = loaded.iter_mut().find(|l| l.root == root) {
        let shared_now = crate::secrets::shared_generation();
        let shared_changed = shared_now != l.shared;
        if !shared_changed && l.watch.as_mut().is_some_and(|w| w.quiet()) {
            return Ok(l.redactor.clone());
        }
        // Something may have changed (or nothing is watched): the watch is made again before
        // the sources are compared, so a change after the comparison is seen next time.
        l.watch = watch_for(root);
        let now = sources(root);
        if shared_changed || now != l.seen {
            l.redactor = Arc::new(Redactor::load_at(root)?);
            l.seen = now;
            l.shared = shared_now;
        }
        return Ok(l.redactor.clone());
    }
    let watch = watch_for(root);
    let seen = sources(root);
    let shared = crate::secrets::shared_generation();
    let redactor = Arc::new(Redactor::load_at(root)?);
    loaded.push(Loaded {
        root: root.to_path_buf(),
        seen,
        redactor: redactor.clone(),
        watch,
        shared,
    });
    Ok(redactor)
}

/// A watch of `root`'s redactor sources, when this process watches them.
fn watch_for(root: &Path) -> Option<watch::Watch> {
    if !WATCHING.load(std::sync::atomic::Ordering::Relaxed) {
        return None;
    }
    watch::Watch::new(&source_paths(root))
}

/// The redactor every durable write goes through: the process home's ([`set_process_home`]),
/// else the shipped rules and the environment's secret values. An invalid rule file in the home
/// fails the write (`invalid.request`) rather than writing unredacted.
pub fn for_storage() -> Result<Arc<Redactor>> {
    match PROCESS_HOME.get() {
        Some(root) => for_root(root),
        None => Ok(builtin()),
    }
}

/// `text` redacted by the storage redactor ([`for_storage`], else [`builtin`]), for a caller
/// about to cut it before a durable write: a cut made first could split a secret so that no
/// rule or known value recognises the part that is kept.
pub fn before_cut(text: &str) -> Cow<'_, str> {
    let r = for_storage().unwrap_or_else(|_| builtin());
    match r.redact_str(text) {
        Cow::Borrowed(_) => Cow::Borrowed(text),
        Cow::Owned(s) => Cow::Owned(s),
    }
}

/// The shipped rules and the environment's secret values, with no home rule file.
pub fn builtin() -> Arc<Redactor> {
    static BUILTIN: OnceLock<Arc<Redactor>> = OnceLock::new();
    BUILTIN
        .get_or_init(|| Arc::new(Redactor::from_env()))
        .clone()
}
