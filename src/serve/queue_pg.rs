//! The run queue in the shared database: every `bob serve` node of one `database.url` takes
//! runs from one queue (`serve_runs`), and a run posted to any node can be read and cancelled
//! from any node.
//!
//! This module promises:
//!
//! * **One claim.** A worker claims the oldest queued run with `FOR UPDATE SKIP LOCKED`, so
//!   one run is claimed by exactly one worker of all nodes. Runs of one session still run one
//!   at a time across nodes: the claim holds a transaction-scoped advisory lock on the session
//!   and checks again, after its update, that no other run of the session is running (else it
//!   rolls back and tries the next time).
//! * **Leases.** A claimed run carries `node` (the claiming node's stable id) and
//!   `lease_until`, in the database's clock (one clock for all nodes). The server renews the
//!   leases of its running runs ([`PgQueue::heartbeat`]) well before they end.
//! * **Recovery by any node.** A running run whose lease ran out belongs to a node that died
//!   (or lost the database for longer than the lease). Any node takes it over
//!   ([`PgQueue::take_expired`], `SKIP LOCKED`, so one node does) and applies the crash rule
//!   (see [`super::queue`]); the node that died may hold the run's files, so a run whose turn
//!   record this node cannot see ends `failed` with reason `interrupted` and is never run
//!   again. A node's own runs left `running` by its previous process are recovered at start
//!   with its own files, as in the home's queue.
//! * **Exactly one ending.** A run's ending is written only while the run is `running` and
//!   held by the writing node: a node whose lease was taken over cannot overwrite the ending
//!   the taking node wrote, so every run reaches exactly one terminal state.
//! * **Cancel from anywhere.** A queued run is cancelled by one conditional update; a running
//!   run gets `cancel_by`, which its node picks up at its next heartbeat.

use super::queue::{
    CHAT_COLUMNS, COLUMNS, ChatFilter, ChatKey, ChatSession, Finish, NewRun, RunRow, RunStore,
};
use crate::db::Database;
use crate::error::{Code, Error, Result};
use serde_json::Value;
use std::time::Duration;

/// The shared database's run queue, as seen by one node.
pub struct PgQueue {
    db: &'static Database,
    node: String,
    lease: Duration,
}

impl PgQueue {
    pub fn new(db: &'static Database, node: &str, lease: Duration) -> PgQueue {
        PgQueue {
            db,
            node: node.to_string(),
            lease,
        }
    }

    fn lease_secs(&self) -> f64 {
        self.lease.as_secs_f64()
    }

    fn select(
        &self,
        tail: &str,
        params: &[&(dyn postgres::types::ToSql + Sync)],
    ) -> Result<Vec<RunRow>> {
        let sql = format!("SELECT {COLUMNS} FROM serve_runs {tail}");
        let rows = self.db.with(|c| c.query(&sql, params))?;
        Ok(rows.iter().map(run_row).collect())
    }
}

fn run_row(r: &postgres::Row) -> RunRow {
    let error: Option<String> = r.get(16);
    RunRow {
        id: r.get(0),
        agent_id: r.get(1),
        session_id: r.get(2),
        user_id: r.get(3),
        message: r.get(4),
        thinking_mode: r.get(5),
        profile: r.get(6),
        source: r.get(7),
        status: r.get(8),
        created_at: r.get(9),
        started_at: r.get(10),
        finished_at: r.get(11),
        duration_ms: r.get::<_, Option<i64>>(12).map(|v| v.max(0) as u64),
        output: r.get(13),
        provider: r.get(14),
        model: r.get(15),
        error: error.and_then(|e| serde_json::from_str(&e).ok()),
        tool_calls: r.get::<_, i64>(17).max(0) as u64,
        attempts: r.get::<_, i64>(18).max(0) as u64,
        mode: r.get(19),
        system: r.get(20),
    }
}

fn chat_row(r: &postgres::Row) -> ChatSession {
    ChatSession {
        id: r.get(0),
        agent_id: r.get(1),
        user_id: r.get(2),
        room_id: r.get(3),
        created_at: r.get(4),
        active: r.get(5),
    }
}

fn queued_in(tx: &mut postgres::Transaction<'_>) -> std::result::Result<i64, postgres::Error> {
    Ok(tx
        .query_one(
            "SELECT count(*) FROM serve_runs WHERE status = 'queued'",
            &[],
        )?
        .get(0))
}

impl RunStore for PgQueue {
    fn queued(&self) -> Result<u64> {
        let n: i64 = self
            .db
            .with(|c| {
                c.query_one(
                    "SELECT count(*) FROM serve_runs WHERE status = 'queued'",
                    &[],
                )
            })?
            .get(0);
        Ok(n as u64)
    }

