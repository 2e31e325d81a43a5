//! Durable storage primitives every subsystem uses (docs/design.md#conventions).
//!
//! * **Redaction** (docs/design.md#security-model, the one choke point): [`write_json_atomic`],
//!   [`write_text_atomic`], [`append_jsonl`] and [`jsonl_line`] pass what they write through the
//!   process-wide redactor of the home ([`crate::redact::for_storage`]) first, so no caller can
//!   forget it: a JSON value is redacted field by field (secret-named fields, every string
//!   value, JSON held in strings), text as a whole. [`append_jsonl_batch`] only takes lines made
//!   by [`jsonl_line`] ([`JsonlLine`]). [`write_bytes_atomic`] writes opaque bytes as given
//!   (generated docs, a torn tail moved aside); text bob records goes through
//!   [`write_text_atomic`]. The hash-chained logs redact before hashing (in [`crate::audit`]
//!   and the memory ledger), so their chain covers the redacted record.
//! * [`write_json_atomic`]: a JSON document is replaced whole or not at all (temp file in the
//!   same directory, fsync, rename, fsync of the directory).
//! * [`append_jsonl`]: append-only JSON Lines. Each record is one `write(2)` of one line under
//!   an exclusive advisory lock on the log, followed by `fdatasync` (after the lock is let go:
//!   the sync covers every earlier write). Existing lines are never rewritten.
//! * [`read_jsonl`]: reads a log and reports, rather than hides, damaged lines. A last line with
//!   no newline is a *torn* record left by a crash: it is reported, never parsed or dropped.
//! * Hash-chained logs (approval ledger, audit log) are keyed and anchored in a manifest:
//!   see [`crate::chain`], which builds on the log primitives here.

use crate::error::{Error, Result};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
    move |e| Error::io(path, e)
}

fn parent_of(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Replaces `path` atomically with `bytes`, creating parent directories as needed.
pub fn write_bytes_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    replace_file(path, bytes, true)
}

/// Replaces `path` atomically with what `write` streams into it, readable by its owner only
/// (mode 0600, whatever the umask): the bytes go to a private temp file in the same directory
/// (created when missing), which is fsynced and renamed over `path`, then the directory is
/// fsynced. On any error `path` is left as it was and the temp file is removed. For copies of
/// stored data written where the user says (`bob memory export --output`).
pub fn write_private_atomic(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> Result<()>,
) -> Result<()> {
    let dir = parent_of(path);
    if !dir.is_dir() {
        std::fs::create_dir_all(dir).map_err(io(dir))?;
    }
    // tempfile creates the file with mode 0600 and removes it when dropped unpersisted.
    let tmp = tempfile::Builder::new()
        .prefix(".bob-write.")
        .tempfile_in(dir)
        .map_err(io(dir))?;
    {
        let mut out = std::io::BufWriter::with_capacity(1 << 20, tmp.as_file());
        write(&mut out)?;
        out.flush().map_err(io(path))?;
    }
    tmp.as_file().sync_all().map_err(io(path))?;
    tmp.persist(path).map_err(|e| Error::io(path, e.error))?;
    File::open(dir).and_then(|d| d.sync_all()).map_err(io(dir))
}

/// Makes `dir` hold exactly `files` (`(file name, bytes)`): creates it when missing, replaces
/// each file atomically ([`write_bytes_atomic`]) and removes every other file in it. For a
/// directory of generated files (man pages, shell completions), where a file no generator
/// writes any more is stale. Returns the paths written, in order.
pub fn write_generated_dir(dir: &Path, files: &[(String, Vec<u8>)]) -> Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    let mut written = Vec::with_capacity(files.len());
    for (name, bytes) in files {
        let p = dir.join(name);
        write_bytes_atomic(&p, bytes)?;
        written.push(p);
    }
    for entry in std::fs::read_dir(dir).map_err(io(dir))?.flatten() {
        let p = entry.path();
        if !written.contains(&p) {
            std::fs::remove_file(&p).map_err(io(&p))?;
        }
    }
    Ok(written)
}

