//! The acts only a human performs on a session, each recorded in the audit log (actor `human`)
//! under the checkpoint's lock before it is committed, so no record means no change: editing
//! the state by hand ([`set_state`]) and requesting, granting or revoking a capability
//! ([`change_capability`]). A model can only request a capability (through a NOTES patch); a
//! grant is always one of these acts. `bob state set`, `bob caps` and the server call these.

use crate::audit;
use crate::checkpoint;
use crate::contracts::audit as payload;
use crate::contracts::{ChatMessage, Checkpoint, State};
use crate::error::{Error, Result};
use crate::home::Home;
use serde_json::Value;
use std::collections::BTreeSet;

/// Changes the state of `session` by hand: `input` is a Checkpoint-shaped or State-shaped
/// document, merged field by field into the stored state (or, `replace`, replacing it and the
/// recent messages). Capabilities are kept, and an input naming other ones is refused. The
/// revision the write must find is `expect_revision`, else the input checkpoint's own. Audited
/// as `state.set` with the fields named and changed. Returns the committed checkpoint.
pub fn set_state(
    home: &Home,
    session: &str,
    input: Value,
    replace: bool,
    expect_revision: Option<u64>,
) -> Result<Checkpoint> {
    let input = SetInput::parse(input)?;
    let expect = input.expected_revision(session, expect_revision)?;
    let (cp, ()) = checkpoint::update(home, session, expect, |cp| {
        let from = cp.revision;
        let before = cp.clone();
        input.apply(cp, replace)?;
        let changed = changed_fields(&before, cp);
        // Recorded under the checkpoint's lock, before the commit.
        audit::human_act(
            home,
            &payload::StateSet {
                session_id: session,
                mode: if replace { "replace" } else { "merge" },
                fields: &input.named,
                changed: &changed,
                recent_messages: payload::BeforeAfter {
                    before: before.recent_messages.len(),
                    after: cp.recent_messages.len(),
                },
                from_revision: from,
                revision: from + 1,
            },
        )?;
        Ok(())
    })?;
    Ok(cp)
}

/// A change to a session's capabilities.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CapabilityChange {
    Request,
    Grant,
    Revoke,
}

/// Requests, grants or revokes capability `cap` of `session` (audited as `caps.request`,
/// `caps.grant` or `caps.revoke`). A grant must name a capability bob checks, with a `net:`
/// scope of a whole domain or one IP address; requesting and revoking take any well-formed
/// capability. Returns the committed checkpoint and whether anything changed.
pub fn change_capability(
    home: &Home,
    session: &str,
    cap: &str,
    change: CapabilityChange,
    expect_revision: Option<u64>,
) -> Result<(Checkpoint, bool)> {
    if change == CapabilityChange::Grant {
        crate::tools::policy::check_grant(cap)?;
    }
    // A malformed capability is refused before the home is touched.
    let canonical = checkpoint::parse_capability(cap)?;
    let act = match change {
        CapabilityChange::Request => "caps.request",
        CapabilityChange::Grant => "caps.grant",
        CapabilityChange::Revoke => "caps.revoke",
    };
    checkpoint::update(home, session, expect_revision, |cp| {
        let changed = match change {
            CapabilityChange::Request => cp.state.request_capability(cap)?,
            CapabilityChange::Grant => cp.state.grant_capability(cap)?,
            CapabilityChange::Revoke => cp.state.revoke_capability(cap)?,
        };
        // Recorded under the checkpoint's lock, before the commit: no record, no change.
        audit::human_act(
            home,
            &payload::CapabilityChanged {
                act,
                session_id: session,
                capability: &canonical,
                changed,
                revision: cp.revision + 1,
            },
        )?;
        Ok(changed)
    })
}

/// The State fields, canonical names, in order.
const STATE_FIELDS: [&str; 9] = [
    "goals",
    "open_loops",
    "decisions",
    "constraints",
    "episode_summary",
    "memory_tags",
    "memory_refs",
    "capabilities_granted",
    "capabilities_pending",
];

/// The capability lists: kept in every mode, changed only by `bob caps`.
const CAPABILITY_FIELDS: [&str; 2] = ["capabilities_granted", "capabilities_pending"];

/// What `state set` read: the state, which of its fields the input named, and what a
/// Checkpoint carried besides.
struct SetInput {
    state: State,
    /// Canonical names of the State fields present in the input.
    named: Vec<&'static str>,
    messages: Option<Vec<ChatMessage>>,
    /// A Checkpoint's `revision` and `session_id`.
    revision: Option<u64>,
    session_id: Option<String>,
}

