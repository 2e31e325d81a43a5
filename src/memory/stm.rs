//! Short-term memory (Bob v0 STM): a bounded, expiring trace of recent turns for the model.
//!
//! Rules: at most [`STM_MAX_ENTRIES`] entries per user, the oldest evicted first (FIFO); an
//! entry's content (`intent`, `resolution`, `open_questions`, `tools_used`, `entities`)
//! serialized as compact JSON must be at most [`STM_MAX_ENTRY_BYTES`] bytes; at most 3 open
//! questions; entries older than [`STM_TTL_HOURS`] (from `created_at`) are hidden and removed by
//! `gc`; nothing is written for a turn in an error state. STM never appears in LTM queries.
//!
//! Where the entries live is decided in one place ([`StmRows`], picked by the memory's
//! backend): the home's SQLite database, or the shared database when `database.url` is set.

mod pg;

use super::Memory;
use crate::clock;
use crate::contracts::StmEntry;
use crate::error::{Error, Result};
use rusqlite::{OptionalExtension, params};

pub const STM_MAX_ENTRIES: i64 = 200;
pub const STM_MAX_ENTRY_BYTES: usize = 3072;
pub const STM_TTL_HOURS: i64 = 72;
pub const STM_MAX_OPEN_QUESTIONS: usize = 3;
/// `sessions_seen` keeps at most this many distinct session ids.
pub const STM_MAX_SESSIONS: usize = 32;

/// The content part of an entry whose serialized size is bounded.
pub fn content_size(e: &StmEntry) -> usize {
    /// The fields of an entry whose size is bounded, in their stored order.
    #[derive(serde::Serialize)]
    struct Content<'a> {
        intent: &'a str,
        resolution: &'a str,
        open_questions: &'a [String],
        tools_used: &'a [serde_json::Value],
        entities: &'a [String],
    }
    serde_json::to_string(&Content {
        intent: &e.intent,
        resolution: &e.resolution,
        open_questions: &e.open_questions,
        tools_used: &e.tools_used,
        entities: &e.entities,
    })
    .map_or(0, |s| s.len())
}

pub(crate) fn parse_entry(s: &str) -> Result<StmEntry> {
    serde_json::from_str(s).map_err(|e| Error::internal(format!("stm row: {e}")))
}

impl Memory {
    fn stm_cutoff(&self) -> i64 {
        self.now_unix() - STM_TTL_HOURS * 3600
    }

    /// Writes one STM entry (refused when `error_state` is set, when it is too large or has
    /// more than 3 open questions); evicts the user's oldest entries beyond 200.
    pub fn stm_add(&self, entry: StmEntry) -> Result<StmEntry> {
        self.stm_add_with(entry, true)
    }

    fn stm_add_with(&self, mut entry: StmEntry, synced: bool) -> Result<StmEntry> {
        if entry.error_state {
            return Err(Error::denied(
                "no short-term memory is written while the turn is in an error state",
            )
            .with("field", "error_state"));
        }
        if entry.intent.trim().is_empty() {
            return Err(
                Error::invalid("stm entry: intent must not be empty").with("field", "intent")
            );
        }
        if entry.open_questions.len() > STM_MAX_OPEN_QUESTIONS {
            return Err(Error::invalid(format!(
                "stm entry: at most {STM_MAX_OPEN_QUESTIONS} open_questions (got {})",
                entry.open_questions.len()
            ))
            .with("field", "open_questions"));
        }
        let user = self.resolve_user(&entry.user)?;
        entry.user = user.clone();
        let redactor = self.redactor()?;
        let mut v = serde_json::to_value(&entry).map_err(|e| Error::internal(e.to_string()))?;
        redactor.redact_value(&mut v, "");
        entry = serde_json::from_value(v).map_err(|e| Error::internal(e.to_string()))?;
        let size = content_size(&entry);
        if size > STM_MAX_ENTRY_BYTES {
            return Err(Error::invalid(format!(
                "stm entry is {size} bytes; the limit is {STM_MAX_ENTRY_BYTES} bytes of compact JSON \
                 over intent, resolution, open_questions, tools_used and entities"
            ))
            .with("size_bytes", size)
            .with("limit_bytes", STM_MAX_ENTRY_BYTES));
        }
        let now = self.now()?;
        entry.id = self.new_id("stm");
        entry.created_at = clock::rfc3339(now);
        entry.last_accessed = entry.created_at.clone();
        entry.access_count = 0;
        entry.sessions_seen.clear();
        if let Some(s) = entry.session_id.take() {
            entry.sessions_seen.push(s);
        }
        entry.promotion_attempted_at = None;
        self.stm_rows()
            .insert(&user, now.timestamp(), &entry, synced)?;
        Ok(entry)
    }

