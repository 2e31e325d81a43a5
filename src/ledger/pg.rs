//! The shared store's chains as `bob ledger show` reads them: the approval ledger
//! (`postgres:memory_ledger`) and each agent's audit events (`postgres:audit_events/<agent_id>`),
//! named as `bob ledger verify` reports them.

use crate::db::Database;
use crate::error::{Error, Result};
use crate::store::{BadLine, LogContents};
use serde_json::Value;

/// The records of the chain `name` in `seq` order; `not_found` for a name that is no chain of
/// the shared store or a chain without records (as for a log file that does not exist). A row
/// that does not parse is a bad line (reported, never parsed).
pub fn read(db: &Database, name: &str) -> Result<LogContents> {
    let rows = if name == crate::memory::pg::LEDGER_NAME {
        db.with(|c| c.query("SELECT record FROM memory_ledger ORDER BY seq", &[]))?
    } else if let Some(agent) = name
        .strip_prefix(crate::audit::pg::NAME)
        .and_then(|rest| rest.strip_prefix('/'))
    {
        db.with(|c| {
            c.query(
                "SELECT record FROM audit_events WHERE chain = $1 ORDER BY seq",
                &[&agent],
            )
        })?
    } else {
        return Err(Error::not_found(format!(
            "{name} is no chain of the shared store ({} or {}/<agent_id>)",
            crate::memory::pg::LEDGER_NAME,
            crate::audit::pg::NAME
        )));
    };
    if rows.is_empty() {
        return Err(Error::not_found(format!("{name} holds no record")));
    }
    let mut log = LogContents::default();
    for (i, row) in rows.iter().enumerate() {
        match serde_json::from_str::<Value>(row.get::<_, &str>(0)) {
            Ok(v) => log.records.push((i + 1, v)),
            Err(e) => log.bad.push(BadLine {
                line: i + 1,
                kind: "malformed",
                reason: e.to_string(),
            }),
        }
    }
    Ok(log)
}
