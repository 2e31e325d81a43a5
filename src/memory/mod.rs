//! Memory (docs/design.md#module-map, Bob v0 "Memory model", JSON I/O memory sections).
//!
//! * **STM** ([`stm`]): a bounded, expiring trace of recent turns, for the model only.
//! * **Candidates** ([`candidates`]): proposals that wait, redacted, for a human decision.
//! * **Ledger**: every decision is first appended to the hash-chained
//!   `memory_approvals.jsonl`, and only then committed to LTM. Nothing enters LTM without a
//!   ledger record; on open, ledger records missing from the database are replayed.
//! * **LTM** ([`ltm`]): records in SQLite with an FTS5 index behind the [`LtmStore`] trait.
//! * **Users**: every record, entry and candidate belongs to a user (default `default`);
//!   `<home>/profiles.json` maps profile names to `{memory_user, shared_user?}`.

pub mod bench;
pub mod candidates;
pub mod db;
pub mod embed;
pub mod fusion;
pub mod io;
pub mod ltm;
pub mod mtg_lessons;
pub mod pg;
pub mod pg_batch;
pub mod pg_pack;
pub mod pg_rank;
pub mod pg_stats;
pub mod pg_vector_cache;
pub mod pg_vectors;
pub mod practice;
pub mod relevance;
pub mod stm;
pub mod vectors;

pub use candidates::{Decided, Decision, Extracted, extract_candidates};
pub use ltm::{LtmStore, SqliteLtm};

use crate::clock;
use crate::contracts::{CandidateRow, Hit, LedgerEntry, MemoryCandidate, MemoryRecord};
use crate::error::{Error, Result};
use crate::home::Home;
use crate::redact::Redactor;
use chrono::{DateTime, Utc};
use rusqlite::{Connection, Transaction, TransactionBehavior};
use serde::Deserialize;
use std::cell::OnceCell;
use std::collections::BTreeMap;

/// The default user of every store.
pub const DEFAULT_USER: &str = "default";

/// Who and where a proposal came from.
#[derive(Debug, Clone, Default)]
pub struct ProposeCtx {
    /// Memory user or profile name; `None` means `default`.
    pub user: Option<String>,
    pub session_id: Option<String>,
    pub run_id: Option<String>,
}

/// Options of a long-term query.
#[derive(Debug, Clone)]
pub struct QueryOpts {
    /// Number of hits wanted.
    pub k: usize,
    /// Every one of these tags must be on a hit.
    pub tags: Vec<String>,
    /// The memory user whose store is searched (already resolved from a profile name).
    pub user: String,
}

impl Default for QueryOpts {
    fn default() -> Self {
        QueryOpts {
            k: 5,
            tags: Vec::new(),
            user: DEFAULT_USER.into(),
        }
    }
}

/// One profile of `<home>/profiles.json` (the JSON I/O contracts).
#[derive(Debug, Clone, Deserialize)]
pub struct Profile {
    #[serde(default)]
    pub memory_user: Option<String>,
    #[serde(default)]
    pub shared_user: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum ProfilesFile {
    Wrapped { profiles: BTreeMap<String, Profile> },
    Flat(BTreeMap<String, Profile>),
}

/// Open connections to one home's `memory.db`, kept between the turns of a long-running
/// process (`bob serve`'s workers). Opening the store per turn costs the process SQLite's
/// per-connection work and, on the last close, a checkpoint of the WAL into the database (two
/// syncs) and a fresh WAL on the next open (two more); a kept connection pays neither, while
/// every commit is still synced (`synchronous=FULL`). A connection taken from the pool is
/// reset to a fresh store's caches; at most `cap` are kept (the rest are closed).
pub struct MemoryPool {
    home: Home,
    idle: std::sync::Mutex<Vec<Memory>>,
    cap: usize,
}

impl std::fmt::Debug for MemoryPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemoryPool")
            .field("home", &self.home.root())
            .field("cap", &self.cap)
            .finish_non_exhaustive()
    }
}