    /// [`Memory::stm_add`] for the entry a turn leaves, committed without an fsync of its own
    /// (see [`Memory::unsynced`]): the entry is a non-authoritative summary of a turn whose
    /// record is durable in the turn log. It survives a killed process; a power loss before
    /// the next synced commit or checkpoint (`bob turn` closing its connection checkpoints
    /// the WAL, with syncs) can lose it, as if it had expired. One fsync fewer per turn.
    pub fn stm_add_unsynced(&self, entry: StmEntry) -> Result<StmEntry> {
        self.stm_add_with(entry, false)
    }

    /// Runs `f` with this connection's commits at `synchronous=NORMAL`: in WAL mode a commit
    /// is then not fsynced on its own; the next synced commit or checkpoint syncs the WAL with
    /// it in it. Never a risk to the database's consistency, only to those commits'
    /// durability against a power loss.
    fn unsynced<R>(&self, f: impl FnOnce() -> Result<R>) -> Result<R> {
        let sync: i64 = self
            .conn
            .pragma_query_value(None, "synchronous", |r| r.get(0))?;
        self.conn.pragma_update(None, "synchronous", "NORMAL")?;
        let out = f();
        self.conn.pragma_update(None, "synchronous", sync)?;
        out
    }

    /// Records an access: bumps `access_count`, sets `last_accessed`, adds `session` to
    /// `sessions_seen`. An expired or unknown entry is `not_found`.
    pub fn stm_touch(&self, id: &str, session: Option<&str>) -> Result<StmEntry> {
        let now = clock::rfc3339(self.now()?);
        let ids = [id.to_string()];
        let touch = |e: &mut StmEntry| touched(e, session, &now);
        let Some(e) = self
            .stm_rows()
            .touch(&ids, self.stm_cutoff(), &touch, true)?
            .pop()
        else {
            return Err(Error::not_found(format!("no live short-term entry {id:?}")).with("id", id));
        };
        Ok(e)
    }

