//! `bob ledger verify`: one log checked against the home's key, its manifest and a kept
//! anchor statement; and a chain kept outside a file (the shared store's rows) checked record
//! by record.

use super::anchor::{Anchor, Head};
use super::keyring::{Keyring, key_missing};
use super::manifest::{
    Entry, GENESIS, Manifest, RECORD_KEY_FIELD, absolute, discover, peek_manifest, plain_hash,
    prefix_end,
};
use super::report::ChainReport;
use crate::error::{Error, Result};
use crate::store;
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn head_path(path: &Path) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(".head");
    PathBuf::from(s)
}

/// How a log is named relative to a home (absolute when outside it).
fn rel_to(root: &Path, path: &Path) -> String {
    let abs = absolute(path);
    match abs.strip_prefix(root) {
        Ok(r) => r.to_string_lossy().into_owned(),
        Err(_) => abs.to_string_lossy().into_owned(),
    }
}

/// What a verification knows about the home: its key and authenticated manifest, if any.
#[derive(Debug)]
pub struct Verifier {
    root: PathBuf,
    keys: Option<Keyring>,
    manifest: Option<Manifest>,
    /// Why the manifest could not be used (forged, missing, the key missing or another
    /// one), reported on every file.
    manifest_error: Option<String>,
    /// Logs an unauthenticated manifest names (still verified, so none goes unreported).
    listed: Vec<PathBuf>,
    /// The retired key of each earlier epoch (`None`: the key was missing at the rekey).
    retired: BTreeMap<String, (u64, Option<Keyring>)>,
    allow_legacy: bool,
    anchor: Option<Anchor>,
}

/// How one record was checked.
enum Checked {
    Key,
    Retired(u64),
    Legacy,
    Unverifiable(Option<u64>),
}

impl Verifier {
    /// Loads the home's key and manifest (creating nothing).
    pub fn for_home(home_root: &Path) -> Result<Verifier> {
        let root = absolute(home_root);
        let keys = Keyring::load(&root)?;
        let peeked = peek_manifest(&root)?;
        let (manifest, manifest_error) = match (&keys, &peeked) {
            (None, None) => (None, None),
            (None, Some(m)) => (None, Some(key_missing(&root, Some(&m.key_id)).message)),
            (Some(k), _) => match k.read_manifest() {
                Ok(Some(m)) => (Some(m), None),
                Ok(None) => (
                    None,
                    Some("keys/manifest.json is missing while the chain key exists".to_string()),
                ),
                Err(e) => (None, Some(e.message)),
            },
        };
        let listed = match (&manifest, &peeked) {
            (None, Some(m)) => m
                .files
                .keys()
                .map(|rel| {
                    let p = Path::new(rel);
                    if p.is_absolute() {
                        p.to_path_buf()
                    } else {
                        root.join(p)
                    }
                })
                .collect(),
            _ => Vec::new(),
        };
        let retired = manifest
            .iter()
            .flat_map(|m| &m.epochs)
            .map(|e| {
                let k = (e.key == "retired")
                    .then(|| Keyring::retired(&root, &e.key_id))
                    .flatten();
                (e.key_id.clone(), (e.epoch, k))
            })
            .collect();
        Ok(Verifier {
            root,
            keys,
            manifest,
            manifest_error,
            listed,
            retired,
            allow_legacy: false,
            anchor: None,
        })
    }

    /// Accepts records no key of the home can check (unkeyed legacy links, records of an
    /// epoch whose key was lost), still reported with a warning. Without it they fail.
    pub fn allow_legacy(mut self, allow: bool) -> Verifier {
        self.allow_legacy = allow;
        self
    }

    /// Checks every log against a kept anchor statement (see [`read_anchor`]).
    pub fn with_anchor(mut self, anchor: Anchor) -> Verifier {
        self.anchor = Some(anchor);
        self
    }

