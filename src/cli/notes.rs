//! `bob notes extract|apply`: the NOTES patch protocol (seed 000 §2) as two pipeline stages.

use super::Ctx;
use super::output::read_input;
use crate::checkpoint;
use crate::contracts::{NotesPatch, TraceEvent};
use crate::error::{Error, Result};
use crate::home::Home;
use crate::notes::{self, Actor, ApplyReport, CondenseRequest};
use serde::Serialize;
use serde_json::{Value, json};
use std::path::PathBuf;

#[derive(Debug, clap::Subcommand)]
pub enum Args {
    /// Remove every NOTES_JSON block from assistant text and parse the patches
    ///
    /// Reads assistant text on stdin (or --input FILE); prints {patch, visible_text, errors,
    /// blocks}. Several blocks merge in order; a malformed or unterminated block is removed,
    /// reported in `errors` (invalid.request) and never applied. With --session, malformed
    /// blocks are also traced (kind notes_patch). Exits 0 even when blocks were malformed.
    Extract(ExtractArgs),
    /// Apply a NOTES patch to a session's checkpoint (bumps the revision)
    ///
    /// Input: a bare NOTES payload, a seed 004 NoteFrames object, or assistant text holding
    /// NOTES_JSON blocks. A bare payload that is not valid JSON or has a wrong shape is
    /// invalid.request (exit 2) and nothing is written; malformed blocks inside assistant text
    /// are reported in `errors` while the well-formed ones apply. Unknown payload keys are
    /// ignored and listed in `ignored_keys`. Text with no block changes nothing.
    ///
    /// A model-originated patch (the default actor) may request capabilities but never grant
    /// them: `grant_permission:` actions are refused and listed in `refused`.
    Apply(ApplyArgs),
}

#[derive(Debug, clap::Args)]
pub struct ExtractArgs {
    /// Trace malformed blocks to this session's trace log
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
    /// Read the input from FILE instead of stdin
    #[arg(long, value_name = "FILE")]
    pub input: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ActorArg {
    /// The patch comes from a model: it may request, never grant, capabilities
    Model,
    /// The patch comes from a human: grant_permission actions take effect
    Human,
}

#[derive(Debug, clap::Args)]
pub struct ApplyArgs {
    /// Session id (letters, digits, . _ - : @)
    #[arg(long, value_name = "ID")]
    pub session: String,
    /// Who wrote the patch
    #[arg(long, value_enum, default_value = "model")]
    pub actor: ActorArg,
    /// Fail with conflict (exit 5) unless the stored revision is N (0 = no checkpoint yet)
    #[arg(long, value_name = "N")]
    pub expect_revision: Option<u64>,
    /// Read the input from FILE instead of stdin
    #[arg(long, value_name = "FILE")]
    pub input: Option<PathBuf>,
}

pub fn run(args: Args, ctx: &Ctx) -> Result<()> {
    match args {
        Args::Extract(a) => extract(a, ctx),
        Args::Apply(a) => apply(a, ctx),
    }
}

fn extract(a: ExtractArgs, ctx: &Ctx) -> Result<()> {
    if let Some(s) = &a.session {
        ctx.home.trace_path(s)?;
    }
    let text = read_input(a.input.as_deref())?;
    let mut x = notes::extract(&text);
    if let Some(s) = &a.session {
        for e in &x.errors {
            if let Err(te) = trace(&ctx.home, s, "notes_patch", json!({ "error": e })) {
                x.errors.push(te);
                break;
            }
        }
    }
    ctx.out.doc(&x)
}

/// Where the patch came from and what was wrong with the input on the way.
struct Found {
    patch: Option<NotesPatch>,
    ignored_keys: Vec<String>,
    errors: Vec<Error>,
}

fn find_patch(text: &str) -> Result<Found> {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Err(Error::invalid(
            "notes: no input (expected a NOTES payload or assistant text on stdin)",
        ));
    }
    let looks_json = trimmed.starts_with('{') || trimmed.starts_with('[');
    if looks_json && let Ok(value) = serde_json::from_str::<Value>(trimmed) {
        let p = notes::parse_patch(&value)?;
        return Ok(Found {
            patch: Some(p.patch),
            ignored_keys: p.ignored_keys,
            errors: Vec::new(),
        });
    }
    if text.contains(notes::BEGIN_MARKER) || text.contains(notes::END_MARKER) {
        let x = notes::extract(text);
        return Ok(Found {
            patch: x.patch,
            ignored_keys: x.ignored_keys,
            errors: x.errors,
        });
    }
    if looks_json {
        // Not JSON after all: report the parser's error.
        notes::parse_patch_text(trimmed)?;
    }
    Ok(Found {
        patch: None,
        ignored_keys: Vec::new(),
        errors: Vec::new(),
    })
}

