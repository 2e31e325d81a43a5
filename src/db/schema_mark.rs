//! The schema version a node last found its shared database at, kept in the home's cache
//! (`cache/db-schema.json`), so a one-shot command skips the version check once a check of this
//! node has found the schema at this binary's version.
//!
//! This module promises:
//!
//! * **Checked once per node and database, again on error.** The mark names the database (its
//!   URL with the password blanked) and the version found. A command whose mark names its
//!   database at this binary's newest version does not ask; any other (no mark, another
//!   database, an older version: a newer binary) checks and migrates as before, then marks.
//!   A statement that fails as a changed schema would make it fail (an undefined table,
//!   column or function) removes the mark, so the next command checks again and migrates.
//! * **Only a cache.** A mark that cannot be read or written costs a check, nothing else;
//!   `bob db migrate` and `bob db status` always ask the database.
//!
//! The price: a node that has marked its database does not see a newer schema (another node
//! upgraded first) until a statement fails; upgrade every node before (or with) the schema,
//! as for any migration.

use super::DbUrl;
use crate::home::Home;
use std::path::PathBuf;
use std::sync::OnceLock;

/// The mark's file, once the process has connected (so an error can remove it).
static FILE: OnceLock<PathBuf> = OnceLock::new();

#[derive(serde::Serialize, serde::Deserialize)]
struct Mark {
    url: String,
    schema_version: i32,
}

fn file_of(home: &Home) -> PathBuf {
    home.cache_dir().join("db-schema.json")
}

/// Whether `home`'s mark says `url`'s database is at `latest`.
pub(super) fn is_current(home: &Home, url: &DbUrl, latest: i32) -> bool {
    let _ = FILE.set(file_of(home));
    std::fs::read(file_of(home))
        .ok()
        .and_then(|b| serde_json::from_slice::<Mark>(&b).ok())
        .is_some_and(|m| m.url == url.shown() && m.schema_version == latest)
}

/// Marks `url`'s database as found at `version` (best effort).
pub(super) fn remember(home: &Home, url: &DbUrl, version: i32) {
    let path = file_of(home);
    let Some(dir) = path.parent() else { return };
    if home.ensure_dir(dir).is_err() {
        return;
    }
    let mark = Mark {
        url: url.shown().to_string(),
        schema_version: version,
    };
    let Ok(text) = serde_json::to_vec(&mark) else {
        return;
    };
    let tmp = dir.join(format!(".db-schema.{}", std::process::id()));
    if std::fs::write(&tmp, text).is_err() || std::fs::rename(&tmp, &path).is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
}

/// Removes the mark when `e` is what a schema other than the one marked gives (an undefined
/// table, column, function or object): the next command checks the version again.
pub(super) fn forget_on(e: &postgres::Error) {
    let undefined = e.code().is_some_and(|c| {
        let c = c.code();
        c.starts_with("42P0") || c == "42703" || c == "42883" || c == "42704"
    });
    if undefined && let Some(path) = FILE.get() {
        let _ = std::fs::remove_file(path);
    }
}
