//! The run queue of a home's `bob serve` (`serve/queue.db`) and its chat sessions, for
//! `bob db import`: each run and chat session becomes a row of `serve_runs` /
//! `serve_chat_sessions` by its id (the same row is `unchanged`, another under that id
//! `differing`, left as the database has it). Queued runs are copied queued, so the cluster
//! runs them; ended runs as they ended. A run still `running` in the home (its server is up,
//! or stopped mid-run and not started since to recover it) is `conflict` and nothing is
//! written: only that home's server knows whether it may run again.

use super::Counts;
use crate::db::Database;
use crate::error::{Error, Result};
use crate::home::Home;

/// The columns copied, in the order both tables name them (a queue made before a column was
/// added reads it as its default).
const COLUMNS: [&str; 21] = [
    "id",
    "agent_id",
    "session_id",
    "user_id",
    "message",
    "thinking_mode",
    "profile",
    "source",
    "status",
    "created_at",
    "started_at",
    "finished_at",
    "duration_ms",
    "output",
    "provider",
    "model",
    "error",
    "tool_calls",
    "attempts",
    "mode",
    "system",
];

/// A run's row: text columns, then `duration_ms`, `tool_calls`, `attempts`.
pub(super) struct Run {
    text: Vec<Option<String>>,
    duration_ms: Option<i64>,
    tool_calls: i64,
    attempts: i64,
}

pub(super) struct ChatSession {
    id: String,
    agent_id: String,
    user_id: String,
    room_id: String,
    created_at: String,
    active: bool,
}

pub(super) struct Queue {
    runs: Vec<Run>,
    chats: Vec<ChatSession>,
}

fn numeric(c: &str) -> bool {
    matches!(c, "duration_ms" | "tool_calls" | "attempts")
}

/// Reads the home's queue read-only (empty when it has none).
pub(super) fn read(from: &Home) -> Result<Queue> {
    let path = from.root().join("serve").join("queue.db");
    let mut q = Queue {
        runs: Vec::new(),
        chats: Vec::new(),
    };
    if !path.exists() {
        return Ok(q);
    }
    let conn =
        rusqlite::Connection::open_with_flags(&path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)?;
    conn.busy_timeout(std::time::Duration::from_secs(10))?;
    let has = |table: &str, column: &str| -> Result<bool> {
        Ok(conn
            .prepare("SELECT 1 FROM pragma_table_info(?1) WHERE name = ?2")?
            .exists([table, column])?)
    };
    if !has("runs", "id")? {
        return Ok(q);
    }
    let select: Vec<String> = COLUMNS
        .iter()
        .map(|c| {
            Ok(match (has("runs", c)?, *c) {
                (true, _) => c.to_string(),
                (false, "mode") => "'act'".to_string(),
                (false, _) => "NULL".to_string(),
            })
        })
        .collect::<Result<_>>()?;
    let mut stmt = conn.prepare(&format!(
        "SELECT {} FROM runs ORDER BY seq",
        select.join(", ")
    ))?;
    q.runs = stmt
        .query_map([], |r| {
            let mut text = Vec::new();
            for (i, c) in COLUMNS.iter().enumerate() {
                if !numeric(c) {
                    text.push(r.get::<_, Option<String>>(i)?);
                }
            }
            Ok(Run {
                text,
                duration_ms: r.get(12)?,
                tool_calls: r.get::<_, Option<i64>>(17)?.unwrap_or(0),
                attempts: r.get::<_, Option<i64>>(18)?.unwrap_or(0),
            })
        })?
        .collect::<rusqlite::Result<_>>()?;
    // Text columns in order: id is 0, status is 8.
    if let Some(r) = q
        .runs
        .iter()
        .find(|r| r.text[8].as_deref() == Some("running"))
    {
        let id = r.text[0].clone().unwrap_or_default();
        return Err(Error::conflict(format!(
            "run {id} of {} is still running: stop that home's bob serve, start it once so it \
             recovers its runs, stop it, then import",
            path.display()
        ))
        .with("run_id", id)
        .retryable(false));
    }
    if has("chat_sessions", "id")? {
        let mut stmt = conn.prepare(
            "SELECT id, agent_id, user_id, room_id, created_at, active FROM chat_sessions \
             ORDER BY seq",
        )?;
        q.chats = stmt
            .query_map([], |r| {
                Ok(ChatSession {
                    id: r.get(0)?,
                    agent_id: r.get(1)?,
                    user_id: r.get(2)?,
                    room_id: r.get(3)?,
                    created_at: r.get(4)?,
                    active: r.get::<_, i64>(5)? != 0,
                })
            })?
            .collect::<rusqlite::Result<_>>()?;
    }
    Ok(q)
}

