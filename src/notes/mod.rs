//! The NOTES patch protocol: finding `<<<NOTES_JSON>>> … <<<END_NOTES_JSON>>>`
//! blocks in assistant text, turning their payload into a canonical [`NotesPatch`], and
//! applying a patch to a [`State`].
//!
//! * [`extract`] removes *every* block from the text, whatever happens to its payload: a
//!   payload never reaches the visible text. Several blocks merge in order
//!   ([`NotesPatch::merge`]); a malformed payload is reported (`invalid.request`) and never
//!   applied; an unterminated block is removed up to the end of the text and reported; a stray
//!   end marker is removed and reported.
//! * [`parse_patch`] accepts the Spectator payload, JSON I/O [`NoteFrames`] (bare or wrapped as
//!   `{"notes": {...}}`), or a mix; unknown keys are ignored and listed (`ignored_keys`); a
//!   known key with the wrong shape (`"set_goals": "x"`) rejects the whole payload.
//! * [`apply`] follows Spectator exactly: absent keys change nothing, `set_*` replace,
//!   `add_*` append what is not already there (keeping order), `close_open_loops` removes
//!   matching loops, then the actions run. Only a [`Actor::Human`] patch can grant a
//!   capability; a model's `grant_permission:` is refused and reported.

pub mod session;

use crate::contracts::{Checkpoint, NoteFrames, NotesPatch, State};
use crate::error::{Error, Result};
use serde::Serialize;
use serde_json::{Map, Value};

/// Opens a NOTES block.
pub const BEGIN_MARKER: &str = "<<<NOTES_JSON>>>";
/// Closes a NOTES block.
pub const END_MARKER: &str = "<<<END_NOTES_JSON>>>";

/// The keys of the Spectator payload.
pub const PATCH_KEYS: &[&str] = &[
    "set_goals",
    "add_open_loops",
    "close_open_loops",
    "add_decisions",
    "add_constraints",
    "set_episode_summary",
    "add_memory_tags",
    "actions",
];

/// The keys of a JSON I/O NoteFrames payload.
pub const FRAME_KEYS: &[&str] = &["facts", "open_qs", "decisions", "todos"];

/// What [`extract`] found in one piece of assistant text.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Extracted {
    /// The merged patch of every well-formed block; `None` when there was none.
    pub patch: Option<NotesPatch>,
    /// The text with every block (and stray marker) removed.
    pub visible_text: String,
    /// One `invalid.request` per malformed or unterminated block or stray end marker.
    pub errors: Vec<Error>,
    /// Payload keys that are not part of any accepted shape (ignored).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ignored_keys: Vec<String>,
    /// How many blocks (well-formed or not) were removed.
    pub blocks: usize,
}

/// A payload converted to the canonical patch.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ParsedPatch {
    pub patch: NotesPatch,
    /// Keys that were ignored because no accepted shape has them.
    pub ignored_keys: Vec<String>,
}

pub use crate::contracts::{ActionNote, Actor, CondenseOutcome, CondenseRequest};

/// What [`apply`] did.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ApplyReport {
    /// Patch keys that were present and applied, in application order.
    pub applied: Vec<String>,
    /// Actions that were recognised and carried out (or, for condensation, handed back).
    pub actions: Vec<String>,
    /// Unknown or malformed actions, ignored.
    pub ignored_actions: Vec<ActionNote>,
    /// Actions the actor may not take (a model granting a capability).
    pub refused: Vec<ActionNote>,
    /// Capabilities newly added to `capabilities_pending`.
    pub requested: Vec<String>,
    /// Capabilities newly granted.
    pub granted: Vec<String>,
    /// Payload keys ignored while parsing (filled by the caller from [`ParsedPatch`]).
    pub ignored_keys: Vec<String>,
    /// The condensation the caller should run, if any (`condense_now` wins over
    /// `condense_smart`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub condense: Option<CondenseRequest>,
    /// What [`apply_to_checkpoint`] did about [`ApplyReport::condense`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub condensed: Option<CondenseOutcome>,
}

impl NotesPatch {
    /// True when the patch has no key at all (applying it changes nothing).
    pub fn is_empty(&self) -> bool {
        *self == NotesPatch::default()
    }

