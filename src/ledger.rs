//! Reading and keeping the hash-chained logs, for `bob ledger` and anything else that asks:
//! verify logs against the home's key, manifest and a kept anchor; list a log's records through
//! a [`Filter`]; rekey the home as an audited human act. The chain itself is [`crate::chain`].
//! With `database.url` set, the shared store's chains are verified and shown too ([`pg`]), and
//! the approval ledger shown by default is the database's; their heads are anchored outside
//! the database, in the home ([`shared_anchor`]), so deleting their newest rows is found.

pub mod pg;
pub mod shared_anchor;
pub mod shared_rekey;

use crate::chain::{self, ChainReport};
use crate::error::{Error, Result};
use crate::home::Home;
use crate::store::{self, BadLine};
use chrono::{DateTime, Utc};
use serde_json::Value;
use std::path::PathBuf;

/// Verifies `files` (every chained log of the home when empty), with `anchor` (the bytes of a
/// statement `bob ledger anchor` printed) as the kept anchor when given; `not_found` when the
/// home has no chained log. Returns one report per file, in order.
pub fn verify(
    home: &Home,
    files: Vec<PathBuf>,
    allow_legacy: bool,
    anchor: Option<&[u8]>,
) -> Result<Vec<ChainReport>> {
    let mut verifier = chain::Verifier::for_home(home.root())?.allow_legacy(allow_legacy);
    if let Some(bytes) = anchor {
        verifier = verifier.with_anchor(chain::read_anchor(home.root(), bytes)?);
    }
    // Every log: the home's, and every chain in the shared database when `database.url` is
    // set (the approval ledger, then each agent's audit events).
    let mut shared = Vec::new();
    if files.is_empty()
        && let Some(db) = crate::db::shared()?
    {
        shared.extend(crate::memory::pg::verify_ledger(db, home.root())?);
        shared.extend(crate::audit::pg::verify(db, home.root())?);
        // The database's chains against the anchor given, else the one the home keeps: the
        // rows alone cannot show that their newest were deleted.
        let kept = match anchor {
            Some(bytes) => Some(chain::read_anchor(home.root(), bytes)?),
            None => shared_anchor::kept(home)?,
        };
        if let Some(a) = kept.filter(|a| !a.shared.is_empty())
            && let Some(keys) = chain::Keyring::load(home.root())?
        {
            shared_anchor::check(db, &keys, &a, &mut shared)?;
        }
    }
    let files = if files.is_empty() {
        verifier.all_logs(home.root())
    } else {
        files
    };
    if files.is_empty() && shared.is_empty() {
        return Err(Error::not_found(format!(
            "no hash-chained logs under {} (memory_approvals.jsonl, audit/)",
            home.root().display()
        )));
    }
    let mut reports: Vec<ChainReport> = files
        .iter()
        .map(|f| verifier.verify(f))
        .collect::<Result<_>>()?;
    reports.extend(shared);
    Ok(reports)
}

/// The records of the log `file` that `filter` keeps, the last `limit` of them when given,
/// and the damaged lines the log holds (reported, never parsed), with the log's name as
/// shown. `file` is a file, or a chain of the shared store as `bob ledger verify` names it
/// (`postgres:memory_ledger`, `postgres:audit_events/<agent_id>`); by default the approval
/// ledger: the shared store's when `database.url` is set, else the home's file. `not_found`
/// when it does not exist.
pub fn show(
    home: &Home,
    file: Option<PathBuf>,
    filter: &Filter,
    limit: Option<usize>,
) -> Result<(String, Vec<Value>, Vec<BadLine>)> {
    let shared_name = match &file {
        None => crate::db::shared()?.map(|_| crate::memory::pg::LEDGER_NAME.to_string()),
        Some(f) => f
            .to_str()
            .filter(|f| f.starts_with("postgres:"))
            .map(str::to_string),
    };
    let (name, log) = match shared_name {
        Some(name) => {
            let db = crate::db::shared()?.ok_or_else(|| {
                Error::invalid(format!(
                    "{name} is a chain of the shared store, and {} is not set",
                    crate::db::SETTING
                ))
                .with("setting", crate::db::SETTING)
            })?;
            let log = pg::read(db, &name)?;
            (name, log)
        }
        None => {
            let path = file.unwrap_or_else(|| home.ledger_path());
            if !path.exists() {
                return Err(Error::not_found(format!(
                    "{} does not exist",
                    path.display()
                )));
            }
            (path.display().to_string(), store::read_jsonl(&path)?)
        }
    };
    let mut rows: Vec<Value> = log
        .records
        .into_iter()
        .map(|(_, v)| v)
        .filter(|v| filter.matches(v))
        .collect();
    if let Some(n) = limit {
        rows.drain(..rows.len().saturating_sub(n));
    }
    Ok((name, rows, log.bad))
}