/// [`write_bytes_atomic`] without the directory fsync after the rename: the new content is
/// durable (the temp file is fsynced before it is renamed), but after a power loss the path
/// may still name the old file. Only for a file whose previous version is an acceptable state
/// to come back to (the chain manifest: see `src/chain/mod.rs`).
pub fn write_bytes_atomic_rename_unsynced(path: &Path, bytes: &[u8]) -> Result<()> {
    replace_file(path, bytes, false)
}

fn replace_file(path: &Path, bytes: &[u8], sync_dir: bool) -> Result<()> {
    let dir = parent_of(path);
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("doc");
    let tmp = dir.join(format!(
        ".{name}.tmp.{}.{}",
        std::process::id(),
        uuid::Uuid::new_v4().simple()
    ));
    let result = (|| {
        let mut f = open_creating_dirs(&tmp, OpenOptions::new().write(true).create_new(true))?;
        f.write_all(bytes).map_err(io(&tmp))?;
        f.sync_all().map_err(io(&tmp))?;
        std::fs::rename(&tmp, path).map_err(io(path))?;
        if sync_dir {
            File::open(dir)
                .and_then(|d| d.sync_all())
                .map_err(io(dir))?;
        }
        Ok(())
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Replaces several files of one directory, each atomically, with one directory sync for all:
/// every temp file is written and synced first, then they are renamed in the given order (so
/// the last one, when present, says the others are too), then the directory is synced once.
/// Same guarantee per file as [`write_bytes_atomic`], one directory fsync instead of one each.
pub fn write_files_atomic(dir: &Path, files: &[(&str, Vec<u8>)]) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    let nonce = uuid::Uuid::new_v4().simple().to_string();
    let tmps: Vec<PathBuf> = files
        .iter()
        .map(|(name, _)| dir.join(format!(".{name}.tmp.{}.{nonce}", std::process::id())))
        .collect();
    let result = (|| {
        for ((_, bytes), tmp) in files.iter().zip(&tmps) {
            let mut f = OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(tmp)
                .map_err(io(tmp))?;
            f.write_all(bytes).map_err(io(tmp))?;
            f.sync_all().map_err(io(tmp))?;
        }
        for ((name, _), tmp) in files.iter().zip(&tmps) {
            let path = dir.join(name);
            std::fs::rename(tmp, &path).map_err(io(&path))?;
        }
        File::open(dir).and_then(|d| d.sync_all()).map_err(io(dir))
    })();
    if result.is_err() {
        for tmp in &tmps {
            let _ = std::fs::remove_file(tmp);
        }
    }
    result
}

/// Replaces several files of one directory, each by a rename, WITHOUT any fsync: for copies of
/// data that is durable elsewhere (the run bundle repeats the turn record of turns.jsonl and the
/// events of the audit log). A reader never sees a half-written file while the machine runs;
/// after a power loss a file may be missing, empty or torn, so readers must treat a malformed
/// file as absent or rebuild it. Renamed in the given order.
pub fn write_files_unsynced(dir: &Path, files: &[(&str, Vec<u8>)]) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    let nonce = uuid::Uuid::new_v4().simple().to_string();
    for (name, bytes) in files {
        let tmp = dir.join(format!(".{name}.tmp.{}.{nonce}", std::process::id()));
        let path = dir.join(name);
        let written = std::fs::write(&tmp, bytes)
            .map_err(io(&tmp))
            .and_then(|()| std::fs::rename(&tmp, &path).map_err(io(&path)));
        if written.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        written?;
    }
    Ok(())
}

/// The bytes [`write_json_atomic`] writes for `value`: pretty JSON, secrets masked, a newline.
pub fn json_bytes<T: Serialize + ?Sized>(value: &T) -> Result<Vec<u8>> {
    let mut bytes = serde_json::to_vec_pretty(&redacted_json(value)?)
        .map_err(|e| Error::internal(e.to_string()))?;
    bytes.push(b'\n');
    Ok(bytes)
}

/// A JSONL file written line by line (bounded memory) and published whole or not at all:
/// lines go to a temp file in the same directory, [`AtomicJsonl::commit`] fsyncs and renames
/// it; dropped uncommitted, the temp file is removed. Lines are [`JsonlLine`]s, so redacted.
pub struct AtomicJsonl {
    path: PathBuf,
    tmp: PathBuf,
    file: Option<std::io::BufWriter<File>>,
}

impl AtomicJsonl {
    pub fn create(path: &Path) -> Result<AtomicJsonl> {
        let dir = parent_of(path);
        std::fs::create_dir_all(dir).map_err(io(dir))?;
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("log");
        let tmp = dir.join(format!(
            ".{name}.tmp.{}.{}",
            std::process::id(),
            uuid::Uuid::new_v4().simple()
        ));
        let f = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
            .map_err(io(&tmp))?;
        Ok(AtomicJsonl {
            path: path.to_path_buf(),
            tmp,
            file: Some(std::io::BufWriter::with_capacity(256 * 1024, f)),
        })
    }

    pub fn push(&mut self, line: &JsonlLine) -> Result<()> {
        let f = self
            .file
            .as_mut()
            .ok_or_else(|| Error::internal("committed"))?;
        f.write_all(line.as_bytes()).map_err(io(&self.tmp))
    }

    /// fsync, rename over the target, fsync of the directory.
    pub fn commit(mut self) -> Result<()> {
        let f = self
            .file
            .take()
            .ok_or_else(|| Error::internal("committed"))?;
        let result = (|| {
            let f = f
                .into_inner()
                .map_err(|e| Error::io(&self.tmp, e.into_error()))?;
            f.sync_all().map_err(io(&self.tmp))?;
            std::fs::rename(&self.tmp, &self.path).map_err(io(&self.path))?;
            let dir = parent_of(&self.path);
            File::open(dir).and_then(|d| d.sync_all()).map_err(io(dir))
        })();
        if result.is_err() {
            let _ = std::fs::remove_file(&self.tmp);
        }
        result
    }
}

impl Drop for AtomicJsonl {
    fn drop(&mut self) {
        if self.file.is_some() {
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

/// `value` as JSON with every secret masked (see the module docs).
pub fn redacted_json<T: Serialize + ?Sized>(value: &T) -> Result<Value> {
    let mut v = serde_json::to_value(value).map_err(|e| Error::internal(e.to_string()))?;
    crate::redact::for_storage()?.redact_value(&mut v, "");
    Ok(v)
}

/// Replaces `path` atomically with the pretty JSON of `value` (secrets masked) and a trailing
/// newline.
pub fn write_json_atomic<T: Serialize + ?Sized>(path: &Path, value: &T) -> Result<()> {
    let mut bytes = serde_json::to_vec_pretty(&redacted_json(value)?)
        .map_err(|e| Error::internal(e.to_string()))?;
    bytes.push(b'\n');
    write_bytes_atomic(path, &bytes)
}

/// Replaces `path` atomically with `text`, secrets masked.
pub fn write_text_atomic(path: &Path, text: &str) -> Result<()> {
    let clean = crate::redact::for_storage()?.redact_str(text);
    write_bytes_atomic(path, clean.as_bytes())
}

/// Reads a JSON document; `Ok(None)` when the file does not exist.
pub fn read_json<T: DeserializeOwned>(path: &Path) -> Result<Option<T>> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::io(path, e)),
    };
    serde_json::from_slice(&bytes).map(Some).map_err(|e| {
        Error::bad_json(&path.display().to_string(), &e).with("path", path.display().to_string())
    })
}

/// An exclusive advisory lock held until dropped.
#[derive(Debug)]
pub struct Lock {
    file: File,
}

impl Lock {
    fn open(path: &Path) -> Result<File> {
        open_creating_dirs(
            path,
            OpenOptions::new()
                .create(true)
                .truncate(false)
                .read(true)
                .write(true),
        )
    }

    /// Blocks until the exclusive lock on `path` (created if missing) is held.
    pub fn exclusive(path: &Path) -> Result<Lock> {
        let file = Lock::open(path)?;
        file.lock().map_err(io(path))?;
        Ok(Lock { file })
    }

    /// Takes the lock only if nobody holds it; `Ok(None)` otherwise.
    pub fn try_exclusive(path: &Path) -> Result<Option<Lock>> {
        let file = Lock::open(path)?;
        match file.try_lock() {
            Ok(()) => Ok(Some(Lock { file })),
            Err(std::fs::TryLockError::WouldBlock) => Ok(None),
            Err(std::fs::TryLockError::Error(e)) => Err(Error::io(path, e)),
        }
    }
}

impl Drop for Lock {
    fn drop(&mut self) {
        let _ = self.file.unlock();
    }
}

/// The path of the lock file that guards `path` for read-modify-write updates.
pub fn lock_path(path: &Path) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(".lock");
    PathBuf::from(s)
}

