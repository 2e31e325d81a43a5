//! Copying an embedded home into the shared store (`bob db import --from HOME`).
//!
//! This module promises:
//!
//! * **What is copied.** Every long-term memory, candidate (with its status), approval-ledger
//!   record, audit event ([`audit`]), session checkpoint, turn record and short-term memory
//!   entry ([`records`]), scheduler job ([`jobs`]), run and chat session of its `bob serve`
//!   ([`runs`]), secret ([`secrets`]), serve token ([`tokens`]) and memory vector
//!   ([`vectors`]) of the home at `--from`, read without writing to it (its SQLite files are
//!   opened read-only).
//! * **All or nothing.** Everything is read and checked first, then written in one
//!   transaction (the large stores with multi-row statements): an error (the database
//!   unreachable, a ledger that does not fit, a run still running in the home) leaves the
//!   database as it was.
//! * **Idempotent.** A row whose id is already in the database is left as it is: counted
//!   `unchanged` when it is the same, `differing` when the database holds another version
//!   (the database's wins: it may have been decided or edited on another node since). So a
//!   second run copies nothing.
//! * **The ledger stays one verifying chain.** The home's ledger records are copied verbatim
//!   (same `seq`, `prev`, `hash`), so the database's ledger must be empty or begin with the
//!   home's records (an earlier import of the same home, maybe followed by decisions made on
//!   the cluster since) or be their beginning; anything else is `conflict` and nothing is
//!   written. The records must be keyed with this node's chain key, the one
//!   every node of the database shares (`keys.file`), else `conflict`: copied, they would not
//!   verify. When the database's chain key was rotated since, each chain records were copied
//!   into is brought to the key in force with epoch records ([`epochs`]), under the ledger's
//!   lock and the key epochs' lock (shared), as an append is.

mod audit;
mod epochs;
mod jobs;
mod records;
mod runs;
mod secrets;
mod tokens;
mod vectors;

use crate::db::Database;
use crate::error::{Error, Result};
use crate::home::Home;
use serde::Serialize;
use serde_json::Value;

/// Rows of one store: copied now, already there as they are, already there in another
/// version (left as the database has it).
#[derive(Debug, Clone, Default, Serialize)]
pub struct Counts {
    pub copied: u64,
    pub unchanged: u64,
    pub differing: u64,
}

/// What `bob db import` did.
#[derive(Debug, Clone, Serialize)]
pub struct Imported {
    /// The home copied from.
    pub from: String,
    /// The database copied into (password blanked).
    pub url: String,
    pub memories: Counts,
    pub candidates: Counts,
    pub ledger: Counts,
    pub checkpoints: Counts,
    /// The audit events, each day file one chain of the database ([`audit`]).
    pub audit: Counts,
    /// The lines of `turns.jsonl` ([`records`]).
    pub turn_records: Counts,
    /// Short-term memory entries ([`records`]).
    pub stm: Counts,
    /// The scheduler's jobs ([`jobs`]).
    pub jobs: Counts,
    /// The runs of the home's `bob serve` queue ([`runs`]).
    pub runs: Counts,
    /// The chat sessions of its rooms ([`runs`]).
    pub chat_sessions: Counts,
    /// The secrets, sealed again with this node's key ([`secrets`]).
    pub secrets: Counts,
    /// The tokens of its `bob serve` ([`tokens`]).
    pub serve_tokens: Counts,
    /// The vectors of its long-term records ([`vectors`]).
    pub vectors: Counts,
    /// Stores of the home that do not live in the shared database yet and were not copied
    /// (none now; kept so a reader of the output can rely on it).
    pub not_copied: Vec<&'static str>,
    /// Key epoch records chained at the end of the chains copied now, when the database's
    /// chain key was rotated since the home's records were signed ([`epochs`]).
    pub epoch_records: u64,
}

/// The advisory lock key the shared ledger is appended under (the same as a decision's).
const LEDGER_LOCK: i64 = crate::memory::pg::LEDGER_LOCK;

fn tally(c: &mut Counts, inserted: bool, same: impl FnOnce() -> Result<bool>) -> Result<()> {
    if inserted {
        c.copied += 1;
    } else if same()? {
        c.unchanged += 1;
    } else {
        c.differing += 1;
    }
    Ok(())
}

