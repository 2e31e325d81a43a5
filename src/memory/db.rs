//! The SQLite file behind memory: connection settings and versioned migrations.
//!
//! `memory.db` runs in WAL mode with a busy timeout so a cron job and a shell can use it at the
//! same time. The schema version lives in `PRAGMA user_version`; each migration step runs in
//! one transaction and bumps it.

use crate::error::{Error, Result};
use rusqlite::Connection;
use std::path::Path;
use std::time::Duration;

/// The schema version this build writes.
pub const SCHEMA_VERSION: i64 = 5;

/// How long a writer waits for another process's lock before giving up with `conflict`.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

const MIGRATIONS: &[&str] = &[
    // 0 -> 1
    r#"
CREATE TABLE IF NOT EXISTS stm(
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  user TEXT NOT NULL,
  created_unix INTEGER NOT NULL,
  entry TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS stm_user ON stm(user, seq);
CREATE TABLE IF NOT EXISTS candidates(
  id TEXT PRIMARY KEY,
  user TEXT NOT NULL,
  status TEXT NOT NULL,
  digest TEXT NOT NULL,
  created_unix INTEGER NOT NULL,
  row TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS candidates_status ON candidates(status, created_unix);
CREATE TABLE IF NOT EXISTS ltm(
  rid INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  user TEXT NOT NULL,
  owner TEXT NOT NULL,
  title TEXT NOT NULL,
  summary TEXT NOT NULL,
  body TEXT NOT NULL,
  tags TEXT NOT NULL,
  importance INTEGER NOT NULL,
  created_unix INTEGER NOT NULL,
  expires_unix INTEGER,
  digest TEXT NOT NULL,
  record TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS ltm_user ON ltm(user, created_unix);
CREATE INDEX IF NOT EXISTS ltm_expires ON ltm(expires_unix) WHERE expires_unix IS NOT NULL;
CREATE VIRTUAL TABLE IF NOT EXISTS ltm_fts USING fts5(
  title, summary, body, tags, owner,
  content='ltm', content_rowid='rid', tokenize='porter unicode61'
);
CREATE TRIGGER IF NOT EXISTS ltm_ai AFTER INSERT ON ltm BEGIN
  INSERT INTO ltm_fts(rowid, title, summary, body, tags, owner)
  VALUES (new.rid, new.title, new.summary, new.body, new.tags, new.owner);
END;
CREATE TRIGGER IF NOT EXISTS ltm_ad AFTER DELETE ON ltm BEGIN
  INSERT INTO ltm_fts(ltm_fts, rowid, title, summary, body, tags, owner)
  VALUES ('delete', old.rid, old.title, old.summary, old.body, old.tags, old.owner);
END;
CREATE TRIGGER IF NOT EXISTS ltm_au AFTER UPDATE ON ltm BEGIN
  INSERT INTO ltm_fts(ltm_fts, rowid, title, summary, body, tags, owner)
  VALUES ('delete', old.rid, old.title, old.summary, old.body, old.tags, old.owner);
  INSERT INTO ltm_fts(rowid, title, summary, body, tags, owner)
  VALUES (new.rid, new.title, new.summary, new.body, new.tags, new.owner);
END;
INSERT INTO ltm_fts(ltm_fts, rank) VALUES('rank', 'bm25(4.0, 2.0, 1.0, 2.0, 0.0)');
CREATE TABLE IF NOT EXISTS ledger_seen(
  seq INTEGER PRIMARY KEY,
  kind TEXT NOT NULL,
  applied INTEGER NOT NULL
);
"#,
    // 1 -> 2: a 16 MiB in-memory term hash per writer, so bulk imports flush fewer, larger
    // FTS5 segments and spend less time merging them.
    r#"
INSERT INTO ltm_fts(ltm_fts, rank) VALUES('hashsize', 16777216);
"#,
    // 2 -> 3: rows are indexed by the code that inserts them (`SqliteLtm::insert_new` one at a
    // time, a bulk import with one INSERT … SELECT after all its rows, about twice as fast as
    // a trigger per row). Deletes and updates keep their triggers.
    r#"
DROP TRIGGER IF EXISTS ltm_ai;
"#,
    // 3 -> 4: `bob memory list` across all users walks this index newest first instead of
    // sorting every row (about 1 s on a 1M-record store).
    r#"
CREATE INDEX IF NOT EXISTS ltm_created ON ltm(created_unix);
"#,
    // 4 -> 5: the candidate a ledger decision is about, so a candidate the ledger already
    // decided is a conflict even when that decision could not be applied (crash recovery).
    r#"
CREATE TABLE IF NOT EXISTS ledger_decided(
  candidate_id TEXT PRIMARY KEY,
  seq INTEGER NOT NULL
);
"#,
];

fn configure(conn: &Connection) -> Result<()> {
    conn.busy_timeout(BUSY_TIMEOUT)?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    Ok(())
}

/// Opens (creating if needed) the database at `path`, in WAL mode, migrated to
/// [`SCHEMA_VERSION`].
pub fn open(path: &Path) -> Result<Connection> {
    if let Some(dir) = path.parent()
        && !dir.as_os_str().is_empty()
    {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    }
    let conn = Connection::open(path)?;
    configure(&conn)?;
    let version: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
    if version == SCHEMA_VERSION {
        return Ok(conn);
    }
    // journal_mode=WAL is persistent in the file; set it once, when the file is new.
    let mode = crate::sqlite::use_wal(&conn, BUSY_TIMEOUT)?;
    if !mode.eq_ignore_ascii_case("wal") {
        return Err(Error::internal(format!(
            "memory.db: could not enable WAL (journal_mode={mode})"
        )));
    }
    migrate(&conn)?;
    Ok(conn)
}

/// A private in-memory database with the current schema (benchmarks, tests).
pub fn open_in_memory() -> Result<Connection> {
    let conn = Connection::open_in_memory()?;
    configure(&conn)?;
    migrate(&conn)?;
    Ok(conn)
}

fn migrate(conn: &Connection) -> Result<()> {
    conn.execute_batch("BEGIN IMMEDIATE")?;
    let result = (|| {
        let version: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
        if version > SCHEMA_VERSION {
            return Err(Error::conflict(format!(
                "memory.db has schema version {version}, newer than this bob ({SCHEMA_VERSION})"
            )));
        }
        for (i, sql) in MIGRATIONS.iter().enumerate().skip(version.max(0) as usize) {
            conn.execute_batch(sql)?;
            conn.pragma_update(None, "user_version", (i + 1) as i64)?;
        }
        Ok(())
    })();
    match result {
        Ok(()) => {
            conn.execute_batch("COMMIT")?;
            Ok(())
        }
        Err(e) => {
            let _ = conn.execute_batch("ROLLBACK");
            Err(e)
        }
    }
}