    /// [`Memory::stm_touch`] for several entries in one transaction (one commit); an expired
    /// or unknown id is skipped. Returns the touched entries.
    ///
    /// The commit is not fsynced on its own ([`Memory::unsynced`]): an access count is
    /// bookkeeping for promotion. A power loss before the next synced commit or checkpoint
    /// can lose the touch (one access not counted), never the database's consistency. One
    /// fsync fewer per turn.
    pub fn stm_touch_many(&self, ids: &[String], session: Option<&str>) -> Result<Vec<StmEntry>> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let now = clock::rfc3339(self.now()?);
        let touch = |e: &mut StmEntry| touched(e, session, &now);
        self.stm_rows().touch(ids, self.stm_cutoff(), &touch, false)
    }

    /// Replaces a stored entry with `e` (same id).
    pub(crate) fn stm_save(&self, e: &StmEntry) -> Result<()> {
        self.stm_rows().save(e)
    }

    /// Live (unexpired) entries, newest first; all users when `user` is `None`.
    pub fn stm_list(&self, user: Option<&str>, limit: usize) -> Result<Vec<StmEntry>> {
        let user = user.map(|u| self.resolve_user(u)).transpose()?;
        self.stm_rows()
            .list(user.as_deref(), self.stm_cutoff(), limit)
    }

    /// The memory user a short-term entry belongs to (`None`: no such entry).
    pub fn stm_owner(&self, id: &str) -> Result<Option<String>> {
        self.stm_rows().owner(id)
    }

    /// Deletes expired entries (of one memory user, or of all when `user` is `None`); returns
    /// their ids.
    pub fn stm_gc(&self, user: Option<&str>) -> Result<Vec<String>> {
        let user = user.map(|u| self.resolve_user(u)).transpose()?;
        self.stm_rows().gc(user.as_deref(), self.stm_cutoff())
    }

    /// Where this memory's STM lives: the shared database when `database.url` is set, else
    /// the home's SQLite database.
    fn stm_rows(&self) -> Box<dyn StmRows + '_> {
        match self.shared {
            Some(db) => Box::new(pg::PgStm::new(db)),
            None => Box::new(SqliteStm { mem: self }),
        }
    }

    /// Entries eligible for promotion (the Bob v0 runtime): access_count ≥ 3, sessions_seen ≥ 2, within
    /// the TTL, not error-tainted, never attempted before.
    pub(crate) fn stm_promotable(&self, user: Option<&str>) -> Result<Vec<StmEntry>> {
        Ok(self
            .stm_list(user, usize::MAX)?
            .into_iter()
            .filter(|e| {
                e.access_count >= 3
                    && e.sessions_seen.len() >= 2
                    && !e.error_tainted
                    && e.promotion_attempted_at.is_none()
            })
            .rev()
            .collect())
    }
}

/// One access of `e` at `now` from `session`.
fn touched(e: &mut StmEntry, session: Option<&str>, now: &str) {
    e.access_count += 1;
    e.last_accessed = now.to_string();
    if let Some(s) = session
        && !e.sessions_seen.iter().any(|x| x == s)
        && e.sessions_seen.len() < STM_MAX_SESSIONS
    {
        e.sessions_seen.push(s.to_string());
    }
}

/// Where STM entries live: the home's SQLite database ([`SqliteStm`]) or the shared database
/// (`pg::PgStm`). Both keep the same rules: at most [`STM_MAX_ENTRIES`] per user (the
/// oldest evicted in the insert's own transaction), entries at or before `cutoff` (unix
/// seconds) are expired, newest first by insertion order.
pub(crate) trait StmRows {
    /// Stores a new entry and evicts the user's entries beyond [`STM_MAX_ENTRIES`], in one
    /// transaction (`synced`: fsynced on its own, where the backend can tell).
    fn insert(&self, user: &str, created_unix: i64, entry: &StmEntry, synced: bool) -> Result<()>;
    /// Applies `touch` to each live entry of `ids` and saves it, in one transaction (each row
    /// locked while it is edited); returns the touched entries, skipping expired or unknown ids.
    fn touch(
        &self,
        ids: &[String],
        cutoff: i64,
        touch: &dyn Fn(&mut StmEntry),
        synced: bool,
    ) -> Result<Vec<StmEntry>>;
    /// Replaces the stored entry with the same id.
    fn save(&self, e: &StmEntry) -> Result<()>;
    /// Live entries, newest first; all users when `user` is `None`.
    fn list(&self, user: Option<&str>, cutoff: i64, limit: usize) -> Result<Vec<StmEntry>>;
    /// The memory user an entry belongs to.
    fn owner(&self, id: &str) -> Result<Option<String>>;
    /// Deletes expired entries; returns their ids, oldest first.
    fn gc(&self, user: Option<&str>, cutoff: i64) -> Result<Vec<String>>;
}

/// STM in the home's SQLite database (`stm` table of `memory/memory.db`).
struct SqliteStm<'a> {
    mem: &'a Memory,
}

