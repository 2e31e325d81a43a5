//! `bob state show|set`: read a session's checkpoint, or change its state by hand.

use super::Ctx;
use super::output::{parse_json, read_input};
use crate::audit;
use crate::checkpoint;
use crate::contracts::{ChatMessage, Checkpoint, State};
use crate::error::{Error, Result};
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::path::PathBuf;

#[derive(Debug, clap::Subcommand)]
pub enum Args {
    /// Print the session's checkpoint JSON
    ///
    /// A session with no checkpoint yet is not_found (exit 4), so a mistyped id is noticed;
    /// with --or-empty it prints the fresh checkpoint (revision 0) instead. Nothing is written.
    Show(ShowArgs),
    /// Change the session's state by hand (a human act, audited); bumps the revision
    ///
    /// Input (stdin or --input FILE): a bare State, or a Checkpoint (as `state show` prints it).
    /// The fields the input names are set; the fields it does not name are kept, and so are the
    /// recent messages unless a Checkpoint carries `recent_messages`. With --replace the input
    /// is the whole state: fields it does not name are reset, and the recent messages become
    /// the input's (none for a bare State).
    ///
    /// Capabilities change only through `bob caps`: `capabilities_granted` and
    /// `capabilities_pending` are always kept; an input that names them with other values than
    /// the stored ones is invalid.request (exit 2) and nothing is written.
    ///
    /// A Checkpoint's `revision` is the revision it was read at and is checked like
    /// --expect-revision: a stale checkpoint (revision 2 when the session is at 3) is conflict
    /// (exit 5) and nothing is written. A Checkpoint of another session is invalid.request (pipe
    /// its `.state` to copy a state across sessions).
    ///
    /// A Bob v0 state.json is accepted: `active_context` becomes `episode_summary`,
    /// `open_threads` becomes `open_loops`. Unknown fields are ignored. Every change is recorded
    /// in the audit log (`state.set`, actor human) before it is committed. Prints the committed
    /// checkpoint.
    Set(SetArgs),
}

#[derive(Debug, clap::Args)]
pub struct ShowArgs {
    /// Session id (letters, digits, . _ - : @)
    #[arg(long, value_name = "ID")]
    pub session: String,
    /// Print a fresh checkpoint (revision 0) for a session that has none yet
    #[arg(long)]
    pub or_empty: bool,
}

#[derive(Debug, clap::Args)]
pub struct SetArgs {
    /// Session id (letters, digits, . _ - : @)
    #[arg(long, value_name = "ID")]
    pub session: String,
    /// Fail with conflict (exit 5) unless the stored revision is N (0 = no checkpoint yet)
    #[arg(long, value_name = "N")]
    pub expect_revision: Option<u64>,
    /// Read the input from FILE instead of stdin
    #[arg(long, value_name = "FILE")]
    pub input: Option<PathBuf>,
    /// Replace the whole state and the recent messages instead of merging (capabilities are
    /// still kept: they change only through `bob caps`)
    #[arg(long)]
    pub replace: bool,
}

pub fn run(args: Args, ctx: &Ctx) -> Result<()> {
    match args {
        Args::Show(a) => {
            let cp = match checkpoint::load_existing(&ctx.home, &a.session)? {
                Some(cp) => cp,
                None if a.or_empty => checkpoint::fresh(&a.session),
                None => {
                    return Err(Error::not_found(format!(
                        "session {:?} has no checkpoint (use --or-empty for a fresh one)",
                        a.session
                    ))
                    .with("session_id", a.session.as_str()));
                }
            };
            ctx.out.doc(&cp)
        }
        Args::Set(a) => {
            // Validate the id before reading a possibly large input.
            ctx.home.checkpoint_path(&a.session)?;
            let text = read_input(a.input.as_deref())?;
            let value: Value = parse_json("state", &text)?;
            let input = SetInput::parse(value)?;
            let expect = input.expected_revision(&a.session, a.expect_revision)?;
            let (cp, ()) = checkpoint::update(&ctx.home, &a.session, expect, |cp| {
                let from = cp.revision;
                let before = cp.clone();
                input.apply(cp, a.replace)?;
                let changed = changed_fields(&before, cp);
                // A human act: recorded under the checkpoint's lock, before the commit.
                audit::human_act(
                    &ctx.home,
                    "state.set",
                    json!({"session_id": a.session, "mode": if a.replace {"replace"} else {"merge"},
                           "fields": input.named, "changed": changed,
                           "recent_messages": {"before": before.recent_messages.len(),
                                               "after": cp.recent_messages.len()},
                           "from_revision": from, "revision": from + 1}),
                )?;
                Ok(())
            })?;
            ctx.out.doc(&cp)
        }
    }
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
                .with("stored", json!(kept))
                .with("given", json!(given)));
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
