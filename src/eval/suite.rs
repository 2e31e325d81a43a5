//! One `bob eval run`: the selected cases through [`runner::run`], each result appended to the
//! `--out` log as it comes, then the metrics, the thresholds, and the JUnit/HTML files.
//!
//! The caller (the CLI) parses flags into a [`Request`] and shows progress through the
//! `on_done` callback; everything else happens here.

use super::{Case, RunOptions, metrics, report, runner};
use crate::error::{Code, Error, Result};
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;

/// What to run and where the reports go.
pub struct Request {
    pub cases: Vec<Case>,
    pub opts: RunOptions,
    /// `(metric, bound)` pairs, as [`metrics::parse_threshold`] reads them.
    pub thresholds: Vec<(String, f64)>,
    /// One JSON line per case run.
    pub out: Option<PathBuf>,
    pub junit: Option<PathBuf>,
    pub report: Option<PathBuf>,
}

/// The summary `bob eval run` prints.
#[derive(Debug, Serialize)]
pub struct Summary {
    pub backend: String,
    pub profile: &'static str,
    pub cases: usize,
    pub repeat: u32,
    pub metrics: metrics::Metrics,
    pub suites: BTreeMap<String, metrics::Metrics>,
    pub deferred: Vec<String>,
    pub thresholds: Vec<metrics::Threshold>,
    pub ok: bool,
    pub elapsed_ms: u64,
}

impl Summary {
    /// `eval.threshold` naming each threshold that failed; `None` when all held.
    pub fn threshold_error(&self) -> Option<Error> {
        if self.ok {
            return None;
        }
        let failed: Vec<String> = self
            .thresholds
            .iter()
            .filter(|t| !t.ok)
            .map(|t| {
                let value = t.value.map_or("null".into(), |v| v.to_string());
                format!("{} = {value} ({} {})", t.metric, t.kind, t.bound)
            })
            .collect();
        Some(
            Error::new(
                Code::EvalThreshold,
                format!("eval threshold not met: {}", failed.join("; ")),
            )
            .with("failed", failed),
        )
    }
}

/// The cases of `suites` (all when empty); an unknown suite name is `invalid.request`.
pub fn select(cases: Vec<Case>, suites: &[String]) -> Result<Vec<Case>> {
    for s in suites {
        if !cases.iter().any(|c| &c.suite == s) {
            let mut known: Vec<&str> = cases.iter().map(|c| c.suite.as_str()).collect();
            known.dedup();
            return Err(Error::invalid(format!(
                "no suite {s:?} (suites: {})",
                known.join(", ")
            )));
        }
    }
    Ok(cases
        .into_iter()
        .filter(|c| suites.is_empty() || suites.contains(&c.suite))
        .collect())
}

/// Runs the request; `on_done` sees each case result as it comes (after it was logged).
pub fn run(req: &Request, on_done: &(dyn Fn(&runner::CaseResult) + Sync)) -> Result<Summary> {
    let started = std::time::Instant::now();
    if req.cases.is_empty() {
        return Err(Error::invalid("no cases to run"));
    }
    if req.opts.jobs == 0 {
        return Err(Error::invalid("--jobs must be at least 1"));
    }
    let mut order: Vec<String> = Vec::new();
    for c in &req.cases {
        if !order.contains(&c.suite) {
            order.push(c.suite.clone());
        }
    }
    let out = match &req.out {
        Some(p) => Some(std::sync::Mutex::new(
            std::fs::File::create(p).map_err(|e| Error::io(p, e))?,
        )),
        None => None,
    };
    let write_err: std::sync::Mutex<Option<Error>> = std::sync::Mutex::new(None);
    let logged = |r: &runner::CaseResult| {
        if let Some(f) = &out {
            let line = serde_json::to_string(r).unwrap_or_default();
            if let Ok(mut f) = f.lock()
                && let Err(e) = writeln!(f, "{line}")
                && let Ok(mut w) = write_err.lock()
            {
                *w = Some(Error::internal(format!("writing --out: {e}")));
            }
        }
        on_done(r);
    };
    let results = runner::run(&req.cases, &req.opts, &logged)?;
    if let Some(e) = write_err.into_inner().ok().flatten() {
        return Err(e);
    }
    let overall = metrics::compute(&results);
    let suites = metrics::by_suite(&results, &order);
    let thresholds = metrics::check(&overall, &req.thresholds);
    let backend = req.opts.backend.name();
    let profile = req.opts.profile.as_str();
    if let Some(p) = &req.junit {
        let x = report::junit(&results, &order, &backend);
        std::fs::write(p, x).map_err(|e| Error::io(p, e))?;
    }
    if let Some(p) = &req.report {
        let h = report::html(&results, &overall, &suites, &order, &backend, profile);
        std::fs::write(p, h).map_err(|e| Error::io(p, e))?;
    }
    Ok(Summary {
        backend,
        profile,
        cases: req.cases.len(),
        repeat: req.opts.repeat,
        deferred: results
            .iter()
            .filter(|r| r.status == "deferred")
            .map(|r| r.id.clone())
            .collect(),
        ok: thresholds.iter().all(|t| t.ok),
        metrics: overall,
        suites,
        thresholds,
        elapsed_ms: started.elapsed().as_millis() as u64,
    })
}