impl MemoryPool {
    pub fn new(home: &Home, cap: usize) -> MemoryPool {
        MemoryPool {
            home: home.clone(),
            idle: std::sync::Mutex::new(Vec::new()),
            cap,
        }
    }

    /// A kept connection (reset), else a newly opened store.
    pub fn take(&self) -> Result<Memory> {
        let kept = self.idle.lock().ok().and_then(|mut idle| idle.pop());
        match kept {
            Some(mut m) => {
                m.reset();
                Ok(m)
            }
            None => Memory::open_fast(&self.home),
        }
    }

    /// Keeps `m` for the next [`MemoryPool::take`] (closes it when the pool is full, or when
    /// it belongs to another home).
    pub fn put(&self, m: Memory) {
        if m.home.as_ref().map(Home::root) != Some(self.home.root()) {
            return;
        }
        if let Ok(mut idle) = self.idle.lock()
            && idle.len() < self.cap
        {
            idle.push(m);
        }
    }
}

/// The memory store of one home.
pub struct Memory {
    pub(crate) conn: Connection,
    pub(crate) home: Option<Home>,
    redactor: OnceCell<std::sync::Arc<Redactor>>,
    profiles: OnceCell<BTreeMap<String, Profile>>,
    rank_budget: std::cell::Cell<Option<u64>>,
    /// Where new short-term entry and candidate ids come from (random unless a replay seed
    /// was set with [`Memory::set_ids`]).
    ids: std::cell::RefCell<crate::ids::IdSource>,
    /// The vector index of the last user searched by meaning (see [`vectors`]).
    vectors: std::cell::RefCell<Option<vectors::Index>>,
    /// Changes counted by the connection's `total_changes` that were writes to the lexical
    /// ranking's private temp tables, not to the store (the vector index ignores them).
    scratch_changes: std::cell::Cell<u64>,
    /// The shared database when `database.url` is set: long-term records, candidates and the
    /// approval ledger live there ([`pg`]) instead of `memory.db`.
    pub(crate) shared: Option<&'static crate::db::Database>,
}

impl Memory {
    /// Opens (creating and migrating if needed) `<home>/memory.db`, then replays any ledger
    /// decision a crash left out of the database.
    pub fn open(home: &Home) -> Result<Memory> {
        let m = Self::open_fast(home)?;
        m.reconcile()?;
        Ok(m)
    }

    /// Opens the store to read it: [`Memory::open`] when the home has a `memory.db`, else an
    /// empty private store with this home, so a read creates neither the database nor the
    /// home (`bob memory list` in a fresh place lists nothing and leaves nothing behind).
    pub fn open_read(home: &Home) -> Result<Memory> {
        if home.memory_db().exists() {
            return Self::open(home);
        }
        let mut m = Self::in_memory()?;
        m.home = Some(home.clone());
        m.shared = crate::db::shared()?;
        m.reset();
        Ok(m)
    }

    /// Opens the store to query it: [`Memory::open_fast`], except on the shared store, which
    /// holds every long-term record: there the home's `memory.db` is neither opened nor
    /// created, and the query never reads the SQLite connection, so an empty in-memory one
    /// (no schema made: a query is one process's only act) stands in for it.
    pub fn open_query(home: &Home) -> Result<Memory> {
        if !crate::db::is_configured() {
            return Self::open_fast(home);
        }
        let shared = crate::db::shared()?;
        Ok(Self::on(Connection::open_in_memory()?, home, shared))
    }

    /// Opens the database without the ledger reconcile (the read-only query path).
    pub fn open_fast(home: &Home) -> Result<Memory> {
        let shared = crate::db::shared()?;
        Ok(Self::on(db::open(&home.memory_db())?, home, shared))
    }

    /// A store of `home` on `conn`, nothing loaded yet.
    fn on(conn: Connection, home: &Home, shared: Option<&'static crate::db::Database>) -> Memory {
        Memory {
            conn,
            home: Some(home.clone()),
            redactor: OnceCell::new(),
            profiles: OnceCell::new(),
            rank_budget: std::cell::Cell::new(Some(ltm::DEFAULT_RANK_BUDGET)),
            ids: Default::default(),
            vectors: Default::default(),
            scratch_changes: Default::default(),
            shared,
        }
    }

