//! `bob ledger`: read, filter, verify, anchor and rekey the hash-chained logs.

use super::Ctx;
use crate::chain;
use crate::error::{Code, Error, Result};
use crate::ledger;
use chrono::{DateTime, Utc};
use std::path::PathBuf;

/// The values of `bob ledger show --kind`.
const KINDS: [&str; 6] = ["approve", "edit", "reject", "decision", "import", "gc"];

#[derive(Debug, clap::Subcommand)]
pub enum Args {
    /// Verify keyed hash-chained logs and name the first bad line of each: every link, the
    /// home's chain key, and each log's head in keys/manifest.json (a deleted tail, a deleted
    /// day file, a chain recomputed without the key, a missing or different key). With no FILE
    /// (or --all), verifies every chained log of the home: the approval ledger, every audit
    /// day file, and every file the manifest lists; with database.url set, every chain of the
    /// shared store too (postgres:memory_ledger, postgres:audit_events/AGENT). One report line per file; exits 5
    /// (conflict) when any fails, and when any record cannot be checked with a key the home
    /// holds (unkeyed legacy records, records of an epoch whose key was lost) unless
    /// --allow-legacy.
    Verify {
        /// Log files to verify
        #[arg(conflicts_with = "all")]
        files: Vec<PathBuf>,
        /// Every chained log of the home (the default when no FILE is given)
        #[arg(long)]
        all: bool,
        /// Accept records no key of the home can check (unkeyed legacy links, records of a
        /// key epoch whose key was missing at `bob ledger rekey`); they are still reported,
        /// with a warning
        #[arg(long)]
        allow_legacy: bool,
        /// Also check every log against an anchor statement kept from `bob ledger anchor`: a
        /// log that ends before the kept head or holds another record there fails (a
        /// rolled-back home); the anchor's own MAC must check
        #[arg(long, value_name = "FILE")]
        anchor: Option<PathBuf>,
    },
    /// Print a signed statement of every chain's head: the manifest's heads and generation,
    /// a timestamp and the key's fingerprint, under the chain key's MAC. Keep it outside the
    /// home (e.g. cron it to another host); `bob ledger verify --anchor FILE` then finds a
    /// home restored from an older copy. With database.url set it also signs the head of every
    /// chain of the database (shared) and keeps the statement in the home
    /// (keys/shared_anchor.json), which `bob ledger verify --all` then checks the database
    /// against: a chain whose newest rows were deleted fails.
    Anchor,
    /// Start a new key epoch (a human act, audited): needed when the chain key is missing or
    /// is not the key the manifest names, and for a rotation. The configured key file is used
    /// when it holds a key the manifest does not name, created when missing, replaced when it
    /// is the manifest's own key (a rotation). The previous key, when still at hand, is kept in
    /// keys/retired/ so its epoch stays verifiable; a lost key's epoch is reported as
    /// unverifiable. Every chained log is adopted as it stands now. With database.url set it
    /// rotates the key of the database's chains instead: a new key, sealed with the secrets key
    /// every node shares, and an epoch record signed by it at the end of every chain; every
    /// node signs with the new key from its next append, verifies every epoch, and the nodes'
    /// key files stay as they are.
    Rekey,
    /// Print a hash-chained log's records as JSON Lines, oldest first [default: the approval
    /// ledger, the shared store's when database.url is set]. Filters combine with AND; --limit
    /// applies after them.
    Show {
        /// The log to print: a file of the home's hash-chained logs (the approval ledger, an
        /// audit day file), or a chain of the shared store as verify names it
        /// (postgres:memory_ledger, postgres:audit_events/AGENT) [default: the approval ledger]
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
    Repair {
        /// The hash-chained log whose torn last record to move aside
        file: PathBuf,
    },
}

pub fn run(args: Args, ctx: &Ctx) -> Result<()> {
    match args {
        Args::Verify {
            files,
            all,
            allow_legacy,
            anchor,
        } => {
            let anchor = match anchor {
                Some(path) => Some(std::fs::read(&path).map_err(|e| Error::io(&path, e))?),
                None => None,
            };
            let files = if all { Vec::new() } else { files };
            let reports = ledger::verify(&ctx.home, files, allow_legacy, anchor.as_deref())?;
            let broken = reports.iter().filter(|r| !r.ok).count();
            ctx.out.rows(&reports)?;
            if broken > 0 {
                return Err(Error::new(
                    Code::Conflict,
                    format!("{broken} of {} log(s) failed verification", reports.len()),
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
            let filter = ledger::Filter {
                kinds: kind,
                candidate,
                memory,
                user,
                actor,
                since: since.as_deref().map(parse_time).transpose()?,
                until: until.as_deref().map(parse_time).transpose()?,
            };
            let (name, rows, bad) = ledger::show(&ctx.home, file, &filter, limit)?;
            for b in &bad {
                super::output::warn(super::output::DamagedLine::of(&name, b));
            }
            ctx.out.rows(&rows)
        }
        Args::Anchor => ctx.out.doc(&ledger::anchor(&ctx.home)?),
        Args::Rekey => {
            let done = ledger::rekey(&ctx.home)?;
            ctx.out.doc(&done)
        }
        Args::Repair { file } => {
            let side = chain::repair_torn_tail(&file)?;
            ctx.out.doc(&crate::contracts::TailRepaired {
                path: file.display().to_string(),
                repaired: side.is_some(),
                torn_saved_to: side.map(|p| p.display().to_string()),
            })
        }
    }
}

fn parse_time(s: &str) -> Result<DateTime<Utc>> {
    crate::clock::parse_rfc3339(s)
}