    /// Merges a later patch into this one, as if both had been applied in order:
    /// `set_*` keys of `later` replace, list keys concatenate.
    pub fn merge(&mut self, later: NotesPatch) {
        fn cat(a: &mut Option<Vec<String>>, b: Option<Vec<String>>) {
            if let Some(b) = b {
                a.get_or_insert_with(Vec::new).extend(b);
            }
        }
        if later.set_goals.is_some() {
            self.set_goals = later.set_goals;
        }
        if later.set_episode_summary.is_some() {
            self.set_episode_summary = later.set_episode_summary;
        }
        cat(&mut self.add_open_loops, later.add_open_loops);
        cat(&mut self.close_open_loops, later.close_open_loops);
        cat(&mut self.add_decisions, later.add_decisions);
        cat(&mut self.add_constraints, later.add_constraints);
        cat(&mut self.add_memory_tags, later.add_memory_tags);
        cat(&mut self.actions, later.actions);
    }
}

/// Converts one payload (a JSON object) to the canonical patch.
///
/// Spectator keys and JSON I/O NoteFrames keys may be mixed; a `notes` key holding an object
/// (JSON I/O Thinking output `{plan, notes, save_plan}`) is read as a nested payload. A key
/// whose value is `null` counts as absent. Other keys are ignored and listed.
pub fn parse_patch(value: &Value) -> Result<ParsedPatch> {
    let Value::Object(map) = value else {
        return Err(Error::invalid(format!(
            "a NOTES payload is a JSON object, not {}",
            crate::error::json_kind(value)
        )));
    };
    let mut patch_part = Map::new();
    let mut frames_part = Map::new();
    let mut nested = Vec::new();
    let mut ignored_keys = Vec::new();
    for (k, v) in map {
        if v.is_null() {
            continue;
        }
        if PATCH_KEYS.contains(&k.as_str()) {
            patch_part.insert(k.clone(), v.clone());
        } else if FRAME_KEYS.contains(&k.as_str()) {
            frames_part.insert(k.clone(), v.clone());
        } else if k == "notes" && v.is_object() {
            nested.push(v);
        } else {
            ignored_keys.push(k.clone());
        }
    }
    let mut patch: NotesPatch = serde_json::from_value(Value::Object(patch_part))
        .map_err(|e| Error::invalid(format!("NOTES payload: {}", clip(&e.to_string()))))?;
    if !frames_part.is_empty() {
        let frames: NoteFrames = serde_json::from_value(Value::Object(frames_part))
            .map_err(|e| Error::invalid(format!("NoteFrames payload: {}", clip(&e.to_string()))))?;
        patch.merge(frames.into_patch());
    }
    for n in nested {
        let inner = parse_patch(n)?;
        patch.merge(inner.patch);
        ignored_keys.extend(inner.ignored_keys.into_iter().map(|k| format!("notes.{k}")));
    }
    Ok(ParsedPatch {
        patch,
        ignored_keys,
    })
}

/// Parses a payload from text: JSON, optionally inside a ```` ``` ```` / ```` ```json ````
/// fence.
pub fn parse_patch_text(text: &str) -> Result<ParsedPatch> {
    let body = strip_fence(text.trim());
    if body.is_empty() {
        return Err(Error::invalid("empty NOTES payload"));
    }
    let value: Value =
        serde_json::from_str(body).map_err(|e| Error::bad_json("NOTES payload", &e))?;
    parse_patch(&value)
}

/// Reads the input of `bob notes apply`: a bare payload (Spectator patch, NoteFrames, or a mix),
/// or assistant text holding NOTES blocks, given as text or as a chat message
/// (`{"role":"assistant","content":…}`, or `bob chat` output `{"message":{…}}`).
///
/// Text that parses as JSON is a bare payload, and a bad one is an error (nothing to apply).
/// Otherwise the blocks are extracted: malformed blocks land in [`Extracted::errors`] while
/// the well-formed ones still apply. Text with no block gives `patch: None`. Text that starts
/// like JSON (`{` or `[`) but is neither JSON nor holds a block is `invalid.request`; so is
/// empty input.
pub fn patch_from_input(text: &str) -> Result<Extracted> {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Err(Error::invalid(
            "notes: no input (expected a NOTES payload or assistant text)",
        ));
    }
    let looks_json = trimmed.starts_with('{') || trimmed.starts_with('[');
    if looks_json && let Ok(value) = serde_json::from_str::<Value>(trimmed) {
        if !is_payload(&value)
            && let Some(content) = assistant_content(&value)
        {
            // A model's reply counts only through its marked blocks.
            return Ok(extract(content));
        }
        let p = parse_patch(&value)?;
        return Ok(Extracted {
            patch: Some(p.patch),
            ignored_keys: p.ignored_keys,
            ..Extracted::default()
        });
    }
    if text.contains(BEGIN_MARKER) || text.contains(END_MARKER) {
        return Ok(extract(text));
    }
    if looks_json {
        // Not JSON after all: report the parser's error.
        parse_patch_text(trimmed)?;
    }
    Ok(Extracted {
        visible_text: text.to_string(),
        ..Extracted::default()
    })
}

