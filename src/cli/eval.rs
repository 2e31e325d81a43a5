//! `bob eval`: run the integrity suites (the Spectator test suite) against a backend and report.

use super::Ctx;
use crate::backend::Overrides;
use crate::error::{Error, Result};
use crate::eval::{BackendSpec, RunOptions, case, metrics, runner, suite};
use crate::turn::Profile;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;

/// Run the integrity suites (the Spectator test suite) against a backend and report
#[derive(Debug, clap::Subcommand)]
pub enum Args {
    Run(Box<RunArgs>),
    /// List the cases (built-in and --cases DIR) as JSON Lines: {id, suite, kind, title}
    List(ListArgs),
}

/// Run the cases through the real turn pipeline, each in a fresh temporary home, and score them
///
/// Suites shipped with bob: scaffold (A-series leakage), injection, tools (hallucination),
/// temporal (date and nonce), history (history as data), identity (identity and creator),
/// override (B08 "potato": run and recorded as deferred, never a failure). --cases DIR adds
/// every DIR/*.jsonl (format: docs/eval.md).
///
/// Backends: adversarial (built in: does the worst a model could on every case; offline),
/// replay (each case's reference script; offline), replay:FILE (one script for every case),
/// openai (the configured endpoint) or an http(s) URL of an OpenAI-compatible endpoint (with
/// --model and --api-key-env as for `bob turn`).
///
/// Output: stdout gets one JSON summary {backend, profile, cases, runs, metrics, suites,
/// thresholds, ok, elapsed_ms}; one JSON line per case run goes to --out FILE, and to stderr
/// unless stderr is a terminal (there a progress bar is drawn instead). --junit writes JUnit
/// XML, --report a self-contained HTML page.
///
/// Metrics (AgentDojo's): benign_utility, utility_under_attack, targeted_asr; bob's guarded
/// counts ungranted_side_effects, scaffold_leaks, self_grants (0 whatever the model).
///
/// Exit status: 0 when every threshold holds (failing cases alone do not change it), 8
/// (eval.threshold) when a --fail-under threshold fails, 2 for bad flags or case files.
#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// Run only these suites (repeatable) [default: all]
    #[arg(long = "suite", value_name = "NAME")]
    pub suites: Vec<String>,
    /// adversarial, replay, replay:FILE, openai, or an OpenAI-compatible base URL
    #[arg(long, default_value = "adversarial", value_name = "SPEC")]
    pub backend: String,
    /// Pipeline profile the turns run with
    #[arg(long, default_value = "bob", value_parser = ["bob", "spectator", "solo", "panda"])]
    pub profile: String,
    /// Also load every *.jsonl case file of DIR
    #[arg(long, value_name = "DIR")]
    pub cases: Option<PathBuf>,
    /// Run each case N times (nonce seeds seed, seed+1, …)
    #[arg(long, default_value_t = 1, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=100))]
    pub repeat: u32,
    /// Seed of the turns' nonces
    #[arg(long, default_value_t = 1, value_name = "N")]
    pub seed: u64,
    /// Cases run at once [default: the number of cores]
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
    /// Fail (exit 8) when METRIC is under VALUE (benign_utility, utility_under_attack,
    /// pass_rate) or over it (targeted_asr, ungranted_side_effects, scaffold_leaks,
    /// self_grants); repeatable
    #[arg(long = "fail-under", value_name = "METRIC=VALUE")]
    pub fail_under: Vec<String>,
    /// Write one JSON line per case run to FILE
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Write JUnit XML to FILE
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Write a self-contained HTML report to FILE
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// Model id (URL and openai backends)
    #[arg(long)]
    pub model: Option<String>,
    /// Name of the environment variable holding the API key (URL and openai backends)
    #[arg(long, value_name = "VAR")]
    pub api_key_env: Option<String>,
    /// Read timeout in seconds (URL and openai backends)
    #[arg(long, value_name = "SECS")]
    pub timeout: Option<f64>,
}

#[derive(Debug, clap::Args)]
pub struct ListArgs {
    /// Also load every *.jsonl case file of DIR
    #[arg(long, value_name = "DIR")]
    pub cases: Option<PathBuf>,
    /// Only these suites (repeatable)
    #[arg(long = "suite", value_name = "NAME")]
    pub suites: Vec<String>,
}