#[derive(Serialize)]
struct CondenseOutcome {
    action: CondenseRequest,
    status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    dropped: Option<usize>,
}

#[derive(Serialize)]
struct ApplyOutput {
    session_id: String,
    revision: u64,
    /// Whether the checkpoint was written (false when the input held no patch).
    written: bool,
    #[serde(flatten)]
    report: ApplyReport,
    #[serde(skip_serializing_if = "Option::is_none")]
    condensed: Option<CondenseOutcome>,
    errors: Vec<Error>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    warnings: Vec<Error>,
}

fn apply(a: ApplyArgs, ctx: &Ctx) -> Result<()> {
    let home = &ctx.home;
    home.checkpoint_path(&a.session)?;
    let actor = match a.actor {
        ActorArg::Model => Actor::Model,
        ActorArg::Human => Actor::Human,
    };
    let text = read_input(a.input.as_deref())?;
    let found = find_patch(&text)?;
    let mut warnings = Vec::new();
    for e in &found.errors {
        if let Err(te) = trace(home, &a.session, "notes_patch", json!({ "error": e })) {
            warnings.push(te);
        }
    }
    let Some(patch) = found.patch else {
        let cp = checkpoint::load(home, &a.session)?;
        if let Some(expected) = a.expect_revision
            && expected != cp.revision
        {
            return Err(Error::conflict(format!(
                "checkpoint of session {:?} is at revision {}, not {expected}",
                a.session, cp.revision
            ))
            .with("expected", expected)
            .with("actual", cp.revision));
        }
        return ctx.out.doc(&ApplyOutput {
            session_id: a.session,
            revision: cp.revision,
            written: false,
            report: ApplyReport {
                ignored_keys: found.ignored_keys,
                ..ApplyReport::default()
            },
            condensed: None,
            errors: found.errors,
            warnings,
        });
    };
    let (cp, (mut report, condensed)) =
        checkpoint::update(home, &a.session, a.expect_revision, |cp| {
            let report = notes::apply(&mut cp.state, &patch, actor);
            let condensed = report.condense.map(|action| run_condense(cp, action));
            Ok((report, condensed))
        })?;
    report.ignored_keys = found.ignored_keys;
    let mut traced = vec![(
        "notes_patch",
        json!({
            "revision": cp.revision,
            "actor": actor,
            "patch": patch,
            "applied": report.applied,
            "ignored_keys": report.ignored_keys,
        }),
    )];
    if patch.actions.as_ref().is_some_and(|v| !v.is_empty()) {
        traced.push((
            "actions",
            json!({
                "revision": cp.revision,
                "actor": actor,
                "actions": report.actions,
                "ignored_actions": report.ignored_actions,
                "refused": report.refused,
                "requested": report.requested,
                "granted": report.granted,
                "condense": condensed,
            }),
        ));
    }
    for (kind, data) in traced {
        if let Err(te) = trace(home, &a.session, kind, data) {
            warnings.push(te);
        }
    }
    ctx.out.doc(&ApplyOutput {
        session_id: cp.session_id,
        revision: cp.revision,
        written: true,
        report,
        condensed,
        errors: found.errors,
        warnings,
    })
}

/// Runs a requested condensation on the checkpoint's recent messages.
fn run_condense(
    _cp: &mut crate::contracts::Checkpoint,
    action: CondenseRequest,
) -> CondenseOutcome {
    // `crate::condense` has not landed yet: hand the request back to the caller.
    CondenseOutcome {
        action,
        status: "deferred",
        dropped: None,
    }
}

/// Appends one trace event. Swap for `crate::trace::emit` once it lands.
fn trace(home: &Home, session_id: &str, kind: &str, data: Value) -> Result<()> {
    let ts = crate::clock::unix_f64(crate::clock::now()?);
    let event = TraceEvent {
        ts,
        kind: kind.to_string(),
        data,
    };
    crate::store::append_jsonl(&home.trace_path(session_id)?, &event)
}