/// Copies the embedded stores of `from` into this process's shared database (see the module
/// docs); `current` is this node's home (its chain key checks the ledger records).
pub fn import_home(from: &Home, current: &Home) -> Result<Imported> {
    let Some(db) = crate::db::shared()? else {
        return Err(Error::invalid(format!(
            "{} is not set: there is no shared database to import into",
            crate::db::SETTING
        ))
        .with("setting", crate::db::SETTING));
    };
    let root = from.root();
    if !root.is_dir() {
        return Err(Error::not_found(format!("no home at {}", root.display()))
            .with("path", root.display().to_string()));
    }
    let source = read_source(from)?;
    let key_id = crate::chain::Keyring::load(current.root())?.map(|k| k.key_id().to_string());
    for (i, r) in source.ledger.iter().enumerate() {
        let rid = r
            .get(crate::chain::RECORD_KEY_FIELD)
            .and_then(Value::as_str);
        if let Some(rid) = rid.filter(|r| Some(*r) != key_id.as_deref())
            && retired_by(from, rid)
        {
            return Err(Error::conflict(format!(
                "ledger record {i} of {} is signed with key {rid}, which that home retired \
                 (`bob ledger rekey` there): the shared store's chains change key only at a key \
                 epoch record, which a home's own rekey does not write, so its chains cannot be \
                 copied verifying; copy its memories instead (`bob memory export` there, \
                 `bob memory import` on a node of the database)",
                root.display()
            ))
            .with("key_id", rid)
            .retryable(false));
        }
        if rid.is_none() || rid != key_id.as_deref() {
            return Err(Error::conflict(format!(
                "ledger record {i} of {} is keyed with {}, not this node's chain key {}: point \
                 keys.file (BOB_KEY_FILE) at the key that home used, the key every node of the \
                 database shares",
                root.display(),
                rid.unwrap_or("no key"),
                key_id.as_deref().unwrap_or("(none)")
            ))
            .retryable(false));
        }
    }
    let audit_files = audit::read(from, key_id.as_deref())?;
    let turns = records::read_turns(from)?;
    let jobs = jobs::read(from)?;
    let queue = runs::read(from)?;
    let secrets = secrets::read(from, current)?;
    let tokens = tokens::read(from)?;
    let vectors = vectors::read(from)?;
    let mut out = Imported {
        from: root.display().to_string(),
        url: db.url().shown().to_string(),
        memories: Counts::default(),
        candidates: Counts::default(),
        ledger: Counts::default(),
        checkpoints: Counts::default(),
        audit: Counts::default(),
        turn_records: Counts::default(),
        stm: Counts::default(),
        jobs: Counts::default(),
        runs: Counts::default(),
        chat_sessions: Counts::default(),
        secrets: Counts::default(),
        serve_tokens: Counts::default(),
        vectors: Counts::default(),
        not_copied: Vec::new(),
        epoch_records: 0,
    };
    let node_keys = crate::chain::Keyring::load(current.root())?;
    let now = crate::clock::rfc3339(crate::clock::now()?);
    let inserted = db.transaction(|tx| {
        // The ledger's lock, then the key epochs' lock shared (an appender's order): a rotation
        // lands wholly before the import (whose copied chains then join its epoch) or after it.
        copy_ledger(db, tx, &source.ledger, &mut out.ledger)?;
        let extended = audit::copy(db, tx, &audit_files, &mut out.audit)?;
        if let Some(keys) = &node_keys {
            if out.ledger.copied > 0 {
                out.epoch_records += epochs::catch_up_ledger(db, tx, keys, &now)?;
            }
            for chain in &extended {
                out.epoch_records += epochs::catch_up_audit(db, tx, keys, chain, &now)?;
            }
        }
        records::copy_turns(db, tx, &turns, &mut out.turn_records)?;
        records::copy_stm(db, tx, &source.stm, &mut out.stm)?;
        jobs::copy(db, tx, &jobs, &mut out.jobs)?;
        runs::copy(db, tx, &queue, &mut out.runs, &mut out.chat_sessions)?;
        secrets::copy(db, tx, current, &secrets, &mut out.secrets)?;
        tokens::copy(db, tx, &tokens, &mut out.serve_tokens)?;
        let (differing_records, inserted) =
            copy_records(db, tx, root, &source.records, &mut out.memories)?;
        vectors::copy(db, tx, &vectors, &differing_records, &mut out.vectors)?;
        for c in &source.candidates {
            let n = tx
                .execute(
                    "INSERT INTO memory_candidates (id, user_id, status, digest, created_unix, row) \
                     VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING",
                    &[&c.id, &c.user, &c.status, &c.digest, &c.created_unix, &c.row],
                )
                .map_err(|e| db.error(e))?;
            tally(&mut out.candidates, n == 1, || {
                let row = tx
                    .query_opt("SELECT row FROM memory_candidates WHERE id = $1", &[&c.id])
                    .map_err(|e| db.error(e))?;
                Ok(row.is_some_and(|r| same_json(r.get(0), &c.row)))
            })?;
        }
        for (session, revision, doc) in &source.checkpoints {
            let n = tx
                .execute(
                    "INSERT INTO checkpoints (session_id, revision, doc) VALUES ($1, $2, $3) \
                     ON CONFLICT (session_id) DO NOTHING",
                    &[session, revision, doc],
                )
                .map_err(|e| db.error(e))?;
            tally(&mut out.checkpoints, n == 1, || {
                let row = tx
                    .query_one(
                        "SELECT revision, doc FROM checkpoints WHERE session_id = $1",
                        &[session],
                    )
                    .map_err(|e| db.error(e))?;
                Ok(row.get::<_, i64>(0) == *revision
                    && row
                        .get::<_, Option<&str>>(1)
                        .is_some_and(|d| same_json(d, doc)))
            })?;
        }
        Ok(inserted)
    })?;
    crate::memory::pg_pack::records(db, &inserted);
    Ok(out)
}

