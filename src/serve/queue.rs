//! The durable run queue: `serve/queue.db`, SQLite in WAL mode (`synchronous=FULL`, so an
//! accepted run is on disk before `202` is answered). [`RunStore`] is what every queue does;
//! with `database.url` set the server uses the shared database's queue instead (`queue_pg`:
//! the same rules, across nodes, with leases).
//!
//! A run is one row whose `status` moves `queued → running → completed | incomplete | failed |
//! cancelled` (`incomplete`: the turn escalated or hit the tool-round limit, see `bob turn`).
//! Claiming is one `UPDATE … RETURNING` in an immediate transaction, so two workers never
//! claim the same run, and it skips sessions that already have a running run: runs of one
//! session execute one at a time, different sessions in parallel.
//!
//! Crash rule (applied by [`Queue::recover`] when the server starts, under the server lock so
//! no other server is running runs): a `running` row belongs to a server that died. If its run
//! bundle holds a turn record (or, the bundle missing or torn, `turns.jsonl` does), the turn
//! finished and only the queue update was lost: the row becomes that record's status. Otherwise the turn may have run part way (tools may have had
//! effects), so it is never started again: the row becomes `failed` with reason `interrupted`.
//! A row a drain re-queued has the cut-short attempt's turn record (status `cancelled`) in
//! `turns.jsonl` already: only a record of its latest attempt (`attempts`) counts.
//! `queued` rows are simply run. So every accepted run ends completed, failed or re-queued,
//! never lost and never run twice.

use crate::contracts::{RunMode, TurnRequest};
use crate::error::{Error, Result};
use rusqlite::{Connection, OptionalExtension, params};
use serde::Serialize;
use serde_json::Value;
use std::path::Path;

/// One row of the queue.
#[derive(Debug, Clone, Serialize)]
pub struct RunRow {
    pub id: String,
    pub agent_id: String,
    pub session_id: String,
    pub user_id: Option<String>,
    pub message: String,
    pub thinking_mode: String,
    pub profile: String,
    pub source: String,
    /// `chat` or `act` (the JSON I/O contracts); runs queued before the column existed are `act`.
    pub mode: String,
    pub status: String,
    pub created_at: String,
    pub started_at: Option<String>,
    pub finished_at: Option<String>,
    pub duration_ms: Option<u64>,
    pub output: Option<String>,
    pub provider: Option<String>,
    pub model: Option<String>,
    pub error: Option<Value>,
    pub tool_calls: u64,
    /// How many times a worker claimed it: more than one only after a drain re-queued it.
    pub attempts: u64,
    /// The caller's own instructions for every role of the turn (`POST /v1/runs`'s `system`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub system: Option<String>,
}

/// A new run to enqueue: the run request, with the run id and the time the server gave it
/// ([`TurnRequest::queued`]).
pub type NewRun = TurnRequest;

/// How a finished run is recorded.
#[derive(Debug, Clone, Default)]
pub struct Finish {
    pub status: String,
    pub finished_at: String,
    pub duration_ms: u64,
    pub output: Option<String>,
    pub provider: Option<String>,
    pub model: Option<String>,
    pub error: Option<Value>,
    pub tool_calls: u64,
}

/// The run queue of one server: the home's SQLite queue, or the shared database's
/// ([`open`] picks).
pub type Queue = Box<dyn RunStore>;