/// Opens a log for appending (creating it and its directory) and takes its exclusive lock.
pub(crate) fn open_log(path: &Path) -> Result<File> {
    let file = open_creating_dirs(
        path,
        OpenOptions::new().create(true).append(true).read(true),
    )?;
    file.lock().map_err(io(path))?;
    Ok(file)
}

/// Opens `path` with `opts`; when its directory is missing, creates it and tries again (the
/// directory exists almost always: no mkdir and stat of each ancestor before every open).
fn open_creating_dirs(path: &Path, opts: &OpenOptions) -> Result<File> {
    match opts.open(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let dir = parent_of(path);
            std::fs::create_dir_all(dir).map_err(io(dir))?;
            opts.open(path).map_err(io(path))
        }
        opened => opened.map_err(io(path)),
    }
}

/// True when the file is non-empty and its last byte is not a newline (a torn record).
pub(crate) fn has_torn_tail(file: &mut File, path: &Path) -> Result<bool> {
    let len = file.metadata().map_err(io(path))?.len();
    if len == 0 {
        return Ok(false);
    }
    let mut last = [0u8; 1];
    file.seek(SeekFrom::Start(len - 1)).map_err(io(path))?;
    file.read_exact(&mut last).map_err(io(path))?;
    Ok(last[0] != b'\n')
}