/// Whether `key_id` is a key `home` retired with its own `bob ledger rekey` (kept as
/// `keys/retired/<key_id>.key`).
fn retired_by(home: &Home, key_id: &str) -> bool {
    key_id.chars().all(|c| c.is_ascii_hexdigit())
        && home
            .root()
            .join(crate::chain::KEYS_DIR)
            .join("retired")
            .join(format!("{key_id}.key"))
            .exists()
}

/// How many long-term records one statement inserts.
const RECORDS_PER_STATEMENT: usize = 500;

/// Copies the home's long-term records (`texts`, each a record's JSON), [`RECORDS_PER_STATEMENT`]
/// to a statement, and compares those already stored with one look-up per statement; returns
/// the ids stored in another version (their vectors are not copied) and those inserted.
fn copy_records(
    db: &'static Database,
    tx: &mut postgres::Transaction<'_>,
    root: &std::path::Path,
    texts: &[String],
    counts: &mut Counts,
) -> Result<(std::collections::HashSet<String>, Vec<String>)> {
    let mut differing = std::collections::HashSet::new();
    let mut inserted_ids = Vec::new();
    for chunk in texts.chunks(RECORDS_PER_STATEMENT) {
        let records = chunk
            .iter()
            .map(|text| {
                serde_json::from_str::<crate::contracts::MemoryRecord>(text).map_err(|e| {
                    Error::internal(format!("memory record of {}: {e}", root.display()))
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let inserted = crate::memory::pg::insert_records(db, tx, &records)?;
        let held: Vec<&str> = records
            .iter()
            .zip(&inserted)
            .filter(|(_, new)| !**new)
            .map(|(r, _)| r.id.as_str())
            .collect();
        let stored: std::collections::HashMap<String, String> = if held.is_empty() {
            Default::default()
        } else {
            tx.query_typed(
                "SELECT id, record FROM memory_records WHERE id = ANY($1)",
                &[(&held, postgres::types::Type::TEXT_ARRAY)],
            )
            .map_err(|e| db.error(e))?
            .into_iter()
            .map(|row| (row.get(0), row.get(1)))
            .collect()
        };
        for ((r, text), new) in records.iter().zip(chunk).zip(inserted) {
            if new {
                inserted_ids.push(r.id.clone());
            }
            let before = counts.differing;
            tally(counts, new, || {
                Ok(stored.get(&r.id).is_some_and(|s| same_json(s, text)))
            })?;
            if counts.differing > before {
                differing.insert(r.id.clone());
            }
        }
    }
    Ok((differing, inserted_ids))
}

fn same_json(a: &str, b: &str) -> bool {
    match (
        serde_json::from_str::<Value>(a),
        serde_json::from_str::<Value>(b),
    ) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

/// Appends the home's ledger records past the ones the database already holds, after checking
/// that those are the home's own first records.
fn copy_ledger(
    db: &'static Database,
    tx: &mut postgres::Transaction<'_>,
    records: &[serde_json::Map<String, Value>],
    counts: &mut Counts,
) -> Result<()> {
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&LEDGER_LOCK])
        .map_err(|e| db.error(e))?;
    tx.execute(
        "SELECT pg_advisory_xact_lock_shared($1)",
        &[&crate::chain::pg::EPOCH_LOCK],
    )
    .map_err(|e| db.error(e))?;
    let held: Vec<String> = tx
        .query("SELECT record FROM memory_ledger ORDER BY seq", &[])
        .map_err(|e| db.error(e))?
        .iter()
        .map(|r| r.get(0))
        .collect();
    // The common beginning must be the same records; past it, the longer side goes on (the
    // database's: decisions made on the cluster since an earlier import).
    for (text, mine) in held.iter().zip(records) {
        let theirs: Value = serde_json::from_str(text).unwrap_or_default();
        if theirs != Value::Object(mine.clone()) {
            return Err(ledger_mismatch(held.len(), records.len()));
        }
        counts.unchanged += 1;
    }
    for (seq, r) in records.iter().enumerate().skip(held.len()) {
        let text = serde_json::to_string(r).map_err(|e| Error::internal(e.to_string()))?;
        tx.execute(
            "INSERT INTO memory_ledger (seq, record) VALUES ($1, $2)",
            &[&(seq as i64), &text],
        )
        .map_err(|e| db.error(e))?;
        counts.copied += 1;
    }
    Ok(())
}

fn ledger_mismatch(held: usize, home: usize) -> Error {
    Error::conflict(format!(
        "the database's approval ledger ({held} records) and this home's ({home}) differ where \
         they overlap: a home's ledger can only be imported into an empty shared ledger, or \
         one an earlier import of the same home started"
    ))
    .with("database_records", held as u64)
    .with("home_records", home as u64)
    .retryable(false)
}

struct Candidate {
    id: String,
    user: String,
    status: String,
    digest: String,
    created_unix: i64,
    row: String,
}

struct Source {
    records: Vec<String>,
    candidates: Vec<Candidate>,
    ledger: Vec<serde_json::Map<String, Value>>,
    /// (session id, revision, document)
    checkpoints: Vec<(String, i64, String)>,
    stm: Vec<records::StmRow>,
}

fn read_source(from: &Home) -> Result<Source> {
    let mut source = Source {
        records: Vec::new(),
        candidates: Vec::new(),
        ledger: Vec::new(),
        checkpoints: Vec::new(),
        stm: Vec::new(),
    };
    let path = from.memory_db();
    if path.exists() {
        let conn = rusqlite::Connection::open_with_flags(
            &path,
            rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
        )?;
        conn.busy_timeout(crate::memory::db::BUSY_TIMEOUT)?;
        let mut stmt = conn.prepare("SELECT record FROM ltm ORDER BY rid")?;
        source.records = stmt
            .query_map([], |r| r.get(0))?
            .collect::<rusqlite::Result<_>>()?;
        let mut stmt = conn.prepare(
            "SELECT id, user, status, digest, created_unix, row FROM candidates \
             ORDER BY created_unix, id",
        )?;
        source.candidates = stmt
            .query_map([], |r| {
                Ok(Candidate {
                    id: r.get(0)?,
                    user: r.get(1)?,
                    status: r.get(2)?,
                    digest: r.get(3)?,
                    created_unix: r.get(4)?,
                    row: r.get(5)?,
                })
            })?
            .collect::<rusqlite::Result<_>>()?;
        source.stm = records::read_stm(Some(&conn))?;
    }
    let log = crate::store::read_jsonl(&from.ledger_path())?;
    if let Some(bad) = log.bad.first() {
        return Err(Error::conflict(format!(
            "{} line {} is {} ({}): run `bob ledger verify` on that home first",
            from.ledger_path().display(),
            bad.line,
            bad.kind,
            bad.reason
        ))
        .retryable(false));
    }
    for (_, v) in log.records {
        match v {
            Value::Object(m) => source.ledger.push(m),
            _ => return Err(Error::conflict("a ledger record is not a JSON object")),
        }
    }
    let sessions = from.root().join("sessions");
    if let Ok(dir) = std::fs::read_dir(&sessions) {
        let mut names: Vec<String> = dir
            .filter_map(|e| e.ok())
            .filter_map(|e| e.file_name().into_string().ok())
            .collect();
        names.sort();
        for name in names {
            let Ok(path) = from.checkpoint_path(&name) else {
                continue;
            };
            let text = match std::fs::read_to_string(&path) {
                Ok(t) => t,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                Err(e) => return Err(Error::io(&path, e)),
            };
            let doc: Value = serde_json::from_str(&text).map_err(|e| {
                Error::internal(format!("{} is not a checkpoint: {e}", path.display()))
                    .with("path", path.display().to_string())
            })?;
            let revision = doc.get("revision").and_then(Value::as_i64).unwrap_or(0);
            if revision > 0 {
                source.checkpoints.push((name, revision, text));
            }
        }
    }
    Ok(source)
}
