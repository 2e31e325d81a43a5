//! The shared store's vectors as each node keeps them: a cache in the process and in the
//! home, per database, user and model, never stale.
//!
//! This module promises:
//!
//! * **Read once, then only what changed.** Reading 100,000 vectors from the database costs
//!   seconds, so each node keeps the vectors it read: in the process (for `bob serve`) and in
//!   a file of the home (`cache/memory-vectors/`, for one-shot commands). The database counts
//!   each user's vectors per model and keeps a change counter (`memory_vector_marks`, raised
//!   by a trigger under the row's lock with every insert, update or delete, so it grows in
//!   commit order). A query reads that one row: unchanged, the cache is used as it is;
//!   changed, only the vectors written since (a higher `seq`) are read, in one snapshot with
//!   the counter; and when a vector was replaced or deleted the cache is read again whole.
//! * **One cache per database, user and model.** The process keeps the indexes of up to
//!   [`MAX_CACHED`] (database, user, model) at once (at most [`MAX_CACHED_VECTORS`] vectors in
//!   all, the least recently searched dropped first), and the home one file per (database,
//!   user, model): users who take turns on one `bob serve`, or a model changed and changed
//!   back, each find their own vectors, and one user's vectors are never searched for
//!   another. Two queries of different users never wait for each other; two of one user wait
//!   while the first brings the cache up to date, then use it.
//! * **Never the wrong vectors.** A cache file of another database (its `memory_vector_store`
//!   token), user or model, or one cut short, is never used.

use super::embed;
use super::vectors::{self, Index};
use crate::db::Database;
use crate::error::{Error, Result};
use crate::home::Home;
use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// A node's copy of one user's vectors of one model, and what it was read at.
struct Cached {
    /// The database's `memory_vector_store` token.
    token: String,
    user: String,
    model: String,
    /// `memory_vector_marks` (n, high) when read.
    n: i64,
    high: i64,
    /// The newest record's rid and the user's record count when counted.
    records_high: i64,
    total: i64,
    index: Index,
}

impl Cached {
    fn is_for(&self, token: &str, user: &str, model: &str) -> bool {
        self.token == token && self.user == user && self.model == model
    }
}

/// How many users' (or models') vectors one process keeps at most, and how many vectors in
/// all: past either, the least recently searched are dropped (the one in use never). 400,000
/// vectors of 384 dimensions are ~750 MB with their byte copies.
const MAX_CACHED: usize = 16;
const MAX_CACHED_VECTORS: usize = 400_000;

/// One cached index: which database, user and model it holds, and how many vectors (read
/// without its lock, for the process-wide bound).
struct Slot {
    key: (String, String, String),
    cached: Mutex<Option<Cached>>,
    vectors: AtomicUsize,
}

/// The vectors this process read, one slot per (database, user, model), the least recently
/// searched first.
static CACHE: Mutex<Vec<Arc<Slot>>> = Mutex::new(Vec::new());

/// The slot of (`token`, `user`, `model`), made when missing and marked most recently used;
/// slots past the process's bound are dropped, least recently used first (a query still
/// searching a dropped slot keeps it until it is done).
fn slot(token: &str, user: &str, model: &str) -> Arc<Slot> {
    let mut slots = CACHE.lock().unwrap_or_else(|p| p.into_inner());
    let found = slots
        .iter()
        .position(|s| s.key.0 == token && s.key.1 == user && s.key.2 == model);
    let slot = match found {
        Some(i) => slots.remove(i),
        None => Arc::new(Slot {
            key: (token.to_string(), user.to_string(), model.to_string()),
            cached: Mutex::new(None),
            vectors: AtomicUsize::new(0),
        }),
    };
    slots.push(Arc::clone(&slot));
    let total = |slots: &[Arc<Slot>]| -> usize {
        slots
            .iter()
            .map(|s| s.vectors.load(Ordering::Relaxed))
            .sum()
    };
    while slots.len() > 1 && (slots.len() > MAX_CACHED || total(&slots) > MAX_CACHED_VECTORS) {
        slots.remove(0);
    }
    slot
}