/// One row of `bob eval list`.
#[derive(serde::Serialize)]
struct CaseListed<'a> {
    id: &'a str,
    suite: &'a str,
    kind: case::Kind,
    title: &'a str,
}

pub fn run(args: Args, ctx: &Ctx) -> Result<()> {
    match args {
        Args::Run(a) => run_cases(*a, ctx),
        Args::List(a) => {
            let cases = suite::select(case::load(a.cases.as_deref())?, &a.suites)?;
            let rows: Vec<_> = cases
                .iter()
                .map(|c| CaseListed {
                    id: &c.id,
                    suite: &c.suite,
                    kind: c.kind,
                    title: &c.title,
                })
                .collect();
            ctx.out.rows(&rows)
        }
    }
}

fn backend_spec(a: &RunArgs) -> Result<BackendSpec> {
    let spec = a.backend.trim();
    let overrides = |base_url: Option<String>| Overrides {
        base_url,
        model: a.model.clone(),
        api_key_env: a.api_key_env.clone(),
        timeout_s: a.timeout,
        ..Overrides::default()
    };
    Ok(match spec {
        "adversarial" => BackendSpec::Adversarial,
        "replay" => BackendSpec::Reference,
        "openai" => BackendSpec::OpenAi(overrides(None)),
        s if s.starts_with("replay:") => {
            let p = PathBuf::from(&s["replay:".len()..]);
            if !p.is_file() {
                return Err(Error::invalid(format!(
                    "--backend {s}: {} is not a file",
                    p.display()
                )));
            }
            BackendSpec::ReplayFile(p)
        }
        s if s.starts_with("http://") || s.starts_with("https://") => {
            url::Url::parse(s).map_err(|e| Error::invalid(format!("--backend {s:?}: {e}")))?;
            BackendSpec::OpenAi(overrides(Some(s.to_string())))
        }
        other => {
            return Err(Error::invalid(format!(
                "unknown eval backend {other:?}: use adversarial, replay, replay:FILE, openai or an http(s) URL"
            )));
        }
    })
}

fn run_cases(a: RunArgs, ctx: &Ctx) -> Result<()> {
    let thresholds = a
        .fail_under
        .iter()
        .map(|t| metrics::parse_threshold(t))
        .collect::<Result<Vec<_>>>()?;
    let profile = Profile::parse(&a.profile)
        .ok_or_else(|| Error::invalid(format!("unknown profile {:?}", a.profile)))?;
    let backend = backend_spec(&a)?;
    let cases = suite::select(case::load(a.cases.as_deref())?, &a.suites)?;
    let jobs = a.jobs.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(std::num::NonZeroUsize::get)
            .unwrap_or(1)
    });
    let total = cases.len() as u64 * u64::from(a.repeat);
    let req = suite::Request {
        cases,
        opts: RunOptions {
            backend,
            profile,
            jobs,
            repeat: a.repeat,
            seed: a.seed,
            flags: crate::settings::Flags {
                home: None,
                now: crate::clock::now().ok().map(crate::clock::rfc3339),
                ..Default::default()
            },
            // The environment captured at start-up, less the home: each case has its own.
            env: ctx
                .settings
                .captured_env()
                .filter(|(k, _)| *k != "BOB_HOME")
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        },
        thresholds,
        out: a.out,
        junit: a.junit,
        report: a.report,
    };
    let bar = ctx.out.progress(Some(total), "bob eval");
    let lines_to_stderr = !bar.is_visible() && !std::io::stderr().is_terminal();
    let on_done = |r: &runner::CaseResult| {
        if lines_to_stderr {
            let line = serde_json::to_string(r).unwrap_or_default();
            let _ = writeln!(std::io::stderr().lock(), "{line}");
        }
        if r.status == "fail" || r.status == "error" {
            bar.message(&format!("last failure: {}", r.id));
        }
        bar.inc(1);
    };
    let summary = suite::run(&req, &on_done);
    drop(bar);
    let summary = summary?;
    ctx.out.doc(&summary)?;
    summary.threshold_error().map_or(Ok(()), Err)
}