/// What a run queue does, whichever backend holds it (one suite of tests runs both).
pub trait RunStore: Send {
    /// Number of runs waiting to start.
    fn queued(&self) -> Result<u64>;
    /// Adds a run unless `cap` runs are already waiting (`queue.full`). Durable on return.
    fn enqueue(&mut self, run: &NewRun, cap: u64) -> Result<()> {
        self.enqueue_all(std::slice::from_ref(run), cap)
            .pop()
            .unwrap_or_else(|| Err(Error::internal("no enqueue result")))
    }
    /// Adds runs in one transaction, so one sync makes all of them durable (a group commit of
    /// the runs that arrived together); each is refused with `queue.full` once `cap` runs are
    /// waiting. One result per run, in order; none is `Ok` unless the commit succeeded.
    fn enqueue_all(&mut self, runs: &[NewRun], cap: u64) -> Vec<Result<()>>;
    /// Claims the oldest queued run whose session has no running run, marking it `running`.
    fn claim(&mut self, started_at: &str) -> Result<Option<RunRow>>;
    /// Records how a running run ended, durably.
    fn finish(&mut self, id: &str, f: &Finish) -> Result<()>;
    /// Records how a running run ended, possibly without waiting for the disk (see the
    /// SQLite queue); the shared database always commits durably.
    fn finish_relaxed(&mut self, id: &str, f: &Finish) -> Result<()>;
    /// Cancels a run that has not started: `queued` becomes `cancelled` with `error`.
    /// Returns false (and changes nothing) when the run is not queued any more.
    fn cancel_queued(&mut self, id: &str, finished_at: &str, error: &Value) -> Result<bool>;
    /// Puts a running run back in the queue (a drain cut it short before it had any effect).
    fn requeue(&mut self, id: &str) -> Result<()>;
    /// The rows left `running` by this server's previous process (see the module docs).
    fn running(&self) -> Result<Vec<RunRow>>;
    fn get(&self, id: &str) -> Result<Option<RunRow>>;
    /// A page of runs, newest first, optionally of one status; and the total matching.
    fn list(&self, status: Option<&str>, limit: u64, offset: u64) -> Result<(Vec<RunRow>, u64)>;
    /// Every run of one session, oldest first.
    fn session_runs(&self, session_id: &str) -> Result<Vec<RunRow>>;
    /// The active chat session of (agent, user, room), created when there is none.
    fn chat_session(&mut self, key: &ChatKey, now: &str) -> Result<ChatSession>;
    /// `/new`: a fresh active session; the previous one is kept, inactive.
    fn chat_new(&mut self, key: &ChatKey, now: &str) -> Result<ChatSession>;
    /// `/resume`: the most recent inactive session becomes the active one (`None` if none).
    fn chat_resume(&mut self, key: &ChatKey) -> Result<Option<ChatSession>>;
    /// Chat sessions, newest first, filtered; and the total matching.
    fn chat_sessions(
        &self,
        filter: &ChatFilter,
        limit: u64,
        offset: u64,
    ) -> Result<(Vec<ChatSession>, u64)>;
    fn chat_get(&self, id: &str) -> Result<Option<ChatSession>>;

    /// Asks the node running run `id` to cancel it (a shared queue: it may run elsewhere).
    fn request_cancel(&mut self, _id: &str, _by: &str) -> Result<()> {
        Ok(())
    }
    /// True when several nodes share the queue: a cancel reaches whichever node runs the run
    /// through that node's [`RunStore::heartbeat`].
    fn is_shared(&self) -> bool {
        false
    }
    /// Renews the leases of this node's running runs; returns the cancels asked for them
    /// (run id, by whom). Nothing to do for a queue only this node uses.
    fn heartbeat(&mut self) -> Result<Vec<(String, String)>> {
        Ok(Vec::new())
    }
    /// Takes over the runs whose node stopped renewing their lease, for the crash rule
    /// (they stay `running`, now this node's). None for a queue only this node uses.
    fn take_expired(&mut self) -> Result<Vec<RunRow>> {
        Ok(Vec::new())
    }
}

/// The home's own run queue, `serve/queue.db`.
pub struct SqliteQueue {
    conn: Connection,
}

pub(super) const COLUMNS: &str = "id, agent_id, session_id, user_id, message, thinking_mode, profile, source, \
    status, created_at, started_at, finished_at, duration_ms, output, provider, model, error, \
    tool_calls, attempts, mode, system";