    /// The store again as a fresh [`Memory::open_fast`] would be, on the same connection:
    /// the per-use caches (redactor, profiles, rank budget, id source) are dropped, so a
    /// secret, profile or config added since is seen by the next use.
    fn reset(&mut self) {
        self.redactor = OnceCell::new();
        self.profiles = OnceCell::new();
        self.rank_budget.set(Some(ltm::DEFAULT_RANK_BUDGET));
        self.ids = Default::default();
    }

    /// A private in-memory store with no home (benchmarks).
    pub fn in_memory() -> Result<Memory> {
        Ok(Memory {
            conn: db::open_in_memory()?,
            home: None,
            redactor: OnceCell::from(crate::redact::builtin()),
            profiles: OnceCell::from(BTreeMap::new()),
            rank_budget: std::cell::Cell::new(Some(ltm::DEFAULT_RANK_BUDGET)),
            ids: Default::default(),
            vectors: Default::default(),
            scratch_changes: Default::default(),
            shared: None,
        })
    }

    pub(crate) fn home(&self) -> Result<&Home> {
        self.home
            .as_ref()
            .ok_or_else(|| Error::internal("this memory store has no home"))
    }

    pub(crate) fn now(&self) -> Result<DateTime<Utc>> {
        clock::now()
    }

    pub(crate) fn now_unix(&self) -> i64 {
        clock::now().map(|t| t.timestamp()).unwrap_or_default()
    }