    /// Every log of the home: the ones found on disk, the ones the manifest lists, and the
    /// ones the anchor names.
    pub fn all_logs(&self, home_root: &Path) -> Vec<PathBuf> {
        let mut files = discover(home_root);
        let mut add = |p: PathBuf| {
            if !files.contains(&p) {
                files.push(p);
            }
        };
        if let Some(m) = &self.manifest {
            for rel in m.files.keys() {
                add(self.path_of(rel));
            }
        }
        for p in &self.listed {
            add(p.clone());
        }
        if let Some(a) = &self.anchor {
            for rel in a.files.keys() {
                add(self.path_of(rel));
            }
        }
        files
    }

    fn path_of(&self, rel: &str) -> PathBuf {
        let p = Path::new(rel);
        if p.is_absolute() {
            p.to_path_buf()
        } else {
            self.root.join(p)
        }
    }

    /// Checks one record of a log's prefix (before the current key's `keyed_from`), or of a
    /// home without a manifest: under the key it names when bob holds it, as a legacy link,
    /// or (for an epoch whose key the rekey recorded as missing) by its links only.
    fn check_adopted(&self, key_id: Option<&str>, body: &[u8], hash: &str) -> (bool, Checked) {
        let current = self.keys.as_ref().filter(|_| self.manifest.is_some());
        match key_id {
            Some(id) => {
                if let Some(k) = current.filter(|k| k.key_id == id) {
                    return (k.mac_ok(body, hash), Checked::Key);
                }
                match self.retired.get(id) {
                    Some((n, Some(k))) => (k.mac_ok(body, hash), Checked::Retired(*n)),
                    Some((n, None)) => (true, Checked::Unverifiable(Some(*n))),
                    None => (false, Checked::Unverifiable(None)),
                }
            }
            None => {
                if plain_hash(body) == hash {
                    return (true, Checked::Legacy);
                }
                // A keyed record written before records named their key.
                if let Some(k) = current
                    && k.mac_ok(body, hash)
                {
                    return (true, Checked::Key);
                }
                for (n, k) in self.retired.values() {
                    if let Some(k) = k
                        && k.mac_ok(body, hash)
                    {
                        return (true, Checked::Retired(*n));
                    }
                }
                match self.retired.values().find(|(_, k)| k.is_none()) {
                    Some((n, None)) => (true, Checked::Unverifiable(Some(*n))),
                    _ => (false, Checked::Legacy),
                }
            }
        }
    }

    /// Verifies one log, one check after another, each reporting into the same report (the
    /// first failure is the one reported): read the log ([`Self::read_log`]), check its place
    /// in the manifest ([`Self::check_listing`]), walk its records ([`Self::walk_records`]:
    /// links, keys, epochs, the kept anchor's head), check its end against the head the
    /// manifest or the legacy head file keeps ([`Self::check_head`]), compare it with the
    /// anchor kept outside the home ([`Self::check_kept_anchor`]), and judge the records no
    /// key of this home can check ([`Self::judge_unchecked`]).
    pub fn verify(&self, path: &Path) -> Result<ChainReport> {
        let mut report = ChainReport::new(path);
        let rel = rel_to(&self.root, path);
        let entry = self
            .manifest
            .as_ref()
            .and_then(|m| m.files.get(&rel).cloned());
        let kept = self
            .anchor
            .as_ref()
            .and_then(|a| a.files.get(&rel).cloned());
        let Some(bytes) = self.read_log(path, entry.as_ref(), kept.as_ref(), &mut report)? else {
            return Ok(report);
        };
        let contents = store::parse_jsonl(&bytes);
        let keys = self.keys.as_ref().filter(|_| self.manifest.is_some());
        let keyed_from = self.check_listing(keys, entry.as_ref(), &contents, &mut report);
        let log = Log {
            keys,
            keyed_from,
            entry: entry.as_ref(),
            kept: kept.as_ref(),
        };
        let w = self.walk_records(&contents, &log, &mut report)?;
        self.check_head(path, &bytes, &log, &w, &mut report)?;
        self.check_kept_anchor(log.kept, &w, &mut report);
        self.judge_unchecked(&w, &mut report);
        Ok(report)
    }

