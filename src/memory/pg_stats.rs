//! The planner's statistics of the shared store's full-text column, as each node keeps them:
//! what the rank budget ([`super::pg_rank`]) estimates a query word's rows from.
//!
//! This module promises:
//!
//! * **Read from the catalog only when they changed.** The statistics (`pg_stats` of
//!   `memory_records.tsv`: its most common lexemes and their frequencies) change only when
//!   `ANALYZE` (or autovacuum's) runs, but reading them plans a query against the statistics
//!   catalog, which a fresh server process (one per command) pays for every time. So a node
//!   keeps the last ones it read: in the process (for `bob serve`) and in a file of its home
//!   (`cache/memory-tsv-stats.json`, for one-shot commands). Each query asks only for its own
//!   lexemes and the table's stamp (its oid, row and page counts, and the times of its last
//!   `ANALYZE` and autovacuum analyze), a lookup by oid in the one statement that stems the
//!   query; the kept statistics are used while the stamp is the one they were read under, and
//!   read again (and kept) otherwise.
//! * **Never another database's.** The kept statistics name the database (its URL with the
//!   password blanked) and the stamp, so a copy for another database or table is not used.
//! * **Only a cache.** A file that cannot be read or written costs one read of the catalog,
//!   nothing else; the statistics only steer which rows are ranked, never a score.

use crate::db::Database;
use crate::error::Result;
use postgres::types::Type;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The statistics of the `tsv` column as read under one stamp.
#[derive(Clone, serde::Serialize, serde::Deserialize)]
struct Kept {
    /// The database: its URL, password blanked.
    url: String,
    /// The table's oid, `reltuples`, `relpages` and last analyze times, as one text.
    stamp: String,
    /// Each most common lexeme and the fraction of rows holding it.
    elems: HashMap<String, f64>,
    /// The least fraction of the list: a lexeme not in it is rarer (`None`: no statistics).
    least: Option<f64>,
}

/// The kept statistics of this process (the last database read).
static KEPT: Mutex<Option<Kept>> = Mutex::new(None);

/// The file a node keeps them in.
pub(crate) fn file_in(cache_dir: &Path) -> PathBuf {
    cache_dir.join("memory-tsv-stats.json")
}

/// A query's lexemes and how many rows each is estimated to be in.
pub(crate) struct Estimates {
    /// Each lexeme of the query (PostgreSQL's `english` configuration, stop words dropped)
    /// and its estimated row count (`None`: the table has no statistics yet).
    pub lexemes: Vec<(String, Option<f64>)>,
    /// The table's estimated row count (`None`: never analyzed, or empty).
    pub rows: Option<f64>,
}

/// The lexemes of `words` with their estimated row counts, from the kept statistics when the
/// table's stamp is unchanged (`file`: the node's copy; `None` keeps them in the process only),
/// else from `pg_stats` (then kept).
pub(crate) fn estimates(
    db: &'static Database,
    words: &[String],
    file: Option<&Path>,
) -> Result<Estimates> {
    // One typed statement, no prepare round trip: the query's lexemes and the table's stamp,
    // found by oid (no statistics catalog planned).
    let rows = db.with(|c| {
        c.query_typed(
            "SELECT ARRAY(SELECT unnest(tsvector_to_array(to_tsvector('english', $1)))), \
                    c.reltuples::float8, \
                    concat_ws(' ', c.oid, c.reltuples, c.relpages, \
                              pg_stat_get_last_analyze_time(c.oid), \
                              pg_stat_get_last_autoanalyze_time(c.oid)) \
             FROM pg_class c WHERE c.oid = 'memory_records'::regclass",
            &[(&words.join(" "), Type::TEXT)],
        )
    })?;
    let Some(row) = rows.first() else {
        return Ok(Estimates {
            lexemes: Vec::new(),
            rows: None,
        });
    };
    let lexemes: Vec<String> = row.get(0);
    let rows = row.get::<_, Option<f64>>(1).filter(|n| *n > 0.0);
    let stamp: String = row.get(2);
    let url = db.url().shown().to_string();
    let kept = match kept(&url, &stamp, file) {
        Some(k) => k,
        None => {
            let k = read(db, url, stamp)?;
            keep(&k, file);
            k
        }
    };
    let lexemes = lexemes
        .into_iter()
        .map(|l| {
            let freq = kept.elems.get(&l).copied().or(kept.least);
            let est = freq.zip(rows).map(|(f, n)| f * n);
            (l, est)
        })
        .collect();
    Ok(Estimates { lexemes, rows })
}

/// The statistics kept for `url` under `stamp`: the process's, else the file's.
fn kept(url: &str, stamp: &str, file: Option<&Path>) -> Option<Kept> {
    let fits = |k: &Kept| k.url == url && k.stamp == stamp;
    let mut mine = KEPT.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(k) = mine.as_ref().filter(|k| fits(k)) {
        return Some(k.clone());
    }
    let k = std::fs::read(file?)
        .ok()
        .and_then(|b| serde_json::from_slice::<Kept>(&b).ok())
        .filter(fits)?;
    *mine = Some(k.clone());
    Some(k)
}

/// Reads the column's statistics from `pg_stats`.
fn read(db: &'static Database, url: String, stamp: String) -> Result<Kept> {
    // most_common_elem_freqs holds one frequency per element, then the least and the greatest
    // of them and the frequency of nulls.
    let rows = db.with(|c| {
        c.query_typed(
            "SELECT most_common_elems::text::text[], most_common_elem_freqs::float8[] \
             FROM pg_stats WHERE schemaname = current_schema() \
               AND tablename = 'memory_records' AND attname = 'tsv'",
            &[],
        )
    })?;
    let (elems, freqs): (Vec<String>, Vec<f64>) = rows
        .first()
        .map(|r| {
            (
                r.get::<_, Option<Vec<String>>>(0).unwrap_or_default(),
                r.get::<_, Option<Vec<f64>>>(1).unwrap_or_default(),
            )
        })
        .unwrap_or_default();
    let least = freqs.get(elems.len()).copied();
    let elems = elems.into_iter().zip(freqs).collect();
    Ok(Kept {
        url,
        stamp,
        elems,
        least,
    })
}

/// Keeps `k` in the process and, best effort, in `file` (written whole, then renamed).
fn keep(k: &Kept, file: Option<&Path>) {
    *KEPT.lock().unwrap_or_else(|p| p.into_inner()) = Some(k.clone());
    let Some(path) = file else { return };
    let Some(dir) = path.parent() else { return };
    if std::fs::create_dir_all(dir).is_err() {
        return;
    }
    let Ok(text) = serde_json::to_vec(k) else {
        return;
    };
    let tmp = dir.join(format!(".memory-tsv-stats.{}", std::process::id()));
    if std::fs::write(&tmp, text).is_err() || std::fs::rename(&tmp, path).is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
}
