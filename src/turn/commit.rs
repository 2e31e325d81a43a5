//! The commit stage, shared by every turn and by `bob turn commit`: the visible answer
//! (sanitized, recap fallback, citations checked), the checkpoint update against the revision
//! the turn started from (the exchange with its tool history, the NOTES patch, continuity,
//! condensation), the memory candidates (pending, for a human) and the short-term entry.

use super::TurnInput;
use super::mem::TurnSummary;
use super::recap;
use super::work::Work;
use crate::checkpoint;
use crate::condense::{self, Caps, Mode};
use crate::contracts::TurnRecord;
use crate::contracts::trace;
use crate::contracts::{ChatMessage, Checkpoint, MemoryCandidate, Role};
use crate::contracts::{CitationCheck, NotesOutcome};
use crate::error::{Code, Result};
use crate::notes::{self, Actor};
use crate::sanitize;

/// Most memory candidates one turn proposes (the Bob v0 runtime).
pub const MAX_MEMORY_CANDIDATES: usize = 2;

/// What every turn does after its roles (Bob v0 stages 4–5; `bob turn commit` too): the
/// visible answer, the checkpoint commit (the exchange with its tool history, the NOTES patch,
/// continuity), the memory candidates and the short-term entry.
pub(super) fn commit(
    w: &mut Work<'_>,
    input: &TurnInput,
    record: &mut TurnRecord,
    cp: &Checkpoint,
    recap: Option<&recap::Recap>,
    final_visible: &str,
) -> Result<()> {
    let opts = w.opts;
    let home = w.home;
    let sid = opts.session_id.as_str();
    let base_revision = cp.revision;
    // The visible answer, without any echo of the system prompts.
    let mut output =
        sanitize::strip_prompt_echo(&sanitize::sanitize(final_visible), &w.system_prompts);
    if let Some(r) = &recap
        && r.kind == recap::Kind::Question
        && recap::ignored(&output, r, cp)
    {
        let fallback = sanitize::sanitize(&recap::fallback(r, cp));
        w.trace.push(&trace::Recap::Fallback {
            run_id: &w.run_id,
            fallback: true,
            reason: "the answer ignored the summary",
        })?;
        if let Some(v) = record.recap.as_mut() {
            v.fallback = true;
        }
        output = fallback;
    }
    // Citations: a `[mem:id]` naming no memory retrieved this turn is removed and reported.
    let citations = super::mem::check_citations(&output, &w.retrieved);
    if !citations.cited.is_empty() || !citations.removed.is_empty() {
        w.trace.push(&trace::Citations {
            run_id: &w.run_id,
            cited: &citations.cited,
            removed: &citations.removed,
        })?;
        record.citations = Some(CitationCheck {
            cited: citations.cited.clone(),
            removed: citations.removed,
        });
        output = citations.text;
    }
    if output.trim().is_empty() {
        output = sanitize::EMPTY_OUTPUT.to_string();
    }
    w.cancel.check()?;

    // Commit the checkpoint against the revision taken at the start.
    let patch = std::mem::take(&mut w.patch);
    let user_msg = ChatMessage::new(Role::User, input.message.clone());
    let answer = ChatMessage::new(Role::Assistant, output.clone());
    let tool_history = std::mem::take(&mut w.tool_history);
    let facts = super::continuity::TurnFacts {
        request: &input.message,
        answer: &output,
        model_summary: patch.set_episode_summary.is_some(),
        model_threads: patch.add_open_loops.as_ref().is_some_and(|l| !l.is_empty()),
        incomplete: w.incomplete.is_some(),
    };
    let mut continuity = super::continuity::Source::Fallback;
    let (committed, report) =
        checkpoint::update(home, sid, Some(base_revision), |c: &mut Checkpoint| {
            // The exchange, with the turn's tool executions between the request and the
            // answer as `role:"tool"` messages (Openclawssy Option A).
            c.recent_messages.push(user_msg);
            c.recent_messages.extend(tool_history);
            c.recent_messages.push(answer);
            super::mem::add_memory_refs(&mut c.state.memory_refs, &citations.cited);
            // The same application as `bob notes apply` (with any condensation it asks for),
            // then the usual pressure condensation keeps recent_messages bounded.
            let report = if patch.is_empty() {
                notes::ApplyReport::default()
            } else {
                notes::apply_to_checkpoint(c, &patch, Actor::Model)
            };
            // Bob v0 state commit: active_context / open_threads, compact, every turn.
            continuity = super::continuity::update(&mut c.state, &facts);
            let condensed =
                condense::condense(&c.recent_messages, &Caps::default(), Mode::Pressure);
            c.recent_messages = condensed.messages;
            Ok((report, condensed.dropped.len()))
        })
        .map_err(|e| {
            if e.code == Code::Conflict {
                e.with(
                "hint",
                "another turn committed to this session first; nothing was lost, retry the turn",
            )
            } else {
                e
            }
        })?;
    let (mut report, dropped) = report;
    report.ignored_keys = std::mem::take(&mut w.notes_ignored_keys);
    record.revision = Some(committed.revision);
    let notes_value = NotesOutcome {
        applied: report.applied.clone(),
        actions: report.actions.clone(),
        requested: report.requested.clone(),
        refused: report.refused.clone(),
        ignored_actions: report.ignored_actions.clone(),
        errors: w.notes_errors.clone(),
    };
    // The trace data `bob notes apply` writes, plus the run and the pressure condensation.
    let errors = std::mem::take(&mut w.notes_error_events);
    let by = notes::ByTurn {
        run_id: &w.run_id,
        condensed_dropped: dropped,
    };
    let events = notes::trace_events(
        &patch,
        &report,
        &errors,
        committed.revision,
        Actor::Model,
        Some(by),
    )?;
    w.trace.extend(events);
    record.notes = Some(notes_value);
    // Bob v0's compact state.json; derived from the checkpoint just committed, so a failure
    // to write it is traced and the turn stands.
    if let Err(e) = super::continuity::write_state_json(home, sid) {
        w.trace.push(&trace::StateJsonFailed {
            run_id: &w.run_id,
            error: &e,
        })?;
    }
    w.trace.push(&trace::Continuity {
        run_id: &w.run_id,
        source: continuity.as_str(),
        active_context: &committed.state.episode_summary,
        open_threads: committed.state.open_loops.len(),
    })?;

    // Memory candidates: pending, for a human.
    if !w.candidates.is_empty() {
        let cands: Vec<MemoryCandidate> =
            w.candidates.drain(..).take(MAX_MEMORY_CANDIDATES).collect();
        let run_id = w.run_id.clone();
        let ids = super::mem::propose(w.memory()?, cands, opts.user_id.as_deref(), sid, &run_id)?;
        for r in ids {
            match r {
                Ok(id) => record.memory_candidates.push(id),
                Err(e) => {
                    if let Some(n) = record.notes.as_mut() {
                        n.errors
                            .push(format!("memory candidate refused: {}", e.message));
                    }
                }
            }
        }
    }

    // Short-term memory: one entry per completed turn, never for one in an error state (an
    // incomplete turn is one). Non-authoritative: a failure to write it is traced, the turn
    // stands.
    if w.incomplete.is_none() {
        let entry = super::mem::stm_entry(&TurnSummary {
            user: opts.user_id.as_deref(),
            session_id: sid,
            message: &input.message,
            output: &output,
            open_loops: &committed.state.open_loops,
            tools: &w.tools,
            tainted: w.any_tool_failed,
        });
        let written = w.memory().and_then(|m| m.stm_add_unsynced(entry));
        match written {
            Ok(e) => w.trace.push(&trace::Stm::Written {
                run_id: &w.run_id,
                id: &e.id,
                tainted: e.error_tainted,
            })?,
            Err(e) => w.trace.push(&trace::Stm::Failed {
                run_id: &w.run_id,
                error: &e,
            })?,
        }
    }
    record.output = output;
    Ok(())
}