    fn enqueue_all(&mut self, runs: &[NewRun], cap: u64) -> Vec<Result<()>> {
        let db = self.db;
        let attempt = db.transaction(|tx| {
            let mut n = queued_in(tx).map_err(|e| db.error(e))? as u64;
            let mut out = Vec::with_capacity(runs.len());
            for run in runs {
                if n >= cap {
                    out.push(Err(Error::new(Code::QueueFull, "run queue is full")
                        .with("queued", n)
                        .with("capacity", cap)));
                    continue;
                }
                let (Some(id), Some(created_at)) = (&run.run_id, &run.created_at) else {
                    out.push(Err(Error::internal("a run is queued with its id and time")));
                    continue;
                };
                // A duplicate id fails alone (the others of the batch still commit).
                let inserted = tx
                    .execute(
                        "INSERT INTO serve_runs (id, agent_id, session_id, user_id, message,
                            thinking_mode, profile, source, status, created_at, mode, system)
                         VALUES ($1,$2,$3,$4,$5,$6,$7,$8,'queued',$9,$10,$11)
                         ON CONFLICT (id) DO NOTHING",
                        &[
                            id,
                            &run.agent_id,
                            &run.session_id,
                            &run.user_id,
                            &run.message,
                            &run.thinking_mode,
                            &run.profile,
                            &run.source,
                            created_at,
                            &run.mode.as_str(),
                            &run.system,
                        ],
                    )
                    .map_err(|e| db.error(e))?;
                out.push(if inserted == 1 {
                    n += 1;
                    Ok(())
                } else {
                    Err(Error::conflict(format!("run {id} exists")).with("run_id", id.clone()))
                });
            }
            Ok(out)
        });
        match attempt {
            Ok(out) => out,
            Err(e) => runs
                .iter()
                .map(|_| Err(Error::new(e.code, e.message.clone())))
                .collect(),
        }
    }

    fn claim(&mut self, started_at: &str) -> Result<Option<RunRow>> {
        let db = self.db;
        let (node, lease) = (self.node.clone(), self.lease_secs());
        db.transaction(|tx| {
            let sql = format!(
                "WITH c AS (
                    SELECT q.seq FROM serve_runs q
                     WHERE q.status = 'queued'
                       AND NOT EXISTS (SELECT 1 FROM serve_runs r
                                        WHERE r.session_id = q.session_id
                                          AND r.status = 'running')
                       AND pg_try_advisory_xact_lock(hashtextextended(q.session_id, 0))
                     ORDER BY q.seq LIMIT 1
                     FOR UPDATE SKIP LOCKED)
                 UPDATE serve_runs SET status = 'running', started_at = $1,
                        attempts = attempts + 1, node = $2,
                        lease_until = now() + make_interval(secs => $3), cancel_by = NULL
                  FROM c WHERE serve_runs.seq = c.seq
                 RETURNING {}",
                COLUMNS
                    .split(", ")
                    .map(|c| format!("serve_runs.{}", c.trim()))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            let Some(row) = tx
                .query_opt(&sql, &[&started_at, &node, &lease])
                .map_err(|e| db.error(e))?
            else {
                return Ok(None);
            };
            let row = run_row(&row);
            // A statement that began before another claim of this session committed cannot
            // see it: look again, with a fresh snapshot, before keeping this claim.
            let running: i64 = tx
                .query_one(
                    "SELECT count(*) FROM serve_runs WHERE session_id = $1 AND status = 'running'",
                    &[&row.session_id],
                )
                .map_err(|e| db.error(e))?
                .get(0);
            if running > 1 {
                return Err(
                    Error::conflict("the session is already running elsewhere").with("retry", true)
                );
            }
            Ok(Some(row))
        })
        .or_else(|e| {
            if e.code == Code::Conflict {
                Ok(None)
            } else {
                Err(e)
            }
        })
    }

    fn finish(&mut self, id: &str, f: &Finish) -> Result<()> {
        let error = f.error.as_ref().map(Value::to_string);
        let n = self.db.with(|c| {
            c.execute(
                "UPDATE serve_runs SET status = $2, finished_at = $3, duration_ms = $4,
                        output = $5, provider = $6, model = $7, error = $8, tool_calls = $9,
                        lease_until = NULL, cancel_by = NULL
                  WHERE id = $1 AND status = 'running' AND node = $10",
                &[
                    &id,
                    &f.status,
                    &f.finished_at,
                    &(f.duration_ms as i64),
                    &f.output,
                    &f.provider,
                    &f.model,
                    &error,
                    &(f.tool_calls as i64),
                    &self.node,
                ],
            )
        })?;
        if n == 0 {
            return Err(Error::conflict(format!(
                "run {id} is no longer this node's (its lease ran out and another node ended it)"
            ))
            .with("run_id", id));
        }
        Ok(())
    }

    fn finish_relaxed(&mut self, id: &str, f: &Finish) -> Result<()> {
        self.finish(id, f)
    }

    fn cancel_queued(&mut self, id: &str, finished_at: &str, error: &Value) -> Result<bool> {
        let n = self.db.with(|c| {
            c.execute(
                "UPDATE serve_runs SET status = 'cancelled', finished_at = $2, duration_ms = 0,
                        error = $3
                  WHERE id = $1 AND status = 'queued'",
                &[&id, &finished_at, &error.to_string()],
            )
        })?;
        Ok(n == 1)
    }

    fn requeue(&mut self, id: &str) -> Result<()> {
        self.db.with(|c| {
            c.execute(
                "UPDATE serve_runs SET status = 'queued', started_at = NULL, node = NULL,
                        lease_until = NULL
                  WHERE id = $1 AND status = 'running' AND node = $2",
                &[&id, &self.node],
            )
        })?;
        Ok(())
    }

    fn running(&self) -> Result<Vec<RunRow>> {
        self.select(
            "WHERE status = 'running' AND node = $1 ORDER BY seq",
            &[&self.node],
        )
    }

    fn get(&self, id: &str) -> Result<Option<RunRow>> {
        Ok(self.select("WHERE id = $1", &[&id])?.into_iter().next())
    }

    fn list(&self, status: Option<&str>, limit: u64, offset: u64) -> Result<(Vec<RunRow>, u64)> {
        let total: i64 = self
            .db
            .with(|c| {
                c.query_one(
                    "SELECT count(*) FROM serve_runs WHERE ($1::text IS NULL OR status = $1)",
                    &[&status],
                )
            })?
            .get(0);
        let rows = self.select(
            "WHERE ($1::text IS NULL OR status = $1) ORDER BY seq DESC LIMIT $2 OFFSET $3",
            &[
                &status,
                &(limit.min(i64::MAX as u64) as i64),
                &(offset.min(i64::MAX as u64) as i64),
            ],
        )?;
        Ok((rows, total as u64))
    }

    fn session_runs(&self, session_id: &str) -> Result<Vec<RunRow>> {
        self.select("WHERE session_id = $1 ORDER BY seq", &[&session_id])
    }

    fn chat_session(&mut self, key: &ChatKey, now: &str) -> Result<ChatSession> {
        let db = self.db;
        db.transaction(|tx| {
            lock_chat(tx, key).map_err(|e| db.error(e))?;
            let found = tx
                .query_opt(
                    &format!(
                        "SELECT {CHAT_COLUMNS} FROM serve_chat_sessions
                          WHERE agent_id = $1 AND user_id = $2 AND room_id = $3 AND active"
                    ),
                    &[&key.agent_id, &key.user_id, &key.room_id],
                )
                .map_err(|e| db.error(e))?;
            match found {
                Some(r) => Ok(chat_row(&r)),
                None => insert_chat(tx, key, now).map_err(|e| db.error(e)),
            }
        })
    }

    fn chat_new(&mut self, key: &ChatKey, now: &str) -> Result<ChatSession> {
        let db = self.db;
        db.transaction(|tx| {
            lock_chat(tx, key).map_err(|e| db.error(e))?;
            tx.execute(
                "UPDATE serve_chat_sessions SET active = false
                  WHERE agent_id = $1 AND user_id = $2 AND room_id = $3",
                &[&key.agent_id, &key.user_id, &key.room_id],
            )
            .map_err(|e| db.error(e))?;
            insert_chat(tx, key, now).map_err(|e| db.error(e))
        })
    }

    fn chat_resume(&mut self, key: &ChatKey) -> Result<Option<ChatSession>> {
        let db = self.db;
        db.transaction(|tx| {
            lock_chat(tx, key).map_err(|e| db.error(e))?;
            let prev = tx
                .query_opt(
                    &format!(
                        "SELECT {CHAT_COLUMNS} FROM serve_chat_sessions
                          WHERE agent_id = $1 AND user_id = $2 AND room_id = $3 AND NOT active
                          ORDER BY seq DESC LIMIT 1"
                    ),
                    &[&key.agent_id, &key.user_id, &key.room_id],
                )
                .map_err(|e| db.error(e))?
                .map(|r| chat_row(&r));
            if let Some(p) = &prev {
                tx.execute(
                    "UPDATE serve_chat_sessions SET active = (id = $4)
                      WHERE agent_id = $1 AND user_id = $2 AND room_id = $3",
                    &[&key.agent_id, &key.user_id, &key.room_id, &p.id],
                )
                .map_err(|e| db.error(e))?;
            }
            Ok(prev.map(|p| ChatSession { active: true, ..p }))
        })
    }

    fn chat_sessions(
        &self,
        filter: &ChatFilter,
        limit: u64,
        offset: u64,
    ) -> Result<(Vec<ChatSession>, u64)> {
        let cond =
            "WHERE ($1::text IS NULL OR agent_id = $1) AND ($2::text IS NULL OR user_id = $2)
                    AND ($3::text IS NULL OR room_id = $3)";
        let total: i64 = self
            .db
            .with(|c| {
                c.query_one(
                    &format!("SELECT count(*) FROM serve_chat_sessions {cond}"),
                    &[&filter.agent_id, &filter.user_id, &filter.room_id],
                )
            })?
            .get(0);
        let rows = self.db.with(|c| {
            c.query(
                &format!(
                    "SELECT {CHAT_COLUMNS} FROM serve_chat_sessions {cond}
                      ORDER BY seq DESC LIMIT $4 OFFSET $5"
                ),
                &[
                    &filter.agent_id,
                    &filter.user_id,
                    &filter.room_id,
                    &(limit.min(i64::MAX as u64) as i64),
                    &(offset.min(i64::MAX as u64) as i64),
                ],
            )
        })?;
        Ok((rows.iter().map(chat_row).collect(), total as u64))
    }

    fn chat_get(&self, id: &str) -> Result<Option<ChatSession>> {
        let row = self.db.with(|c| {
            c.query_opt(
                &format!("SELECT {CHAT_COLUMNS} FROM serve_chat_sessions WHERE id = $1"),
                &[&id],
            )
        })?;
        Ok(row.map(|r| chat_row(&r)))
    }

    fn request_cancel(&mut self, id: &str, by: &str) -> Result<()> {
        self.db.with(|c| {
            c.execute(
                "UPDATE serve_runs SET cancel_by = coalesce(cancel_by, $2)
                  WHERE id = $1 AND status = 'running'",
                &[&id, &by],
            )
        })?;
        Ok(())
    }

    fn is_shared(&self) -> bool {
        true
    }

    fn heartbeat(&mut self) -> Result<Vec<(String, String)>> {
        let rows = self.db.with(|c| {
            c.query(
                "UPDATE serve_runs SET lease_until = now() + make_interval(secs => $2)
                  WHERE status = 'running' AND node = $1
                 RETURNING id, cancel_by",
                &[&self.node, &self.lease_secs()],
            )
        })?;
        Ok(rows
            .iter()
            .filter_map(|r| {
                let by: Option<String> = r.get(1);
                by.map(|b| (r.get(0), b))
            })
            .collect())
    }

    fn take_expired(&mut self) -> Result<Vec<RunRow>> {
        let sql = format!(
            "WITH c AS (SELECT seq FROM serve_runs
                         WHERE status = 'running' AND lease_until < now()
                         ORDER BY seq FOR UPDATE SKIP LOCKED)
             UPDATE serve_runs SET node = $1, lease_until = now() + make_interval(secs => $2)
               FROM c WHERE serve_runs.seq = c.seq
             RETURNING {}",
            COLUMNS
                .split(", ")
                .map(|c| format!("serve_runs.{}", c.trim()))
                .collect::<Vec<_>>()
                .join(", ")
        );
        let rows = self
            .db
            .with(|c| c.query(&sql, &[&self.node, &self.lease_secs()]))?;
        Ok(rows.iter().map(run_row).collect())
    }
}

