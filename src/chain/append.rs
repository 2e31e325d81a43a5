//! Appending to a chained log: the log's tip checked against the manifest and the key, the
//! records chained on from it, and the new head anchored in the manifest (several appenders'
//! heads in one manifest write); a torn tail moved aside.

use super::keyring::Keyring;
use super::manifest::{Entry, GENESIS, Manifest, ManifestRead, RECORD_KEY_FIELD, io};
use crate::error::{Error, Result};
use crate::store::{self, Lock};
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// The `(seq, hash)` of the last whole record of a log (a torn last line is skipped);
/// `Ok(None)` for a missing or empty log.
pub fn tail(path: &Path) -> Result<Option<(u64, String)>> {
    let mut file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::io(path, e)),
    };
    let Some(line) = store::last_line(&mut file, path)? else {
        return Ok(None);
    };
    let last: Map<String, Value> = serde_json::from_slice(&line).map_err(|e| {
        Error::conflict(format!(
            "last record of {} is not valid JSON: {e}",
            path.display()
        ))
    })?;
    match (
        last.get("seq").and_then(Value::as_u64),
        last.get("hash").and_then(Value::as_str),
    ) {
        (Some(s), Some(h)) => Ok(Some((s, h.to_string()))),
        _ => Err(Error::conflict(format!(
            "last record of {} carries no seq/hash",
            path.display()
        ))),
    }
}

/// Checks that a log can take the next append, as [`append_batch`] would, without writing:
/// the log opens for appending (it is created if missing), does not end in a torn record, the
/// manifest authenticates, and the log's last record matches its anchor and the key. A writer
/// calls this before it does anything it must audit, so a damaged log stops it up front.
/// When a `bob ledger rekey` ran since `keys` was loaded, `keys` becomes the key it left.
pub fn check_appendable(keys: &mut Keyring, path: &Path) -> Result<()> {
    let mut file = store::open_log(path)?;
    let _manifest_lock = Lock::exclusive(&store::lock_path(&keys.manifest_path()))?;
    let manifest = match keys.manifest_or_missing() {
        Ok(m) => m,
        Err(e) => {
            let (now, m) = keys.after_rekey().ok_or(e)?;
            *keys = now;
            m
        }
    };
    tip(keys, &mut file, path, &manifest).map(|_| ())
}

fn torn_error(path: &Path) -> Error {
    Error::conflict(format!(
        "{} ends in a torn record left by an interrupted write; run `bob ledger repair {}`",
        path.display(),
        path.display()
    ))
    .with("path", path.display().to_string())
}

/// Where the next record of a log goes.
struct Tip {
    seq: u64,
    prev: String,
    keyed_from: u64,
    prefix_sha256: Option<String>,
}

/// The next position of a log (locked by the caller, manifest lock held), after checking its
/// end against the manifest and the key.
fn tip(keys: &Keyring, file: &mut File, path: &Path, manifest: &Manifest) -> Result<Tip> {
    if store::has_torn_tail(file, path)? {
        return Err(torn_error(path));
    }
    let refuse = |why: String| {
        Err(Error::conflict(format!("{}: {why}", path.display()))
            .with("path", path.display().to_string())
            .retryable(false))
    };
    let entry = manifest.files.get(&keys.rel(path));
    let Some(line) = store::last_line(file, path)? else {
        return match entry {
            None => Ok(Tip {
                seq: 0,
                prev: GENESIS.to_string(),
                keyed_from: 0,
                prefix_sha256: None,
            }),
            Some(e) => refuse(format!(
                "the log is empty but the manifest anchors seq {} (file deleted or truncated)",
                e.seq
            )),
        };
    };
    let mut last: Map<String, Value> = serde_json::from_slice(&line)
        .map_err(|e| Error::conflict(format!("last record of {}: {e}", path.display())))?;
    let hash = match last.shift_remove("hash") {
        Some(Value::String(h)) => h,
        _ => return refuse("the last record carries no hash".into()),
    };
    let Some(s) = last.get("seq").and_then(Value::as_u64) else {
        return refuse("the last record carries no seq".into());
    };
    let Some(e) = entry else {
        // A log the manifest does not list holds records: bob's own only when its last record
        // is keyed with this key (a crash between a first append's write and its manifest
        // update); anything else (a legacy log, a planted one, one of another key) is adopted
        // by `bob ledger rekey` only, never silently.
        let body = serde_json::to_vec(&last).map_err(|e| Error::internal(e.to_string()))?;
        if !keys.mac_ok(&body, &hash) {
            return refuse(
                "the log holds records but the manifest does not list it (a legacy log, or one \
                 written without this key); run `bob ledger rekey` to adopt it"
                    .into(),
            );
        }
        return Ok(Tip {
            seq: s + 1,
            prev: hash,
            keyed_from: 0,
            prefix_sha256: None,
        });
    };
    if s < e.seq {
        return refuse(format!(
            "the log ends at seq {s}, before its anchored head seq {} (tail deleted)",
            e.seq
        ));
    }
    if s == e.seq && hash != e.hash {
        return refuse("the last record differs from the anchored head".into());
    }
    if s >= e.keyed_from {
        let body = serde_json::to_vec(&last).map_err(|e| Error::internal(e.to_string()))?;
        if !keys.mac_ok(&body, &hash) {
            return refuse("the last record's hash is not keyed with this home's key".into());
        }
    }
    Ok(Tip {
        seq: s + 1,
        prev: hash,
        keyed_from: e.keyed_from,
        prefix_sha256: e.prefix_sha256.clone(),
    })
}