/// Copies the runs and chat sessions in the import's transaction.
pub(super) fn copy(
    db: &Database,
    tx: &mut postgres::Transaction<'_>,
    q: &Queue,
    runs: &mut Counts,
    chats: &mut Counts,
) -> Result<()> {
    let placeholders: Vec<String> = (1..=COLUMNS.len()).map(|i| format!("${i}")).collect();
    let insert = tx
        .prepare(&format!(
            "INSERT INTO serve_runs ({}) VALUES ({}) ON CONFLICT (id) DO NOTHING",
            COLUMNS.join(", "),
            placeholders.join(", ")
        ))
        .map_err(|e| db.error(e))?;
    let fetch = tx
        .prepare(&format!(
            "SELECT {} FROM serve_runs WHERE id = $1",
            COLUMNS.join(", ")
        ))
        .map_err(|e| db.error(e))?;
    for r in &q.runs {
        let mut params: Vec<&(dyn postgres::types::ToSql + Sync)> = Vec::new();
        let mut text = r.text.iter();
        for c in COLUMNS {
            params.push(match c {
                "duration_ms" => &r.duration_ms,
                "tool_calls" => &r.tool_calls,
                "attempts" => &r.attempts,
                _ => text.next().expect("a text value per text column"),
            });
        }
        if tx.execute(&insert, &params).map_err(|e| db.error(e))? == 1 {
            runs.copied += 1;
            continue;
        }
        let row = tx
            .query_one(&fetch, &[&r.text[0]])
            .map_err(|e| db.error(e))?;
        let mut same = true;
        let mut ti = 0;
        for (i, c) in COLUMNS.iter().enumerate() {
            same &= match *c {
                "duration_ms" => row.get::<_, Option<i64>>(i) == r.duration_ms,
                "tool_calls" => row.get::<_, i64>(i) == r.tool_calls,
                "attempts" => row.get::<_, i64>(i) == r.attempts,
                _ => {
                    ti += 1;
                    row.get::<_, Option<String>>(i) == r.text[ti - 1]
                }
            };
        }
        if same {
            runs.unchanged += 1;
        } else {
            runs.differing += 1;
        }
    }
    for s in &q.chats {
        let n = tx
            .execute(
                "INSERT INTO serve_chat_sessions (id, agent_id, user_id, room_id, created_at, \
                 active) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (id) DO NOTHING",
                &[
                    &s.id,
                    &s.agent_id,
                    &s.user_id,
                    &s.room_id,
                    &s.created_at,
                    &s.active,
                ],
            )
            .map_err(|e| db.error(e))?;
        if n == 1 {
            chats.copied += 1;
            continue;
        }
        let same = tx
            .query_opt(
                "SELECT 1 FROM serve_chat_sessions WHERE id = $1 AND agent_id = $2 \
                 AND user_id = $3 AND room_id = $4 AND created_at = $5 AND active = $6",
                &[
                    &s.id,
                    &s.agent_id,
                    &s.user_id,
                    &s.room_id,
                    &s.created_at,
                    &s.active,
                ],
            )
            .map_err(|e| db.error(e))?
            .is_some();
        if same {
            chats.unchanged += 1;
        } else {
            chats.differing += 1;
        }
    }
    Ok(())
}