fn encode_line<T: Serialize + ?Sized>(value: &T) -> Result<Vec<u8>> {
    let mut line = serde_json::to_vec(value).map_err(|e| Error::internal(e.to_string()))?;
    line.push(b'\n');
    Ok(line)
}

/// Appends one record (secrets masked) to a JSONL log: one write under an exclusive lock, then
/// fdatasync.
///
/// A torn last line left by an earlier crash is first sealed with a newline, so it stays in the
/// log as a damaged line that readers report (it is never glued to the new record).
pub fn append_jsonl<T: Serialize + ?Sized>(path: &Path, value: &T) -> Result<()> {
    append_jsonl_batch(path, std::slice::from_ref(&jsonl_line(value)?))
}

/// One redacted JSONL line (with its trailing newline), made by [`jsonl_line`] only: the type is
/// what guarantees every line [`append_jsonl_batch`] writes was redacted.
#[derive(Debug, Clone)]
pub struct JsonlLine(Vec<u8>);

impl JsonlLine {
    /// The encoded bytes, newline included.
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }
}

/// Appends several lines with one lock and one fdatasync.
pub fn append_jsonl_batch(path: &Path, lines: &[JsonlLine]) -> Result<()> {
    append_lines(path, lines, true)
}

/// Appends several lines with one lock and no fdatasync: they are in the page cache, so they
/// survive the process being killed but not a power loss, until the next synced append to the
/// same file (its fdatasync covers every earlier write) or the kernel's writeback. For a log
/// whose early lines are only worth keeping if the process dies, not the machine (a turn's
/// trace before its first model call; its end is synced).
pub fn append_jsonl_batch_unsynced(path: &Path, lines: &[JsonlLine]) -> Result<()> {
    append_lines(path, lines, false)
}

