use super::Ctx;
use crate::error::{Code, Error, Result};
use crate::store;
use std::path::{Path, PathBuf};

#[derive(Debug, clap::Subcommand)]
pub enum Args {
    /// Verify a hash-chained log and name the first bad line. With no FILE, verifies the
    /// approval ledger and every audit log under the home. Exits 5 (conflict) when a chain is
    /// broken.
    Verify {
        /// Log files to verify
        files: Vec<PathBuf>,
    },
    /// Print a hash-chained log's records as JSON Lines [default: the approval ledger]
    Show {
        file: Option<PathBuf>,
        /// Only the last N records
        #[arg(long)]
        tail: Option<usize>,
    },
    /// Move a torn last record (left by an interrupted append) into FILE.torn.N so appends can
    /// continue. Whole records are never touched.
    Repair { file: PathBuf },
}

pub fn run(args: Args, ctx: &Ctx) -> Result<()> {
    match args {
        Args::Verify { files } => {
            let files = if files.is_empty() {
                default_logs(ctx)?
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
                let r = store::verify_chain(f)?;
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
        Args::Show { file, tail } => {
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
            let skip = tail.map_or(0, |n| log.records.len().saturating_sub(n));
            let rows: Vec<_> = log.records.into_iter().skip(skip).map(|(_, v)| v).collect();
            ctx.out.rows(&rows)
        }
        Args::Repair { file } => {
            let side = store::repair_torn_tail(&file)?;
            ctx.out.doc(&serde_json::json!({
                "path": file.display().to_string(),
                "repaired": side.is_some(),
                "torn_saved_to": side.map(|p| p.display().to_string()),
            }))
        }
    }
}

/// The approval ledger and every audit log file under the home.
fn default_logs(ctx: &Ctx) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    let ledger = ctx.home.ledger_path();
    if ledger.exists() {
        files.push(ledger);
    }
    let audit = ctx.home.root().join("audit");
    collect_jsonl(&audit, &mut files)?;
    Ok(files)
}

fn collect_jsonl(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(());
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for p in paths {
        if p.is_dir() {
            collect_jsonl(&p, out)?;
        } else if p.extension().is_some_and(|e| e == "jsonl") {
            out.push(p);
        }
    }
    Ok(())
}