    /// The log's bytes; `None` (reported `missing`) when a log the manifest, the kept anchor
    /// or the listing names is gone.
    fn read_log(
        &self,
        path: &Path,
        entry: Option<&Entry>,
        kept: Option<&Head>,
        report: &mut ChainReport,
    ) -> Result<Option<Vec<u8>>> {
        match std::fs::read(path) {
            Ok(b) => Ok(Some(b)),
            Err(e)
                if e.kind() == std::io::ErrorKind::NotFound
                    && (entry.is_some()
                        || kept.is_some()
                        || self.listed.iter().any(|p| p == path)) =>
            {
                report.integrity = "missing";
                if let Some(k) = kept {
                    report.anchor = Some("behind");
                    report.fail(
                        1,
                        format!(
                            "the file is gone but the kept anchor has it at seq {} (file \
                             deleted, or the home rolled back)",
                            k.seq
                        ),
                    );
                }
                if let Some(err) = &self.manifest_error {
                    report.fail(1, err.clone());
                }
                let e = entry.map_or(0, |e| e.seq);
                report.fail(
                    1,
                    format!(
                        "the file is gone but the manifest anchors it at seq {e} (file deleted)"
                    ),
                );
                Ok(None)
            }
            Err(e) => Err(Error::io(path, e)),
        }
    }

    /// The log's place in the manifest: a manifest that could not be used fails every log; a
    /// log that holds records the authenticated manifest does not list fails. Returns the
    /// first seq the current key checks (`u64::MAX` when no key can: every record is then
    /// checked as adopted).
    fn check_listing(
        &self,
        keys: Option<&Keyring>,
        entry: Option<&Entry>,
        contents: &store::LogContents,
        report: &mut ChainReport,
    ) -> u64 {
        if let Some(err) = &self.manifest_error {
            report.fail(1, err.clone());
        }
        if keys.is_some() && entry.is_none() && !contents.records.is_empty() {
            report.fail(
                1,
                "the log is not listed in the manifest (written without the key, or its entry \
                 removed)",
            );
        }
        match (keys, entry) {
            (None, _) => u64::MAX,
            (Some(_), Some(e)) => e.keyed_from,
            (Some(_), None) => 0,
        }
    }

    /// Every record in order, until the first that fails: its links ([`Self::check_links`]),
    /// its hash under the key its epoch had ([`Self::check_key`]), the epoch it counts in
    /// ([`Self::count_epoch`]), and the kept anchor's head at its seq
    /// ([`compare_kept_head`]); then what follows the last whole record
    /// ([`check_after_last`]).
    fn walk_records(
        &self,
        contents: &store::LogContents,
        log: &Log<'_>,
        report: &mut ChainReport,
    ) -> Result<Walk> {
        let mut bad = contents.bad.iter().peekable();
        let mut w = Walk {
            prev: GENESIS.to_string(),
            next_seq: 0,
            anchored_hash: None,
            first_unchecked: None,
            missing_epochs: Vec::new(),
            records: contents.records.len(),
        };
        for (lineno, value) in &contents.records {
            let line = *lineno;
            if !report.ok {
                break;
            }
            if let Some(b) = bad.peek()
                && b.line < line
            {
                report.fail(b.line, format!("{} line: {}", b.kind, b.reason));
                break;
            }
            let Value::Object(map) = value else {
                unreachable!("parse_jsonl keeps objects only")
            };
            let mut record = map.clone();
            let Some(hash) = check_links(line, &mut record, &w, report) else {
                break;
            };
            let Some((key_id, checked)) = self.check_key(line, &record, &hash, log, &w, report)?
            else {
                break;
            };
            self.count_epoch(line, key_id, checked, &mut w, report);
            if log.entry.is_some_and(|e| e.seq == w.next_seq) {
                w.anchored_hash = Some(hash.clone());
            }
            if !compare_kept_head(line, log.kept, w.next_seq, &hash, report) {
                break;
            }
            w.prev = hash;
            w.next_seq += 1;
            report.verified += 1;
        }
        check_after_last(bad.next(), report);
        Ok(w)
    }

