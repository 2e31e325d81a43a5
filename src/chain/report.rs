//! What verifying one chained log found: [`ChainReport`], the records it verified by key epoch,
//! and the first line that breaks the chain.

use serde::Serialize;
use std::path::Path;

/// The result of verifying one chained log.
#[derive(Debug, Clone, Serialize)]
pub struct ChainReport {
    pub path: String,
    pub ok: bool,
    /// `keyed` (every record under the home's key), `mixed` (an adopted prefix, legacy or of
    /// an earlier key epoch, then keyed records), `legacy` (plain SHA-256 only: a recomputed
    /// chain cannot be told apart), `missing` (listed in the manifest, absent from disk) or
    /// `key_missing` (the home has a manifest but not its key: nothing can be checked).
    pub integrity: &'static str,
    /// Whole records that verified, from the start of the file.
    pub verified: u64,
    /// Of those, the records verified as legacy SHA-256 links.
    #[serde(skip_serializing_if = "is_zero")]
    pub legacy_records: u64,
    /// Of those, the records verified with the retired key of an earlier epoch.
    #[serde(skip_serializing_if = "is_zero")]
    pub retired_key_records: u64,
    /// Of those, records of an earlier epoch whose key is missing: their links (and the head
    /// the rekey anchored) are checked, their hashes cannot be.
    #[serde(skip_serializing_if = "is_zero")]
    pub unverifiable: u64,
    /// Keyed records past the manifest's head (a crash between the log's write and the
    /// manifest's update; re-anchored by the next append).
    #[serde(skip_serializing_if = "is_zero")]
    pub unanchored: u64,
    /// The verified records by key epoch, in log order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub epochs: Vec<EpochRecords>,
    /// With `--anchor`: `ok`, `behind` (the log ends before the kept head) or `diverges`
    /// (another record sits at the kept head's seq).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub anchor: Option<&'static str>,
    /// The first line that breaks the chain (1-based), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_bad_line: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// A torn last record left by an interrupted append (never counted as verified).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub torn_line: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
}

/// A run of consecutive records of one log written under one key (or none).
#[derive(Debug, Clone, Serialize)]
pub struct EpochRecords {
    /// The key epoch (absent for legacy records).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub epoch: Option<u64>,
    /// The key they were written under (absent for legacy records, and for keyed records
    /// written before records named their key).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key_id: Option<String>,
    /// The 1-based lines.
    pub first_line: usize,
    pub last_line: usize,
    /// How they were checked: `key` (the current key), `retired_key`, `sha256` (legacy
    /// links) or `links_only` (their key is missing).
    pub checked: &'static str,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl ChainReport {
    pub(super) fn new(path: &Path) -> ChainReport {
        ChainReport {
            path: path.display().to_string(),
            ok: true,
            integrity: "keyed",
            verified: 0,
            legacy_records: 0,
            retired_key_records: 0,
            unverifiable: 0,
            unanchored: 0,
            epochs: Vec::new(),
            anchor: None,
            first_bad_line: None,
            reason: None,
            torn_line: None,
            warning: None,
        }
    }

    pub(super) fn fail(&mut self, line: usize, reason: impl Into<String>) {
        if self.ok {
            self.ok = false;
            self.first_bad_line = Some(line);
            self.reason = Some(reason.into());
        }
    }

    pub(super) fn note(
        &mut self,
        line: usize,
        epoch: Option<u64>,
        key_id: Option<&str>,
        checked: &'static str,
    ) {
        if let Some(last) = self.epochs.last_mut()
            && last.checked == checked
            && last.key_id.as_deref() == key_id
            && last.last_line + 1 == line
        {
            last.last_line = line;
            return;
        }
        self.epochs.push(EpochRecords {
            epoch,
            key_id: key_id.map(str::to_string),
            first_line: line,
            last_line: line,
            checked,
        });
    }

    pub(super) fn warn(&mut self, w: String) {
        self.warning = Some(match self.warning.take() {
            Some(before) => format!("{before}; {w}"),
            None => w,
        });
    }
}