/// True when a JSON object has a key of an accepted payload shape.
fn is_payload(value: &Value) -> bool {
    value.as_object().is_some_and(|m| {
        m.keys().any(|k| {
            PATCH_KEYS.contains(&k.as_str()) || FRAME_KEYS.contains(&k.as_str()) || k == "notes"
        })
    })
}

/// The assistant text of a chat message `{"role","content"}` or of `bob chat` output
/// `{"message":{"content"}}`, if `value` is one.
pub fn assistant_content(value: &Value) -> Option<&str> {
    value
        .get("message")
        .and_then(|m| m.get("content"))
        .or_else(|| value.get("content"))
        .and_then(Value::as_str)
}

fn strip_fence(s: &str) -> &str {
    let Some(rest) = s.strip_prefix("```") else {
        return s;
    };
    let rest = match rest.find('\n') {
        Some(i) if rest[..i].trim().chars().all(|c| c.is_ascii_alphanumeric()) => &rest[i + 1..],
        _ => rest,
    };
    rest.trim_end().strip_suffix("```").unwrap_or(rest).trim()
}

/// Shape errors quote the offending value; keep messages short however large it is.
fn clip(msg: &str) -> String {
    const MAX: usize = 200;
    match msg.char_indices().nth(MAX) {
        Some((i, _)) => format!("{}…", &msg[..i]),
        None => msg.to_string(),
    }
}

/// Removes every NOTES block from `text` and parses their payloads (see the module docs).
pub fn extract(text: &str) -> Extracted {
    let mut out = Extracted::default();
    // Visible segments and whether each touches a removed block on its left / right.
    let mut segments: Vec<(&str, bool, bool)> = Vec::new();
    let mut rest = text;
    let mut after_block = false;
    loop {
        let Some(i) = rest.find(BEGIN_MARKER) else {
            segments.push((rest, after_block, false));
            break;
        };
        segments.push((&rest[..i], after_block, true));
        after_block = true;
        out.blocks += 1;
        let n = out.blocks;
        let body = &rest[i + BEGIN_MARKER.len()..];
        let Some(j) = body.find(END_MARKER) else {
            out.errors.push(
                Error::invalid(format!(
                    "NOTES_JSON block {n} has no {END_MARKER}; removed to the end of the text and not applied"
                ))
                .with("block", n),
            );
            rest = "";
            segments.push((rest, true, false));
            break;
        };
        match parse_patch_text(&body[..j]) {
            Ok(p) => {
                out.ignored_keys.extend(p.ignored_keys);
                match &mut out.patch {
                    Some(acc) => acc.merge(p.patch),
                    None => out.patch = Some(p.patch),
                }
            }
            Err(e) => {
                let mut reported = Error::invalid(format!(
                    "NOTES_JSON block {n} was not applied: {}",
                    e.message
                ))
                .with("block", n);
                reported.details.extend(e.details);
                out.errors.push(reported);
            }
        }
        rest = &body[j + END_MARKER.len()..];
    }
    if out.blocks == 0 && !text.contains(END_MARKER) {
        out.visible_text = text.to_string();
        return out;
    }
    let mut pieces: Vec<String> = Vec::new();
    for (seg, left, right) in segments {
        let (cleaned, stray) = remove_stray_end(seg);
        for _ in 0..stray {
            out.errors.push(Error::invalid(format!(
                "stray {END_MARKER} with no opening marker; removed"
            )));
        }
        let mut s = cleaned.as_str();
        if left || stray > 0 {
            s = s.trim_start();
        }
        if right || stray > 0 {
            s = s.trim_end();
        }
        if !s.is_empty() {
            pieces.push(s.to_string());
        }
    }
    out.visible_text = pieces.join("\n\n");
    out
}