fn row(r: &rusqlite::Row<'_>) -> rusqlite::Result<RunRow> {
    let error: Option<String> = r.get(16)?;
    Ok(RunRow {
        id: r.get(0)?,
        agent_id: r.get(1)?,
        session_id: r.get(2)?,
        user_id: r.get(3)?,
        message: r.get(4)?,
        thinking_mode: r.get(5)?,
        profile: r.get(6)?,
        source: r.get(7)?,
        status: r.get(8)?,
        created_at: r.get(9)?,
        started_at: r.get(10)?,
        finished_at: r.get(11)?,
        duration_ms: r.get::<_, Option<i64>>(12)?.map(|v| v.max(0) as u64),
        output: r.get(13)?,
        provider: r.get(14)?,
        model: r.get(15)?,
        error: error.and_then(|e| serde_json::from_str(&e).ok()),
        tool_calls: r.get::<_, i64>(17)?.max(0) as u64,
        attempts: r.get::<_, i64>(18)?.max(0) as u64,
        mode: r.get(19)?,
        system: r.get(20)?,
    })
}

impl RunRow {
    /// The run request this row holds (what its bundle records as `request.json`).
    pub fn request(&self) -> TurnRequest {
        TurnRequest::new(
            &self.source,
            &self.agent_id,
            &self.session_id,
            &self.message,
        )
        .with_user(self.user_id.clone())
        .with_thinking_mode(&self.thinking_mode)
        .with_profile(&self.profile)
        .with_mode(RunMode::parse(&self.mode).unwrap_or_default())
        .with_system(self.system.clone())
        .queued(&self.id, &self.created_at)
    }
}

impl SqliteQueue {
    /// Opens (creating if needed) the queue database at `path`.
    pub fn open(path: &Path) -> Result<SqliteQueue> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        }
        let conn = Connection::open(path)?;
        conn.busy_timeout(std::time::Duration::from_secs(10))?;
        crate::sqlite::use_wal(&conn, std::time::Duration::from_secs(10))?;
        conn.pragma_update(None, "synchronous", "FULL")?;
        conn.execute_batch(
            "CREATE TABLE IF NOT EXISTS runs (
                seq INTEGER PRIMARY KEY AUTOINCREMENT,
                id TEXT NOT NULL UNIQUE,
                agent_id TEXT NOT NULL,
                session_id TEXT NOT NULL,
                user_id TEXT,
                message TEXT NOT NULL,
                thinking_mode TEXT NOT NULL,
                profile TEXT NOT NULL,
                source TEXT NOT NULL,
                status TEXT NOT NULL,
                created_at TEXT NOT NULL,
                started_at TEXT,
                finished_at TEXT,
                duration_ms INTEGER,
                output TEXT,
                provider TEXT,
                model TEXT,
                error TEXT,
                tool_calls INTEGER NOT NULL DEFAULT 0,
                attempts INTEGER NOT NULL DEFAULT 0
            );
            CREATE INDEX IF NOT EXISTS runs_status ON runs(status, seq);
            CREATE INDEX IF NOT EXISTS runs_session ON runs(session_id, status);
            CREATE TABLE IF NOT EXISTS chat_sessions (
                seq INTEGER PRIMARY KEY AUTOINCREMENT,
                id TEXT NOT NULL UNIQUE,
                agent_id TEXT NOT NULL,
                user_id TEXT NOT NULL,
                room_id TEXT NOT NULL,
                created_at TEXT NOT NULL,
                active INTEGER NOT NULL
            );
            CREATE INDEX IF NOT EXISTS chat_key ON chat_sessions(agent_id, user_id, room_id);",
        )?;
        // A run's mode came later: a queue made before it gains the column, its runs `act`.
        let has_mode: bool = conn.query_row(
            "SELECT EXISTS (SELECT 1 FROM pragma_table_info('runs') WHERE name = 'mode')",
            [],
            |r| r.get(0),
        )?;
        if !has_mode {
            conn.execute_batch("ALTER TABLE runs ADD COLUMN mode TEXT NOT NULL DEFAULT 'act'")?;
        }
        // So did its `system` text: a queue made before it gains the column, its runs none.
        let has_system: bool = conn.query_row(
            "SELECT EXISTS (SELECT 1 FROM pragma_table_info('runs') WHERE name = 'system')",
            [],
            |r| r.get(0),
        )?;
        if !has_system {
            conn.execute_batch("ALTER TABLE runs ADD COLUMN system TEXT")?;
        }
        Ok(SqliteQueue { conn })
    }

    /// A transaction that takes the write lock at once (no upgrade deadlock between writers),
    /// durable on commit: each write states its own durability, so a relaxed one (see
    /// [`Queue::finish_relaxed`]) never leaves the connection relaxed for the next.
    fn write_tx(&mut self) -> Result<rusqlite::Transaction<'_>> {
        self.conn.pragma_update(None, "synchronous", "FULL")?;
        Ok(self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?)
    }

    fn update_finish(&mut self, id: &str, f: &Finish) -> Result<()> {
        self.conn
            .prepare_cached(
                "UPDATE runs SET status = ?2, finished_at = ?3, duration_ms = ?4, output = ?5,
                provider = ?6, model = ?7, error = ?8, tool_calls = ?9 WHERE id = ?1",
            )?
            .execute(params![
                id,
                f.status,
                f.finished_at,
                f.duration_ms as i64,
                f.output,
                f.provider,
                f.model,
                f.error.as_ref().map(Value::to_string),
                f.tool_calls as i64
            ])?;
        Ok(())
    }

    fn select(&self, tail: &str, p: impl rusqlite::Params) -> Result<Vec<RunRow>> {
        let mut st = self
            .conn
            .prepare_cached(&format!("SELECT {COLUMNS} FROM runs {tail}"))?;
        let rows = st
            .query_map(p, row)?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows)
    }
}