    /// The record's hash under the key its seq falls in: the current key from the manifest's
    /// `keyed_from` on (a record naming another key fails), else the key its epoch had
    /// ([`Self::check_adopted`]). Returns the key the record names and how it was checked, or
    /// `None` when it failed.
    fn check_key(
        &self,
        line: usize,
        record: &Map<String, Value>,
        hash: &str,
        log: &Log<'_>,
        w: &Walk,
        report: &mut ChainReport,
    ) -> Result<Option<(Option<String>, Checked)>> {
        let key_id = record
            .get(RECORD_KEY_FIELD)
            .and_then(Value::as_str)
            .map(str::to_string);
        let body = serde_json::to_vec(record).map_err(|e| Error::internal(e.to_string()))?;
        let (good, checked) = match log.keys {
            Some(k) if w.next_seq >= log.keyed_from => {
                if let Some(id) = key_id.as_deref().filter(|id| *id != k.key_id) {
                    report.fail(
                        line,
                        format!(
                            "the record names key {id}, not the home's key {} (written under \
                             another key)",
                            k.key_id
                        ),
                    );
                    return Ok(None);
                }
                (k.mac_ok(&body, hash), Checked::Key)
            }
            _ => self.check_adopted(key_id.as_deref(), &body, hash),
        };
        if good {
            return Ok(Some((key_id, checked)));
        }
        report.fail(
            line,
            match checked {
                Checked::Key => "hash does not match the record under the home's key (line \
                                 edited, or chain recomputed without the key)"
                    .to_string(),
                Checked::Retired(n) => format!(
                    "hash does not match the record under the retired key of epoch {n} (line \
                     edited)"
                ),
                Checked::Unverifiable(_) => format!(
                    "the record names key {}, which this home neither holds nor retired \
                     (written under another key)",
                    key_id.as_deref().unwrap_or("?")
                ),
                Checked::Legacy if log.keys.is_none() && key_id.is_some() => {
                    "the record is keyed but the home has no key to check it".to_string()
                }
                Checked::Legacy => {
                    "hash does not match the record's content (line edited)".to_string()
                }
            },
        );
        Ok(None)
    }

    /// Counts a record that verified in its key epoch (the report's `epochs` runs and its
    /// per-kind counts); a record no key of this home checked marks where such records start,
    /// and names its epoch for the warning.
    fn count_epoch(
        &self,
        line: usize,
        key_id: Option<String>,
        checked: Checked,
        w: &mut Walk,
        report: &mut ChainReport,
    ) {
        let epoch_of = |id: &str| self.retired.get(id).map(|(n, _)| *n);
        let current_epoch = self.manifest.as_ref().map(Manifest::epoch);
        match checked {
            Checked::Key => report.note(line, current_epoch, key_id.as_deref(), "key"),
            Checked::Retired(n) => {
                report.retired_key_records += 1;
                report.note(line, Some(n), key_id.as_deref(), "retired_key");
            }
            Checked::Legacy => {
                report.legacy_records += 1;
                w.first_unchecked.get_or_insert(line);
                report.note(line, None, None, "sha256");
            }
            Checked::Unverifiable(n) => {
                report.unverifiable += 1;
                w.first_unchecked.get_or_insert(line);
                let n = n.or_else(|| key_id.as_deref().and_then(epoch_of));
                let label = match (n, &key_id) {
                    (Some(n), Some(id)) => format!("epoch {n} (key {id})"),
                    (Some(n), None) => format!("epoch {n}"),
                    (None, Some(id)) => format!("key {id}"),
                    (None, None) => "an unknown key".to_string(),
                };
                if !w.missing_epochs.contains(&label) {
                    w.missing_epochs.push(label);
                }
                report.note(line, n, key_id.as_deref(), "links_only");
            }
        }
    }