/// Appends `record` to a keyed chain; returns it as written (with `seq`, `prev`, `hash`).
pub fn append(
    keys: &Keyring,
    path: &Path,
    record: Map<String, Value>,
) -> Result<Map<String, Value>> {
    let mut written = append_batch(keys, path, vec![record])?;
    written
        .pop()
        .ok_or_else(|| Error::internal("append_batch wrote nothing"))
}

/// Appends several records under one lock with one write and one fdatasync, then one
/// manifest update, chaining them exactly as [`append`] would one by one. An empty batch
/// writes nothing. Refuses (`conflict`) a torn tail (`bob ledger repair` first) and a log that
/// fails its manifest check (see [`check_appendable`]).
///
/// A log the manifest lists already is checked against the manifest as it stands, read
/// without its lock (it is replaced whole, so a read sees one version or the next, and an
/// anchor only moves forward); its lock is let go before the fdatasync and [`anchor`] does
/// the rest. A log listed for the first time is written, synced and anchored under the
/// manifest's lock: an appender that found it unlisted would adopt it as a legacy log.
pub fn append_batch(
    keys: &Keyring,
    path: &Path,
    records: Vec<Map<String, Value>>,
) -> Result<Vec<Map<String, Value>>> {
    append_under(keys, path, records, REKEY_RETRIES)
}

/// How many rekeys one append follows before it gives up (each one it meets while rekeys
/// run back to back).
const REKEY_RETRIES: u32 = 8;

fn append_under(
    keys: &Keyring,
    path: &Path,
    records: Vec<Map<String, Value>>,
    retries: u32,
) -> Result<Vec<Map<String, Value>>> {
    if records.is_empty() {
        return Ok(records);
    }
    let mut file = store::open_log(path)?;
    let seen = match keys.manifest_as_read() {
        Ok(seen) => seen,
        // A rekey ran (or is running) since this writer loaded its key: nothing is written
        // yet, so once the rekey is done the records go in under the key it left.
        Err(e) => {
            drop(file);
            let now = {
                let _lock = Lock::exclusive(&store::lock_path(&keys.manifest_path()))?;
                keys.after_rekey()
            };
            return match now {
                Some((now, _)) if retries > 0 => append_under(&now, path, records, retries - 1),
                _ => Err(e),
            };
        }
    };
    let rel = keys.rel(path);
    if !seen.manifest.files.contains_key(&rel) {
        // A log listed for the first time: written, synced and anchored under the manifest's
        // lock, with the `keys/` directory fsync unless another append listed it meanwhile
        // (an older manifest would not list the log at all).
        let _lock = Lock::exclusive(&store::lock_path(&keys.manifest_path()))?;
        let mut manifest = keys.reread_manifest(seen)?;
        let c = chain(keys, tip(keys, &mut file, path, &manifest)?, records)?;
        file.write_all(&c.bytes).map_err(io(path))?;
        file.sync_data().map_err(io(path))?;
        let listed = manifest.files.insert(rel, c.head).is_some();
        manifest.generation += 1;
        keys.write_manifest(&mut manifest, !listed)?;
        return Ok(c.records);
    }
    let c = chain(keys, tip(keys, &mut file, path, &seen.manifest)?, records)?;
    file.write_all(&c.bytes).map_err(io(path))?;
    // Unanchored until `anchor`: a state the chain accepts (see "Durability of an append").
    let synced = store::SyncGroup::wrote(path);
    file.unlock().map_err(io(path))?;
    synced.sync(&file, path)?;
    anchor(keys, path, c.head, seen)?;
    Ok(c.records)
}

/// Records chained on from a tip, ready to append.
struct Chained {
    /// The lines to write.
    bytes: Vec<u8>,
    /// The records as written (with `seq`, `prev`, `hash`).
    records: Vec<Map<String, Value>>,
    /// The log's head once they are written.
    head: Entry,
}