impl StmRows for SqliteStm<'_> {
    fn insert(&self, user: &str, created_unix: i64, entry: &StmEntry, synced: bool) -> Result<()> {
        let write = || -> Result<()> {
            let text = serde_json::to_string(entry).map_err(|e| Error::internal(e.to_string()))?;
            let tx = self.mem.begin()?;
            tx.prepare_cached(
                "INSERT INTO stm(id, user, created_unix, entry) VALUES (?1, ?2, ?3, ?4)",
            )?
            .execute(params![entry.id, user, created_unix, text])?;
            // Everything older than the user's newest STM_MAX_ENTRIES goes (a walk of the index).
            tx.prepare_cached(
                "DELETE FROM stm WHERE user = ?1 AND seq <= \
                 (SELECT seq FROM stm WHERE user = ?1 ORDER BY seq DESC LIMIT 1 OFFSET ?2)",
            )?
            .execute(params![user, STM_MAX_ENTRIES])?;
            tx.commit()?;
            Ok(())
        };
        if synced {
            write()
        } else {
            self.mem.unsynced(write)
        }
    }

    fn touch(
        &self,
        ids: &[String],
        cutoff: i64,
        touch: &dyn Fn(&mut StmEntry),
        synced: bool,
    ) -> Result<Vec<StmEntry>> {
        let run = || -> Result<Vec<StmEntry>> {
            let tx = self.mem.begin()?;
            let mut out = Vec::new();
            for id in ids {
                let row: Option<String> = tx
                    .query_row(
                        "SELECT entry FROM stm WHERE id = ?1 AND created_unix > ?2",
                        params![id, cutoff],
                        |r| r.get(0),
                    )
                    .optional()?;
                let Some(row) = row else { continue };
                let mut e = parse_entry(&row)?;
                touch(&mut e);
                save_in(&tx, &e)?;
                out.push(e);
            }
            tx.commit()?;
            Ok(out)
        };
        if synced {
            run()
        } else {
            self.mem.unsynced(run)
        }
    }

    fn save(&self, e: &StmEntry) -> Result<()> {
        save_in(&self.mem.conn, e)
    }

    fn list(&self, user: Option<&str>, cutoff: i64, limit: usize) -> Result<Vec<StmEntry>> {
        let mut stmt = self.mem.conn.prepare(
            "SELECT entry FROM stm WHERE created_unix > ?1 AND (?2 IS NULL OR user = ?2) \
             ORDER BY seq DESC LIMIT ?3",
        )?;
        let rows = stmt.query_map(
            params![cutoff, user, limit.min(i64::MAX as usize) as i64],
            |r| r.get::<_, String>(0),
        )?;
        rows.map(|r| parse_entry(&r?)).collect()
    }

    fn owner(&self, id: &str) -> Result<Option<String>> {
        Ok(self
            .mem
            .conn
            .query_row("SELECT user FROM stm WHERE id = ?1", [id], |r| r.get(0))
            .optional()?)
    }

    fn gc(&self, user: Option<&str>, cutoff: i64) -> Result<Vec<String>> {
        let tx = self.mem.begin()?;
        let ids: Vec<String> = {
            let mut stmt = tx.prepare(
                "SELECT id FROM stm WHERE created_unix <= ?1 AND (?2 IS NULL OR user = ?2) \
                 ORDER BY seq",
            )?;
            let rows = stmt.query_map(params![cutoff, user], |r| r.get(0))?;
            rows.collect::<std::result::Result<_, _>>()?
        };
        tx.execute(
            "DELETE FROM stm WHERE created_unix <= ?1 AND (?2 IS NULL OR user = ?2)",
            params![cutoff, user],
        )?;
        tx.commit()?;
        Ok(ids)
    }
}

fn save_in(conn: &rusqlite::Connection, e: &StmEntry) -> Result<()> {
    let text = serde_json::to_string(e).map_err(|e| Error::internal(e.to_string()))?;
    conn.execute(
        "UPDATE stm SET entry = ?2 WHERE id = ?1",
        params![e.id, text],
    )?;
    Ok(())
}