    /// The log's end against the head kept for it: the manifest's entry for a log under the
    /// home's key ([`check_manifest_head`]), the `.head` side file for a legacy log
    /// ([`check_legacy_head`]); sets the log's `integrity`.
    fn check_head(
        &self,
        path: &Path,
        bytes: &[u8],
        log: &Log<'_>,
        w: &Walk,
        report: &mut ChainReport,
    ) -> Result<()> {
        match (log.keys, log.entry) {
            (Some(_), Some(e)) => {
                if report.ok {
                    check_manifest_head(bytes, e, w, report);
                }
                report.integrity = if e.keyed_from > 0 { "mixed" } else { "keyed" };
            }
            (Some(_), None) => {}
            (None, _) if self.manifest_error.is_some() => report.integrity = "key_missing",
            (None, _) => {
                report.integrity = "legacy";
                if report.ok {
                    check_legacy_head(path, w, report)?;
                }
            }
        }
        Ok(())
    }

    /// The log against the anchor kept outside the home (`--anchor`): a log that ends before
    /// the seq it names rolled back (one that holds another record there failed in the walk,
    /// [`compare_kept_head`]).
    fn check_kept_anchor(&self, kept: Option<&Head>, w: &Walk, report: &mut ChainReport) {
        let (last_seq, records) = (w.last_seq(), w.records);
        if let Some(k) = kept
            && report.anchor.is_none()
        {
            if last_seq.is_none_or(|s| s < k.seq) {
                report.anchor = Some("behind");
                report.fail(
                    records + 1,
                    format!(
                        "the log ends before seq {} that the kept anchor of {} names (the home \
                         or this log rolled back, or its tail deleted)",
                        k.seq,
                        self.anchor.as_ref().map_or("", |a| a.ts.as_str())
                    ),
                );
            } else if report.ok {
                report.anchor = Some("ok");
            }
        }
    }

    /// What the records checked without this home's key amount to: warnings, and a
    /// failure unless `--allow-legacy` accepts them.
    fn judge_unchecked(&self, w: &Walk, report: &mut ChainReport) {
        if report.legacy_records > 0 {
            report.warn(if report.integrity == "legacy" {
                "unkeyed legacy chain (this home has no chain key): edits, deletions and \
                 reordering are detected, a chain recomputed from scratch is not"
                    .to_string()
            } else {
                format!(
                    "{} unkeyed legacy record(s) adopted by a rekey: checked as SHA-256 links \
                     and anchored by the keyed records after them, but a prefix recomputed \
                     before the rekey cannot be told apart",
                    report.legacy_records
                )
            });
        }
        if report.unverifiable > 0 {
            report.warn(format!(
                "{} record(s) of {} are unverifiable: that key was missing at the rekey, so \
                 their links and the bytes the rekey adopted are checked, not who wrote them",
                report.unverifiable,
                w.missing_epochs.join(", ")
            ));
        }
        if let Some(line) = w.first_unchecked
            && !self.allow_legacy
        {
            report.fail(
                line,
                "records no key of this home can check (legacy or of a lost key's epoch); \
                 `bob ledger verify --allow-legacy` accepts them, still reported",
            );
        }
    }
}

/// What one log is checked against: the home's key (when its manifest authenticated) and the
/// first seq that key checks, the manifest's entry for the log and the kept anchor's head.
struct Log<'a> {
    keys: Option<&'a Keyring>,
    keyed_from: u64,
    entry: Option<&'a Entry>,
    kept: Option<&'a Head>,
}