fn remove_stray_end(seg: &str) -> (String, usize) {
    let stray = seg.matches(END_MARKER).count();
    if stray == 0 {
        return (seg.to_string(), 0);
    }
    let parts: Vec<&str> = seg
        .split(END_MARKER)
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect();
    (parts.join("\n\n"), stray)
}

/// Appends the trimmed, non-empty items of `items` that `list` does not already hold.
fn add_all(list: &mut Vec<String>, items: &[String]) {
    for item in items {
        let item = item.trim();
        if !item.is_empty() && !list.iter().any(|x| x.trim() == item) {
            list.push(item.to_string());
        }
    }
}

/// Applies `patch` to `state` as Spectator says, then runs its actions as `actor`.
///
/// List items are trimmed; empty items are skipped; an item already in the list (compared
/// trimmed) is not added again. `set_goals` replaces the goals (without duplicates);
/// `close_open_loops` removes every loop equal (trimmed) to one of its items.
///
/// Actions: `request_permission:<cap>` adds `<cap>` to `capabilities_pending` unless it is
/// granted; `grant_permission:<cap>` grants it when `actor` is [`Actor::Human`] and is
/// refused otherwise; `condense_now` / `condense_smart` are handed back in
/// [`ApplyReport::condense`]; anything else (or a malformed capability) is ignored and
/// reported.
pub fn apply(state: &mut State, patch: &NotesPatch, actor: Actor) -> ApplyReport {
    let mut r = ApplyReport::default();
    let mut applied = |k: &str| r.applied.push(k.to_string());
    if let Some(goals) = &patch.set_goals {
        state.goals.clear();
        add_all(&mut state.goals, goals);
        applied("set_goals");
    }
    if let Some(v) = &patch.add_open_loops {
        add_all(&mut state.open_loops, v);
        applied("add_open_loops");
    }
    if let Some(v) = &patch.close_open_loops {
        state
            .open_loops
            .retain(|l| !v.iter().any(|c| c.trim() == l.trim()));
        applied("close_open_loops");
    }
    if let Some(v) = &patch.add_decisions {
        add_all(&mut state.decisions, v);
        applied("add_decisions");
    }
    if let Some(v) = &patch.add_constraints {
        add_all(&mut state.constraints, v);
        applied("add_constraints");
    }
    if let Some(s) = &patch.set_episode_summary {
        state.episode_summary = s.clone();
        applied("set_episode_summary");
    }
    if let Some(v) = &patch.add_memory_tags {
        add_all(&mut state.memory_tags, v);
        applied("add_memory_tags");
    }
    if let Some(actions) = &patch.actions {
        applied("actions");
        for a in actions {
            run_action(state, a.trim(), actor, &mut r);
        }
    }
    r
}

/// Applies `patch` to the checkpoint's state ([`apply`]) and runs the condensation it asks
/// for on `recent_messages` ([`crate::condense::condense`] with the default Openclawssy caps:
/// `condense_now` → [`crate::condense::Mode::Force`], `condense_smart` →
/// [`crate::condense::Mode::Pressure`]). Call it inside [`crate::checkpoint::update`].
pub fn apply_to_checkpoint(cp: &mut Checkpoint, patch: &NotesPatch, actor: Actor) -> ApplyReport {
    let mut report = apply(&mut cp.state, patch, actor);
    report.condensed = report.condense.map(|action| condense_messages(cp, action));
    report
}

fn condense_messages(cp: &mut Checkpoint, action: CondenseRequest) -> CondenseOutcome {
    use crate::condense::{Caps, Mode, condense};
    let mode = match action {
        CondenseRequest::Now => Mode::Force,
        CondenseRequest::Smart => Mode::Pressure,
    };
    let out = condense(&cp.recent_messages, &Caps::default(), mode);
    cp.recent_messages = out.messages;
    CondenseOutcome {
        action,
        status: "done",
        dropped: Some(out.dropped.len()),
        truncated: Some(out.truncated.len()),
        total_chars: Some(out.total_chars),
    }
}