/// The anchor statement of the home (`bob ledger anchor`); on the shared store it signs the
/// database's chain heads in too and is kept in the home ([`shared_anchor`]).
pub fn anchor(home: &Home) -> Result<chain::Anchor> {
    match crate::db::shared()? {
        Some(db) => shared_anchor::anchor(home, db),
        None => chain::anchor_statement(home.root()),
    }
}

/// What `bob ledger rekey` did: the home's new key epoch, or the shared store's.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(untagged)]
pub enum Rekeyed {
    Home(chain::Rekeyed),
    Shared(shared_rekey::SharedRekeyed),
}

/// Rekeys the home's chains ([`chain::rekey`]), then records it as a human act under the new
/// key (the human acts' log cannot take the record before the rekey that makes it writable).
///
/// With `database.url` set it rotates the key of the database's chains instead
/// ([`shared_rekey`]): a new key epoch every node follows; the nodes' key files stay as they
/// are.
pub fn rekey(home: &Home) -> Result<Rekeyed> {
    if let Some(db) = crate::db::shared()? {
        return shared_rekey::rekey(home, db).map(Rekeyed::Shared);
    }
    let done = chain::rekey(home.root())?;
    crate::audit::human_act(home, &done)?;
    Ok(Rekeyed::Home(done))
}

/// The record filters of `bob ledger show` (every given one must match).
pub struct Filter {
    pub kinds: Vec<String>,
    pub candidate: Option<String>,
    pub memory: Option<String>,
    pub user: Option<String>,
    pub actor: Option<String>,
    pub since: Option<DateTime<Utc>>,
    pub until: Option<DateTime<Utc>>,
}

impl Filter {
    pub fn matches(&self, v: &Value) -> bool {
        let field = |k: &str| v.get(k).and_then(Value::as_str);
        let listed = |k: &str, want: &str| {
            v.get("records")
                .and_then(Value::as_array)
                .is_some_and(|rs| {
                    rs.iter()
                        .any(|r| r.get(k).and_then(Value::as_str) == Some(want))
                })
        };
        if !self.kinds.is_empty() {
            let kind = field("kind").unwrap_or_default();
            let decision = field("decision").unwrap_or_default();
            let ok = self.kinds.iter().any(|k| match k.as_str() {
                "approve" | "edit" | "reject" => kind == "decision" && decision == k,
                other => kind == other,
            });
            if !ok {
                return false;
            }
        }
        if let Some(c) = &self.candidate
            && field("candidate_id") != Some(c.as_str())
        {
            return false;
        }
        if let Some(m) = &self.memory
            && field("memory_id") != Some(m.as_str())
            && !listed("id", m)
        {
            return false;
        }
        if let Some(u) = &self.user
            && field("user") != Some(u.as_str())
            && !listed("user", u)
        {
            return false;
        }
        if let Some(a) = &self.actor
            && field("actor") != Some(a.as_str())
        {
            return false;
        }
        if self.since.is_some() || self.until.is_some() {
            // A record without a readable `ts` cannot be placed in time: it is left out.
            let Some(ts) = field("ts").and_then(|t| crate::clock::parse_rfc3339(t).ok()) else {
                return false;
            };
            if self.since.is_some_and(|s| ts < s) || self.until.is_some_and(|u| ts >= u) {
                return false;
            }
        }
        true
    }
}