/// A record's links: it carries a `hash` (taken out of `record`, which is then the body the
/// hash covers), the next `seq`, and `prev` equal to the previous record's hash. Returns the
/// hash, or `None` when a link is broken.
fn check_links(
    line: usize,
    record: &mut Map<String, Value>,
    w: &Walk,
    report: &mut ChainReport,
) -> Option<String> {
    let Some(Value::String(hash)) = record.shift_remove("hash") else {
        report.fail(line, "record has no hash");
        return None;
    };
    if record.get("seq").and_then(Value::as_u64) != Some(w.next_seq) {
        report.fail(
            line,
            format!(
                "seq is not {} (line deleted, inserted or reordered)",
                w.next_seq
            ),
        );
        return None;
    }
    if record.get("prev").and_then(Value::as_str) != Some(w.prev.as_str()) {
        report.fail(
            line,
            "prev does not match the previous record's hash (line deleted or reordered)",
        );
        return None;
    }
    Some(hash)
}

/// The record at the kept anchor's seq must be the one the anchor names; `false` (reported
/// `anchor: "diverges"`) when another record sits there.
fn compare_kept_head(
    line: usize,
    kept: Option<&Head>,
    seq: u64,
    hash: &str,
    report: &mut ChainReport,
) -> bool {
    let Some(k) = kept.filter(|k| k.seq == seq && k.hash != hash) else {
        return true;
    };
    report.anchor = Some("diverges");
    report.fail(
        line,
        format!(
            "the record at seq {} differs from the kept anchor's head (the log was rewritten, or \
             the home rolled back and written again)",
            k.seq
        ),
    );
    false
}

/// What follows the last whole record of a log that verified so far: a torn last record
/// (an interrupted append) is noted, any other damaged line fails.
fn check_after_last(bad: Option<&store::BadLine>, report: &mut ChainReport) {
    if report.ok
        && let Some(b) = bad
    {
        if b.kind == "torn" {
            report.torn_line = Some(b.line);
        } else {
            report.fail(b.line, format!("{} line: {}", b.kind, b.reason));
        }
    }
}

/// A keyed log's end against the manifest's entry: it reaches the anchored seq, holds the
/// anchored hash there, and its records a rekey adopted still match the digest the manifest
/// keeps; records past the anchored head are counted `unanchored`.
fn check_manifest_head(bytes: &[u8], e: &Entry, w: &Walk, report: &mut ChainReport) {
    let (last_seq, records) = (w.last_seq(), w.records);
    if last_seq.is_none_or(|s| s < e.seq) {
        report.fail(
            records + 1,
            format!(
                "the log ends before the record seq {} the manifest anchors (tail deleted)",
                e.seq
            ),
        );
    } else if w.anchored_hash.as_deref() != Some(e.hash.as_str()) {
        report.fail(
            e.seq as usize + 1,
            "the record at the anchored seq differs from the manifest's head",
        );
    } else if let Some(want) = &e.prefix_sha256
        && prefix_end(bytes, e.keyed_from)
            .map(|end| store::sha256_hex(&bytes[..end]))
            .as_ref()
            != Some(want)
    {
        report.fail(
            1,
            format!(
                "the {} record(s) adopted by the rekey were changed since (their bytes no \
                 longer match the digest the manifest keeps)",
                e.keyed_from
            ),
        );
    } else {
        report.unanchored = last_seq.map_or(0, |s| s - e.seq);
    }
}

/// A legacy log's end against its `.head` side file, when it has one: it reaches the head's
/// seq, and holds the head's hash when it ends there.
fn check_legacy_head(path: &Path, w: &Walk, report: &mut ChainReport) -> Result<()> {
    let (last_seq, records) = (w.last_seq(), w.records);
    if let Some(head) = store::read_json::<Head>(&head_path(path))? {
        if last_seq.is_none_or(|s| s < head.seq) {
            report.fail(
                records + 1,
                format!(
                    "log ends before the anchored record seq {} (tail deleted)",
                    head.seq
                ),
            );
        } else if last_seq == Some(head.seq) && w.prev != head.hash {
            report.fail(records, "last record differs from the anchored hash");
        }
    }
    Ok(())
}

/// What walking a log's records left: the last record's hash, the next seq, the hash at the
/// manifest's anchored seq, and where records no key of this home can check start.
struct Walk {
    prev: String,
    next_seq: u64,
    anchored_hash: Option<String>,
    first_unchecked: Option<usize>,
    missing_epochs: Vec<String>,
    /// Whole records the log holds.
    records: usize,
}

