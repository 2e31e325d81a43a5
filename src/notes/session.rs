//! The NOTES patch applied to a stored session: read from an input (bare payload, NoteFrames,
//! or assistant text with markers), applied to the checkpoint under its lock as the model (who
//! may request capabilities) or a human (who may grant them: an audited human act, recorded
//! before the commit), and traced. What `bob notes apply` does, and `bob notes extract
//! --session` traces through [`trace_all`].

use super::{Actor, ApplyReport};
use crate::checkpoint;
use crate::error::{Error, Result};
use crate::home::Home;
use serde::Serialize;

/// What applying an input to a session did.
#[derive(Serialize)]
pub struct Applied {
    pub session_id: String,
    pub revision: u64,
    /// Whether the checkpoint was written (false when the input held no patch).
    pub written: bool,
    #[serde(flatten)]
    pub report: ApplyReport,
    pub errors: Vec<Error>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<Error>,
}

/// Applies the NOTES patch found in `text` to session `session` as `actor`, against
/// `expect_revision` when given (`conflict` otherwise). An input with no patch writes nothing
/// (its parse errors are traced and returned). A trace that cannot be written is a warning:
/// the checkpoint stands.
pub fn apply_to_session(
    home: &Home,
    session: &str,
    text: &str,
    actor: Actor,
    expect_revision: Option<u64>,
) -> Result<Applied> {
    let found = super::patch_from_input(text)?;
    let mut warnings = Vec::new();
    let Some(patch) = found.patch else {
        if let Err(te) = trace_errors(home, session, &found.errors) {
            warnings.push(te);
        }
        let cp = checkpoint::load(home, session)?;
        if let Some(expected) = expect_revision
            && expected != cp.revision
        {
            return Err(Error::conflict(format!(
                "checkpoint of session {:?} is at revision {}, not {expected}",
                session, cp.revision
            ))
            .with("expected", expected)
            .with("actual", cp.revision));
        }
        return Ok(Applied {
            session_id: session.to_string(),
            revision: cp.revision,
            written: false,
            report: ApplyReport {
                ignored_keys: found.ignored_keys,
                ..ApplyReport::default()
            },
            errors: found.errors,
            warnings,
        });
    };
    let (cp, mut report) = checkpoint::update(home, session, expect_revision, |cp| {
        let from = cp.revision;
        let report = super::apply_to_checkpoint(cp, &patch, actor);
        if actor == Actor::Human {
            // A human's patch (it may grant capabilities) is a human act: recorded under the
            // checkpoint's lock, before the commit, so an unrecordable act is not carried out.
            crate::audit::human_act(
                home,
                &crate::contracts::audit::NotesApplied {
                    session_id: session,
                    applied: &report.applied,
                    actions: &report.actions,
                    granted: &report.granted,
                    requested: &report.requested,
                    from_revision: from,
                    revision: from + 1,
                },
            )?;
        }
        Ok(report)
    })?;
    report.ignored_keys = found.ignored_keys;
    let traced = super::trace_events(&patch, &report, &found.errors, cp.revision, actor, None);
    if let Err(te) = traced.and_then(|lines| trace_all(home, session, &lines)) {
        warnings.push(te);
    }
    Ok(Applied {
        session_id: cp.session_id,
        revision: cp.revision,
        written: true,
        report,
        errors: found.errors,
        warnings,
    })
}

/// Appends trace events to the session's trace log with one lock and one fsync.
pub fn trace_all(home: &Home, session_id: &str, lines: &[crate::store::JsonlLine]) -> Result<()> {
    if lines.is_empty() {
        return Ok(());
    }
    crate::store::append_jsonl_batch(&home.trace_path(session_id)?, lines)
}

/// Traces a `notes_patch {error}` event per NOTES block that was not applied.
pub fn trace_errors(home: &Home, session_id: &str, errors: &[Error]) -> Result<()> {
    trace_all(home, session_id, &super::error_trace_events(errors, None)?)
}