/// Serializes the chat-session changes of one (agent, user, room) across nodes.
fn lock_chat(
    tx: &mut postgres::Transaction<'_>,
    key: &ChatKey,
) -> std::result::Result<(), postgres::Error> {
    let k = format!("{}\u{1f}{}\u{1f}{}", key.agent_id, key.user_id, key.room_id);
    tx.execute(
        "SELECT pg_advisory_xact_lock(hashtextextended($1, 1))",
        &[&k],
    )?;
    Ok(())
}

fn insert_chat(
    tx: &mut postgres::Transaction<'_>,
    key: &ChatKey,
    now: &str,
) -> std::result::Result<ChatSession, postgres::Error> {
    let s = ChatSession {
        id: format!("chat_{}", uuid::Uuid::new_v4().simple()),
        agent_id: key.agent_id.clone(),
        user_id: key.user_id.clone(),
        room_id: key.room_id.clone(),
        created_at: now.to_string(),
        active: true,
    };
    tx.execute(
        "INSERT INTO serve_chat_sessions (id, agent_id, user_id, room_id, created_at, active)
         VALUES ($1, $2, $3, $4, $5, true)",
        &[&s.id, &s.agent_id, &s.user_id, &s.room_id, &s.created_at],
    )?;
    Ok(s)
}