/// Which turn applied a patch, for its trace events: its run id, and the messages its
/// pressure condensation dropped. `None` for `bob notes apply`.
#[derive(Debug, Clone, Copy)]
pub struct ByTurn<'a> {
    pub run_id: &'a str,
    pub condensed_dropped: usize,
}

/// The trace events of one application, typed ([`crate::contracts::trace`]) and ready to
/// append: one `notes_patch {error}` per rejected block, `notes_patch` for the patch, and
/// `actions` when it had actions. A turn's events name its run.
pub fn trace_events(
    patch: &NotesPatch,
    report: &ApplyReport,
    errors: &[Error],
    revision: u64,
    actor: Actor,
    turn: Option<ByTurn>,
) -> Result<Vec<crate::store::JsonlLine>> {
    use crate::contracts::trace::{NotesActions, NotesPatchApplied};
    let run_id = turn.map(|t| t.run_id);
    let mut events = error_trace_events(errors, run_id)?;
    let line = |ev| crate::store::jsonl_line(&ev);
    events.push(line(crate::trace::typed(&NotesPatchApplied {
        revision,
        actor,
        patch,
        applied: &report.applied,
        ignored_keys: &report.ignored_keys,
        run_id,
        condensed_dropped: turn.map(|t| t.condensed_dropped),
    })?)?);
    if patch.actions.as_ref().is_some_and(|v| !v.is_empty()) {
        events.push(line(crate::trace::typed(&NotesActions {
            revision,
            actor,
            actions: &report.actions,
            ignored_actions: &report.ignored_actions,
            refused: &report.refused,
            requested: &report.requested,
            granted: &report.granted,
            condense: report.condensed.as_ref(),
            run_id,
        })?)?);
    }
    Ok(events)
}

/// `notes_patch {error}` trace events for blocks that were not applied (naming the turn's run
/// when a turn applied them).
pub fn error_trace_events(
    errors: &[Error],
    run_id: Option<&str>,
) -> Result<Vec<crate::store::JsonlLine>> {
    errors
        .iter()
        .map(|e| {
            let data = crate::contracts::NotesPatchRejected {
                error: e.clone(),
                run_id: run_id.map(str::to_string),
            };
            crate::store::jsonl_line(&crate::trace::typed(&data)?)
        })
        .collect()
}