fn append_lines(path: &Path, lines: &[JsonlLine], sync: bool) -> Result<()> {
    let mut file = open_log(path)?;
    let mut buf = Vec::with_capacity(lines.iter().map(|l| l.0.len()).sum::<usize>() + 1);
    if has_torn_tail(&mut file, path)? {
        buf.push(b'\n');
    }
    for l in lines {
        buf.extend_from_slice(&l.0);
    }
    file.write_all(&buf).map_err(io(path))?;
    if sync {
        let synced = SyncGroup::wrote(path);
        file.unlock().map_err(io(path))?;
        synced.sync(&file, path)?;
    }
    Ok(())
}

/// Group commit of one file's fdatasyncs within this process (serve's workers append to one
/// audit log and one `turns.jsonl`). A writer takes a ticket right after its `write(2)`, still
/// under the file's lock, then asks for a sync: if a sync that started after its ticket has
/// finished, its data is durable already (an fdatasync covers every write to the file made
/// before it); if one is running, it waits for it and looks again; else it syncs, for every
/// ticket taken so far. So concurrent appenders share fdatasyncs, and none returns before its
/// own write is durable.
#[derive(Default)]
pub(crate) struct SyncGroup {
    state: std::sync::Mutex<SyncState>,
    done: std::sync::Condvar,
}

#[derive(Default)]
struct SyncState {
    ticket: u64,
    synced: u64,
    syncing: bool,
}

/// The files some thread of this process appends to, by path.
type SyncGroups = std::collections::BTreeMap<PathBuf, std::sync::Arc<SyncGroup>>;
static SYNC_GROUPS: std::sync::Mutex<SyncGroups> =
    std::sync::Mutex::new(std::collections::BTreeMap::new());

/// A write waiting for its sync: its group and ticket.
pub(crate) struct Written {
    group: std::sync::Arc<SyncGroup>,
    ticket: u64,
}

impl SyncGroup {
    /// Registers a write to `path` just made (call it under the file's lock, so tickets follow
    /// the order of the writes).
    pub(crate) fn wrote(path: &Path) -> Written {
        let group = {
            let mut all = SYNC_GROUPS.lock().unwrap_or_else(|e| e.into_inner());
            all.entry(path.to_path_buf()).or_default().clone()
        };
        let ticket = {
            let mut s = group.state.lock().unwrap_or_else(|e| e.into_inner());
            s.ticket += 1;
            s.ticket
        };
        Written { group, ticket }
    }
}

impl Written {
    /// Returns once the write is durable: covered by a sync that started after it, or by
    /// this call's own `fdatasync` of `file`.
    pub(crate) fn sync(self, file: &File, path: &Path) -> Result<()> {
        let g = &self.group;
        let mut s = g.state.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if s.synced >= self.ticket {
                break;
            }
            if s.syncing {
                s = g.done.wait(s).unwrap_or_else(|e| e.into_inner());
                continue;
            }
            s.syncing = true;
            let upto = s.ticket;
            drop(s);
            let r = file.sync_data();
            s = g.state.lock().unwrap_or_else(|e| e.into_inner());
            s.syncing = false;
            if r.is_ok() {
                s.synced = s.synced.max(upto);
            }
            g.done.notify_all();
            r.map_err(io(path))?;
        }
        let idle = !s.syncing && s.synced == s.ticket;
        drop(s);
        if idle {
            // Nothing pending: forget the file (a later writer starts a new group, which is
            // only less sharing, never a missed sync: each group syncs its own writes).
            let mut all = SYNC_GROUPS.lock().unwrap_or_else(|e| e.into_inner());
            if all
                .get(path)
                .is_some_and(|cur| std::sync::Arc::ptr_eq(cur, g))
                && std::sync::Arc::strong_count(g) == 2
            {
                all.remove(path);
            }
        }
        Ok(())
    }
}