impl RunStore for SqliteQueue {
    /// Number of runs waiting to start.
    fn queued(&self) -> Result<u64> {
        queued_in(&self.conn)
    }

    /// Adds runs in one transaction, so one sync makes all of them durable (a group commit of
    /// the runs that arrived together); each is refused with `queue.full` once `cap` runs are
    /// waiting. One result per run, in order; none is `Ok` unless the commit succeeded.
    fn enqueue_all(&mut self, runs: &[NewRun], cap: u64) -> Vec<Result<()>> {
        let attempt = (|| -> Result<Vec<Result<()>>> {
            let tx = self.write_tx()?;
            let mut n = queued_in(&tx)?;
            let mut out = Vec::with_capacity(runs.len());
            for run in runs {
                if n >= cap {
                    out.push(Err(Error::new(
                        crate::error::Code::QueueFull,
                        "run queue is full",
                    )
                    .with("queued", n)
                    .with("capacity", cap)));
                    continue;
                }
                let (Some(id), Some(created_at)) = (&run.run_id, &run.created_at) else {
                    out.push(Err(Error::internal("a run is queued with its id and time")));
                    continue;
                };
                let mut insert = tx.prepare_cached(
                    "INSERT INTO runs (id, agent_id, session_id, user_id, message, thinking_mode,
                        profile, source, status, created_at, mode, system)
                     VALUES (?1,?2,?3,?4,?5,?6,?7,?8,'queued',?9,?10,?11)",
                )?;
                let inserted = insert.execute(params![
                    id,
                    run.agent_id,
                    run.session_id,
                    run.user_id,
                    run.message,
                    run.thinking_mode,
                    run.profile,
                    run.source,
                    created_at,
                    run.mode.as_str(),
                    run.system
                ]);
                out.push(inserted.map(|_| n += 1).map_err(Error::from));
            }
            tx.commit()?;
            Ok(out)
        })();
        match attempt {
            Ok(out) => out,
            Err(e) => runs
                .iter()
                .map(|_| Err(Error::new(e.code, e.message.clone())))
                .collect(),
        }
    }

    /// Claims the oldest queued run whose session has no running run, marking it `running`.
    fn claim(&mut self, started_at: &str) -> Result<Option<RunRow>> {
        let tx = self.write_tx()?;
        let claimed = tx
            .prepare_cached(&format!(
                "UPDATE runs SET status = 'running', started_at = ?1, attempts = attempts + 1
                     WHERE seq = (SELECT q.seq FROM runs q WHERE q.status = 'queued'
                        AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.session_id = q.session_id
                                        AND r.status = 'running')
                        ORDER BY q.seq LIMIT 1)
                     RETURNING {COLUMNS}"
            ))?
            .query_row(params![started_at], row)
            .optional()?;
        tx.commit()?;
        Ok(claimed)
    }

    /// Records how a running run ended, durably.
    fn finish(&mut self, id: &str, f: &Finish) -> Result<()> {
        self.conn.pragma_update(None, "synchronous", "FULL")?;
        self.update_finish(id, f)
    }

    /// Records how a running run ended without waiting for the disk: the next durable commit
    /// on this database (a claim or an accept, `synchronous=FULL`) syncs it along. Only for an
    /// ending the crash rule rebuilds the same, should this update be lost: `completed` or
    /// `incomplete`, its turn record durable in `turns.jsonl` (the bundle, or that record
    /// when the bundle was lost or torn) and its bundle written.
    fn finish_relaxed(&mut self, id: &str, f: &Finish) -> Result<()> {
        self.conn.pragma_update(None, "synchronous", "NORMAL")?;
        let done = self.update_finish(id, f);
        // Back to the default for the writes that do not state theirs (cancel, requeue).
        let restored = self.conn.pragma_update(None, "synchronous", "FULL");
        done?;
        Ok(restored?)
    }

    /// Cancels a run that has not started: `queued` becomes `cancelled` with `error`.
    /// Returns false (and changes nothing) when the run is not queued any more.
    fn cancel_queued(&mut self, id: &str, finished_at: &str, error: &Value) -> Result<bool> {
        self.conn.pragma_update(None, "synchronous", "FULL")?;
        let n = self.conn.execute(
            "UPDATE runs SET status = 'cancelled', finished_at = ?2, duration_ms = 0, error = ?3
             WHERE id = ?1 AND status = 'queued'",
            params![id, finished_at, error.to_string()],
        )?;
        Ok(n == 1)
    }

    /// Puts a running run back in the queue (a drain cut it short before it had any effect).
    fn requeue(&mut self, id: &str) -> Result<()> {
        self.conn.pragma_update(None, "synchronous", "FULL")?;
        self.conn.execute(
            "UPDATE runs SET status = 'queued', started_at = NULL WHERE id = ?1 AND status = 'running'",
            params![id],
        )?;
        Ok(())
    }

    /// The rows left `running` by a server that died (see the module docs).
    fn running(&self) -> Result<Vec<RunRow>> {
        self.select("WHERE status = 'running' ORDER BY seq", params![])
    }

    fn get(&self, id: &str) -> Result<Option<RunRow>> {
        Ok(self
            .select("WHERE id = ?1", params![id])?
            .into_iter()
            .next())
    }

    /// A page of runs, newest first, optionally of one status; and the total matching.
    fn list(&self, status: Option<&str>, limit: u64, offset: u64) -> Result<(Vec<RunRow>, u64)> {
        let (filter, total): (&str, i64) = match status {
            Some(s) => (
                "WHERE status = ?1",
                self.conn.query_row(
                    "SELECT count(*) FROM runs WHERE status = ?1",
                    params![s],
                    |r| r.get(0),
                )?,
            ),
            None => (
                "WHERE ?1 IS NULL",
                self.conn
                    .query_row("SELECT count(*) FROM runs", [], |r| r.get(0))?,
            ),
        };
        let rows = self.select(
            &format!("{filter} ORDER BY seq DESC LIMIT ?2 OFFSET ?3"),
            params![status, limit as i64, offset as i64],
        )?;
        Ok((rows, total as u64))
    }

    /// Every run of one session, oldest first.
    fn session_runs(&self, session_id: &str) -> Result<Vec<RunRow>> {
        self.select("WHERE session_id = ?1 ORDER BY seq", params![session_id])
    }

    /// The active chat session of (agent, user, room), created when there is none.
    fn chat_session(&mut self, key: &ChatKey, now: &str) -> Result<ChatSession> {
        let tx = self.write_tx()?;
        let found = tx
            .query_row(
                &format!(
                    "SELECT {CHAT_COLUMNS} FROM chat_sessions WHERE agent_id = ?1 AND user_id = ?2
                  AND room_id = ?3 AND active = 1"
                ),
                params![key.agent_id, key.user_id, key.room_id],
                chat_row,
            )
            .optional()?;
        let session = match found {
            Some(s) => s,
            None => insert_chat(&tx, key, now)?,
        };
        tx.commit()?;
        Ok(session)
    }

    /// `/new`: a fresh active session; the previous one is kept, inactive.
    fn chat_new(&mut self, key: &ChatKey, now: &str) -> Result<ChatSession> {
        let tx = self.write_tx()?;
        tx.execute(
            "UPDATE chat_sessions SET active = 0 WHERE agent_id = ?1 AND user_id = ?2 AND room_id = ?3",
            params![key.agent_id, key.user_id, key.room_id],
        )?;
        let s = insert_chat(&tx, key, now)?;
        tx.commit()?;
        Ok(s)
    }

    /// `/resume`: the most recent inactive session becomes the active one (`None` if none).
    fn chat_resume(&mut self, key: &ChatKey) -> Result<Option<ChatSession>> {
        let tx = self.write_tx()?;
        let prev = tx
            .query_row(
                &format!(
                    "SELECT {CHAT_COLUMNS} FROM chat_sessions WHERE agent_id = ?1 AND user_id = ?2
                  AND room_id = ?3 AND active = 0 ORDER BY seq DESC LIMIT 1"
                ),
                params![key.agent_id, key.user_id, key.room_id],
                chat_row,
            )
            .optional()?;
        if let Some(p) = &prev {
            tx.execute(
                "UPDATE chat_sessions SET active = (id = ?4) WHERE agent_id = ?1 AND user_id = ?2 AND room_id = ?3",
                params![key.agent_id, key.user_id, key.room_id, p.id],
            )?;
        }
        tx.commit()?;
        Ok(prev.map(|p| ChatSession { active: true, ..p }))
    }

    /// Chat sessions, newest first, filtered; and the total matching.
    fn chat_sessions(
        &self,
        filter: &ChatFilter,
        limit: u64,
        offset: u64,
    ) -> Result<(Vec<ChatSession>, u64)> {
        let cond = "WHERE (?1 IS NULL OR agent_id = ?1) AND (?2 IS NULL OR user_id = ?2)
                    AND (?3 IS NULL OR room_id = ?3)";
        let p = params![filter.agent_id, filter.user_id, filter.room_id];
        let total: i64 = self.conn.query_row(
            &format!("SELECT count(*) FROM chat_sessions {cond}"),
            p,
            |r| r.get(0),
        )?;
        let mut st = self.conn.prepare_cached(&format!(
            "SELECT {CHAT_COLUMNS} FROM chat_sessions {cond} ORDER BY seq DESC LIMIT ?4 OFFSET ?5"
        ))?;
        let rows = st
            .query_map(
                params![
                    filter.agent_id,
                    filter.user_id,
                    filter.room_id,
                    limit as i64,
                    offset as i64
                ],
                chat_row,
            )?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok((rows, total as u64))
    }

    fn chat_get(&self, id: &str) -> Result<Option<ChatSession>> {
        Ok(self
            .conn
            .query_row(
                &format!("SELECT {CHAT_COLUMNS} FROM chat_sessions WHERE id = ?1"),
                params![id],
                chat_row,
            )
            .optional()?)
    }
}