fn run_action(state: &mut State, action: &str, actor: Actor, r: &mut ApplyReport) {
    let note = |reason: String| ActionNote {
        action: action.to_string(),
        reason,
    };
    let done = |r: &mut ApplyReport| {
        if !r.actions.iter().any(|a| a == action) {
            r.actions.push(action.to_string());
        }
    };
    match action.split_once(':') {
        None if action == "condense_now" => {
            r.condense = Some(CondenseRequest::Now);
            done(r);
        }
        None if action == "condense_smart" => {
            if r.condense.is_none() {
                r.condense = Some(CondenseRequest::Smart);
            }
            done(r);
        }
        Some(("request_permission", cap)) => match state.request_capability(cap) {
            Ok(changed) => {
                if changed && let Some(c) = state.capabilities_pending.last() {
                    r.requested.push(c.clone());
                }
                done(r);
            }
            Err(e) => r.ignored_actions.push(note(e.message)),
        },
        Some(("grant_permission", cap)) => match actor {
            Actor::Model => r.refused.push(note(
                "a model may request a capability but never grant it; a human grants with `bob caps grant`"
                    .into(),
            )),
            Actor::Human => match crate::tools::policy::check_grant(cap)
                .and_then(|()| state.grant_capability(cap))
            {
                Ok(changed) => {
                    if changed && let Ok(c) = crate::checkpoint::parse_capability(cap) {
                        r.granted.push(c);
                    }
                    done(r);
                }
                Err(e) => r.ignored_actions.push(note(e.message)),
            },
        },
        _ => r.ignored_actions.push(note("unknown action".into())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::strategy::Strategy;
    use serde_json::json;

    fn patch(v: Value) -> NotesPatch {
        parse_patch(&v).unwrap().patch
    }

    #[test]
    fn extract_removes_every_block_and_merges_in_order() {
        let text = "Hello.\n<<<NOTES_JSON>>>{\"set_goals\":[\"a\"],\"add_decisions\":[\"x\"]}<<<END_NOTES_JSON>>>\nMiddle\n<<<NOTES_JSON>>>\n```json\n{\"set_goals\":[\"b\"],\"add_decisions\":[\"y\"]}\n```\n<<<END_NOTES_JSON>>>\nBye.";
        let x = extract(text);
        assert!(x.errors.is_empty(), "{:?}", x.errors);
        assert_eq!(x.visible_text, "Hello.\n\nMiddle\n\nBye.");
        let p = x.patch.unwrap();
        assert_eq!(p.set_goals.unwrap(), ["b"]);
        assert_eq!(p.add_decisions.unwrap(), ["x", "y"]);
        assert_eq!(x.blocks, 2);
    }

    #[test]
    fn malformed_and_unterminated_blocks_are_reported_never_leaked() {
        let x = extract(
            "A <<<NOTES_JSON>>>{nope SECRET}<<<END_NOTES_JSON>>> B <<<NOTES_JSON>>>{\"set_goals\":[\"z\"]} tail SECRET2",
        );
        assert_eq!(x.errors.len(), 2);
        assert!(x.patch.is_none());
        assert!(!x.visible_text.contains("SECRET"), "{}", x.visible_text);
        assert!(!x.visible_text.contains("<<<"));
        assert_eq!(x.visible_text, "A\n\nB");
        let stray = extract("text <<<END_NOTES_JSON>>> more");
        assert_eq!(stray.errors.len(), 1);
        assert!(!stray.visible_text.contains("<<<"));
    }

    #[test]
    fn text_without_blocks_is_unchanged() {
        let x = extract("  plain\n\ntext ");
        assert_eq!(x.visible_text, "  plain\n\ntext ");
        assert!(x.patch.is_none() && x.errors.is_empty());
    }

    #[test]
    fn wrong_shape_rejects_the_payload() {
        assert!(parse_patch(&json!({"set_goals": "x"})).is_err());
        let long = parse_patch(&json!({"set_goals": "y".repeat(100_000)})).unwrap_err();
        assert!(long.message.len() < 400, "{}", long.message.len());
        assert!(parse_patch(&json!({"facts": [1]})).is_err());
        assert!(parse_patch(&json!([])).is_err());
        let p = parse_patch(&json!({"set_goals": null, "bogus": 1})).unwrap();
        assert!(p.patch.is_empty());
        assert_eq!(p.ignored_keys, ["bogus"]);
    }

    #[test]
    fn note_frames_convert() {
        let p = patch(json!({"facts":["f"],"open_qs":["q"],"decisions":["d"],"todos":["t"]}));
        assert_eq!(p.add_open_loops.unwrap(), ["q", "t"]);
        assert_eq!(p.add_decisions.unwrap(), ["d"]);
        assert_eq!(p.add_constraints.unwrap(), ["f"]);
        let wrapped = parse_patch(&json!({"plan": [], "notes": {"todos": ["t"]}})).unwrap();
        assert_eq!(wrapped.patch.add_open_loops.unwrap(), ["t"]);
        assert_eq!(wrapped.ignored_keys, ["plan"]);
    }

    #[test]
    fn apply_follows_seed_000() {
        let mut s = State {
            goals: vec!["old".into()],
            open_loops: vec!["l1".into(), "l2".into()],
            decisions: vec!["d1".into()],
            episode_summary: "keep".into(),
            ..State::default()
        };
        let r = apply(&mut s, &patch(json!({})), Actor::Model);
        assert!(r.applied.is_empty());
        assert_eq!(s.goals, ["old"]);
        assert_eq!(s.episode_summary, "keep");
        let r = apply(
            &mut s,
            &patch(json!({
                "set_goals": ["g1", "g1", "g2"],
                "add_open_loops": ["l2", "l3"],
                "close_open_loops": ["l1"],
                "add_decisions": ["d1", "d2"],
                "set_episode_summary": "new",
                "actions": ["condense_smart", "condense_now", "request_permission:net:hf.co",
                            "grant_permission:net", "fly_to_moon"]
            })),
            Actor::Model,
        );
        assert_eq!(s.goals, ["g1", "g2"]);
        assert_eq!(s.open_loops, ["l2", "l3"]);
        assert_eq!(s.decisions, ["d1", "d2"]);
        assert_eq!(s.episode_summary, "new");
        assert_eq!(s.capabilities_pending, ["net:hf.co"]);
        assert!(s.capabilities_granted.is_empty());
        assert_eq!(r.condense, Some(CondenseRequest::Now));
        assert_eq!(r.refused.len(), 1);
        assert_eq!(r.ignored_actions[0].action, "fly_to_moon");
        assert_eq!(r.requested, ["net:hf.co"]);

        let r = apply(
            &mut s,
            &patch(
                json!({"actions": ["grant_permission:net:hf.co", "request_permission:net:hf.co"]}),
            ),
            Actor::Human,
        );
        assert_eq!(s.capabilities_granted, ["net:hf.co"]);
        assert!(s.capabilities_pending.is_empty());
        assert_eq!(r.granted, ["net:hf.co"]);
        assert!(r.requested.is_empty());
    }

    #[test]
    fn merge_matches_sequential_application() {
        let a =
            patch(json!({"set_goals": ["a"], "add_decisions": ["x"], "set_episode_summary": "s1"}));
        let b = patch(json!({"add_decisions": ["y"], "set_episode_summary": "s2"}));
        let mut seq = State::default();
        apply(&mut seq, &a, Actor::Model);
        apply(&mut seq, &b, Actor::Model);
        let mut merged = a.clone();
        merged.merge(b);
        let mut once = State::default();
        apply(&mut once, &merged, Actor::Model);
        assert_eq!(seq, once);
    }

    /// Oracle: the text outside `BEGIN … END` blocks (an unterminated block runs to the end).
    fn outside_blocks(text: &str) -> String {
        let mut out = String::new();
        let mut rest = text;
        while let Some(i) = rest.find(BEGIN_MARKER) {
            out.push_str(&rest[..i]);
            let body = &rest[i + BEGIN_MARKER.len()..];
            match body.find(END_MARKER) {
                Some(j) => rest = &body[j + END_MARKER.len()..],
                None => return out,
            }
        }
        out.push_str(rest);
        out
    }

    proptest::proptest! {
        /// Whatever the model writes, no marker and no block payload survives into the
        /// visible text, and extraction never panics.
        #[test]
        fn no_marker_or_payload_survives(pieces in proptest::collection::vec(
            proptest::prop_oneof![
                "[a-z <>{}\\[\\]\":,\n]{0,12}".prop_map(|s| s),
                proptest::strategy::Just(BEGIN_MARKER.to_string()),
                proptest::strategy::Just(END_MARKER.to_string()),
                proptest::strategy::Just("<<<".to_string()),
                proptest::strategy::Just(">>>".to_string()),
                proptest::strategy::Just("{\"add_decisions\":[\"PAYLOAD\"]}".to_string()),
            ],
            0..12,
        )) {
            let text = pieces.concat();
            let x = extract(&text);
            proptest::prop_assert!(!x.visible_text.contains(BEGIN_MARKER));
            proptest::prop_assert!(!x.visible_text.contains(END_MARKER));
            if text.contains(BEGIN_MARKER) || text.contains(END_MARKER) {
                // Only payloads outside every block stay visible.
                proptest::prop_assert_eq!(
                    x.visible_text.matches("PAYLOAD").count(),
                    outside_blocks(&text).matches("PAYLOAD").count()
                );
            } else {
                proptest::prop_assert_eq!(&x.visible_text, &text);
            }
        }

        /// A model's patch never grants anything, and pending never holds a granted capability.
        #[test]
        fn a_model_never_grants(
            granted in proptest::collection::vec("net(:[a-c]\\.io)?", 0..3),
            actions in proptest::collection::vec(
                "(request|grant)_permission:(net|net:[a-c]\\.io|x y|)|condense_now|other", 0..8),
        ) {
            let mut s = State::default();
            for g in &granted {
                s.grant_capability(g).unwrap();
            }
            let before = s.capabilities_granted.clone();
            let p = NotesPatch { actions: Some(actions), ..NotesPatch::default() };
            apply(&mut s, &p, Actor::Model);
            proptest::prop_assert_eq!(&s.capabilities_granted, &before);
            for c in &s.capabilities_pending {
                proptest::prop_assert!(!s.capabilities_granted.contains(c));
            }
            apply(&mut s, &p, Actor::Human);
            for c in &s.capabilities_pending {
                proptest::prop_assert!(!s.capabilities_granted.contains(c));
            }
        }
    }
}