impl Walk {
    fn last_seq(&self) -> Option<u64> {
        self.next_seq.checked_sub(1)
    }
}

/// Verifies a chain kept outside a file, given as its records' JSON texts in `seq` order
/// (`name` says where it lives): each record must be valid JSON, carry the next `seq`, link
/// to the previous record's `hash` and carry a `hash` that is the MAC of the rest under
/// `keys`. The report reads as a file's (`first_bad_line` is the 1-based record).
pub fn verify_records(keys: &Keyring, name: &str, records: &[String]) -> ChainReport {
    walk_records(name, records, |i, key_id, _| {
        if key_id != keys.key_id {
            return Err(format!(
                "record {i} was written under key {key_id:?}, not this node's key {} \
                 (every node of one database must share the chain key: keys.file)",
                keys.key_id
            ));
        }
        Ok(RecordKey {
            keys: keys.clone(),
            epoch: None,
            checked: "key",
            what: None,
        })
    })
}

/// The key a record of a chain kept outside a file is checked with (see [`walk_records`]).
pub(super) struct RecordKey {
    pub keys: Keyring,
    /// The key epoch the record belongs to, when the chain has epochs.
    pub epoch: Option<u64>,
    /// How the record is checked, as the report notes it (`key`, `retired_key`).
    pub checked: &'static str,
    /// What the record is, named in the failure when its hash does not match (a key epoch
    /// record, say), else a plain record.
    pub what: Option<String>,
}

/// Walks a chain kept outside a file (see [`verify_records`]): the JSON, `seq` and `prev` of
/// every record, and its hash under the key `key_for(i, key_id, record)` chooses (or the
/// failure it gives). Stops at the first bad record.
pub(super) fn walk_records(
    name: &str,
    records: &[String],
    mut key_for: impl FnMut(usize, &str, &Map<String, Value>) -> std::result::Result<RecordKey, String>,
) -> ChainReport {
    let mut report = ChainReport::new(Path::new(name));
    let mut prev = GENESIS.to_string();
    for (i, text) in records.iter().enumerate() {
        let line = i + 1;
        let mut rec: Map<String, Value> = match serde_json::from_str(text) {
            Ok(r) => r,
            Err(e) => {
                report.fail(line, format!("record {i} is not a JSON object: {e}"));
                return report;
            }
        };
        let hash = match rec.shift_remove("hash") {
            Some(Value::String(h)) => h,
            _ => {
                report.fail(line, format!("record {i} carries no hash"));
                return report;
            }
        };
        if rec.get("seq").and_then(Value::as_u64) != Some(i as u64) {
            report.fail(
                line,
                format!("record {i} carries another seq (deleted or inserted records)"),
            );
            return report;
        }
        if rec.get("prev").and_then(Value::as_str) != Some(prev.as_str()) {
            report.fail(
                line,
                format!("record {i} does not link to the record before it"),
            );
            return report;
        }
        let key_id = rec
            .get(RECORD_KEY_FIELD)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        let key = match key_for(i, &key_id, &rec) {
            Ok(k) => k,
            Err(why) => {
                report.fail(line, why);
                return report;
            }
        };
        let body = match serde_json::to_vec(&rec) {
            Ok(b) => b,
            Err(e) => {
                report.fail(line, e.to_string());
                return report;
            }
        };
        if !key.keys.mac_ok(&body, &hash) {
            report.fail(
                line,
                match &key.what {
                    None => format!("record {i}'s hash does not match its content"),
                    Some(what) => format!(
                        "record {i} ({what}) does not verify under key {key_id}: its hash \
                         does not match its content (edited, or not written with the key it \
                         names)"
                    ),
                },
            );
            return report;
        }
        report.verified += 1;
        if key.checked == "retired_key" {
            report.retired_key_records += 1;
        }
        report.note(line, key.epoch, Some(&key_id), key.checked);
        prev = hash;
    }
    report
}