/// What the database says of one user's vectors now.
struct Marks {
    token: String,
    /// (n, high) of the configured model.
    current: (i64, i64),
    /// Vectors of other models.
    stale: i64,
    records_high: i64,
}

fn marks(db: &Database, user: &str, model: &str) -> Result<Marks> {
    let rows = db.with(|c| {
        c.query_typed(
            "SELECT s.token, m.model, coalesce(m.n, 0), coalesce(m.high, 0), \
                 (SELECT coalesce(max(rid), 0) FROM memory_records) \
             FROM memory_vector_store s LEFT JOIN memory_vector_marks m ON m.user_id = $1",
            &[(&user, postgres::types::Type::TEXT)],
        )
    })?;
    let first = rows
        .first()
        .ok_or_else(|| Error::internal("memory_vector_store holds no token"))?;
    let mut out = Marks {
        token: first.get(0),
        current: (0, 0),
        stale: 0,
        records_high: first.get(4),
    };
    for r in &rows {
        match r.get::<_, Option<&str>>(1) {
            Some(m) if m == model => out.current = (r.get(2), r.get(3)),
            Some(_) => out.stale += r.get::<_, i64>(2).max(0),
            None => {}
        }
    }
    Ok(out)
}

/// Pushes the vector rows of `rows` (id, expires, dim, vector) onto `ix`; the ids pushed.
fn push_rows(ix: &mut Index, rows: &[postgres::Row]) -> Vec<String> {
    let mut v: Vec<f32> = Vec::with_capacity(embed::LOCAL_DIM);
    let mut pushed = Vec::with_capacity(rows.len());
    for r in rows {
        let dim = r.get::<_, i32>(2) as usize;
        let blob: &[u8] = r.get(3);
        if dim == 0 || blob.len() != dim * 4 {
            continue;
        }
        v.clear();
        vectors::extend_from_blob(&mut v, blob);
        let id: String = r.get(0);
        if ix.push(id.clone(), r.get(1), &v) {
            pushed.push(id);
        }
    }
    pushed
}

const ROWS_SQL: &str = "SELECT v.id, r.expires_unix, v.dim, v.vector FROM memory_vectors v \
     JOIN memory_records r ON r.rid = v.rid \
     WHERE v.user_id = $1 AND v.model = $2 AND v.seq > $3 ORDER BY v.seq";

/// `base` brought up to the database's state (or read whole when there is none, or it
/// cannot be brought up to date), in one snapshot.
fn refresh(
    db: &Database,
    base: Option<Cached>,
    token: &str,
    user: &str,
    model: &str,
) -> Result<Cached> {
    db.with(|c| {
        let mut tx = c
            .build_transaction()
            .isolation_level(postgres::IsolationLevel::RepeatableRead)
            .read_only(true)
            .start()?;
        let (n, high): (i64, i64) = tx
            .query_opt(
                "SELECT n, high FROM memory_vector_marks WHERE user_id = $1 AND model = $2",
                &[&user, &model],
            )?
            .map(|r| (r.get(0), r.get(1)))
            .unwrap_or((0, 0));
        let records_high: i64 = tx
            .query_one("SELECT coalesce(max(rid), 0) FROM memory_records", &[])?
            .get(0);
        let total: i64 = tx
            .query_one(
                "SELECT count(*) FROM memory_records WHERE user_id = $1",
                &[&user],
            )?
            .get(0);
        let fresh = |index: Index| Cached {
            token: token.to_string(),
            user: user.to_string(),
            model: model.to_string(),
            n,
            high,
            records_high,
            total,
            index,
        };
        if let Some(mut b) = base {
            let rows = tx.query(ROWS_SQL, &[&user, &model, &b.high])?;
            let known: HashSet<&str> = if rows.is_empty() {
                HashSet::new()
            } else {
                (0..b.index.len()).map(|i| b.index.id(i)).collect()
            };
            let replaced = rows.iter().any(|r| known.contains(r.get::<_, &str>(0)));
            drop(known);
            if !replaced {
                push_rows(&mut b.index, &rows);
                if b.index.len() as i64 == n {
                    tx.commit()?;
                    return Ok(fresh(b.index));
                }
            }
        }
        let rows = tx.query(ROWS_SQL, &[&user, &model, &0i64])?;
        let mut index = Index::default();
        push_rows(&mut index, &rows);
        tx.commit()?;
        Ok(fresh(index))
    })
}

