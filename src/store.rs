//! Durable storage primitives every subsystem uses (DESIGN.md §1 "Durability").
//!
//! * **Redaction** (DESIGN.md §8, the one choke point): [`write_json_atomic`],
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
//!   an exclusive advisory lock on the log, followed by `fdatasync`. Existing lines are never
//!   rewritten.
//! * [`read_jsonl`]: reads a log and reports, rather than hides, damaged lines. A last line with
//!   no newline is a *torn* record left by a crash: it is reported, never parsed or dropped.
//! * [`append_chained`] / [`verify_chain`]: hash-chained logs (approval ledger, audit log).
//!   Every record carries `seq` (its 0-based line number), `prev` (the previous record's
//!   `hash`, 64 zeros for the first) and `hash` = SHA-256 of the record serialized without its
//!   `hash` field. A side file `<log>.head` anchors the last record so a truncated tail is
//!   found too. Editing, deleting or reordering any line breaks the chain at that line.

use crate::error::{Error, Result};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// `prev` of the first record in a chain.
pub const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

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
    let dir = parent_of(path);
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("doc");
    let tmp = dir.join(format!(
        ".{name}.tmp.{}.{}",
        std::process::id(),
        uuid::Uuid::new_v4().simple()
    ));
    let result = (|| {
        let mut f = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
            .map_err(io(&tmp))?;
        f.write_all(bytes).map_err(io(&tmp))?;
        f.sync_all().map_err(io(&tmp))?;
        std::fs::rename(&tmp, path).map_err(io(path))?;
        File::open(dir).and_then(|d| d.sync_all()).map_err(io(dir))
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
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
        let dir = parent_of(path);
        std::fs::create_dir_all(dir).map_err(io(dir))?;
        OpenOptions::new()
            .create(true)
            .truncate(false)
            .read(true)
            .write(true)
            .open(path)
            .map_err(io(path))
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

fn open_log(path: &Path) -> Result<File> {
    let dir = parent_of(path);
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    let file = OpenOptions::new()
        .create(true)
        .append(true)
        .read(true)
        .open(path)
        .map_err(io(path))?;
    file.lock().map_err(io(path))?;
    Ok(file)
}

/// True when the file is non-empty and its last byte is not a newline (a torn record).
fn has_torn_tail(file: &mut File, path: &Path) -> Result<bool> {
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
    let mut file = open_log(path)?;
    let mut buf = Vec::with_capacity(lines.iter().map(|l| l.0.len()).sum::<usize>() + 1);
    if has_torn_tail(&mut file, path)? {
        buf.push(b'\n');
    }
    for l in lines {
        buf.extend_from_slice(&l.0);
    }
    file.write_all(&buf).map_err(io(path))?;
    file.sync_data().map_err(io(path))
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

fn record_hash(record: &Map<String, Value>) -> Result<String> {
    let body = serde_json::to_vec(record).map_err(|e| Error::internal(e.to_string()))?;
    Ok(sha256_hex(&body))
}

fn head_path(path: &Path) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(".head");
    PathBuf::from(s)
}

#[derive(Debug, Clone, Serialize, serde::Deserialize)]
struct Head {
    seq: u64,
    hash: String,
}

/// Reads the last complete line of the log (the file must not have a torn tail).
fn last_line(file: &mut File, path: &Path) -> Result<Option<Vec<u8>>> {
    let len = file.metadata().map_err(io(path))?.len();
    if len == 0 {
        return Ok(None);
    }
    let mut window: u64 = 64 * 1024;
    loop {
        let from = len.saturating_sub(window);
        file.seek(SeekFrom::Start(from)).map_err(io(path))?;
        let mut buf = Vec::with_capacity((len - from) as usize);
        file.read_to_end(&mut buf).map_err(io(path))?;
        let body = &buf[..buf.len() - 1]; // drop the final newline
        if let Some(i) = memchr::memrchr(b'\n', body) {
            return Ok(Some(body[i + 1..].to_vec()));
        }
        if from == 0 {
            return Ok(Some(body.to_vec()));
        }
        window *= 4;
    }
}

/// Appends `record` to a hash-chained log, adding `seq`, `prev` and `hash`; returns the record
/// as written. Refuses (`conflict`) when the log ends in a torn line: `bob ledger repair` first.
pub fn append_chained(path: &Path, record: Map<String, Value>) -> Result<Map<String, Value>> {
    let mut written = append_chained_batch(path, vec![record])?;
    written
        .pop()
        .ok_or_else(|| Error::internal("append_chained_batch wrote nothing"))
}

/// Appends several records to a hash-chained log under one lock with one write and one
/// fdatasync (and one head update), chaining them exactly as [`append_chained`] would one by
/// one. Returns the records as written. An empty batch writes nothing.
pub fn append_chained_batch(
    path: &Path,
    records: Vec<Map<String, Value>>,
) -> Result<Vec<Map<String, Value>>> {
    if records.is_empty() {
        return Ok(records);
    }
    let mut file = open_log(path)?;
    if has_torn_tail(&mut file, path)? {
        return Err(Error::conflict(format!(
            "{} ends in a torn record left by an interrupted write; run `bob ledger repair {}`",
            path.display(),
            path.display()
        ))
        .with("path", path.display().to_string()));
    }
    let (mut seq, mut prev) = match last_line(&mut file, path)? {
        None => (0, GENESIS.to_string()),
        Some(line) => {
            let last: Map<String, Value> = serde_json::from_slice(&line).map_err(|e| {
                Error::conflict(format!(
                    "last record of {} is not valid JSON: {e}",
                    path.display()
                ))
            })?;
            let seq = last.get("seq").and_then(Value::as_u64).map(|s| s + 1);
            let hash = last.get("hash").and_then(Value::as_str).map(str::to_string);
            match (seq, hash) {
                (Some(s), Some(h)) => (s, h),
                _ => {
                    return Err(Error::conflict(format!(
                        "last record of {} carries no seq/hash",
                        path.display()
                    )));
                }
            }
        }
    };
    let mut buf = Vec::new();
    let mut written = Vec::with_capacity(records.len());
    for mut record in records {
        for k in ["seq", "prev", "hash"] {
            record.shift_remove(k);
        }
        record.insert("seq".into(), Value::from(seq));
        record.insert("prev".into(), Value::from(prev.clone()));
        let hash = record_hash(&record)?;
        record.insert("hash".into(), Value::from(hash.clone()));
        buf.extend_from_slice(&encode_line(&record)?);
        written.push(record);
        prev = hash;
        seq += 1;
    }
    file.write_all(&buf).map_err(io(path))?;
    file.sync_data().map_err(io(path))?;
    write_json_atomic(
        &head_path(path),
        &Head {
            seq: seq - 1,
            hash: prev,
        },
    )?;
    Ok(written)
}

/// The result of verifying a hash-chained log.
#[derive(Debug, Clone, Serialize)]
pub struct ChainReport {
    pub path: String,
    pub ok: bool,
    /// Whole records that verified, from the start of the file.
    pub verified: u64,
    /// The first line that breaks the chain (1-based), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_bad_line: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// A torn last record left by an interrupted append (the records before it verified).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub torn_line: Option<usize>,
}

/// Verifies every link of a hash-chained log and its head anchor.
pub fn verify_chain(path: &Path) -> Result<ChainReport> {
    let bytes = std::fs::read(path).map_err(io(path))?;
    let contents = parse_jsonl(&bytes);
    let mut report = ChainReport {
        path: path.display().to_string(),
        ok: true,
        verified: 0,
        first_bad_line: None,
        reason: None,
        torn_line: None,
    };
    let fail = |report: &mut ChainReport, line: usize, reason: String| {
        if report.ok {
            report.ok = false;
            report.first_bad_line = Some(line);
            report.reason = Some(reason);
        }
    };
    // Merge records and bad lines back into file order.
    let mut bad = contents.bad.iter().peekable();
    let mut prev = GENESIS.to_string();
    let mut expected_seq = 0u64;
    for (lineno, value) in &contents.records {
        if let Some(b) = bad.peek()
            && b.line < *lineno
        {
            fail(
                &mut report,
                b.line,
                format!("{} line: {}", b.kind, b.reason),
            );
            break;
        }
        let Value::Object(map) = value else {
            unreachable!("parse_jsonl keeps objects only")
        };
        let mut map = map.clone();
        let Some(Value::String(hash)) = map.shift_remove("hash") else {
            fail(&mut report, *lineno, "record has no hash".into());
            break;
        };
        if map.get("seq").and_then(Value::as_u64) != Some(expected_seq) {
            fail(
                &mut report,
                *lineno,
                format!("seq is not {expected_seq} (line deleted, inserted or reordered)"),
            );
            break;
        }
        if map.get("prev").and_then(Value::as_str) != Some(prev.as_str()) {
            fail(
                &mut report,
                *lineno,
                "prev does not match the previous record's hash (line deleted or reordered)".into(),
            );
            break;
        }
        if record_hash(&map)? != hash {
            fail(
                &mut report,
                *lineno,
                "hash does not match the record's content (line edited)".into(),
            );
            break;
        }
        prev = hash;
        expected_seq += 1;
        report.verified += 1;
    }
    if report.ok
        && let Some(b) = bad.next()
    {
        if b.kind == "torn" {
            report.torn_line = Some(b.line);
        } else {
            fail(
                &mut report,
                b.line,
                format!("{} line: {}", b.kind, b.reason),
            );
        }
    }
    if report.ok
        && let Some(head) = read_json::<Head>(&head_path(path))?
    {
        let last_seq = expected_seq.checked_sub(1);
        if last_seq.is_none_or(|s| s < head.seq) {
            fail(
                &mut report,
                contents.records.len() + 1,
                format!(
                    "log ends before the anchored record seq {} (tail deleted)",
                    head.seq
                ),
            );
        } else if last_seq == Some(head.seq) && prev != head.hash {
            fail(
                &mut report,
                contents.records.len(),
                "last record differs from the anchored hash".into(),
            );
        }
    }
    Ok(report)
}

/// Moves a torn last record of a log aside into `<log>.torn.<n>` and truncates it away, so that
/// appends can continue. Returns the side file, or `None` when the log was whole.
pub fn repair_torn_tail(path: &Path) -> Result<Option<PathBuf>> {
    let mut file = open_log(path)?;
    if !has_torn_tail(&mut file, path)? {
        return Ok(None);
    }
    let len = file.metadata().map_err(io(path))?.len();
    file.seek(SeekFrom::Start(0)).map_err(io(path))?;
    let mut bytes = Vec::with_capacity(len as usize);
    file.read_to_end(&mut bytes).map_err(io(path))?;
    let cut = memchr::memrchr(b'\n', &bytes).map(|i| i + 1).unwrap_or(0);
    let mut n = 0;
    let side = loop {
        let mut s = path.as_os_str().to_owned();
        s.push(format!(".torn.{n}"));
        let p = PathBuf::from(s);
        if !p.exists() {
            break p;
        }
        n += 1;
    };
    write_bytes_atomic(&side, &bytes[cut..])?;
    file.set_len(cut as u64).map_err(io(path))?;
    file.sync_all().map_err(io(path))?;
    Ok(Some(side))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(n: u64) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("n".into(), Value::from(n));
        m
    }

    #[test]
    fn batched_chain_is_byte_identical_to_one_by_one() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a.jsonl"), dir.path().join("b.jsonl"));
        for n in 0..5 {
            append_chained(&a, rec(n)).unwrap();
        }
        append_chained(&b, rec(0)).unwrap();
        let written = append_chained_batch(&b, (1..5).map(rec).collect()).unwrap();
        assert_eq!(written.len(), 4);
        assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
        assert_eq!(
            std::fs::read(head_path(&a)).unwrap(),
            std::fs::read(head_path(&b)).unwrap()
        );
        assert!(verify_chain(&b).unwrap().ok);
        assert!(append_chained_batch(&b, Vec::new()).unwrap().is_empty());
    }
}