    pub(crate) fn begin(&self) -> Result<Transaction<'_>> {
        Ok(Transaction::new_unchecked(
            &self.conn,
            TransactionBehavior::Immediate,
        )?)
    }

    /// The home's process-wide redactor ([`crate::redact::for_home`]): every row memory writes
    /// to SQLite (STM entries, candidates, LTM records) is masked with it first.
    pub(crate) fn redactor(&self) -> Result<&Redactor> {
        if let Some(r) = self.redactor.get() {
            return Ok(r);
        }
        let r = crate::redact::for_home(self.home()?)?;
        Ok(self.redactor.get_or_init(|| r))
    }

    fn profiles(&self) -> Result<&BTreeMap<String, Profile>> {
        if let Some(p) = self.profiles.get() {
            return Ok(p);
        }
        let path = self.home()?.root().join("profiles.json");
        let p = match crate::store::read_json::<ProfilesFile>(&path)? {
            None => BTreeMap::new(),
            Some(ProfilesFile::Wrapped { profiles }) => profiles,
            Some(ProfilesFile::Flat(p)) => p,
        };
        Ok(self.profiles.get_or_init(|| p))
    }

    /// The memory user for a profile name or user id: a profile's `memory_user` when `name` is
    /// a profile in profiles.json, else `name` itself.
    pub fn resolve_user(&self, name: &str) -> Result<String> {
        let (name, user) = self.user_of(name)?;
        // A user id is a key of every row and ledger record: never written masked.
        let r = crate::redact::for_storage()?;
        crate::ids::check_unredacted(&r, "user", name)?;
        crate::ids::check_unredacted(&r, "memory_user", &user)?;
        Ok(user)
    }

    /// [`Memory::resolve_user`] for a query, which writes nothing: the same user, without the
    /// check that the redactor leaves the id unmasked (it guards what is stored), so a query
    /// does not load the redactor (on the shared store, a round trip to the secrets).
    fn resolve_reader(&self, name: &str) -> Result<String> {
        Ok(self.user_of(name)?.1)
    }

    /// The name asked for (default: [`DEFAULT_USER`]) and the memory user it stands for.
    fn user_of<'a>(&self, name: &'a str) -> Result<(&'a str, String)> {
        let name = name.trim();
        let name = if name.is_empty() { DEFAULT_USER } else { name };
        crate::ids::check_user("user", name)?;
        let user = match self.profiles()?.get(name) {
            Some(Profile {
                memory_user: Some(u),
                ..
            }) if !u.trim().is_empty() => u.trim().to_string(),
            _ => name.to_string(),
        };
        crate::ids::check_user("memory_user", &user)?;
        Ok((name, user))
    }

    /// The shared store a user's approved records are mirrored to: the `shared_user` of the
    /// profile whose name or `memory_user` is `user`.
    pub fn shared_user_of(&self, user: &str) -> Result<Option<String>> {
        for (name, p) in self.profiles()? {
            let mu = p.memory_user.as_deref().unwrap_or(name);
            if (mu == user || name == user)
                && let Some(s) = &p.shared_user
                && !s.trim().is_empty()
                && s != user
            {
                crate::ids::check_user("shared_user", s)?;
                return Ok(Some(s.clone()));
            }
        }
        Ok(None)
    }

    /// The long-term store in the shared database, when `database.url` is set.
    pub fn shared_ltm(&self) -> Option<pg::PgLtm> {
        // The embedded store's default budget stands for "not set": the shared store has its own.
        let budget = match self.rank_budget.get() {
            Some(ltm::DEFAULT_RANK_BUDGET) => Some(pg_rank::DEFAULT_RANK_BUDGET),
            b => b,
        };
        self.shared.map(|db| {
            pg::PgLtm::new(db, self.now_unix())
                .with_rank_budget(budget)
                .with_cache_dir(self.home.as_ref().map(Home::cache_dir).as_deref())
        })
    }

    /// The newest long-term record's row id (of whichever backend holds them): what
    /// [`Memory::embed_after`] is given after a write.
    pub(crate) fn max_rid(&self) -> Result<i64> {
        match self.shared {
            Some(db) => pg_vectors::max_rid(db),
            None => self.ltm().max_rid(),
        }
    }

    /// The long-term store (SQLite backend).
    pub fn ltm(&self) -> SqliteLtm<'_> {
        SqliteLtm::new(&self.conn, self.now_unix()).with_rank_budget(self.rank_budget.get())
    }

    /// Sets the rank budget of queries (rows; `None` ranks every match exactly, see
    /// [`ltm`] module docs). Default [`ltm::DEFAULT_RANK_BUDGET`].
    /// Draws new entry and candidate ids from `ids` (a replay turn's seeded source).
    pub fn set_ids(&self, ids: crate::ids::IdSource) {
        *self.ids.borrow_mut() = ids;
    }

    /// A new id `<prefix>_<16 hex digits>`.
    pub(crate) fn new_id(&self, prefix: &str) -> String {
        format!("{prefix}_{}", &self.ids.borrow_mut().hex32()[..16])
    }

    pub fn set_rank_budget(&self, budget: Option<u64>) {
        self.rank_budget.set(budget);
    }

    /// Ranked long-term query of one user's store in `mode` (see [`vectors`]), on whichever
    /// backend holds it. When the embedder cannot be used and `strict` is false, the lexical
    /// ranking is returned with `fallback` saying why; with `strict`, that is the error.
    pub fn query_ranked(
        &self,
        text: &str,
        opts: &QueryOpts,
        mode: vectors::Mode,
        strict: bool,
    ) -> Result<vectors::Ranked> {
        let mut opts = opts.clone();
        opts.user = self.resolve_reader(&opts.user)?;
        let shared = self.shared_ltm();
        let lexical = |opts: &QueryOpts| match &shared {
            Some(s) => s.query(text, opts),
            None => self.ltm().query(text, opts),
        };
        if mode == vectors::Mode::Lexical {
            let mut hits = lexical(&opts)?;
            if embed::provider() != embed::Provider::None {
                for h in &mut hits {
                    h.lexical_score = Some(h.score);
                }
            }
            return Ok(vectors::Ranked {
                hits,
                mode,
                fallback: None,
                unembedded: 0,
            });
        }
        let ranked = match &shared {
            Some(s) => pg_vectors::vector_ranked(s, self.home.as_ref(), text, &opts, mode),
            None => self.vector_ranked(text, &opts, mode),
        };
        match ranked {
            Ok(r) => Ok(r),
            Err(e) if !strict => Ok(vectors::Ranked {
                hits: lexical(&opts)?,
                mode: vectors::Mode::Lexical,
                fallback: Some(e.message),
                unembedded: 0,
            }),
            Err(e) => Err(e),
        }
    }

    /// Embeds the records stored after row `after` (see [`Memory::max_rid`]) that have no
    /// vector yet (the hook after an approval or import). Never fails the write that called
    /// it: when embeddings are off it does nothing; when the embedder fails, the records stay
    /// queued and the returned note says so.
    pub fn embed_after(&self, after: i64) -> Option<String> {
        let e = match vectors::write_embedder() {
            Ok(e) => e,
            Err(note) => return note,
        };
        let done = match self.shared {
            Some(db) => pg_vectors::embed_after(db, e.as_ref(), after),
            None => self.embed_new(e.as_ref(), after),
        };
        done.err().map(|err| vectors::queued_note(&err))
    }

    /// Embeds every record (`missing_only`: only those with no vector of the configured
    /// model), shortest texts first, in chunks of [`vectors::REINDEX_CHUNK`] records, each
    /// chunk's vectors written in one transaction (an interrupted reindex keeps the chunks it
    /// finished); `progress(done, total)`.
    pub fn reindex(
        &self,
        missing_only: bool,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<vectors::ReindexReport> {
        let started = std::time::Instant::now();
        let e = embed::shared()?.ok_or_else(vectors::reindex_needs_embeddings)?;
        match self.shared {
            Some(db) => pg_vectors::reindex(db, e.as_ref(), missing_only, started, progress),
            None => self.reindex_embedded(e.as_ref(), missing_only, started, progress),
        }
    }

    /// Ranked long-term query of one user's store (never STM, never another user's records).
    pub fn query(&self, text: &str, opts: &QueryOpts) -> Result<Vec<Hit>> {
        let mut opts = opts.clone();
        opts.user = self.resolve_reader(&opts.user)?;
        match self.shared_ltm() {
            Some(shared) => shared.query(text, &opts),
            None => self.ltm().query(text, &opts),
        }
    }
}

