use super::Ctx;
use crate::chain;
use crate::error::{Code, Error, Result};
use crate::store;
use chrono::{DateTime, Utc};
use serde_json::Value;
use std::path::PathBuf;

/// The values of `bob ledger show --kind`.
const KINDS: [&str; 6] = ["approve", "edit", "reject", "decision", "import", "gc"];

#[derive(Debug, clap::Subcommand)]
pub enum Args {
    /// Verify keyed hash-chained logs and name the first bad line of each: every link, the
    /// home's chain key, and each log's head in keys/manifest.json (a deleted tail, a deleted
    /// day file, a chain recomputed without the key). With no FILE (or --all), verifies every
    /// chained log of the home: the approval ledger, every audit day file, and every file the
    /// manifest lists. One report line per file; exits 5 (conflict) when any fails.
    Verify {
        /// Log files to verify
        #[arg(conflicts_with = "all")]
        files: Vec<PathBuf>,
        /// Every chained log of the home (the default when no FILE is given)
        #[arg(long)]
        all: bool,
    },
    /// Print a hash-chained log's records as JSON Lines, oldest first [default: the approval
    /// ledger]. Filters combine with AND; --limit applies after them.
    Show {
        file: Option<PathBuf>,
        /// Only records of this kind: approve, edit, reject (decisions with that outcome),
        /// decision (all three), import or gc
        #[arg(long, value_parser = KINDS)]
        kind: Vec<String>,
        /// Only records about this candidate id (`candidate_id`)
        #[arg(long)]
        candidate: Option<String>,
        /// Only records about this memory id (`memory_id` of a decision, or listed in an
        /// import or gc batch)
        #[arg(long)]
        memory: Option<String>,
        /// Only records of this memory user (`user`; a gc batch matches when it lists a
        /// record of that user)
        #[arg(long)]
        user: Option<String>,
        /// Only records by this actor
        #[arg(long)]
        actor: Option<String>,
        /// Only records with `ts` at or after this RFC3339 time
        #[arg(long)]
        since: Option<String>,
        /// Only records with `ts` before this RFC3339 time
        #[arg(long)]
        until: Option<String>,
        /// Only the newest N matching records (still printed oldest first)
        #[arg(long, visible_alias = "tail")]
        limit: Option<usize>,
    },
    /// Move a torn last record (left by an interrupted append) into FILE.torn.N so appends can
    /// continue. Whole records are never touched.
    Repair { file: PathBuf },
}

pub fn run(args: Args, ctx: &Ctx) -> Result<()> {
    match args {
        Args::Verify { files, all } => {
            let verifier = chain::Verifier::for_home(ctx.home.root())?;
            let files = if files.is_empty() || all {
                verifier.all_logs(ctx.home.root())
            } else {
                files
            };
            if files.is_empty() {
                return Err(Error::not_found(format!(
                    "no hash-chained logs under {} (memory_approvals.jsonl, audit/)",
                    ctx.home.root().display()
                )));
            }
            let mut broken = 0;
            let mut reports = Vec::new();
            for f in &files {
                let r = verifier.verify(f)?;
                broken += usize::from(!r.ok);
                reports.push(r);
            }
            ctx.out.rows(&reports)?;
            if broken > 0 {
                return Err(Error::new(
                    Code::Conflict,
                    format!("{broken} of {} log(s) failed verification", files.len()),
                )
                .retryable(false));
            }
            Ok(())
        }
        Args::Show {
            file,
            kind,
            candidate,
            memory,
            user,
            actor,
            since,
            until,
            limit,
        } => {
            let filter = Filter {
                kinds: kind,
                candidate,
                memory,
                user,
                actor,
                since: since.as_deref().map(parse_time).transpose()?,
                until: until.as_deref().map(parse_time).transpose()?,
            };
            let path = file.unwrap_or_else(|| ctx.home.ledger_path());
            if !path.exists() {
                return Err(Error::not_found(format!(
                    "{} does not exist",
                    path.display()
                )));
            }
            let log = store::read_jsonl(&path)?;
            for b in &log.bad {
                let w = serde_json::json!({"warning": {"path": path.display().to_string(), "line": b.line, "kind": b.kind, "reason": b.reason}});
                eprintln!("{w}");
            }
            let mut rows: Vec<Value> = log
                .records
                .into_iter()
                .map(|(_, v)| v)
                .filter(|v| filter.matches(v))
                .collect();
            if let Some(n) = limit {
                rows.drain(..rows.len().saturating_sub(n));
            }
            ctx.out.rows(&rows)
        }
        Args::Repair { file } => {
            let side = chain::repair_torn_tail(&file)?;
            ctx.out.doc(&serde_json::json!({
                "path": file.display().to_string(),
                "repaired": side.is_some(),
                "torn_saved_to": side.map(|p| p.display().to_string()),
            }))
        }
    }
}

fn parse_time(s: &str) -> Result<DateTime<Utc>> {
    crate::clock::parse_rfc3339(s)
}

/// The record filters of `bob ledger show` (every given one must match).
struct Filter {
    kinds: Vec<String>,
    candidate: Option<String>,
    memory: Option<String>,
    user: Option<String>,
    actor: Option<String>,
    since: Option<DateTime<Utc>>,
    until: Option<DateTime<Utc>>,
}

impl Filter {
    fn matches(&self, v: &Value) -> bool {
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