impl SetInput {
    /// Reads a Checkpoint-shaped or State-shaped document.
    fn parse(value: Value) -> Result<SetInput> {
        let Value::Object(mut map) = value else {
            return Err(Error::invalid(
                "state: expected a JSON object (a Checkpoint or a State)",
            ));
        };
        let bad = |what: &str, e: serde_json::Error| Error::invalid(format!("{what}: {e}"));
        let (state, what, messages, revision, session_id) = match map.remove("state") {
            Some(Value::Object(state)) => {
                let messages = match map.remove("recent_messages") {
                    None | Some(Value::Null) => None,
                    Some(m) => Some(
                        serde_json::from_value(m)
                            .map_err(|e| bad("checkpoint.recent_messages", e))?,
                    ),
                };
                let revision = match map.remove("revision") {
                    None | Some(Value::Null) => None,
                    Some(r) => Some(r.as_u64().ok_or_else(|| {
                        Error::invalid("checkpoint.revision must be a whole number >= 0")
                            .with("field", "revision")
                    })?),
                };
                let session_id = match map.remove("session_id") {
                    None | Some(Value::Null) => None,
                    Some(Value::String(s)) if s.is_empty() => None,
                    Some(Value::String(s)) => Some(s),
                    Some(_) => {
                        return Err(Error::invalid("checkpoint.session_id must be a string")
                            .with("field", "session_id"));
                    }
                };
                (state, "checkpoint.state", messages, revision, session_id)
            }
            Some(_) => return Err(Error::invalid("checkpoint.state must be a JSON object")),
            None => (map, "state", None, None, None),
        };
        let named = STATE_FIELDS
            .into_iter()
            .filter(|f| {
                state.contains_key(*f)
                    || (*f == "open_loops" && state.contains_key("open_threads"))
                    || (*f == "episode_summary" && state.contains_key("active_context"))
            })
            .collect();
        let state: State =
            serde_json::from_value(Value::Object(state)).map_err(|e| bad(what, e))?;
        Ok(SetInput {
            state,
            named,
            messages,
            revision,
            session_id,
        })
    }

    /// The revision the write must find: --expect-revision, else a Checkpoint's own revision.
    fn expected_revision(&self, session: &str, flag: Option<u64>) -> Result<Option<u64>> {
        if let Some(other) = &self.session_id
            && other != session
        {
            return Err(Error::invalid(format!(
                "the input is the checkpoint of session {other:?}, not {session:?}; to copy a \
                 state across sessions pipe its `.state` (a bare State)"
            ))
            .with("session_id", session)
            .with("input_session_id", other.as_str()));
        }
        match (flag, self.revision) {
            (Some(f), Some(r)) if f != r => Err(Error::invalid(format!(
                "--expect-revision {f} contradicts the input checkpoint's revision {r}"
            ))
            .with("expect_revision", f)
            .with("revision", r)),
            (Some(f), _) => Ok(Some(f)),
            (None, r) => Ok(r),
        }
    }

    /// Applies the input to the stored checkpoint `cp` (merge, or `replace`); capabilities
    /// are kept, and refused when the input names other ones.
    fn apply(&self, cp: &mut Checkpoint, replace: bool) -> Result<()> {
        let stored = cp.state.clone();
        for field in CAPABILITY_FIELDS {
            if !self.named.contains(&field) {
                continue;
            }
            let (given, kept) = match field {
                "capabilities_granted" => (
                    &self.state.capabilities_granted,
                    &stored.capabilities_granted,
                ),
                _ => (
                    &self.state.capabilities_pending,
                    &stored.capabilities_pending,
                ),
            };
            if canonical_set(given)? != canonical_set(kept)? {
                return Err(Error::invalid(format!(
                    "{field} differs from the session's: capabilities change only through \
                     `bob caps grant|revoke|request` (leave {field} out, or give the stored value)"
                ))
                .with("field", field)
                .with("stored", kept.clone())
                .with("given", given.clone()));
            }
        }
        let mut next = if replace {
            self.state.clone()
        } else {
            let mut merged = serde_json::to_value(&stored).map_err(internal)?;
            let input = serde_json::to_value(&self.state).map_err(internal)?;
            for f in &self.named {
                merged[*f] = input[*f].clone();
            }
            serde_json::from_value(merged).map_err(internal)?
        };
        next.capabilities_granted = stored.capabilities_granted;
        next.capabilities_pending = stored.capabilities_pending;
        cp.state = next;
        match &self.messages {
            Some(m) => cp.recent_messages = m.clone(),
            None if replace => cp.recent_messages.clear(),
            None => {}
        }
        Ok(())
    }
}

fn internal(e: serde_json::Error) -> Error {
    Error::internal(e.to_string())
}

/// A capability list as a sorted set of canonical tokens.
fn canonical_set(list: &[String]) -> Result<BTreeSet<String>> {
    list.iter()
        .map(|c| checkpoint::parse_capability(c))
        .collect()
}

/// Names of the State fields that differ, plus `recent_messages` when they do.
fn changed_fields(before: &Checkpoint, after: &Checkpoint) -> Vec<&'static str> {
    let (b, a) = (
        serde_json::to_value(&before.state).unwrap_or_default(),
        serde_json::to_value(&after.state).unwrap_or_default(),
    );
    let mut out: Vec<&'static str> = STATE_FIELDS
        .into_iter()
        .filter(|f| b.get(*f) != a.get(*f))
        .collect();
    if before.recent_messages != after.recent_messages {
        out.push("recent_messages");
    }
    out
}