/// Chains `records` on from `tip`.
fn chain(keys: &Keyring, tip: Tip, records: Vec<Map<String, Value>>) -> Result<Chained> {
    let Tip {
        mut seq,
        mut prev,
        keyed_from,
        prefix_sha256,
    } = tip;
    let mut buf = Vec::new();
    let mut written = Vec::with_capacity(records.len());
    for mut record in records {
        for k in [RECORD_KEY_FIELD, "seq", "prev", "hash"] {
            record.shift_remove(k);
        }
        record.insert(RECORD_KEY_FIELD.into(), Value::from(keys.key_id.as_str()));
        record.insert("seq".into(), Value::from(seq));
        record.insert("prev".into(), Value::from(prev.clone()));
        let body = serde_json::to_vec(&record).map_err(|e| Error::internal(e.to_string()))?;
        let hash = keys.mac_hex(&body);
        record.insert("hash".into(), Value::from(hash.clone()));
        buf.extend_from_slice(&store::jsonl_line_verbatim(&record)?);
        written.push(record);
        prev = hash;
        seq += 1;
    }
    Ok(Chained {
        bytes: buf,
        records: written,
        head: Entry {
            seq: seq - 1,
            hash: prev,
            keyed_from,
            prefix_sha256,
        },
    })
}

/// A log of one home: (manifest path, the log as the manifest names it).
type LogKey = (PathBuf, String);

/// This process's anchoring state: heads synced but not yet anchored, and the head this
/// process last anchored, per log.
struct Anchors {
    pending: BTreeMap<LogKey, Entry>,
    anchored: BTreeMap<LogKey, u64>,
}

static ANCHORS: std::sync::Mutex<Anchors> = std::sync::Mutex::new(Anchors {
    pending: BTreeMap::new(),
    anchored: BTreeMap::new(),
});
/// One manifest write at a time in this process: appenders that synced meanwhile wait here,
/// and the next writer anchors all their heads at once (group commit of the manifest).
static ANCHORING: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn with_anchors<R>(f: impl FnOnce(&mut Anchors) -> R) -> R {
    f(&mut ANCHORS.lock().unwrap_or_else(|e| e.into_inner()))
}

/// Anchors a listed log's synced head in the manifest, with the heads other threads of this
/// process synced meanwhile, in one manifest write; returns at once when a later head of the
/// log is anchored already (its fdatasync, after this head's write, covered it). The `keys/`
/// directory is not fsynced: a lost rename brings back a manifest that anchors the log at an
/// older head, which the chain accepts (unanchored records, re-anchored by the next append).
///
/// `seen` is the manifest as the append read it: re-read under the lock, it is parsed and
/// authenticated again only when another append replaced it meanwhile.
fn anchor(keys: &Keyring, path: &Path, head: Entry, seen: ManifestRead) -> Result<()> {
    let manifest_path = keys.manifest_path();
    let key: LogKey = (manifest_path.clone(), keys.rel(path));
    let seq = head.seq;
    let covered = |a: &Anchors| a.anchored.get(&key).is_some_and(|&s| s >= seq);
    with_anchors(|a| {
        if a.pending.get(&key).is_none_or(|e| e.seq < seq) {
            a.pending.insert(key.clone(), head);
        }
    });
    let _turn = ANCHORING.lock().unwrap_or_else(|e| e.into_inner());
    if with_anchors(|a| covered(a)) {
        return Ok(());
    }
    let _lock = Lock::exclusive(&store::lock_path(&manifest_path))?;
    let mut manifest = match keys.reread_manifest(seen) {
        Ok(m) => m,
        // A rekey ran between the write and this anchor: it adopted the log as it stood,
        // this record included, into the retired key's epoch. The append is anchored; an
        // error here would report as refused an act whose record is in the log.
        Err(e) => match keys.after_rekey() {
            Some((_, now)) if now.files.get(&key.1).is_some_and(|m| m.seq >= seq) => {
                with_anchors(|a| {
                    a.pending.remove(&key);
                });
                return Ok(());
            }
            _ => return Err(e),
        },
    };
    let batch: Vec<(LogKey, Entry)> = with_anchors(|a| {
        a.pending
            .iter()
            .filter(|((m, _), _)| *m == manifest_path)
            .map(|(k, e)| (k.clone(), e.clone()))
            .collect()
    });
    let mut changed = false;
    for ((_, rel), e) in &batch {
        if manifest.files.get(rel).is_none_or(|m| m.seq < e.seq) {
            manifest.files.insert(rel.clone(), e.clone());
            changed = true;
        }
    }
    if changed {
        manifest.generation += 1;
        keys.write_manifest(&mut manifest, false)?;
    }
    with_anchors(|a| {
        for (k, e) in batch {
            let now = manifest.files.get(&k.1).map_or(e.seq, |m| m.seq);
            if a.pending.get(&k).is_some_and(|p| p.seq <= now) {
                a.pending.remove(&k);
            }
            a.anchored.insert(k, now);
        }
    });
    Ok(())
}