/// Encodes a value, secrets masked, as one JSONL line for [`append_jsonl_batch`].
pub fn jsonl_line<T: Serialize + ?Sized>(value: &T) -> Result<JsonlLine> {
    encode_line(&redacted_json(value)?).map(JsonlLine)
}

/// Encodes a record byte-exact, NOT redacted, as one JSONL line (with its newline): for the
/// hash-chained logs only, whose records are redacted before their hash is computed and must
/// then be written exactly as hashed.
pub fn jsonl_line_verbatim<T: Serialize + ?Sized>(value: &T) -> Result<Vec<u8>> {
    encode_line(value)
}

/// A line of a log that could not be read as a record.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BadLine {
    /// 1-based line number.
    pub line: usize,
    /// `torn` for a last line with no newline (crash during append), `malformed` otherwise.
    pub kind: &'static str,
    pub reason: String,
}

/// The records of a log and the lines that were not whole records.
#[derive(Debug, Default)]
pub struct LogContents {
    /// (1-based line number, record)
    pub records: Vec<(usize, Value)>,
    pub bad: Vec<BadLine>,
}

/// Reads a whole JSONL log. A missing file reads as empty.
pub fn read_jsonl(path: &Path) -> Result<LogContents> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(LogContents::default()),
        Err(e) => return Err(Error::io(path, e)),
    };
    Ok(parse_jsonl(&bytes))
}

/// Parses JSONL bytes, classifying every line that is not a whole JSON object.
pub fn parse_jsonl(bytes: &[u8]) -> LogContents {
    let mut out = LogContents::default();
    let mut start = 0;
    let mut lineno = 0;
    while start < bytes.len() {
        lineno += 1;
        let (line, next, terminated) = match memchr::memchr(b'\n', &bytes[start..]) {
            Some(i) => (&bytes[start..start + i], start + i + 1, true),
            None => (&bytes[start..], bytes.len(), false),
        };
        start = next;
        if !terminated {
            out.bad.push(BadLine {
                line: lineno,
                kind: "torn",
                reason: "last line has no newline (interrupted write)".into(),
            });
            break;
        }
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match serde_json::from_slice::<Value>(line) {
            Ok(v @ Value::Object(_)) => out.records.push((lineno, v)),
            Ok(_) => out.bad.push(BadLine {
                line: lineno,
                kind: "malformed",
                reason: "not a JSON object".into(),
            }),
            Err(e) => out.bad.push(BadLine {
                line: lineno,
                kind: "malformed",
                reason: e.to_string(),
            }),
        }
    }
    out
}

/// SHA-256 of `bytes` as lowercase hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// The last newline-terminated line of a file, without its newline (bytes after the last
/// newline, a torn fragment, are ignored).
pub(crate) fn last_line(file: &mut File, path: &Path) -> Result<Option<Vec<u8>>> {
    let len = file.metadata().map_err(io(path))?.len();
    let mut window: u64 = 64 * 1024;
    loop {
        let from = len.saturating_sub(window);
        file.seek(SeekFrom::Start(from)).map_err(io(path))?;
        let mut buf = Vec::with_capacity((len - from) as usize);
        file.read_to_end(&mut buf).map_err(io(path))?;
        // Cut any torn fragment after the last newline.
        let Some(end) = memchr::memrchr(b'\n', &buf) else {
            if from == 0 {
                return Ok(None);
            }
            window *= 4;
            continue;
        };
        let body = &buf[..end];
        if let Some(i) = memchr::memrchr(b'\n', body) {
            return Ok(Some(body[i + 1..].to_vec()));
        }
        if from == 0 {
            return Ok(Some(body.to_vec()));
        }
        window *= 4;
    }
}