/// Runs `f` on the user's vectors of `model`, brought up to date (see the module docs), with
/// the count of vectors of other models and of the user's records with none.
pub(crate) fn with_index<T>(
    db: &Database,
    home: Option<&Home>,
    user: &str,
    model: &str,
    f: impl FnOnce(&Index) -> T,
) -> Result<(T, i64, i64)> {
    let now = marks(db, user, model)?;
    let slot = slot(&now.token, user, model);
    let mut guard = slot.cached.lock().unwrap_or_else(|p| p.into_inner());
    let mut base = guard.take().filter(|c| c.is_for(&now.token, user, model));
    if base.is_none()
        && let Some(h) = home
    {
        base = read_file(
            &file_of(h, &now.token, user, model),
            &now.token,
            user,
            model,
        );
    }
    let cached = match base {
        Some(mut b) if (b.n, b.high) == now.current => {
            if b.records_high != now.records_high {
                b.total = db
                    .with(|c| {
                        c.query_one(
                            "SELECT count(*) FROM memory_records WHERE user_id = $1",
                            &[&user],
                        )
                    })?
                    .get(0);
                b.records_high = now.records_high;
            }
            b
        }
        base => {
            let c = refresh(db, base, &now.token, user, model)?;
            if let Some(h) = home {
                // A cache: a write that fails costs the next process a read, nothing more.
                let _ = write_file(h, &c);
            }
            c
        }
    };
    let out = f(&cached.index);
    let unembedded = (cached.total - cached.index.len() as i64).max(0);
    slot.vectors.store(cached.index.len(), Ordering::Relaxed);
    *guard = Some(cached);
    Ok((out, now.stale, unembedded))
}

/// The cache file's first bytes (the format's version is in them).
const MAGIC: &[u8] = b"bob memory vectors 1\n";

fn file_of(home: &Home, token: &str, user: &str, model: &str) -> std::path::PathBuf {
    use sha2::Digest;
    let key = sha2::Sha256::digest(format!("{token}\0{user}\0{model}").as_bytes());
    home.cache_dir()
        .join("memory-vectors")
        .join(format!("{}.bin", &hex::encode(key)[..32]))
}

#[derive(serde::Serialize, serde::Deserialize)]
struct FileHeader {
    token: String,
    user: String,
    model: String,
    n: i64,
    high: i64,
    records_high: i64,
    total: i64,
    count: usize,
    dim: usize,
}

/// Writes `c` to its cache file: the magic, a JSON header line, then per vector the id's
/// length (u16), the id, the expiry (i64, `i64::MIN` for none) and `dim` f32, little-endian.
fn write_file(home: &Home, c: &Cached) -> Result<()> {
    let path = file_of(home, &c.token, &c.user, &c.model);
    let dir = path.parent().expect("a cache file has a directory");
    home.ensure_dir(dir)?;
    let dim = if c.index.is_empty() {
        0
    } else {
        c.index.entry(0).0.len()
    };
    let header = FileHeader {
        token: c.token.clone(),
        user: c.user.clone(),
        model: c.model.clone(),
        n: c.n,
        high: c.high,
        records_high: c.records_high,
        total: c.total,
        count: c.index.len(),
        dim,
    };
    let mut out = Vec::with_capacity(MAGIC.len() + 256 + c.index.len() * (dim * 4 + 48));
    out.extend_from_slice(MAGIC);
    serde_json::to_writer(&mut out, &header).map_err(|e| Error::internal(e.to_string()))?;
    out.push(b'\n');
    for i in 0..c.index.len() {
        let id = c.index.id(i).as_bytes();
        let (v, expires) = c.index.entry(i);
        out.extend_from_slice(&(id.len().min(u16::MAX as usize) as u16).to_le_bytes());
        out.extend_from_slice(&id[..id.len().min(u16::MAX as usize)]);
        out.extend_from_slice(&expires.unwrap_or(i64::MIN).to_le_bytes());
        for x in v {
            out.extend_from_slice(&x.to_le_bytes());
        }
    }
    // Unsynced: a cache lost to a crash is read again from the database; one cut short is
    // refused by its length.
    let tmp = dir.join(format!(
        ".{}.{}",
        std::process::id(),
        uuid::Uuid::new_v4().simple()
    ));
    std::fs::write(&tmp, &out).map_err(|e| Error::internal(format!("{}: {e}", tmp.display())))?;
    std::fs::rename(&tmp, &path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        Error::internal(format!("{}: {e}", path.display()))
    })
}