/// Moves a torn last record of a log aside into `<log>.torn.<n>` and truncates it away, so that
/// appends can continue. Returns the side file, or `None` when the log was whole. Whole
/// records (and so the manifest's anchor) are never touched.
pub fn repair_torn_tail(path: &Path) -> Result<Option<PathBuf>> {
    let mut file = store::open_log(path)?;
    if !store::has_torn_tail(&mut file, path)? {
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
    store::write_bytes_atomic(&side, &bytes[cut..])?;
    file.set_len(cut as u64).map_err(io(path))?;
    file.sync_all().map_err(io(path))?;
    Ok(Some(side))
}

/// Chains one record onto a chain kept outside a file (the shared store's ledger rows): the
/// record gets `key_id`, `seq`, `prev` and the keyed `hash` exactly as [`append`] gives a line,
/// so one verifier rule covers both. The caller holds the chain's lock and read `prev` (the
/// last record's `hash`, [`GENESIS`] for the first) under it.
pub fn link(
    keys: &Keyring,
    seq: u64,
    prev: &str,
    record: Map<String, Value>,
) -> Result<Map<String, Value>> {
    let tip = Tip {
        seq,
        prev: prev.to_string(),
        keyed_from: 0,
        prefix_sha256: None,
    };
    chain(keys, tip, vec![record])?
        .records
        .pop()
        .ok_or_else(|| Error::internal("chain wrote nothing"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chain::Verifier;

    fn rec(n: u64) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("n".into(), Value::from(n));
        m
    }

    #[test]
    fn batched_chain_is_byte_identical_to_one_by_one() {
        let dir = tempfile::tempdir().unwrap();
        let keys = Keyring::open(dir.path()).unwrap();
        let (a, b) = (dir.path().join("a.jsonl"), dir.path().join("b.jsonl"));
        for n in 0..5 {
            append(&keys, &a, rec(n)).unwrap();
        }
        append(&keys, &b, rec(0)).unwrap();
        let written = append_batch(&keys, &b, (1..5).map(rec).collect()).unwrap();
        assert_eq!(written.len(), 4);
        assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
        let v = Verifier::for_home(dir.path()).unwrap();
        let r = v.verify(&b).unwrap();
        assert!(r.ok && r.integrity == "keyed" && r.verified == 5, "{r:?}");
        assert!(append_batch(&keys, &b, Vec::new()).unwrap().is_empty());
    }

    /// Threads of one process (serve's workers) share the fdatasyncs of one log and the
    /// manifest writes that anchor it: whatever the interleaving, every record is there once,
    /// in one chain, and the manifest anchors the last one, for each of two logs.
    #[test]
    fn threads_appending_at_once_share_syncs_and_anchor_every_log_at_its_last_record() {
        let dir = tempfile::tempdir().unwrap();
        let keys = std::sync::Arc::new(Keyring::open(dir.path()).unwrap());
        let logs = [dir.path().join("a.jsonl"), dir.path().join("b.jsonl")];
        for log in &logs {
            append(&keys, log, rec(0)).unwrap();
        }
        let (threads, each) = (8u64, 40u64);
        std::thread::scope(|s| {
            for t in 0..threads {
                let (keys, logs) = (keys.clone(), &logs);
                s.spawn(move || {
                    for i in 0..each {
                        let log = &logs[((t + i) % 2) as usize];
                        append(&keys, log, rec(1 + t * each + i)).unwrap();
                    }
                });
            }
        });
        let manifest = keys.read_manifest().unwrap().unwrap();
        let v = Verifier::for_home(dir.path()).unwrap();
        let mut seen = std::collections::HashSet::new();
        for log in &logs {
            let r = v.verify(log).unwrap();
            assert!(r.ok && r.unanchored == 0, "{r:?}");
            let lines = store::read_jsonl(log).unwrap().records;
            assert_eq!(manifest.files[&keys.rel(log)].seq, lines.len() as u64 - 1);
            for (_, l) in lines {
                seen.insert(l["n"].as_u64().unwrap());
            }
        }
        assert_eq!(
            seen.len() as u64,
            1 + threads * each,
            "a record went missing"
        );
    }
}