/// The candidate a decision stores: the candidate itself (approve), the edited one (edit),
/// none (reject).
pub(crate) fn final_candidate(row: &CandidateRow, entry: &LedgerEntry) -> Option<MemoryCandidate> {
    match entry.decision.as_deref() {
        Some("approve") => Some(row.candidate.clone()),
        Some("edit") => entry.edited.clone(),
        _ => None,
    }
}

/// Marks `row` decided by the ledger record `entry` at `seq` (`record`: the one it stored).
pub(crate) fn mark_decided(
    row: &mut CandidateRow,
    entry: &LedgerEntry,
    seq: u64,
    record: Option<&MemoryRecord>,
) {
    row.status = if record.is_some() {
        "approved"
    } else {
        "rejected"
    }
    .into();
    if let Some(r) = record {
        row.memory_id = Some(r.id.clone());
    }
    row.decision = Some(entry.decision.clone().unwrap_or_default());
    row.decided_at = Some(entry.ts.clone());
    row.ledger_seq = Some(seq);
    row.reason = entry.reason.clone();
}

/// Makes text safe to place inside the retrieval block: one line, no block markers.
fn block_safe(s: &str) -> String {
    s.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace("===", "= = =")
        .replace("<<<", "‹‹‹")
        .replace(">>>", "›››")
}

/// The Spectator retrieval block injected into a role's system prompt:
///
/// ```text
/// === RETRIEVED_MEMORY ===
/// - id=mem_xxx score=0.412
///   excerpt...
/// === END_RETRIEVED_MEMORY ===
/// ```
///
/// Excerpts are collapsed to one line and any `===`, `<<<`, `>>>` inside them is defused so
/// stored text cannot close the block or open another one.
pub fn render_block(hits: &[Hit]) -> String {
    let mut out = String::from("=== RETRIEVED_MEMORY ===\n");
    for h in hits {
        out.push_str(&format!(
            "- id={} score={:.3}\n  {}\n",
            block_safe(&h.id),
            h.score,
            block_safe(&h.excerpt)
        ));
    }
    out.push_str("=== END_RETRIEVED_MEMORY ===\n");
    out
}