/// Who a chat session belongs to.
#[derive(Debug, Clone)]
pub struct ChatKey {
    pub agent_id: String,
    pub user_id: String,
    pub room_id: String,
}

/// Filters of the chat session listing.
#[derive(Debug, Clone, Default)]
pub struct ChatFilter {
    pub agent_id: Option<String>,
    pub user_id: Option<String>,
    pub room_id: Option<String>,
}

pub use crate::contracts::http::ChatSession;

pub(super) const CHAT_COLUMNS: &str = "id, agent_id, user_id, room_id, created_at, active";

fn queued_in(conn: &Connection) -> Result<u64> {
    let n: i64 = conn.query_row(
        "SELECT count(*) FROM runs WHERE status = 'queued'",
        [],
        |r| r.get(0),
    )?;
    Ok(n as u64)
}

fn chat_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<ChatSession> {
    Ok(ChatSession {
        id: r.get(0)?,
        agent_id: r.get(1)?,
        user_id: r.get(2)?,
        room_id: r.get(3)?,
        created_at: r.get(4)?,
        active: r.get::<_, i64>(5)? != 0,
    })
}

fn insert_chat(tx: &rusqlite::Transaction<'_>, key: &ChatKey, now: &str) -> Result<ChatSession> {
    let s = ChatSession {
        id: format!("chat_{}", uuid::Uuid::new_v4().simple()),
        agent_id: key.agent_id.clone(),
        user_id: key.user_id.clone(),
        room_id: key.room_id.clone(),
        created_at: now.to_string(),
        active: true,
    };
    tx.execute(
        "INSERT INTO chat_sessions (id, agent_id, user_id, room_id, created_at, active)
         VALUES (?1, ?2, ?3, ?4, ?5, 1)",
        params![s.id, s.agent_id, s.user_id, s.room_id, s.created_at],
    )?;
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(id: &str) -> NewRun {
        TurnRequest::new("http", "a", id, "m").queued(id, "2026-01-01T00:00:00Z")
    }

    fn synchronous(q: &SqliteQueue) -> i64 {
        q.conn
            .pragma_query_value(None, "synchronous", |r| r.get(0))
            .unwrap()
    }

    #[test]
    fn one_commit_takes_runs_up_to_the_cap_and_refuses_the_rest_each_with_its_own_result() {
        let dir = tempfile::tempdir().unwrap();
        let mut q = SqliteQueue::open(&dir.path().join("queue.db")).unwrap();
        q.enqueue(&run("r0"), 3).unwrap();
        let batch: Vec<NewRun> = ["r1", "r0", "r2", "r3"].into_iter().map(run).collect();
        let out = q.enqueue_all(&batch, 3);
        assert!(out[0].is_ok() && out[2].is_ok(), "{out:?}");
        let dup = out[1].as_ref().unwrap_err();
        assert_ne!(
            dup.code,
            crate::error::Code::QueueFull,
            "a duplicate id fails alone"
        );
        let full = out[3].as_ref().unwrap_err();
        assert_eq!(full.code, crate::error::Code::QueueFull);
        assert_eq!(q.queued().unwrap(), 3);
    }

    #[test]
    fn a_relaxed_finish_leaves_the_next_writes_durable() {
        let dir = tempfile::tempdir().unwrap();
        let mut q = SqliteQueue::open(&dir.path().join("queue.db")).unwrap();
        q.enqueue(&run("r1"), 10).unwrap();
        let row = q.claim("2026-01-01T00:00:01Z").unwrap().unwrap();
        let f = Finish {
            status: "completed".into(),
            ..Finish::default()
        };
        q.finish_relaxed(&row.id, &f).unwrap();
        assert_eq!(synchronous(&q), 2, "FULL again after a relaxed finish");
        assert_eq!(q.get("r1").unwrap().unwrap().status, "completed");
    }
}