/// The cache file at `path` when it is whole and of this database, user and model.
fn read_file(path: &std::path::Path, token: &str, user: &str, model: &str) -> Option<Cached> {
    let bytes = std::fs::read(path).ok()?;
    let rest = bytes.strip_prefix(MAGIC)?;
    let nl = rest.iter().position(|&b| b == b'\n')?;
    let h: FileHeader = serde_json::from_slice(&rest[..nl]).ok()?;
    if h.token != token || h.user != user || h.model != model {
        return None;
    }
    let mut raw = &rest[nl + 1..];
    let mut index = Index::default();
    let mut v: Vec<f32> = Vec::with_capacity(h.dim);
    for _ in 0..h.count {
        let len = u16::from_le_bytes(raw.get(..2)?.try_into().ok()?) as usize;
        let id = std::str::from_utf8(raw.get(2..2 + len)?).ok()?.to_string();
        raw = &raw[2 + len..];
        let expires = i64::from_le_bytes(raw.get(..8)?.try_into().ok()?);
        let vec = raw.get(8..8 + h.dim * 4)?;
        raw = &raw[8 + h.dim * 4..];
        v.clear();
        vectors::extend_from_blob(&mut v, vec);
        if !index.push(id, (expires != i64::MIN).then_some(expires), &v) {
            return None;
        }
    }
    if !raw.is_empty() {
        return None;
    }
    Some(Cached {
        token: h.token,
        user: h.user,
        model: h.model,
        n: h.n,
        high: h.high,
        records_high: h.records_high,
        total: h.total,
        index,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cached_keys(token: &str) -> Vec<String> {
        CACHE
            .lock()
            .unwrap()
            .iter()
            .filter(|s| s.key.0 == token)
            .map(|s| s.key.1.clone())
            .collect()
    }

    #[test]
    fn each_user_and_model_has_its_own_slot_and_the_least_recent_go_first() {
        let t = "test-token-slots";
        let a = slot(t, "ana", "m1");
        a.vectors.store(10, Ordering::Relaxed);
        assert!(Arc::ptr_eq(&a, &slot(t, "ana", "m1")), "one slot per key");
        assert!(
            !Arc::ptr_eq(&a, &slot(t, "ana", "m2")),
            "a model has its own"
        );
        assert!(
            !Arc::ptr_eq(&a, &slot(t, "ben", "m1")),
            "a user has their own"
        );
        // Ana's is used again: the others go before hers.
        for i in 0..MAX_CACHED - 1 {
            slot(t, &format!("u{i}"), "m1");
            slot(t, "ana", "m1");
        }
        let kept = cached_keys(t);
        assert!(kept.contains(&"ana".to_string()), "{kept:?}");
        assert!(!kept.contains(&"ben".to_string()), "{kept:?}");
        assert!(CACHE.lock().unwrap().len() <= MAX_CACHED);
        // Past the bound on vectors, older slots are dropped; the one in use never.
        let big = slot(t, "big", "m1");
        big.vectors.store(MAX_CACHED_VECTORS + 1, Ordering::Relaxed);
        let again = slot(t, "big", "m1");
        assert!(Arc::ptr_eq(&big, &again));
        assert_eq!(cached_keys(t), ["big"]);
        assert_eq!(CACHE.lock().unwrap().len(), 1);
        CACHE.lock().unwrap().clear();
    }
}
